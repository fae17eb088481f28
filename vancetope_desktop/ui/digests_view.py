"""The Digests window (View ▸ Digests…, issue 13): one writeup per day of the current scope, a calendar to pick the
day (the days that have one in bold), the writeup as rendered Markdown (its links open the document), and its change
set listed (kept, added, modified, deleted, each with why; a row opens its document).

"Digest this day" runs ``digest.run_digest`` for the picked day (:meth:`~.workbench.Workbench.run_digest`, the same
as ``vancetope digest run``); "Undo digest" takes the day's latest run back in one step
(:meth:`~.workbench.Workbench.undo_digest`, ``digest undo``). Reads go through :meth:`~.workbench.Workbench.read`;
the model holds the immutable :class:`~..services.digest.DigestChange` lines only.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from PySide6.QtCore import QDate, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QFont, QTextCharFormat
from PySide6.QtWidgets import (
    QCalendarWidget,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ..core.errors import NotFound
from ..core.wikilinks import find_links
from ..services import digest
from ..services.digest import DigestChange, DigestRun
from .item_models import CardTableModel, card_table_view
from .workbench import Workbench

_Index = QModelIndex | QPersistentModelIndex
KIND_COLOURS = {"added": "#3a9d5d", "modified": "#3a78d4", "deleted": "#d64541", "kept": "#8a8a8a"}
"""The colour of a change's kind (green added, blue modified, red deleted, grey kept)."""


def linked_markdown(text: str) -> str:
    """``text`` with each ``[[doc_…|shown]]`` link turned into a Markdown link ``[shown](doc:doc_…)`` that the
    window opens (a title link stays as written: the writeup links by id)."""
    parts, at = [], 0
    for found in find_links(text):
        if found.target.startswith("doc_"):
            shown = found.shown.replace("[", "(").replace("]", ")")
            parts += [text[at:found.start], f"[{shown}](doc:{found.target})"]
            at = found.end
    return "".join(parts) + text[at:]


