"""The tag pane (like Zotero's tag selector): a filterable, checkable tree of the library's tags.

Checked tags filter the document list; the context menu asks for renames, merges, colours and
deletions. The pane only emits requests: the main window runs ``services.tags`` off the UI thread
and feeds the new counts back with :meth:`TagPane.set_tags`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QAction, QColor, QFont, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QColorDialog,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLineEdit,
    QMenu,
    QMessageBox,
    QPushButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from ..core.errors import InvalidInput
from ..core.tags import normalize_tag
from .item_models import column_title
from .tag_chips import tag_color

if TYPE_CHECKING:
    from ..services.tags import TagCount

TAG_ROLE = Qt.ItemDataRole.UserRole + 1
"""Full tag path of a row (``"topic/attention"``), in either column."""

OWN_ROLE = Qt.ItemDataRole.UserRole + 2
"""Documents carrying exactly the row's tag (int)."""

MATCH_MODES = ("all", "any")

_Index = QModelIndex | QPersistentModelIndex


@dataclass(eq=False)
class _Node:
    """One level of the tag tree; ``total`` is None for a level no TagCount described."""

    key: int
    path: str
    name: str
    parent: _Node | None
    own: int = 0
    total: int | None = None
    color: str | None = None
    children: list[_Node] = field(default_factory=list)

    def row(self) -> int:
        return self.parent.children.index(self) if self.parent is not None else 0


