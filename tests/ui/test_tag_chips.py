"""Tag chips: colours, the chip widget, the chips editor and the table delegate."""

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor, QFontMetrics, QImage, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QStyleOptionViewItem, QTableView

from vancetope_desktop.core.errors import InvalidInput
from vancetope_desktop.ui.tag_chips import (
    TAGS_ROLE,
    TagChip,
    TagChipsDelegate,
    TagChipsEditor,
    parse_typed_tag,
    tag_color,
    text_color_for,
)


def test_tag_color_uses_nearest_configured_ancestor():
    colors = {"topic": "#1f77b4", "topic/attention": "#ff0000"}
    assert tag_color("topic/attention/sparse", colors).name() == "#ff0000"
    assert tag_color("topic/efficiency", colors).name() == "#1f77b4"
    assert tag_color("topic", colors).name() == "#1f77b4"


def test_derived_colors_are_stable_and_follow_the_top_level():
    first = tag_color("method/transformer", {})
    # Known value: a BLAKE2 digest, not Python's salted hash, so it is the same in every run.
    assert first.name() == tag_color("method/transformer", {}).name() == tag_color("method", {}).name()
    assert first.name() == "#dc5bbe"
    assert tag_color("thinkprocess:tp_12", {}).name() == tag_color("thinkprocess:tp_99", {}).name()
    assert tag_color("unread", {}).name() != first.name()
    assert tag_color("x", {"x": "not a colour"}).isValid()


@pytest.mark.parametrize(("background", "text"), [("#ffd54f", "#1b1b1b"), ("#1f77b4", "#ffffff"),
                                                   ("#000000", "#ffffff"), ("#ffffff", "#1b1b1b")])
def test_chip_text_contrasts_with_its_colour(background, text):
    assert text_color_for(QColor(background)).name() == text


def test_typed_tags_are_normalised_or_refused():
    assert parse_typed_tag("  #Topic/Attention ") == "topic/attention"
    assert parse_typed_tag("thinkProcess:tp_12") == "thinkprocess:tp_12"
    for bad in ("", "  # ", "two words", "a//b", "a,b"):
        with pytest.raises(InvalidInput):
            parse_typed_tag(bad)


