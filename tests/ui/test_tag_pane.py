"""The tag pane: the tag tree model, checking tags to filter, and the context-menu requests."""

import pytest
from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt
from PySide6.QtWidgets import QStyle, QStyleOptionViewItem

from vancetope_desktop.services.tags import TagCount
from vancetope_desktop.ui.tag_pane import OWN_ROLE, TAG_ROLE, TagPane, TagTreeModel

COUNTS = [
    TagCount(tag="2024", own=4, total=4),
    TagCount(tag="topic", own=1, total=5, color="#1f77b4"),
    TagCount(tag="topic/attention", own=3, total=3),
    TagCount(tag="topic/attention/sparse", own=1, total=1),
    TagCount(tag="topic/efficiency", own=2, total=2),
    TagCount(tag="thinkprocess:tp_12", own=2, total=2),
    TagCount(tag="unread", own=7, total=7, color="#ffd54f"),
]


def _row(model, parent, name):
    for row in range(model.rowCount(parent)):
        index = model.index(row, 0, parent)
        if index.data() == name:
            return index
    raise AssertionError(f"no row {name!r}")


def test_model_passes_the_model_tester_empty_filled_and_changed(qtbot, qtmodeltester):
    model = TagTreeModel()
    qtmodeltester.check(model)
    model.set_tags(COUNTS)
    qtmodeltester.check(model)
    model.set_checked("topic/attention", True)
    model.set_tags([*COUNTS[:3], TagCount(tag="method/transformer", own=2, total=2)])
    qtmodeltester.check(model)
    model.set_tags([])
    qtmodeltester.check(model)


def test_model_builds_the_hierarchy_with_counts(qtbot):
    model = TagTreeModel()
    model.set_tags(COUNTS)
    root = [model.index(r, 0).data() for r in range(model.rowCount())]
    assert root == ["2024", "thinkprocess:tp_12", "topic", "unread"]
    topic = _row(model, QModelIndex(), "topic")
    assert [model.index(r, 0, topic).data() for r in range(model.rowCount(topic))] == ["attention", "efficiency"]
    attention = _row(model, topic, "attention")
    sparse = _row(model, attention, "sparse")
    assert sparse.data(TAG_ROLE) == "topic/attention/sparse"
    assert sparse.parent() == attention and attention.parent() == topic
    assert topic.siblingAtColumn(1).data() == 5 and topic.data(OWN_ROLE) == 1
    assert attention.siblingAtColumn(1).data(TAG_ROLE) == "topic/attention"
    assert topic.data(Qt.ItemDataRole.ToolTipRole) == "#topic — 5 documents (1 with exactly this tag)"
    assert sparse.data(Qt.ItemDataRole.ToolTipRole) == "#topic/attention/sparse — 1 document"
    assert not sparse.data(Qt.ItemDataRole.DecorationRole).isNull()
    assert model.colors() == {"topic": "#1f77b4", "unread": "#ffd54f"}
    assert model.flags(topic) & Qt.ItemFlag.ItemIsUserCheckable
    assert not model.flags(topic.siblingAtColumn(1)) & Qt.ItemFlag.ItemIsUserCheckable


def test_missing_parent_levels_are_made_up(qtbot):
    model = TagTreeModel()
    model.set_tags([TagCount(tag="a/b", own=2, total=2)])
    parent = model.index(0, 0)
    assert parent.data() == "a" and parent.siblingAtColumn(1).data() is None
    assert model.index(0, 0, parent).data(TAG_ROLE) == "a/b"


