"""The Conflicts window (View ▸ Conflicts…, issue 12): pairs of active memories joined by ``contradicts`` that
the window's scope may read (``services.conflicts.list_conflicts``), the selected pair side by side with its
texts, and "Keep this one" under each side: :meth:`~.workbench.Workbench.settle_conflict`, the same
``conflicts.settle`` as ``memory settle`` (the kept one ``updates`` the other, which is archived).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ..core.documents import DocumentInfo
from ..services import conflicts, documents
from ..services.conflicts import Conflict
from ..services.graph import RelatedDocument
from .item_models import CardTableModel, card_table_view
from .workbench import Workbench

_Index = QModelIndex | QPersistentModelIndex


def _describe(doc: RelatedDocument) -> str:
    """"Title · project/web": a side of a conflict, in a cell or over its text."""
    return f"{doc.title} · {doc.scope}"


class ConflictsModel(CardTableModel):
    """One row per open conflict: the memory that contradicts, and the one it contradicts."""

    HEADERS = ("This memory", "contradicts")

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        pair = self._items[index.row()]
        side = pair.first if index.column() == 0 else pair.second
        if role == Qt.ItemDataRole.DisplayRole:
            return _describe(side)
        if role == Qt.ItemDataRole.ToolTipRole:
            by = f", related by {side.created_by}" if side.created_by else ""
            return f"{side.id} ({side.type} in {side.scope}{by})"
        if role == Qt.ItemDataRole.UserRole:
            return side.id
        return None


class ConflictSide(QGroupBox):
    """One side of a conflict: its title, where it is, its text, and "Keep this one"."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.keep_button = QPushButton("Keep this one", self)
        self.keep_button.setToolTip("Keep this memory: it updates the other one, which is archived (restorable)")
        layout = QVBoxLayout(self)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.keep_button, 0, Qt.AlignmentFlag.AlignRight)
        self.show_side(None, None)

    def show_side(self, side: RelatedDocument | None, doc: DocumentInfo | None) -> None:
        """Show ``side`` with ``doc``'s text (None: empty and disabled)."""
        self.setTitle(_describe(side) if side else "")
        self.text.setPlainText(doc.content or "" if doc else "")
        self.setEnabled(side is not None)


class ConflictsDialog(QDialog):
    """The window's scope's open conflicts, the selected one side by side, settled by keeping one.

    Signals:
        loaded(int): a list arrived (how many conflicts it holds).
        settled(object): a conflict was settled (the :class:`~..services.graph.RelateOutcome`).
    """

    loaded = Signal(int)
    settled = Signal(object)

    def __init__(self, workbench: Workbench, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Conflicts")
        self.resize(1000, 600)
        self.workbench = workbench
        self.model = ConflictsModel(self)
        self.view = card_table_view(self, self.model)
        self.view.selectionModel().currentRowChanged.connect(lambda current, _p: self._show_row(current.row()))
        self.sides = (ConflictSide(self), ConflictSide(self))
        self.sides[0].keep_button.clicked.connect(lambda: self.keep(0))
        self.sides[1].keep_button.clicked.connect(lambda: self.keep(1))
        pair = QWidget(self)
        pair_layout = QHBoxLayout(pair)
        pair_layout.setContentsMargins(0, 0, 0, 0)
        for side in self.sides:
            pair_layout.addWidget(side)
        splitter = QSplitter(Qt.Orientation.Vertical, self)
        splitter.addWidget(self.view)
        splitter.addWidget(pair)
        splitter.setSizes([200, 400])
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Memories that contradict each other. Keep the one that is right: it updates the "
                                "other, which is archived (kept for the record; Restore brings it back).", self))
        layout.addWidget(splitter, 1)
        layout.addWidget(self.status)
        layout.addWidget(buttons)
        self._shown: Conflict | None = None
        self._outcome = ""
        self._busy = False
        self._seen: tuple[str, int] | None = None
        workbench.failed.connect(self._failed)
        workbench.snapshot_ready.connect(self._follow)
        self.reload()

    def reload(self) -> None:
        """List the open conflicts the window's scope may read again."""
        lib, scope = self.workbench.lib, self.workbench.state.scope
        self.workbench.read(lambda _c: conflicts.list_conflicts(lib, scope), self._loaded, title="Conflicts")

    def _follow(self, snapshot: Any) -> None:
        # The library changed (an agent's write, an undo, another window) or the window's scope did: list again.
        seen = (snapshot.state.scope, snapshot.change_counter)
        if self.isVisible() and seen != self._seen:
            self.reload()
        self._seen = seen

    def _loaded(self, found: list[Conflict]) -> None:
        kept = self._shown
        self.model.set_items(found)
        row = found.index(kept) if kept in found else 0  # the pair being read stays selected
        if found:
            self.view.selectRow(row)
        self._show_row(row if found else -1)
        count = f"{len(found)} open conflict{'s' if len(found) != 1 else ''}" if found else "No open conflicts."
        self.status.setText(" ".join(t for t in (self._outcome, count) if t))
        self.loaded.emit(len(found))

    def _show_row(self, row: int) -> None:
        pair = self.model.item_at(row) if 0 <= row < self.model.rowCount() else None
        if pair == self._shown:
            return
        self._shown = pair
        for side in self.sides:
            side.show_side(None, None)
        if pair is None:
            return
        lib, scope = self.workbench.lib, self.workbench.state.scope
        ids = (pair.first.id, pair.second.id)
        self.workbench.read(lambda _c: [documents.get_document(lib, i, acting_scope=scope) for i in ids],
                            lambda docs: self._texts(pair, docs), title="Conflict")

    def _texts(self, pair: Conflict, docs: list[DocumentInfo]) -> None:
        if pair != self._shown:  # another pair was picked meanwhile
            return
        for side, info, doc in zip(self.sides, (pair.first, pair.second), docs, strict=True):
            side.show_side(info, doc)

    def keep(self, index: int) -> None:
        """Keep side ``index`` (0: left, 1: right) of the shown conflict."""
        if self._shown is None:
            return
        kept, other = (self._shown.first, self._shown.second) if index == 0 else (self._shown.second,
                                                                                  self._shown.first)
        self._busy = True
        for side in self.sides:
            side.keep_button.setEnabled(False)
        self.status.setText(f"Keeping “{kept.title}”…")
        self.workbench.settle_conflict(kept.id, other.id, on_settled=lambda outcome: self._settled(kept, other,
                                                                                                  outcome))

    def _settled(self, kept: RelatedDocument, other: RelatedDocument, outcome: Any) -> None:
        self._busy = False
        self._outcome = f"Kept “{kept.title}”; “{other.title}” is archived."
        self.settled.emit(outcome)
        self.reload()

    def _failed(self, message: str) -> None:
        if self._busy:  # the settling failed (e.g. one side was archived meanwhile): say why, list again
            self._busy = False
            self._outcome = message
            self._shown = None
            self.reload()
