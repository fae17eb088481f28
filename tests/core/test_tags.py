"""Tag normalisation, hierarchy and AND / OR / NOT filters (seed §3.3)."""

import pytest

from vancetope_desktop.core.errors import InvalidInput
from vancetope_desktop.core.tags import (
    AllOf,
    NoneOf,
    TagIs,
    combine,
    matches,
    normalize_tag,
    parse_tag_expression,
    split_tag_list,
    tag_ancestors,
)


def test_normalisation_is_case_insensitive_and_strips_hash():
    assert normalize_tag("#Topic/Attention") == "topic/attention"
    assert normalize_tag("thinkProcess:tp_12") == "thinkprocess:tp_12"
    assert normalize_tag("  high relevance ") == "high-relevance"
    assert normalize_tag("Ü") == normalize_tag("U\u0308")  # both Unicode forms are one tag


@pytest.mark.parametrize("bad", ["", "#", "a//b", "a,b", "/a", "x(y)"])
def test_bad_tags_are_refused(bad):
    with pytest.raises(InvalidInput):
        normalize_tag(bad)


def test_hierarchy_parent_finds_children_but_not_prefix_lookalikes():
    assert matches(TagIs("topic"), ["topic/attention"])
    assert matches(TagIs("topic/attention"), ["topic/attention/sparse"])
    assert not matches(TagIs("topic"), ["topical"])
    assert not matches(TagIs("topic/attention"), ["topic"])
    assert tag_ancestors("a/b/c") == ["a", "a/b", "a/b/c"]


def test_seed_combinations_and_or_not():
    paper = ["attention", "efficiency", "2017"]
    assert matches(combine(required=["attention", "efficiency"]), paper)
    assert not matches(combine(required=["attention", "sparse"]), paper)
    assert matches(combine(any_tags=["sparse", "efficiency"]), paper)
    assert not matches(combine(required=["attention"], excluded=["2017"]), paper)
    assert combine() is None


def test_expression_precedence_and_juxtaposition():
    expr = parse_tag_expression("#attention and (#efficiency or #sparse) and not #unread")
    assert matches(expr, ["attention", "sparse"])
    assert not matches(expr, ["attention", "sparse", "unread"])
    assert not matches(expr, ["attention"])
    assert parse_tag_expression("#a #b") == AllOf((TagIs("a"), TagIs("b")))
    assert parse_tag_expression("-a") == NoneOf(TagIs("a"))
    # OR binds looser than AND
    assert matches(parse_tag_expression("#a and #b or #c"), ["c"])


@pytest.mark.parametrize("bad", ["(#a", "#a and", "or #b", "#a )", ""])
def test_malformed_expressions_raise_invalid_input(bad):
    with pytest.raises(InvalidInput):
        parse_tag_expression(bad)


def test_split_tag_list_dedupes():
    assert split_tag_list("attention, 2024,#Attention,,") == ["attention", "2024"]
