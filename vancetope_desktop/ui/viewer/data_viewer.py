"""Data files: CSV/TSV as a table, JSON/YAML as a tree of keys and values."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QStackedWidget,
    QTableView,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from .data_files import read_structured, read_table
from .data_models import TableModel, TreeModel

TABLE_SUFFIXES = frozenset({".csv", ".tsv", ".tab"})
_AUTO_EXPAND_CHILDREN = 50  # expand the first level when it is small; a 10 000-row expand would crawl


class DataViewer(QWidget):
    """A table (delimited files) or a tree (JSON, YAML, GeoJSON) over read-only models."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table_view = QTableView()
        self.table_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table_view.setWordWrap(False)
        self.table_view.setAlternatingRowColors(True)
        self.table_view.horizontalHeader().setDefaultSectionSize(120)
        rows = self.table_view.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.table_view.fontMetrics().height() + 8)
        self.tree_view = QTreeView()
        self.tree_view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.tree_view.setAlternatingRowColors(True)
        self.tree_view.setUniformRowHeights(True)  # needed for speed on long lists
        self.stack = QStackedWidget()
        self.stack.addWidget(self.table_view)
        self.stack.addWidget(self.tree_view)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)
        self.model: TableModel | TreeModel | None = None

    def open(self, path: str | Path) -> list[str]:
        """Show ``path``: a table for .csv/.tsv/.tab, a tree otherwise.

        Returns:
            Notes for a banner (rows left out, delimiter, fallback encoding).

        Raises:
            OSError: missing or unreadable file.
            UnsupportedFile: binary content.
            DamagedFile: not valid JSON/YAML, or too large to parse (callers show the text instead).
        """
        path = Path(path)
        if path.suffix.lower() in TABLE_SUFFIXES:
            table = read_table(path)
            self._set_model(TableModel(table, self))
            self.table_view.setModel(self.model)
            self.stack.setCurrentWidget(self.table_view)
            self.table_view.resizeColumnsToContents()
            delimiter = {"\t": "tab", ",": "comma", ";": "semicolon", "|": "bar"}.get(table.delimiter, table.delimiter)
            return [*table.notes, f"{len(table.rows):,} rows × {len(table.header)} columns, {delimiter}-separated"]
        value, notes = read_structured(path)
        model = TreeModel(value, self)
        self._set_model(model)
        self.tree_view.setModel(model)
        self.stack.setCurrentWidget(self.tree_view)
        if model.rowCount() <= _AUTO_EXPAND_CHILDREN:
            self.tree_view.expandToDepth(0)
        header = self.tree_view.header()  # sections exist only once a model is set
        header.setStretchLastSection(False)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.tree_view.resizeColumnToContents(0)
        self.tree_view.resizeColumnToContents(2)
        return notes

    def clear(self) -> None:
        """Drop the model (frees a large table's rows)."""
        self.table_view.setModel(None)
        self.tree_view.setModel(None)
        self._set_model(None)

    def _set_model(self, model: TableModel | TreeModel | None) -> None:
        old, self.model = self.model, model
        if old is not None:
            old.deleteLater()