def test_check_states_survive_a_refresh(qtbot):
    model = TagTreeModel()
    model.set_tags(COUNTS)
    assert model.setData(model.index_of("unread"), Qt.CheckState.Checked.value, Qt.ItemDataRole.CheckStateRole)
    assert model.setData(model.index_of("topic/attention"), Qt.CheckState.Checked, Qt.ItemDataRole.CheckStateRole)
    assert model.index_of("unread").data(Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked
    assert model.index_of("unread", 1).data(Qt.ItemDataRole.FontRole).bold()  # checked rows are bold
    assert model.index_of("2024").data(Qt.ItemDataRole.FontRole) is None
    with qtbot.assertNotEmitted(model.checked_changed):
        model.set_tags(COUNTS)
    assert model.checked_tags() == ["unread", "topic/attention"]
    with qtbot.waitSignal(model.checked_changed):
        model.set_tags([t for t in COUNTS if t.tag != "unread"])
    assert model.checked_tags() == ["topic/attention"]


@pytest.fixture
def pane(qtbot):
    widget = TagPane()
    qtbot.addWidget(widget)
    widget.set_tags(COUNTS)
    widget.view.expandAll()
    widget.resize(280, 400)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _click_check(qtbot, pane, tag):
    """Click a row's check box the way a user does."""
    index = pane.proxy.mapFromSource(pane.model.index_of(tag))
    option = QStyleOptionViewItem()
    option.initFrom(pane.view)
    option.rect = pane.view.visualRect(index)
    option.features |= QStyleOptionViewItem.ViewItemFeature.HasCheckIndicator
    box = pane.view.style().subElementRect(QStyle.SubElement.SE_ItemViewItemCheckIndicator, option, pane.view)
    qtbot.mouseClick(pane.view.viewport(), Qt.MouseButton.LeftButton, pos=box.center())


def _select(pane, *tags):
    selection = pane.view.selectionModel()
    selection.clearSelection()
    for tag in tags:
        index = pane.proxy.mapFromSource(pane.model.index_of(tag))
        selection.select(index, QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)


def test_checking_tags_filters_and_switching_mode_re_emits(qtbot, pane):
    with qtbot.waitSignal(pane.filter_changed) as first:
        _click_check(qtbot, pane, "topic/attention")
    assert first.args == [["topic/attention"], "all"]
    with qtbot.waitSignal(pane.filter_changed) as second:
        _click_check(qtbot, pane, "unread")
    assert second.args == [["topic/attention", "unread"], "all"]
    assert pane.clear_button.isEnabled()

    with qtbot.waitSignal(pane.filter_changed) as switched:
        pane.mode_combo.setCurrentIndex(pane.mode_combo.findData("any"))
    assert switched.args == [["topic/attention", "unread"], "any"]
    assert pane.match_mode() == "any"

    with qtbot.waitSignal(pane.filter_changed) as cleared:
        qtbot.mouseClick(pane.clear_button, Qt.MouseButton.LeftButton)
    assert cleared.args == [[], "any"]
    assert not pane.clear_button.isEnabled()
    with qtbot.assertNotEmitted(pane.filter_changed):
        pane.set_match_mode("all")  # nothing checked: nothing to re-filter


def test_select_tag_checks_it(qtbot, pane):
    pane.select_tag("unread")
    with qtbot.waitSignal(pane.filter_changed) as added:
        assert pane.select_tag("topic/efficiency")
    assert added.args == [["unread", "topic/efficiency"], "all"]
    with qtbot.waitSignal(pane.filter_changed) as only:
        pane.select_tag("2024", exclusive=True)
    assert only.args == [["2024"], "all"]
    assert pane.selected_tags() == ["2024"]
    with qtbot.assertNotEmitted(pane.filter_changed):
        assert not pane.select_tag("no/such/tag")
    with qtbot.waitSignal(pane.filter_changed) as cleared:
        pane.clear_filter()
    assert cleared.args == [[], "all"]


def test_filter_box_keeps_parents_of_matches(qtbot, pane):
    qtbot.keyClicks(pane.filter_edit, "spar")
    proxy = pane.proxy
    assert proxy.rowCount() == 1
    topic = proxy.index(0, 0)
    attention = proxy.index(0, 0, topic)
    assert proxy.index(0, 0, attention).data(TAG_ROLE) == "topic/attention/sparse"
    pane.filter_edit.clear()
    assert proxy.rowCount() == 4


def test_rename_merge_colour_delete_requests(qtbot, pane, monkeypatch):
    answers = iter(["#Topic/Focus", "topic/attention"])
    monkeypatch.setattr(pane, "_ask_text", lambda title, label, default="": next(answers))
    monkeypatch.setattr(pane, "_ask_color", lambda title, initial: "#aa3300")
    confirms = iter([False, True])
    monkeypatch.setattr(pane, "_confirm", lambda title, text: next(confirms))
    warnings = []
    monkeypatch.setattr(pane, "_warn", lambda title, text: warnings.append(text))

    _select(pane, "topic/attention")
    with qtbot.waitSignal(pane.rename_requested) as renamed:
        pane.rename_selected()
    assert renamed.args == ["topic/attention", "topic/focus"]

    _select(pane, "topic/efficiency", "2024")
    assert pane.selected_tags() == ["2024", "topic/efficiency"]
    with qtbot.waitSignal(pane.merge_requested) as merged:
        pane.merge_selected()
    assert merged.args == [["2024", "topic/efficiency"], "topic/attention"]

    colours = []
    pane.color_requested.connect(lambda tag, colour: colours.append((tag, colour)))
    pane.color_selected()
    assert colours == [("2024", "#aa3300"), ("topic/efficiency", "#aa3300")]
    _select(pane, "topic", "2024")
    colours.clear()
    pane.clear_color_selected()  # only "topic" has its own colour
    assert colours == [("topic", "")]

    with qtbot.assertNotEmitted(pane.delete_requested):
        pane.delete_selected()  # the user said No
    with qtbot.waitSignal(pane.delete_requested) as deleted:
        pane.delete_selected()
    assert deleted.args == [["2024", "topic"]]
    assert warnings == []


def test_bad_names_are_refused_with_a_warning(qtbot, pane, monkeypatch):
    answers = iter(["bad, name", "topic/attention/inner", None])
    monkeypatch.setattr(pane, "_ask_text", lambda title, label, default="": next(answers))
    warnings = []
    monkeypatch.setattr(pane, "_warn", lambda title, text: warnings.append(text))
    _select(pane, "topic/attention")
    with qtbot.assertNotEmitted(pane.rename_requested):
        pane.rename_selected()  # comma
        pane.rename_selected()  # below itself
        pane.rename_selected()  # cancelled
    assert len(warnings) == 2


def test_context_menu_lists_actions_for_the_selection(qtbot, pane):
    _select(pane, "unread", "2024")
    menu = pane._menu()
    labels = {a.text(): a.isEnabled() for a in menu.actions() if not a.isSeparator()}
    assert labels == {"Rename…": False, "Merge into…": True, "Colour…": True, "Clear colour": True,
                      "Delete 2 tags…": True}
    menu.deleteLater()
