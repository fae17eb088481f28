"""``memory_session_start``: the start-of-session block through the tool API, as the acting scope sees it."""

import pytest

from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import InvalidInput, ScopeError, ScopeNotVisible
from vancetope_desktop.services import documents, scopes


@pytest.fixture
def session_of_tau(library):
    """agent/tau under group/default, running session/s1 of project/inbox; one memory in each namespace."""
    scopes.create_scope(library, "agent", "tau", parent="group/default")
    scopes.create_scope(library, "session", "s1", parent="project/inbox", agent="agent/tau")
    scopes.create_scope(library, "session", "s2", parent="project/inbox")
    for text, scope, memory_type in (("Convention: typed errors everywhere", "group/default", "feedback"),
                                     ("Decision: one SQLite file per library", "project/inbox", "project"),
                                     ("Working on the importer", "agent/tau", "project")):
        documents.add_text(library, text, doc_type=DocumentType.NOTE, scope=scope, memory_type=memory_type)
    return library


def test_defaults_are_the_acting_scopes_agent_and_project(session_of_tau):
    tools = MemoryTools(session_of_tau, "session/s1")
    start = tools.call("memory_session_start", {"token_budget": "400"})
    assert (start.agent, start.project, start.conventions) == ("agent/tau", "project/inbox", "group/default")
    assert [len(s.memories) for s in start.sections] == [1, 1, 1]
    assert start.tokens <= 400
    assert tools.memory_session_start(agent="agent", project="project").markdown == tools.memory_session_start(
        ).markdown


def test_what_the_acting_scope_cannot_see_is_refused(session_of_tau):
    with pytest.raises(ScopeError, match="no Agent above it"):
        MemoryTools(session_of_tau, "session/s2").memory_session_start()  # no agent runs s2
    with pytest.raises(ScopeNotVisible, match="agent/tau cannot see project/inbox"):
        MemoryTools(session_of_tau, "agent/tau").memory_session_start(project="project/inbox")
    with pytest.raises(InvalidInput, match="token_budget"):
        MemoryTools(session_of_tau, "session/s1").call("memory_session_start", {"token_budget": 0})
