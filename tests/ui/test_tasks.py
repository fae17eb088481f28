"""The task lanes: results and errors reach the UI thread, progress, cancel, retry, the Tasks panel."""

from __future__ import annotations

import threading
import time

import pytest

from vancetope_desktop.core.errors import InvalidInput
from vancetope_desktop.ui.tasks import TaskCancelled, TaskManager, TaskState
from vancetope_desktop.ui.tasks_panel import StatusIndicator, TaskListModel, TasksPanel


@pytest.fixture
def manager(qtbot):
    tasks = TaskManager()
    yield tasks
    assert tasks.shutdown(10_000)


def test_result_arrives_on_the_ui_thread(qtbot, manager):
    seen = []
    main = threading.get_ident()

    def work(context):
        return threading.get_ident()

    manager.submit("t", work, on_result=lambda worker: seen.append((worker, threading.get_ident())))
    qtbot.waitUntil(lambda: bool(seen), timeout=5000)
    worker, callback = seen[0]
    assert worker != main
    assert callback == main


def test_errors_are_recorded_and_passed_on(qtbot, manager):
    errors = []

    def work(context):
        raise InvalidInput("bad input")

    task = manager.submit("t", work, visible=True, on_error=errors.append)
    qtbot.waitUntil(lambda: task.state.finished, timeout=5000)
    assert task.state == TaskState.FAILED
    assert task.error == "bad input"
    assert isinstance(errors[0], InvalidInput)


def test_cancel_stops_a_running_task_and_calls_no_callback(qtbot, manager):
    started = threading.Event()
    called = []

    def work(context):
        started.set()
        for n in range(500):
            context.progress(n, 500, f"step {n}")
            context.check()
            time.sleep(0.01)
        return "finished"

    task = manager.submit("long", work, visible=True, on_result=called.append, on_error=called.append)
    assert started.wait(5)
    qtbot.waitUntil(lambda: task.state == TaskState.RUNNING and task.done > 0, timeout=5000)
    manager.cancel(task)
    qtbot.waitUntil(lambda: task.state.finished, timeout=5000)
    assert task.state == TaskState.CANCELLED
    assert called == []
    assert task.done < 500


def test_write_lane_is_serial(qtbot, manager):
    order = []
    lock = threading.Lock()

    def work(n):
        def run(context):
            with lock:
                order.append(("start", n))
            time.sleep(0.05)
            with lock:
                order.append(("end", n))
        return run

    tasks = [manager.submit(f"w{n}", work(n), lane="write") for n in range(3)]
    qtbot.waitUntil(lambda: all(t.state.finished for t in tasks), timeout=5000)
    assert order == [(kind, n) for n in range(3) for kind in ("start", "end")]


def test_retry_runs_a_failed_task_again(qtbot, manager):
    attempts = []

    def flaky(context):
        attempts.append(1)
        if len(attempts) == 1:
            raise OSError("disk busy")
        return "ok"

    results = []
    task = manager.submit("flaky", flaky, visible=True, on_result=results.append)
    qtbot.waitUntil(lambda: task.state.finished, timeout=5000)
    again = manager.retry(task)
    assert again is not None
    qtbot.waitUntil(lambda: results == ["ok"], timeout=5000)


def test_tasks_panel_lists_progress_and_cancels(qtbot, qtmodeltester, manager):
    panel = TasksPanel(manager)
    qtbot.addWidget(panel)
    indicator = StatusIndicator(manager)
    qtbot.addWidget(indicator)
    release = threading.Event()

    def work(context):
        context.progress(3, 10, "paper.pdf", force=True)
        while not release.is_set():
            if context.cancelled():
                raise TaskCancelled()
            time.sleep(0.01)
        return None

    task = manager.submit("Importing 10 files", work, visible=True)
    qtbot.waitUntil(lambda: task.done == 3, timeout=5000)
    qtmodeltester.check(panel.model)
    assert panel.model.rowCount() == 1
    assert "3 / 10" in panel.model.index(0, 1).data()
    assert "Importing 10 files" in indicator.label.text()
    panel.view.setCurrentIndex(panel.model.index(0, 0))
    assert panel.cancel_button.isEnabled()
    panel.cancel_button.click()
    qtbot.waitUntil(lambda: task.state == TaskState.CANCELLED, timeout=5000)
    assert indicator.label.text() == "Ready"
    panel.clear_button.click()
    assert panel.model.rowCount() == 0
    qtmodeltester.check(TaskListModel(manager))
