"""The scope switcher: where the user stands as a breadcrumb (Group › Project › Session › Think Process),
and a popup tree to pick, create, rename and archive scopes."""

from __future__ import annotations

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, QPoint, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMenu,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
    QWidgetAction,
)

from ..core.scope_info import ScopeInfo

PATH_ROLE = Qt.ItemDataRole.UserRole + 1
_Index = QModelIndex | QPersistentModelIndex
_NO_PARENT = QModelIndex()  # a shared default: Qt's signatures default to the invalid index


class ScopeTreeModel(QAbstractItemModel):
    """The scope tree (group > project > session > think process) from a list of :class:`ScopeInfo`.

    Internal pointers are row numbers into ``self._scopes`` plus one (0 is the invisible root), so
    indexes never hold Python objects that could be collected.
    """

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._scopes: list[ScopeInfo] = []
        self._children: dict[int, list[int]] = {0: []}
        self._parent_of: dict[int, int] = {}
        self._current = ""

    def set_scopes(self, scopes: list[ScopeInfo], current: str) -> None:
        """Show ``scopes`` (parents before children) with ``current`` in bold."""
        self.beginResetModel()
        self._scopes = list(scopes)
        self._current = current
        by_path = {s.path: n for n, s in enumerate(self._scopes, start=1)}
        self._children = {0: []}
        self._parent_of = {}
        for n, scope in enumerate(self._scopes, start=1):
            parent = by_path.get(scope.parent or "", 0)
            self._children.setdefault(parent, []).append(n)
            self._children.setdefault(n, [])
            self._parent_of[n] = parent
        self.endResetModel()

    def scope(self, index: _Index) -> ScopeInfo | None:
        """The scope at ``index`` (None for the root)."""
        node = index.internalId() if index.isValid() else 0
        return self._scopes[node - 1] if node else None

    def index_for(self, path: str) -> QModelIndex:
        """The index of the scope ``path`` (invalid when unknown)."""
        for n, scope in enumerate(self._scopes, start=1):
            if scope.path == path:
                parent = self._parent_of[n]
                return self.createIndex(self._children[parent].index(n), 0, n)
        return QModelIndex()

    def index(self, row: int, column: int, parent: _Index = _NO_PARENT) -> QModelIndex:
        node = parent.internalId() if parent.isValid() else 0
        children = self._children.get(node, [])
        if column != 0 or not 0 <= row < len(children):
            return QModelIndex()
        return self.createIndex(row, 0, children[row])

    def parent(self, index: _Index = _NO_PARENT) -> QModelIndex:  # type: ignore[override]
        if not index.isValid():
            return QModelIndex()
        parent = self._parent_of.get(index.internalId(), 0)
        if parent == 0:
            return QModelIndex()
        grand = self._parent_of[parent]
        return self.createIndex(self._children[grand].index(parent), 0, parent)

    def rowCount(self, parent: _Index = _NO_PARENT) -> int:
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self._children.get(parent.internalId() if parent.isValid() else 0, []))

    def columnCount(self, parent: _Index = _NO_PARENT) -> int:
        return 1

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        scope = self.scope(index)
        if scope is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return scope.name
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{scope.kind.label} · {scope.path}"
        if role == PATH_ROLE:
            return scope.path
        if role == Qt.ItemDataRole.FontRole and scope.path == self._current:
            from PySide6.QtGui import QFont

            font = QFont()
            font.setBold(True)
            return font
        return None


