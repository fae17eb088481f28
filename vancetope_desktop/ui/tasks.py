"""Background work for the window: tasks in lanes of worker threads, reported by queued signals.

A task is a plain function ``fn(context) -> result`` run on a worker thread. It receives immutable values
and a :class:`TaskContext` (progress, cancel flag) and never touches widgets; its result or exception
reaches the UI thread through a queued signal, where the submitter's callbacks run (STYLE pattern 4).

Lanes (STYLE pattern 5): ``write`` is serial so the user's edits commit in the order made; ``import`` is
serial and runs imports, whose extraction takes seconds per file and only needs the database for the short
commit of each file; ``index`` is serial and loads the embedding model; ``read`` has two threads for loads
and searches, so a slow import never delays what the user looks at; ``snapshot`` is serial and loads only
what every pane shows (``Workbench.refresh``), so the list never waits behind a search, a poll or a pane's
read (a new-user trial saw a rename stay invisible for minutes behind them on a loaded machine).

Only ``import`` and ``index`` run at a lower OS priority: a user's edit on a niced thread took 15-60 s to
commit beside busy processes (load 8-14 on 2 cores), where the same service call from the CLI took 3 s.

User edits have priority over imports: while one is queued or running, an import waits before its next
commit (:class:`WriteGate`), so approving or renaming never queues behind a folder of PDFs (SQLite lets
one writer at a time; its busy wait is first come, first served).
"""

from __future__ import annotations

import itertools
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

from ..core.errors import VancetopeError

LANES = {"write": 1, "import": 1, "index": 1, "read": 2, "snapshot": 1}
BACKGROUND_LANES = ("import", "index")
"""Lanes whose threads run at a lower OS priority, so the UI thread wins the CPU when it is scarce."""
BACKGROUND_NICE = 10


class WriteGate:
    """Counts the user's writes queued or running; imports wait at :meth:`wait_clear` before each commit.

    Thread-safe. :meth:`enter` is called on the UI thread when a write is submitted, :meth:`leave` on its
    worker thread when it ends (whatever the outcome), :meth:`close` when the window closes.
    """

    def __init__(self) -> None:
        self._pending = 0
        self._closed = False
        self._condition = threading.Condition()

    def enter(self) -> None:
        """A user write was queued."""
        with self._condition:
            self._pending += 1

    def leave(self) -> None:
        """A user write ended."""
        with self._condition:
            self._pending = max(self._pending - 1, 0)
            self._condition.notify_all()

    def close(self) -> None:
        """Release every waiter for good (the window is closing)."""
        with self._condition:
            self._closed = True
            self._condition.notify_all()

    def wait_clear(self) -> None:
        """Block until no user write is queued or running (or the gate closed)."""
        with self._condition:
            self._condition.wait_for(lambda: self._pending == 0 or self._closed)

    @property
    def pending(self) -> int:
        """User writes queued or running now."""
        return self._pending


class TaskCancelled(Exception):
    """Raised inside a task (by :meth:`TaskContext.check`) when the user cancelled it."""


