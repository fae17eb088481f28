"""The Conversation window (issue 15; opened by :mod:`.conversation_flow`): a session's or think process's
conversation as a thread, with what the prompt replays.

The thread (:mod:`.conversation_model`, drawn by :mod:`.conversation_parts`) shows the live messages — the latest
:data:`PAGE` first, older pages on "Load Earlier" or scrolling to the top — with each folded range as a summary card
that expands to its originals (read then, ``conversations.archived_messages``) and topic stitches where their range
was. The token gauge measures ``conversations.prompt_tokens`` against the context window the person gives
(remembered per library in the preferences). Every action is a ``services.conversations`` call the CLI and the
agent tools make too: Pin / Unpin (``set_pinned``, ``chat pin``), Compact Now (``compact``, ``chat compact``), Fold
Range… (``compact_range``, ``chat compact-range``), Copy Prompt Block (``compose_block``, ``chat compose``), Import
Conversation… (``read_export`` then ``append_many``, ``chat import``) and Works For… (``set_parent``, ``chat parent``;
the header names the parent). Writes go through the :class:`~.workbench.Workbench`, reads through its read lane; the
window reads again when the library's change counter moves (an agent appending, a compaction, an undo).
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QPoint, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QMenu,
    QPushButton,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ..core.conversations import ChatArchive, ChatMessage, CompactionResult, ComposedBlock, MessageKind, StageRule
from ..core.conversations import stage_rules as conversation_stage_rules
from ..core.scope_info import ScopeInfo
from ..services import conversations, scopes
from ..services.library import Library
from ..services.preferences import DEFAULT_CONTEXT_WINDOW
from .conversation_model import CUT_ROLE, EntryKind, ThreadModel, summary_cards, thread_entries
from .conversation_parts import ParentDialog, ThreadView, TokenGauge
from .workbench import Workbench

PAGE = 100
"""Live messages read per page: the latest page first, an older one per "Load Earlier"."""
WINDOW_RANGE = (256, 2_000_000)
"""The context windows the spin box takes (tokens): from a toy model's to the largest served today."""
EMPTY_TEXT = ("<p><b>No messages yet.</b></p><p>Agents append them with the <code>chat_append</code> tool (the "
              "tool API and the MCP server) or <code>vancetope chat append</code>; the first user message is pinned "
              "as the task.</p><p>An exported conversation (a JSON list of messages) comes in with Import "
              "Conversation… below.</p>")
EXPORT_FILTERS = "JSON exports (*.json);;All files (*)"
"""The file dialog's filters for Import Conversation… (chat APIs export a conversation as a JSON list)."""


@dataclass(frozen=True)
class ThreadLoad:
    """What one read of the window brings (made on a worker thread).

    Attributes:
        process: the process's scope path. messages: the live messages read (the latest ones), in order.
        live / archived: the conversation's live and folded messages. offset: where ``messages`` start among the
        live ones (0: from the first). archives: its ``archived_chat`` memories. prompt_tokens: what it puts in a
        prompt now. rules: the stages with the library's thresholds. parent: the process it works for, or None.
    """

    process: str
    messages: list[ChatMessage]
    live: int
    archived: int
    offset: int
    archives: list[ChatArchive]
    prompt_tokens: int
    rules: tuple[StageRule, ...]
    parent: str | None


def load_thread(lib: Library, process: str, wanted: int) -> ThreadLoad:
    """The latest ``wanted`` live messages of ``process`` and what the window shows around them (pages of at most
    1,000, the service's limit).

    Raises:
        ScopeNotFound / ScopeError: the process is gone or is none.
    """
    head = conversations.history(lib, process, offset=0, limit=1, archived=False)
    offset = max(0, head.total - wanted)
    messages: list[ChatMessage] = []
    while offset + len(messages) < head.total:
        page = conversations.history(lib, process, offset=offset + len(messages),
                                     limit=min(1000, head.total - offset - len(messages)), archived=False)
        if not page.messages:  # messages deleted meanwhile: what there is
            break
        messages += page.messages
    return ThreadLoad(process=head.process, messages=messages, live=head.live, archived=head.archived, offset=offset,
                      archives=head.archives, prompt_tokens=conversations.prompt_tokens(lib, process),
                      rules=conversation_stage_rules(lib.settings.chat_thresholds),
                      parent=conversations.parent_process(lib, process))