class ScopeSwitcher(QWidget):
    """Breadcrumb of the current scope's path plus a "Scopes" popup with the whole tree.

    Each crumb is a button: clicking it goes to that scope; its menu lists that scope's children to go
    down. Signals carry scope paths.

    Signals:
        scope_selected(str), create_requested(str) (parent path; "" for a new group),
        rename_requested(str), archive_requested(str).
    """

    scope_selected = Signal(str)
    create_requested = Signal(str)
    rename_requested = Signal(str)
    archive_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = ScopeTreeModel(self)
        self._scopes: list[ScopeInfo] = []
        self._current = ""
        self._crumbs = QHBoxLayout()
        self._crumbs.setSpacing(0)
        self.tree_button = QToolButton()
        self.tree_button.setText("Scopes ▾")
        self.tree_button.setToolTip("All scopes: pick, create, rename, archive")
        self.tree_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self._build_tree_menu()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Scope:"))
        layout.addLayout(self._crumbs)
        layout.addWidget(self.tree_button)

    def set_scopes(self, scopes: list[ScopeInfo], current: str) -> None:
        """Show the tree of ``scopes`` and the breadcrumb of ``current``."""
        self._scopes, self._current = list(scopes), current
        self.model.set_scopes(scopes, current)
        self.tree.expandAll()
        self.tree.setCurrentIndex(self.model.index_for(current))
        self._rebuild_crumbs()

    def current(self) -> str:
        """The current scope's path."""
        return self._current

    def breadcrumb_text(self) -> str:
        """The breadcrumb as text, e.g. ``ML Research › Transformer Efficiency Review``."""
        return " › ".join(s.name for s in self._chain(self._current))

    def _chain(self, path: str) -> list[ScopeInfo]:
        by_path = {s.path: s for s in self._scopes}
        chain, walker = [], by_path.get(path)
        while walker is not None:
            chain.append(walker)
            walker = by_path.get(walker.parent or "")
        return chain[::-1]

    def _rebuild_crumbs(self) -> None:
        while self._crumbs.count():
            item = self._crumbs.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        chain = self._chain(self._current)
        for position, scope in enumerate(chain):
            if position:
                self._crumbs.addWidget(QLabel(" › "))
            button = QToolButton()
            button.setText(scope.name)
            button.setToolTip(f"{scope.kind.label} · {scope.path}")
            button.setAutoRaise(True)
            if scope.path == self._current:
                font = button.font()
                font.setBold(True)
                button.setFont(font)
            children = [s for s in self._scopes if s.parent == scope.path]
            if children:
                menu = QMenu(button)
                for child in children:
                    action = menu.addAction(f"{child.kind.label}: {child.name}")
                    action.triggered.connect(lambda _=False, p=child.path: self.scope_selected.emit(p))
                button.setMenu(menu)
                button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
            button.clicked.connect(lambda _=False, p=scope.path: self.scope_selected.emit(p))
            self._crumbs.addWidget(button)

    def _build_tree_menu(self) -> None:
        menu = QMenu(self.tree_button)
        panel = QWidget()
        self.tree = QTreeView()
        self.tree.setModel(self.model)
        self.tree.setHeaderHidden(True)
        self.tree.setMinimumSize(320, 280)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._tree_context_menu)
        self.tree.activated.connect(self._tree_activated)
        self.tree.clicked.connect(self._tree_activated)
        box = QVBoxLayout(panel)
        box.setContentsMargins(4, 4, 4, 4)
        box.addWidget(self.tree)
        holder = QWidgetAction(menu)
        holder.setDefaultWidget(panel)
        menu.addAction(holder)
        menu.addSeparator()
        self.new_child_action = QAction("New scope inside the selected one…", menu)
        self.new_child_action.triggered.connect(lambda: self.create_requested.emit(self._selected_path()))
        self.new_group_action = QAction("New project group…", menu)
        self.new_group_action.triggered.connect(lambda: self.create_requested.emit(""))
        self.rename_action = QAction("Rename selected scope…", menu)
        self.rename_action.triggered.connect(lambda: self._emit_for_selected(self.rename_requested))
        self.archive_action = QAction("Archive selected scope", menu)
        self.archive_action.triggered.connect(lambda: self._emit_for_selected(self.archive_requested))
        for action in (self.new_child_action, self.new_group_action, self.rename_action, self.archive_action):
            menu.addAction(action)
        self._tree_menu = menu
        self.tree_button.setMenu(menu)

    def _selected_path(self) -> str:
        scope = self.model.scope(self.tree.currentIndex())
        return scope.path if scope is not None else self._current

    def _emit_for_selected(self, signal) -> None:
        path = self._selected_path()
        if path:
            signal.emit(path)

    def _tree_activated(self, index: QModelIndex) -> None:
        scope = self.model.scope(index)
        if scope is not None and scope.path != self._current:
            self._tree_menu.close()
            self.scope_selected.emit(scope.path)

    def _tree_context_menu(self, point: QPoint) -> None:
        index = self.tree.indexAt(point)
        if index.isValid():
            self.tree.setCurrentIndex(index)
        menu = QMenu(self.tree)
        for action in (self.new_child_action, self.new_group_action, self.rename_action, self.archive_action):
            menu.addAction(action)
        menu.exec(self.tree.viewport().mapToGlobal(point))
