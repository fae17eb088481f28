"""The scope switcher: the tree model, the breadcrumb, the signals, and drops of documents on scopes."""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QDragEnterEvent
from PySide6.QtWidgets import QApplication, QToolButton

from tests.ui.drops import drag_and_drop
from vancetope_desktop.services import scopes
from vancetope_desktop.ui.dnd import add_source_scopes, encode_document_ids
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
    scopes.rename_scope(library, "session/s1", "R&D & tests")  # "&" marks a shortcut on a button: doubled
    switcher.set_scopes(scopes.list_scopes(library), "session/s1")
    crumb = next(b for b in switcher.findChildren(QToolButton) if b.text().startswith("R&"))
    assert crumb.text() == "R&&D && tests" and switcher.breadcrumb_text().endswith("› R&D & tests")


def _from(*sources, ids=("doc_1",)):
    return add_source_scopes(encode_document_ids(ids), sources)


def test_scopes_take_documents_of_their_branch_only(qtbot, qtmodeltester, library):
    model = ScopeTreeModel()
    model.set_scopes(_tree(library), "think-process/tp_1")
    qtmodeltester.check(model)
    move = Qt.DropAction.MoveAction
    tp1, inbox, other = (model.index_for(p) for p in ("think-process/tp_1", "project/inbox", "project/other"))
    assert model.flags(inbox) & Qt.ItemFlag.ItemIsDropEnabled
    assert model.canDropMimeData(_from("think-process/tp_1"), move, -1, -1, inbox)
    assert model.canDropMimeData(_from("project/inbox"), move, -1, -1, tp1)  # demotion
    assert model.canDropMimeData(encode_document_ids(["doc_1"]), move, -1, -1, other)  # unknown source: services judge
    assert not model.canDropMimeData(_from("think-process/tp_1"), move, -1, -1, other)
    assert not model.canDropMimeData(_from("think-process/tp_1"), move, -1, -1, model.index_for("think-process/tp_2"))
    assert not model.canDropMimeData(_from("think-process/tp_1"), move, -1, -1, tp1)
    assert model.drop_refusal(_from("think-process/tp_1"), other) == (
        "Other project is on another branch than Paper Analysis: documents move only up (promote) or down (demote) "
        "their branch")
    assert model.drop_refusal(_from("think-process/tp_1", ids=("a", "b")), tp1) == "They are in Paper Analysis already"
    assert model.drop_refusal(_from("think-process/tp_1"), inbox) is None
    with qtbot.waitSignal(model.documents_dropped) as blocker:
        assert model.dropMimeData(_from("think-process/tp_1"), move, -1, -1, inbox)
    assert blocker.args == [["doc_1"], "project/inbox"]
    with qtbot.assertNotEmitted(model.documents_dropped):
        assert not model.dropMimeData(_from("think-process/tp_1"), move, -1, -1, other)
        qtbot.wait(20)


def test_drops_on_the_popup_tree_and_the_breadcrumb(qtbot, library):
    switcher = ScopeSwitcher()
    qtbot.addWidget(switcher)
    switcher.set_scopes(_tree(library), "think-process/tp_1")
    switcher.show()
    qtbot.waitExposed(switcher)
    mime = _from("think-process/tp_1")
    # Hovering the Scopes button with documents opens the tree.
    enter = QDragEnterEvent(switcher.tree_button.rect().center(), Qt.DropAction.MoveAction, mime,
                            Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(switcher.tree_button, enter)
    assert enter.isAccepted()
    qtbot.waitUntil(switcher.tree.isVisible)

    def point(path):
        return QPointF(switcher.tree.visualRect(switcher.model.index_for(path)).center())

    with qtbot.waitSignal(switcher.move_refused) as refused:
        assert drag_and_drop(switcher.tree.viewport(), mime, point("project/other")) == (False, False)
    assert refused.args[0].startswith("Other project is on another branch")
    with qtbot.waitSignal(switcher.documents_dropped) as blocker:
        assert drag_and_drop(switcher.tree.viewport(), mime, point("session/s1")) == (True, True)
    assert blocker.args == [["doc_1"], "session/s1"]
    qtbot.waitUntil(lambda: not switcher.tree.isVisible())

    crumbs = {b.text(): b for b in switcher.findChildren(QToolButton) if b is not switcher.tree_button}
    with qtbot.waitSignal(switcher.documents_dropped) as blocker:
        assert drag_and_drop(crumbs["Inbox"], mime, QPointF(crumbs["Inbox"].rect().center())) == (True, True)
    assert blocker.args == [["doc_1"], "project/inbox"]
    with qtbot.waitSignal(switcher.move_refused) as refused:
        assert drag_and_drop(crumbs["Paper Analysis"], mime, QPointF(5, 5)) == (False, False)
    assert refused.args == ["It is in Paper Analysis already"]


def test_publish_and_settings_from_the_tree(qtbot, library):
    switcher = ScopeSwitcher()
    qtbot.addWidget(switcher)
    switcher.set_scopes(_tree(library), "think-process/tp_1")

    def texts():
        return [a.text() for a in switcher.tree_context_menu().actions() if not a.isSeparator()]

    switcher.tree.setCurrentIndex(switcher.model.index_for("think-process/tp_2"))
    assert texts()[-3:] == ["Publish to Project…", "Conversation…", "Scope Settings…"]
    with qtbot.waitSignal(switcher.publish_requested) as blocker:
        switcher.publish_action.trigger()
    assert blocker.args == ["think-process/tp_2"]
    switcher.tree.setCurrentIndex(switcher.model.index_for("session/s1"))
    assert "Publish to Project…" not in texts() and not switcher.publish_action.isEnabled()
    with qtbot.waitSignal(switcher.settings_requested) as blocker:
        switcher.settings_action.trigger()
    assert blocker.args == ["session/s1"]


def test_agent_scopes_are_listed_with_their_icon_and_the_sessions_they_run(qtmodeltester, library):
    scopes.create_scope(library, "agent", "tau", parent="project/inbox", name="Tau")
    scopes.create_scope(library, "session", "s1", parent="project/inbox", agent="agent/tau")
    model = ScopeTreeModel()
    model.set_scopes(scopes.list_scopes(library), "session/s1")
    qtmodeltester.check(model)
    agent = model.index_for("agent/tau")
    assert agent.data() == "Tau" and model.parent(agent).data(PATH_ROLE) == "project/inbox"
    assert agent.data(Qt.ItemDataRole.ToolTipRole) == "Agent · agent/tau"
    assert not agent.data(Qt.ItemDataRole.DecorationRole).isNull()
    assert model.index_for("session/s1").data(Qt.ItemDataRole.ToolTipRole) == "Session · session/s1 · run by agent/tau"
    assert model.index_for("project/inbox").data(Qt.ItemDataRole.DecorationRole) is None
