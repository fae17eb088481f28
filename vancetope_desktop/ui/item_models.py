"""Small pieces shared by the item models: the horizontal header of a model with fixed column titles, and the
flat table of cards the memory windows list (episodes, atoms, conflicts, a digest's changes) with its
debounced text filter."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, QTimer
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLineEdit, QTableView, QWidget


def column_title(columns: Sequence[str], section: int, orientation: Qt.Orientation, role: int) -> str | None:
    """``headerData`` for fixed column titles: ``columns[section]`` for the horizontal display role, else None."""
    if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(columns):
        return columns[section]
    return None


class CardTableModel(QAbstractTableModel):
    """One card (a pydantic value with an ``id``: an episode, an atom, a conflict, a digest change) per row,
    under the fixed :attr:`HEADERS`. Subclasses give ``HEADERS`` and ``data``; :meth:`set_items` may be
    overridden to order what it is given."""

    HEADERS: tuple[str, ...] = ()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._items: list[Any] = []

    def set_items(self, found: Sequence[Any]) -> None:
        """Show ``found`` in the order given."""
        self.beginResetModel()
        self._items = list(found)
        self.endResetModel()

    def item_at(self, row: int) -> Any:
        """The card shown in ``row``. Raises IndexError."""
        return self._items[row]

    def row_of(self, item_id: str) -> int | None:
        """The row showing the card whose ``id`` is ``item_id``, or None."""
        return next((r for r, item in enumerate(self._items) if getattr(item, "id", None) == item_id), None)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._items)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        return column_title(self.HEADERS, section, orientation, role)


def card_table_view(parent: QWidget, model: CardTableModel, widths: Sequence[int] | None = None, *,
                    view: QTableView | None = None) -> QTableView:
    """The table the memory windows show a :class:`CardTableModel` in: one row selected at a time, no row
    numbers, no wrapping; the columns start at ``widths`` (pixels) and the last one stretches, or with
    ``widths`` None all columns share the width. ``view``: a table (a subclass) to set up so, instead of a
    new ``QTableView``."""
    view = view or QTableView(parent)
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setWordWrap(False)
    view.verticalHeader().hide()
    header = view.horizontalHeader()
    if widths is None:
        header.setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        return view
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setStretchLastSection(True)
    for column, width in enumerate(widths):
        view.setColumnWidth(column, width)
    return view


FILTER_DELAY_MS = 250
"""Typing in a text filter asks again after this pause (one request per burst of keys, not per key)."""


def debounced_filter(parent: QWidget, placeholder: str, reload: Callable[[], None]) -> tuple[QLineEdit, QTimer]:
    """A text filter (with a clear button) whose typing calls ``reload`` once :data:`FILTER_DELAY_MS` after the
    last key; the timer is returned so that a reload started otherwise can stop a pending one."""
    edit = QLineEdit(parent)
    edit.setPlaceholderText(placeholder)
    edit.setClearButtonEnabled(True)
    timer = QTimer(parent)
    timer.setSingleShot(True)
    timer.setInterval(FILTER_DELAY_MS)
    timer.timeout.connect(reload)
    edit.textChanged.connect(lambda _t: timer.start())
    return edit, timer