class ConversationDialog(QDialog):
    """One process's conversation: the gauge and the context window above, the thread, the actions below.

    Signals:
        loaded(int): a read arrived (how many rows the thread shows).
        originals_loaded(str): a card's originals arrived (its id).
        context_window_changed(int): the person set another context window (tokens).
    """

    loaded = Signal(int)
    originals_loaded = Signal(str)
    context_window_changed = Signal(int)

    def __init__(self, workbench: Workbench, process: str, context_window: int = DEFAULT_CONTEXT_WINDOW,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workbench, self.process = workbench, process
        self.setWindowTitle(f"Conversation — {self._name()}")
        self.resize(980, 760)
        self.model = ThreadModel(self)
        self.model.originals_requested.connect(self._read_originals)
        self.view = ThreadView(self)
        self.view.setModel(self.model)
        self.view.top_reached.connect(self.load_earlier)
        self.view.customContextMenuRequested.connect(self._context_menu)
        self.view.selectionModel().selectionChanged.connect(lambda _s, _d: self._update_actions())
        self.heading = QLabel(self)
        self.heading.setTextFormat(Qt.TextFormat.RichText)
        self.works_for = QLabel(self)
        self.works_for.setTextFormat(Qt.TextFormat.PlainText)  # a process's name is the person's text, not markup
        self.works_for.setToolTip(ParentDialog.RULE)
        self.works_for.hide()
        self.parent_button = QPushButton("Works For…", self)
        self.parent_button.setToolTip("Choose the process this one works for (`vancetope chat parent`): "
                                      + ParentDialog.RULE)
        self.parent_button.setAutoDefault(False)  # the first button of the window: Return must not open the picker
        self.parent_button.clicked.connect(self.ask_parent)
        self.window_spin = QSpinBox(self)
        self.window_spin.setRange(*WINDOW_RANGE)
        self.window_spin.setSingleStep(1024)
        self.window_spin.setGroupSeparatorShown(True)
        self.window_spin.setSuffix(" tokens")
        self.window_spin.setValue(context_window)
        self.window_spin.setToolTip("The context window of the model this conversation is for: the gauge, Compact "
                                    "Now and Copy Prompt Block measure against it (remembered for this library)")
        self.window_spin.valueChanged.connect(self._window_changed)
        self.gauge = TokenGauge(self)
        self.gauge_label = QLabel(self)
        self.earlier_button = QPushButton("Load Earlier", self)
        self.earlier_button.clicked.connect(self.load_earlier)
        self.compact_button = QPushButton("Compact Now", self)
        self.compact_button.setToolTip("Run the sliding window now against the context window: when the prompt has "
                                       "passed a threshold, fold older messages into the summary (`vancetope chat "
                                       "compact`)")
        self.compact_button.clicked.connect(self.compact)
        self.fold_button = QPushButton("Fold Range…", self)
        self.fold_button.setToolTip("Fold the selected messages (a finished sub-topic) into a summary of their own, "
                                    "with a topic stitch where they were (`vancetope chat compact-range`)")
        self.fold_button.clicked.connect(self._ask_fold)
        self.copy_button = QPushButton("Copy Prompt Block", self)
        self.copy_button.setToolTip("Copy what the next prompt replays of this conversation, within the context "
                                    "window: the summary, the pinned messages, the recent ones (`vancetope chat "
                                    "compose`)")
        self.copy_button.clicked.connect(self.copy_block)
        self.import_button = QPushButton("Import Conversation…", self)
        self.import_button.setToolTip("Append an exported conversation (a JSON list of messages, as chat APIs export "
                                      "them) after these messages, all or nothing (`vancetope chat import`)")
        self.import_button.clicked.connect(self.ask_import)
        self.empty = QLabel(EMPTY_TEXT, self)
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.pages = QStackedWidget(self)
        self.pages.addWidget(self.view)
        self.pages.addWidget(self.empty)
        self.counts = QLabel(self)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self._build_layout()
        self._request = 0
        self._wanted = PAGE
        self._offset = 0
        self._loading = False
        self._writing = False
        self._seen = workbench.snapshot.change_counter if workbench.snapshot is not None else None
        self._shown: ThreadLoad | None = None
        self._expanded: set[str] = set()
        self.view.expanded.connect(lambda index: self._expanded.add(self._id_at(index)))
        self.view.collapsed.connect(lambda index: self._expanded.discard(self._id_at(index)))
        workbench.snapshot_ready.connect(self._follow)
        self._update_actions()
        self.reload()

    def _build_layout(self) -> None:
        headings = QVBoxLayout()
        headings.addWidget(self.heading)
        headings.addWidget(self.works_for)
        top = QHBoxLayout()
        top.addLayout(headings, 1)
        top.addWidget(self.parent_button)
        top.addWidget(QLabel("Context window:", self))
        top.addWidget(self.window_spin)
        gauge = QHBoxLayout()
        gauge.addWidget(self.gauge, 1)
        gauge.addWidget(self.gauge_label)
        actions = QHBoxLayout()
        actions.addWidget(self.earlier_button)
        actions.addWidget(self.counts)
        actions.addStretch(1)
        for button in (self.import_button, self.compact_button, self.fold_button, self.copy_button):
            actions.addWidget(button)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(gauge)
        layout.addWidget(self.pages, 1)
        layout.addLayout(actions)
        layout.addWidget(self.status)
        layout.addWidget(buttons)

    @property
    def context_window(self) -> int:
        """The context window the gauge and the actions measure against (tokens)."""
        return self.window_spin.value()

    def set_context_window(self, tokens: int) -> None:
        """Measure against ``tokens`` (another Conversation window changed it) without announcing it again."""
        self.window_spin.blockSignals(True)
        self.window_spin.setValue(tokens)
        self.window_spin.blockSignals(False)
        self._show_gauge()

    # --- reading ---------------------------------------------------------------------------------------
    def reload(self) -> None:
        """Read the conversation again: as many of the latest live messages as are shown (the latest request
        wins), the cards, the gauge's tokens."""
        self._request += 1
        self._loading = True
        request, lib, process, wanted = self._request, self.workbench.lib, self.process, self._wanted
        self.workbench.read(lambda _c: load_thread(lib, process, wanted), lambda found: self._loaded(request, found),
                            title="Conversation", on_error=lambda error: self._failed(request, error))

    def load_earlier(self) -> None:
        """Read one page of older live messages too (kept in view where the person was)."""
        if self._loading or self._offset == 0 or self._shown is None:
            return
        self._wanted = self._shown.live - self._offset + PAGE
        self.reload()

    def _follow(self, snapshot: Any) -> None:
        # The library changed (an agent appended, a compaction, a pin from the CLI): read again.
        if self.isVisible() and snapshot.change_counter != self._seen:
            self.reload()
        self._seen = snapshot.change_counter

    def _failed(self, request: int, error: BaseException) -> None:
        if request != self._request:
            return
        self._loading = False
        self.empty.setText(f"<p><b>Cannot read this conversation.</b></p><p>{escape(str(error))}</p>")
        self.pages.setCurrentWidget(self.empty)
        self.counts.setText("")

    def _loaded(self, request: int, found: ThreadLoad) -> None:
        if request != self._request:  # an older read's answer
            return
        anchor, bottom = self._top_row_id(), self._shown is None or self.view.at_bottom()
        selected = {self._id_at(i) for i in self.view.selectionModel().selectedIndexes()}
        self._shown, self._offset = found, found.offset
        self.model.set_entries(thread_entries(found.messages, summary_cards(found.archives),
                                              complete=found.offset == 0))
        for entry_id in list(self._expanded):  # cards read their originals again when expanded again
            index = self.model.index_of(entry_id)
            self._expanded.discard(entry_id)
            if index.isValid():
                self.view.expand(index)
        for entry_id in selected:
            index = self.model.index_of(entry_id)
            if index.isValid():
                self.view.selectionModel().select(index, QItemSelectionModel.SelectionFlag.Select)
        if bottom:
            self.view.scrollToBottom()
        elif anchor and (index := self.model.index_of(anchor)).isValid():
            self.view.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtTop)
        self.pages.setCurrentWidget(self.view if found.live or found.archived else self.empty)
        if not (found.live or found.archived):
            self.empty.setText(EMPTY_TEXT)
        self.heading.setText(f"Conversation of <b>{escape(self._name())}</b> <span>({escape(found.process)})</span>")
        self.works_for.setText(f"Works for: {self._name(found.parent)} ({found.parent})" if found.parent else "")
        self.works_for.setVisible(found.parent is not None)
        self._show_gauge()
        self._show_counts(found)
        self._loading = False
        self._update_actions()
        self.loaded.emit(self.model.rowCount())

    def _read_originals(self, card_id: str) -> None:
        card = next((e.card for e in self.model.entries() if e.card is not None and e.card.id == card_id), None)
        if card is None:
            return
        lib, rolled = self.workbench.lib, bool(card.rolled_up)

        def arrived(found: list[ChatMessage]) -> None:
            self.model.set_originals(card_id, found)
            self.originals_loaded.emit(card_id)

        def failed(error: BaseException) -> None:
            self.model.originals_failed(card_id)
            self.say(f"Could not read the originals: {error}")

        self.workbench.read(lambda _c: conversations.archived_messages(lib, card_id, rolled_up=rolled), arrived,
                            title="Originals", on_error=failed)

    # --- actions ---------------------------------------------------------------------------------------
    def set_pinned(self, message_id: str, pinned: bool) -> None:
        """Pin or unpin a message (the thread is read again when the write is done: the change counter moves)."""
        self.say("Pinning…" if pinned else "Unpinning…")
        self.workbench.set_message_pinned(message_id, pinned, on_done=lambda found: self.say(
            f"Message {found.seq} {'pinned: it stays verbatim in every prompt' if found.pinned else 'unpinned'}"))

    def compact(self) -> None:
        """Run the sliding window against the context window; the status line says what it did, or why not."""
        self.say("Compacting…")
        self._writing = True
        self._update_actions()
        self.workbench.compact_conversation(self.process, self.context_window, on_done=self._compacted,
                                           on_error=self._refused)

    def fold_range(self, first_seq: int, last_seq: int, topic: str) -> None:
        """Fold messages ``first_seq``–``last_seq`` into a summary on ``topic``; a refusal is said as the service
        words it."""
        self.say(f"Folding messages {first_seq}–{last_seq}…")
        self._writing = True
        self._update_actions()
        self.workbench.fold_conversation_range(self.process, first_seq, last_seq, topic, on_done=self._compacted,
                                               on_error=self._refused)

    def copy_block(self) -> None:
        """Copy the prompt block the next turn would replay, within the context window, to the clipboard."""
        lib, process, budget = self.workbench.lib, self.process, self.context_window
        self.workbench.read(lambda _c: conversations.compose_block(lib, process, budget), self._copied,
                            title="Prompt block", on_error=lambda error: self.say(str(error)))

    def ask_import(self) -> None:
        """Ask for an exported conversation's file and import it (:meth:`import_file`)."""
        name, _ = QFileDialog.getOpenFileName(self, "Import Conversation", "", EXPORT_FILTERS)
        if name:
            self.import_file(Path(name))

    def import_file(self, path: Path) -> None:
        """Append the conversation exported to ``path`` after this one's messages, all or nothing; the status line
        says what came in, or names every bad entry (then nothing is written)."""
        self.say(f"Importing {path.name}…")
        self._writing = True
        self._update_actions()
        self.workbench.import_conversation(self.process, path, on_done=self._imported, on_error=self._refused)

    def ask_parent(self) -> None:
        """Read the processes, then ask which one this one works for (:class:`~.conversation_parts.ParentDialog`)."""
        lib = self.workbench.lib
        self.parent_button.setEnabled(False)  # one picker at a time: a second click while the list loads is ignored

        def failed(error: BaseException) -> None:
            self.parent_button.setEnabled(True)
            self.say(str(error))

        self.workbench.read(lambda _c: scopes.list_scopes(lib), self._ask_parent, title="Processes", on_error=failed)

    def set_parent(self, parent: str | None) -> None:
        """Make this process work for ``parent`` (None: for no other process); a refusal (a cycle) is said as the
        service words it. The header follows when the write is done (the change counter moves)."""
        self.say("Setting the process it works for…")
        self.workbench.set_conversation_parent(self.process, parent, on_done=self._parent_set,
                                               on_error=self._refused)

    def selected_range(self) -> tuple[int, int] | None:
        """The lowest and highest number of the selected live messages (stitches and cards left out), or None."""
        seqs = [m.seq for i in self.view.selectionModel().selectedIndexes()
                if (e := self.model.entry(i)) is not None and e.kind is EntryKind.MESSAGE and (m := e.message)]
        return (min(seqs), max(seqs)) if seqs else None

    def say(self, text: str) -> None:
        """Show ``text`` in the window's status line (what an action did; the counts have their own line)."""
        self.status.setText(text)

    def _compacted(self, result: CompactionResult) -> None:
        self._writing = False
        self.say(result.reason[:1].upper() + result.reason[1:] if result.reason else "Nothing to fold")
        self._update_actions()

    def _refused(self, error: BaseException) -> None:
        self._writing = False
        self.say(str(error))
        self._update_actions()

    def _imported(self, messages: list[ChatMessage]) -> None:
        self._writing = False
        pinned = ", ".join(f"#{m.seq}" for m in messages if m.pinned)
        self.say(f"Imported {len(messages)} message{'s' if len(messages) != 1 else ''} #{messages[0].seq}–"
                 f"#{messages[-1].seq}" + (f" (pinned: {pinned})" if pinned else ""))
        self._update_actions()

    def _ask_parent(self, found: list[ScopeInfo]) -> None:
        current = self._shown.parent if self._shown is not None else None
        dialog = ParentDialog(self.process, [s for s in found if s.kind in conversations.PROCESS_KINDS], current,
                              self)
        chosen = dialog.exec() == QDialog.DialogCode.Accepted and dialog.chosen() != current
        self.parent_button.setEnabled(True)
        if chosen:
            self.set_parent(dialog.chosen())

    def _parent_set(self, parent: str | None) -> None:
        self.say(f"This process works for {self._name(parent)} now" if parent else
                 "This process works for no other process now")

    def _copied(self, block: ComposedBlock) -> None:
        QApplication.clipboard().setText(block.markdown)
        left = f"; {block.left_out} older message{'s' if block.left_out != 1 else ''} left out" \
            if block.left_out else ""
        self.say(f"Copied the prompt block: {block.tokens:,} of {block.budget:,} tokens{left}")

    def _ask_fold(self) -> None:
        bounds = self.selected_range()
        if bounds is None:
            self.say("Select the messages to fold first: click the first, then Shift+click the last")
            return
        first, last = bounds
        topic, ok = QInputDialog.getText(self, "Fold Range", f"Fold messages {first}–{last} into a summary (pinned "
                                         "ones stay as they are).\nWhat were they about? The topic stitch shows it:")
        if ok and topic.strip():
            self.fold_range(first, last, topic.strip())

    def _context_menu(self, point: QPoint) -> None:
        self.context_menu(self.view.indexAt(point)).exec(self.view.viewport().mapToGlobal(point))

    def context_menu(self, index: QModelIndex) -> QMenu:
        """The thread's menu for the row at ``index``: Pin or Unpin (a message), Show All / Show Less (a long
        text), Fold Range… (selected messages), Copy Text."""
        menu = QMenu(self)
        found = self.model.message(index)
        if found is not None and found.kind is MessageKind.MESSAGE:
            action = menu.addAction("Unpin" if found.pinned else "Pin",
                                    lambda: self.set_pinned(found.id, not found.pinned))
            action.setToolTip("A pinned message stays verbatim through every compaction and in every prompt")
        if index.isValid() and (index.data(CUT_ROLE) or self.model.is_whole(index)):
            menu.addAction("Show Less" if self.model.is_whole(index) else "Show All",
                           lambda: self.model.toggle_whole(index))
        if self.selected_range() is not None:
            menu.addAction("Fold Range…", self._ask_fold)
        entry = self.model.entry(index)
        text = entry.card.archive.summary if entry is not None and entry.card is not None else \
            found.content if found is not None else None
        if text is not None:
            menu.addAction("Copy Text", lambda: QApplication.clipboard().setText(text))
        return menu

    # --- showing ---------------------------------------------------------------------------------------
    def _window_changed(self, tokens: int) -> None:
        self._show_gauge()
        self.context_window_changed.emit(tokens)

    def _show_gauge(self) -> None:
        if self._shown is None:
            return
        tokens, window = self._shown.prompt_tokens, self.context_window
        self.gauge.set_value(tokens, window, self._shown.rules)
        stage = self.gauge.stage()
        where = f"past the {stage.value} threshold" if stage else "below the thresholds"
        self.gauge_label.setText(f"{tokens:,} / {window:,} tokens ({tokens / window:.0%}): {where}")
        self.gauge_label.setToolTip(self.gauge.toolTip())

    def _show_counts(self, found: ThreadLoad) -> None:
        cards = len(summary_cards(found.archives))
        folded = f"{found.archived:,} folded into {cards} summar{'ies' if cards != 1 else 'y'}" if found.archived \
            else "none folded"
        shown = f"; showing the latest {len(found.messages):,}" if found.offset else ""
        self.counts.setText(f"{found.live:,} live message{'s' if found.live != 1 else ''}, {folded}{shown}")

    def _update_actions(self) -> None:
        has = self._shown is not None and bool(self._shown.live or self._shown.archived)
        self.earlier_button.setEnabled(self._offset > 0)
        self.earlier_button.setText(f"Load Earlier ({min(PAGE, self._offset)} more)" if self._offset else
                                    "Load Earlier")
        self.compact_button.setEnabled(has and not self._writing)
        self.fold_button.setEnabled(self.selected_range() is not None and not self._writing)
        self.copy_button.setEnabled(has)
        self.import_button.setEnabled(not self._writing)

    def _name(self, process: str | None = None) -> str:
        """The human name of ``process`` (default: this window's), as the latest snapshot has it."""
        path = process or self.process
        snapshot = self.workbench.snapshot
        return snapshot.scope_names.get(path, path) if snapshot is not None else path

    def _id_at(self, index: QModelIndex) -> str:
        entry = self.model.entry(index)
        found = self.model.message(index)
        return entry.id if entry is not None else found.id if found is not None else ""

    def _top_row_id(self) -> str | None:
        index = self.view.indexAt(QPoint(4, 4))
        return (self._id_at(index) or None) if index.isValid() else None
