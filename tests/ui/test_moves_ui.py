"""Moving documents between scopes in the window (issue 4): drops on the folder tree, the scope switcher's
tree and breadcrumb, the "Move to Scope" menus, the confirmation, publishing a think process, and the
scope settings dialog. Real library with the demo installed; every change is checked through the services."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QDragEnterEvent
from PySide6.QtWidgets import QApplication, QLabel, QToolButton

from tests.library_copies import build_template, copied_library
from tests.ui.drops import drag_and_drop
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.promotion import RequestStatus
from vancetope_desktop.services import audit, demo, documents, folders, promotion_rules, review, scopes
from vancetope_desktop.ui.dnd import add_source_scopes, encode_document_ids
from vancetope_desktop.ui.folder_model import FolderTarget
from vancetope_desktop.ui.move_dialog import (
    MoveDialog,
    load_move_preview,
    move_targets,
    summarise_scopes,
    visibility_labels,
    visibility_texts,
)
from vancetope_desktop.ui.publish_dialog import PublishDialog
from vancetope_desktop.ui.request_dialog import RequestPromotionDialog
from vancetope_desktop.ui.scope_settings_dialog import ScopeSettingsDialog

GROUP, PROJECT = "group/ml-research", "project/transformer-efficiency"
SESSION, TP, SIBLING = "session/review-2026", "think-process/tp_12", "think-process/tp_13"
WAIT = 10_000


@pytest.fixture(scope="module")
def demo_template(tmp_path_factory):
    """The demo installed once for the module (rendering and reading its papers is most of a test's setup)."""
    template, _ = build_template(tmp_path_factory, demo.install_demo)
    return template


@pytest.fixture
def demo_library(demo_template, tmp_path):
    with copied_library(demo_template, tmp_path / "library") as library:
        yield library


def _results(lib, scope=TP):
    return [d for d in documents.list_documents(lib, scope=scope, include_ancestors=False)
            if d.type == DocumentType.RESULT]


def _scope_of(lib, doc_id):
    return documents.get_document(lib, doc_id).scope


def _select(qtbot, window, ids):
    qtbot.waitUntil(lambda: all(window.table.document_model.row_for(i) is not None for i in ids), timeout=WAIT)
    window.table.select_ids(ids)
    assert window.table.selected_ids() == ids


def _move_dialog(qtbot, window) -> MoveDialog:
    qtbot.waitUntil(lambda: isinstance(window.scope_moves.dialog, MoveDialog)
                    and window.scope_moves.dialog.isVisible(), timeout=WAIT)
    return window.scope_moves.dialog


def _tree_point(window, target):
    tree = window.folder_tree
    index = tree.folder_model.index_for(target)
    tree.scrollTo(index)
    return QPointF(tree.visualRect(index).center())


def _open_scope_tree(qtbot, window):
    switcher = window.scope_switcher
    switcher.tree_button.open_menu()
    qtbot.waitUntil(lambda: switcher.tree.isVisible(), timeout=WAIT)
    return switcher


def _switcher_point(switcher, path):
    return QPointF(switcher.tree.visualRect(switcher.model.index_for(path)).center())


# -- the pure parts --------------------------------------------------------------------------------


def test_move_targets_follow_the_branch(demo_library):
    all_scopes = scopes.list_scopes(demo_library)
    from_tp = move_targets(all_scopes, [TP])
    assert [s.path for s in from_tp.promote] == [GROUP, PROJECT, SESSION]
    assert from_tp.demote == [] and from_tp.other == []
    from_project = move_targets(all_scopes, [PROJECT])
    assert [s.path for s in from_project.promote] == [GROUP]
    assert [(s.path, depth) for s, depth in from_project.demote] == [(SESSION, 1), (SIBLING, 2), (TP, 2)]
    # A selection from a think process and its project: only scopes on both branches, the session "in between".
    mixed = move_targets(all_scopes, [TP, PROJECT])
    assert [s.path for s in mixed.promote] == [GROUP, PROJECT]
    assert [s.path for s, _ in mixed.demote] == [TP]
    assert [s.path for s in mixed.other] == [SESSION]
    assert "project/inbox" not in from_tp.paths() + from_project.paths()


def test_long_scope_lists_are_summarised_by_kind(qtbot, demo_library):
    for n in range(6):
        scopes.create_scope(demo_library, "session", f"extra-{n}", parent=PROJECT, name=f"Extra {n}")
    for n in range(3):
        scopes.create_scope(demo_library, "think-process", f"tp_x{n}", parent="session/extra-0", name=f"TP {n}")
    doc = _results(demo_library)[0]
    preview = load_move_preview(demo_library, [doc.id], PROJECT)
    assert preview.direction == "up" and preview.loses == ()
    assert len(preview.gains) == 1 + 1 + 1 + 6 + 3  # project, session, sibling, 6 sessions, 3 think processes
    assert summarise_scopes(preview.gains) == (
        "Project: Transformer Efficiency Review, Session: Literature review, Session: Extra 0, Session: Extra 1 "
        "and 8 more (4 sessions, 4 think processes)")
    assert summarise_scopes(preview.gains[:5]).count(",") == 4  # five names: no "and 1 more"
    dialog = MoveDialog(preview)
    qtbot.addWidget(dialog)
    assert dialog.gains_label.text().endswith("and 8 more (4 sessions, 4 think processes)")


# -- drops ------------------------------------------------------------------------------------------


def test_drop_on_a_scope_of_the_folder_tree_promotes_after_confirmation(qtbot, demo_library, make_window):
    window = make_window(demo_library, TP)
    doc = _results(demo_library)[0]
    _select(qtbot, window, [doc.id])
    mime = window.table.drag_mime()
    project_root = FolderTarget("scope", PROJECT, PROJECT, True)
    assert drag_and_drop(window.folder_tree.viewport(), mime, _tree_point(window, project_root)) == (True, True)

    dialog = _move_dialog(qtbot, window)
    assert dialog.move_button.text() == "Promote"
    assert doc.title in dialog.heading.text()
    assert dialog.from_label.text() == "Think Process: Paper Analysis"
    assert dialog.to_label.text() == "Project: Transformer Efficiency Review"
    assert dialog.gains_label.text() == ("Project: Transformer Efficiency Review, Session: Literature review, "
                                         "Think Process: Hypothesis Check")
    assert dialog.loses_label.text().startswith("None")
    assert _scope_of(demo_library, doc.id) == TP  # nothing moves before the user confirms
    dialog.reason_edit.setText("ready for the project")
    dialog.move_button.click()
    qtbot.waitUntil(lambda: _scope_of(demo_library, doc.id) == PROJECT, timeout=WAIT)
    last = audit.document_history(demo_library, doc.id)[-1]
    assert (last.action, last.from_scope, last.to_scope, last.reason) == ("promote", TP, PROJECT,
                                                                          "ready for the project")
    # It landed in the think process's results folder of the project, and the window shows it there.
    landing = folders.folder_path(demo_library, doc.id)
    assert landing[-2:] == ["Results", "Think-Process: Paper Analysis"]
    qtbot.waitUntil(lambda: any(f.title == "Think-Process: Paper Analysis" for f in window.workbench.snapshot.folders),
                    timeout=WAIT)


def test_cancelling_the_confirmation_moves_nothing(qtbot, demo_library, make_window):
    window = make_window(demo_library, TP)
    doc = _results(demo_library)[0]
    _select(qtbot, window, [doc.id])
    assert drag_and_drop(window.folder_tree.viewport(), window.table.drag_mime(),
                         _tree_point(window, FolderTarget("scope", SESSION, SESSION, True))) == (True, True)
    _move_dialog(qtbot, window).reject()
    qtbot.waitUntil(lambda: window.scope_moves.dialog is None, timeout=WAIT)
    assert _scope_of(demo_library, doc.id) == TP
    assert all(e.action != "promote" for e in audit.document_history(demo_library, doc.id))


def test_drop_on_a_scope_of_the_switcher_tree_moves_there(qtbot, demo_library, make_window):
    window = make_window(demo_library, TP)
    doc = _results(demo_library)[1]
    _select(qtbot, window, [doc.id])
    mime = window.table.drag_mime()
    switcher = window.scope_switcher
    # Hovering the "Scopes" button with documents opens the tree.
    enter = QDragEnterEvent(switcher.tree_button.rect().center(), Qt.DropAction.CopyAction | Qt.DropAction.MoveAction,
                            mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(switcher.tree_button, enter)
    assert enter.isAccepted()
    qtbot.waitUntil(lambda: switcher.tree.isVisible(), timeout=WAIT)
    with qtbot.waitSignal(switcher.documents_dropped) as dropped:
        assert drag_and_drop(switcher.tree.viewport(), mime, _switcher_point(switcher, SESSION)) == (True, True)
    assert dropped.args == [[doc.id], SESSION]
    assert not switcher.tree.isVisible()  # the popup closes after a drop
    dialog = _move_dialog(qtbot, window)
    assert dialog.to_label.text() == "Session: Literature review"
    assert dialog.gains_label.text() == "Session: Literature review, Think Process: Hypothesis Check"
    dialog.move_button.click()
    qtbot.waitUntil(lambda: _scope_of(demo_library, doc.id) == SESSION, timeout=WAIT)


def test_drop_on_a_crumb_of_the_breadcrumb(qtbot, demo_library, make_window):
    window = make_window(demo_library, TP)
    doc = _results(demo_library)[2]
    _select(qtbot, window, [doc.id])
    switcher = window.scope_switcher

    def crumb():
        return next((b for b in switcher.findChildren(QToolButton) if b.text() == "ML Research" and b.isVisible()),
                    None)

    qtbot.waitUntil(lambda: crumb() is not None, timeout=WAIT)  # crumbs show on the next event-loop turn
    crumb = crumb()
    assert drag_and_drop(crumb, window.table.drag_mime(), QPointF(crumb.rect().center())) == (True, True)
    dialog = _move_dialog(qtbot, window)
    assert dialog.to_label.text() == "Project Group: ML Research"
    dialog.move_button.click()
    qtbot.waitUntil(lambda: _scope_of(demo_library, doc.id) == GROUP, timeout=WAIT)


def test_drops_across_branches_are_refused_with_a_reason(qtbot, demo_library, make_window):
    window = make_window(demo_library, TP)
    doc = _results(demo_library)[0]
    _select(qtbot, window, [doc.id])
    mime = window.table.drag_mime()
    switcher = _open_scope_tree(qtbot, window)
    with qtbot.waitSignal(switcher.move_refused) as refused, qtbot.assertNotEmitted(switcher.documents_dropped):
        assert drag_and_drop(switcher.tree.viewport(), mime, _switcher_point(switcher, SIBLING)) == (False, False)
    assert refused.args == ["Hypothesis Check is on another branch than Paper Analysis: documents move only up "
                            "(promote) or down (demote) their branch"]
    assert window.statusBar().currentMessage() == refused.args[0]

    with qtbot.waitSignal(switcher.move_refused) as refused, qtbot.assertNotEmitted(switcher.documents_dropped):
        assert drag_and_drop(switcher.tree.viewport(), mime, _switcher_point(switcher, "project/inbox")) == \
            (False, False)
    assert refused.args[0].startswith("Inbox is on another branch than Paper Analysis")
    assert drag_and_drop(switcher.tree.viewport(), mime, _switcher_point(switcher, TP)) == (False, False)
    switcher.tree_button.menu().close()

    # A move the UI could not check beforehand (a drop from elsewhere) is refused by the services: an error.
    with qtbot.waitSignal(window.workbench.failed) as failed:
        window.scope_moves.request_move([doc.id], "project/inbox")
    assert failed.args[0].startswith("Move failed:") and "not on the branch" in failed.args[0]
    assert _scope_of(demo_library, doc.id) == TP


def test_a_folder_with_its_contents_moves_by_drag_and_by_the_tree_menu(qtbot, demo_library, make_window):
    drafts = folders.create_folder(demo_library, "Drafts", scope=TP)
    inner = folders.create_folder(demo_library, "Older", scope=TP, parent_id=drafts.id)
    notes = [documents.add_text(demo_library, f"Draft {n} about sparse attention", doc_type=DocumentType.NOTE,
                                scope=TP, folder_id=drafts.id if n else inner.id) for n in range(3)]
    window = make_window(demo_library, TP)
    tree = window.folder_tree
    target = FolderTarget("folder", drafts.id, TP)
    qtbot.waitUntil(lambda: tree.folder_model.index_for(target).isValid(), timeout=WAIT)

    # By the context menu: Move to Scope ▸ Session.
    menu = tree.context_menu(target)
    move_menu = next(a.menu() for a in menu.actions() if a.text() == "Move to Scope")
    texts = [a.text() for a in move_menu.actions() if not a.isSeparator()]
    assert texts == ["↑ Project Group: ML Research", "↑ Project: Transformer Efficiency Review",
                     "↑ Session: Literature review"]
    with qtbot.waitSignal(tree.move_to_scope_requested) as asked:
        move_menu.actions()[2].trigger()
    assert asked.args == [[drafts.id], SESSION]
    dialog = _move_dialog(qtbot, window)
    assert "the folder “Drafts” with 4 items" in dialog.heading.text()
    dialog.move_button.click()
    moved = [drafts.id, inner.id, *(n.id for n in notes)]
    qtbot.waitUntil(lambda: all(_scope_of(demo_library, i) == SESSION for i in moved), timeout=WAIT)
    assert documents.get_document(demo_library, notes[0].id).folder_id == inner.id  # the inside stays inside

    # By drag and drop: the session's folder (now inherited here) back into the think process's "All documents".
    session_folder = FolderTarget("folder", drafts.id, SESSION, True)
    qtbot.waitUntil(lambda: tree.folder_model.index_for(session_folder).isValid(), timeout=WAIT)
    mime = add_source_scopes(encode_document_ids([drafts.id]), [SESSION])
    with qtbot.waitSignal(tree.folder_model.scope_move_requested) as asked:
        assert drag_and_drop(tree.viewport(), mime, _tree_point(window, FolderTarget("smart", "all", TP))) == \
            (True, True)
    assert asked.args == [[drafts.id], FolderTarget("scope", TP, TP)]
    dialog = _move_dialog(qtbot, window)
    assert dialog.move_button.text() == "Demote"
    assert dialog.loses_label.text() == "Session: Literature review, Think Process: Hypothesis Check"
    dialog.move_button.click()
    qtbot.waitUntil(lambda: all(_scope_of(demo_library, i) == TP for i in moved), timeout=WAIT)


def test_the_document_menu_demotes_the_selection(qtbot, demo_library, make_window):
    window = make_window(demo_library, PROJECT)
    paper = next(d for d in documents.list_documents(demo_library, scope=PROJECT, include_ancestors=False)
                 if d.type == DocumentType.FILE)
    _select(qtbot, window, [paper.id])
    assert "&Document" in [a.text() for a in window.menuBar().actions()]
    assert "Move to Scope" in [a.text() for a in window.table.context_menu().actions()]
    menu = window.move_to_scope_menu
    menu.aboutToShow.emit()
    actions = {a.text(): a for a in menu.actions() if not a.isSeparator()}
    assert list(actions) == ["↑ Project Group: ML Research", "↓ Session: Literature review",
                             "↓     Think Process: Hypothesis Check", "↓     Think Process: Paper Analysis"]
    actions["↓     Think Process: Paper Analysis"].trigger()
    dialog = _move_dialog(qtbot, window)
    assert dialog.move_button.text() == "Demote"
    assert dialog.gains_label.text() == "None: only the scopes that see it now will see it"
    assert dialog.loses_label.text() == ("Project: Transformer Efficiency Review, Session: Literature review, "
                                         "Think Process: Hypothesis Check")
    said: list[str] = []
    window.workbench.notice.connect(said.append)  # what the status bar shows (another message may follow it)
    dialog.move_button.click()
    qtbot.waitUntil(lambda: _scope_of(demo_library, paper.id) == TP, timeout=WAIT)
    assert audit.document_history(demo_library, paper.id)[-1].action == "demote"
    qtbot.waitUntil(lambda: "Moved 1 item to Paper Analysis" in said, timeout=WAIT)


def _project_doc(lib):
    return next(d for d in documents.list_documents(lib, scope=PROJECT, include_ancestors=False)
                if d.type == DocumentType.FILE)


def test_a_mixed_selection_counts_only_what_moves(qtbot, demo_library, make_window):
    window = make_window(demo_library, TP)
    result, paper = _results(demo_library)[0], _project_doc(demo_library)
    _select(qtbot, window, [result.id, paper.id])
    menu = window.move_to_scope_menu
    menu.aboutToShow.emit()
    next(a for a in menu.actions() if a.text() == "↑ Project: Transformer Efficiency Review").trigger()
    dialog = _move_dialog(qtbot, window)
    assert dialog.heading.text() == ("<b>Promote 1 document (1 is already in Transformer Efficiency Review) to "
                                     "Project: Transformer Efficiency Review?</b>")
    assert dialog.from_label.text() == "Think Process: Paper Analysis"  # not the project itself
    assert dialog.titles_label.text() == f"“{result.title}”" and dialog.titles_label.isVisibleTo(dialog)
    dialog.move_button.click()
    qtbot.waitUntil(lambda: "Moved 1 item to Transformer Efficiency Review" in window.statusBar().currentMessage(),
                    timeout=WAIT)
    assert _scope_of(demo_library, result.id) == PROJECT and _scope_of(demo_library, paper.id) == PROJECT
    assert [e.action for e in audit.document_history(demo_library, paper.id)] == []  # the paper did not move


def test_a_move_with_nothing_to_move_says_so_without_asking(qtbot, demo_library, make_window):
    window = make_window(demo_library, TP)
    paper = _project_doc(demo_library)
    window.scope_moves.request_move([paper.id], PROJECT)
    qtbot.waitUntil(lambda: f"“{paper.title}” is already in Transformer Efficiency Review"
                    in window.statusBar().currentMessage(), timeout=WAIT)
    assert window.scope_moves.dialog is None
    preview = load_move_preview(demo_library, [paper.id], PROJECT)
    assert (preview.ids, preview.already, preview.direction, preview.sources) == ((), (paper.id,), "none", ())


def test_the_gains_and_loses_lines_are_worded_alike(demo_library):
    assert visibility_texts([], []) == ("None: only the scopes that see it now will see it",
                                        "None: every scope that sees it now still will")
    assert visibility_texts([], [], 3) == ("None: only the scopes that see them now will see them",
                                           "None: every scope that sees them now still will")
    assert visibility_labels(1) == ("Will newly see it:", "Will no longer see it:")
    session = scopes.get_scope(demo_library, SESSION)
    assert visibility_texts([session], [session])[0] == visibility_texts([session], [session])[1] == \
        "Session: Literature review"


def test_sibling_results_never_open_the_siblings_scope_in_the_tree(qtbot, demo_library, make_window):
    scopes.set_sibling_results_visible(demo_library, TP, True)
    window = make_window(demo_library, TP)
    snapshot = window.workbench.snapshot
    assert any(v.path == SIBLING and v.results_only for v in snapshot.visible)
    model = window.folder_tree.folder_model
    assert not model.index_for(FolderTarget("scope", SIBLING, SIBLING, True)).isValid()
    assert all(t.scope != SIBLING for t in model.targets())
    sibling_note = next(d for d in documents.list_documents(demo_library, scope=SIBLING, include_ancestors=False)
                        if d.type == DocumentType.NOTE)
    # A target left over from before (or from elsewhere) cannot list the sibling's documents either.
    window.workbench.set_target(FolderTarget("scope", SIBLING, SIBLING, True))
    qtbot.waitUntil(lambda: window.workbench.snapshot is not snapshot, timeout=WAIT)
    shown = window.workbench.snapshot
    assert shown.state.target.kind == "smart" and shown.state.target.key == "all"
    assert sibling_note.id not in {d.id for d in shown.documents}
    # Search may still offer the sibling (it returns its results only).
    assert SIBLING in [b.property("scope_path") for b in window.search_pane._scope_buttons]


# -- publishing ----------------------------------------------------------------------------------------


def test_publish_to_project_asks_then_creates_requests(qtbot, demo_library, make_window):
    window = make_window(demo_library, TP)
    results = _results(demo_library)
    assert window.publish_action.isEnabled()
    texts = [a.text() for a in window.folder_tree.context_menu(FolderTarget("scope", TP, TP)).actions()]
    assert "Publish to Project…" in texts
    switcher = window.scope_switcher
    switcher.tree.setCurrentIndex(switcher.model.index_for(TP))
    assert "Publish to Project…" in [a.text() for a in switcher.tree_context_menu().actions()]
    switcher.tree.setCurrentIndex(switcher.model.index_for(SESSION))
    assert "Publish to Project…" not in [a.text() for a in switcher.tree_context_menu().actions()]

    window.publish_action.trigger()
    qtbot.waitUntil(lambda: isinstance(window.scope_moves.dialog, PublishDialog), timeout=WAIT)
    dialog = window.scope_moves.dialog
    assert dialog.question_label.text() == ("Request promotion of 3 results of Paper Analysis to project "
                                            "Transformer Efficiency Review? They go to the review queue.")
    # Worded as the move confirmation words it.
    assert dialog.gains_label.text() == ("Project: Transformer Efficiency Review, Session: Literature review, "
                                         "Think Process: Hypothesis Check")
    assert dialog.loses_label.text() == "None: every scope that sees them now still will"
    labels = [w.text() for w in dialog.findChildren(QLabel)]
    assert "Will newly see them:" in labels and "Will no longer see them:" in labels
    dialog.reason_edit.setText("ready for the project meeting")
    dialog.publish_button.click()
    qtbot.waitUntil(lambda: len(review.list_requests(demo_library, source_scope=TP)) == 3, timeout=WAIT)
    pending = review.list_requests(demo_library, source_scope=TP)
    assert {r.document_id for r in pending} == {d.id for d in results}
    assert all(r.status == RequestStatus.PENDING and r.target_scope == PROJECT for r in pending)
    # The result the rule had asked for keeps its request; the two new ones carry the reason given.
    assert sorted(r.reason for r in pending) == ["ready for the project meeting"] * 2 + ["tagged #project-relevant"]
    assert all(_scope_of(demo_library, d.id) == TP for d in results)  # requests only: nothing moved yet
    qtbot.waitUntil(lambda: "3 promotion requests for Paper Analysis" in window.statusBar().currentMessage(),
                    timeout=WAIT)


def test_publish_is_offered_only_for_a_think_process(qtbot, demo_library, make_window):
    window = make_window(demo_library, SESSION)
    assert not window.publish_action.isEnabled()
    texts = [a.text() for a in window.folder_tree.context_menu(FolderTarget("scope", SESSION, SESSION)).actions()]
    assert "Publish to Project…" not in texts and "Scope Settings…" in texts


# -- scope settings ------------------------------------------------------------------------------------


def _settings_dialog(qtbot, window) -> ScopeSettingsDialog:
    qtbot.waitUntil(lambda: window.scope_settings.dialog is not None and window.scope_settings.dialog.isVisible(),
                    timeout=WAIT)
    return window.scope_settings.dialog


def _rule_rows(dialog):
    view = dialog.rules_view
    return [[view.topLevelItem(r).text(c) for c in range(4)] for r in range(view.topLevelItemCount())]


def test_scope_settings_toggle_sibling_results_and_edit_rules(qtbot, demo_library, make_window):
    window = make_window(demo_library, TP)
    window.scope_settings_action.trigger()
    dialog = _settings_dialog(qtbot, window)
    assert dialog.windowTitle() == "Scope Settings — Paper Analysis"
    assert not dialog.sibling_box.isHidden()
    assert not dialog.sibling_check.isChecked()
    assert "Off by default" in dialog.sibling_hint.text() and "Literature review" in dialog.sibling_hint.text()
    assert _rule_rows(dialog) == [["#project-relevant", "Its project", "Review", "built-in"]]

    dialog.sibling_check.click()
    qtbot.waitUntil(lambda: scopes.get_scope(demo_library, TP).sibling_results_visible, timeout=WAIT)
    qtbot.waitUntil(lambda: any(v.path == SIBLING and v.results_only for v in window.workbench.snapshot.visible),
                    timeout=WAIT)

    # Add a rule of this scope: #key-finding → its session, approved automatically.
    dialog.tag_edit.setText("#Key finding")
    assert dialog.save_button.text() == "Add rule"
    dialog.target_combo.setCurrentIndex(dialog.target_combo.findData("session"))
    dialog.auto_check.setChecked(True)
    dialog.save_button.click()
    qtbot.waitUntil(lambda: len(_rule_rows(dialog)) == 2, timeout=WAIT)
    rules = {r.tag: r for r in promotion_rules.effective_rules(demo_library, TP)}
    assert rules["key-finding"].target == "session" and rules["key-finding"].auto_approve
    assert rules["key-finding"].defined_in == TP
    assert ["#key-finding", "Its session", "Automatic", "this scope"] in _rule_rows(dialog)

    # Switch off the built-in rule here, then reset it.
    assert dialog.select_tag("project-relevant")
    assert dialog.switch_off_button.isEnabled() and not dialog.reset_button.isEnabled()
    dialog.switch_off_button.click()
    qtbot.waitUntil(lambda: ["#project-relevant", "—", "Switched off", "this scope"] in _rule_rows(dialog),
                    timeout=WAIT)
    assert "project-relevant" not in {r.tag for r in promotion_rules.effective_rules(demo_library, TP)}
    assert dialog.select_tag("project-relevant") and dialog.reset_button.isEnabled()
    dialog.reset_button.click()
    qtbot.waitUntil(lambda: ["#project-relevant", "Its project", "Review", "built-in"] in _rule_rows(dialog),
                    timeout=WAIT)

    # Change the rule of this scope (review now), then reset it away.
    assert dialog.select_tag("key-finding")
    assert dialog.tag_edit.text() == "key-finding" and dialog.save_button.text() == "Save rule"
    dialog.auto_check.setChecked(False)
    dialog.save_button.click()
    qtbot.waitUntil(lambda: ["#key-finding", "Its session", "Review", "this scope"] in _rule_rows(dialog),
                    timeout=WAIT)
    assert dialog.select_tag("key-finding")
    dialog.reset_button.click()
    qtbot.waitUntil(lambda: len(_rule_rows(dialog)) == 1, timeout=WAIT)
    assert [r.tag for r in promotion_rules.effective_rules(demo_library, TP)] == ["project-relevant"]

    dialog.sibling_check.click()
    qtbot.waitUntil(lambda: not scopes.get_scope(demo_library, TP).sibling_results_visible, timeout=WAIT)
    dialog.reject()
    qtbot.waitUntil(lambda: window.scope_settings.dialog is None, timeout=WAIT)


def test_scope_settings_of_a_project_from_the_switcher(qtbot, demo_library, make_window):
    promotion_rules.set_rule(demo_library, GROUP, "share-me", target="group")  # a group's rule: no project above
    window = make_window(demo_library, TP)
    switcher = window.scope_switcher
    switcher.tree.setCurrentIndex(switcher.model.index_for(PROJECT))
    with qtbot.waitSignal(switcher.settings_requested) as asked:
        switcher.settings_action.trigger()
    assert asked.args == [PROJECT]
    dialog = _settings_dialog(qtbot, window)
    assert dialog.sibling_box.isHidden()  # think processes only
    assert _rule_rows(dialog) == [["#project-relevant", "Its project", "Review", "built-in"],
                                  ["#share-me", "Its project group", "Review", "ML Research"]]
    assert dialog.select_tag("share-me") and not dialog.reset_button.isEnabled()  # inherited: switch off only
    # A project's rule can promote to the project or its group, never to "its session" (below it).
    combo = dialog.target_combo
    offered = {combo.itemData(r): combo.model().item(r).isEnabled() for r in range(combo.count())}
    assert offered == {"project": True, "session": False, "group": True}
    dialog.reject()



# -- requesting a promotion (the review queue) ------------------------------------------------------------


def _request_dialog(qtbot, window) -> RequestPromotionDialog:
    qtbot.waitUntil(lambda: isinstance(window.scope_moves.dialog, RequestPromotionDialog)
                    and window.scope_moves.dialog.isVisible(), timeout=WAIT)
    return window.scope_moves.dialog


def _unrequested_result(lib):
    return next(d for d in _results(lib) if not review.list_requests(lib, document_id=d.id))


def test_request_promotion_from_the_document_menu_files_a_request_in_the_review_queue(qtbot, demo_library,
                                                                                      make_window):
    window = make_window(demo_library, TP)
    doc = _unrequested_result(demo_library)
    before = review.pending_count(demo_library)
    _select(qtbot, window, [doc.id])
    assert window.table.request_promotion_action in window.table.context_menu().actions()  # the list's menu
    assert window.request_promotion_action in window.document_menu.actions()  # beside Move to Scope
    assert window.request_promotion_action.isEnabled()
    window.request_promotion_action.trigger()

    dialog = _request_dialog(qtbot, window)
    assert dialog.heading.text() == f"<b>Request the promotion of “{doc.title}”?</b>"
    assert dialog.from_label.text() == "Think Process: Paper Analysis"
    offered = [dialog.target_box.itemData(i) for i in range(dialog.target_box.count())]
    assert offered == [GROUP, PROJECT, SESSION]  # the scopes above it, as the move menu's promotions
    assert dialog.target() == PROJECT  # the service's default: its project
    assert dialog.gains_label.text() == ("Project: Transformer Efficiency Review, Session: Literature review, "
                                         "Think Process: Hypothesis Check")
    dialog.target_box.setCurrentIndex(offered.index(SESSION))
    assert dialog.gains_label.text() == "Session: Literature review, Think Process: Hypothesis Check"
    dialog.target_box.setCurrentIndex(offered.index(PROJECT))
    dialog.reason_edit.setText("  the meeting needs it  ")
    assert not review.list_requests(demo_library, document_id=doc.id)  # nothing asked before the click
    dialog.request_button.click()

    qtbot.waitUntil(lambda: bool(review.list_requests(demo_library, document_id=doc.id)), timeout=WAIT)
    [request] = review.list_requests(demo_library, document_id=doc.id)
    assert (request.status, request.target_scope, request.source_scope) == (RequestStatus.PENDING, PROJECT, TP)
    assert request.reason == "the meeting needs it" and request.requested_by.startswith("user:")
    assert _scope_of(demo_library, doc.id) == TP  # a request only: nothing moved
    qtbot.waitUntil(lambda: "requested: it waits in the review queue" in window.statusBar().currentMessage(),
                    timeout=WAIT)
    # The Review dock follows: the request is listed and the badge counts it.
    qtbot.waitUntil(lambda: window.review.pane.queue_model.request(request.id) is not None, timeout=WAIT)
    assert window.review.badge.text() == f"Review  {before + 1}"


def test_request_promotion_of_a_document_already_waiting_says_so_and_changes_nothing(qtbot, demo_library,
                                                                                   make_window):
    window = make_window(demo_library, TP)
    waiting = next(d for d in _results(demo_library) if review.list_requests(demo_library, document_id=d.id))
    [pending] = review.list_requests(demo_library, document_id=waiting.id)
    _select(qtbot, window, [waiting.id])
    window.request_promotion_action.trigger()
    qtbot.waitUntil(lambda: "already waits for review" in window.statusBar().currentMessage(), timeout=WAIT)
    said = window.statusBar().currentMessage()
    assert f"“{waiting.title}” already waits for review to Project: Transformer Efficiency Review ({pending.id})" \
        in said
    assert window.error_box is not None and pending.id in window.error_box.text()  # told in words
    assert window.scope_moves.dialog is None  # nothing asked
    assert review.list_requests(demo_library, document_id=waiting.id) == [pending]
    # Several documents, or the trash: one document is asked for at a time.
    _select(qtbot, window, [d.id for d in _results(demo_library)[:2]])
    assert not window.request_promotion_action.isEnabled()
    assert window.table.request_promotion_action not in window.table.context_menu().actions()


def test_a_sibling_think_process_result_is_not_requested_from_here(qtbot, demo_library, make_window):
    scopes.set_sibling_results_visible(demo_library, TP, True)
    window = make_window(demo_library, TP)
    sibling = _results(demo_library, SIBLING)[0]
    asked = review.list_requests(demo_library, status=None, document_id=sibling.id)
    _select(qtbot, window, [sibling.id])
    window.request_promotion_action.trigger()
    assert window.statusBar().currentMessage() == (
        f"“{sibling.title}” belongs to sibling think process Hypothesis Check: it is read-only here; switch to "
        "Hypothesis Check to request its promotion")
    assert window.scope_moves.dialog is None
    assert review.list_requests(demo_library, status=None, document_id=sibling.id) == asked  # nothing asked
