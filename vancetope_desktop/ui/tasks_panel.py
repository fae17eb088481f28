"""The Tasks panel (every visible background job with progress, cancel, retry and failures) and the
status-bar indicator that opens it."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, QRect, Qt, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QSplitter,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionProgressBar,
    QStyleOptionViewItem,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from .item_models import column_title
from .task_text import problem_count
from .tasks import Task, TaskManager, TaskState

TASK_ROLE = Qt.ItemDataRole.UserRole + 1
_Index = QModelIndex | QPersistentModelIndex
_NO_PARENT = QModelIndex()  # a shared default: Qt's signatures default to the invalid index
_COLUMNS = ("Task", "Progress", "State")


def progress_text(task: Task) -> str:
    """"12 / 50 files · paper.pdf"-style text for a task's progress (empty before any report)."""
    parts = []
    if task.total > 0:
        parts.append(f"{task.done} / {task.total}")
    if task.detail:
        parts.append(task.detail)
    return " · ".join(parts)


class TaskListModel(QAbstractTableModel):
    """The visible tasks of a :class:`TaskManager`, newest first."""

    def __init__(self, manager: TaskManager, parent=None) -> None:
        super().__init__(parent)
        self._manager = manager
        self._tasks: list[Task] = list(reversed(manager.tasks))
        manager.task_added.connect(self._added)
        manager.task_changed.connect(self._changed)
        manager.tasks_removed.connect(self.reload)

    def task(self, row: int) -> Task:
        """The task shown on ``row``."""
        return self._tasks[row]

    def rowCount(self, parent: _Index = _NO_PARENT) -> int:
        return 0 if parent.isValid() else len(self._tasks)

    def columnCount(self, parent: _Index = _NO_PARENT) -> int:
        return 0 if parent.isValid() else len(_COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole):
        return column_title(_COLUMNS, section, orientation, role)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or not 0 <= index.row() < len(self._tasks):
            return None
        task = self._tasks[index.row()]
        column = index.column()
        if role == TASK_ROLE:
            return task
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return task.title
            if column == 1:
                return progress_text(task)
            if column == 2:
                return _state_text(task)
        if role == Qt.ItemDataRole.ToolTipRole:
            return task.error or progress_text(task) or task.title
        return None

    def reload(self) -> None:
        """Re-read the manager's list (after "Clear finished")."""
        self.beginResetModel()
        self._tasks = list(reversed(self._manager.tasks))
        self.endResetModel()

    def _added(self, task: Task) -> None:
        self.beginInsertRows(QModelIndex(), 0, 0)
        self._tasks.insert(0, task)
        self.endInsertRows()

    def _changed(self, task: Task) -> None:
        for row, shown in enumerate(self._tasks):
            if shown is task:
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(_COLUMNS) - 1))
                return


def _state_text(task: Task) -> str:
    problems = problem_count(task.messages)
    if task.state == TaskState.DONE and problems:  # notices ("already in your library") are no problem
        return f"done, {problems} problem{'s' if problems != 1 else ''}"
    if task.state == TaskState.RUNNING and task.context is not None and task.context.cancelled():
        return "cancelling…"
    return task.state.value


