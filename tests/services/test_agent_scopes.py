"""Agent scopes (issue 12): an agent's own memory under a group or project, seen by the work it runs only."""

import pytest

from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import ScopeError, ScopeNotVisible
from vancetope_desktop.core.scopes import ScopeKind
from vancetope_desktop.services import documents, scopes
from vancetope_desktop.services.search import search


@pytest.fixture
def team(library):
    """project/inbox runs session s1 by agent tau (and its think process tp_1); s2 runs alone; s3 by agent pi."""
    scopes.create_scope(library, "agent", "tau", parent="project/inbox", name="Tau")
    scopes.create_scope(library, "orchestrator", "pi", parent="group/default")  # seed 001's spelling
    scopes.create_scope(library, "session", "s1", parent="project/inbox", agent="agent/tau")
    scopes.create_scope(library, "think-process", "tp_1", parent="session/s1")
    scopes.create_scope(library, "session", "s2", parent="project/inbox")
    scopes.create_scope(library, "session", "s3", parent="project/inbox", agent="orchestrator/pi")
    return library


def _visible(lib, path):
    return [(v.path, v.distance, v.weight) for v in scopes.visible_scopes(lib, path)]


def test_a_session_run_by_an_agent_sees_its_scope_as_a_parent_and_nobody_else_does(team):
    assert scopes.get_scope(team, "agent/pi").kind is ScopeKind.AGENT
    assert _visible(team, "session/s1") == [("session/s1", 0, 1.0), ("project/inbox", 1, 0.8),
                                            ("group/default", 2, 0.5), ("agent/tau", 1, 0.8)]
    assert ("agent/tau", 1, 0.8) in _visible(team, "think-process/tp_1")  # its session's agent runs it too
    assert "agent/tau" not in [p for p, _, _ in _visible(team, "session/s2")]  # a sibling session
    assert "agent/tau" not in [p for p, _, _ in _visible(team, "session/s3")]  # another agent's session
    assert _visible(team, "agent/tau") == [("agent/tau", 0, 1.0), ("project/inbox", 1, 0.8),
                                           ("group/default", 2, 0.5)]
    assert scopes.get_scope(team, "session/s1").agent == "agent/tau"


def test_agents_hang_under_a_group_or_project_and_run_sessions_of_their_branch(team):
    with pytest.raises(ScopeError, match="under a Project Group or a Project"):
        scopes.create_scope(team, "agent", "x", parent="session/s1")
    with pytest.raises(ScopeError, match="an agent runs sessions and think processes"):
        scopes.set_agent(team, "project/inbox", "agent/tau")
    with pytest.raises(ScopeError, match="not an agent scope"):
        scopes.set_agent(team, "session/s2", "session/s1")
    scopes.create_scope(team, "project", "other", parent="group/default")
    scopes.create_scope(team, "session", "o1", parent="project/other")
    with pytest.raises(ScopeError, match="belongs to project/inbox"):
        scopes.set_agent(team, "session/o1", "agent/tau")
    assert scopes.get_scope(team, "session/o1").agent is None  # nothing half-written
    with pytest.raises(ScopeError, match="belongs to project/inbox"):
        scopes.create_scope(team, "session", "o2", parent="project/other", agent="agent/tau")
    assert "session/o2" not in [s.path for s in scopes.list_scopes(team)]
    assert scopes.set_agent(team, "session/o1", "agent/pi").agent == "agent/pi"  # pi belongs to the group
    assert scopes.set_agent(team, "session/s1", None).agent is None
    assert "agent/tau" not in [p for p, _, _ in _visible(team, "session/s1")]


def test_the_tools_of_an_agent_s_session_read_its_memory_and_another_s_cannot(team):
    lesson = documents.add_text(team, "Deploy the schema before the index", doc_type=DocumentType.NOTE,
                                scope="agent/tau", memory_type="feedback")
    own = MemoryTools(team, "session/s1")
    assert own.memory_read(lesson.id).access == "agent"
    listed = own.memory_list(scope="agent")
    assert listed.scopes == ["agent/tau"] and [d.doc_id for d in listed.documents] == [lesson.id]
    with pytest.raises(ScopeNotVisible):
        MemoryTools(team, "session/s2").memory_read(lesson.id)
    with pytest.raises(ScopeNotVisible):
        MemoryTools(team, "session/s3").memory_list(scope="agent/tau")
    stored = MemoryTools(team, "agent/tau").memory_store("Current work: the deploy checklist")
    assert stored.scope == "agent/tau"  # the agent acts as its own scope


def test_search_from_the_agent_s_session_weighs_its_memory_as_a_parent(team):
    documents.add_text(team, "Convex deploy order: schema first", doc_type=DocumentType.NOTE, scope="agent/tau")
    hits = search(team, "Convex deploy order", scope="session/s1").hits
    assert [(h.document.scope, h.scope_weight, h.distance) for h in hits] == [("agent/tau", 0.8, 1)]
    assert search(team, "Convex deploy order", scope="session/s2").hits == []


def test_the_start_of_work_context_of_an_agent_s_session_holds_the_agent_s_notes(team):
    from vancetope_desktop.agents.context import context_block

    state = documents.add_text(team, "Current work: the deploy checklist", doc_type=DocumentType.NOTE,
                               scope="agent/tau", memory_type="project")
    block = context_block(team, "session/s1", token_budget=400)
    assert state.id in block.documents and "Agent: Tau (`agent/tau`)" in block.markdown
    assert state.id not in context_block(team, "session/s2", token_budget=400).documents
