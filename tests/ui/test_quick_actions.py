"""A quick action shows at once even while the window is busy (issue 11, the new-user trial on a loaded machine):
the list's loads have their own lane and are never starved by newer ones, the user's edits run at normal
priority, Undo/Redo are named from the undo's own answer and a second Ctrl+Z is queued, an import says
"Preparing…" at once, and the window says it is opening the library before its first snapshot.

The trial's figures are in ``tests/benchmarks/bench_quick_actions.py``; these tests check orderings and
states only (gated loads and lanes held by events), never times.
"""

from __future__ import annotations

import os
import threading

from PySide6.QtCore import QSettings

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.services import documents
from vancetope_desktop.services.preferences import Preferences
from vancetope_desktop.ui import workbench as workbench_module
from vancetope_desktop.ui.main_window import MainWindow
from vancetope_desktop.ui.tasks import TaskManager

WAIT = 10_000
SETTLE = 120_000
"""Milliseconds a test waits for work that is not what it checks to end (a timing on a shared machine is no check)."""


class _GatedLoads:
    """Wraps the real ``load_snapshot``: each load waits until the test lets it go, and is counted. Made once
    the window's own loads of its opening (the folder tree picking its first entry) have ended."""

    def __init__(self, monkeypatch, qtbot=None, window=None) -> None:
        if window is not None:
            qtbot.waitUntil(lambda: not window.tasks.running("snapshot"), timeout=WAIT)
        self.started = 0
        self.release = threading.Semaphore(0)
        self.open = False
        real = workbench_module.load_snapshot

        def gated(lib, state):
            self.started += 1
            if not self.open:
                self.release.acquire(timeout=WAIT / 1000)
            return real(lib, state)

        monkeypatch.setattr(workbench_module, "load_snapshot", gated)

    def let_all_go(self) -> None:
        self.open = True
        for _ in range(10):
            self.release.release()


def test_a_snapshot_load_does_not_wait_behind_reads_holding_the_read_lane(qtbot, library, make_window):
    window = make_window(library)
    hold = threading.Event()
    for _ in range(2):  # two searches (the read lane's two threads) that take long
        window.workbench.read(lambda _c: hold.wait(WAIT / 1000), lambda _r: None)
    documents.add_text(library, "Written elsewhere.", doc_type=DocumentType.NOTE, title="Fresh note")
    try:
        window.workbench.refresh()
        # Another load (the window's own, asked earlier) may be shown first: wait for the one with the note.
        qtbot.waitUntil(lambda: "Fresh note" in {d.title for d in window.workbench.snapshot.documents},
                        timeout=WAIT)
        assert window.tasks.running("read")  # shown while both reads still hold the read lane
    finally:
        hold.set()


def test_a_finished_load_is_shown_although_a_newer_one_was_asked_for(qtbot, library, make_window, monkeypatch):
    """During an import refreshes come every few seconds; a load slower than that was always dropped for the
    newer one, so a rename stayed invisible until the import ended."""
    window = make_window(library)
    note = documents.add_text(library, "Body.", doc_type=DocumentType.NOTE, title="Old title")
    loads = _GatedLoads(monkeypatch, qtbot, window)
    try:
        window.workbench.refresh()  # the rename's refresh: its load runs (gated)
        qtbot.waitUntil(lambda: loads.started == 1, timeout=WAIT)
        documents.update_document(library, note.id, title="New title")
        window.workbench.refresh()  # the import's next refresh, queued behind it
        window.workbench.refresh()  # and another: the one before it is superseded before it starts
        with qtbot.waitSignal(window.workbench.snapshot_ready, timeout=WAIT):
            loads.release.release()  # only the first load may finish
        loads.let_all_go()
        qtbot.waitUntil(lambda: not window.tasks.running("snapshot"), timeout=WAIT)
        assert loads.started == 2  # the superseded load read nothing
        assert "New title" in {d.title for d in window.workbench.snapshot.documents}
    finally:
        loads.let_all_go()


def test_a_load_for_a_view_the_user_left_is_not_shown(qtbot, library, make_window, monkeypatch):
    window = make_window(library)
    loads = _GatedLoads(monkeypatch, qtbot, window)
    shown = []
    window.workbench.snapshot_ready.connect(lambda snapshot: shown.append(snapshot.state.tags))
    try:
        window.workbench.refresh()
        qtbot.waitUntil(lambda: loads.started == 1, timeout=WAIT)
        window.workbench.set_tag_filter(["wanted"], "all")  # the user picks a tag meanwhile
        loads.let_all_go()
        qtbot.waitUntil(lambda: bool(shown), timeout=WAIT)
        assert shown[0] == ("wanted",)  # the load for the list without the tag was never shown
    finally:
        loads.let_all_go()


