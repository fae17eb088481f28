"""Indexing progress is honest: what waits is said even while no drain reports, with a time left."""

from __future__ import annotations

import re

from PySide6.QtWidgets import QLabel

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.services import documents, indexing, scopes
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


def test_the_status_bar_gives_one_figure_for_what_waits_to_be_indexed(qtbot, make_window, library):
    # The status text counted the scope's documents marked pending (2) and the indicator the library's
    # indexing queue (3): two figures side by side for one thing.
    scopes.create_scope(library, "session", "s1", parent="project/inbox", name="Session one")
    documents.add_text(library, "Flash attention tiles the softmax")
    documents.add_text(library, "Reformer hashes queries into buckets")
    documents.add_text(library, "A session's own note", scope="session/s1")
    window = make_window(library)  # no indexing process: the queue stays as it is
    window.workbench.indexer.poll()
    queued = indexing.pending_work(library)[0]
    qtbot.waitUntil(lambda: window.workbench.indexer.waiting == queued == 3)
    texts = [label.text() for label in window.statusBar().findChildren(QLabel)]
    figures = {int(found) for text in texts for found in re.findall(r"(\d+) (?:documents? )?waiting", text)}
    assert figures == {3}, texts


def test_a_window_without_background_work_starts_no_indexing_process_when_a_document_changes(
        qtbot, library, make_window):
    """``start_background=False`` (window tests) leaves the queue for the next indexing process: an edit
    used to start one anyway (torch and the model loaded, ~5 s of CPU, in every window test that edits).
    The window that does start its background work is tested in ``test_no_waiting.py``."""
    note = documents.add_text(library, "A note.", doc_type=DocumentType.NOTE, title="before")
    window = make_window(library)
    task = window.workbench.run("Rename", lambda _c: documents.update_document(library, note.id, title="after"))
    qtbot.waitUntil(lambda: task.state.finished, timeout=10_000)
    assert task.state == TaskState.DONE
    assert window.workbench.indexer._process is None and not window.workbench.indexer.busy
    assert indexing.has_jobs(library)  # still queued, for the indexing process of the next window
