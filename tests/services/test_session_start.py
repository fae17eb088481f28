"""The start of a session: the seed's three recalls in one block within a token budget (issue 12, seed 001)."""

import pytest

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import (
    BudgetTooSmall,
    EmptyQuery,
    NotAnAgentScope,
    ScopeError,
    ScopeNotFound,
    ScopeNotVisible,
)
from vancetope_desktop.services import documents, episodes, scopes
from vancetope_desktop.services.session_start import SectionKind, session_start


@pytest.fixture
def team(library):
    """group/global > project/foo (+ agent/tau under the group) and project/bar, with memories in each."""
    scopes.create_scope(library, "group", "global")
    scopes.create_scope(library, "project", "foo", parent="group/global")
    scopes.create_scope(library, "project", "bar", parent="group/global")
    scopes.create_scope(library, "agent", "tau", parent="group/global")

    def remember(text, scope, memory_type):
        return documents.add_text(library, text, doc_type=DocumentType.NOTE, scope=scope, memory_type=memory_type).id

    ids = {
        "convention": remember("Convention: every pattern of error handling returns a typed error", "group/global",
                               "feedback"),
        "global_user": remember("Alice prefers short answers", "group/global", "user"),
        "decision": remember("Architecture decision: SQLite holds every document, Chroma the vectors",
                             "project/foo", "project"),
        "foo_ref": remember("The architecture decisions log is in docs/adr", "project/foo", "reference"),
        "bar": remember("Architecture decision of bar: Postgres", "project/bar", "project"),
        "work": remember("Current work: the session start block; priorities: the budget, then the MCP prompt",
                         "agent/tau", "project"),
    }
    documents.add_text(library, "A plain note on architecture decisions, not a memory", scope="project/foo")
    ids["episode"] = episodes.store_episode(library, "agent/tau", "Deploying", "Add an index", "Ran the deploy",
                                            "It failed", "Order matters", "major", "agent/tau").id
    return library, ids


def test_three_sections_each_from_its_own_namespace(team):
    lib, ids = team
    start = session_start(lib, "agent/tau", "project/foo")
    assert start.conventions == "group/global"  # "global" is the project's group
    conventions, decisions, agent = start.sections
    assert [s.kind for s in start.sections] == [SectionKind.CONVENTIONS, SectionKind.DECISIONS, SectionKind.AGENT]
    assert conventions.memories[0].id == ids["convention"]  # feedback before user
    assert {m.id for m in conventions.memories} == {ids["convention"], ids["global_user"]}
    # project memories first, then the others; never project/bar's, never a plain note
    assert [m.id for m in decisions.memories] == [ids["decision"], ids["foo_ref"]]
    assert {m.id for m in agent.memories} == {ids["work"], ids["episode"]}
    for section in start.sections:
        assert all(m.namespace == section.namespace for m in section.memories)
        assert f"## {section.heading[3:]}" in start.markdown
    assert start.markdown.startswith("# Session start: agent/tau on project/foo")
    for m in [*conventions.memories, *decisions.memories, *agent.memories]:
        assert f"- `{m.id}` {m.memory_type.value}: " in start.markdown
    assert not start.truncated
    assert start.tokens == lib.embedder().count_tokens(start.markdown) <= start.token_budget


def test_a_small_budget_is_shared_fairly_and_says_what_it_left_out(team):
    lib, _ids = team
    for n in range(8):  # a talkative project: its section alone would fill the budget
        documents.add_text(lib, f"Architecture decision {n}: " + "the reasons are long and detailed " * 12,
                           doc_type=DocumentType.NOTE, scope="project/foo", memory_type="project")
    whole = session_start(lib, "agent/tau", "project/foo")
    small = session_start(lib, "agent/tau", "project/foo", token_budget=250)
    count = lib.embedder().count_tokens
    assert small.tokens == count(small.markdown) <= 250 and small.truncated
    conventions, decisions, agent = small.sections
    # The short sections are whole; the long one took what they left and says how many it left out.
    assert [m.id for m in conventions.memories] == [m.id for m in whole.sections[0].memories]
    assert [m.id for m in agent.memories] == [m.id for m in whole.sections[2].memories]
    assert decisions.omitted and f"- … {len(decisions.omitted)} more not shown (token budget)" in small.markdown
    assert set(decisions.omitted).isdisjoint(m.id for m in decisions.memories)
    assert all(i not in small.markdown for i in decisions.omitted)
    assert not conventions.omitted and not agent.omitted


def test_queries_can_be_changed(team):
    lib, ids = team
    start = session_start(lib, "agent/tau", "project/foo", decisions_query="docs adr log")
    decisions = start.sections[1]
    assert decisions.query == "docs adr log"
    assert decisions.memories[0].found_by == "recall" and decisions.memories[0].id == ids["foo_ref"]


def test_bad_input_is_a_typed_error(team):
    lib, _ids = team
    scopes.create_scope(lib, "session", "s1", parent="project/foo")
    scopes.create_scope(lib, "agent", "pi", parent="project/bar")
    with pytest.raises(ScopeNotFound):
        session_start(lib, "agent/nobody", "project/foo")
    with pytest.raises(NotAnAgentScope, match="session/s1 is a session, not an agent scope"):
        session_start(lib, "session/s1", "project/foo")
    with pytest.raises(ScopeError, match="not a project"):
        session_start(lib, "agent/tau", "group/global")
    with pytest.raises(ScopeNotVisible, match="agent/pi belongs to project/bar"):
        session_start(lib, "agent/pi", "project/foo")
    with pytest.raises(ScopeNotVisible, match="session/s1 cannot see agent/tau"):
        session_start(lib, "agent/tau", "project/foo", acting="session/s1")  # not run by tau
    with pytest.raises(BudgetTooSmall, match="give at least"):
        session_start(lib, "agent/tau", "project/foo", token_budget=20)
    with pytest.raises(EmptyQuery):
        session_start(lib, "agent/tau", "project/foo", state_query="  ")
    scopes.set_agent(lib, "session/s1", "agent/tau")
    assert session_start(lib, "agent/tau", "project/foo", acting="session/s1").sections[2].memories


def test_fair_shares_pass_what_a_short_section_leaves_to_the_others():
    from vancetope_desktop.services.session_start import _fair_shares

    assert _fair_shares([10, 100, 30], 90) == [10, 50, 30]
    assert _fair_shares([100, 100, 0], 90) == [45, 45, 0]
    assert _fair_shares([5, 5, 5], 90) == [5, 5, 5]
    assert _fair_shares([50, 50], -3) == [0, 0]
