"""Read-only item models for data files: a table over CSV rows and a lazy tree over JSON/YAML values.

Both hold plain Python values (no file handles, no ORM objects) and pass ``qtmodeltester``.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractItemModel, QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from ..item_models import column_title
from .data_files import Table

_Index = QModelIndex | QPersistentModelIndex
MAX_CHILDREN = 10_000
"""Children listed per tree node; the rest are summarised in one "… N more" row."""
_MAX_CELL_CHARS = 300
_PEEK_CHARS = 160


class TableModel(QAbstractTableModel):
    """Rows of a :class:`~.data_files.Table`; header row as horizontal headers, 1-based row numbers."""

    def __init__(self, table: Table, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._header = table.header
        self._rows = table.rows

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._header)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        value = self._rows[index.row()][index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return value if len(value) <= _MAX_CELL_CHARS else value[:_MAX_CELL_CHARS] + "…"
        if role == Qt.ItemDataRole.ToolTipRole and len(value) > 40:
            return value
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return self._header[section] if 0 <= section < len(self._header) else None
        return str(section + 1) if 0 <= section < len(self._rows) else None


def _type_name(value: Any) -> str:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "list"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "text" if isinstance(value, str) else type(value).__name__


def _summary(value: Any) -> str:
    if isinstance(value, dict):
        count = f"{{{len(value):,} keys}}" if len(value) != 1 else "{1 key}"
        # A peek at the scalar fields tells list items apart ("type: Feature · id: ak0181")
        peek = " · ".join(f"{k}: {v}" for k, v in list(value.items())[:8] if not isinstance(v, dict | list))
        return f"{count}  {peek[:_PEEK_CHARS]}" if peek else count
    if isinstance(value, list):
        return f"[{len(value):,} items]" if len(value) != 1 else "[1 item]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value)
    return text if len(text) <= _MAX_CELL_CHARS else text[:_MAX_CELL_CHARS] + "…"


class _Node:
    """One key/value of the tree; children are built the first time they are asked for."""

    __slots__ = ("_children", "key", "parent", "row", "value")

    def __init__(self, key: str, value: Any, parent: _Node | None, row: int) -> None:
        self.key, self.value, self.parent, self.row = key, value, parent, row
        self._children: list[_Node] | None = None

    def children(self) -> list[_Node]:
        if self._children is None:
            items: list[tuple[str, Any]]
            if isinstance(self.value, dict):
                items = [(str(k), v) for k, v in self.value.items()]
            elif isinstance(self.value, list):
                items = [(f"[{i}]", v) for i, v in enumerate(self.value)]
            else:
                items = []
            kept = items[:MAX_CHILDREN]
            self._children = [_Node(key, value, self, row) for row, (key, value) in enumerate(kept)]
            if len(items) > MAX_CHILDREN:
                self._children.append(_Node("…", f"{len(items) - MAX_CHILDREN:,} more not shown", self, len(kept)))
        return self._children

    def has_children(self) -> bool:
        return isinstance(self.value, dict | list) and bool(self.value)


class TreeModel(QAbstractItemModel):
    """A JSON/YAML value as a tree with columns Key, Value, Type.

    Containers show a summary ("{3 keys}", "[12 items]") as their value; long text is cut for display
    and given whole as a tooltip. Children are created lazily, so a 50 000-item GeoJSON opens quickly.
    """

    COLUMNS = ("Key", "Value", "Type")

    def __init__(self, value: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._root = _Node("", value, None, 0)
        if not isinstance(value, dict | list):  # a bare scalar document: show it as one row
            self._root = _Node("", {"(value)": value}, None, 0)

    def _node(self, index: _Index) -> _Node:
        return index.internalPointer() if index.isValid() else self._root

    def index(self, row: int, column: int, parent: _Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        return self.createIndex(row, column, self._node(parent).children()[row])

    def parent(self, *args: Any) -> Any:  # type: ignore[override]
        """``parent(index)`` is the model's; ``parent()`` with no argument is QObject's."""
        if not args:
            return super().parent()
        index = args[0]
        if not index.isValid():
            return QModelIndex()
        node = index.internalPointer().parent
        if node is None or node is self._root:
            return QModelIndex()
        return self.createIndex(node.row, 0, node)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self._node(parent).children())

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return len(self.COLUMNS)

    def hasChildren(self, parent: _Index = QModelIndex()) -> bool:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return False
        return self._node(parent).has_children()

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        node: _Node = index.internalPointer()
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (node.key, _summary(node.value), _type_name(node.value))[column]
        if role == Qt.ItemDataRole.ToolTipRole and column == 1 and isinstance(node.value, str) and len(node.value) > 60:
            return node.value[:4000]
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        return column_title(self.COLUMNS, section, orientation, role)
