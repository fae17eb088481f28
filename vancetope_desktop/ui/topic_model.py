"""The Topics window's item models (issue 14): a scope's topic tree with its ancestors' trees, and a topic's atoms.

:class:`TopicTreeModel` shows one top-level row per tree (its root, named after its scope: the window's scope's
first, then its ancestors', marked inherited and read-only) with the topics below, and two counts: the atoms
attached to a topic itself and those of its whole subtree. It holds the services' immutable
:class:`~..core.topics.Topic` cards, addressed by id; it never calls a service: renames typed in place and
drops are reported by signals that the window turns into workbench calls. Atoms dragged from
:class:`TopicAtomsModel` travel as ids (:data:`~.dnd.ATOM_MIME`, with the topic they leave in
:data:`~.dnd.FROM_TOPIC_MIME`); topics dragged in the tree as :data:`~.dnd.TOPIC_MIME`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QMimeData,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QBrush, QFont
from PySide6.QtGui import Qt as QtGuiNamespace

from ..core.atoms import Atom
from ..core.topics import Topic, TopicTree
from ..services.topics import TopicSource
from .atoms_view import AtomsModel
from .dnd import ATOM_MIME, FROM_TOPIC_MIME, TOPIC_MIME, decode_document_ids, encode_document_ids
from .document_model import muted_colour, type_icon
from .item_models import CardTableModel, column_title

TOPIC_ROLE = Qt.ItemDataRole.UserRole + 1
"""The row's topic id (``str``)."""
FILTER_ROLE = Qt.ItemDataRole.UserRole + 2
"""The text the filter box matches: the label and the surface words."""

_AnyIndex = QModelIndex | QPersistentModelIndex
_NO_PARENT = QModelIndex()
_DROP_ACTIONS = Qt.DropAction.CopyAction | Qt.DropAction.MoveAction


@dataclass(eq=False)
class _Node:
    topic: Topic | None
    inherited: bool = False
    scope_name: str = ""
    parent: _Node | None = None
    row: int = 0
    children: list[_Node] = field(default_factory=list)

    def add(self, child: _Node) -> _Node:
        child.parent, child.row = self, len(self.children)
        self.children.append(child)
        return child


