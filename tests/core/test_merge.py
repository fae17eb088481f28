"""Three-way merge of a note's text (core/merge.py over merge3): clean where the sides changed different lines,
conflicts marked where they changed the same ones."""

from vancetope_desktop.core.merge import MINE_MARKER, SEPARATOR, THEIRS_MARKER, has_conflict_markers, merge_texts

BASE = "# Plan\n\nRecruit 40 patients.\n\nAnalyse with a t-test.\n\nReport in May.\n"


def test_changes_to_different_paragraphs_merge_cleanly():
    mine = BASE.replace("40 patients", "60 patients")
    theirs = BASE.replace("in May", "in June")
    merged = merge_texts(BASE, mine, theirs)
    assert merged.clean and merged.conflicts == ()
    assert merged.text == "# Plan\n\nRecruit 60 patients.\n\nAnalyse with a t-test.\n\nReport in June.\n"
    assert not has_conflict_markers(merged.text)


def test_the_same_change_on_both_sides_is_taken_once():
    both = BASE.replace("t-test", "Wilcoxon test")
    merged = merge_texts(BASE, both, both + "\nAppendix.\n")
    assert merged.clean and merged.text == both + "\nAppendix.\n"


def test_changes_to_the_same_line_conflict_and_are_marked_with_both_sides():
    mine = BASE.replace("t-test", "Wilcoxon test")
    theirs = BASE.replace("t-test", "mixed model")
    merged = merge_texts(BASE, mine, theirs, mine_label="your draft", theirs_label="version 3 by user:bob")
    assert not merged.clean and len(merged.conflicts) == 1
    hunk = merged.conflicts[0]
    assert (hunk.base, hunk.mine, hunk.theirs) == ("Analyse with a t-test.\n", "Analyse with a Wilcoxon test.\n",
                                                   "Analyse with a mixed model.\n")
    lines = merged.text.splitlines()
    assert lines[hunk.line - 1] == f"{MINE_MARKER} (your draft)"
    assert lines[hunk.line:hunk.line + 4] == ["Analyse with a Wilcoxon test.", SEPARATOR,
                                              "Analyse with a mixed model.", f"{THEIRS_MARKER} (version 3 by user:bob)"]
    assert lines[0] == "# Plan" and lines[-1] == "Report in May."  # the rest merged around it
    assert has_conflict_markers(merged.text)


def test_a_missing_last_line_break_is_no_change():
    merged = merge_texts("a\n\nb", "a changed\n\nb", "a\n\nb changed")
    assert merged.clean and merged.text == "a changed\n\nb changed"


def test_a_markdown_heading_underline_is_not_a_marker():
    assert not has_conflict_markers("Title\n=======\n\ntext > quote\n")
    assert has_conflict_markers("x\n>>>>>>> theirs\n") and has_conflict_markers("<<<<<<<\n")
