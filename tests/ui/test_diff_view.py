"""The side-by-side diff: the line alignment and word highlights (pure), then the two synchronized panes."""

from __future__ import annotations

from PySide6.QtGui import QPalette

from vancetope_desktop.ui.diff_view import (
    DARK_COLORS,
    LIGHT_COLORS,
    DiffView,
    RowKind,
    align,
    change_blocks,
    diff_stats,
    inline_spans,
)
from vancetope_desktop.ui.themes import make_palette

OLD = """# Extraction: Attention is All You Need

The Transformer relies entirely on self-attention.
Key numbers: 28.4 BLEU, trained in 3.5 days on 8 GPUs.
- Layer norm after each sub-layer
- Removed line
"""
NEW = """# Extraction: Attention is All You Need

The Transformer relies entirely on self-attention.
Key numbers: 28.4 BLEU, trained in 12 hours on 8 P100 GPUs.
- Residual connections around each sub-layer
- Removed line
Added: FlashAttention-2 reports a further speed-up.
"""


def test_equal_texts_align_line_for_line_without_changes():
    rows = align(OLD, OLD)
    assert [r.kind for r in rows] == [RowKind.EQUAL] * len(OLD.splitlines())
    assert [(r.left_number, r.right_number) for r in rows[:2]] == [(1, 1), (2, 2)]
    assert diff_stats(rows).blocks == 0 and change_blocks(rows) == []


def test_changed_lines_pair_up_and_an_added_line_faces_a_gap():
    rows = align(OLD, NEW)
    kinds = [r.kind for r in rows]
    assert kinds == [RowKind.EQUAL] * 3 + [RowKind.CHANGED] * 2 + [RowKind.EQUAL, RowKind.ADDED]
    added = rows[-1]
    assert added.left is None and added.left_number is None and added.right_number == 7
    numbers = [r.right_number for r in rows]
    assert numbers == list(range(1, 8))
    assert change_blocks(rows) == [(3, 5), (6, 7)]
    stats = diff_stats(rows)
    assert (stats.added, stats.removed, stats.blocks) == (3, 2, 2)


def test_a_removed_line_faces_a_gap_on_the_right():
    rows = align("a\nb\nc\n", "a\nc\n")
    assert [(r.kind, r.left, r.right) for r in rows] == [
        (RowKind.EQUAL, "a", "a"), (RowKind.REMOVED, "b", None), (RowKind.EQUAL, "c", "c")]


def test_word_highlights_cover_the_changed_words_and_join_across_spaces():
    old, new = "- Layer norm after each sub-layer", "- Residual connections around each sub-layer"
    left, right = inline_spans(old, new)
    assert [old[a:b] for a, b in left] == ["Layer norm after"]
    assert [new[a:b] for a, b in right] == ["Residual connections around"]
    row = align(old, new)[0]
    assert row.kind is RowKind.CHANGED and row.left_spans == left


def test_unrelated_replacements_get_no_word_highlights():
    row = align("completely different words here", "xyz 123 !!")[0]
    assert row.kind is RowKind.CHANGED and row.left_spans == () and row.right_spans == ()


def _shown(qtbot, old: str = OLD, new: str = NEW, width: int = 700) -> DiffView:
    view = DiffView()
    qtbot.addWidget(view)
    view.resize(width, 400)
    view.set_texts(old, new, old_label="Now in Project", new_label="Proposed")
    view.show()
    qtbot.waitExposed(view)
    return view


def test_the_panes_hold_one_block_per_row_and_name_their_sides(qtbot):
    view = _shown(qtbot)
    assert view.left.document().blockCount() == view.right.document().blockCount() == len(view.rows)
    assert view.left.document().findBlockByNumber(6).text() == ""  # the gap facing the added line
    assert view.right.document().findBlockByNumber(6).text().startswith("Added:")
    assert (view.left_label.text(), view.right_label.text()) == ("Now in Project", "Proposed")
    assert view.stats_label.text() == "2 changes · +3 −2 lines"
    assert view.left.gaps == [False] * 6 + [True] and view.right.gaps == [False] * 7


def test_rows_stay_aligned_when_one_side_wraps_and_after_a_resize(qtbot):
    long_line = "word " * 80
    view = _shown(qtbot, "short\nend\n", f"{long_line}\nend\n", width=500)
    qtbot.waitUntil(view.is_aligned, timeout=3000)
    left_tops = view.left.block_tops()
    assert left_tops[1] > left_tops[0] + 3 * view.left.fontMetrics().height()  # padded to the wrapped height
    view.resize(900, 400)
    qtbot.waitUntil(lambda: view.is_aligned() and view.left.block_tops()[1] < left_tops[1], timeout=3000)


def test_one_scroll_bar_drives_both_panes_and_next_change_jumps(qtbot):
    many = "\n".join(f"line {n}" for n in range(200))
    changed = many.replace("line 150", "line one hundred fifty")
    view = _shown(qtbot, many, changed)
    qtbot.waitUntil(lambda: view.current_block() == 0, timeout=3000)  # the first change is shown at once
    right, left = view.right.verticalScrollBar(), view.left.verticalScrollBar()
    assert right.value() > 0 and left.value() == right.value()
    right.setValue(0)
    assert left.value() == 0
    view.next_change()  # one block only: wraps to it again
    assert view.current_block() == 0 and left.value() == right.value() > 0
    view.previous_change()
    assert view.current_block() == 0


def test_identical_texts_say_so_and_disable_navigation(qtbot):
    view = _shown(qtbot, OLD, OLD)
    assert view.stats_label.text() == "No changes in the text"
    assert not view.next_button.isEnabled() and not view.previous_button.isEnabled()


def test_colours_follow_the_palette(qtbot):
    view = _shown(qtbot)
    view.setPalette(make_palette(False))
    assert view.left.colors == LIGHT_COLORS
    view.setPalette(make_palette(True))
    assert view.left.colors == DARK_COLORS and view.right.colors == DARK_COLORS
    assert view.palette().color(QPalette.ColorRole.Window).lightnessF() < 0.5
    assert LIGHT_COLORS.added != DARK_COLORS.added and LIGHT_COLORS.removed_mark != DARK_COLORS.removed_mark
