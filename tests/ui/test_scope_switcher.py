"""The scope switcher: the tree model, the breadcrumb, and the signals."""

from __future__ import annotations

from vancetope_desktop.services import scopes
from vancetope_desktop.ui.scope_switcher import PATH_ROLE, ScopeSwitcher, ScopeTreeModel


def _tree(library):
    scopes.create_scope(library, "session", "s1", parent="project/inbox", name="Session one")
    scopes.create_scope(library, "think-process", "tp_1", parent="session/s1", name="Paper Analysis")
    scopes.create_scope(library, "think-process", "tp_2", parent="session/s1", name="Hypothesis Check")
    scopes.create_scope(library, "project", "other", parent="group/default", name="Other project")
    return scopes.list_scopes(library)


def test_scope_tree_model(qtmodeltester, library):
    model = ScopeTreeModel()
    qtmodeltester.check(model)
    model.set_scopes(_tree(library), "think-process/tp_1")
    qtmodeltester.check(model)
    group = model.index(0, 0)
    assert model.rowCount(group) == 2  # inbox and other
    index = model.index_for("think-process/tp_2")
    assert index.data(PATH_ROLE) == "think-process/tp_2"
    assert model.parent(index).data(PATH_ROLE) == "session/s1"
    assert model.index_for("think-process/tp_1").data(0x0006) is not None  # bold font on the current scope


def test_breadcrumb_and_selection(qtbot, library):
    switcher = ScopeSwitcher()
    qtbot.addWidget(switcher)
    switcher.set_scopes(_tree(library), "think-process/tp_1")
    assert switcher.breadcrumb_text() == "My Research › Inbox › Session one › Paper Analysis"
    with qtbot.waitSignal(switcher.scope_selected) as blocker:
        switcher.tree.clicked.emit(switcher.model.index_for("project/other"))
    assert blocker.args == ["project/other"]
    switcher.tree.setCurrentIndex(switcher.model.index_for("session/s1"))
    with qtbot.waitSignal(switcher.create_requested) as blocker:
        switcher.new_child_action.trigger()
    assert blocker.args == ["session/s1"]
    with qtbot.waitSignal(switcher.archive_requested) as blocker:
        switcher.archive_action.trigger()
    assert blocker.args == ["session/s1"]
