"""The Atoms window (View ▸ Atoms…, issue 13): the facts, events and plans the current scope sees, by kind.

Tabs pick the kind: all atoms newest first, facts, events on a timeline (oldest first, by when they happened) and
plans by due date with their status; a status filter (plans) and a text filter narrow the list. A plan's status
is changed here (:meth:`~.workbench.Workbench.set_plan_status`, the same ``atoms.plan_update`` as ``atoms
plan-update``: a person's edit, undoable) and "Happened…" records the event that supersedes it
(:meth:`~.workbench.Workbench.plan_happened`). "Open source" opens the source at the passage the atom was read from
(``atoms.source_passage``), through the same path as a search hit: ``open_requested(doc_id, page, passage)``, wired
by the window to its ``open_document``. The model holds the immutable :class:`~..core.atoms.Atom` cards only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QPushButton,
    QTabBar,
    QVBoxLayout,
    QWidget,
)

from ..core.atoms import Atom, AtomType, PlanStatus
from ..services import atoms
from .document_model import muted_colour, type_icon
from .item_models import CardTableModel, card_table_view, debounced_filter
from .workbench import Workbench

_Index = QModelIndex | QPersistentModelIndex
TABS = (("All", None), ("Facts", AtomType.FACT), ("Events", AtomType.EVENT), ("Plans", AtomType.PLAN))
"""The tabs: a title and the kind it lists (None: every kind)."""
STATUS_COLOURS = {PlanStatus.PLANNED: "#3a78d4", PlanStatus.MISSED: "#d64541", PlanStatus.CANCELED: "#8a8a8a"}
"""The colour of a plan's status word (the index column's palette: blue to do, red missed, grey dropped)."""
HAPPENED_COLOUR = "#3a9d5d"


def status_text(found: Atom) -> str:
    """What the Status column says: a plan's status ("happened" once an event superseded it), else the
    document's status when it is not active (archived, stale), else nothing."""
    if found.happened_as:
        return "happened"
    if found.plan_status is not None:
        return found.plan_status.value
    return "" if found.status == "active" else found.status


def time_text(found: Atom) -> str:
    """An event's time or a plan's due date, as the list shows it (no time of day when it is midnight)."""
    moment = found.when or found.due
    if moment is None:
        return ""
    shown = moment.astimezone() if moment.tzinfo else moment
    text = f"{shown:%Y-%m-%d}" if (shown.hour, shown.minute) == (0, 0) else f"{shown:%Y-%m-%d %H:%M}"
    return f"due {text}" if found.type is AtomType.PLAN else text


def sorted_for(kind: AtomType | None, found: Sequence[Atom]) -> list[Atom]:
    """``found`` in the order of a tab: events on a timeline (oldest first), plans by due date (soonest first),
    otherwise as the service listed them (newest first)."""
    if kind is AtomType.EVENT:
        return sorted(found, key=lambda a: _naive(a.when))
    if kind is AtomType.PLAN:
        return sorted(found, key=lambda a: _naive(a.due))
    return list(found)


def _naive(moment: datetime | None) -> datetime:
    return datetime.max if moment is None else atoms.local_time(moment)


def open_source(workbench: Workbench, found: Atom, open_at: Callable[[str, int, str], None],
                on_error: Callable[[BaseException], None]) -> None:
    """Ask to open the source of ``found`` at the passage it was read from (``atoms.source_passage``, read off the
    UI thread): ``open_at(document id, page or -1, passage text or "")``, which the window wires to its
    ``open_document`` as for a search hit. An atom written directly opens itself; a failure (the source is gone)
    goes to ``on_error``."""
    if found.source_id is None:
        open_at(found.id, -1, "")
        return
    lib, scope = workbench.lib, workbench.state.scope
    workbench.read(lambda _c: atoms.source_passage(lib, found.id, acting_scope=scope),
                   lambda at: open_at(at.document_id, at.page or -1, at.text or ""), title="Open source",
                   on_error=on_error)