class TaskState(StrEnum):
    """Where a task is in its life."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def finished(self) -> bool:
        """True once the task will not change any more."""
        return self in (TaskState.DONE, TaskState.FAILED, TaskState.CANCELLED)


class TaskContext:
    """What a running task may use: report progress and look at its cancel flag (thread-safe)."""

    def __init__(self, task_id: int, signals: _TaskSignals) -> None:
        self._task_id = task_id
        self._signals = signals
        self._cancel = threading.Event()
        self._last_report = 0.0

    def progress(self, done: int, total: int, text: str = "", *, force: bool = False) -> None:
        """Report ``done`` of ``total`` units (files, chunks…) and what is being done.

        Reports are throttled to ten a second (the UI cannot show more), except when ``force`` is set
        or the work is complete.
        """
        now = time.monotonic()
        if force or done >= total or now - self._last_report >= 0.1:
            self._last_report = now
            self._signals.progress.emit(self._task_id, done, total, text)

    def cancelled(self) -> bool:
        """True once the user asked to cancel; long loops should stop soon after."""
        return self._cancel.is_set()

    def check(self) -> None:
        """Raise :class:`TaskCancelled` if the user cancelled."""
        if self._cancel.is_set():
            raise TaskCancelled()

    def cancel(self) -> None:
        """Ask the task to stop (called from the UI thread)."""
        self._cancel.set()


@dataclass(eq=False)
class Task:
    """One unit of background work as the UI sees it (only touched on the UI thread)."""

    id: int
    title: str
    lane: str
    fn: Callable[[TaskContext], Any]
    on_result: Callable[[Any], None] | None
    on_error: Callable[[BaseException], None] | None
    visible: bool
    cancellable: bool
    state: TaskState = TaskState.QUEUED
    done: int = 0
    total: int = 0
    detail: str = ""
    error: str = ""
    messages: list[str] = field(default_factory=list)
    retry: Callable[[], None] | None = None
    started_at: float = 0.0
    finished_at: float = 0.0
    context: TaskContext | None = None
    external_cancel: Callable[[], None] | None = None

    @property
    def fraction(self) -> float | None:
        """Progress in [0, 1], or None when the total is unknown."""
        return min(self.done / self.total, 1.0) if self.total > 0 else None


class _TaskSignals(QObject):
    """Created on the UI thread, emitted from workers: the connections are therefore queued.

    Parented to the :class:`TaskManager`, so that only the UI thread deletes it (``deleteLater`` once its task
    has ended). Unparented, it was owned by its Python references, the last of which is often the runnable
    the pool drops on its worker thread: the object was then destroyed off its thread, beside the pending
    ``deleteLater`` (a test worker crashed on it).
    """

    progress = Signal(int, int, int, str)
    finished = Signal(int, object)
    failed = Signal(int, object)


class _Runnable(QRunnable):
    def __init__(self, task_id: int, fn: Callable[[TaskContext], Any], context: TaskContext,
                 signals: _TaskSignals, *, background: bool, gate: WriteGate | None) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self._task_id, self._fn, self._context, self._signals = task_id, fn, context, signals
        self._background = background
        self._gate = gate

    def run(self) -> None:
        try:
            self._run()
        finally:
            if self._gate is not None:
                self._gate.leave()  # before the result is announced: the next import commit may go

    def _run(self) -> None:
        if self._background:
            _lower_thread_priority()
        try:
            self._signals.progress.emit(self._task_id, -1, -1, "")  # marks the task running
            try:
                self._context.check()
                result = self._fn(self._context)
            except BaseException as error:  # every failure must reach the UI, never kill the thread
                if not isinstance(error, VancetopeError | TaskCancelled):
                    error.__vancetope_trace__ = traceback.format_exc()  # type: ignore[attr-defined]
                self._signals.failed.emit(self._task_id, error)
            else:
                self._signals.finished.emit(self._task_id, result)
        except RuntimeError:
            pass  # the window closed while this ran: nobody is left to tell


def _lower_thread_priority() -> None:
    """Raise this thread's nice value (Linux threads have their own; elsewhere nothing happens).

    Imports and indexing compete with the UI thread for the CPU on small machines; the scheduler then
    prefers the UI thread. Only ever lowered, so repeated calls on a pooled thread are harmless.
    """
    if sys.platform.startswith("linux"):
        try:
            current = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
            if current < BACKGROUND_NICE:
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BACKGROUND_NICE)
        except OSError:
            pass


class TaskManager(QObject):
    """Runs tasks in the lanes and keeps the list the Tasks panel and status bar show.

    Signals:
        task_added(Task): a visible task was submitted.
        task_changed(Task): a visible task's state or progress changed.
        busy_changed(int): number of visible tasks not finished.
        tasks_removed(): finished tasks left the list (:meth:`remove`).

    Attributes:
        user_writes: the :class:`WriteGate` of the ``write`` lane; import tasks call its ``wait_clear``
            before each commit.
    """

    task_added = Signal(object)
    task_changed = Signal(object)
    busy_changed = Signal(int)
    tasks_removed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pools: dict[str, QThreadPool] = {}
        for lane, threads in LANES.items():
            pool = QThreadPool(self)
            pool.setMaxThreadCount(threads)
            self._pools[lane] = pool
        self._ids = itertools.count(1)
        self._live: dict[int, tuple[Task, _TaskSignals]] = {}
        self._closed = False
        self.tasks: list[Task] = []
        self.user_writes = WriteGate()

    def submit(self, title: str, fn: Callable[[TaskContext], Any], *, lane: str = "read",
               on_result: Callable[[Any], None] | None = None,
               on_error: Callable[[BaseException], None] | None = None,
               visible: bool = False, cancellable: bool = True) -> Task:
        """Queue ``fn(context)`` on ``lane``; callbacks run on the UI thread when it ends.

        Args:
            title: shown in the Tasks panel ("Importing 3 files").
            lane: ``read``, ``write`` (the user's edits, first come first served, ahead of imports),
                ``import``, ``index`` or ``snapshot`` (the window's own loads, :meth:`Workbench.refresh`).
            visible: list it in the Tasks panel and the status bar (imports, indexing); loads and
                searches stay invisible.
            on_error: gets the exception; without it a failure is only recorded on the task. A
                cancelled task calls neither callback.

        Raises:
            KeyError: unknown lane. (After :meth:`shutdown` the task is returned cancelled, not run.)
        """
        pool = self._pools[lane]
        task = Task(id=next(self._ids), title=title, lane=lane, fn=fn, on_result=on_result, on_error=on_error,
                    visible=visible, cancellable=cancellable)
        if self._closed:  # late work after the window closed (a callback of the last task) never runs
            task.state = TaskState.CANCELLED
            return task
        signals = _TaskSignals(self)
        signals.progress.connect(self._on_progress)
        signals.finished.connect(self._on_finished)
        signals.failed.connect(self._on_failed)
        task.context = TaskContext(task.id, signals)
        self._live[task.id] = (task, signals)
        if visible:
            self.tasks.append(task)
            self.task_added.emit(task)
            self._announce_busy()
        gate = self.user_writes if lane == "write" else None
        if gate is not None:
            gate.enter()
        pool.start(_Runnable(task.id, fn, task.context, signals, background=lane in BACKGROUND_LANES, gate=gate))
        return task

    def track(self, title: str, cancel: Callable[[], None]) -> Task:
        """List work that runs elsewhere (the indexing process): the caller reports with :meth:`update`
        and :meth:`finish`; the panel's Cancel calls ``cancel``."""
        task = Task(id=next(self._ids), title=title, lane="external", fn=lambda _c: None, on_result=None,
                    on_error=None, visible=True, cancellable=True, state=TaskState.RUNNING)
        task.external_cancel = cancel
        self.tasks.append(task)
        self.task_added.emit(task)
        self._announce_busy()
        return task

    def update(self, task: Task, done: int, total: int, text: str = "") -> None:
        """Progress of a tracked task."""
        task.done, task.total, task.detail = done, total, text
        self._changed(task)

    def finish(self, task: Task, state: TaskState, error: str = "") -> None:
        """End a tracked task."""
        task.state, task.error, task.finished_at = state, error, time.monotonic()
        self._changed(task)

    def cancel(self, task: Task) -> None:
        """Ask a task to stop; a queued one is dropped before it starts."""
        if task.state.finished or not task.cancellable:
            return
        if task.external_cancel is not None:
            task.external_cancel()
        elif task.context is not None:
            task.context.cancel()  # a queued task sees the flag when its turn comes and ends at once
        self._changed(task)

    def retry(self, task: Task) -> Task | None:
        """Run a failed or cancelled task again (its own retry action when it set one)."""
        if not task.state.finished or (task.state == TaskState.DONE and task.retry is None):
            return None
        if task.retry is not None:
            task.retry()
            return None
        return self.submit(task.title, task.fn, lane=task.lane, on_result=task.on_result, on_error=task.on_error,
                           visible=task.visible, cancellable=task.cancellable)

    def remove(self, task: Task) -> None:
        """Take a finished ``task`` off the list (its failure is reported by another task, one per cause).

        Raises:
            ValueError: the task is not finished (a running task must stay listed).
        """
        if not task.state.finished:
            raise ValueError(f"task {task.title!r} is still {task.state.value}: only a finished task is removed")
        if task in self.tasks:
            self.tasks.remove(task)
            self.tasks_removed.emit()

    def clear_finished(self) -> None:
        """Forget finished visible tasks (the Tasks panel's "Clear")."""
        self.tasks = [t for t in self.tasks if not t.state.finished]

    def active(self) -> list[Task]:
        """Visible tasks not finished yet."""
        return [t for t in self.tasks if not t.state.finished]

    def running(self, lane: str) -> bool:
        """True while any task (visible or not) of ``lane`` is queued or running."""
        return any(t.lane == lane for t, _ in self._live.values())

    def wait_idle(self, timeout_ms: int = 30_000) -> bool:
        """Block until every lane is empty (for shutdown and tests). True if they all finished."""
        deadline = time.monotonic() + timeout_ms / 1000
        for pool in self._pools.values():
            left = max(int((deadline - time.monotonic()) * 1000), 1)
            if not pool.waitForDone(left):
                return False
        return True

    def stop(self) -> None:
        """Cancel everything and refuse new tasks, without waiting (see :meth:`shutdown`)."""
        self._closed = True
        self.user_writes.close()
        for task, _ in list(self._live.values()):
            if task.context is not None:
                task.context.cancel()

    def shutdown(self, timeout_ms: int = 30_000) -> bool:
        """:meth:`stop`, then wait for the threads to finish their current step. True if they all did."""
        self.stop()
        return self.wait_idle(timeout_ms)

    # --- slots (UI thread) ---------------------------------------------------------------------
    @Slot(int, int, int, str)  # declared: PySide 6.8+ crashes on some undeclared cross-thread slots (PYSIDE-3124)
    def _on_progress(self, task_id: int, done: int, total: int, text: str) -> None:
        entry = self._live.get(task_id)
        if entry is None:
            return
        task = entry[0]
        if done < 0:
            task.state = TaskState.RUNNING
            task.started_at = time.monotonic()
        else:
            task.done, task.total, task.detail = done, total, text
        self._changed(task)

    @Slot(int, object)
    def _on_finished(self, task_id: int, result: object) -> None:
        task = self._end(task_id, TaskState.DONE)
        if task is None:
            return
        if task.context is not None and task.context.cancelled() and task.cancellable:
            task.state = TaskState.CANCELLED
        self._changed(task)
        if task.on_result is not None:
            task.on_result(result)

    @Slot(int, object)
    def _on_failed(self, task_id: int, error: object) -> None:
        cancelled = isinstance(error, TaskCancelled)
        task = self._end(task_id, TaskState.CANCELLED if cancelled else TaskState.FAILED)
        if task is None:
            return
        if not cancelled:
            task.error = str(error) or type(error).__name__
        self._changed(task)
        if not cancelled and task.on_error is not None:
            task.on_error(error)  # type: ignore[arg-type]

    def _end(self, task_id: int, state: TaskState) -> Task | None:
        entry = self._live.pop(task_id, None)
        if entry is None:
            return None
        task, signals = entry
        task.state = state
        task.finished_at = time.monotonic()
        signals.deleteLater()
        return task

    def _changed(self, task: Task) -> None:
        if task.visible:
            self.task_changed.emit(task)
            self._announce_busy()

    def _announce_busy(self) -> None:
        self.busy_changed.emit(len(self.active()))
