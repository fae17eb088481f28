"""Citations in the window: "Copy Citation" in a CSL style and "Export…" as BibTeX, RIS or CSL-JSON.

Both act on what the user points at: the document list's selection, a folder of the tree (its
documents, subfolders included), or the search results (the selected hit for Copy Citation, every hit
shown for Export). They are in the Edit menu (acting on the pane that has focus, else the list's
selection, else the open document) and in the context menus of the list, the tree and the results.
The style is chosen in Edit ▸ Citation Style and remembered in the preferences.

The work is the services' (``services.citations``, ``services.citation_keys``), run by the workbench on
the write lane since a first citation stores the document's key. When the Details panel shows a
document without a key, one is assigned, so the key is there to read and edit (the metadata field
``citation_key``; an edit is checked by ``documents.update_document``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QMimeData, QObject, QPoint, Qt, Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QApplication, QFileDialog, QMainWindow, QMenu

from ..core.errors import InvalidInput
from ..services import citation_keys, citations
from .details_panel import DetailsPanel
from .document_table import DocumentTableView
from .folder_model import FolderTarget
from .folder_tree import FolderTreeView
from .search_model import ResultRole
from .search_pane import SearchPane
from .viewer import DocumentViewer
from .window_parts import make_action, menu_named
from .workbench import Workbench

EXPORT_FILTERS = ";;".join(f"{label} (*{suffix})" for suffix, label in citations.FORMATS.values())
"""The Export dialog's file types, one per format: the chosen file's suffix decides the format."""


class CitationActions(QObject):
    """The citation actions of one main window (see the module docstring).

    Args:
        window: owner of the actions, of the Edit menu they join and of the status bar; parent of the dialog.
        workbench: runs the citations and exports. table, folder_tree, search_pane, details: the panes whose
            selection is cited. current_viewer: the viewer of the current tab, if any.
        style: the remembered style (``Preferences.citation_style``).

    Signals:
        style_chosen(str): the user chose another style (a key of ``citations.STYLES``): the window
            remembers it in the preferences.

    Attributes:
        copy_action: Edit ▸ Copy Citation (Ctrl+Shift+A, Zotero's shortcut for it).
        export_action: Edit ▸ Export… (Ctrl+Shift+E).
        style_actions: Edit ▸ Citation Style ▸ one checkable action per shipped style.
    """

    style_chosen = Signal(str)

    def __init__(self, window: QMainWindow, workbench: Workbench, *, table: DocumentTableView,
                 folder_tree: FolderTreeView, search_pane: SearchPane, details: DetailsPanel,
                 current_viewer: Callable[[], DocumentViewer | None], style: str) -> None:
        super().__init__(window)
        self.window, self.workbench = window, workbench
        self.table, self.folder_tree, self.search_pane, self.details = table, folder_tree, search_pane, details
        self.current_viewer = current_viewer
        self.style = style if style in citations.STYLES else "apa"  # a style no longer shipped: APA
        self.copy_action = make_action(window, "Copy Citation", lambda: self.copy_citation(self.pointed_ids()),
                                       "Ctrl+Shift+A")
        self.export_action = make_action(window, "Export…", lambda: self.export(self.pointed_ids(export=True),
                                                                     found=self.search_pane.results_view.hasFocus()),
                                         "Ctrl+Shift+E")
        self.style_menu = QMenu("Citation Style", window)
        self.style_actions: dict[str, QAction] = {}
        group = QActionGroup(self)
        for name, (_file, label) in citations.STYLES.items():
            action = self.style_menu.addAction(label)
            action.setCheckable(True)
            group.addAction(action)
            action.triggered.connect(lambda _checked=False, n=name: self.set_style(n))
            self.style_actions[name] = action
        self.style_actions[self.style].setChecked(True)

        edit = menu_named(window, "&Edit")
        if edit is not None:
            edit.addSeparator()
            edit.addAction(self.copy_action)
            edit.addAction(self.export_action)
            edit.addMenu(self.style_menu)
        table.menu_extension_requested.connect(self._extend_table_menu)
        folder_tree.menu_extension_requested.connect(self._extend_tree_menu)
        results = search_pane.results_view
        results.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        results.customContextMenuRequested.connect(self._show_results_menu)
        details.document_shown.connect(self._ensure_key)

    # --- what is pointed at --------------------------------------------------------------------------
    def set_style(self, name: str) -> None:
        """Choose the style Copy Citation uses (announced on ``style_chosen`` when it changes)."""
        self.style_actions[name].setChecked(True)
        if self.style != name:
            self.style = name
            self.style_chosen.emit(name)

    def folder_ids(self, target: FolderTarget | None) -> list[str]:
        """A tree node's ids to cite: a folder stands for its contents; other nodes for nothing."""
        return [target.key] if target is not None and target.kind == "folder" else []

    def result_ids(self, *, selected_only: bool) -> list[str]:
        """The search results' document ids: the selected one, or every hit shown, best first."""
        pane = self.search_pane
        if selected_only:
            return [i.data(ResultRole.DOCUMENT_ID) for i in pane.results_view.selectionModel().selectedIndexes()]
        return [pane.model.hit(row).document.id for row in range(pane.model.rowCount())]

    def pointed_ids(self, *, export: bool = False) -> list[str]:
        """What the Edit menu's actions act on: the pane with focus (tree folder, search results), else the
        list's selection, else the document of the current viewer tab."""
        if self.folder_tree.hasFocus():
            return self.folder_ids(self.folder_tree.current_target())
        if self.search_pane.results_view.hasFocus():
            return self.result_ids(selected_only=not export)
        viewer = self.current_viewer()
        if viewer is not None and viewer.current_document_id():
            return [viewer.current_document_id()]
        return self.table.selected_ids()

    # --- menus ---------------------------------------------------------------------------------------
    def _extend_table_menu(self, menu: QMenu) -> None:
        ids = self.table.selected_ids()
        if ids:
            self._add_entries(menu, ids, ids, "Export…")

    def _extend_tree_menu(self, menu: QMenu, target: FolderTarget | None) -> None:
        ids = self.folder_ids(target)
        if ids:
            menu.addSeparator()
            menu.addAction("Copy Citations", lambda: self.copy_citation(ids))
            menu.addAction("Export Folder…", lambda: self.export(ids))

    def results_menu(self, pos: QPoint) -> QMenu:
        """The search results' menu at ``pos`` (viewport coordinates): the hit there is selected first."""
        view = self.search_pane.results_view
        index = view.indexAt(pos)
        if index.isValid():
            view.setCurrentIndex(index)
        menu = QMenu(view)
        everything = self.result_ids(selected_only=False)
        if everything:
            self._add_entries(menu, self.result_ids(selected_only=True), everything, "Export Results…", found=True)
        return menu

    def _show_results_menu(self, pos: QPoint) -> None:
        menu = self.results_menu(pos)
        if not menu.isEmpty():
            menu.exec(self.search_pane.results_view.viewport().mapToGlobal(pos))

    def _add_entries(self, menu: QMenu, cite_ids: list[str], export_ids: list[str], export_text: str, *,
                     found: bool = False) -> None:
        menu.addSeparator()
        copy = menu.addAction("Copy Citation", lambda: self.copy_citation(cite_ids))
        copy.setEnabled(bool(cite_ids))
        menu.addAction(export_text, lambda: self.export(export_ids, found=found))
        menu.addMenu(self.style_menu)

    # --- the actions ---------------------------------------------------------------------------------
    def copy_citation(self, ids: list[str]) -> None:
        """Put ``ids`` on the clipboard as bibliography entries in the chosen style: HTML (rich text, for a
        word processor) and plain text."""
        if not ids:
            self.window.statusBar().showMessage("Select documents, a folder or a search result to cite.", 8000)
            return
        self.workbench.cite(ids, self.style, on_cited=self._copied)

    def _copied(self, cited: citations.FormattedCitation) -> None:
        mime = QMimeData()
        mime.setText(cited.text)
        mime.setHtml(cited.html)
        QApplication.clipboard().setMimeData(mime)
        count = len(cited.keys)
        self.window.statusBar().showMessage(
            f"Copied {count} citation{'' if count == 1 else 's'} ({citations.STYLES[cited.style][1]}).", 8000)

    def export(self, ids: list[str], *, found: bool = False) -> None:
        """Ask for a file (its type decides the format) and export ``ids`` to it; ``found``: they are a search's
        results, whose notes and annotations are left out (``citations.select_documents``)."""
        if not ids:
            self.window.statusBar().showMessage("Select documents, a folder or search results to export.", 8000)
            return
        name, chosen_filter = QFileDialog.getSaveFileName(self.window, "Export", "references.bib", EXPORT_FILTERS)
        if not name:
            return
        path = Path(name)
        try:
            fmt = citations.format_for_path(path.name)
        except InvalidInput:  # no suffix typed: the file type chosen in the dialog says it
            fmt = next(f for f, (suffix, label) in citations.FORMATS.items() if chosen_filter.startswith(label))
            path = path.with_name(path.name + citations.FORMATS[fmt][0])
        def done(result: citations.Export) -> None:
            self.window.statusBar().showMessage(
                f"Exported as {citations.FORMATS[result.format][1]} to {path}: {result.summary()}.", 10_000)

        self.workbench.export_citations(ids, path, fmt, on_exported=done, found=found)

    def _ensure_key(self, doc_id: str) -> None:
        """Give the document Details shows a citation key when it has no valid one (once: the snapshot then
        brings the key back). A key two imported files gave two works is settled at the first citation."""
        doc = self.details.document()
        if doc is None or doc.id != doc_id or not citations.is_citable(doc):
            return
        if citation_keys.is_valid_key(str(doc.metadata.get(citation_keys.KEY_FIELD) or "")):
            return  # a RIS record's placeholder ("entry 3") is not a key: that one gets a real key
        self.workbench.ensure_citation_key(doc_id)