class AtomsModel(CardTableModel):
    """One row per atom: kind (its icon), when or due, status, statement, source. ``Qt.UserRole`` of any cell is
    the atom's id."""

    HEADERS = ("Kind", "When / due", "Status", "Statement", "Source")
    STATUS_COLUMN = 2
    SOURCE_COLUMN = 4

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        found = self._items[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            source = "source gone" if found.source_gone else (found.source_title or "")
            return (found.type.value.title(), time_text(found), status_text(found), found.text, source)[column]
        if role == Qt.ItemDataRole.UserRole:
            return found.id
        if role == Qt.ItemDataRole.DecorationRole and column == 0:
            return type_icon(found.type.value)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(found)
        if role == Qt.ItemDataRole.ForegroundRole:
            if column == self.STATUS_COLUMN:
                if found.happened_as:
                    return QColor(HAPPENED_COLOUR)
                return QColor(STATUS_COLOURS[found.plan_status]) if found.plan_status else None
            if column == self.SOURCE_COLUMN:
                return muted_colour()
        if role == Qt.ItemDataRole.FontRole and column == self.SOURCE_COLUMN and found.source_gone:
            font = QFont()
            font.setItalic(True)
            return font
        return None

    @staticmethod
    def _tooltip(found: Atom) -> str:
        lines = [found.text]
        if found.source_gone:
            lines.append(f"Its source ({found.source_id}) was deleted; the atom keeps its text.")
        elif found.source_id:
            lines.append(f"Read from “{found.source_title}”" + (f", page {found.span.page}" if found.span and
                                                                  found.span.page else ""))
        if found.edited_by_person:
            lines.append("Edited by a person: a digest leaves it as it is.")
        return "\n".join(lines)


class AtomsDialog(QDialog):
    """The window's scope's atoms: kind tabs and filters above, the table, then the selected atom's actions.

    Signals:
        loaded(int): a list arrived (how many atoms it holds).
        open_requested(str, int, str): open a document (id) at a page (-1: none) with a passage to find ("").
    """

    loaded = Signal(int)
    open_requested = Signal(str, int, str)

    def __init__(self, workbench: Workbench, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Atoms")
        self.resize(1180, 560)
        self.workbench = workbench
        self.model = AtomsModel(self)
        self.tabs = QTabBar(self)
        for title, _kind in TABS:
            self.tabs.addTab(title)
        self.tabs.currentChanged.connect(lambda _i: self.reload())
        self.status_filter = QComboBox(self)
        self.status_filter.addItem("All statuses", None)
        for status in PlanStatus:
            self.status_filter.addItem(status.value.title(), status.value)
        self.status_filter.setToolTip("Only plans in this status")
        self.status_filter.currentIndexChanged.connect(lambda _i: self.reload())
        self.text_filter, self._typing = debounced_filter(self, "Filter by text", self.reload)
        self.view = card_table_view(self, self.model, (80, 130, 90, 560))
        self.view.selectionModel().currentRowChanged.connect(lambda _c, _p: self._update_actions())
        self.view.doubleClicked.connect(lambda _i: self.open_selected())
        self.open_button = QPushButton("Open Source", self)
        self.open_button.setToolTip("Open the document the atom was read from, at its passage")
        self.open_button.clicked.connect(self.open_selected)
        self.plan_status = QComboBox(self)
        self.plan_status.addItems([s.value for s in PlanStatus])
        self.plan_status.setToolTip("The plan's status (a plan that happened: Happened…)")
        self.plan_status.activated.connect(lambda _i: self.set_status(self.plan_status.currentText()))
        self.happened_button = QPushButton("Happened…", self)
        self.happened_button.setToolTip("Record that the plan happened: an event that supersedes it")
        self.happened_button.clicked.connect(self._ask_happened)
        self.status = QLabel(self)
        self.scope_label = QLabel(self)
        filters = QHBoxLayout()
        filters.addWidget(self.scope_label)
        filters.addWidget(self.tabs)
        filters.addStretch(1)
        filters.addWidget(self.status_filter)
        filters.addWidget(self.text_filter, 1)
        actions = QHBoxLayout()
        actions.addWidget(self.open_button)
        actions.addStretch(1)
        actions.addWidget(QLabel("Plan status:", self))
        actions.addWidget(self.plan_status)
        actions.addWidget(self.happened_button)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(filters)
        layout.addWidget(self.view, 1)
        layout.addLayout(actions)
        layout.addWidget(self.status)
        layout.addWidget(buttons)
        self._request = 0
        self._seen: tuple[str, int] | None = None
        workbench.snapshot_ready.connect(self._follow)
        self.reload()

    @property
    def kind(self) -> AtomType | None:
        """The kind the current tab lists (None: all)."""
        return TABS[max(self.tabs.currentIndex(), 0)][1]

    def selected(self) -> Atom | None:
        """The selected atom, or None."""
        row = self.view.currentIndex().row()
        return self.model.item_at(row) if 0 <= row < self.model.rowCount() else None

    def reload(self) -> None:
        """List the window's scope's atoms again with the tab and filters as they are (the latest request wins)."""
        self._typing.stop()
        self._request += 1
        request, lib, scope, kind = self._request, self.workbench.lib, self.workbench.state.scope, self.kind
        status, text = self.status_filter.currentData(), self.text_filter.text().strip() or None
        self.status_filter.setEnabled(kind in (None, AtomType.PLAN))
        if not self.status_filter.isEnabled():
            status = None
        self.scope_label.setText(f"Atoms of {scope}")
        self.workbench.read(lambda _c: atoms.list_atoms(lib, scope, types=[kind] if kind else (), status=status,
                                                        text=text),
                            lambda found: self._loaded(request, kind, found), title="Atoms")

    def open_selected(self) -> None:
        """Open the selected atom's source at its passage (an atom written directly: the atom itself)."""
        found = self.selected()
        if found is not None:
            open_source(self.workbench, found, self.open_requested.emit, lambda error: self.status.setText(str(error)))

    def set_status(self, status: str) -> None:
        """Set the selected plan's status (a write; the list is read again when it is done)."""
        found = self.selected()
        if found is None or found.type is not AtomType.PLAN or found.plan_status is PlanStatus(status):
            return
        self.status.setText("Saving…")
        self.workbench.set_plan_status(found.id, status, on_done=lambda _a: self.reload())

    def happened(self, when: str) -> None:
        """Record that the selected plan happened at ``when`` (ISO or a phrase such as "yesterday 15:00")."""
        found = self.selected()
        if found is not None and found.type is AtomType.PLAN and when.strip():
            self.status.setText("Saving…")
            self.workbench.plan_happened(found.id, when.strip(), on_done=lambda _a: self.reload())

    def _ask_happened(self) -> None:
        when, ok = QInputDialog.getText(self, "Plan happened", "When did it happen? (2026-12-05 14:30, "
                                        "'yesterday at 3pm')", text=f"{datetime.now():%Y-%m-%d %H:%M}")
        if ok:
            self.happened(when)

    def _follow(self, snapshot: Any) -> None:
        # The library changed (an agent's write, an undo, another window) or the window's scope did: list again.
        seen = (snapshot.state.scope, snapshot.change_counter)
        if self.isVisible() and seen != self._seen:
            self.reload()
        self._seen = seen

    def _loaded(self, request: int, kind: AtomType | None, found: list[Atom]) -> None:
        if request != self._request:  # an older filter's answer
            return
        keep = self.selected()
        self.model.set_items(sorted_for(kind, found))
        row = self.model.row_of(keep.id) if keep else None
        if row is None and found:
            row = 0
        if row is not None:
            self.view.selectRow(row)
        self._update_actions()
        self.status.setText(f"{len(found)} atom{'s' if len(found) != 1 else ''}")
        self.loaded.emit(len(found))

    def _update_actions(self) -> None:
        found = self.selected()
        plan = found is not None and found.type is AtomType.PLAN and not found.happened_as
        self.open_button.setEnabled(found is not None and not found.source_gone)
        self.plan_status.setEnabled(plan)
        self.happened_button.setEnabled(plan)
        if plan and found is not None and found.plan_status is not None:
            self.plan_status.setCurrentText(found.plan_status.value)
