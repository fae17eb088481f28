"""Documents of other scopes in the window: an ancestor's (inherited, "↑") and a sibling think process's results
("↔", with the sibling-results setting on) are read-only here. Every rename path refuses them with where to go,
the Details panel says where they come from and its fields look read-only, and reasons name scopes, not paths.
Real window on a real library; the rename dialog's answer is the only stand-in (for the user's typing)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from tests.library_copies import build_template, copied_library
from tests.ui.test_details_panel import field_and_background
from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.promotion import RequestStatus
from vancetope_desktop.services import demo, documents, moves, review, scopes
from vancetope_desktop.ui import main_window
from vancetope_desktop.ui.document_model import Column

TP, SIBLING, PROJECT = "think-process/tp_12", "think-process/tp_13", "project/transformer-efficiency"
WAIT = 10_000


@pytest.fixture
def asked(monkeypatch):
    """The titles the rename dialog was opened with; it answers "Renamed"."""
    calls: list[str] = []

    def ask_text(_parent, _title, _label, default=""):
        calls.append(default)
        return "Renamed"

    monkeypatch.setattr(main_window.dialogs, "ask_text", ask_text)
    return calls


def _select(qtbot, window, doc_id):
    qtbot.waitUntil(lambda: window.table.document_model.row_for(doc_id) is not None, timeout=WAIT)
    window.table.select_ids([doc_id])
    window.table.setFocus()
    qtbot.waitUntil(lambda: window.details.document_id() == doc_id, timeout=WAIT)


def _scope_cell(window, doc_id):
    model = window.table.document_model
    return model.index(model.row_for(doc_id), Column.SCOPE).data()


def _every_rename_path(qtbot, window):
    """F2 in the list, the row menu's "Rename…", and the Edit / Document menus' "Rename"."""
    qtbot.keyClick(window.table, Qt.Key.Key_F2)
    assert window.table.rename_action in window.table.context_menu().actions()
    window.table.rename_action.trigger()
    assert window.rename_action in window.document_menu.actions()
    window.rename_action.trigger()


def _looks_read_only(qtbot, details, field: QLineEdit) -> bool:
    inside, beside = field_and_background(qtbot, details, field)
    return field.isReadOnly() and inside == beside


def test_an_inherited_document_is_not_renamed_from_below(qtbot, library, make_window, asked):
    scopes.create_scope(library, "session", "s1", parent="project/inbox", name="Session one")
    inherited = documents.add_text(library, "Project reference", doc_type=DocumentType.REFERENCE,
                                   metadata={"authors": ["Ada Lovelace"], "year": 1843})
    own = documents.add_text(library, "Session reference", doc_type=DocumentType.REFERENCE, scope="session/s1",
                             metadata={"authors": ["Alan Turing"], "year": 1936})
    window = make_window(library, "session/s1")
    _select(qtbot, window, inherited.id)
    _every_rename_path(qtbot, window)
    assert asked == []
    assert window.statusBar().currentMessage() == (
        "“Project reference” belongs to Inbox: it is read-only here; switch to Inbox to rename it")
    document = documents.get_document(library, inherited.id)
    assert document.title == "Project reference" and document.version == 1
    # Details: says so, and its fields look like text, not inputs.
    details = window.details
    assert details.inherited_label.text() == "Inherited from Inbox: read-only here"
    assert details.title_edit.isReadOnly() and _looks_read_only(qtbot, details, details.metadata_fields["year"])

    # The scope's own document: renamed, and its fields are editable and framed again.
    _select(qtbot, window, own.id)
    assert not details.title_edit.isReadOnly() and details.inherited_label.isHidden()
    assert not _looks_read_only(qtbot, details, details.metadata_fields["year"])
    qtbot.keyClick(window.table, Qt.Key.Key_F2)
    assert asked == ["Session reference"]
    qtbot.waitUntil(lambda: documents.get_document(library, own.id).title == "Renamed", timeout=WAIT)


def _demo(library):
    demo.install_demo(library)
    scopes.set_sibling_results_visible(library, TP, True)


@pytest.fixture(scope="module")
def demo_template(tmp_path_factory):
    """The demo installed once for the module (rendering and reading its papers is most of a test's setup)."""
    template, _ = build_template(tmp_path_factory, _demo)
    return template


@pytest.fixture
def demo_library(demo_template, tmp_path):
    with copied_library(demo_template, tmp_path / "library") as library:
        yield library


def _document(lib, scope, title):
    return next(d for d in documents.list_documents(lib, scope=scope, include_ancestors=False) if d.title == title)


def test_a_sibling_think_process_result_is_marked_as_a_siblings_and_read_only(qtbot, demo_library, make_window,
                                                                               asked):
    sibling_result = _document(demo_library, SIBLING, "Counterarguments to Hypothesis 1")
    project_doc = next(d for d in documents.list_documents(demo_library, scope=PROJECT, include_ancestors=False)
                       if d.type != DocumentType.FOLDER)
    window = make_window(demo_library, TP)
    qtbot.waitUntil(lambda: window.table.document_model.row_for(sibling_result.id) is not None, timeout=WAIT)
    assert _scope_cell(window, sibling_result.id) == "↔ Hypothesis Check"
    assert _scope_cell(window, project_doc.id) == "↑ Transformer Efficiency Review"  # an ancestor's: inherited
    buttons = {b.property("scope_path"): b.text() for b in window.search_pane._scope_buttons}
    assert buttons[SIBLING] == "↔ Hypothesis Check" and buttons["session/review-2026"] == "↑ Literature review"

    _select(qtbot, window, sibling_result.id)
    details = window.details
    assert details.inherited_label.text() == (
        "From sibling think process Hypothesis Check (its results are shared with this one): read-only here")
    assert details.is_read_only() and details.title_edit.isReadOnly()
    _every_rename_path(qtbot, window)
    assert asked == []
    assert window.statusBar().currentMessage() == (
        "“Counterarguments to Hypothesis 1” belongs to sibling think process Hypothesis Check: it is read-only here; "
        "switch to Hypothesis Check to rename it")
    window.trash_action.trigger()
    assert "switch to Hypothesis Check to move it to the trash" in window.statusBar().currentMessage()
    document = documents.get_document(demo_library, sibling_result.id)
    assert (document.title, document.version, document.status) == (
        "Counterarguments to Hypothesis 1", 1, DocumentStatus.ACTIVE)


def test_a_withdrawal_reason_names_the_scope_it_went_to(qtbot, library, make_window):
    scopes.create_scope(library, "session", "s1", parent="project/inbox", name="Review 2026")
    result = documents.add_text(library, "A finding worth keeping.", doc_type=DocumentType.RESULT, scope="session/s1")
    request = review.request_promotion(library, result.id, reason="Worth sharing")
    moves.move_to_scope(library, result.id, "group/default")  # past the request's target: it is withdrawn
    withdrawn = review.get_request(library, request.id)
    assert withdrawn.status is RequestStatus.WITHDRAWN and "group/default" in withdrawn.decision_reason
    group = scopes.get_scope(library, "group/default").name

    window = make_window(library, "group/default")
    _select(qtbot, window, result.id)
    details = window.details
    qtbot.waitUntil(lambda: "Request withdrawn" in details.audit_label.text(), timeout=WAIT)
    trail = details.audit_label.text()
    assert f"by hand to {group}" in trail and "group/default" not in trail

    pane = window.review_pane
    history = pane.history_model
    qtbot.waitUntil(lambda: history.rowCount() == 1, timeout=WAIT)
    reason = history.index(0, len(history.COLUMNS) - 1).data()
    assert reason.endswith(f"by hand to {group}") and "group/default" not in reason
    pane.history_button.click()
    pane.history_view.setCurrentIndex(pane.history_proxy.index(0, 0))
    assert f"by hand to {group}" in pane.history_detail.text() and "group/default" not in pane.history_detail.text()


def _parent_and_child(library):
    scopes.create_scope(library, "project", "parent", name="Parent")
    scopes.create_scope(library, "session", "child", parent="project/parent", name="Child session")
    return documents.add_text(library, "a note of the session", doc_type=DocumentType.NOTE, title="Session note",
                              scope="session/child")


def test_a_childs_note_seen_from_its_parent_is_not_called_inherited(qtbot, make_window, library):
    # The parent reviewing the session's request opens its note: Details said "Inherited from <session>".
    note = _parent_and_child(library)
    review.request_promotion(library, note.id, "project/parent", requested_by="session/child", reason="done")
    window = make_window(library, scope="project/parent")
    assert note.id not in {d.id for d in window.workbench.snapshot.documents}  # never listed in the parent
    window.open_document(note.id)
    qtbot.waitUntil(lambda: window.details.document_id() == note.id, timeout=WAIT)
    assert window.details.inherited_label.text().startswith("From Child session, a scope inside this one")
    assert window.details.is_read_only()


def test_switching_to_the_parent_closes_the_childs_tabs(qtbot, make_window, library):
    # A note opened in the session stayed open, in its tab and in Details, after switching to the project.
    note = _parent_and_child(library)
    window = make_window(library, scope="session/child")
    window.open_document(note.id)
    qtbot.waitUntil(lambda: window.current_viewer() is not None and window.details.document_id() == note.id,
                    timeout=WAIT)
    window.workbench.set_scope("project/parent")
    qtbot.waitUntil(lambda: window.workbench.snapshot.state.scope == "project/parent", timeout=WAIT)
    qtbot.waitUntil(lambda: window.tabs.count() == 1, timeout=WAIT)
    assert window.details.document_id() is None
