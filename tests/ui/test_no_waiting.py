"""The window never makes the user wait on background work: an approve during an import, the Details panel
across refreshes, closing while the indexing process runs."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QProcess, QSettings

from vancetope_desktop.core.documents import DocumentStatus, DocumentType, IndexState
from vancetope_desktop.core.promotion import RequestStatus
from vancetope_desktop.services import documents, indexing, review
from vancetope_desktop.services.preferences import Preferences
from vancetope_desktop.ui.main_window import MainWindow
from vancetope_desktop.ui.tasks import TaskManager, TaskState, WriteGate

from .test_review_pane import queue  # noqa: F401  (the fixture: three pending promotion requests)


def test_an_import_commits_only_once_no_user_write_is_waiting():
    gate, order = WriteGate(), []
    gate.enter()  # an approve is queued
    importer = threading.Thread(target=lambda: (gate.wait_clear(), order.append("import commit")))
    importer.start()  # the import reaches its next commit meanwhile
    order.append("approve")
    gate.leave()
    importer.join(10)
    assert order == ["approve", "import commit"]
    gate.enter()
    closing = threading.Thread(target=gate.wait_clear)
    closing.start()
    gate.close()  # the window closes: nobody waits for good
    closing.join(10)
    assert not closing.is_alive()


def test_the_write_lane_counts_its_tasks_until_they_end(qtbot):
    manager = TaskManager()
    release = threading.Event()
    task = manager.submit("Approve", lambda _c: release.wait(10), lane="write")
    assert manager.user_writes.pending == 1
    release.set()
    qtbot.waitUntil(lambda: task.state.finished, timeout=10_000)
    assert manager.user_writes.pending == 0
    assert manager.shutdown(10_000)


@pytest.mark.slow  # imports four papers (10-20 s)
def test_an_approve_during_an_import_is_answered_first_and_stays_locked_until_then(
        qtbot, library, queue, make_window, corpus):  # noqa: F811
    window = make_window(library)
    pane, wb = window.review_pane, window.workbench
    qtbot.waitUntil(lambda: pane.pending_count() == 3, timeout=10_000)
    request = queue["reqs"]["attention"]
    papers = sorted((corpus / "papers").glob("*.pdf"), key=lambda p: p.stat().st_size)[:4]
    importing = wb.import_paths(papers)
    qtbot.waitUntil(lambda: importing.done >= 1, timeout=60_000)  # extracting: the first file is in

    answered: list[TaskState] = []  # the import's state when the approve's answer came
    wb.notice.connect(lambda text: answered.append(importing.state) if text.startswith("Approved") else None)
    locked: list[bool] = []  # per snapshot while the request is still listed: were its buttons disabled?
    wb.snapshot_ready.connect(lambda _s: locked.append(not pane.approve_button.isEnabled())
                              if pane.queue_model.request(request.id) is not None else None)
    pane.select_requests([request.id])
    assert pane.approve_button.isEnabled()
    pane.approve_button.click()
    assert not pane.approve_button.isEnabled() and not pane.reject_button.isEnabled()
    pane.approve_selected()  # a second click sends nothing
    wb.refresh()  # a snapshot (indexing progress, another process) before the answer keeps the lock

    qtbot.waitUntil(lambda: bool(answered), timeout=60_000)
    assert not answered[0].finished  # answered while the import still ran
    assert review.get_request(library, request.id).status is RequestStatus.APPROVED
    qtbot.waitUntil(lambda: importing.state.finished, timeout=120_000)
    assert importing.state is TaskState.DONE and not window.error_box
    assert all(locked)
    assert importing.done == len(papers)


def test_a_snapshot_after_opening_a_search_hit_keeps_details_filled(qtbot, library, make_window):
    listed = documents.add_text(library, "Listed here.", doc_type=DocumentType.NOTE, title="In the list")
    found = documents.add_text(library, "Found by search.", doc_type=DocumentType.NOTE, title="From search")
    window = make_window(library)
    details = window.details
    window.table.select_ids([listed.id])
    qtbot.waitUntil(lambda: details.document_id() == listed.id, timeout=10_000)
    window._search_selected(found.id)
    qtbot.waitUntil(lambda: details.document_id() == found.id, timeout=10_000)
    # Another process trashes the document selected in the list: the list's selection empties on the
    # next snapshot, which must not empty (or change) the document the user opened from search.
    documents.set_status(library, listed.id, DocumentStatus.DELETED)
    window.workbench.refresh()  # an older load still running may be shown first: wait for this one's
    qtbot.waitUntil(lambda: window.table.selected_ids() == [], timeout=10_000)
    assert details.document_id() == found.id
    with qtbot.waitSignal(window.workbench.snapshot_ready, timeout=10_000):
        window.workbench.refresh()  # an indexing step
    assert details.document_id() == found.id and details.title_edit.text() == "From search"



@pytest.mark.slow  # the second window's indexing process loads the model: 20-60 s on two busy cores
def test_closing_while_indexing_returns_at_once_and_the_next_window_resumes(qtbot, library, tmp_path, monkeypatch):
    documents.add_text(library, "A note to embed.", doc_type=DocumentType.NOTE, title="queued")
    monkeypatch.setenv("VANCETOPE_CONFIG_DIR", str(tmp_path / "config"))
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)

    def open_window() -> MainWindow:
        window = MainWindow(library, settings=settings, preferences=Preferences())  # with the indexing process
        qtbot.addWidget(window)
        window.show()
        return window

    window = open_window()
    # The indexer starts once the first snapshot is shown (never before the list).
    qtbot.waitUntil(lambda: window.workbench.indexer._process is not None, timeout=30_000)
    process = window.workbench.indexer._process
    qtbot.waitUntil(lambda: process.state() == QProcess.ProcessState.Running, timeout=30_000)
    window.close()
    # The close did not wait for the indexing process (it used to, up to 3 s, then killed it): it is
    # still running, told to stop; the queue is left for the next window.
    assert process.state() != QProcess.ProcessState.NotRunning
    assert indexing.has_jobs(library)
    assert process.waitForFinished(60_000)  # it leaves by itself once it reads the end of its stdin

    again = open_window()
    qtbot.waitUntil(lambda: not indexing.has_jobs(library), timeout=240_000)  # the queue resumed
    assert {d.index_state for d in documents.list_documents(library)} == {IndexState.INDEXED}
    process = again.workbench.indexer._process
    again.close()
    assert process is None or process.waitForFinished(60_000)  # no process left behind the test