class TopicTreeModel(QAbstractItemModel):
    """Columns: the topic's label, its own atoms, its subtree's atoms. ``TOPIC_ROLE`` of any cell is the topic id.

    Signals:
        rename_requested(str, str): a topic's id and the label typed in place (the label changes on the reload).
        atoms_dropped(list[str], object, str): atom ids dropped on a topic: the topic they came from (None when
            unknown) and the topic they go to.
        topic_move_requested(list[str], str): topic ids dropped on a topic of the same tree: their new parent.
    """

    HEADERS = ("Topic", "Own", "Subtree")
    rename_requested = Signal(str, str)
    atoms_dropped = Signal(list, object, str)
    topic_move_requested = Signal(list, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._root = _Node(None)
        self._by_number: dict[int, _Node] = {}
        self._numbers: dict[int, int] = {}  # id(node) → internal id: stable ints, never Python pointers
        self._by_topic: dict[str, _Node] = {}
        self._trees: list[TopicTree] = []

    # -- feeding -------------------------------------------------------------------------------------
    def set_trees(self, trees: Sequence[TopicTree], current_scope: str,
                  scope_names: Mapping[str, str] | None = None) -> None:
        """Show ``trees`` (a model reset): the tree of ``current_scope`` first, the others (its ancestors', nearest
        first) marked inherited. A tree without a root (no tree yet) is left out; each tree's topics hang below
        their parents, in the order given (the services list them depth-first in label order), a topic whose
        parent is unknown under the root."""
        self.beginResetModel()
        self._root = _Node(None)
        self._trees = [t for t in trees if t.root_id is not None]
        self._trees.sort(key=lambda t: t.scope != current_scope)  # stable: the window's scope's tree first
        names = scope_names or {}
        for tree in self._trees:
            inherited = tree.scope != current_scope
            name = names.get(tree.scope) or tree.scope
            nodes: dict[str, _Node] = {}
            root = next((t for t in tree.topics if t.id == tree.root_id), None)
            if root is None:
                continue
            nodes[root.id] = self._root.add(_Node(root, inherited, name))
            for topic in tree.topics:
                if topic.id in nodes:
                    continue
                parent = nodes.get(topic.parent_id or "", nodes[root.id])
                nodes[topic.id] = parent.add(_Node(topic, inherited, name))
        self._index_nodes()
        self.endResetModel()

    def trees(self) -> list[TopicTree]:
        """The trees shown (the window's scope's first)."""
        return list(self._trees)

    def topic(self, index: _AnyIndex) -> Topic | None:
        """The topic of ``index`` (any column), or None."""
        node = self._node(index)
        return node.topic if node is not None else None

    def topic_by_id(self, topic_id: str) -> Topic | None:
        """The topic ``topic_id`` shown, or None."""
        node = self._by_topic.get(topic_id)
        return node.topic if node is not None else None

    def is_inherited(self, topic_id: str) -> bool:
        """Whether ``topic_id`` belongs to an ancestor's tree (read-only here)."""
        node = self._by_topic.get(topic_id)
        return node is not None and node.inherited

    def index_for(self, topic_id: str, column: int = 0) -> QModelIndex:
        """The index of topic ``topic_id`` (invalid when it is not shown), e.g. to select it again after a reload."""
        node = self._by_topic.get(topic_id)
        return self._index_of(node, column) if node is not None else QModelIndex()

    def editable(self, topic_id: str) -> bool:
        """Whether a person may rename, merge, split, move or delete ``topic_id`` here: a topic of the window's
        scope's tree that is not its root (the root stands for the tree)."""
        node = self._by_topic.get(topic_id)
        return node is not None and node.topic is not None and not node.inherited and not node.topic.is_root

    def _index_nodes(self) -> None:
        self._by_number.clear()
        self._numbers.clear()
        self._by_topic.clear()
        stack = list(reversed(self._root.children))
        number = 0
        while stack:
            node = stack.pop()
            self._by_number[number], self._numbers[id(node)] = node, number
            if node.topic is not None:
                self._by_topic[node.topic.id] = node
            number += 1
            stack.extend(reversed(node.children))

    # -- Qt model API --------------------------------------------------------------------------------
    def _node(self, index: _AnyIndex) -> _Node | None:
        if not index.isValid() or index.model() is not self:
            return None
        return self._by_number.get(index.internalId())

    def _index_of(self, node: _Node, column: int = 0) -> QModelIndex:
        if node is self._root:
            return QModelIndex()
        return self.createIndex(node.row, column, self._numbers[id(node)])

    def index(self, row: int, column: int, parent: _AnyIndex = _NO_PARENT) -> QModelIndex:
        node = self._node(parent) if parent.isValid() else self._root
        if node is None or not 0 <= column < len(self.HEADERS) or not 0 <= row < len(node.children):
            return QModelIndex()
        return self._index_of(node.children[row], column)

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
        return len(self.HEADERS)

    def hasChildren(self, parent: _AnyIndex = _NO_PARENT) -> bool:
        return self.rowCount(parent) > 0

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole and section:
            return ("Atoms attached to the topic itself", "Atoms in the topic and every topic below it")[section - 1]
        return column_title(self.HEADERS, section, orientation, role)

    def data(self, index: _AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        node = self._node(index)
        if node is None or node.topic is None:
            return None
        topic, column = node.topic, index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            label = node.scope_name if topic.is_root else topic.label
            return (label, str(topic.own_atoms) if topic.own_atoms else "", str(topic.atoms))[column]
        if role == Qt.ItemDataRole.EditRole and column == 0:
            return topic.label
        if role == TOPIC_ROLE:
            return topic.id
        if role == FILTER_ROLE:
            return " ".join([topic.label, *topic.keywords])
        if role == Qt.ItemDataRole.TextAlignmentRole and column:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.DecorationRole and column == 0:
            return type_icon("topic")
        if role == Qt.ItemDataRole.ToolTipRole:
            return topic_tooltip(topic, node.scope_name, inherited=node.inherited)
        if role == Qt.ItemDataRole.FontRole and (node.inherited or topic.is_root or topic.pinned):
            font = QFont()
            font.setItalic(node.inherited)
            font.setBold(topic.is_root and not node.inherited)
            font.setUnderline(bool(topic.pinned) and column == 0 and not topic.is_root)
            return font
        if role == Qt.ItemDataRole.ForegroundRole and (node.inherited or column):
            return QBrush(muted_colour())
        return None

    def flags(self, index: _AnyIndex) -> Qt.ItemFlag:
        node = self._node(index)
        if node is None or node.topic is None:
            return Qt.ItemFlag.NoItemFlags
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if not node.inherited:
            flags |= Qt.ItemFlag.ItemIsDropEnabled
            if not node.topic.is_root:
                flags |= Qt.ItemFlag.ItemIsDragEnabled
                if index.column() == 0:
                    flags |= Qt.ItemFlag.ItemIsEditable
        if not node.children:
            flags |= Qt.ItemFlag.ItemNeverHasChildren
        return flags

    def setData(self, index: _AnyIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        """Renaming in place: emits :attr:`rename_requested`; the label itself changes on the next reload."""
        node = self._node(index)
        if role != Qt.ItemDataRole.EditRole or node is None or node.topic is None \
                or not (self.flags(index) & Qt.ItemFlag.ItemIsEditable):
            return False
        # Qt's own drag code may "clear" items with None; only real, changed text is a rename.
        if not isinstance(value, str) or not value.strip() or value.strip() == node.topic.label:
            return False
        self.rename_requested.emit(node.topic.id, value.strip())
        return True

    # -- drag and drop -------------------------------------------------------------------------------
    def supportedDropActions(self) -> Qt.DropAction:
        return _DROP_ACTIONS

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def mimeTypes(self) -> list[str]:
        return [ATOM_MIME, TOPIC_MIME]

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        """The ids of the draggable topics among ``indexes`` as :data:`TOPIC_MIME`."""
        nodes = [self._node(i) for i in indexes]
        return encode_document_ids((n.topic.id for n in nodes if n is not None and n.topic is not None
                                    and not n.inherited and not n.topic.is_root), TOPIC_MIME)

    def drop_refusal(self, data: QMimeData, index: _AnyIndex) -> str | None:
        """Why ``data`` cannot be dropped on ``index`` (to say during the drag), None when it can or holds nothing
        of ours."""
        node = self._node(index)
        atoms, topics = decode_document_ids(data, ATOM_MIME), decode_document_ids(data, TOPIC_MIME)
        if not atoms and not topics:
            return None
        if node is None or node.topic is None:
            return "Drop on a topic"
        if node.inherited:
            return f"{node.scope_name}'s tree belongs to an ancestor scope: read-only here"
        if atoms and node.topic.is_root:
            return "The root stands for the whole tree: drop the atoms on one of its topics"
        if atoms and decode_document_ids(data, FROM_TOPIC_MIME) == [node.topic.id]:
            return "The atoms are in this topic already"
        if topics:
            walker: _Node | None = node
            while walker is not None and walker.topic is not None:
                if walker.topic.id in topics:
                    return "A topic cannot go into itself or one of its subtopics"
                walker = walker.parent
            if any(self._tree_of(t) != self._tree_of(node.topic.id) for t in topics):
                return "A topic moves only within its own tree"
        return None

    def _tree_of(self, topic_id: str) -> str | None:
        node = self._by_topic.get(topic_id)
        while node is not None and node.parent is not None and node.parent is not self._root:
            node = node.parent
        return node.topic.id if node is not None and node.topic is not None else None

    def canDropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int,
                        parent: _AnyIndex) -> bool:
        if not action & _DROP_ACTIONS or not (data.hasFormat(ATOM_MIME) or data.hasFormat(TOPIC_MIME)):
            return False
        # A drop between rows lands on their parent: there is no order among topics to set.
        return self._node(parent) is not None and self.drop_refusal(data, parent) is None

    def dropMimeData(self, data: QMimeData, action: Qt.DropAction, row: int, column: int, parent: _AnyIndex) -> bool:
        """Report a drop with :attr:`atoms_dropped` or :attr:`topic_move_requested`, on the next event-loop turn
        (a slot that asks something must not run inside the platform's drag loop)."""
        if not self.canDropMimeData(data, action, row, column, parent):
            return False
        node = self._node(parent)
        assert node is not None and node.topic is not None  # canDropMimeData checked it
        target = node.topic.id
        atoms = decode_document_ids(data, ATOM_MIME)
        if atoms:
            origin = next(iter(decode_document_ids(data, FROM_TOPIC_MIME)), None)
            QTimer.singleShot(0, self, lambda: self.atoms_dropped.emit(atoms, origin, target))
        else:
            topics = decode_document_ids(data, TOPIC_MIME)
            QTimer.singleShot(0, self, lambda: self.topic_move_requested.emit(topics, target))
        return True


def topic_tooltip(topic: Topic, scope_name: str = "", *, inherited: bool = False) -> str:
    """What hovering a topic says (the tree's rows and the map's tiles): its label or path, counts, surface words,
    summary, what a person pinned, and whether it is read-only here."""
    lines = [scope_name + "'s topic tree" if topic.is_root else " › ".join(topic.path) or topic.label]
    lines.append(f"{topic.atoms} atom{'s' if topic.atoms != 1 else ''}"
                 + (f" ({topic.own_atoms} in this topic itself)" if topic.own_atoms and topic.children else ""))
    if topic.keywords:
        lines.append("Words: " + ", ".join(topic.keywords[:12]))
    if topic.summary:
        lines.append(topic.summary)
    if topic.pinned:
        lines.append("Set by hand (the digest keeps it): " + ", ".join(topic.pinned))
    if inherited:
        lines.append(f"From {scope_name}, an ancestor scope: read-only here")
    tip = "\n".join(lines)
    # A label is plain text: one Qt would take for markup ("<b>Herons</b>") is shown escaped, as its letters.
    if QtGuiNamespace.mightBeRichText(tip):
        return "<qt>" + "<br>".join(escape(line) for line in lines) + "</qt>"
    return tip


class TopicFilterProxy(QSortFilterProxyModel):
    """The tree filtered by the filter box: topics whose label or surface words contain the text (any case), with
    their ancestors (to reach them) and their subtopics."""

    def __init__(self, source: TopicTreeModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setSourceModel(source)
        self.setFilterRole(FILTER_ROLE)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setRecursiveFilteringEnabled(True)
        self.setAutoAcceptChildRows(True)


class TopicAtomsModel(AtomsModel):
    """A topic's atoms (its subtopics' too): kind, statement, source (as the Atoms window shows them, its tooltips
    too) and page. Rows drag as :data:`~.dnd.ATOM_MIME` ids, with the topic they are listed under when they are all
    its own (an atom of a subtopic leaves every topic of the tree it is dropped in: ``topics.move_atom``)."""

    HEADERS = ("Kind", "Statement", "Source", "Page")
    SHOWN = (0, 3, 4)
    """The Atoms window's columns (:class:`~.atoms_view.AtomsModel`) shown here, in this order; then the page."""
    PAGE_COLUMN = 3

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.topic_id: str | None = None
        self.own_ids: set[str] = set()
        self.draggable = False

    def set_topic(self, topic_id: str | None, found: Sequence[Atom], own_ids: set[str], *, draggable: bool) -> None:
        """Show ``found``, the atoms of ``topic_id``'s subtree, of which ``own_ids`` are attached to the topic itself;
        ``draggable``: they may be dragged to another topic (a topic of the window's scope's tree)."""
        self.topic_id, self.own_ids, self.draggable = topic_id, set(own_ids), draggable
        self.set_items(found)

    def data(self, index: _AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if index.column() != self.PAGE_COLUMN:
            return super().data(self.createIndex(index.row(), self.SHOWN[index.column()]), role)
        found = self._items[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return str(found.span.page) if found.span is not None and found.span.page else ""
        if role == Qt.ItemDataRole.UserRole:
            return found.id
        if role == Qt.ItemDataRole.TextAlignmentRole:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def flags(self, index: _AnyIndex) -> Qt.ItemFlag:
        flags = super().flags(index)
        return flags | Qt.ItemFlag.ItemIsDragEnabled if index.isValid() and self.draggable else flags

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.MoveAction

    def mimeTypes(self) -> list[str]:
        return [ATOM_MIME]

    def mimeData(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        """The atoms of the rows among ``indexes`` (:data:`~.dnd.ATOM_MIME`) and the topic they leave, when it holds
        them all itself."""
        ids = [self._items[i.row()].id for i in indexes if i.isValid()]
        mime = encode_document_ids(ids, ATOM_MIME)
        if self.topic_id and set(ids) <= self.own_ids:
            mime.setData(FROM_TOPIC_MIME, self.topic_id.encode("utf-8"))
        return mime


class TopicSourcesModel(CardTableModel):
    """The sources a topic's atoms were read from (its subtree's, most atoms first): title, atoms. ``Qt.UserRole``
    is the source's id (None for a source since deleted: nothing to open)."""

    HEADERS = ("Source", "Atoms")

    def data(self, index: _AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        source: TopicSource = self._items[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return ("source gone" if source.gone else source.title, str(source.atoms))[index.column()]
        if role == Qt.ItemDataRole.UserRole:
            return None if source.gone else source.document_id
        if role == Qt.ItemDataRole.DecorationRole and index.column() == 0 and not source.gone:
            return type_icon("file")
        if role == Qt.ItemDataRole.ToolTipRole:
            return (f"{source.document_id} was deleted; its atoms keep their text" if source.gone
                    else f"{source.title}: {source.atoms} of the topic's atoms were read from it (double-click: open)")
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() == 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and source.gone:
            return QBrush(muted_colour())
        return None
