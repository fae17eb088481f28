"""Indexing progress is honest: what waits is said even while no drain reports, with a time left."""

from __future__ import annotations

from vancetope_desktop.ui.indexer import time_left
from vancetope_desktop.ui.tasks import TaskManager, TaskState
from vancetope_desktop.ui.tasks_panel import StatusIndicator


def test_time_left_follows_the_rate_measured_so_far():
    assert time_left(0, 100, 30.0) == ""  # no rate yet
    assert time_left(100, 100, 30.0) == ""  # nothing left
    assert time_left(50, 100, 20.0) == "less than a minute left"
    assert time_left(20, 51 + 20, 12 * 60.0) == "about 31 min left"  # issue 11: 20 documents in 12 min
    assert time_left(1, 200, 60.0) == "about 3.3 h left"


def test_the_status_bar_says_what_waits_instead_of_ready(qtbot):
    manager = TaskManager()
    indicator = StatusIndicator(manager)
    qtbot.addWidget(indicator)
    assert indicator.label.text() == "Ready"
    indicator.set_waiting(51)  # the indexing process loads its model: no task reports yet
    assert indicator.label.text() == "51 documents waiting to be indexed"
    task = manager.track("Indexing", lambda: None)
    manager.update(task, 20, 71, "20/71 documents · about 31 min left")
    assert indicator.label.text().startswith("Indexing: 20 / 71 · 20/71 documents · about 31 min left")
    manager.finish(task, TaskState.DONE)
    indicator.set_waiting(0)
    assert indicator.label.text() == "Ready"
