"""The review queue: labels and grouping (pure), the item models, the pane's dialogs, and the pane driven
end to end in the real window on a real library (approve, reject, bulk, approve to, edit then approve,
the diff of an update, the badge, the history, and the Details panel's History section)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt
from PySide6.QtWidgets import QDialogButtonBox, QHeaderView

from vancetope_desktop.agents import task_tree
from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.promotion import AuditEntry, PromotionRequest, RequesterKind, RequestStatus
from vancetope_desktop.services import documents, identity, review, scopes
from vancetope_desktop.ui.diff_view import RowKind
from vancetope_desktop.ui.document_model import type_icon
from vancetope_desktop.ui.history_text import request_rows, trail_rows
from vancetope_desktop.ui.review_dialogs import EditApproveDialog, RejectDialog
from vancetope_desktop.ui.review_model import (
    Approval,
    ReviewHistoryModel,
    ReviewQueueModel,
    ReviewRole,
    actor_label,
    age_text,
    group_requests,
)
from vancetope_desktop.ui.review_pane import ReviewPane

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
NAMES = {"think-process/tp_12": "Paper Analysis", "think-process/tp_13": "Hypothesis Check",
         "session/s1": "Review 2026", "project/inbox": "Inbox", "group/default": "My Research"}
ANCESTRY = {"think-process/tp_12": ["think-process/tp_12", "session/s1", "project/inbox", "group/default"],
            "think-process/tp_13": ["think-process/tp_13", "session/s1", "project/inbox", "group/default"],
            "session/s1": ["session/s1", "project/inbox", "group/default"]}


def _request(number: int, source: str = "think-process/tp_12", *, by: str = "think-process/tp_12",
             status: RequestStatus = RequestStatus.PENDING, **changes) -> PromotionRequest:
    values = dict(id=f"req_{number}", document_id=f"doc_{number}", title=f"Result {number}", source_scope=source,
                  target_scope="project/inbox", requested_by=by, requester=RequesterKind.THINK_PROCESS,
                  reason=f"reason {number}", status=status,
                  think_process=source if source.startswith("think-process/") else None,
                  created_at=NOW - timedelta(hours=number))
    values.update(changes)
    if by.startswith("rule:"):
        values["requester"] = RequesterKind.RULE
    elif by.startswith("user:"):
        values["requester"] = RequesterKind.USER
    return PromotionRequest(**values)


PENDING = [_request(1), _request(2, by="rule:project-relevant"), _request(3, "think-process/tp_13"),
           _request(4, "session/s1", by="user:ada")]
DECIDED = [_request(5, status=RequestStatus.APPROVED, decided_by="user:ada", decided_at=NOW,
                    final_scope="session/s1"),
           _request(6, status=RequestStatus.REJECTED, decided_by="user:bob", decided_at=NOW - timedelta(days=1),
                    decision_reason="Duplicate")]


# --- pure ----------------------------------------------------------------------------------------------

def test_ages_read_compactly():
    assert age_text(NOW - timedelta(seconds=20), NOW) == "just now"
    assert age_text(NOW - timedelta(minutes=12), NOW) == "12 min"
    assert age_text(NOW - timedelta(hours=3, minutes=5), NOW) == "3 h"
    assert age_text(NOW - timedelta(days=2), NOW) == "2 d"
    assert age_text(NOW - timedelta(days=15), NOW) == "2 wk"
    assert age_text(NOW - timedelta(days=400), NOW).startswith("2025-")


def test_actors_are_named_for_people():
    assert actor_label("user:ada", NAMES, me="user:ada") == "ada (you)"
    assert actor_label("user:bob", NAMES, me="user:ada") == "bob"
    assert actor_label("think-process/tp_12", NAMES) == "Paper Analysis"
    assert actor_label("think-process/tp_99", NAMES) == "tp_99"
    assert actor_label("rule:project-relevant", NAMES) == "rule #project-relevant"


def _me() -> str:
    """How the app names the person running the tests (their login, or VANCETOPE_IDENTITY)."""
    return actor_label(identity.current_user(), {}, identity.current_user())


def _entry(action: str, request_id: str | None = "req_1", *, actor: str = "user:ada", reason: str = "",
           minutes: int = 0) -> AuditEntry:
    return AuditEntry(document_id="doc_1", title="Result 1", action=action, from_scope="think-process/tp_12",
                      to_scope="project/inbox", actor=actor, reason=reason, request_id=request_id,
                      at=NOW + timedelta(minutes=minutes))


def test_history_lists_the_trail_once_and_requests_only_where_they_add():
    trail = [_entry("request", actor="rule:project-relevant", reason="tagged #project-relevant"),
             _entry("promote", reason="tagged #project-relevant", minutes=1), _entry("approve", minutes=1)]
    rows = trail_rows(trail, NAMES, me="user:ada")
    assert len(rows) == 2  # the approval's move is folded into it: not "Promoted … · You — <their reason>"
    assert rows[0].startswith("<b>Approved</b> Paper Analysis → Inbox · ada (you) · ")
    assert rows[1].startswith("<b>Promotion requested</b> Paper Analysis → Inbox · rule #project-relevant — "
                              "tagged #project-relevant · ")
    # A hand move (no request) stays; a think process is named.
    by_hand = trail_rows([_entry("promote", None, actor="think-process/tp_13")], NAMES)
    assert by_hand[0].startswith("<b>Promoted</b> Paper Analysis → Inbox · Hypothesis Check · ")
    approved = _request(1, status=RequestStatus.APPROVED, decided_by="user:ada", decided_at=NOW)
    pending = _request(1, by="user:ada")
    rejected = _request(1, status=RequestStatus.REJECTED, decided_by="user:bob", decided_at=NOW,
                        decision_reason="Duplicate")
    assert request_rows([approved], trail, NAMES, "user:ada") == []
    assert request_rows([pending], trail, NAMES, "user:ada") == [
        '<b>Waiting for review</b>: to Inbox, asked by ada (you) · <a href="request:req_1">Review…</a>']
    assert request_rows([rejected], [_entry("reject", actor="user:bob", reason="Duplicate")], NAMES) == []
    missing = request_rows([rejected], [], NAMES, "user:ada")
    assert len(missing) == 1 and "<b>Rejected</b> (to Inbox) by bob" in missing[0] and missing[0].endswith(
        ": Duplicate")


def test_a_long_history_counts_the_earlier_entries():
    trail = [_entry("request", f"req_{n}", minutes=n) for n in range(15)]
    rows = trail_rows(trail, NAMES, limit=12)
    assert len(rows) == 13 and rows[-1] == "<i>… 3 earlier</i>"


def test_requests_group_by_think_process_else_by_source_scope():
    groups = group_requests(PENDING)
    assert [(g.key, g.is_think_process, g.request_ids) for g in groups] == [
        ("think-process/tp_12", True, ("req_1", "req_2")), ("think-process/tp_13", True, ("req_3",)),
        ("session/s1", False, ("req_4",))]


# --- models --------------------------------------------------------------------------------------------

def test_queue_model_passes_the_model_tester_empty_filled_and_changed(qtbot, qtmodeltester):
    model = ReviewQueueModel()
    qtmodeltester.check(model)
    model.set_requests(PENDING, NAMES, "user:ada", now=NOW)
    qtmodeltester.check(model)
    model.set_requests(PENDING[1:], NAMES, "user:ada", now=NOW)
    qtmodeltester.check(model)
    model.set_requests([], NAMES)
    qtmodeltester.check(model)


def test_queue_model_shows_groups_and_request_rows(qtbot):
    model = ReviewQueueModel()
    assert model.set_requests(PENDING, NAMES, "user:ada", now=NOW)
    assert not model.set_requests(PENDING, NAMES, "user:ada", now=NOW)  # unchanged: no reset
    assert model.rowCount() == 3
    group = model.index(0, 0)
    assert group.data() == "Paper Analysis  ·  think-process/tp_12  ·  2 pending"
    assert group.data(ReviewRole.GROUP_KEY) == "think-process/tp_12"
    assert model.index(2, 0).data().startswith("From Review 2026  ·  session/s1")
    row = [model.index(0, c, group).data() for c in range(5)]
    assert row == ["Result 1", "Paper Analysis (think process)", "Paper Analysis → Inbox", "reason 1", "1 h"]
    second = model.index(1, 1, group)
    assert second.data() == "rule #project-relevant" and not second.data(Qt.ItemDataRole.DecorationRole).isNull()
    assert model.index(0, 1, model.index(2, 0)).data() == "ada (you)"
    assert model.index_of("req_3").data(ReviewRole.REQUEST_ID) == "req_3"
    assert model.request_ids_of([group, model.index_of("req_4"), model.index_of("req_1")]) == [
        "req_1", "req_2", "req_4"]
    updating = [_request(1, updates="doc_old")]
    model.set_requests(updating, NAMES, now=NOW)
    assert model.index_of("req_1", 2).data() == "Paper Analysis → Inbox (update)"


def test_history_model_passes_the_model_tester_and_names_decisions(qtbot, qtmodeltester):
    model = ReviewHistoryModel()
    qtmodeltester.check(model)
    model.set_requests(DECIDED, NAMES, "user:ada")
    qtmodeltester.check(model)
    assert [model.index(0, c).data() for c in (0, 1, 2, 4, 5)] == [
        "Result 5", "Approved", "ada (you)", "Review 2026", "reason 5"]
    assert [model.index(1, c).data() for c in (1, 2, 4, 5)] == [
        "Rejected", "bob", "stayed in Paper Analysis", "Duplicate"]
    assert model.index(0, 3).data(ReviewRole.SORT) > model.index(1, 3).data(ReviewRole.SORT)


# --- the pane and its dialogs (plain values) ---------------------------------------------------------

@pytest.fixture
def pane(qtbot):
    widget = ReviewPane()
    qtbot.addWidget(widget)
    widget.resize(900, 700)
    widget.set_data(PENDING, DECIDED, NAMES, ANCESTRY, "user:ada")
    widget.show()
    return widget


def test_a_selected_group_stands_for_its_requests(qtbot, pane):
    pane.queue_view.selectionModel().select(
        pane.queue_model.group_index("think-process/tp_12"),
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
    assert pane.selected_request_ids() == ["req_1", "req_2"]
    assert pane.detail_stack.currentWidget() is pane.multi_label
    assert "2 requests selected" in pane.multi_label.text()
    with qtbot.waitSignal(pane.approve_requested) as signal:
        pane.approve_button.click()
    assert signal.args == [Approval(("req_1", "req_2"))]
    assert not pane.approve_button.isEnabled()  # in flight until its answer comes
    pane.set_data(PENDING, DECIDED, NAMES, ANCESTRY, "user:ada")  # a snapshot taken before the answer
    assert not pane.approve_button.isEnabled()
    pane.request_failed(["req_1", "req_2"])  # e.g. decided elsewhere meanwhile: the user may act again
    assert pane.approve_button.isEnabled()


def test_keys_approve_and_reject_from_the_list(qtbot, pane):
    pane.select_requests(["req_3"])
    pane.queue_view.setFocus()
    pane.activateWindow()
    qtbot.waitUntil(pane.queue_view.hasFocus, timeout=3000)
    with qtbot.waitSignal(pane.approve_requested) as signal:
        qtbot.keyClick(pane.queue_view, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert signal.args == [Approval(("req_3",))]
    pane.request_failed(["req_3"])
    qtbot.keyClick(pane.queue_view, Qt.Key.Key_Backspace, Qt.KeyboardModifier.ControlModifier)
    assert isinstance(pane.dialog, RejectDialog)
    pane.dialog.reject()


def test_a_refresh_keeps_the_selection_and_the_page(qtbot, pane):
    pane.select_requests(["req_2", "req_3"])
    pane.history_button.click()
    pane.set_data(PENDING[1:], DECIDED, NAMES, ANCESTRY, "user:ada")  # req_1 was decided elsewhere
    assert pane.pages.currentWidget() is pane.history_page
    assert pane.selected_request_ids() == ["req_2", "req_3"]
    assert pane.pending_button.text() == "Pending (3)"


def test_approve_to_offers_the_scopes_above_every_selected_document(qtbot, pane):
    pane.select_requests(["req_1", "req_4"])
    assert pane.targets_for(pane.selected_requests()) == [
        ("project/inbox", "Inbox (project)"), ("group/default", "My Research (group)")]
    pane.select_requests(["req_1"])
    pane._fill_approve_to()
    labels = [a.text() for a in pane.approve_to_menu.actions()]
    assert labels == ["Review 2026 (session)", "Inbox (project) — requested", "My Research (group)"]
    with qtbot.waitSignal(pane.approve_requested) as signal:
        pane.approve_to_menu.actions()[0].trigger()
    assert signal.args == [Approval(("req_1",), to="session/s1")]


def test_reject_needs_a_reason(qtbot, pane):
    pane.select_requests(["req_3"])
    pane.reject_selected()
    dialog = pane.dialog
    assert isinstance(dialog, RejectDialog) and not dialog.ok_button.isEnabled()
    with qtbot.assertNotEmitted(pane.reject_requested):
        dialog.accept()  # a blank reason is refused: the dialog stays open
    assert dialog.isVisible()
    qtbot.keyClicks(dialog.reason_edit, "   ")
    assert not dialog.ok_button.isEnabled()
    dialog.reason_edit.setPlainText("Needs more evidence")
    with qtbot.waitSignal(pane.reject_requested) as signal:
        dialog.ok_button.click()
    assert signal.args == [["req_3"], "Needs more evidence"]


def test_edit_and_approve_sends_only_what_changed(qtbot):
    dialog = EditApproveDialog([PENDING[0]], ["extraction", "auto:node_1"], [
        ("session/s1", "Review 2026 (session)"), ("project/inbox", "Inbox (project)")])
    qtbot.addWidget(dialog)
    assert dialog.target_box.currentData() == "project/inbox"
    assert dialog.approval() == Approval(("req_1",))
    dialog.title_edit.setText("Result 1 (reviewed)")
    dialog.tags_editor.add_tag("topic/attention")
    dialog.tags_editor.remove_tag("auto:node_1")
    dialog.target_box.setCurrentIndex(0)
    assert dialog.approval() == Approval(("req_1",), to="session/s1", title="Result 1 (reviewed)",
                                         add_tags=("topic/attention",), remove_tags=("auto:node_1",))
    several = EditApproveDialog(PENDING[:2], [], [])
    qtbot.addWidget(several)
    assert not several.title_edit.isEnabled()
    several.tags_editor.add_tag("checked")
    assert several.approval() == Approval(("req_1", "req_2"), add_tags=("checked",))


def test_enter_in_the_tag_field_adds_the_tag_and_does_not_approve(qtbot):
    dialog = EditApproveDialog([PENDING[0]], ["extraction"], [("session/s1", "Review 2026 (session)"),
                                                              ("project/inbox", "Inbox (project)")])
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    field = dialog.tags_editor.line_edit
    field.setFocus()
    with qtbot.assertNotEmitted(dialog.accepted):
        qtbot.keyClicks(field, "checked")
        qtbot.keyClick(field, Qt.Key.Key_Return)
        qtbot.keyClick(field, Qt.Key.Key_Enter)  # an empty field: still nothing approves
    assert dialog.isVisible() and dialog.result() == 0
    assert dialog.tags_editor.tags() == ["extraction", "checked"]
    # Enter elsewhere still presses "Approve" (the default button).
    dialog.title_edit.setFocus()
    with qtbot.waitSignal(dialog.accepted):
        qtbot.keyClick(dialog.title_edit, Qt.Key.Key_Return)
    assert dialog.approval().add_tags == ("checked",)


def test_approve_adds_a_tag_still_typed_and_refuses_an_invalid_one(qtbot):
    dialog = EditApproveDialog([PENDING[0]], ["extraction"], [("project/inbox", "Inbox (project)")])
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    field, approve = dialog.tags_editor.line_edit, dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    # Text that is no tag: Approve stays in the dialog and says why, instead of approving without it.
    qtbot.keyClicks(field, "two words")
    with qtbot.assertNotEmitted(dialog.accepted):
        approve.click()
    assert dialog.isVisible() and dialog.result() == 0
    assert dialog.tags_editor.error_text() == (
        "a tag cannot contain spaces (use - or /) — fix it or clear the field to approve")
    assert field.text() == "two words" and dialog.focusWidget() is field
    # A valid tag still typed (Enter never pressed) is added by Approve.
    field.setText("#Checked")
    with qtbot.waitSignal(dialog.accepted):
        approve.click()
    assert dialog.approval().add_tags == ("checked",) and field.text() == ""


def test_approve_with_a_cleared_or_repeated_tag_field_approves(qtbot):
    for typed in ("", "   ", "extraction"):
        dialog = EditApproveDialog([PENDING[0]], ["extraction"], [("project/inbox", "Inbox (project)")])
        qtbot.addWidget(dialog)
        dialog.tags_editor.line_edit.setText(typed)
        with qtbot.waitSignal(dialog.accepted):
            dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
        assert dialog.approval() == Approval(("req_1",)) and dialog.tags_editor.error_text() == ""


def test_a_reason_names_the_scopes_it_mentions():
    withdrawn = _request(7, status=RequestStatus.WITHDRAWN, decided_by="user:ada", decided_at=NOW,
                         decision_reason="promoted by hand to session/s1", reason="see think-process/tp_13")
    model = ReviewHistoryModel()
    model.set_requests([withdrawn], NAMES, "user:ada")
    assert model.index(0, 5).data() == "promoted by hand to Review 2026"
    queue = ReviewQueueModel()
    queue.set_requests([_request(8, reason="compare with think-process/tp_13's results")], NAMES, "user:ada", now=NOW)
    assert queue.index_of("req_8", 3).data() == "compare with Hypothesis Check's results"
    rejected = _request(1, status=RequestStatus.REJECTED, decided_by="user:bob", decided_at=NOW,
                        decision_reason="belongs in session/s1, not project/inbox")
    assert request_rows([rejected], [], NAMES)[0].endswith(": belongs in Review 2026, not Inbox")
    trail = trail_rows([_entry("withdraw", reason="demoted by hand to session/s1")], NAMES)
    assert "— demoted by hand to Review 2026 ·" in trail[0]


def test_the_target_list_names_the_requested_scope_in_full(qtbot):
    dialog = EditApproveDialog([PENDING[0]], [], [("session/s1", "Review 2026 (session)"),
                                                  ("project/inbox", "Inbox (project)")])
    qtbot.addWidget(dialog)
    box = dialog.target_box
    assert [box.itemText(i) for i in range(box.count())] == ["Review 2026 (session)", "Inbox (project) — requested"]
    assert box.currentText() == "Inbox (project) — requested"
    dialog.show()
    qtbot.waitExposed(dialog)
    assert box.width() >= box.fontMetrics().horizontalAdvance(box.currentText())  # not cut off


def test_bulk_reject_says_how_many_and_which(qtbot):
    titles = [f"Result {n}" for n in range(1, 12)]
    dialog = RejectDialog(titles)
    qtbot.addWidget(dialog)
    text = dialog.summary_label.text()
    assert dialog.windowTitle() == "Reject 11 requests" and "Reject 11 requests?" in text
    assert dialog.ok_button.text() == "Reject 11"
    assert all(f"<li>Result {n}</li>" in text for n in range(1, 9))
    assert "Result 9<" not in text and "and 3 more" in text
    one = RejectDialog(["Result <1>"])
    qtbot.addWidget(one)
    assert "Reject “Result &lt;1&gt;”?" in one.summary_label.text() and one.ok_button.text() == "Reject"


def test_request_rows_show_their_documents_type(qtbot):
    model = ReviewQueueModel()
    typed = [_request(1, document_type=DocumentType.NOTE), _request(2, document_type=DocumentType.FACT),
             _request(3)]  # a purged document: no type, the result icon
    model.set_requests(typed, NAMES, now=NOW)
    group = model.index(0, 0)

    def icon_of(row, parent=group):
        return model.index(row, 0, parent).data(Qt.ItemDataRole.DecorationRole).cacheKey()

    assert icon_of(0) == type_icon("note").cacheKey()
    assert icon_of(1) == type_icon("fact").cacheKey()
    assert icon_of(2) == type_icon("result").cacheKey()


def test_the_queue_columns_fill_the_list(qtbot, pane):
    view, header = pane.queue_view, pane.queue_view.header()
    for width in (1400, 900, 560):
        pane.resize(width, 700)
        qtbot.waitUntil(lambda: header.length() == view.viewport().width(), timeout=3000)  # no blank gutter
        assert header.sectionResizeMode(0) == QHeaderView.ResizeMode.Stretch
        assert header.sectionSize(0) > 100  # the titles keep room: narrow lists drop Reason, then From → To
    assert view.isColumnHidden(3) and view.isColumnHidden(2)


def test_the_empty_queue_explains_where_requests_come_from(qtbot):
    widget = ReviewPane()
    qtbot.addWidget(widget)
    widget.set_data([], DECIDED, NAMES, {}, "user:ada")
    assert widget.pending_stack.currentWidget() is widget.empty_label
    assert "project-relevant" in widget.empty_label.text()
    assert widget.pending_button.text() == "Pending"
    widget.history_button.click()
    assert widget.pages.currentWidget() is widget.history_page
    widget.history_view.setCurrentIndex(widget.history_proxy.index(1, 0))
    assert "Duplicate" in widget.history_detail.text() and "bob" in widget.history_detail.text()
    widget.history_filter.setText("result 5")
    assert widget.history_proxy.rowCount() == 1


# --- end to end: the real window on a real library ---------------------------------------------------

@pytest.fixture
def queue(library):
    """Three pending requests: two from Paper Analysis (a think process's and a user's), one from a rule."""
    scopes.create_scope(library, "session", "s1", parent="project/inbox", name="Review 2026")
    scopes.create_scope(library, "think-process", "tp_12", parent="session/s1", name="Paper Analysis")
    scopes.create_scope(library, "think-process", "tp_13", parent="session/s1", name="Hypothesis Check")
    paper = documents.add_text(library, "Attention is all you need.", doc_type=DocumentType.NOTE,
                               title="Vaswani notes")

    def result(tp: str, node: str, title: str, text: str):
        return task_tree.memory_store_result(library, node, "extract", title, text, derived_from=[paper.id],
                                             think_process_id=tp)

    docs = {"attention": result("tp_12", "node_1", "Extraction: Attention", "# Attention\n\nSelf-attention only."),
            "flash": result("tp_12", "node_2", "Extraction: FlashAttention", "# Flash\n\nIO-aware tiling."),
            "counter": result("tp_13", "node_4", "Counterarguments", "# Counter\n\nLong contexts.")}
    reqs = {"attention": review.request_promotion(library, docs["attention"].id, requested_by="think-process/tp_12",
                                                  reason="Core extraction for the project"),
            "flash": review.request_promotion(library, docs["flash"].id, reason="Worth sharing")}
    documents.tag_document(library, docs["counter"].id, add=["project-relevant"])  # the rule asks
    reqs["counter"] = review.list_requests(library, document_id=docs["counter"].id)[0]
    return {"paper": paper, "docs": docs, "reqs": reqs}


def _status(library, request) -> RequestStatus:
    return review.get_request(library, request.id).status


def test_approve_one_moves_it_and_the_badge_counts_down(qtbot, library, queue, make_window):
    window = make_window(library)
    pane, reqs = window.review_pane, queue["reqs"]
    qtbot.waitUntil(lambda: pane.pending_count() == 3, timeout=10_000)
    assert window.review_dock.windowTitle() == "Review (3)"
    assert window.review_badge.text() == "Review  3" and window.review_badge.property("pending")
    window.review_action.trigger()  # Ctrl+Shift+R
    assert window.review_dock.isVisible()
    pane.select_requests([reqs["attention"].id])
    qtbot.waitUntil(lambda: pane.detail.details is not None, timeout=10_000)
    assert pane.detail.derived_label.text().count("Vaswani notes") == 1
    assert "node_1" in pane.detail.source_label.text() and "Paper Analysis" in pane.detail.source_label.text()
    assert "thinkprocess:tp_12" in pane.detail.tags_editor.tags()
    assert "Self-attention only" in pane.detail.content_browser.toPlainText()
    assert not pane.detail.tabs.isTabVisible(0)  # no diff: nothing to update
    with qtbot.waitSignal(pane.document_open_requested) as opened:
        pane.detail.derived_label.linkActivated.emit(queue["paper"].id)
    assert opened.args == [queue["paper"].id]
    pane.approve_button.click()
    qtbot.waitUntil(lambda: window.review_dock.windowTitle() == "Review (2)", timeout=10_000)
    assert _status(library, reqs["attention"]) is RequestStatus.APPROVED
    assert documents.get_document(library, queue["docs"]["attention"].id).scope == "project/inbox"
    assert window.review_badge.text() == "Review  2"
    # The list is read again on its own (after the count, on a loaded machine)
    qtbot.waitUntil(lambda: pane.queue_model.request(reqs["attention"].id) is None, timeout=10_000)


def test_reject_one_keeps_the_document_and_the_reason(qtbot, library, queue, make_window):
    window = make_window(library)
    pane, request = window.review_pane, queue["reqs"]["flash"]
    qtbot.waitUntil(lambda: pane.pending_count() == 3, timeout=10_000)
    pane.select_requests([request.id])
    pane.reject_action.trigger()
    dialog = pane.dialog
    assert not dialog.ok_button.isEnabled()  # an empty reason is refused
    qtbot.keyClicks(dialog.reason_edit, "Duplicate of an existing note")
    dialog.ok_button.click()
    qtbot.waitUntil(lambda: pane.pending_count() == 2, timeout=10_000)
    decided = review.get_request(library, request.id)
    assert decided.status is RequestStatus.REJECTED and decided.decision_reason == "Duplicate of an existing note"
    assert documents.get_document(library, request.document_id).scope == "think-process/tp_12"
    pane.history_button.click()
    history = pane.history_model
    assert history.rowCount() == 1 and history.index(0, 1).data() == "Rejected"
    assert history.index(0, 2).data() == _me() and history.index(0, 5).data() == "Duplicate of an existing note"


def test_bulk_approve_of_a_group_moves_all_of_it(qtbot, library, queue, make_window):
    window = make_window(library)
    pane = window.review_pane
    qtbot.waitUntil(lambda: pane.pending_count() == 3, timeout=10_000)
    group = pane.queue_model.group_index("think-process/tp_12")
    pane.queue_view.selectionModel().select(
        group, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
    assert len(pane.selected_request_ids()) == 2
    pane.approve_action.trigger()
    qtbot.waitUntil(lambda: pane.pending_count() == 1, timeout=10_000)
    for key in ("attention", "flash"):
        assert documents.get_document(library, queue["docs"][key].id).scope == "project/inbox"
    assert pane.queue_model.group_index("think-process/tp_12") == QModelIndex()
    pane.history_button.click()
    assert {pane.history_model.index(r, 1).data() for r in range(2)} == {"Approved"}


def test_approve_to_another_scope_goes_there(qtbot, library, queue, make_window):
    window = make_window(library)
    pane, request = window.review_pane, queue["reqs"]["counter"]
    qtbot.waitUntil(lambda: pane.pending_count() == 3, timeout=10_000)
    pane.select_requests([request.id])
    assert pane.queue_model.index_of(request.id, 1).data() == "rule #project-relevant"
    pane._fill_approve_to()
    session = next(a for a in pane.approve_to_menu.actions() if a.text().startswith("Review 2026"))
    session.trigger()
    qtbot.waitUntil(lambda: pane.pending_count() == 2, timeout=10_000)
    assert documents.get_document(library, request.document_id).scope == "session/s1"
    assert review.get_request(library, request.id).final_scope == "session/s1"


def test_edit_then_approve_changes_title_and_tags(qtbot, library, queue, make_window):
    window = make_window(library)
    pane, request = window.review_pane, queue["reqs"]["attention"]
    qtbot.waitUntil(lambda: pane.pending_count() == 3, timeout=10_000)
    pane.select_requests([request.id])
    qtbot.waitUntil(lambda: pane.detail.details is not None, timeout=10_000)
    pane.edit_action.trigger()
    dialog = pane.dialog
    assert "auto:node_1" in dialog.tags_editor.tags()
    dialog.title_edit.setText("Attention, reviewed")
    dialog.tags_editor.add_tag("topic/attention")
    dialog.tags_editor.remove_tag("auto:node_1")
    dialog.accept()
    qtbot.waitUntil(lambda: pane.pending_count() == 2, timeout=10_000)
    doc = documents.get_document(library, request.document_id)
    assert doc.title == "Attention, reviewed" and doc.scope == "project/inbox"
    assert "topic/attention" in doc.tags and "auto:node_1" not in doc.tags


def test_an_update_request_shows_the_diff_and_approving_writes_a_version(qtbot, library, queue, make_window):
    first = task_tree.memory_store_result(library, "node_9", "synthesize", "Synthesis",
                                          "line one\nline two\nline three\n", think_process_id="tp_12")
    review.approve(library, [review.request_promotion(library, first.id).id])
    rerun = task_tree.memory_store_result(library, "node_9", "synthesize", "Synthesis",
                                          "line one\nline 2, revised\nline three\nline four\n",
                                          think_process_id="tp_12")
    request = review.request_promotion(library, rerun.id, requested_by="think-process/tp_12", reason="re-run")
    assert request.updates == first.id
    window = make_window(library)
    pane = window.review_pane
    qtbot.waitUntil(lambda: pane.queue_model.request(request.id) is not None, timeout=10_000)
    assert pane.queue_model.index_of(request.id, 2).data().endswith("(update)")
    pane.select_requests([request.id])
    detail = pane.detail
    qtbot.waitUntil(lambda: detail.details is not None and detail.details.updates is not None, timeout=10_000)
    assert detail.tabs.isTabVisible(0) and detail.tabs.currentIndex() == 0
    assert "Updates the copy already in Inbox" in detail.update_label.text()
    diff = detail.diff_view
    assert [r.kind for r in diff.rows] == [RowKind.EQUAL, RowKind.CHANGED, RowKind.EQUAL, RowKind.ADDED]
    assert diff.rows[1].left == "line two" and diff.rows[1].right == "line 2, revised"
    assert diff.left_label.text() == "Now in Inbox (v1)"
    pane.approve_action.trigger()
    qtbot.waitUntil(lambda: pane.queue_model.request(request.id) is None, timeout=10_000)
    updated = documents.get_document(library, first.id)
    assert updated.content.startswith("line one\nline 2, revised") and updated.version == 2
    assert documents.get_document(library, rerun.id).status is DocumentStatus.DELETED


def test_the_badge_follows_outside_changes_and_errors_show(qtbot, library, queue, make_window):
    window = make_window(library)
    pane, reqs = window.review_pane, queue["reqs"]
    qtbot.waitUntil(lambda: pane.pending_count() == 3, timeout=10_000)
    extra = documents.add_text(library, "A finding", doc_type=DocumentType.NOTE, scope="think-process/tp_13")
    review.request_promotion(library, extra.id, reason="from the CLI")  # another process asks
    window.workbench.refresh()  # what the change poll does when the counter moves
    qtbot.waitUntil(lambda: window.review_badge.text() == "Review  4", timeout=10_000)
    assert window.review_dock.windowTitle() == "Review (4)"
    review.reject(library, [reqs["flash"].id], reason="decided elsewhere")  # the pane has not heard yet
    pane.select_requests([reqs["flash"].id])
    pane.approve_action.trigger()
    qtbot.waitUntil(lambda: window.error_box is not None, timeout=10_000)
    assert "Approve failed" in window.error_box.text() and "only pending" in window.error_box.text()
    qtbot.waitUntil(lambda: window.review_badge.text() == "Review  3", timeout=10_000)


def test_the_details_panel_lists_a_documents_history_once(qtbot, library, queue, make_window):
    reqs, docs = queue["reqs"], queue["docs"]
    review.approve(library, [reqs["attention"].id], reason="solid")
    review.reject(library, [reqs["counter"].id], reason="Needs more evidence")
    window = make_window(library)
    details = window.details
    # A snapshot right after each search hit is opened (an indexing step, another process's change): it
    # used to empty the panel whenever it arrived at the wrong moment; now it always comes and must not.
    window._search_selected(docs["attention"].id)
    window.workbench.refresh()
    qtbot.waitUntil(lambda: details.document_id() == docs["attention"].id
                    and "Approved" in details.audit_label.text(), timeout=10_000)
    trail = details.audit_label.text()
    # The trail is the truth, once: no second "Approved" from the request, no "Promoted" by the approver
    # carrying the requester's reason.
    assert trail.count("Approved") == 1 and "Promoted" not in trail
    assert not details.requests_label.isVisibleTo(details)
    assert f"<b>Approved</b> Paper Analysis → Inbox · {_me()} — solid" in trail
    assert "<b>Promotion requested</b> Paper Analysis → Inbox · Paper Analysis — Core extraction" in trail
    assert "think-process/" not in trail and "user:" not in trail

    window._search_selected(docs["counter"].id)
    window.workbench.refresh()
    qtbot.waitUntil(lambda: details.document_id() == docs["counter"].id
                    and "Rejected" in details.audit_label.text(), timeout=10_000)
    trail = details.audit_label.text()
    assert "· rule #project-relevant — tagged #project-relevant" in trail
    assert trail.count("Needs more evidence") == 1 and not details.requests_label.isVisibleTo(details)

    window._search_selected(docs["flash"].id)
    window.workbench.refresh()
    qtbot.waitUntil(lambda: "Waiting for review" in details.requests_label.text(), timeout=10_000)
    assert f"asked by {_me()}" in details.requests_label.text()
    details.requests_label.linkActivated.emit(f"request:{reqs['flash'].id}")
    assert window.review_dock.isVisible()
    assert window.review_pane.selected_request_ids() == [reqs["flash"].id]
