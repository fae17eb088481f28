"""Scope paths, kinds and proximity weights (seed §4, §5.3)."""

import pytest

from vancetope_desktop.core.errors import InvalidInput
from vancetope_desktop.core.scopes import ScopeKind, ScopePath, parse_kind, proximity_weight


def test_paths_round_trip_in_the_seed_spelling():
    path = ScopePath.parse("think-process/tp_12")
    assert path.kind is ScopeKind.THINK_PROCESS and path.key == "tp_12"
    assert str(path) == "think-process/tp_12"
    assert str(ScopePath.parse("project/Über Attention (2023)")) == "project/Über Attention (2023)"


@pytest.mark.parametrize("bad", ["proj_5", "planet/x", "project/", "project/a/b"])
def test_bad_paths(bad):
    with pytest.raises(InvalidInput):
        ScopePath.parse(bad)


def test_kind_tree_order_and_aliases():
    assert ScopeKind.THINK_PROCESS.parent_kinds == (ScopeKind.SESSION,)
    assert ScopeKind.GROUP.parent_kinds == ()
    assert ScopeKind.AGENT.parent_kinds == (ScopeKind.GROUP, ScopeKind.PROJECT)
    assert [k.child_kind for k in ScopeKind] == [ScopeKind.PROJECT, ScopeKind.SESSION, ScopeKind.THINK_PROCESS,
                                                 None, None]
    assert ScopePath.parse("orchestrator/tau") == ScopePath(ScopeKind.AGENT, "tau")
    assert parse_kind("thinkProcess") is ScopeKind.THINK_PROCESS


def test_proximity_weights_follow_the_seed():
    assert [proximity_weight(d) for d in range(5)] == [1.0, 0.8, 0.5, 0.3, 0.3]
    with pytest.raises(InvalidInput):
        proximity_weight(-1)