class ChangeSetModel(CardTableModel):
    """One row per change of a digest: kind (coloured), run, title, what. ``Qt.UserRole`` is the document id."""

    HEADERS = ("Change", "Run", "Document", "Why")

    def set_items(self, found: Sequence[DigestChange]) -> None:
        """Show ``found``: what changed first (added, modified, deleted), the kept atoms last."""
        super().set_items(sorted(found, key=lambda c: (c.kind == "kept", -c.run)))

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        change = self._items[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return (change.kind, str(change.run), change.title, change.what)[index.column()]
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{change.document_id}: {change.what}"
        if role == Qt.ItemDataRole.UserRole:
            return change.document_id
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 0:
            return QColor(KIND_COLOURS[change.kind])
        return None


class DigestsDialog(QDialog):
    """The window's scope's digests: the calendar on the left; the picked day's writeup and change set on the right.

    Signals:
        shown(object): a day was read (its :class:`DigestRun`, or None when it has no digest).
        open_requested(str): a link of the writeup, or a change's row, was activated: the document's id.
    """

    shown = Signal(object)
    open_requested = Signal(str)

    def __init__(self, workbench: Workbench, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Digests")
        self.resize(1180, 680)
        self.workbench = workbench
        self.run: DigestRun | None = None
        self.calendar = QCalendarWidget(self)
        self.calendar.setMaximumDate(QDate.currentDate())  # a digest writes up a day that has begun
        self.calendar.setGridVisible(True)
        self.calendar.selectionChanged.connect(self.show_day)
        self.heading = QLabel(self)
        self.heading.setWordWrap(True)
        self.writeup = QTextBrowser(self)
        self.writeup.setOpenLinks(False)
        self.writeup.anchorClicked.connect(lambda url: self.open_requested.emit(url.path()))
        self.model = ChangeSetModel(self)
        self.changes = card_table_view(self, self.model, (78, 40, 260))
        self.changes.doubleClicked.connect(
            lambda index: self.open_requested.emit(self.model.data(index, Qt.ItemDataRole.UserRole)))
        self.run_button = QPushButton("Digest this day", self)
        self.run_button.clicked.connect(self.run_day)
        self.undo_button = QPushButton("Undo digest", self)
        self.undo_button.clicked.connect(self.undo_day)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        right = QSplitter(Qt.Orientation.Vertical, self)
        right.addWidget(self.writeup)
        right.addWidget(self.changes)
        right.setSizes([420, 220])
        left = QVBoxLayout()
        left.addWidget(self.calendar)
        left.addWidget(self.run_button)
        left.addWidget(self.undo_button)
        left.addStretch(1)
        body = QHBoxLayout()
        body.addLayout(left)
        column = QVBoxLayout()
        column.addWidget(self.heading)
        column.addWidget(right, 1)
        body.addLayout(column, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(body, 1)
        layout.addWidget(self.status)
        layout.addWidget(buttons)
        self._request = 0
        self._marked: list[date] = []
        self.reload()

    @property
    def day(self) -> date:
        """The day picked in the calendar."""
        return self.calendar.selectedDate().toPython()  # type: ignore[return-value]

    def reload(self) -> None:
        """Mark the days that have a digest and show the picked one again (the latest request wins)."""
        lib, scope = self.workbench.lib, self.workbench.state.scope
        self.workbench.read(lambda _c: digest.digest_days(lib, scope), self._mark, title="Digests")
        self.show_day()

    def show_day(self) -> None:
        """Read the picked day's writeup and change set."""
        self._request += 1
        request, lib, scope, day = self._request, self.workbench.lib, self.workbench.state.scope, self.day

        def load(_context: Any) -> DigestRun | None:
            try:
                return digest.show_digest(lib, scope, day)
            except NotFound:
                return None

        self.workbench.read(load, lambda found: self._shown(request, scope, day, found), title="Digest")

    def run_day(self) -> None:
        """Digest the picked day (a write; shown when it is done)."""
        self.status.setText(f"Digesting {self.day.isoformat()}…")
        self.workbench.run_digest(self.day, on_done=self._done)

    def undo_day(self) -> None:
        """Take the picked day's latest digest run back in one step."""
        self.status.setText(f"Undoing the digest of {self.day.isoformat()}…")
        self.workbench.undo_digest(self.day, on_done=lambda step: self._done(None, f"Undone: {step.label}"))

    def _done(self, run: DigestRun | None, said: str | None = None) -> None:
        self.status.setText(said or (run.message if run else ""))
        self.reload()

    def _mark(self, days: list[date]) -> None:
        bold = QTextCharFormat()
        bold.setFontWeight(QFont.Weight.Bold)
        for day in self._marked:
            self.calendar.setDateTextFormat(QDate(day.year, day.month, day.day), QTextCharFormat())
        for day in days:
            self.calendar.setDateTextFormat(QDate(day.year, day.month, day.day), bold)
        self._marked = list(days)

    def _shown(self, request: int, scope: str, day: date, found: DigestRun | None) -> None:
        if request != self._request:  # an older day's answer
            return
        self.run = found
        if found is None:
            self.heading.setText(f"<b>{scope}</b> · {day.isoformat()}: no digest yet")
            self.writeup.setPlainText("")
            self.model.set_items([])
        else:
            undone = " · <i>undone (the writeup is in the trash)</i>" if found.status == "deleted" else ""
            by = f" · written by {found.generator}" + (" (fallback)" if found.fallback else "") if found.generator \
                else ""
            self.heading.setText(f"<b>{found.title}</b> · {scope}{by}{undone}")
            self.writeup.setMarkdown(linked_markdown(found.content))
            self.model.set_items(found.changes)
        self.undo_button.setEnabled(found is not None and found.status != "deleted")
        self.shown.emit(found)
