"""The Episodes window (View ▸ Episodes…, issue 12): the current scope's episodes in a table (when, a severity
badge, goal, outcome, insight), filtered by severity and text, and the selected one's whole card, which a
person can edit.

The list is ``services.episodes.list_episodes`` (its severity and text filters; the latest request wins), read
through :meth:`~.workbench.Workbench.read`; an edit is :meth:`~.workbench.Workbench.edit_episode`, the same
``episodes.update_episode`` as ``memory episode edit`` (undoable from Edit ▸ Undo). The model holds the
immutable :class:`~..core.memories.Episode` cards the service returned, nothing else.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from ..core.memories import EPISODE_FIELDS, Episode, Severity
from ..services import episodes, identity
from .item_models import CardTableModel, card_table_view, debounced_filter
from .review_model import actor_label
from .themes import SEVERITY_COLORS
from .workbench import Workbench

_Index = QModelIndex | QPersistentModelIndex
FIELD_HINTS = {"context": "The situation", "goal": "What was being attempted", "action": "What was done",
               "outcome": "What happened", "insight": "The lesson for next time"}
"""Placeholder of each field of the card (the CLI's ``memory episode add`` help, shortened)."""


class EpisodesModel(CardTableModel):
    """One row per episode: when, severity (a coloured badge), goal, outcome, insight. ``Qt.UserRole`` of any
    cell is the episode's id."""

    HEADERS = ("When", "Severity", "Goal", "Outcome", "Insight")
    SEVERITY_COLUMN = 1

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        found = self._items[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (f"{found.created_at.astimezone():%Y-%m-%d %H:%M}", found.severity.value, found.goal,
                    found.outcome, found.insight)[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            return "\n".join(f"{name.title()}: {getattr(found, name)}" for name in EPISODE_FIELDS)
        if role == Qt.ItemDataRole.UserRole:
            return found.id
        if column == self.SEVERITY_COLUMN:
            if role == Qt.ItemDataRole.BackgroundRole:
                return QColor(SEVERITY_COLORS[found.severity.value])
            if role == Qt.ItemDataRole.ForegroundRole:
                return QColor("#ffffff")
            if role == Qt.ItemDataRole.TextAlignmentRole:
                return Qt.AlignmentFlag.AlignCenter
        return None


class EpisodeCard(QWidget):
    """An episode's whole card: its five fields and severity, editable; who recorded it, where and when.

    Signals:
        save_requested(str, dict): Save was pressed: the episode's id and the fields that changed
            (field name → new text, ``severity`` too).
    """

    save_requested = Signal(str, dict)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._shown: Episode | None = None
        self.fields: dict[str, QPlainTextEdit] = {}
        form = QFormLayout()
        for name in EPISODE_FIELDS:
            edit = QPlainTextEdit(self)
            edit.setPlaceholderText(FIELD_HINTS[name])
            edit.setTabChangesFocus(True)
            edit.setMaximumHeight(64)
            edit.textChanged.connect(self._update_buttons)
            self.fields[name] = edit
            form.addRow(f"{name.title()}:", edit)
        self.severity = QComboBox(self)
        self.severity.addItems([s.value for s in Severity])
        self.severity.currentIndexChanged.connect(self._update_buttons)
        form.addRow("Severity:", self.severity)
        self.about = QLabel(self)
        self.about.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.about.setWordWrap(True)
        form.addRow("Recorded:", self.about)
        self.save_button = QPushButton("Save", self)
        self.revert_button = QPushButton("Revert", self)
        self.save_button.clicked.connect(self._save)
        self.revert_button.clicked.connect(lambda: self.show_episode(self._shown))
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.revert_button)
        buttons.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addStretch(1)
        self.show_episode(None)

    @property
    def episode(self) -> Episode | None:
        """The card shown, or None."""
        return self._shown

    def show_episode(self, found: Episode | None) -> None:
        """Show ``found``'s card (None: an empty, disabled card)."""
        self._shown = found
        for name, edit in self.fields.items():
            edit.blockSignals(True)
            edit.setPlainText(getattr(found, name) if found else "")
            edit.blockSignals(False)
        self.severity.blockSignals(True)
        self.severity.setCurrentText(found.severity.value if found else Severity.MINOR.value)
        self.severity.blockSignals(False)
        when = f"{found.created_at.astimezone():%Y-%m-%d %H:%M}" if found else ""
        by = actor_label(found.created_by, {}, identity.current_user()) if found else ""
        self.about.setText("" if found is None else
                           f"by {by} in {found.namespace}, {when} · {found.status} · {found.id}")
        self.setEnabled(found is not None)
        self._update_buttons()

    def changes(self) -> dict[str, str]:
        """The fields edited since the card was shown (field name → text; ``severity`` too)."""
        if self._shown is None:
            return {}
        edited = {name: edit.toPlainText().strip() for name, edit in self.fields.items()
                  if edit.toPlainText().strip() != getattr(self._shown, name)}
        if self.severity.currentText() != self._shown.severity.value:
            edited["severity"] = self.severity.currentText()
        return edited

    def _save(self) -> None:
        if self._shown is not None and (edited := self.changes()):
            self.save_requested.emit(self._shown.id, edited)

    def _update_buttons(self) -> None:
        dirty = bool(self.changes())
        self.save_button.setEnabled(dirty)
        self.revert_button.setEnabled(dirty)


class EpisodesDialog(QDialog):
    """The window's scope's episodes: filters above, the table on the left, the selected card on the right.

    Signals:
        loaded(int): a list arrived (how many episodes it holds).
        edited(object): an edit was saved (the new :class:`~..core.memories.Episode`).
    """

    loaded = Signal(int)
    edited = Signal(object)

    def __init__(self, workbench: Workbench, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Episodes")
        self.resize(1280, 600)
        self.workbench = workbench
        self.model = EpisodesModel(self)
        self.severity_filter = QComboBox(self)
        self.severity_filter.addItem("All severities", None)
        for level in Severity:
            self.severity_filter.addItem(level.value.title(), level.value)
        self.text_filter, self._typing = debounced_filter(self, "Filter by text in any field", self.reload)
        self.severity_filter.currentIndexChanged.connect(lambda _i: self.reload())
        self.view = card_table_view(self, self.model, (118, 70, 200, 200))
        self.view.selectionModel().currentRowChanged.connect(lambda current, _p: self._show_row(current.row()))
        self.card = EpisodeCard(self)
        self.card.save_requested.connect(self.save)
        self.status = QLabel(self)
        self.scope_label = QLabel(self)
        filters = QHBoxLayout()
        filters.addWidget(self.scope_label)
        filters.addStretch(1)
        filters.addWidget(self.severity_filter)
        filters.addWidget(self.text_filter, 1)
        splitter = QSplitter(self)
        splitter.addWidget(self.view)
        splitter.addWidget(self.card)
        splitter.setSizes([840, 420])
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(filters)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.status)
        layout.addWidget(buttons)
        self._request = 0
        self._seen: tuple[str, int] | None = None
        workbench.snapshot_ready.connect(self._follow)
        self.reload()

    def reload(self) -> None:
        """List the window's scope's episodes again with the filters as they are (the latest request wins)."""
        self._typing.stop()
        self._request += 1
        request, lib, scope = self._request, self.workbench.lib, self.workbench.state.scope
        severity, text = self.severity_filter.currentData(), self.text_filter.text().strip() or None
        self.scope_label.setText(f"Episodes of {scope}")
        self.workbench.read(lambda _c: episodes.list_episodes(lib, scope, severity, text),
                            lambda found: self._loaded(request, found), title="Episodes")

    def _follow(self, snapshot: Any) -> None:
        # The library changed (an agent's write, an undo, another window) or the window's scope did: list again.
        seen = (snapshot.state.scope, snapshot.change_counter)
        if self.isVisible() and seen != self._seen:
            self.reload()
        self._seen = seen

    def _loaded(self, request: int, found: list[Episode]) -> None:
        if request != self._request:  # an older filter's answer
            return
        keep = self.card.episode.id if self.card.episode else None
        self.model.set_items(found)
        row = self.model.row_of(keep) if keep else None
        if row is None and found:
            row = 0
        if row is not None:
            self.view.selectRow(row)
        self._show_row(-1 if row is None else row)
        self.status.setText(f"{len(found)} episode{'s' if len(found) != 1 else ''}")
        self.loaded.emit(len(found))

    def _show_row(self, row: int) -> None:
        shown = self.model.item_at(row) if 0 <= row < self.model.rowCount() else None
        editing = self.card.changes() and shown is not None and self.card.episode is not None \
            and shown.id == self.card.episode.id  # a person's unsaved edit outlives a reload
        if shown != self.card.episode and not editing:
            self.card.show_episode(shown)

    def save(self, episode_id: str, changes: dict[str, str]) -> None:
        """Save an edit of the card (a write; the list is read again when it is done)."""
        self.status.setText("Saving…")
        self.workbench.edit_episode(episode_id, changes, on_edited=self._saved)

    def _saved(self, found: Episode) -> None:
        self.card.show_episode(found)
        self.edited.emit(found)
        self.reload()
