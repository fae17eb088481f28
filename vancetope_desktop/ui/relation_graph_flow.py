"""Where the relation picture is opened and loaded (issue 12): "Show graph" in Details' Relations section and
"Relations Graph…" in the list's row menu open one window, which draws the document's neighbourhood
(``services.graph.neighbourhood``, laid out on the read lane) as the current scope sees it. A click on a node
leaves as ``document_open_requested``: the main window opens the document, as for any link.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QDialog, QMenu, QVBoxLayout, QWidget

from ..core.errors import DocumentNotFound, ScopeNotVisible
from ..services import documents, graph
from .relation_graph import Picture, lay_out
from .relation_graph_pane import RelationGraphPane

if TYPE_CHECKING:
    from .details_panel import DetailsPanel
    from .document_table import DocumentTableView
    from .workbench import Workbench


class RelationGraphFlow(QObject):
    """Opens the relation picture of a document in a window of its own (one, reused) and keeps it loaded.

    Signals:
        document_open_requested(str): a node was clicked (its document id).
    """

    document_open_requested = Signal(str)

    def __init__(self, workbench: Workbench, parent: QWidget, *, table: DocumentTableView,
                 details: DetailsPanel) -> None:
        super().__init__(parent)
        self.workbench, self.parent_widget = workbench, parent
        self.dialog: QDialog | None = None
        self.pane: RelationGraphPane | None = None
        self.doc_id: str | None = None
        self._seen: tuple[str, int] | None = None  # the scope and change counter of the last snapshot
        table.menu_extension_requested.connect(lambda menu: self._extend_menu(menu, table.selected_ids()))
        details.relations.graph_requested.connect(self.show)
        workbench.snapshot_ready.connect(self._follow_changes)

    def _follow_changes(self, snapshot: Any) -> None:
        # An edge made or a document archived elsewhere, or another scope chosen: draw what is true now (a snapshot
        # of an indexing step changes neither: the picture stays).
        seen = (snapshot.state.scope, snapshot.change_counter)
        if self.dialog is not None and self.dialog.isVisible() and seen != self._seen:
            self.load()
        self._seen = seen

    def _extend_menu(self, menu: QMenu, ids: list[str]) -> None:
        if len(ids) == 1:
            menu.addSeparator()
            menu.addAction("Relations Graph…", lambda: self.show(ids[0]))

    def show(self, doc_id: str) -> None:
        """Open (or raise) the picture window on ``doc_id``, at the depth last chosen."""
        if self.dialog is None:
            self.dialog = QDialog(self.parent_widget)
            self.dialog.setWindowTitle("Relations")
            self.dialog.resize(1000, 700)
            self.pane = RelationGraphPane()
            self.pane.depth_changed.connect(lambda _depth: self.load())
            self.pane.document_open_requested.connect(self.document_open_requested)
            QVBoxLayout(self.dialog).addWidget(self.pane)
        self.doc_id = doc_id
        self.load()
        self.dialog.show()
        self.dialog.raise_()

    def load(self) -> None:
        """Read the shown document's neighbourhood at the chosen depth and draw it when it is still wanted."""
        if self.pane is None or self.doc_id is None:
            return
        lib, scope = self.workbench.lib, self.workbench.state.scope
        doc_id, depth = self.doc_id, self.pane.current_depth()

        def read(_context: object) -> tuple[Picture, str] | None:
            try:
                try:
                    found = graph.neighbourhood(lib, doc_id, depth, scope)
                except ScopeNotVisible:  # a document below the current scope (the app shows them): as its scope sees
                    found = graph.neighbourhood(lib, doc_id, depth, documents.get_document(lib, doc_id).scope)
            except DocumentNotFound:  # purged meanwhile: nothing to draw
                return None
            title = next(n.title for n in found.nodes if n.id == doc_id)
            return lay_out(found), title

        def drawn(result: tuple[Picture, str] | None) -> None:
            if self.pane is None or (self.doc_id, self.pane.current_depth()) != (doc_id, depth):
                return  # the user moved on meanwhile: a later load draws
            picture, title = result if result is not None else (None, "")
            self.pane.set_picture(picture, title)
            if self.dialog is not None:
                self.dialog.setWindowTitle(f"Relations — {title}" if title else "Relations")

        self.workbench.read(read, drawn, title="Loading the relation picture")
