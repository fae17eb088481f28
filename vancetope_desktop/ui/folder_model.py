"""The folder tree: smart entries, the saved searches, then each visible scope with its folders, as a thin Qt
item model.

The main window loads scopes and folders in a worker and calls :meth:`FolderTreeModel.set_folders` and
:meth:`FolderTreeModel.set_smart_counts`; this module never calls services. Every node carries a
:class:`FolderTarget` (``NODE_ROLE``) that the views and the main window use instead of indexes, which a
reload invalidates. Files and folder moves land only in the current scope: ancestors' folders are
shown read-only. Documents dragged from another scope onto a scope root or folder of the same branch
ask for a move between scopes (promote / demote); a scope of another branch refuses them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from PySide6.QtCore import (
    QAbstractItemModel,
    QMimeData,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QBrush, QFont, QIcon
from PySide6.QtWidgets import QStyle

from ..core.scope_info import VisibleScope
from ..services.folders import FolderNode
from .dnd import (
    DOCUMENT_MIME,
    URI_LIST_MIME,
    branch_refusal,
    decode_document_ids,
    decode_source_scopes,
    encode_document_ids,
    local_paths_from_mime,
)
from .document_model import muted_colour, themed_icon

NODE_ROLE = Qt.ItemDataRole.UserRole + 1
"""The node's :class:`FolderTarget`."""
COUNT_ROLE = Qt.ItemDataRole.UserRole + 2
"""``int | None``: the number shown after the node's name (None for scope roots)."""

_AnyIndex = QModelIndex | QPersistentModelIndex
_NO_PARENT = QModelIndex()  # a shared default: Qt's signatures default to the invalid index
_DROP_ACTIONS = Qt.DropAction.CopyAction | Qt.DropAction.MoveAction

SMART_ENTRIES: tuple[tuple[str, str, QStyle.StandardPixmap], ...] = (
    ("all", "All documents", QStyle.StandardPixmap.SP_DirHomeIcon),
    ("unfiled", "Unfiled", QStyle.StandardPixmap.SP_FileIcon),
    ("recent", "Recently added", QStyle.StandardPixmap.SP_FileDialogDetailedView),
    ("unread", "Unread", QStyle.StandardPixmap.SP_FileDialogInfoView),
    ("problems", "Needs OCR / Failed", QStyle.StandardPixmap.SP_MessageBoxWarning),
    ("stale", "Stale results", QStyle.StandardPixmap.SP_BrowserReload),
    ("archived", "Archived", QStyle.StandardPixmap.SP_DialogSaveButton),
    ("trash", "Trash", QStyle.StandardPixmap.SP_TrashIcon),
)
"""(key, label, fallback icon) of the smart entries, in display order."""
SAVED_HEADER = "Saved searches"
"""The node above the saved searches (``FolderTarget("saved", "")``: not selectable)."""


def browsable_scopes(scopes: Sequence[VisibleScope]) -> list[VisibleScope]:
    """The scopes whose documents and folders may be listed: ``scopes`` without the ``results_only`` ones.

    A sibling think process seen through the sibling-results setting shares only its results (which
    search and "All documents" include); browsing it would show its notes too.
    """
    return [s for s in scopes if not s.results_only]


@dataclass(frozen=True)
class FolderTarget:
    """What a tree node stands for.

    Attributes:
        kind: ``smart`` (key: all, unfiled, recent, unread, problems, stale, archived, trash), ``scope`` (key:
            a scope path), ``folder`` (key: a folder id) or ``saved`` (key: a saved search's name; "" for the
            :data:`SAVED_HEADER` node above them).
        key: see ``kind``.
        scope: the scope the node belongs to (for smart entries: the current scope).
        inherited: the node belongs to an ancestor scope (shown read-only).
    """

    kind: Literal["smart", "scope", "folder", "saved"]
    key: str
    scope: str
    inherited: bool = False


@dataclass(eq=False)
class _Node:
    target: FolderTarget
    title: str
    parent: _Node | None = None
    row: int = 0
    own_count: int | None = None
    total_count: int | None = None
    children: list[_Node] = field(default_factory=list)
    icon: str = "folder"
    fallback: QStyle.StandardPixmap = QStyle.StandardPixmap.SP_DirIcon

    def add(self, child: _Node) -> _Node:
        child.parent, child.row = self, len(self.children)
        self.children.append(child)
        return child


