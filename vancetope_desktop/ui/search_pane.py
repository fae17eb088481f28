"""The search pane: query box, filters, status line and result cards. It never calls a service itself.

The pane emits :class:`~.search_model.SearchRequest` values on ``search_requested``; the main window
runs ``services.search.search`` in a worker and calls :meth:`SearchPane.show_response` (or
:meth:`SearchPane.show_error`) with the request's id. Typing is debounced and only the answer to the
newest request is shown (the "latest search wins" pattern; qutebrowser's ``misc/throttle.py`` and
Spyder's find-in-files do the same).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from PySide6.QtCore import QEvent, QItemSelection, QItemSelectionModel, QModelIndex, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..core.documents import STRUCTURAL_TYPES, DocumentType
from ..core.memories import MemoryType
from ..core.scope_info import VisibleScope
from ..core.tags import normalize_tag
from ..services.search import SearchResponse, passage_highlight
from ..services.topic_search import TopicSearchResponse
from .memory_type_picker import MemoryTypePicker
from .scope_text import ScopeRelation, badge_text
from .search_delegate import SearchResultsDelegate
from .search_model import ResultRole, SearchRequest, SearchResultsModel, scope_label

__all__ = ["DEBOUNCE_MS", "SearchPane", "SearchRequest"]

DEBOUNCE_MS = 250
"""Quiet time after the last keystroke before a search is sent."""
DEFAULT_LIMIT = 30
MODES = (("Auto", "auto", "Through the topic trees once a tree you see is consolidated, over everything before"),
         ("Tree", "tree", "Down the topic trees to the atoms under the best topics; results show their topic path"),
         ("Flat", "flat", "Rank everything, without the topic trees"))
"""The mode selector's items: label, ``services.topic_search`` mode, tooltip."""
SCOPE_BUTTON_CHARS = 18
_RELATION_NOTE = {ScopeRelation.OWN: "", ScopeRelation.INHERITED: " (inherited)",
                  ScopeRelation.SIBLING: " (a sibling think process: its results only)",
                  ScopeRelation.AGENT: " (the agent that runs this scope: its own memory)"}
"""Scope names longer than this are cut on their toggle (the tooltip has the full path)."""
PILL_STYLE = """
QToolButton { border: 1px solid palette(mid); border-radius: 10px; padding: 1px 8px; background: palette(base); }
QToolButton:hover { border-color: palette(highlight); }
QToolButton:checked {
    background: palette(highlight); color: palette(highlighted-text); border-color: palette(highlight);
}
"""
"""Scope toggles, tag chips and the match toggle as pills; palette() roles keep them right in dark themes."""


