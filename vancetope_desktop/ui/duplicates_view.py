"""The Duplicates dialog (Edit ▸ Find Duplicates…): likely duplicates in groups, each with why it was
matched; tick the groups, pick the document to keep, Merge. The search and the merge are
``services.duplicates`` calls run through the window's :class:`~.workbench.Workbench` lanes; the model
holds the immutable groups the service returned and the user's choices, nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTreeView, QVBoxLayout, QWidget

from ..services import duplicates
from .workbench import Workbench

_Index = QModelIndex | QPersistentModelIndex
_GROUP = 0
"""``internalId`` of a group row; a document row's is its group's row + 1."""


class DuplicatesModel(QAbstractItemModel):
    """Groups (checkable: merge this group) with their documents below (checkable: the one to keep, one per
    group). Columns: the group's reasons or the document's title; the document's id, type and date."""

    choices_changed = Signal()
    HEADERS = ("Duplicates", "Details")

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._groups: list[duplicates.DuplicateGroup] = []
        self._checked: list[bool] = []
        self._keep: list[str] = []

    def set_groups(self, groups: Sequence[duplicates.DuplicateGroup]) -> None:
        """Show ``groups``, every one ticked with its default survivor chosen."""
        self.beginResetModel()
        self._groups = list(groups)
        self._checked = [True] * len(self._groups)
        self._keep = [g.keep_id for g in self._groups]
        self.endResetModel()
        self.choices_changed.emit()

    def choices(self) -> list[tuple[str, list[str]]]:
        """``(keep_id, other_ids)`` of the ticked groups, for :func:`services.duplicates.merge_groups`."""
        return [(keep, [d.id for d in g.documents if d.id != keep])
                for g, on, keep in zip(self._groups, self._checked, self._keep, strict=True) if on]

    # --- Qt's model interface ---------------------------------------------------------------------
    def index(self, row: int, column: int, parent: _Index = QModelIndex()) -> QModelIndex:  # noqa: B008
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, _GROUP)
        return self.createIndex(row, column, parent.row() + 1)

    def parent(self, child: _Index = QModelIndex()) -> QModelIndex:  # type: ignore[override]  # noqa: B008
        if not child.isValid() or child.internalId() == _GROUP:
            return QModelIndex()
        return self.createIndex(child.internalId() - 1, 0, _GROUP)

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        if not parent.isValid():
            return len(self._groups)
        if parent.internalId() == _GROUP and parent.column() == 0:
            return len(self._groups[parent.row()].documents)
        return 0

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        return flags | Qt.ItemFlag.ItemIsUserCheckable if index.column() == 0 else flags

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if index.internalId() == _GROUP:
            group = self._groups[index.row()]
            if role == Qt.ItemDataRole.DisplayRole:
                return group.reason if index.column() == 0 else f"{len(group.documents)} documents"
            if role == Qt.ItemDataRole.CheckStateRole and index.column() == 0:
                return Qt.CheckState.Checked if self._checked[index.row()] else Qt.CheckState.Unchecked
            if role == Qt.ItemDataRole.ToolTipRole:
                return "Ticked groups are merged into the document ticked below them"
            return None
        group_row = index.internalId() - 1
        doc = self._groups[group_row].documents[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            if index.column() == 0:
                return doc.title
            kind = f"{doc.type.value} with its file" if doc.has_file else doc.type.value
            kept = "kept · " if self._keep[group_row] == doc.id else ""
            return f"{kept}{doc.id} · {kind} · added {doc.created_at:%Y-%m-%d}"
        if role == Qt.ItemDataRole.CheckStateRole and index.column() == 0:
            return Qt.CheckState.Checked if self._keep[group_row] == doc.id else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.ToolTipRole:
            return "Ticked: kept (it takes the others' tags, folder, links and metadata); the others go to the trash"
        return None

    def setData(self, index: _Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if not index.isValid() or role != Qt.ItemDataRole.CheckStateRole or index.column() != 0:
            return False
        on = Qt.CheckState(value) == Qt.CheckState.Checked if not isinstance(value, bool) else value
        if index.internalId() == _GROUP:
            self._checked[index.row()] = on
            self.dataChanged.emit(index, index, [Qt.ItemDataRole.CheckStateRole])
        else:
            group_row = index.internalId() - 1
            if not on:  # one document is always kept: untick by ticking another
                return False
            self._keep[group_row] = self._groups[group_row].documents[index.row()].id
            parent = self.index(group_row, 0)
            last = self.index(self.rowCount(parent) - 1, len(self.HEADERS) - 1, parent)
            self.dataChanged.emit(self.index(0, 0, parent), last,
                                  [Qt.ItemDataRole.CheckStateRole, Qt.ItemDataRole.DisplayRole])
        self.choices_changed.emit()
        return True


class DuplicatesDialog(QDialog):
    """Lists the current scope's likely duplicates and merges the ticked groups (a task in the Tasks panel).

    Signals:
        merged(object): the :class:`~..services.duplicates.MergeReport` of a merge, once it is done.
    """

    merged = Signal(object)

    def __init__(self, workbench: Workbench, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Duplicates")
        self.resize(760, 460)
        self.workbench = workbench
        self.model = DuplicatesModel(self)
        self.view = QTreeView(self)
        self.view.setModel(self.model)
        self.view.setUniformRowHeights(True)
        self.view.setColumnWidth(0, 420)
        self.status = QLabel("Looking for duplicates…", self)
        self.status.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.merge_button = self.buttons.addButton("Merge", QDialogButtonBox.ButtonRole.ActionRole)
        self.merge_button.setEnabled(False)
        self.merge_button.clicked.connect(self.merge)
        self.buttons.rejected.connect(self.reject)
        self.model.choices_changed.connect(self._update_button)
        workbench.failed.connect(self._failed)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Likely duplicates (same file, DOI, or title and year). Tick the groups to merge "
                                "and, in each, the document to keep; the others go to the trash.", self))
        layout.addWidget(self.view, 1)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self._busy = False
        self._outcome: list[str] = []
        self.reload()

    def reload(self, *, keep_outcome: bool = True) -> None:
        """Look for duplicates in the window's scope again (read lane), showing the last merge's outcome above
        the new count unless ``keep_outcome`` is False (the dialog opened again)."""
        if not keep_outcome:
            self._outcome = []
        lib, scope = self.workbench.lib, self.workbench.state.scope
        self.workbench.read(lambda _c: duplicates.find_duplicates(lib, scope=scope), self._loaded)

    def _loaded(self, groups: list[duplicates.DuplicateGroup]) -> None:
        self.model.set_groups(groups)
        self.view.expandAll()
        if not self._busy:  # the last merge's outcome stays above the new count
            found = (f"{len(groups)} group{'s' if len(groups) != 1 else ''} of likely duplicates" if groups
                     else "No likely duplicates.")
            self.status.setText("\n".join([*self._outcome, found]))

    def merge(self) -> None:
        """Merge the ticked groups (each on its own; failures are listed), then look again."""
        choices = self.model.choices()
        if not choices or self._busy:
            return
        self._busy = True
        self._update_button()
        self.status.setText(f"Merging {len(choices)} group{'s' if len(choices) != 1 else ''}…")
        self.workbench.merge_duplicates(choices, on_merged=self._merged)

    def _merged(self, report: duplicates.MergeReport) -> None:
        self._outcome = [report.summary] + [f"Not merged into {o.keep_id}: {o.error}" for o in report.failed]
        self.status.setText("\n".join(self._outcome))
        self.merged.emit(report)
        self._done()

    def _failed(self, message: str) -> None:
        if self._busy:  # the merge itself failed (each group's own failures come in the report): try again
            self._outcome = [message]
            self._done()

    def _done(self) -> None:
        self._busy = False
        self.reload()

    def _update_button(self) -> None:
        self.merge_button.setEnabled(not self._busy and bool(self.model.choices()))