class _ProgressDelegate(QStyledItemDelegate):
    """Draws the progress column as a progress bar with its text."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        task: Task = index.data(TASK_ROLE)
        if task is None or (task.state.finished and task.state != TaskState.DONE):
            super().paint(painter, option, index)
            return
        bar = QStyleOptionProgressBar()
        bar.rect = QRect(option.rect.adjusted(2, 3, -2, -3))
        bar.minimum, bar.maximum = 0, 1000
        fraction = 1.0 if task.state == TaskState.DONE else task.fraction
        bar.progress = int((fraction or 0) * 1000) if fraction is not None else 0
        if fraction is None and task.state == TaskState.RUNNING:
            bar.minimum = bar.maximum = 0  # busy indicator: the total is unknown yet
        bar.text = progress_text(task)
        bar.textVisible = True
        bar.state = option.state
        style = option.widget.style() if option.widget else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ProgressBar, bar, painter, option.widget)


class TasksPanel(QWidget):
    """A table of tasks with Cancel, Retry and Clear, and the selected task's problems below it."""

    def __init__(self, manager: TaskManager, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._manager = manager
        self.model = TaskListModel(manager, self)
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.setItemDelegateForColumn(1, _ProgressDelegate(self.view))
        self.view.verticalHeader().setVisible(False)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        # One row per message, wrapped rather than cut, the technical reason on hover (TaskMessage.detail).
        self.details = QListWidget()
        self.details.setWordWrap(True)
        self.details.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.details.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.details.setResizeMode(QListWidget.ResizeMode.Adjust)
        self.details.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.details.setToolTip("Problems of the selected task appear here.")
        self.cancel_button = QPushButton("Cancel")
        self.retry_button = QPushButton("Retry")
        self.clear_button = QPushButton("Clear finished")
        buttons = QHBoxLayout()
        for button in (self.cancel_button, self.retry_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.clear_button)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.view)
        splitter.addWidget(self.details)
        splitter.setSizes([600, 300])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter)
        layout.addLayout(buttons)
        self.cancel_button.clicked.connect(self._cancel)
        self.retry_button.clicked.connect(self._retry)
        self.clear_button.clicked.connect(self._clear)
        self.view.selectionModel().currentRowChanged.connect(lambda *_: self._update())
        manager.task_changed.connect(lambda _task: self._update())
        manager.tasks_removed.connect(self._update)
        self._update()

    def selected_task(self) -> Task | None:
        """The task under the cursor, if any."""
        index = self.view.currentIndex()
        return self.model.task(index.row()) if index.isValid() else None

    def _cancel(self) -> None:
        task = self.selected_task()
        if task is not None:
            self._manager.cancel(task)

    def _retry(self) -> None:
        task = self.selected_task()
        if task is not None:
            self._manager.retry(task)

    def _clear(self) -> None:
        self._manager.clear_finished()
        self.model.reload()
        self._update()

    def _update(self) -> None:
        task = self.selected_task()
        self.cancel_button.setEnabled(bool(task and not task.state.finished and task.cancellable))
        self.retry_button.setEnabled(bool(task and task.state.finished
                                          and (task.state != TaskState.DONE or task.retry is not None)))
        self.details.clear()
        if task is None:
            return
        lines = [task.title, _state_text(task)]
        if task.error:
            lines.append(f"Error: {task.error}")
        for line in [*lines, *task.messages]:
            item = QListWidgetItem(line)
            item.setToolTip(getattr(line, "detail", "") or line)
            self.details.addItem(item)

    def message_texts(self) -> list[str]:
        """The lines the details list shows for the selected task (title, state, error, messages)."""
        return [self.details.item(row).text() for row in range(self.details.count())]


class StatusIndicator(QWidget):
    """Status-bar summary of the running tasks; clicking it asks to show the Tasks panel."""

    open_requested = Signal()

    def __init__(self, manager: TaskManager, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._manager = manager
        self._waiting = 0
        self.label = QLabel("Ready")
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(140)
        self.bar.setMaximumHeight(14)
        self.bar.setTextVisible(False)
        self.button = QToolButton()
        self.button.setText("Tasks")
        self.button.setAutoRaise(True)
        self.button.clicked.connect(self.open_requested)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.button)
        manager.task_changed.connect(lambda _task: self.refresh())
        manager.task_added.connect(lambda _task: self.refresh())
        manager.tasks_removed.connect(self.refresh)
        self.refresh()

    def set_waiting(self, documents: int) -> None:
        """Documents queued for indexing (library-wide): shown instead of "Ready" while no task runs."""
        self._waiting = documents
        self.refresh()

    def refresh(self) -> None:
        """Show the first running task's progress, and how many more are waiting."""
        active = self._manager.active()
        failed = sum(1 for t in self._manager.tasks if t.state == TaskState.FAILED)
        self.button.setText(f"Tasks ({failed} failed)" if failed else "Tasks")
        if not active:
            waiting = self._waiting
            self.label.setText(f"{waiting} document{'s' if waiting != 1 else ''} waiting to be indexed"
                               if waiting else "Ready")
            self.bar.hide()
            return
        first = next((t for t in active if t.state == TaskState.RUNNING), active[0])
        more = f" (+{len(active) - 1} more)" if len(active) > 1 else ""
        self.label.setText(f"{first.title}: {progress_text(first) or first.state.value}{more}")
        self.bar.show()
        fraction = first.fraction
        if fraction is None:
            self.bar.setRange(0, 0)
        else:
            self.bar.setRange(0, 1000)
            self.bar.setValue(int(fraction * 1000))
