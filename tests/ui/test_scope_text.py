"""How the window words scopes: own, inherited or sibling documents, refusals, and scope paths inside reasons."""

from __future__ import annotations

from datetime import UTC, datetime

from vancetope_desktop.core.scope_info import ScopeInfo, VisibleScope
from vancetope_desktop.core.scopes import ScopeKind
from vancetope_desktop.ui.scope_text import (
    ScopeRelation,
    agent_paths,
    badge_text,
    descendant_paths,
    name_scope_paths,
    read_only_note,
    refusal_text,
    scope_relation,
    sibling_paths,
    where_text,
)

TP, SIBLING, SESSION = "think-process/tp_12", "think-process/tp_13", "session/review-2026"
NAMES = {TP: "Paper Analysis", SIBLING: "Hypothesis Check", SESSION: "Literature review",
         "session/review": "Review", "project/transformer-efficiency": "Transformer Efficiency Review"}


def test_a_sibling_think_process_is_told_apart_from_an_ancestor():
    visible = [VisibleScope(path=TP, distance=0, weight=1.0), VisibleScope(path=SESSION, distance=1, weight=0.8),
               VisibleScope(path=SIBLING, distance=1, weight=0.8, results_only=True)]
    siblings = sibling_paths(visible)
    assert siblings == {SIBLING}
    assert scope_relation(TP, TP, siblings) is ScopeRelation.OWN
    assert scope_relation(SESSION, TP, siblings) is ScopeRelation.INHERITED
    assert scope_relation(SIBLING, TP, siblings) is ScopeRelation.SIBLING
    assert scope_relation(SESSION, "", siblings) is ScopeRelation.OWN  # no acting scope known yet
    assert [r.read_only for r in ScopeRelation] == [False, True, True, True, True, True]
    assert badge_text("Literature review", ScopeRelation.INHERITED) == "↑ Literature review"
    assert badge_text("Hypothesis Check", ScopeRelation.SIBLING) == "↔ Hypothesis Check"
    assert badge_text("Paper Analysis", ScopeRelation.OWN) == "Paper Analysis"


def test_the_agent_that_runs_a_session_is_told_apart_from_an_ancestor():
    visible = [VisibleScope(path=SESSION, distance=0, weight=1.0),
               VisibleScope(path="agent/tau", distance=1, weight=0.8, via_agent=True),
               VisibleScope(path="project/transformer-efficiency", distance=1, weight=0.8)]
    agents = agent_paths(visible)
    assert agents == {"agent/tau"}
    assert scope_relation("agent/tau", SESSION, agents=agents) is ScopeRelation.AGENT
    assert scope_relation("project/transformer-efficiency", SESSION, agents=agents) is ScopeRelation.INHERITED
    assert ScopeRelation.AGENT.read_only
    assert badge_text("Tau", ScopeRelation.AGENT) == "⚙ Tau" and where_text("Tau", ScopeRelation.AGENT) == "agent Tau"
    assert read_only_note("Tau", ScopeRelation.AGENT) == (
        "From the memory of agent Tau, which runs this scope: read-only here")
    assert refusal_text("Deploy rule", "Tau", ScopeRelation.AGENT, "rename it") == (
        "“Deploy rule” belongs to agent Tau: it is read-only here; switch to Tau to rename it")


def test_read_only_notes_and_refusals_say_where_the_document_belongs():
    assert read_only_note("Hypothesis Check", ScopeRelation.SIBLING) == (
        "From sibling think process Hypothesis Check (its results are shared with this one): read-only here")
    assert read_only_note("Inbox", ScopeRelation.INHERITED) == "Inherited from Inbox: read-only here"
    assert read_only_note("Inbox", ScopeRelation.OWN) == ""
    assert refusal_text("Counterarguments", "Hypothesis Check", ScopeRelation.SIBLING, "rename it") == (
        "“Counterarguments” belongs to sibling think process Hypothesis Check: it is read-only here; "
        "switch to Hypothesis Check to rename it")
    assert refusal_text("Fact", "Inbox", ScopeRelation.INHERITED, "move it to the trash", more=2) == (
        "“Fact” belongs to Inbox (and 2 more from other scopes): it is read-only here; "
        "switch to Inbox to move it to the trash")


def test_known_scope_paths_in_a_reason_read_as_names():
    assert name_scope_paths("promoted by hand to session/review-2026", NAMES) == (
        "promoted by hand to Literature review")
    # The longest path wins; a sentence's full stop may follow a path; several paths in one text.
    assert name_scope_paths("from session/review to session/review-2026.", NAMES) == (
        "from Review to Literature review.")
    assert name_scope_paths(f"{TP} asked; {SIBLING} agreed", NAMES) == "Paper Analysis asked; Hypothesis Check agreed"
    # A path that runs on into a longer unknown one, an unknown (archived) path, or no path: unchanged.
    for text in ("session/review-2026b", "session/review-2026/x", "session/review.v2", "session/old-one",
                 "moved to the trash", ""):
        assert name_scope_paths(text, NAMES) == text
    assert name_scope_paths("to session/review-2026", {}) == "to session/review-2026"


def _scope(path: str, parent: str | None) -> ScopeInfo:
    kind, key = path.split("/")
    return ScopeInfo(path=path, kind=ScopeKind(kind), key=key, name=key, parent=parent, created_at=datetime.now(UTC))


def test_a_document_of_a_scope_inside_is_not_inherited():
    # Seen from its session, a think process's note (under review, or in a tab left open after switching
    # scope) said "Inherited from Paper Analysis": inheritance goes down the tree, never up.
    tree = [_scope(SESSION, None), _scope(TP, SESSION), _scope(SIBLING, SESSION), _scope("session/review", None)]
    inside = descendant_paths(tree, SESSION)
    assert inside == {TP, SIBLING} and descendant_paths(tree, TP) == frozenset()
    assert scope_relation(TP, SESSION, ancestors=[], inside=inside) is ScopeRelation.INSIDE
    assert scope_relation("session/review", SESSION, ancestors=[], inside=inside) is ScopeRelation.OTHER
    assert scope_relation(SESSION, TP, ancestors=[SESSION]) is ScopeRelation.INHERITED
    assert read_only_note("Paper Analysis", ScopeRelation.INSIDE).startswith(
        "From Paper Analysis, a scope inside this one (not inherited")
    assert read_only_note("Review", ScopeRelation.OTHER) == "From Review, a scope this one does not see: read-only here"
