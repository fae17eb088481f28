"""The document table view: sortable, quick-filterable rows with drag-out, file drops and row actions.

It owns a :class:`DocumentTableModel` (``view.document_model``) behind a :class:`DocumentFilterProxy`
(``view.proxy``). The main window feeds the model, connects to the model's ``files_dropped`` /
``drop_refused`` and to this view's request signals. The selection survives reloads by document id.
Dragged rows carry their scopes too, so scope targets can refuse a move across branches during the drag.
The header's menu chooses the columns and headers can be dragged; :meth:`DocumentTableView.save_columns`
and :meth:`~DocumentTableView.restore_columns` keep that choice in the window's settings.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence

from PySide6.QtCore import (
    QItemSelection,
    QItemSelectionModel,
    QKeyCombination,
    QMimeData,
    QModelIndex,
    QPoint,
    QSettings,
    Qt,
    Signal,
)
from PySide6.QtGui import QAction, QContextMenuEvent, QGuiApplication, QKeyEvent, QKeySequence, QResizeEvent
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QMenu, QTableView, QWidget

from ..core.documents import DocumentInfo
from ..core.reading import ReadingStatus, reading_status_of
from ..core.scope_info import ScopeInfo
from . import file_actions
from .dnd import add_source_scopes, start_id_drag
from .document_model import DOC_ID_ROLE, Column, DocumentFilterProxy, DocumentTableModel
from .move_dialog import fill_move_menu

_SAMPLE_TEXT = {  # typical content, to size the columns from the font rather than in pixels
    Column.AUTHORS: "Vaswani, Shazeer, Parmar, … +5",
    Column.YEAR: "2026",
    Column.TAGS: "#transformers #nlp #attention",
    Column.SCOPE: "↑ Attention project",
    Column.INDEX: "needs OCR  ●●",  # the dot decoration takes an icon's width
    Column.ADDED: "2026-11-30 14:05",
    Column.MODIFIED: "2026-11-30 14:05",
    Column.JOURNAL: "Nature Communications",
    Column.DOI: "10.1038/s41586-021-03819",
    Column.TYPE: "Reference (article)",
    Column.PAGES: "1234–1256",
    Column.CITATION_KEY: "vaswani2017attention",
    Column.READING: "reading",
    Column.MEMORY_TYPE: "reference",
}
_PADDING = 22  # cell margins, plus the index dot or the sort arrow
_SHRINKABLE = (Column.DOI, Column.CITATION_KEY, Column.JOURNAL, Column.SCOPE, Column.AUTHORS, Column.TAGS)
"""The text columns that give way to the title, in this order: the identifiers first (read one at a
time, in Details or on a hover), then the scope (in most lists the current scope's name on every row),
the tags last (cut short they read "+2")."""
_SHRUNK_TEXT = {  # the least each shrinkable column keeps; past that the list scrolls sideways
    Column.DOI: "10.1038/s4…",
    Column.CITATION_KEY: "vaswani20…",
    Column.JOURNAL: "Nature Co…",
    Column.SCOPE: "↑ Attent…",
    Column.AUTHORS: "Vaswani, Shaz…",
    Column.TAGS: "#efficiency #sparse",
}
_TITLE_SHARE = 0.3  # of the table's width, kept for the title before the text columns shrink
HIDDEN_BY_DEFAULT = (Column.MODIFIED, Column.JOURNAL, Column.DOI, Column.TYPE, Column.PAGES, Column.CITATION_KEY,
                     Column.READING, Column.MEMORY_TYPE)
"""Columns hidden until the user shows them from the header's menu (the title needs the room)."""
COLUMNS_KEY = "documents/columns"
"""The settings key of the table's column layout (:meth:`DocumentTableView.save_columns`)."""


class DocumentTableView(QTableView):
    """Documents as rows; multi-selection; drag rows out as ids; drop files in.

    Signals:
        selection_changed(list[str]): ids of the selected rows, in view order.
        open_requested(str): double-click, Enter or "Open" on a row.
        rename_requested(str): F2 or "Rename" on the current row.
        trash_requested(list[str]): "Move to Trash" (Delete) on the selection.
        restore_requested(list[str]): "Restore from Trash" (trash mode), "Restore" (the Archived view).
        purge_requested(list[str]): "Delete permanently" (Shift+Delete; trash mode only; confirm first).
        move_to_scope_requested(list[str], str): "Move to Scope" of the selection to that scope path.
        promotion_request_requested(str): "Request Promotion…" of the one selected document (the review queue).
        menu_extension_requested(QMenu): the row menu is about to show: add entries for the selection to it.
        reading_status_requested(list[str], str): "Reading Status" of the selection: unread, reading or read.

    Keys (Enter, F2, Delete, Shift+Delete, Ctrl+Shift+C) are handled in :meth:`keyPressEvent`, not as
    action shortcuts, so a window-wide Edit menu using the same shortcuts stays unambiguous and wins.
    """

    TAGS_COLUMN = Column.TAGS
    """The column a tag-chips delegate paints (its values are in ``TAGS_ROLE``)."""

    selection_changed = Signal(list)
    open_requested = Signal(str)
    rename_requested = Signal(str)
    trash_requested = Signal(list)
    restore_requested = Signal(list)
    purge_requested = Signal(list)
    move_to_scope_requested = Signal(list, str)
    promotion_request_requested = Signal(str)
    menu_extension_requested = Signal(object)
    reading_status_requested = Signal(list, str)
    file_problem = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document_model = DocumentTableModel(self)
        self.proxy = DocumentFilterProxy(self)
        self.proxy.setSourceModel(self.document_model)
        self.setModel(self.proxy)
        self.setSortingEnabled(True)
        self.sortByColumn(Column.ADDED, Qt.SortOrder.DescendingOrder)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.setAcceptDrops(True)
        self.setDropIndicatorShown(False)  # a drop imports into the current folder, not between rows
        self.setWordWrap(False)
        self.setShowGrid(False)
        self.setAlternatingRowColors(True)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self._size_columns()
        self.column_actions = self._column_actions()

        key, shift, ctrl = Qt.Key, Qt.KeyboardModifier.ShiftModifier, Qt.KeyboardModifier.ControlModifier
        self._keys: dict[tuple[Qt.Key, Qt.KeyboardModifier], QAction] = {}
        self.open_action = self._action("Open", self._open_current, key.Key_Return, key.Key_Enter)
        self.rename_action = self._action("Rename…", self._rename_current, key.Key_F2)
        self.trash_action = self._action("Move to Trash", lambda: self._emit_ids(self.trash_requested), key.Key_Delete)
        self.restore_action = self._action("Restore from Trash", lambda: self._emit_ids(self.restore_requested))
        self.delete_permanently_action = self._action(
            "Delete permanently…", lambda: self._emit_ids(self.purge_requested), (key.Key_Delete, shift))
        self.copy_id_action = self._action("Copy id", self._copy_ids, (key.Key_C, ctrl | shift))
        self.open_externally_action = self._action("Open in System Viewer", lambda: self._with_file(
            file_actions.open_in_system_viewer))
        self.reveal_action = self._action("Show in File Manager", lambda: self._with_file(
            file_actions.show_in_file_manager))
        self.request_promotion_action = self._action("Request Promotion…", self._request_promotion)
        self.request_promotion_action.setToolTip("Ask for the document to go to a scope above it once reviewed "
                                                 "(the review queue)")
        self._trash_mode = self._archived_mode = False
        self.set_trash_mode(False)
        self._scopes: list[ScopeInfo] = []

        self._last_ids: list[str] = []
        self._kept_ids: list[str] = []
        self._kept_current: str | None = None
        self.doubleClicked.connect(self._open_index)
        self.selectionModel().selectionChanged.connect(self._selection_changed)
        self.proxy.modelAboutToBeReset.connect(self._remember_selection)
        self.proxy.modelReset.connect(self._restore_selection)

    # -- public --------------------------------------------------------------------------------------

    def set_documents(
        self, docs: Sequence[DocumentInfo], *, current_scope: str, scope_names: Mapping[str, str],
        sibling_scopes: Collection[str] = (), superseded: Mapping[str, str | None] | None = None,
        agent_scopes: Collection[str] = (),
    ) -> None:
        """Show ``docs`` (see :meth:`DocumentTableModel.set_documents`); the selection is kept by id."""
        self.document_model.set_documents(docs, current_scope=current_scope, scope_names=scope_names,
                                          sibling_scopes=sibling_scopes, superseded=superseded,
                                          agent_scopes=agent_scopes)

    def set_quick_filter(self, text: str) -> None:
        """Show only rows whose title, authors, tags or year contain every word of ``text``."""
        self.proxy.set_quick_filter(text)

    def set_memory_type_filter(self, memory_type: str | None) -> None:
        """Show only memories of ``memory_type`` (``core.memories.MemoryType`` value; None: every row)."""
        self.proxy.set_memory_type_filter(memory_type)

    def set_trash_mode(self, on: bool, *, archived: bool = False) -> None:
        """Offer Restore / Delete permanently (showing the trash) instead of Move to Trash; ``archived`` (showing
        the Archived view): offer Restore beside Move to Trash."""
        self._trash_mode, self._archived_mode = on, archived and not on
        self.trash_action.setEnabled(not on)
        self.trash_action.setVisible(not on)
        self.delete_permanently_action.setEnabled(on)
        self.delete_permanently_action.setVisible(on)
        self.restore_action.setText("Restore" if self._archived_mode else "Restore from Trash")
        self.restore_action.setEnabled(on or self._archived_mode)
        self.restore_action.setVisible(on or self._archived_mode)
        self._update_request_action()

    def trash_mode(self) -> bool:
        """Whether the view shows the trash."""
        return self._trash_mode

    def selected_ids(self) -> list[str]:
        """Ids of the selected rows, top to bottom as shown."""
        rows = sorted(self.selectionModel().selectedRows(), key=lambda i: i.row())
        return [i.data(DOC_ID_ROLE) for i in rows]

    def set_scope_tree(self, scopes: Sequence[ScopeInfo]) -> None:
        """Every scope of the library (parents first), for the "Move to Scope" menu."""
        self._scopes = list(scopes)

    def selected_scopes(self) -> list[str]:
        """The scopes the selected documents live in, once each, in view order."""
        model = self.document_model
        rows = [self.proxy.mapToSource(i).row() for i in sorted(self.selectionModel().selectedRows(),
                                                                key=lambda i: i.row())]
        return list(dict.fromkeys(model.document(r).scope for r in rows))

    def fill_move_menu(self, menu: QMenu) -> bool:
        """Fill ``menu`` with the scopes the selection may move to; returns whether there is one."""
        if self._trash_mode or not self.selected_ids():
            menu.clear()
            menu.addAction("Select documents to move" if not self._trash_mode
                           else "Restore documents before moving them").setEnabled(False)
            return False
        ids = self.selected_ids()
        return fill_move_menu(menu, self._scopes, self.selected_scopes(),
                              lambda path: self.move_to_scope_requested.emit(ids, path))

    def current_id(self) -> str | None:
        """The id of the current (focused) row, or None."""
        index = self.currentIndex()
        return index.data(DOC_ID_ROLE) if index.isValid() else None

    def select_ids(self, ids: Sequence[str]) -> None:
        """Select the rows of ``ids`` that are shown (others are ignored) and scroll to the first."""
        selection = QItemSelection()
        first: QModelIndex | None = None
        for doc_id in ids:
            row = self.document_model.row_for(doc_id)
            index = self.proxy.mapFromSource(self.document_model.index(row, 0)) if row is not None else QModelIndex()
            if index.isValid():
                selection.select(index, index.siblingAtColumn(len(Column) - 1))
                first = first or index
        flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        self.selectionModel().select(selection, flags)
        if first is not None:
            self.selectionModel().setCurrentIndex(first, QItemSelectionModel.SelectionFlag.NoUpdate)
            self.scrollTo(first)

    def save_columns(self, settings: QSettings) -> None:
        """Write the shown and hidden columns, their order, the sort and (once the user sized them) the
        widths to ``settings`` under :data:`COLUMNS_KEY`, as JSON naming columns by :class:`Column` name,
        so that a column added or renamed in a later version leaves the rest of the choice intact."""
        header = self.horizontalHeader()
        layout: dict[str, object] = {
            "order": [Column(header.logicalIndex(v)).name for v in range(header.count())],
            "shown": [c.name for c in Column if not self.isColumnHidden(c)],
            "hidden": [c.name for c in Column if self.isColumnHidden(c)],
        }
        if 0 <= header.sortIndicatorSection() < len(Column):
            layout["sort"] = Column(header.sortIndicatorSection()).name
            layout["descending"] = header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
        if not self._auto_fit:
            layout["widths"] = {c.name: header.sectionSize(c) for c in Column
                                if c != Column.TITLE and not self.isColumnHidden(c)}
        settings.setValue(COLUMNS_KEY, json.dumps(layout))

    def restore_columns(self, settings: QSettings) -> None:
        """Apply the layout :meth:`save_columns` wrote; unknown column names and an unreadable value are
        ignored (the defaults stay)."""
        try:
            layout = json.loads(str(settings.value(COLUMNS_KEY, "{}")))
        except ValueError:
            return
        if not isinstance(layout, dict):
            return
        names = Column.__members__
        shown, hidden = set(layout.get("shown", [])), set(layout.get("hidden", []))
        for column, action in self.column_actions.items():
            if column.name in shown or column.name in hidden:  # a column new since then keeps its default
                action.setChecked(column.name in shown)
        header = self.horizontalHeader()
        for visual, name in enumerate(n for n in layout.get("order", []) if n in names):
            header.moveSection(header.visualIndex(names[name]), visual)
        if layout.get("sort") in names:
            order = Qt.SortOrder.DescendingOrder if layout.get("descending") else Qt.SortOrder.AscendingOrder
            self.sortByColumn(names[layout["sort"]], order)
        widths = layout.get("widths")
        if isinstance(widths, dict):
            self._auto_fit = False
            for name, width in widths.items():
                if name in names and names[name] != Column.TITLE and isinstance(width, int) and width > 0:
                    header.resizeSection(names[name], width)

    # -- internals -----------------------------------------------------------------------------------

    def _size_columns(self) -> None:
        header = self.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionsMovable(True)  # the user orders the columns by dragging their headers
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(Column.TITLE, QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(self.fontMetrics().horizontalAdvance("Year") + _PADDING)
        self._natural = {c: self.fontMetrics().horizontalAdvance(s) + _PADDING for c, s in _SAMPLE_TEXT.items()}
        self._shrunk = {c: self.fontMetrics().horizontalAdvance(s) + _PADDING for c, s in _SHRUNK_TEXT.items()}
        self._auto_fit = True
        self._fitting = False
        header.sectionResized.connect(self._section_resized)
        self._fit_columns()

    def _fit_columns(self) -> None:
        """Natural column widths; when the title would get under its share, the shrinkable columns give way
        in :data:`_SHRINKABLE` order, each down to its :data:`_SHRUNK_TEXT` width; past that the title gets
        its :data:`_TITLE_SHARE` and the list scrolls sideways."""
        if not self._auto_fit:
            return
        width = self.viewport().width()
        visible = [c for c in self._natural if not self.isColumnHidden(c)]
        header = self.horizontalHeader()
        sizes = {c: self._natural[c] for c in visible}
        fixed = sum(size for c, size in sizes.items() if c not in _SHRINKABLE)
        room = width - fixed - int(width * _TITLE_SHARE)
        shrinkable = [c for c in _SHRINKABLE if c in sizes]
        excess = sum(sizes[c] for c in shrinkable) - max(room, 0)
        for column in shrinkable:  # down to the shrunk widths, in order
            floor = min(self._shrunk.get(column, header.minimumSectionSize()), sizes[column])
            cut = min(max(excess, 0), sizes[column] - floor)
            sizes[column] -= cut
            excess -= cut
        # Still too wide: rather than cut every column to a stub (47-pixel authors and tags, a 111-pixel
        # title in the trial), the title keeps its share and the list scrolls sideways.
        header.setSectionResizeMode(Column.TITLE, QHeaderView.ResizeMode.Interactive if excess > 0
                                    else QHeaderView.ResizeMode.Stretch)
        if excess > 0:
            sizes[Column.TITLE] = int(width * _TITLE_SHARE)
        self._fitting = True
        try:
            for column, size in sizes.items():
                header.resizeSection(column, max(size, header.minimumSectionSize()))
        finally:
            self._fitting = False

    def _section_resized(self, section: int, _old: int, _new: int) -> None:
        if not self._fitting and section != Column.TITLE:
            self._auto_fit = False  # the user (or restored header state) decides the widths from now on

    def _set_column_shown(self, column: Column, shown: bool) -> None:
        self._fitting = True
        try:
            self.setColumnHidden(column, not shown)
        finally:
            self._fitting = False
        self._fit_columns()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_columns()

    def _column_actions(self) -> dict[Column, QAction]:
        header = self.horizontalHeader()
        header.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(self._show_header_menu)
        actions = {}
        for column in Column:
            if column == Column.TITLE:
                continue
            name = self.document_model.headerData(column, Qt.Orientation.Horizontal)
            action = QAction(name, self, checkable=True, checked=column not in HIDDEN_BY_DEFAULT)
            action.toggled.connect(lambda on, c=column: self._set_column_shown(c, on))
            self._set_column_shown(column, column not in HIDDEN_BY_DEFAULT)
            actions[column] = action
        return actions

    def header_menu(self) -> QMenu:
        """The header's menu: one checkable entry per column that can be hidden."""
        menu = QMenu(self)
        for action in self.column_actions.values():
            menu.addAction(action)
        return menu

    def _show_header_menu(self, pos: QPoint) -> None:
        self.header_menu().exec(self.horizontalHeader().mapToGlobal(pos))

    def _action(self, text: str, slot: object, *keys: Qt.Key | tuple[Qt.Key, Qt.KeyboardModifier]) -> QAction:
        action = QAction(text, self)
        action.triggered.connect(slot)
        for item in keys:
            combo = item if isinstance(item, tuple) else (item, Qt.KeyboardModifier.NoModifier)
            self._keys[combo] = action
        return action

    def keyPressEvent(self, event: QKeyEvent) -> None:
        modifiers = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        action = self._keys.get((Qt.Key(event.key()), modifiers))
        if action is not None and action.isEnabled() and action.isVisible():
            action.trigger()
            event.accept()
            return
        super().keyPressEvent(event)

    def _emit_ids(self, signal: Signal) -> None:
        ids = self.selected_ids()
        if ids:
            signal.emit(ids)

    def _open_index(self, index: QModelIndex) -> None:
        if index.isValid():
            self.open_requested.emit(index.data(DOC_ID_ROLE))

    def _open_current(self) -> None:
        self._open_index(self.currentIndex())

    def _rename_current(self) -> None:
        doc_id = self.current_id()
        if doc_id is not None:
            self.rename_requested.emit(doc_id)

    def _copy_ids(self) -> None:
        ids = self.selected_ids()
        if ids:
            QGuiApplication.clipboard().setText("\n".join(ids))

    def _selection_changed(self, _selected: QItemSelection, _deselected: QItemSelection) -> None:
        self._announce_selection()

    def _request_promotion(self) -> None:
        ids = self.selected_ids()
        if len(ids) == 1 and not self._trash_mode:
            self.promotion_request_requested.emit(ids[0])

    def _update_request_action(self) -> None:
        """Request Promotion… asks for one document, not in the trash."""
        self.request_promotion_action.setEnabled(not self._trash_mode and len(self.selected_ids()) == 1)

    def _announce_selection(self) -> None:
        self._update_request_action()
        ids = self.selected_ids()
        if ids != self._last_ids:
            self._last_ids = ids
            self.selection_changed.emit(ids)

    def _remember_selection(self) -> None:
        self._kept_ids = self.selected_ids()
        self._kept_current = self.current_id()

    def _restore_selection(self) -> None:
        # A reset clears the selection silently; select the same documents again, then announce once.
        kept = [i for i in self._kept_ids if self.document_model.row_for(i) is not None]
        if self._kept_current in kept:
            kept.remove(self._kept_current)
            kept.insert(0, self._kept_current)
        self.selectionModel().blockSignals(True)
        try:
            self.select_ids(kept)
        finally:
            self.selectionModel().blockSignals(False)
        self._announce_selection()

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        index = self.indexAt(event.pos())
        if index.isValid() and not self.selectionModel().isRowSelected(index.row(), QModelIndex()):
            self.selectRow(index.row())
        menu = self.context_menu()
        if not menu.isEmpty():
            menu.exec(event.globalPos())

    def context_menu(self) -> QMenu:
        """The row menu for the current selection (empty when nothing is selected)."""
        menu = QMenu(self)
        count = len(self.selected_ids())
        if not count:
            return menu
        if count == 1:
            menu.addAction(self.open_action)
            doc = self.current_document()
            if doc is not None and file_actions.stored_file(doc) is not None:
                menu.addAction(self.open_externally_action)
                menu.addAction(self.reveal_action)
            menu.addAction(self.rename_action)
            menu.addSeparator()
        if self._trash_mode:
            menu.addAction(self.restore_action)
            menu.addAction(self.delete_permanently_action)
        else:
            if self._archived_mode:
                menu.addAction(self.restore_action)
            menu.addAction(self.trash_action)
            self.fill_move_menu(menu.addMenu("Move to Scope"))
            if count == 1:
                menu.addAction(self.request_promotion_action)
            self._fill_reading_menu(menu.addMenu("Reading Status"))
        menu.addSeparator()
        menu.addAction(self.copy_id_action)
        self.menu_extension_requested.emit(menu)
        return menu

    def _fill_reading_menu(self, menu: QMenu) -> None:
        """One entry per reading status; the selection's common status, if any, is checked."""
        ids = self.selected_ids()
        model = self.document_model
        current = {reading_status_of(d.type, d.metadata) for i in ids if (row := model.row_for(i)) is not None
                   for d in (model.document(row),)}
        for status in ReadingStatus:
            action = menu.addAction(status.value.capitalize())
            action.setCheckable(True)
            action.setChecked(current == {status})
            action.triggered.connect(lambda _checked=False, s=status.value: self.reading_status_requested.emit(ids, s))

    def startDrag(self, supportedActions: Qt.DropAction) -> None:
        ids = self.selected_ids()
        if ids:
            start_id_drag(self, self.drag_mime(), len(ids))

    def drag_mime(self) -> QMimeData:
        """What dragging the selection carries: its ids and the scopes they live in, and for a drop outside
        the app, the documents' files as URLs (named copies: :func:`.file_actions.add_file_urls`)."""
        rows = [self.proxy.mapToSource(i) for i in self.selectionModel().selectedRows()]
        mime = add_source_scopes(self.document_model.mimeData(rows), self.selected_scopes())
        return file_actions.add_file_urls(mime, (self.document_model.documents()[r.row()] for r in rows))

    def key_bindings(self) -> list[tuple[str, QKeySequence]]:
        """The list's own keys (handled in :meth:`keyPressEvent`) as ``(action text, keys)`` pairs."""
        return [(action.text().rstrip("…"), QKeySequence(QKeyCombination(modifiers, key)))
                for (key, modifiers), action in self._keys.items()]

    def current_document(self) -> DocumentInfo | None:
        """The document of the current row, if any."""
        doc_id = self.current_id()
        row = self.document_model.row_for(doc_id) if doc_id is not None else None
        return self.document_model.documents()[row] if row is not None else None

    def _with_file(self, act) -> None:
        doc = self.current_document()
        problem = act(doc) if doc is not None else None
        if problem:
            self.file_problem.emit(problem)