def test_the_users_edits_run_at_the_process_priority_only_imports_and_indexing_are_niced(qtbot):
    manager = TaskManager()
    own = os.getpriority(os.PRIO_PROCESS, 0)
    seen: dict[str, int] = {}

    def niceness(_context) -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    for lane in ("write", "snapshot", "import"):
        manager.submit(lane, niceness, lane=lane, on_result=lambda value, lane=lane: seen.__setitem__(lane, value))
    qtbot.waitUntil(lambda: len(seen) == 3, timeout=WAIT)
    manager.shutdown()
    assert seen["write"] == own and seen["snapshot"] == own
    assert seen["import"] > own or own >= 10


def test_undo_and_redo_are_named_from_the_undos_answer_before_the_next_snapshot(qtbot, library, make_window,
                                                                                 monkeypatch):
    note = documents.add_text(library, "Body.", doc_type=DocumentType.NOTE, title="Draft")
    window = make_window(library)
    actions = window.undo_actions
    window.workbench.set_status([note.id], DocumentStatus.DELETED, "Move to trash")
    qtbot.waitUntil(lambda: actions.undo_action.text() == "Undo Trash “Draft”", timeout=WAIT)
    loads = _GatedLoads(monkeypatch, qtbot, window)  # no snapshot after this point until released
    messages = []
    window.workbench.notice.connect(messages.append)
    try:
        actions.undo_action.trigger()
        assert messages[0] == "Undoing Trash “Draft”…"
        # At once, and confirmed by the undo's own answer while the snapshot is still held back.
        assert (actions.redo_action.text(), actions.redo_action.isEnabled()) == ("Redo Trash “Draft”", True)
        qtbot.waitUntil(lambda: "Undo Trash “Draft”" in messages, timeout=WAIT)
        assert documents.get_document(library, note.id).status is DocumentStatus.ACTIVE
        assert loads.started <= 1 and window.workbench.snapshot.undo_history[0][0].label == "Trash “Draft”"
        assert (actions.redo_action.text(), actions.redo_action.isEnabled()) == ("Redo Trash “Draft”", True)
    finally:
        loads.let_all_go()


def test_a_redo_pressed_while_the_undo_is_pending_is_queued_not_ignored(qtbot, library, make_window):
    note = documents.add_text(library, "Body.", doc_type=DocumentType.NOTE, title="Draft")
    window = make_window(library)
    actions = window.undo_actions
    window.workbench.set_status([note.id], DocumentStatus.DELETED, "Move to trash")
    qtbot.waitUntil(lambda: actions.undo_action.isEnabled(), timeout=WAIT)
    hold = threading.Event()
    window.workbench.tasks.submit("a long edit", lambda _c: hold.wait(WAIT / 1000), lane="write")
    try:
        actions.undo_action.trigger()  # waits behind the long edit
        assert actions.redo_action.isEnabled()
        actions.redo_action.trigger()  # the second key press: queued behind the undo
        assert actions.pending == 2
    finally:
        hold.set()
    qtbot.waitUntil(lambda: actions.pending == 0, timeout=WAIT)
    qtbot.waitUntil(lambda: not window.tasks.running("write"), timeout=WAIT)
    assert documents.get_document(library, note.id).status is DocumentStatus.DELETED  # undone, then redone
    qtbot.waitUntil(lambda: actions.undo_action.text() == "Undo Trash “Draft”", timeout=WAIT)


def test_an_import_says_preparing_at_once(qtbot, library, make_window, tmp_path):
    window = make_window(library)
    hold = threading.Event()
    window.workbench.tasks.submit("an earlier import", lambda _c: hold.wait(WAIT / 1000), lane="import")
    note = tmp_path / "note.md"
    note.write_text("# A note\n\nText.")
    messages = []
    window.workbench.notice.connect(messages.append)
    try:
        task = window.workbench.import_paths([note])
        assert task is not None and task in window.tasks.active() and task.detail == "Preparing…"
        assert messages == ["Importing note.md: preparing…"]
    finally:
        hold.set()
    # Only so that the import ends before the library closes: its extraction process may take long on a busy machine.
    qtbot.waitUntil(lambda: task.state.finished, timeout=SETTLE)


def test_the_window_says_it_opens_the_library_and_starts_the_indexer_after_the_first_snapshot(
        qtbot, library, tmp_path, monkeypatch):
    monkeypatch.setenv("VANCETOPE_CONFIG_DIR", str(tmp_path / "config"))
    loads = _GatedLoads(monkeypatch)
    started = []
    monkeypatch.setattr("vancetope_desktop.ui.indexer.Indexer.start", lambda self: started.append(self))
    window = MainWindow(library, settings=QSettings(str(tmp_path / "w.ini"), QSettings.Format.IniFormat),
                        preferences=Preferences())
    qtbot.addWidget(window)
    try:
        window.show()
        assert window.library_stack.currentWidget() is window.opening_label
        assert window.opening_label.text() == "Opening the library…"
        assert started == []  # the model's load waits for the list
        loads.let_all_go()
        qtbot.waitUntil(lambda: window.workbench.snapshot is not None, timeout=WAIT)
        assert window.library_stack.currentWidget() is not window.opening_label
        assert len(started) == 1
    finally:
        loads.let_all_go()
        window.close()