def test_chip_click_and_close_button(qtbot):
    chip = TagChip("topic/attention", QColor("#1f77b4"))
    qtbot.addWidget(chip)
    chip.show()
    qtbot.waitExposed(chip)
    with qtbot.waitSignal(chip.clicked) as clicked:
        qtbot.mouseClick(chip, Qt.MouseButton.LeftButton, pos=QPoint(8, chip.height() // 2))
    assert clicked.args == ["topic/attention"]
    with qtbot.waitSignal(chip.remove_requested) as removed:
        qtbot.mouseClick(chip, Qt.MouseButton.LeftButton, pos=chip.close_button_rect().center())
    assert removed.args == ["topic/attention"]
    chip.set_removable(False)
    assert chip.close_button_rect().isEmpty()
    with qtbot.assertNotEmitted(chip.remove_requested):
        qtbot.keyClick(chip, Qt.Key.Key_Delete)


def test_editor_adds_normalised_tags_and_refuses_bad_ones(qtbot):
    editor = TagChipsEditor()
    qtbot.addWidget(editor)
    editor.set_tags(["unread"])
    editor.show()
    with qtbot.waitSignal(editor.tag_added) as added:
        qtbot.keyClicks(editor.line_edit, "#Topic/Attention")
        qtbot.keyClick(editor.line_edit, Qt.Key.Key_Return)
    assert added.args == ["topic/attention"]
    assert editor.tags() == ["unread", "topic/attention"]
    assert [c.tag for c in editor.chips()] == ["unread", "topic/attention"]
    assert editor.line_edit.text() == "" and editor.error_text() == ""

    with qtbot.assertNotEmitted(editor.tag_added):
        qtbot.keyClicks(editor.line_edit, "two words")
        qtbot.keyClick(editor.line_edit, Qt.Key.Key_Return)
    assert "spaces" in editor.error_text()
    assert editor.line_edit.text() == "two words"  # kept, so the user can fix it
    qtbot.keyClick(editor.line_edit, Qt.Key.Key_A)  # typing again hides the error
    assert editor.error_text() == ""
    editor.line_edit.clear()
    with qtbot.assertNotEmitted(editor.tag_added):
        qtbot.keyClick(editor.line_edit, Qt.Key.Key_Return)
    assert editor.error_text()


def test_editor_completes_known_tags(qtbot):
    editor = TagChipsEditor()
    qtbot.addWidget(editor)
    editor.set_tags(["unread"])
    editor.set_completions(["topic/attention", "topic/efficiency", "unread", "2024"])
    editor.show()
    qtbot.waitExposed(editor)
    editor.line_edit.setFocus()
    popup = editor.completer().popup()
    qtbot.keyClicks(editor.line_edit, "effic")
    qtbot.waitUntil(popup.isVisible)
    # The tag the document already has is not offered; matching is anywhere in the tag.
    assert editor.completer().completionModel().rowCount() == 1
    assert editor.completer().completionModel().index(0, 0).data() == "topic/efficiency"
    with qtbot.waitSignal(editor.tag_added) as added:
        qtbot.keyClick(popup, Qt.Key.Key_Down)
        qtbot.keyClick(popup, Qt.Key.Key_Return)
    assert added.args == ["topic/efficiency"]
    assert editor.tags() == ["unread", "topic/efficiency"]
    assert editor.error_text() == ""
    assert editor.line_edit.text() == ""
    # Enter with the popup open but nothing highlighted adds what was typed.
    with qtbot.waitSignal(editor.tag_added) as added:
        qtbot.keyClicks(editor.line_edit, "topic")
        qtbot.waitUntil(popup.isVisible)
        qtbot.keyClick(editor.line_edit, Qt.Key.Key_Return)
    assert added.args == ["topic"]
    assert not popup.isVisible()


def test_editor_removes_and_clicks_chips(qtbot):
    editor = TagChipsEditor()
    qtbot.addWidget(editor)
    editor.set_tags(["unread", "topic/attention"])
    editor.set_colors({"topic": "#1f77b4"})
    editor.show()
    qtbot.waitExposed(editor)
    chip = editor.chips()[1]
    assert chip.color().name() == "#1f77b4"
    with qtbot.waitSignal(editor.tag_clicked) as clicked:
        qtbot.mouseClick(chip, Qt.MouseButton.LeftButton, pos=QPoint(8, chip.height() // 2))
    assert clicked.args == ["topic/attention"]
    with qtbot.waitSignal(editor.tag_removed) as removed:
        qtbot.mouseClick(chip, Qt.MouseButton.LeftButton, pos=chip.close_button_rect().center())
    assert removed.args == ["topic/attention"]
    assert editor.tags() == ["unread"]


def test_read_only_editor_offers_no_edits(qtbot):
    editor = TagChipsEditor()
    qtbot.addWidget(editor)
    editor.set_tags(["unread"])
    editor.set_read_only(True)
    editor.show()
    assert not editor.line_edit.isVisible()
    assert not editor.chips()[0].is_removable()
    with qtbot.assertNotEmitted(editor.tag_added), qtbot.assertNotEmitted(editor.tag_removed):
        assert not editor.add_tag("new")
        editor.remove_tag("unread")
    assert editor.tags() == ["unread"]


def test_delegate_paints_chips_and_counts_the_rest(qtbot):
    model = QStandardItemModel(3, 1)
    rows = [["topic/attention", "topic/efficiency", "unread", "2024", "method/transformer", "thinkprocess:tp_12"],
            ["unread"], []]
    for row, tags in enumerate(rows):
        item = QStandardItem()
        item.setData(tags, TAGS_ROLE)
        model.setItem(row, 0, item)
    view = QTableView()
    qtbot.addWidget(view)
    view.setModel(model)
    delegate = TagChipsDelegate(view, colors={"topic": "#1f77b4"})
    view.setItemDelegate(delegate)
    view.setColumnWidth(0, 200)
    view.resize(260, 160)
    view.selectRow(0)
    view.show()
    qtbot.waitExposed(view)

    image = view.viewport().grab().toImage()
    assert not image.isNull() and image.format() != QImage.Format.Format_Invalid
    option = QStyleOptionViewItem()
    option.initFrom(view)
    option.rect = view.visualRect(model.index(0, 0))
    placed, hidden = delegate.layout_chips(option, rows[0])
    assert placed and hidden == len(rows[0]) - len(placed) > 0
    assert all(rect.right() <= option.rect.right() for _tag, rect in placed)
    # The configured colour reached the painted cell: some pixel of the first chip is #1f77b4.
    first = placed[0][1].toAlignedRect()
    y = first.center().y()
    assert any(image.pixelColor(x, y).name() == "#1f77b4" for x in range(first.left() + 3, first.right() - 3))
    delegate.set_colors(lambda tag: QColor("#ff0000"))
    view.viewport().update()
    assert delegate.sizeHint(option, model.index(1, 0)).height() >= option.fontMetrics.height()


def test_a_cell_too_narrow_for_a_readable_chip_shows_only_the_count(qtbot):
    view = QTableView()
    qtbot.addWidget(view)
    delegate = TagChipsDelegate(view)
    option = QStyleOptionViewItem()
    option.initFrom(view)
    metrics = QFontMetrics(delegate._chip_font(option))
    tags = ["efficiency", "attention"]
    option.rect = QRect(0, 0, metrics.horizontalAdvance("#…s") + 30, 24)
    assert delegate.layout_chips(option, tags) == ([], 2)  # no "#…s" chip
    option.rect = QRect(0, 0, metrics.horizontalAdvance("#efficiency") + 60, 24)
    placed, hidden = delegate.layout_chips(option, tags)
    assert [t for t, _ in placed] == ["efficiency"] and hidden == 1
