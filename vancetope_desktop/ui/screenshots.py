"""A guided tour of the main screens that saves a screenshot of each (``vancetope-desktop --screenshots DIR``).

Used for the README and by a test. It builds its own library: the demo library, installed into the empty
library it is given, plus what :mod:`.tour_library` adds (annotations, linked notes, duplicates); a
library holding anything else is refused, so the tour never writes into someone's work. Once everything
is indexed: the library with a paper open, search results, the tag pane filtering by a tag, the review
queue with a think process's request selected, the Tasks panel, a paper with its annotations, a note
with its backlinks, the Duplicates dialog, Copy Citation with a CSL style chosen, and an agent's Episodes,
Conflicts and Atoms windows (:mod:`.tour_memories`, added last so the other pictures do not show them), the
Digests window over that agent's day (:mod:`.tour_digest`), the project's Topics window, tree and map, once
the atoms of its papers are read and its topic tree built (the app's own Extract Atoms and Rebuild now), and a
session's Conversation window (:mod:`.tour_conversation`: a summary card, a topic folded by hand with its card open,
its stitch, pinned messages, the latest turns), then the relation picture of a project decision two steps deep
and the conflict dialog of a note a colleague changed while it was edited (:mod:`.tour_edits`). Each step waits
on the window's own signals, never on fixed sleeps, except a short settle time for QPdfView to paint
its pages.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path

from PySide6.QtCore import QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QMenu, QWidget

from ..core.documents import DocumentType, IndexState
from ..services import demo
from . import tour_conversation, tour_digest, tour_edits, tour_library, tour_memories
from .edit_conflict_dialog import EditConflictDialog
from .main_window import MainWindow, default_dock_widths
from .viewer.markdown_viewer import MarkdownViewer
from .viewer.pdf_viewer import PdfViewer

SHOTS = ("library-pdf.png", "search.png", "tags.png", "review.png", "tasks.png", "annotations.png", "backlinks.png",
         "duplicates.png", "export.png", "episodes.png", "conflicts.png", "atoms.png", "digests.png", "topics.png",
         "topic-map.png", "conversation.png", "relations.png", "edit-conflict.png")
CITATION_STYLE = "nature"
DEMO_QUERY = "What are the hardware requirements of Flash Attention?"
SETTLE_MS = 800
WINDOW_SIZE = (1440, 900)  # the same pictures whatever the screen and the saved layout


class ScreenshotTour(QObject):
    """Drives a :class:`MainWindow` through the main screens and saves PNGs into ``folder``.

    Signals:
        finished(): every screenshot is saved (or the tour gave up; see ``errors``).
    """

    finished = Signal()

    def __init__(self, window: MainWindow, folder: Path, *, timeout_ms: int = 600_000) -> None:
        super().__init__(window)
        self.window = window
        self.folder = Path(folder)
        self.saved: list[Path] = []
        self.errors: list[str] = []
        self._timeout_ms = timeout_ms
        self._waited = 0
        self._done = False
        self.project = ""
        self.documents: tour_library.TourDocuments | None = None

    def start(self) -> None:
        """Begin the tour once the first snapshot has arrived."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self.window.resize(*WINDOW_SIZE)
        self.window.tasks_dock.hide()
        self._when(lambda: self.window.workbench.snapshot is not None, self._maybe_install_demo)

    # --- steps ------------------------------------------------------------------------------------
    def _maybe_install_demo(self) -> None:
        workbench = self.window.workbench
        if not workbench.snapshot.library_empty:
            self._give_up("the tour builds its own library: give an empty folder as --library, or none")
            return
        workbench.install_demo()
        project = demo.load_manifest().project
        self._when(lambda: workbench.snapshot.state.scope == project and not self.window.tasks.active(),
                   self._add_documents)

    def _add_documents(self) -> None:
        workbench = self.window.workbench
        lib, project = workbench.lib, workbench.state.scope
        self.project = project

        def added(found: tour_library.TourDocuments) -> None:
            self.documents = found

        workbench.run("Preparing the tour", lambda _context: tour_library.add_tour_documents(lib, project),
                      on_result=added, on_error=lambda error: self._give_up(f"preparing the tour: {error}"))
        self._when(lambda: self.documents is not None and self._idle(), self._open_paper)

    def _idle(self) -> bool:
        snapshot = self.window.workbench.snapshot
        return (not self.window.tasks.active() and not self.window.workbench.indexer.busy
                and all(d.index_state != IndexState.PENDING for d in snapshot.documents))

    def _open_paper(self) -> None:
        window = self.window
        docs = window.workbench.snapshot.documents
        paper = next((d for d in docs if d.type == DocumentType.FILE and (d.file_path or "").endswith(".pdf")), None)
        window.tabs.setCurrentIndex(0)
        self._share_right_docks(0.2)  # no search yet: Details gets the room
        if paper is not None:
            window.table.select_ids([paper.id])
            window.open_document(paper.id, page=1)
        self._when(lambda: paper is None or window.current_viewer() is not None, self._shot_library, settle=True)

    def _shot_library(self) -> None:
        self._save(SHOTS[0])
        window = self.window
        window.focus_search()
        window.search_pane.query_edit.setText(DEMO_QUERY)
        window.search_pane.search_now()
        self._share_right_docks(0.6)  # room for the results, Details below
        window.search_pane.query_edit.setCursorPosition(0)  # the question's start, in later pictures too
        self._when(lambda: window.search_pane.model.rowCount() > 0, self._shot_search, settle=True)

    def _shot_search(self) -> None:
        self._save(SHOTS[1])
        window = self.window
        window.tabs.setCurrentIndex(0)
        # The most used plain tag: the list then shows what the filter keeps.
        counts = sorted(window.workbench.snapshot.tags, key=lambda t: (-t.total, t.tag))
        tag = next((t.tag for t in counts if "/" not in t.tag and ":" not in t.tag), None)
        if tag is not None:
            window.tag_pane.select_tag(tag)
        self._when(lambda: tag is None or window.workbench.state.tags == (tag,), self._shot_tags, settle=True)

    def _shot_tags(self) -> None:
        self._save(SHOTS[2])
        window = self.window
        window.tag_pane.clear_filter()
        pending = window.workbench.snapshot.review.pending
        # A think process asking (the demo's Hypothesis Check) shows more than a rule's request.
        chosen = next((r for r in pending if r.requested_by.startswith("think-process/")), None) or \
            next(iter(pending), None)
        window.show_review([chosen.id] if chosen else None)
        detail = window.review_pane.detail
        self._when(lambda: chosen is None or (detail.details is not None and detail.details.request.id == chosen.id),
                   self._shot_review, settle=True)

    def _shot_review(self) -> None:
        self._save(SHOTS[3])
        window = self.window
        # The review queue widened the right docks for its diff: back to the first-start widths.
        window.resizeDocks([window.folders_dock, window.search_dock], default_dock_widths(window.width()),
                           Qt.Orientation.Horizontal)
        self.window.search_dock.raise_()
        self.window.show_tasks()
        self._when(lambda: True, self._shot_tasks, settle=True)

    def _shot_tasks(self) -> None:
        self._save(SHOTS[4])
        window = self.window
        window.tasks_dock.hide()
        paper_id = self.documents.paper_id
        window.tabs.setCurrentIndex(0)
        window.table.select_ids([paper_id])
        window.open_document(paper_id, page=1)

        def annotated() -> bool:
            viewer = window.current_viewer()
            pdf = viewer.viewer(PdfViewer) if viewer is not None and viewer.current_document_id() == paper_id else None
            if pdf is None or not pdf.annotator.annotations:
                return False
            pdf.annotator.panel_action.setChecked(True)  # the Annotations list beside the pages
            return True

        self._when(annotated, self._shot_annotations, settle=True)

    def _shot_annotations(self) -> None:
        self._save(SHOTS[5])
        window = self.window
        window.workbench.set_scope(tour_library.THINK_PROCESS)  # where the linked notes live
        note_id = self.documents.note_id

        def scoped() -> bool:
            if window.workbench.snapshot.state.scope != tour_library.THINK_PROCESS:
                return False
            window.tabs.setCurrentIndex(0)
            window.table.select_ids([note_id])
            window.open_document(note_id)
            return True

        def shown() -> bool:
            viewer, backlinks = window.current_viewer(), window.details.backlinks
            linked, unlinked = backlinks.mention_ids()
            return (viewer is not None and viewer.current_document_id() == note_id
                    and backlinks.document_id() == note_id and bool(linked) and bool(unlinked))

        self._when(scoped, lambda: self._when(shown, self._show_backlinks))

    def _show_backlinks(self) -> None:
        self._share_right_docks(0.33)  # Details tall enough for the note's links and its backlinks
        self._when(lambda: True, self._shot_backlinks, settle=True)

    def _shot_backlinks(self) -> None:
        scroll = self.window.details.scroll.verticalScrollBar()
        scroll.setValue(scroll.maximum())  # the Backlinks and History end the Details panel
        self._save(SHOTS[6])
        window = self.window
        window.workbench.set_scope(self.project)

        def opened() -> bool:
            if window.workbench.snapshot.state.scope != self.project:
                return False
            self.dialog = window.show_duplicates()
            return True

        self._when(opened, lambda: self._when(lambda: self.dialog.model.rowCount() > 0, self._shot_duplicates,
                                              settle=True))

    def _shot_duplicates(self) -> None:
        self._save(SHOTS[7], self.dialog)
        self.dialog.close()
        window = self.window
        window.tabs.setCurrentIndex(0)
        papers = [d.id for d in window.workbench.snapshot.documents if d.type == DocumentType.FILE]
        window.table.select_ids(papers)
        window.table.setFocus()
        window.citations.set_style(CITATION_STYLE)
        window.citations.copy_action.trigger()
        self._when(lambda: window.statusBar().currentMessage().startswith("Copied"), self._open_citation_menu)

    def _open_citation_menu(self) -> None:
        """The selection's menu with Citation Style ▸ open and the style ticked, as a person choosing it sees them."""
        table = self.window.table
        rows = sorted(index.row() for index in table.selectionModel().selectedRows())
        corner = table.visualRect(table.proxy.index(rows[-1] if rows else 0, 0)).center()
        menu, styles = table.context_menu(), self.window.citations.style_menu
        menu.popup(table.viewport().mapToGlobal(corner))
        menu.setActiveAction(styles.menuAction())
        styles.popup(menu.mapToGlobal(menu.actionGeometry(styles.menuAction()).topRight()))
        self.menus = [menu, styles]
        self._when(lambda: all(m.isVisible() for m in self.menus), self._shot_export, settle=True)

    def _shot_export(self) -> None:
        self._save(SHOTS[8], popups=self.menus)
        for menu in reversed(self.menus):
            menu.close()
        # The tour's citation leaves the clipboard (on the offscreen platform, a clipboard still holding
        # it at exit crashed the process on its way out).
        QApplication.clipboard().clear()
        workbench, project = self.window.workbench, self.project
        self.memory_scope = ""

        def added(agent: str) -> None:
            self.memory_scope = agent
            workbench.set_scope(agent)

        workbench.run("Preparing the memories", lambda _c: tour_memories.add_tour_memories(workbench.lib, project),
                      on_result=added, on_error=lambda error: self._give_up(f"preparing the memories: {error}"))
        self._when(lambda: bool(self.memory_scope) and workbench.snapshot.state.scope == self.memory_scope,
                   self._open_episodes)

    def _open_episodes(self) -> None:
        self.dialog = self.window.show_episodes()
        count = len(tour_memories.EPISODES)

        def listed() -> bool:
            if self.dialog.model.rowCount() != count:
                return False
            self.dialog.view.selectRow(1)  # the critical one: its card on the right
            return True

        self._when(listed, self._shot_episodes, settle=True)

    def _shot_episodes(self) -> None:
        self._save(SHOTS[9], self.dialog)
        self.dialog.close()
        self.dialog = self.window.show_conflicts()
        self._when(lambda: self.dialog.model.rowCount() == len(tour_memories.CONFLICTS)
                   and bool(self.dialog.sides[1].text.toPlainText()), self._shot_conflicts, settle=True)

    def _shot_conflicts(self) -> None:
        self._save(SHOTS[10], self.dialog)
        self.dialog.close()
        self.dialog = self.window.show_atoms()
        # The agent's atoms (the booked plan archived, the event it became listed instead) and the project's facts.
        count = len(tour_memories.ATOMS)

        def listed() -> bool:
            model = self.dialog.model
            missed = [r for r in range(model.rowCount()) if model.item_at(r).text == tour_memories.ATOMS[4][1]]
            if model.rowCount() < count or not missed:
                return False
            self.dialog.view.selectRow(missed[0])  # the missed plan: its status and Happened… enabled below
            return True

        self._when(listed, self._shot_atoms, settle=True)

    def _shot_atoms(self) -> None:
        self._save(SHOTS[11], self.dialog)
        self.dialog.close()
        workbench, today = self.window.workbench, date.today()
        self.digested = False

        def added(_result: object) -> None:
            workbench.run_digest(today, on_done=lambda _run: setattr(self, "digested", True))

        workbench.run("Preparing the digest", lambda _c: tour_digest.add_tour_atoms(workbench.lib, self.memory_scope),
                      on_result=added, on_error=lambda error: self._give_up(f"preparing the digest: {error}"))
        self._when(lambda: self.digested, self._open_digests)

    def _open_digests(self) -> None:
        self.dialog = self.window.show_digests()
        self._when(lambda: self.dialog.model.rowCount() > 0, self._shot_digests, settle=True)

    def _shot_digests(self) -> None:
        self._save(SHOTS[12], self.dialog)
        self.dialog.close()
        # The relation picture comes before the papers' atoms are read: their derived_from edges would crowd it.
        workbench, project = self.window.workbench, self.project
        workbench.set_scope(project)
        self.decision = ""

        def added(decision: str) -> None:
            self.decision = decision

        workbench.run("Preparing the relations", lambda _c: tour_edits.add_tour_relations(workbench.lib, project),
                      on_result=added, on_error=lambda error: self._give_up(f"preparing the relations: {error}"))
        self._when(lambda: bool(self.decision) and workbench.snapshot.state.scope == project, self._open_relations)

    def _open_relations(self) -> None:
        flow = self.window.relation_graph
        flow.show(self.decision)
        flow.pane.set_depth(2)
        flow.load()
        flow.dialog.resize(1100, 720)
        self._when(lambda: flow.pane.picture is not None and len(flow.pane.picture.nodes) > len(tour_edits.MEMORIES),
                   self._shot_relations, settle=True)

    def _shot_relations(self) -> None:
        self._save(SHOTS[16], self.window.relation_graph.dialog)
        self.window.relation_graph.dialog.close()
        workbench, project = self.window.workbench, self.project
        self.tree_built = False

        def read(_report: object) -> None:
            workbench.rebuild_topics(on_done=lambda _r: setattr(self, "tree_built", True))

        def scoped() -> bool:
            if workbench.snapshot.state.scope != project:
                return False
            papers = [d.id for d in workbench.snapshot.documents if d.type == DocumentType.FILE and d.scope == project]
            workbench.extract_atoms(papers, on_done=read)
            return True

        self._when(scoped, lambda: self._when(lambda: self.tree_built, self._open_topics))

    def _open_topics(self) -> None:
        self.window.tasks_dock.hide()
        self.dialog = self.window.show_topics(map_=False)
        dialog = self.dialog

        def listed() -> bool:
            own = next((t for t in dialog.tree_model.trees() if t.scope == self.project), None)
            if own is None:
                return False
            # The biggest topic's biggest subtopic: a path, words and atoms with their pages to show.
            top = max((t for t in own.topics if t.depth == 1), key=lambda t: t.atoms, default=None)
            below = [t for t in own.topics if top is not None and t.parent_id == top.id]
            chosen = max(below, key=lambda t: t.atoms, default=top)
            if chosen is None:
                return False
            for topic in own.topics:
                if topic.depth == 1:
                    dialog.view.expand(dialog.proxy.mapFromSource(dialog.tree_model.index_for(topic.id)))
            self.chosen_topic = chosen.id
            return dialog.select_topic(chosen.id)

        self._when(listed, lambda: self._when(
            lambda: dialog.atoms_model.topic_id == self.chosen_topic and dialog.atoms_model.rowCount() > 0,
            self._shot_topics, settle=True))

    def _shot_topics(self) -> None:
        self._save(SHOTS[13], self.dialog)
        self.dialog.show_map()
        self._when(lambda: self.dialog.map_pane.map.tiles() != [], self._shot_topic_map, settle=True)

    def _shot_topic_map(self) -> None:
        self._save(SHOTS[14], self.dialog)
        self.dialog.close()
        workbench, flow = self.window.workbench, self.window.conversations
        self.session: tuple[str, int] | None = None

        def added(made: tuple[str, int]) -> None:
            self.session = made

        workbench.run("Preparing the conversation",
                      lambda _c: tour_conversation.add_tour_conversation(workbench.lib, self.project), on_result=added,
                      on_error=lambda error: self._give_up(f"preparing the conversation: {error}"))
        self._when(lambda: self.session is not None and flow.is_process(self.session[0]), self._open_conversation)

    def _open_conversation(self) -> None:
        path, context_window = self.session
        self.dialog = self.window.conversations.open(path)
        self.dialog.resize(1040, 860)
        self.dialog.window_spin.setValue(context_window)
        dialog, model = self.dialog, self.dialog.model

        def topic_open() -> bool:
            # The hand-folded topic's card open on its originals; the thread read from its start.
            card = next((e for e in model.entries() if e.card is not None and e.card.archive.topic), None)
            if card is None:
                return False
            index = model.index_of(card.id)
            dialog.view.expand(index)
            if model.rowCount(index) == 0:
                return False
            dialog.view.scrollToTop()
            return True

        self._when(topic_open, self._shot_conversation, settle=True)

    def _shot_conversation(self) -> None:
        self.dialog.view.scrollToTop()
        self._save(SHOTS[15], self.dialog)
        self.dialog.close()
        workbench, project = self.window.workbench, self.project
        workbench.set_scope(project)
        self.note = ""

        def added(note: str) -> None:
            self.note = note
            self.window.open_document(note)

        workbench.run("Preparing the trial plan", lambda _c: tour_edits.add_trial_plan(workbench.lib, project),
                      on_result=added, on_error=lambda error: self._give_up(f"preparing the trial plan: {error}"))
        self._when(lambda: bool(self.note) and workbench.snapshot.state.scope == project
                   and self.window.current_viewer() is not None
                   and self.window.current_viewer().current_document_id() == self.note
                   and isinstance(self.window.current_viewer().current_widget(), MarkdownViewer), self._edit_note)

    def _edit_note(self) -> None:
        markdown = self.window.current_viewer().current_widget()
        markdown.start_editing()
        markdown.editor.setPlainText(tour_edits.MY_DRAFT)
        workbench, note = self.window.workbench, self.note
        # Bob saves first; then the draft is saved, made on the version before his: the conflict dialog opens.
        workbench.run("Bob's change", lambda _c: tour_edits.bobs_change(workbench.lib, note),
                      on_result=lambda _r: markdown.save(),
                      on_error=lambda error: self._give_up(f"changing the trial plan: {error}"))
        self._when(lambda: self._conflict_dialog() is not None, self._shot_edit_conflict, settle=True)

    def _conflict_dialog(self) -> EditConflictDialog | None:
        dialog = self.window.findChild(EditConflictDialog)
        return dialog if dialog is not None and dialog.isVisible() else None

    def _shot_edit_conflict(self) -> None:
        dialog = self._conflict_dialog()
        dialog.resize(1000, 560)
        self._save(SHOTS[17], dialog)
        dialog.reject()
        self._finish()

    # --- helpers ----------------------------------------------------------------------------------
    def _save(self, name: str, widget: QWidget | None = None, popups: list[QMenu] = ()) -> None:
        """Save ``widget`` (default: the window) as ``name``, with ``popups`` painted where they stand (a
        window's grab leaves its open menus out, and a screen grab needs a real screen)."""
        widget = widget or self.window
        picture: QPixmap = widget.grab()
        if popups:
            painter = QPainter(picture)
            for popup in popups:
                painter.drawPixmap(widget.mapFromGlobal(popup.mapToGlobal(QPoint(0, 0))), popup.grab())
            painter.end()
        path = self.folder / name
        if picture.save(str(path)):
            self.saved.append(path)
        else:
            self.errors.append(f"could not save {path}")

    def _share_right_docks(self, search: float) -> None:
        """Give the Search (or Review) dock ``search`` of the right column's height, Details the rest."""
        window = self.window
        height = window.search_dock.height() + window.details_dock.height()
        window.resizeDocks([window.search_dock, window.details_dock], [round(height * search),
                           height - round(height * search)], Qt.Orientation.Vertical)

    def _give_up(self, reason: str) -> None:
        self.errors.append(reason)
        self._finish()

    def _finish(self) -> None:
        if not self._done:  # once, whether the tour ended or gave up
            self._done = True
            self.finished.emit()

    def _when(self, ready: Callable[[], bool], then: Callable[[], None], *, settle: bool = False) -> None:
        """Call ``then`` once ``ready()`` holds (checked every 200 ms), after a settle time if asked."""
        if ready():
            self._waited = 0
            QTimer.singleShot(SETTLE_MS if settle else 0, then)
            return
        self._waited += 200
        if self._done:
            return
        if self._waited > self._timeout_ms:
            self._give_up(f"gave up waiting before {getattr(then, '__name__', then)}")
            return
        QTimer.singleShot(200, lambda: self._when(ready, then, settle=settle))