class SearchPane(QWidget):
    """Search box, type/memory type/tag/scope filters, a status line and the result list.

    Signals:
        search_requested(SearchRequest): run this search and answer with ``show_response``.
        result_activated(str, object, str): (document id, page or None, what to look for: the passage from
            the query's words on, ``services.search.passage_highlight``), on double-click or Enter on a result.
        result_selected(str): document id of the newly selected result.
    """

    search_requested = Signal(object)
    result_activated = Signal(str, object, str)
    result_selected = Signal(str)

    def __init__(self, parent: QWidget | None = None, *, limit: int = DEFAULT_LIMIT) -> None:
        super().__init__(parent)
        self.limit = limit
        self._next_id = 0
        self._pending: int | None = None
        self._started = 0.0
        self._done_text = ""
        self._error: str | None = None
        self._model_ready = True
        self._model_error: str | None = None
        self._warnings: list[str] = []  # the latest response's, whole (the line shows the first one short)
        self._scope: str | None = None
        self._tags: list[str] = []
        self._scope_buttons: list[QToolButton] = []
        self._shown_scopes: tuple | None = None
        self._quiet: int | None = None  # the id of a re-run after a library change (no "searching…")
        self._restoring = False

        self.query_edit = QLineEdit()
        self.query_edit.setPlaceholderText("Search by meaning or words…")
        self.query_edit.setClearButtonEnabled(True)
        self.query_edit.setProperty("role", "search")  # the theme's rounded search field
        self.type_combo = QComboBox()
        self.type_combo.addItem("All types", None)
        for doc_type in DocumentType:
            if doc_type not in STRUCTURAL_TYPES:
                self.type_combo.addItem(doc_type.value.capitalize(), doc_type)
        # What a memory is for (issue 12), beside the document type: the picker's items carry the seed's hints.
        self.memory_type_combo = MemoryTypePicker("All memory types", "Every document, memory or not", episodes=True)
        # How to search (issue 14): down the topic trees to the atoms under the best topics, or over everything.
        self.mode_combo = QComboBox()
        for label, mode, tip in MODES:
            self.mode_combo.addItem(label, mode)
            self.mode_combo.setItemData(self.mode_combo.count() - 1, tip, Qt.ItemDataRole.ToolTipRole)
        self.mode_combo.setToolTip("How to search: through the topic trees or over everything")
        self.match_button = QToolButton()
        self.match_button.setCheckable(True)
        self.match_button.setToolTip("Documents must carry every tag (all) or at least one (any)")
        self.match_button.setVisible(False)
        self.status_label = QLabel()
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status_label.setWordWrap(True)
        # A long reason (a missing model's message says what to install) stays out of the line: one short
        # sentence there, the whole text in the tooltip and behind Details….
        self.details_button = QPushButton("Details…")
        self.details_button.setFlat(True)
        self.details_button.setToolTip("The whole message")
        self.details_button.hide()
        self.details_button.clicked.connect(self.show_details)
        self.model = SearchResultsModel(self)
        self.results_view = QListView()
        self.results_view.setModel(self.model)
        self.results_view.setItemDelegate(SearchResultsDelegate(self.results_view))
        self.results_view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.results_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.results_view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        # Card heights depend on the width (wrapped snippets), so lay out again on every resize.
        self.results_view.setResizeMode(QListView.ResizeMode.Adjust)
        self.results_view.setUniformItemSizes(False)
        self.results_view.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # Cards (Base) stand out on the window colour, in light and dark palettes alike.
        self.results_view.viewport().setBackgroundRole(QPalette.ColorRole.Window)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._build_layout()

        self._debounce.timeout.connect(self.search_now)
        self.query_edit.textChanged.connect(self._query_changed)
        self.query_edit.returnPressed.connect(self.search_now)
        self.query_edit.installEventFilter(self)
        self.type_combo.currentIndexChanged.connect(self._filters_changed)
        self.memory_type_combo.currentIndexChanged.connect(self._filters_changed)
        self.mode_combo.currentIndexChanged.connect(self._filters_changed)
        self.match_button.toggled.connect(self._match_toggled)
        self.results_view.activated.connect(self._activated)
        self.results_view.selectionModel().selectionChanged.connect(self._selection_changed)
        self._match_toggled(False)
        self._update_status()

    def _build_layout(self) -> None:
        # The query gets the pane's whole width; the type filters sit below it (a narrow dock cut the query to a
        # few letters when all three shared one row).
        filters = QHBoxLayout()
        filters.addWidget(self.type_combo)
        filters.addWidget(self.memory_type_combo)
        filters.addWidget(self.mode_combo)
        filters.addStretch(1)
        self._scope_row = QHBoxLayout()
        self._scope_row.setContentsMargins(0, 0, 0, 0)
        self._scope_row.setSpacing(2)
        self._scope_row.addStretch(1)
        self._tag_row = QHBoxLayout()
        self._tag_row.setContentsMargins(0, 0, 0, 0)
        self._tag_row.setSpacing(4)
        self._tag_row.addStretch(1)
        self._tag_row.addWidget(self.match_button)
        self._scope_box, self._tag_box = QWidget(), QWidget()
        for box, row in ((self._scope_box, self._scope_row), (self._tag_box, self._tag_row)):
            box.setLayout(row)
            # Many scopes or tags are cut at the pane's edge rather than forcing the dock wider.
            box.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            box.setStyleSheet(PILL_STYLE)
        self._tag_box.setVisible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addWidget(self.query_edit)
        layout.addLayout(filters)
        layout.addWidget(self._scope_box)
        layout.addWidget(self._tag_box)
        status = QHBoxLayout()
        status.setContentsMargins(0, 0, 0, 0)
        status.addWidget(self.status_label, 1)
        status.addWidget(self.details_button, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(status)
        layout.addWidget(self.results_view, 1)

    # Public API -------------------------------------------------------------------------------

    def query(self) -> str:
        """The text in the query box."""
        return self.query_edit.text()

    def focus_query(self) -> None:
        """Focus the query box with its text selected (the main window's Ctrl+F)."""
        self.query_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.query_edit.selectAll()

    def set_model_ready(self, ready: bool) -> None:
        """Whether the embedding model is loaded; until then the status says "loading model…". Ready clears
        an earlier :meth:`set_model_error` (the model works again).

        Searches are still emitted meanwhile: the backend waits for the model.
        """
        self._model_ready = ready
        if ready:
            self._model_error = None
        self._update_status()

    def set_model_error(self, message: str) -> None:
        """The embedding model cannot run (``Library.model_problem``'s message, with what to install): the status
        says so in the error colour instead of "loading model…" (there is nothing to wait for). Searches still run,
        by keywords; their responses carry the same message as a warning.
        """
        self._model_error = message
        self._model_ready = True
        self._update_status()

    def model_error(self) -> str | None:
        """The embedding model's problem shown now (:meth:`set_model_error`), None when there is none."""
        return self._model_error

    def details_text(self) -> str:
        """The whole text the status line shortens (a failure, the model's problem, the warnings); "" if none."""
        return self.status_label.toolTip()

    def show_details(self) -> None:
        """Open the whole text of the status line (:meth:`details_text`) in a message box."""
        box = QMessageBox(QMessageBox.Icon.Information, "Search", self.status_label.text(),
                          QMessageBox.StandardButton.Close, self)
        box.setInformativeText(self.details_text())
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()

    def set_visible_scopes(self, scopes: Sequence[VisibleScope], current: str,
                           names: Mapping[str, str] | None = None) -> bool:
        """Show one toggle per scope ``current`` sees (all on) and search again if there is a query.

        Args:
            scopes: the acting scope then its ancestors (``services.scopes.visible_scopes``).
            current: the acting scope's path, sent as ``SearchRequest.scope``.
            names: optional path → human name (``ScopeInfo.name``); without one a scope shows its key.

        Returns:
            Whether anything changed (then a query, if any, was sent again); False when the same scopes
            came again, which keeps the user's toggles and results.
        """
        names = dict(names or {})
        shown = (current, [(s.path, s.distance, s.results_only, s.via_agent) for s in scopes], names)
        if shown == self._shown_scopes:
            return False  # every window refresh passes the scopes again: keep the user's toggles and results
        self._shown_scopes = shown
        self._scope = current
        self.model.set_scope_names(names)
        self.model.set_sibling_scopes(s.path for s in scopes if s.results_only)
        self.model.set_agent_scopes(s.path for s in scopes if s.via_agent)
        for button in self._scope_buttons:
            self._scope_row.removeWidget(button)
            button.deleteLater()
        self._scope_buttons = []
        for scope in scopes:
            name = names.get(scope.path) or scope_label(scope.path)
            short = name if len(name) <= SCOPE_BUTTON_CHARS else name[: SCOPE_BUTTON_CHARS - 1] + "…"
            button = QToolButton()
            relation = _relation(scope)
            button.setText(badge_text(short, relation))
            button.setCheckable(True)
            button.setChecked(True)
            button.setProperty("scope_path", scope.path)
            button.setToolTip(f"{name}\n{scope.path} — search weight {scope.weight:g}" + _RELATION_NOTE[relation])
            button.toggled.connect(lambda checked, b=button: self._scope_toggled(b, checked))
            self._scope_row.insertWidget(len(self._scope_buttons), button)
            self._scope_buttons.append(button)
        self._filters_changed()
        return True

    def refresh_results(self) -> bool:
        """Run the shown query again, with the same filters, because the library changed (a move, the trash).

        The results are replaced in place when the answer comes: the status line does not flash
        "searching…", the selected hit stays selected when it is still found (without announcing it
        again) and the list keeps its scroll position. Nothing is sent without a query, or while a
        typed query waits for its debounce (that search comes anyway).

        Returns:
            Whether a request was sent.
        """
        if not self.query_edit.text().strip() or self._debounce.isActive():
            return False
        # A search still running answers for the old library: the new one replaces it, shown as usual.
        return self.search_now(quiet=self._pending is None) is not None
    def add_tag_filter(self, tag: str) -> None:
        """Restrict results to documents tagged ``tag`` (normalised; a repeat is ignored).

        Raises:
            InvalidInput: not a valid tag (see ``core.tags.normalize_tag``).
        """
        tag = normalize_tag(tag)
        if tag in self._tags:
            return
        self._tags.append(tag)
        chip = QToolButton()
        chip.setText(f"#{tag}  ✕")
        chip.setToolTip(f"Remove the tag filter #{tag}")
        chip.setProperty("tag", tag)
        chip.clicked.connect(lambda: self.remove_tag_filter(tag))
        self._tag_row.insertWidget(len(self._tags) - 1, chip)
        self._tags_changed()

    def remove_tag_filter(self, tag: str) -> None:
        """Drop the tag filter ``tag`` (as given to :meth:`add_tag_filter`); unknown tags are ignored."""
        tag = normalize_tag(tag)
        if tag not in self._tags:
            return
        self._tags.remove(tag)
        for chip in self._tag_box.findChildren(QToolButton):
            if chip.property("tag") == tag:
                self._tag_row.removeWidget(chip)
                chip.deleteLater()
        self._tags_changed()

    def tag_filters(self) -> list[str]:
        """The tag filters in the order they were added."""
        return list(self._tags)

    def search_now(self, *, quiet: bool = False) -> SearchRequest | None:
        """Emit a request for the current query and filters at once; None (nothing sent) for a blank query.

        ``quiet``: a re-run (:meth:`refresh_results`): the status keeps its text and the answer keeps the
        selection.
        """
        self._debounce.stop()
        query = self.query_edit.text().strip()
        if not query:
            return None
        self._next_id += 1
        checked = [b.property("scope_path") for b in self._scope_buttons if b.isChecked()]
        all_on = len(checked) == len(self._scope_buttons)
        memory_type = self.memory_type_combo.memory_type()
        request = SearchRequest(
            request_id=self._next_id, query=query, tags=tuple(self._tags),
            tag_mode="any" if self.match_button.isChecked() else "all",
            types=() if self.type_combo.currentData() is None else (self.type_combo.currentData(),),
            scopes=None if all_on else tuple(checked), limit=self.limit, scope=self._scope,
            memory_types=(MemoryType(memory_type),) if memory_type else (),
            mode=str(self.mode_combo.currentData() or "auto"),
        )
        self._pending = request.request_id
        self._quiet = request.request_id if quiet else None
        self._started = time.perf_counter()
        self._error = None
        self._update_status()
        self.search_requested.emit(request)
        return request

    def show_response(self, request_id: int, response: SearchResponse) -> None:
        """Show ``response`` if it answers the latest request; answers to older requests are dropped."""
        if request_id != self._next_id or self._pending != request_id:
            return
        elapsed_ms = (time.perf_counter() - self._started) * 1000
        self._pending = None
        if self._quiet == request_id:
            self._replace_results(response)
        else:
            self.model.set_response(response)
        self._quiet = None
        count = len(response.hits)
        self._done_text = f"{count} result{'' if count == 1 else 's'} ({elapsed_ms:.0f} ms)" if count else "no results"
        if response.cut:  # the relevance cut-off (services.search.relevant): say that something was left out
            self._done_text += f", {response.cut} weaker match{'' if response.cut == 1 else 'es'} left out"
        if isinstance(response, TopicSearchResponse) and response.mode == "tree":
            self._done_text += f", by topic tree: {response.atoms_scored:,} of {response.atoms:,} atoms scored"
        self._warnings = list(response.warnings)
        if response.warnings:
            self._done_text += " — " + _short(response.warnings[0])
        else:  # searched by meaning: whatever kept the model from running is over
            self._model_error = None
        self._update_status()

    def show_error(self, request_id: int, message: str) -> None:
        """Show ``message`` in the status line if it concerns the latest request (results are cleared)."""
        if request_id != self._next_id or self._pending != request_id:
            return
        self._pending = self._quiet = None
        self._error = message
        self.model.clear()
        self._update_status()

    # Internals --------------------------------------------------------------------------------

    def _replace_results(self, response: SearchResponse) -> None:
        """Show a re-run's answer in place: the same hit selected (if still found), the same scroll position."""
        view = self.results_view
        selected = view.selectionModel().selectedIndexes()
        keep = selected[0].data(ResultRole.DOCUMENT_ID) if selected else None
        scroll = view.verticalScrollBar().value()
        self.model.set_response(response)
        row = next((r for r in range(self.model.rowCount()) if self.model.hit(r).document.id == keep), None)
        if row is not None:
            self._restoring = True  # the same document: the details need not load again
            try:
                view.selectionModel().setCurrentIndex(
                    self.model.index(row), QItemSelectionModel.SelectionFlag.ClearAndSelect)
            finally:
                self._restoring = False
        view.doItemsLayout()  # the scroll range follows the new rows before the position is restored
        view.verticalScrollBar().setValue(scroll)

    def _update_status(self) -> None:
        error = self._error is not None
        details = [self._error] if error else []
        if self._model_error is not None:
            details.append(self._model_error)
        details += [w for w in self._warnings if w not in details and self._done_text]
        if error:
            text = f"Search failed: {_short(self._error or '')}"
        elif self._model_error is not None and self._pending is None and not self._done_text:
            text = "Keyword search only: the embedding model cannot run here."
        elif not self._model_ready and (self._pending not in (None, self._quiet) or not self._done_text):
            text = "loading model…"
        elif self._pending is not None and self._pending != self._quiet:
            text = "searching…"
        else:
            text = self._done_text
        self.status_label.setText(text)
        full = "\n\n".join(details)
        self.status_label.setToolTip(full)
        self.details_button.setVisible(bool(full) and full != text)
        # The theme's stylesheet colours QLabel[role="hint"|"error"] for light and dark (ui/themes.py).
        role = "error" if error or self._model_error is not None else "hint"
        if self.status_label.property("role") != role:
            self.status_label.setProperty("role", role)
            self.status_label.style().unpolish(self.status_label)
            self.status_label.style().polish(self.status_label)

    def _query_changed(self, text: str) -> None:
        if text.strip():
            self._debounce.start()  # start() restarts a running timer: the delay counts from the last key
            return
        # A cleared box forgets the results and makes any outstanding answer stale.
        self._debounce.stop()
        self._next_id += 1
        self._pending = None
        self._error = None
        self._done_text = ""
        self._warnings = []
        self.model.clear()
        self._update_status()

    def _filters_changed(self) -> None:
        if self.query_edit.text().strip():
            self.search_now()

    def _tags_changed(self) -> None:
        self._tag_box.setVisible(bool(self._tags))
        self.match_button.setVisible(len(self._tags) >= 2)
        self._filters_changed()

    def _match_toggled(self, any_mode: bool) -> None:
        self.match_button.setText("Match any" if any_mode else "Match all")
        if len(self._tags) >= 2:
            self._filters_changed()

    def _scope_toggled(self, button: QToolButton, checked: bool) -> None:
        if not checked and not any(b.isChecked() for b in self._scope_buttons):
            # At least one scope must stay searched: undo the click without a new search.
            button.blockSignals(True)
            button.setChecked(True)
            button.blockSignals(False)
            return
        self._filters_changed()

    def _activated(self, index: QModelIndex) -> None:
        hit = index.data(ResultRole.HIT)
        if hit is not None:
            passage = passage_highlight(hit.passages[0].text, self.model.query) if hit.passages else ""
            self.result_activated.emit(hit.document.id, hit.page, passage)

    def _selection_changed(self, selected: QItemSelection, _deselected: QItemSelection) -> None:
        indexes = selected.indexes()
        if indexes and not self._restoring:
            self.result_selected.emit(indexes[0].data(ResultRole.DOCUMENT_ID))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Down in the query box moves to the results (selecting the first one)."""
        if (watched is self.query_edit and event.type() == QEvent.Type.KeyPress
                and isinstance(event, QKeyEvent) and event.key() == Qt.Key.Key_Down and self.model.rowCount()):
            view = self.results_view
            selected = view.selectionModel().selectedIndexes()
            view.setFocus(Qt.FocusReason.OtherFocusReason)
            view.setCurrentIndex(selected[0] if selected else self.model.index(0))
            return True
        return super().eventFilter(watched, event)


def _relation(scope: VisibleScope) -> ScopeRelation:
    """A searched scope's place: the acting scope, an ancestor, a sibling seen for its results, or the agent
    that runs the acting scope."""
    if scope.results_only:
        return ScopeRelation.SIBLING
    if scope.via_agent:
        return ScopeRelation.AGENT
    return ScopeRelation.OWN if scope.distance == 0 else ScopeRelation.INHERITED


SHORT_CHARS = 90
"""A reason longer than this is cut to its first clause (before ":") or sentence in the status line."""


def _short(reason: str) -> str:
    """``reason`` short enough for the status line: whole when short, else up to its first ":" or ". "."""
    if len(reason) <= SHORT_CHARS:
        return reason
    cut = min((i for i in (reason.find(": "), reason.find(". ")) if i > 0), default=SHORT_CHARS)
    return reason[:min(cut, SHORT_CHARS)].rstrip(" ,;") + "…"
