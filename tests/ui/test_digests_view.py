"""The Digests window (issue 13): the change set model passes the model tester; the window digests the picked day,
marks it in the calendar, shows the writeup and its change set, and its Undo takes the run back in one step; the
app's opening run digests the days before today in the background."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from PySide6.QtCore import QUrl

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.services import atoms, digest, documents
from vancetope_desktop.ui.digests_view import ChangeSetModel, linked_markdown
from vancetope_desktop.ui.tasks import TaskState

WAIT_MS = 30_000
SCOPE = "project/inbox"


def test_the_change_set_model_passes_the_model_tester(qtmodeltester, library):
    documents.add_text(library, "Counted 14 herons at the reserve.", doc_type=DocumentType.NOTE, scope=SCOPE)
    run = digest.run_digest(library, SCOPE)
    model = ChangeSetModel()
    qtmodeltester.check(model)
    model.set_items(run.changes)
    qtmodeltester.check(model)
    assert [model.data(model.index(0, c)) for c in (0, 2)] == ["added", run.title]


def test_the_digests_window_runs_shows_and_undoes_a_day(qtbot, library, make_window):
    note = documents.add_text(library, "Heron survey notes.", doc_type=DocumentType.NOTE, scope=SCOPE)
    atoms.store_atom(library, atoms.draft_atom("plan", "Ring the warden", due=date.today() - timedelta(days=2)),
                     scope=SCOPE)
    window = make_window(library, scope=SCOPE)
    assert window.digests_action.text() == "Digests…"
    dialog = window.show_digests()
    qtbot.waitUntil(lambda: "no digest yet" in dialog.heading.text(), timeout=WAIT_MS)
    assert not dialog.undo_button.isEnabled()
    with qtbot.waitSignal(dialog.shown, timeout=WAIT_MS, check_params_cb=lambda run: run is not None):
        dialog.run_button.click()
    assert dialog.run.writeup_id and note.id in dialog.run.content
    qtbot.waitUntil(lambda: dialog.calendar.dateTextFormat(dialog.calendar.selectedDate()).fontWeight() > 400,
                    timeout=WAIT_MS)  # marked in bold (the days with a digest are a read of their own)
    kinds = [dialog.model.data(dialog.model.index(r, 0)) for r in range(dialog.model.rowCount())]
    # The writeup, the plan past due marked missed, then the scope's topic tree (issue 14): its root, its one
    # topic, the plan attached to it.
    assert kinds == ["added", "modified", "added", "added", "added"]
    writeup = dialog.run.writeup_id
    assert f"(doc:{note.id})" in linked_markdown(dialog.run.content)  # its links open the documents
    with qtbot.waitSignal(dialog.open_requested, timeout=WAIT_MS, check_params_cb=lambda doc_id: doc_id == note.id):
        dialog.writeup.anchorClicked.emit(QUrl(f"doc:{note.id}"))
    with qtbot.waitSignal(dialog.shown, timeout=WAIT_MS,
                          check_params_cb=lambda run: run is not None and run.status == "deleted"):
        dialog.undo_button.click()
    assert documents.get_document(library, writeup).status is DocumentStatus.DELETED
    assert "undone" in dialog.heading.text() and not dialog.undo_button.isEnabled()


def test_the_opening_run_digests_the_days_before_today(qtbot, library, make_window):
    window = make_window(library, scope=SCOPE)
    documents.add_text(library, "A note of today.", doc_type=DocumentType.NOTE, scope=SCOPE)
    task = window.workbench.run_pending_digests()
    qtbot.waitUntil(lambda: task.state.finished, timeout=WAIT_MS)
    assert task.state is TaskState.DONE
    assert digest.digest_days(library, SCOPE) == []  # today waits for tomorrow's first opening
    tomorrow = datetime.now() + timedelta(days=1)
    assert [(r.scope, r.day) for r in digest.run_pending(library, now=tomorrow)] == [(SCOPE, date.today())]
    assert digest.run_pending(library, now=tomorrow) == []  # opened again the same day: nothing to do
