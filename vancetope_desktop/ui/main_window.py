"""The main window: the scope tree on the left, the documents of the chosen scope on the right.

This is the first, read-only window over a library; the workbench (viewer, tag chips, search pane,
drag-and-drop) builds on it.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QMainWindow,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTreeWidget,
    QTreeWidgetItem,
)

from ..services import documents, scopes
from ..services.library import Library


class MainWindow(QMainWindow):
    """Shows the library's scopes and the documents visible from the selected scope."""

    def __init__(self, library: Library) -> None:
        super().__init__()
        self.library = library
        self.setWindowTitle(f"Vancetope Desktop — {library.paths.root}")
        self.resize(1100, 700)
        self.scope_tree = QTreeWidget()
        self.scope_tree.setHeaderLabel("Scopes")
        self.document_table = QTableWidget(0, 5)
        self.document_table.setHorizontalHeaderLabels(["Title", "Type", "Tags", "Scope", "Index"])
        self.document_table.verticalHeader().setVisible(False)
        self.document_table.setWordWrap(False)
        self.document_table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.document_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.document_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.scope_tree)
        splitter.addWidget(self.document_table)
        splitter.setSizes([280, 820])
        self.setCentralWidget(splitter)
        self.status_label = QLabel()
        self.statusBar().addWidget(self.status_label)
        self.scope_tree.currentItemChanged.connect(self._scope_selected)
        self.reload()

    def reload(self) -> None:
        """Rebuild the scope tree and select the library's current scope."""
        self.scope_tree.clear()
        current = scopes.current_scope(self.library)
        items: dict[str, QTreeWidgetItem] = {}
        for scope in scopes.list_scopes(self.library):
            parent = items.get(scope.parent or "")
            item = QTreeWidgetItem([scope.name])
            item.setData(0, Qt.ItemDataRole.UserRole, scope.path)
            item.setToolTip(0, scope.path)
            if parent is None:
                self.scope_tree.addTopLevelItem(item)
            else:
                parent.addChild(item)
            items[scope.path] = item
        self.scope_tree.expandAll()
        if current in items:
            self.scope_tree.setCurrentItem(items[current])

    def _scope_selected(self, item: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None) -> None:
        if item is None:
            return
        path = item.data(0, Qt.ItemDataRole.UserRole)
        docs = documents.list_documents(self.library, scope=path, limit=2000)
        self.document_table.setRowCount(len(docs))
        for row, doc in enumerate(docs):
            inherited = doc.scope != path
            values = [doc.title, doc.type.value, " ".join(f"#{t}" for t in doc.tags),
                      f"↑ {doc.scope}" if inherited else doc.scope, doc.index_state.value.replace("_", " ")]
            for column, value in enumerate(values):
                self.document_table.setItem(row, column, QTableWidgetItem(value))
        self.status_label.setText(f"{path}: {len(docs)} documents visible")