class TagTreeModel(QAbstractItemModel):
    """Tags as a tree split on ``/``: column 0 the last segment (checkable), column 1 the ``total`` count.

    Roles: DisplayRole (segment / count), ToolTipRole (``#full/path`` and counts), DecorationRole
    (a colour swatch on column 0), CheckStateRole (checked = used to filter), :data:`TAG_ROLE`,
    :data:`OWN_ROLE`. Indexes carry an integer node key, not a Python object, so a stale index can
    never reach a freed node.
    """

    checked_changed = Signal()
    """The set of checked tags changed (by the user or by code)."""

    COLUMNS = ("Tag", "Docs")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._keys = itertools.count(1)
        self._root = _Node(0, "", "", None)
        self._nodes: dict[int, _Node] = {}
        self._by_path: dict[str, _Node] = {}
        self._checked: dict[str, None] = {}  # insertion-ordered: the order the user checked them
        self._colors: dict[str, str] = {}
        self._swatches: dict[str, QIcon] = {}
        self._bold: QFont | None = None  # made on first use: a QFont needs a QGuiApplication
        self._shown: list[tuple[str, int, int, str | None]] | None = None  # the last set_tags, as compared

    # data in

    def set_tags(self, counts: Iterable[TagCount]) -> None:
        """Replace the tree with these tags (objects with ``tag``, ``own``, ``total``, ``color``).

        Missing parent levels are created (count shown empty). Checked tags that still exist stay
        checked; ``checked_changed`` is emitted when some disappeared. The same tags and counts as shown
        change nothing (most refreshes of the window bring them unchanged; a reset collapsed nothing but
        repainted and re-laid out the tree).
        """
        counts = list(counts)
        shown = [(c.tag, int(c.own), int(c.total), c.color) for c in counts]
        if shown == self._shown:
            return
        self._shown = shown
        root = _Node(0, "", "", None)
        nodes: dict[int, _Node] = {}
        by_path: dict[str, _Node] = {}
        colors: dict[str, str] = {}
        for count in counts:
            node = self._ensure(root, nodes, by_path, count.tag)
            node.own, node.total, node.color = int(count.own), int(count.total), count.color
            if count.color:
                colors[count.tag] = count.color
        for node in by_path.values():
            node.children.sort(key=lambda n: n.name)
        root.children.sort(key=lambda n: n.name)
        kept = {t: None for t in self._checked if t in by_path}
        self.beginResetModel()
        self._root, self._nodes, self._by_path, self._colors = root, nodes, by_path, colors
        self._swatches.clear()
        lost = len(kept) != len(self._checked)
        self._checked = kept
        self.endResetModel()
        if lost:
            self.checked_changed.emit()

    def _ensure(self, root: _Node, nodes: dict[int, _Node], by_path: dict[str, _Node], tag: str) -> _Node:
        parent, path = root, ""
        for segment in tag.split("/"):
            path = f"{path}/{segment}" if path else segment
            node = by_path.get(path)
            if node is None:
                node = _Node(next(self._keys), path, segment, parent)
                parent.children.append(node)
                nodes[node.key] = node
                by_path[path] = node
            parent = node
        return parent

    # checked tags

    def checked_tags(self) -> list[str]:
        """Checked tag paths, in the order they were checked."""
        return list(self._checked)

    def set_checked(self, tag: str, checked: bool) -> bool:
        """Check or uncheck a tag by path; returns False when the tree has no such tag."""
        node = self._by_path.get(tag)
        if node is None:
            return False
        if checked == (tag in self._checked):
            return True
        if checked:
            self._checked[tag] = None
        else:
            del self._checked[tag]
        self._announce_checked(tag)
        self.checked_changed.emit()
        return True

    def set_checked_tags(self, tags: Iterable[str]) -> None:
        """Check exactly these tags (unknown ones are skipped); one ``checked_changed`` at most."""
        wanted = {t: None for t in tags if t in self._by_path}
        if list(wanted) == list(self._checked):
            return
        touched = set(wanted) ^ set(self._checked)
        self._checked = wanted
        for tag in touched:
            self._announce_checked(tag)
        self.checked_changed.emit()

    def _announce_checked(self, tag: str) -> None:
        first, last = self.index_of(tag, 0), self.index_of(tag, len(self.COLUMNS) - 1)
        self.dataChanged.emit(first, last, [Qt.ItemDataRole.CheckStateRole, Qt.ItemDataRole.FontRole])

    def clear_checked(self) -> None:
        """Uncheck every tag (one ``checked_changed`` at most)."""
        self.set_checked_tags([])

    # lookups

    def tags(self) -> list[str]:
        """Every tag path in the tree, parents before children."""
        return list(self._by_path)

    def colors(self) -> dict[str, str]:
        """Configured colours ``{tag: "#rrggbb"}`` from the last :meth:`set_tags`."""
        return dict(self._colors)

    def index_of(self, tag: str, column: int = 0) -> QModelIndex:
        """The index of a tag path (invalid when absent)."""
        node = self._by_path.get(tag)
        if node is None:
            return QModelIndex()
        return self.createIndex(node.row(), column, node.key)

    def _node(self, index: _Index) -> _Node:
        if not index.isValid():
            return self._root
        return self._nodes.get(index.internalId(), self._root)

    # QAbstractItemModel

    def index(self, row: int, column: int, parent: _Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        # hasIndex's checks, without its calls back into rowCount and columnCount (views ask for every cell).
        node = self._node(parent)
        if (row < 0 or column < 0 or column >= len(self.COLUMNS) or row >= len(node.children)
                or (parent.isValid() and parent.column() != 0)):
            return QModelIndex()
        return self.createIndex(row, column, node.children[row].key)

    def parent(self, index: _Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not index.isValid():
            return QModelIndex()
        node = self._node(index).parent
        if node is None or node is self._root:
            return QModelIndex()
        return self.createIndex(node.row(), 0, node.key)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        if parent.isValid() and parent.column() != 0:
            return 0
        return len(self._node(parent).children)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        return column_title(self.COLUMNS, section, orientation, role)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() == 0:
            flags |= Qt.ItemFlag.ItemIsUserCheckable
        return flags

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        node = self._node(index)
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return node.name if column == 0 else node.total
        if role == TAG_ROLE:
            return node.path
        if role == OWN_ROLE:
            return node.own
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(node)
        if role == Qt.ItemDataRole.CheckStateRole and column == 0:
            return Qt.CheckState.Checked if node.path in self._checked else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.DecorationRole and column == 0:
            return self._swatch(node.path)
        if role == Qt.ItemDataRole.FontRole and node.path in self._checked:
            # Checked rows stand out even where a style draws faint check boxes (Fusion on dark palettes).
            if self._bold is None:
                self._bold = QFont()
                self._bold.setBold(True)
            return self._bold
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or index.column() != 0 or role != Qt.ItemDataRole.CheckStateRole:
            return False
        # Views hand back the check state as an int or as the enum, depending on the binding's path.
        checked = Qt.CheckState(value) == Qt.CheckState.Checked if isinstance(value, int) \
            else value == Qt.CheckState.Checked
        return self.set_checked(self._node(index).path, checked)

    @staticmethod
    def _tooltip(node: _Node) -> str:
        if node.total is None:
            return f"#{node.path}"
        docs = "document" if node.total == 1 else "documents"
        below = f" ({node.own} with exactly this tag)" if node.own != node.total else ""
        return f"#{node.path} — {node.total} {docs}{below}"

    def _swatch(self, tag: str) -> QIcon:
        icon = self._swatches.get(tag)
        if icon is None:
            pixmap = QPixmap(12, 12)
            pixmap.fill(Qt.GlobalColor.transparent)
            painter = QPainter(pixmap)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(tag_color(tag, self._colors))
            painter.drawEllipse(1, 1, 10, 10)
            painter.end()
            icon = self._swatches[tag] = QIcon(pixmap)
        return icon


class _TagFilterProxy(QSortFilterProxyModel):
    """Matches the typed text anywhere in the full tag path; parents of matches stay (recursive)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setRecursiveFilteringEnabled(True)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setFilterRole(TAG_ROLE)
        self.setFilterKeyColumn(0)
        self.setSortCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)


class TagPane(QWidget):
    """Filter box, checkable tag tree, "Match all / Match any", "Clear", and a context menu of tag actions.

    Signals:
        filter_changed(list[str], str): checked tags (in check order) and ``"all"`` or ``"any"``.
        rename_requested(str, str): old tag, new tag (normalised).
        merge_requested(list[str], str): source tags, target tag (normalised).
        color_requested(str, str): tag, ``"#rrggbb"`` or ``""`` to clear (once per selected tag).
        delete_requested(list[str]): tags to delete, after the user confirmed.

    Prompts go through :meth:`_ask_text`, :meth:`_ask_color`, :meth:`_confirm` and :meth:`_warn`,
    which tests override.
    """

    filter_changed = Signal(list, str)
    rename_requested = Signal(str, str)
    merge_requested = Signal(list, str)
    color_requested = Signal(str, str)
    delete_requested = Signal(list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = TagTreeModel(self)
        self.proxy = _TagFilterProxy(self)
        self.proxy.setSourceModel(self.model)

        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter tags")
        self.filter_edit.setClearButtonEnabled(True)

        self.view = QTreeView()
        self.view.setModel(self.proxy)
        self.view.setUniformRowHeights(True)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        header = self.view.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)

        self.mode_combo = QComboBox()
        self.mode_combo.addItem("Match all", "all")
        self.mode_combo.addItem("Match any", "any")
        self.mode_combo.setToolTip("Show documents carrying every checked tag, or at least one of them")
        self.clear_button = QPushButton("Clear")
        self.clear_button.setToolTip("Uncheck every tag")
        self.clear_button.setEnabled(False)

        bottom = QHBoxLayout()
        bottom.setContentsMargins(0, 0, 0, 0)
        bottom.addWidget(self.mode_combo, 1)
        bottom.addWidget(self.clear_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(4)
        layout.addWidget(self.filter_edit)
        layout.addWidget(self.view, 1)
        layout.addLayout(bottom)

        self.filter_edit.textChanged.connect(self._filter_text_changed)
        self.model.checked_changed.connect(self._checked_changed)
        self.model.modelReset.connect(self._after_reset)
        self.mode_combo.currentIndexChanged.connect(self._mode_changed)
        self.clear_button.clicked.connect(self.clear_filter)
        self.view.customContextMenuRequested.connect(self._show_menu)

    # public API

    def set_tags(self, counts: Sequence[TagCount]) -> None:
        """Show these tags (from ``services.tags.list_tags``); checked tags that still exist stay checked."""
        self.model.set_tags(counts)

    def checked_tags(self) -> list[str]:
        """Tags checked for filtering, in check order."""
        return self.model.checked_tags()

    def match_mode(self) -> str:
        """``"all"`` (AND) or ``"any"`` (OR)."""
        return str(self.mode_combo.currentData())

    def set_match_mode(self, mode: str) -> None:
        """Switch between ``"all"`` and ``"any"``; emits ``filter_changed`` when tags are checked."""
        if mode not in MATCH_MODES:
            raise InvalidInput(f"a tag match mode is 'all' or 'any', not {mode!r}")
        self.mode_combo.setCurrentIndex(MATCH_MODES.index(mode))

    def select_tag(self, tag: str, *, exclusive: bool = False) -> bool:
        """Check ``tag`` (e.g. after a click on its chip elsewhere), reveal and select it.

        Args:
            exclusive: uncheck the other tags first, so the list shows exactly this tag's documents.

        Returns:
            False when the tree has no such tag (nothing changes).
        """
        if not self.model.index_of(tag).isValid():
            return False
        if exclusive:
            self.model.set_checked_tags([tag])
        else:
            self.model.set_checked(tag, True)
        proxy_index = self.proxy.mapFromSource(self.model.index_of(tag))
        if proxy_index.isValid():
            self.view.scrollTo(proxy_index)
            self.view.selectionModel().setCurrentIndex(
                proxy_index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
        return True

    def clear_filter(self) -> None:
        """Uncheck every tag (emits ``filter_changed([], mode)`` when some were checked) and unselect the rows."""
        self.model.clear_checked()
        # A highlighted row read as a filter still on (the tree keeps its selection across refreshes).
        self.view.clearSelection()

    def selected_tags(self) -> list[str]:
        """Tags selected (highlighted) in the tree, in view order — what the context menu acts on."""
        rows = self.view.selectionModel().selectedRows(0) if self.view.selectionModel() else []
        return [str(index.data(TAG_ROLE)) for index in sorted(rows, key=lambda i: self._view_order(i))]

    # prompts (overridden in tests)

    def _ask_text(self, title: str, label: str, default: str = "") -> str | None:
        """Ask for one line of text; None when cancelled."""
        text, ok = QInputDialog.getText(self, title, label, QLineEdit.EchoMode.Normal, default)
        return text if ok else None

    def _ask_color(self, title: str, initial: QColor) -> str | None:
        """Ask for a colour; ``"#rrggbb"`` or None when cancelled."""
        color = QColorDialog.getColor(initial, self, title)
        return color.name() if color.isValid() else None

    def _confirm(self, title: str, text: str) -> bool:
        """Ask a yes/no question, defaulting to No."""
        answer = QMessageBox.question(self, title, text, QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                      QMessageBox.StandardButton.No)
        return answer == QMessageBox.StandardButton.Yes

    def _warn(self, title: str, text: str) -> None:
        """Tell the user why something was refused."""
        QMessageBox.warning(self, title, text)

    # actions (public so the main window can bind shortcuts to them)

    def rename_selected(self) -> None:
        """Ask for a new name of the single selected tag and emit ``rename_requested``."""
        tags = self.selected_tags()
        if len(tags) != 1:
            return
        old = tags[0]
        new = self._ask_tag("Rename tag", f"New name for #{old} (tags below it follow):", old)
        if new is None or new == old:
            return
        if new.startswith(old + "/"):
            self._warn("Rename tag", f"#{new} lies below #{old}; choose a name outside it.")
            return
        self.rename_requested.emit(old, new)

    def merge_selected(self) -> None:
        """Ask for the tag the selected tags become and emit ``merge_requested``."""
        tags = self.selected_tags()
        if not tags:
            return
        shown = ", ".join(f"#{t}" for t in tags)
        target = self._ask_tag("Merge tags", f"Merge {shown} into:", tags[0] if len(tags) > 1 else "")
        if target is None:
            return
        sources = [t for t in tags if t != target]
        if not sources:
            return
        if any(target.startswith(s + "/") for s in sources):
            self._warn("Merge tags", f"#{target} lies below a tag being merged; choose another target.")
            return
        self.merge_requested.emit(sources, target)

    def color_selected(self) -> None:
        """Ask for a colour and emit ``color_requested`` for each selected tag."""
        tags = self.selected_tags()
        if not tags:
            return
        color = self._ask_color("Tag colour", tag_color(tags[0], self.model.colors()))
        if color is None:
            return
        for tag in tags:
            self.color_requested.emit(tag, color)

    def clear_color_selected(self) -> None:
        """Emit ``color_requested(tag, "")`` for each selected tag that has its own colour."""
        colors = self.model.colors()
        for tag in self.selected_tags():
            if tag in colors:
                self.color_requested.emit(tag, "")

    def delete_selected(self) -> None:
        """Confirm, then emit ``delete_requested`` with the selected tags."""
        tags = self.selected_tags()
        if not tags:
            return
        shown = ", ".join(f"#{t}" for t in tags[:8]) + (" …" if len(tags) > 8 else "")
        text = (f"Delete {shown} and the tags below from every document of the library?\n"
                "The documents stay; each keeps its previous tags as a version.")
        if self._confirm("Delete tags", text):
            self.delete_requested.emit(tags)

    # internals

    def _ask_tag(self, title: str, label: str, default: str) -> str | None:
        text = self._ask_text(title, label, default)
        if text is None or not text.strip():
            return None
        try:
            return normalize_tag(text)
        except InvalidInput as error:
            self._warn(title, str(error))
            return None

    def _view_order(self, index: QModelIndex) -> tuple[int, ...]:
        rows: list[int] = []
        while index.isValid():
            rows.append(index.row())
            index = index.parent()
        return tuple(reversed(rows))

    def _menu(self) -> QMenu:
        tags = self.selected_tags()
        menu = QMenu(self)
        many = len(tags) > 1
        actions: list[tuple[str, Any, bool]] = [
            ("Rename…", self.rename_selected, len(tags) == 1),
            ("Merge into…", self.merge_selected, bool(tags)),
            ("Colour…", self.color_selected, bool(tags)),
            ("Clear colour", self.clear_color_selected, any(t in self.model.colors() for t in tags)),
            (f"Delete {len(tags)} tags…" if many else "Delete…", self.delete_selected, bool(tags)),
        ]
        for i, (label, slot, enabled) in enumerate(actions):
            if i == len(actions) - 1:
                menu.addSeparator()
            action = QAction(label, menu)
            action.setEnabled(enabled)
            action.triggered.connect(slot)
            menu.addAction(action)
        return menu

    def _show_menu(self, pos: QPoint) -> None:
        index = self.view.indexAt(pos)
        if index.isValid() and not self.view.selectionModel().isSelected(index):
            self.view.selectionModel().select(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
        if self.selected_tags():
            self._menu().exec(self.view.viewport().mapToGlobal(pos))

    def _filter_text_changed(self, text: str) -> None:
        self.proxy.setFilterFixedString(text.strip().lstrip("#"))
        if text.strip():
            self.view.expandAll()

    def _checked_changed(self) -> None:
        self.clear_button.setEnabled(bool(self.model.checked_tags()))
        self.filter_changed.emit(self.model.checked_tags(), self.match_mode())

    def _mode_changed(self, _index: int) -> None:
        if self.model.checked_tags():
            self.filter_changed.emit(self.model.checked_tags(), self.match_mode())

    def _after_reset(self) -> None:
        self.clear_button.setEnabled(bool(self.model.checked_tags()))
        if self.filter_edit.text().strip():
            self.view.expandAll()