class FolderTreeModel(QAbstractItemModel):
    """One column: the smart entries, then one root per visible scope (current first) with nested folders.

    Signals:
        rename_requested(str, str): folder id and the new title typed in place (the title changes when
            the main window reloads).
        documents_dropped(list[str], FolderTarget): ids dropped onto a folder or scope root of their own
            scope (a folder move); a drop on "All documents" reports the current scope's root (= top level).
        scope_move_requested(list[str], FolderTarget): ids dropped onto a scope root or folder of another
            scope of their branch: a promotion or demotion to ``target.scope`` (into the folder, if one).
        files_dropped(list[Path], FolderTarget): local files dropped onto such a target.
        drop_refused(str): one message per dropped item that cannot be imported.
        saved_search_rename_requested(str, str): a saved search's name and the new one typed in place.
    """

    rename_requested = Signal(str, str)
    documents_dropped = Signal(list, object)
    scope_move_requested = Signal(list, object)
    files_dropped = Signal(list, object)
    drop_refused = Signal(str)
    saved_search_rename_requested = Signal(str, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._root = _Node(FolderTarget("smart", "", ""), "")
        self._by_id: dict[int, _Node] = {}
        self._ids: dict[int, int] = {}  # id(node) → internal id: stable ints, never Python pointers
        self._by_key: dict[tuple[str, str], _Node] = {}
        self._current_scope = ""
        self._subfolder_items = True
        self._smart_counts: dict[str, int] = {}
        self._parents: dict[str, str | None] = {}
        self._all_names: dict[str, str] = {}
        self._names: dict[str, str] = {}
        self._agents: frozenset[str] = frozenset()  # the agent scope that runs the current one (``via_agent``)
        self._saved: tuple[str, ...] = ()
        self._built: tuple = ([], [], {}, None)
        self._build([], [], {}, None)

    # -- feeding -------------------------------------------------------------------------------------

    def set_folders(
        self,
        scopes: Sequence[VisibleScope],
        folders: Sequence[FolderNode],
        *,
        scope_names: Mapping[str, str] | None = None,
        current_scope: str | None = None,
    ) -> None:
        """Replace the scope roots and folders (a model reset; see :meth:`index_for` to restore state).

        Args:
            scopes: the scopes the acting scope sees; the current scope is shown first, the others
                nearest first (by ``distance``), marked inherited. Sibling think processes seen only for
                their results (``results_only``) get no node: their notes and folders stay private.
            folders: folders of those scopes; a folder whose parent is unknown hangs under its scope
                root, a folder of an unlisted scope is left out. Siblings are sorted by title.
            scope_names: scope path → human name; a missing path shows its key.
            current_scope: the acting scope's path; default: the scope at distance 0.

        The same scopes, folders and names as shown change nothing: most refreshes of the window bring them
        unchanged, and a reset re-laid out the tree and restored its expansion and selection for nothing.
        """
        built = (list(scopes), list(folders), dict(scope_names or {}), current_scope)
        if built == self._built:
            return
        self.beginResetModel()
        self._build(*built)
        self.endResetModel()

    def smart_count(self, key: str) -> int:
        """The number shown after smart entry ``key`` (0 when unknown)."""
        return self._smart_counts.get(key, 0)

    def set_smart_counts(self, counts: Mapping[str, int]) -> None:
        """Set the numbers after the smart entries (keys of ``services.documents.SMART_VIEWS``)."""
        if dict(counts) == self._smart_counts:
            return
        self._smart_counts = dict(counts)
        smart = [n for n in self._root.children if n.target.kind == "smart"]
        for node in smart:
            node.own_count = node.total_count = self._smart_counts.get(node.target.key, 0)
        if smart:
            self.dataChanged.emit(self._index_of(smart[0]), self._index_of(smart[-1]))

    def set_saved_searches(self, names: Sequence[str]) -> None:
        """Show these saved searches (names, in order) under :data:`SAVED_HEADER`; none hides the header.

        A model reset when the names changed (selection and expansion are kept by the view), else nothing.
        """
        if tuple(names) == self._saved:
            return
        self._saved = tuple(names)
        self.beginResetModel()
        self._build(*self._built)
        self.endResetModel()

    def saved_searches(self) -> tuple[str, ...]:
        """The names of the saved searches shown."""
        return self._saved

    def show_subfolder_items(self, on: bool) -> None:
        """Count folders with (``on``) or without the documents of their subfolders."""
        if on == self._subfolder_items:
            return
        self._subfolder_items = on
        for parent in self._walk(self._root):
            folders = [c for c in parent.children if c.target.kind == "folder"]
            if folders:
                self.dataChanged.emit(self._index_of(folders[0]), self._index_of(folders[-1]))

    def set_scope_parents(self, parents: Mapping[str, str | None], names: Mapping[str, str] | None = None) -> None:
        """Scope path → parent path (and → name) of every scope, to refuse drops across branches early."""
        self._parents = dict(parents)
        self._all_names = dict(names or {})

    def subfolder_items_shown(self) -> bool:
        """Whether folder counts include subfolders."""
        return self._subfolder_items

    def current_scope(self) -> str:
        """The current scope's path ("" before the first :meth:`set_folders`)."""
        return self._current_scope

    def index_for(self, target: FolderTarget) -> QModelIndex:
        """The index of the node with ``target``'s kind and key (invalid if gone), e.g. after a reload."""
        node = self._by_key.get((target.kind, target.key))
        return self._index_of(node) if node is not None else QModelIndex()

    def target(self, index: _AnyIndex) -> FolderTarget | None:
        """The :class:`FolderTarget` of ``index``, or None for an invalid index."""
        node = self._node(index)
        return node.target if node is not None else None

    def targets(self) -> Iterator[FolderTarget]:
        """Every node's target, depth first."""
        return (n.target for n in self._walk(self._root) if n is not self._root)

    def _build(self, scopes: Sequence[VisibleScope], folders: Sequence[FolderNode], names: Mapping[str, str],
               current: str | None) -> None:
        self._built = (scopes, folders, names, current)
        ordered = sorted(browsable_scopes(scopes), key=lambda s: s.distance)
        self._current_scope = current if current is not None else (ordered[0].path if ordered else "")
        self._names = dict(names)
        self._agents = frozenset(s.path for s in scopes if s.via_agent)
        ordered.sort(key=lambda s: s.path != self._current_scope)  # stable: the current scope first
        self._root = _Node(FolderTarget("smart", "", self._current_scope), "")
        for key, label, fallback in SMART_ENTRIES:
            count = self._smart_counts.get(key, 0)
            self._root.add(_Node(FolderTarget("smart", key, self._current_scope), label, own_count=count,
                                 total_count=count, icon=f"smart-{key}", fallback=fallback))
        if self._saved:
            header = self._root.add(_Node(FolderTarget("saved", "", self._current_scope), SAVED_HEADER,
                                          icon="saved-searches", fallback=QStyle.StandardPixmap.SP_DirLinkIcon))
            for name in self._saved:
                header.add(_Node(FolderTarget("saved", name, self._current_scope), name, icon="saved-search",
                                 fallback=QStyle.StandardPixmap.SP_FileDialogContentsView))
        by_parent: dict[tuple[str, str | None], list[FolderNode]] = {}
        scope_of = {f.id: f.scope for f in folders}
        for folder in folders:
            parent = folder.parent_id if scope_of.get(folder.parent_id or "") == folder.scope else None
            by_parent.setdefault((folder.scope, parent), []).append(folder)
        for scope in ordered:
            inherited = scope.path != self._current_scope
            name = names.get(scope.path) or scope.path.partition("/")[2] or scope.path
            root = self._root.add(_Node(FolderTarget("scope", scope.path, scope.path, inherited), name,
                                        icon="agent" if scope.via_agent else "scope",
                                        fallback=QStyle.StandardPixmap.SP_DriveHDIcon))
            self._add_folders(root, by_parent, None)
        self._index_nodes()

    def _add_folders(self, parent: _Node, by_parent: dict[tuple[str, str | None], list[FolderNode]],
                     parent_id: str | None) -> None:
        scope = parent.target.scope
        for folder in sorted(by_parent.pop((scope, parent_id), []), key=lambda f: (f.title.casefold(), f.id)):
            node = parent.add(_Node(FolderTarget("folder", folder.id, scope, parent.target.inherited), folder.title,
                                    own_count=folder.own_count, total_count=folder.total_count))
            # pop() above means a folder cycle in bad data ends instead of recursing forever.
            self._add_folders(node, by_parent, folder.id)

    def _index_nodes(self) -> None:
        self._by_id.clear()
        self._ids.clear()
        self._by_key.clear()
        for number, node in enumerate(self._walk(self._root)):
            self._by_id[number] = node
            self._ids[id(node)] = number
            self._by_key[(node.target.kind, node.target.key)] = node

    def _walk(self, node: _Node) -> Iterator[_Node]:
        yield node
        for child in node.children:
            yield from self._walk(child)

    # -- Qt model API --------------------------------------------------------------------------------

    def _node(self, index: _AnyIndex) -> _Node | None:
        if not index.isValid() or index.model() is not self:
            return None
        return self._by_id.get(index.internalId())

    def _index_of(self, node: _Node) -> QModelIndex:
        if node is self._root:
            return QModelIndex()
        return self.createIndex(node.row, 0, self._ids[id(node)])

    def index(self, row: int, column: int, parent: _AnyIndex = _NO_PARENT) -> QModelIndex:
        node = self._node(parent) if parent.isValid() else self._root
        if node is None or column != 0 or not 0 <= row < len(node.children):
            return QModelIndex()
        return self._index_of(node.children[row])

    def parent(self, index: _AnyIndex = _NO_PARENT) -> QModelIndex:  # type: ignore[override]
        node = self._node(index)
        if node is None or node.parent is None:
            return QModelIndex()
        return self._index_of(node.parent)

    def rowCount(self, parent: _AnyIndex = _NO_PARENT) -> int:
        if parent.isValid() and parent.column() != 0:
            return 0
        node = self._node(parent) if parent.isValid() else self._root
        return len(node.children) if node is not None else 0

    def columnCount(self, parent: _AnyIndex = _NO_PARENT) -> int:
        return 1

    def hasChildren(self, parent: _AnyIndex = _NO_PARENT) -> bool:
        return self.rowCount(parent) > 0

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if section == 0 and orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return "Folders"
        return None

    def data(self, index: _AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        node = self._node(index)
        if node is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            count = self._count(node)
            return f"{node.title}  {count}" if count else node.title
        if role == Qt.ItemDataRole.EditRole:
            return node.title
        if role == NODE_ROLE:
            return node.target
        if role == COUNT_ROLE:
            return self._count(node)
        if role == Qt.ItemDataRole.DecorationRole:
            return self._icon(node)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(node)
        if role == Qt.ItemDataRole.FontRole:
            return self._font(node)
        if role == Qt.ItemDataRole.ForegroundRole and node.target.inherited:
            return QBrush(muted_colour())
        return None

    def _count(self, node: _Node) -> int | None:
        return node.total_count if self._subfolder_items or node.target.kind == "smart" else node.own_count

    def _icon(self, node: _Node) -> QIcon:
        return themed_icon(node.icon, node.fallback)

    def _font(self, node: _Node) -> QFont | None:
        header = node.target.kind == "saved" and not node.target.key
        if not (node.target.inherited or node.target.kind == "scope" or header):
            return None
        font = QFont()
        font.setItalic(node.target.inherited)
        font.setBold((node.target.kind == "scope" and not node.target.inherited) or header)
        return font

    def _tooltip(self, node: _Node) -> str:
        target = node.target
        if target.kind == "saved":
            return (f"Saved search {node.title!r}: run again whenever the library changes" if target.key
                    else "Searches kept under a name (save one from the search pane or `vancetope search save`)")
        if target.kind == "smart":
            return f"{node.title} in {target.scope}" if target.scope else node.title
        where = target.scope if target.kind == "folder" else target.key
        text = f"{node.title} — {where}"
        if target.kind == "folder":
            text += f"\n{node.own_count or 0} directly inside, {node.total_count or 0} with subfolders"
        if target.inherited and (target.key if target.kind == "scope" else target.scope) in self._agents:
            text += "\nthe memory of the agent that runs this scope: read-only here"
        elif target.inherited:
            text += "\ninherited from an ancestor scope: read-only here"
        return text

    def flags(self, index: _AnyIndex) -> Qt.ItemFlag:
        node = self._node(index)
        if node is None:
            return Qt.ItemFlag.NoItemFlags
        if node.target.kind == "saved":
            if not node.target.key:  # the header only groups them
                return Qt.ItemFlag.ItemIsEnabled
            return (Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEditable
                    | Qt.ItemFlag.ItemNeverHasChildren)
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if self._takes_documents(node):
            flags |= Qt.ItemFlag.ItemIsDropEnabled
        if node.target.kind == "folder" and not node.target.inherited:
            flags |= Qt.ItemFlag.ItemIsDragEnabled | Qt.ItemFlag.ItemIsEditable
        if not node.children:
            flags |= Qt.ItemFlag.ItemNeverHasChildren
        return flags

    def setData(self, index: _AnyIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """Renaming in place: emits :attr:`rename_requested`; the title itself changes on the next reload."""
        node = self._node(index)
        if role != Qt.ItemDataRole.EditRole or node is None or not (self.flags(index) & Qt.ItemFlag.ItemIsEditable):
            return False
        # Qt's own drag code may "clear" items with None; only real, changed text is a rename.
        if not isinstance(value, str) or not value.strip() or value.strip() == node.title:
            return False
        renamed = self.saved_search_rename_requested if node.target.kind == "saved" else self.rename_requested
        renamed.emit(node.target.key, value.strip())
        return True

    # -- drag and drop -------------------------------------------------------------------------------

    def _takes_files(self, node: _Node) -> bool:
        # Imports and folder moves go into the current scope only.
        target = node.target
        if target.inherited or not self._current_scope:
            return False
        return target.kind in ("scope", "folder") or (target.kind == "smart" and target.key == "all")

    def _takes_documents(self, node: _Node) -> bool:
        # Any scope root or folder may take documents from another scope of its branch (a scope move).
        target = node.target
        if not self._current_scope:
            return False
        return target.kind in ("scope", "folder") or (target.kind == "smart" and target.key == "all")

    def _drop_node(self, row: int, parent: _AnyIndex) -> _Node | None:
        # A drop between rows means "into their parent"; the top level holds nothing droppable.
        node = self._node(parent)
        if node is None or not self._takes_documents(node):
            return None
        if node.target.kind == "smart":  # "All documents" = top level of the current scope
            return self._by_key.get(("scope", self._current_scope))
        return node

    def drop_refusal(self, data: QMimeData, index: _AnyIndex) -> str | None:
        """Why documents in ``data`` cannot be dropped on ``index``, to tell the user during the drag.

        None when they can, when ``data`` holds no documents, or when ``index`` is no drop target at all.
        """
        node = self._drop_node(-1, index)
        ids = decode_document_ids(data)
        return self._document_refusal(node, ids, decode_source_scopes(data)) if node is not None and ids else None

    def _document_refusal(self, node: _Node, ids: list[str], sources: list[str]) -> str | None:
        target = node.target
        if self._inside_any(node, set(ids)):
            return "A folder cannot go into itself or one of its subfolders"
        refusal = branch_refusal(self._parents, sources, target.scope, {**self._all_names, **self._names})
        if refusal is not None:
            return refusal
        # An ancestor's folders are read-only here: it takes only documents that change scope.
        if target.inherited and all(s == target.scope for s in sources):
            name = self._names.get(target.scope, target.scope)
            return f"{name} is an ancestor scope: its folders are read-only here"
        return None

    def supportedDropActions(self) -> Qt.DropAction:
        return _DROP_ACTIONS

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def mimeTypes(self) -> list[str]:
        return [DOCUMENT_MIME, URI_LIST_MIME, "text/plain"]

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        """The ids of the draggable folders among ``indexes`` as :data:`DOCUMENT_MIME`."""
        nodes = [self._node(i) for i in indexes]
        return encode_document_ids(
            n.target.key for n in nodes if n is not None and n.target.kind == "folder" and not n.target.inherited
        )

    def canDropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: _AnyIndex) -> bool:
        if not action & _DROP_ACTIONS:
            return False
        node = self._drop_node(row, parent)
        if node is None:
            return False
        ids = decode_document_ids(data)
        if ids:
            return self._document_refusal(node, ids, decode_source_scopes(data)) is None
        if not self._takes_files(node):
            return False
        paths, refused = local_paths_from_mime(data)
        return bool(paths or refused)

    def _inside_any(self, node: _Node | None, ids: set[str]) -> bool:
        # A folder cannot move into itself or below itself.
        while node is not None:
            if node.target.kind == "folder" and node.target.key in ids:
                return True
            node = node.parent
        return False

    def dropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: _AnyIndex) -> bool:
        """Report a drop with :attr:`documents_dropped` / :attr:`scope_move_requested` / :attr:`files_dropped`
        / :attr:`drop_refused`.

        Signals are emitted on the next event-loop turn, so a slot opening a dialog does not run inside
        the platform's drag loop. Returns whether anything usable was dropped.
        """
        if not self.canDropMimeData(data, action, row, column, parent):
            return False
        node = self._drop_node(row, parent)
        assert node is not None  # canDropMimeData checked it
        target = node.target
        ids = decode_document_ids(data)
        if ids:
            sources = decode_source_scopes(data)
            signal = self.scope_move_requested if any(s != target.scope for s in sources) else self.documents_dropped
            QTimer.singleShot(0, self, lambda: signal.emit(ids, target))
            return True
        paths, refused = local_paths_from_mime(data)
        for message in refused:
            QTimer.singleShot(0, self, lambda m=message: self.drop_refused.emit(m))
        if paths:
            QTimer.singleShot(0, self, lambda: self.files_dropped.emit(paths, target))
        return bool(paths)
