"""The scope switcher: where the user stands as a breadcrumb (Group › Project › Session › Think Process),
and a popup tree to pick, create, rename, archive and configure scopes.

Documents dragged onto a scope of the popup tree, or onto a crumb of the breadcrumb, ask to move there
(promote or demote); hovering the "Scopes" button with them opens the tree. A scope of another branch
refuses them during the drag and says why.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import (
    QAbstractItemModel,
    QMimeData,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QAction, QDragEnterEvent, QDragLeaveEvent, QDragMoveEvent, QDropEvent, QFont
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMenu,
    QToolButton,
    QToolTip,
    QTreeView,
    QVBoxLayout,
    QWidget,
    QWidgetAction,
)

from ..core.scope_info import ScopeInfo
from ..core.scopes import ScopeKind
from ..services.conversations import PROCESS_KINDS
from . import themes
from .dnd import DOCUMENT_MIME, branch_refusal, decode_document_ids, decode_source_scopes, drag_move_refusal

PATH_ROLE = Qt.ItemDataRole.UserRole + 1
_Index = QModelIndex | QPersistentModelIndex
_NO_PARENT = QModelIndex()  # a shared default: Qt's signatures default to the invalid index


class ScopeTreeModel(QAbstractItemModel):
    """The scope tree (group > project > session > think process; agents under a group or project) from a list
    of :class:`ScopeInfo`.

    Internal pointers are row numbers into ``self._scopes`` plus one (0 is the invisible root), so
    indexes never hold Python objects that could be collected. Every scope takes drops of documents
    (:data:`DOCUMENT_MIME`) from scopes of its branch.

    Signals:
        documents_dropped(list[str], str): document ids dropped on the scope with that path (emitted
            on the next event-loop turn, outside the platform's drag loop).
    """

    documents_dropped = Signal(list, str)

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
            return f"{scope.kind.label} · {scope.path}" + (f" · run by {scope.agent}" if scope.agent else "")
        if role == Qt.ItemDataRole.DecorationRole and scope.kind is ScopeKind.AGENT:
            return themes.icon("agent")  # an agent's own memory, beside the tree of its work
        if role == PATH_ROLE:
            return scope.path
        if role == Qt.ItemDataRole.FontRole and scope.path == self._current:
            font = QFont()
            font.setBold(True)
            return font
        return None

    # -- drops of documents --------------------------------------------------------------------------

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsDropEnabled

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.CopyAction | Qt.DropAction.MoveAction

    def mimeTypes(self) -> list[str]:
        return [DOCUMENT_MIME]

    def refusal(self, ids: Sequence[str], sources: Sequence[str], path: str) -> str | None:
        """Why documents ``ids`` from scopes ``sources`` (possibly unknown: []) cannot move to ``path``."""
        if not ids:
            return "Only documents can be dropped on a scope"
        names = {s.path: s.name for s in self._scopes}
        parents = {s.path: s.parent for s in self._scopes}
        if sources and all(s == path for s in sources):
            return f"{'It is' if len(ids) == 1 else 'They are'} in {names.get(path, path)} already"
        return branch_refusal(parents, sources, path, names)

    def drop_refusal(self, data: QMimeData, index: _Index) -> str | None:
        """Why ``data`` cannot be dropped on ``index``; None when it can or when it holds no documents."""
        scope = self.scope(index)
        ids = decode_document_ids(data)
        return self.refusal(ids, decode_source_scopes(data), scope.path) if scope is not None and ids else None

    def canDropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: _Index) -> bool:
        scope = self.scope(parent)
        if scope is None or not action & self.supportedDropActions():
            return False
        return self.refusal(decode_document_ids(data), decode_source_scopes(data), scope.path) is None

    def dropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: _Index) -> bool:
        """Report documents dropped on a scope with :attr:`documents_dropped`; returns whether they were taken."""
        if not self.canDropMimeData(data, action, row, column, parent):
            return False
        ids, path = decode_document_ids(data), self.scope(parent).path
        QTimer.singleShot(0, self, lambda: self.documents_dropped.emit(ids, path))
        return True


class _ScopeTree(QTreeView):
    """The popup's tree: drops land *on* a scope; a refusing scope says why while the drag hovers it."""

    def __init__(self, model: ScopeTreeModel, refused: Callable[[str], None]) -> None:
        super().__init__()
        self.setModel(model)
        self._refused = refused
        self._refusal: str | None = None
        self.setAcceptDrops(True)
        self.setDragDropMode(QTreeView.DragDropMode.DropOnly)
        self.setDragDropOverwriteMode(True)
        self.setDropIndicatorShown(True)
        self.setAutoExpandDelay(600)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        refusal = drag_move_refusal(self, event, super().dragMoveEvent, self.model().drop_refusal)
        if refusal != self._refusal:
            self._refusal = refusal
            if refusal is None:
                QToolTip.hideText()
            else:
                QToolTip.showText(self.viewport().mapToGlobal(event.position().toPoint()), refusal, self)
                self._refused(refusal)

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self._refusal = None
        QToolTip.hideText()
        self.setDropIndicatorShown(True)
        super().dragLeaveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        self._refusal = None
        QToolTip.hideText()
        self.setDropIndicatorShown(True)
        super().dropEvent(event)


class _CrumbButton(QToolButton):
    """One crumb of the breadcrumb: a scope of the current branch that takes dropped documents."""

    def __init__(self, path: str, model: ScopeTreeModel, dropped: Callable[[list[str], str], None],
                 refused: Callable[[str], None]) -> None:
        super().__init__()
        self.path = path
        self._model, self._dropped, self._refused = model, dropped, refused
        self.setAcceptDrops(True)

    def _refusal(self, data: QMimeData) -> str | None:
        return self._model.refusal(decode_document_ids(data), decode_source_scopes(data), self.path)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if not event.mimeData().hasFormat(DOCUMENT_MIME):
            event.ignore()
            return
        refusal = self._refusal(event.mimeData())
        if refusal is None:
            self.setDown(True)  # shows where the documents would go
            event.acceptProposedAction()
        else:
            QToolTip.showText(self.mapToGlobal(self.rect().bottomLeft()), refusal, self)
            self._refused(refusal)
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if event.mimeData().hasFormat(DOCUMENT_MIME) and self._refusal(event.mimeData()) is None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self.setDown(False)
        super().dragLeaveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        self.setDown(False)
        ids = decode_document_ids(event.mimeData())
        if not ids or self._refusal(event.mimeData()) is not None:
            event.ignore()
            return
        event.acceptProposedAction()
        # The model as context: a reload may replace this crumb before the timer fires.
        path, dropped = self.path, self._dropped
        QTimer.singleShot(0, self._model, lambda: dropped(ids, path))


class _ScopesButton(QToolButton):
    """The "Scopes ▾" button: hovering it with dragged documents opens the tree to drop them on a scope."""

    HOVER_MS = 500

    def __init__(self) -> None:
        super().__init__()
        self.setAcceptDrops(True)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(self.HOVER_MS)
        self._timer.timeout.connect(self.open_menu)

    def open_menu(self) -> None:
        """Show the popup below the button without blocking (``showMenu`` would run a nested loop)."""
        menu = self.menu()
        if menu is not None and not menu.isVisible():
            menu.popup(self.mapToGlobal(self.rect().bottomLeft()))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasFormat(DOCUMENT_MIME):
            event.acceptProposedAction()
            self._timer.start()
        else:
            event.ignore()

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self._timer.stop()
        super().dragLeaveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        # Dropped before the tree opened: open it now, so the user sees where documents can go.
        self._timer.stop()
        event.ignore()
        self.open_menu()


class ScopeSwitcher(QWidget):
    """Breadcrumb of the current scope's path plus a "Scopes" popup with the whole tree.

    Each crumb is a button: clicking it goes to that scope; its menu lists that scope's children to go
    down. Signals carry scope paths.

    Signals:
        scope_selected(str), create_requested(str) (parent path; "" for a new group),
        rename_requested(str), archive_requested(str).
        publish_requested(str): request promotion of every result of this think process to its project.
        settings_requested(str): open this scope's settings.
        conversation_requested(str): open this session's or think process's Conversation window.
        documents_dropped(list[str], str): document ids dropped on a scope of the tree or on a crumb.
        move_refused(str): dragged documents cannot go to the scope under the cursor; the text says why.
    """

    scope_selected = Signal(str)
    create_requested = Signal(str)
    rename_requested = Signal(str)
    archive_requested = Signal(str)
    publish_requested = Signal(str)
    settings_requested = Signal(str)
    conversation_requested = Signal(str)
    documents_dropped = Signal(list, str)
    move_refused = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = ScopeTreeModel(self)
        self._scopes: list[ScopeInfo] = []
        self._current = ""
        self._crumbs = QHBoxLayout()
        self._crumbs.setSpacing(0)
        self.tree_button = _ScopesButton()
        self.tree_button.setText("Scopes ▾")
        self.tree_button.setToolTip("All scopes: pick, create, rename, archive, configure; drop documents on "
                                    "a scope to move them there")
        self.tree_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self._build_tree_menu()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Scope:"))
        layout.addLayout(self._crumbs)
        layout.addWidget(self.tree_button)

    def set_scopes(self, scopes: list[ScopeInfo], current: str) -> None:
        """Show the tree of ``scopes`` and the breadcrumb of ``current`` (unchanged ones: nothing to redo)."""
        if list(scopes) == self._scopes and current == self._current:
            return  # most refreshes of the window: rebuilding the crumbs' buttons and menus cost more than the rest
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
                item.widget().hide()
                item.widget().deleteLater()
        chain = self._chain(self._current)
        for position, scope in enumerate(chain):
            if position:
                self._crumbs.addWidget(QLabel(" › "))
            button = _CrumbButton(scope.path, self.model, self.documents_dropped.emit, self.move_refused.emit)
            button.setText(scope.name.replace("&", "&&"))  # a button reads "&" as a shortcut mark ("R&D" → "RD")
            button.setToolTip(f"{scope.kind.label} · {scope.path}"
                              + (f" · run by {scope.agent}" if scope.agent else ""))
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
        self.tree = _ScopeTree(self.model, self.move_refused.emit)
        self.model.documents_dropped.connect(self._dropped_on_tree)
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
        self.publish_action = QAction("Publish to Project…", menu)
        self.publish_action.setToolTip("Ask to promote every result of this think process to its project")
        self.publish_action.triggered.connect(lambda: self._emit_for_selected(self.publish_requested))
        self.settings_action = QAction("Scope Settings…", menu)
        self.settings_action.triggered.connect(lambda: self._emit_for_selected(self.settings_requested))
        self.conversation_action = QAction("Conversation…", menu)
        self.conversation_action.setToolTip("The conversation of this session or think process")
        self.conversation_action.triggered.connect(lambda: self._emit_for_selected(self.conversation_requested))
        for action in (self.new_child_action, self.new_group_action, self.rename_action, self.archive_action):
            menu.addAction(action)
        menu.addSeparator()
        menu.addAction(self.publish_action)
        menu.addAction(self.conversation_action)
        menu.addAction(self.settings_action)
        self.tree.selectionModel().currentChanged.connect(lambda current, _previous: self._update_scope_actions())
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
        self.tree_context_menu().exec(self.tree.viewport().mapToGlobal(point))

    def tree_context_menu(self) -> QMenu:
        """The popup tree's context menu for its current scope."""
        self._update_scope_actions()
        menu = QMenu(self.tree)
        for action in (self.new_child_action, self.new_group_action, self.rename_action, self.archive_action):
            menu.addAction(action)
        menu.addSeparator()
        if self.publish_action.isEnabled():
            menu.addAction(self.publish_action)
        if self.conversation_action.isEnabled():
            menu.addAction(self.conversation_action)
        menu.addAction(self.settings_action)
        return menu

    def _update_scope_actions(self) -> None:
        scope = self.model.scope(self.tree.currentIndex())
        self.publish_action.setEnabled(scope is not None and scope.kind == ScopeKind.THINK_PROCESS)
        self.conversation_action.setEnabled(scope is not None and scope.kind in PROCESS_KINDS)

    def _dropped_on_tree(self, ids: list[str], path: str) -> None:
        self._tree_menu.close()
        self.documents_dropped.emit(ids, path)
