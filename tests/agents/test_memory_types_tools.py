"""The memory type in the tool API: stored by memory_store, filtered by memory_list and memory_query, described
with the seed's guidance, refused with the allowed values."""

import pytest

from vancetope_desktop.agents.mcp_server import ScopedMemory, _tool
from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.core.errors import InvalidInput
from vancetope_desktop.core.memories import MEMORY_TYPE_GUIDANCE


def test_store_list_and_query_by_memory_type(library):
    tools = MemoryTools(library, "project/inbox")
    lesson = tools.memory_store("Run the linter before committing", memory_type="feedback")
    assert lesson.memory_type == "feedback" and lesson.type == "note"
    tools.memory_store("The linter is ruff, configured in pyproject", memory_type="reference")
    tools.memory_store("A linter finds bugs early", type="fact")
    assert [d.doc_id for d in tools.memory_list(memory_type="feedback").documents] == [lesson.doc_id]
    hits = tools.memory_query("linter", memory_type="feedback").hits
    assert [(h.doc_id, h.memory_type) for h in hits] == [(lesson.doc_id, "feedback")]
    with pytest.raises(InvalidInput, match="'feedback', 'project', 'reference' or 'user'"):
        tools.memory_store("x", memory_type="episode")  # episodes have their own tool
    with pytest.raises(InvalidInput, match="a memory is a note"):
        tools.memory_store("x", type="fact", memory_type="user")


def test_the_guidance_is_in_the_tool_descriptions(library):
    specs = ScopedMemory(library, "project/inbox").specs
    store = _tool(specs["memory_store"])
    assert MEMORY_TYPE_GUIDANCE in store.description
    assert MEMORY_TYPE_GUIDANCE in store.input_schema["properties"]["memory_type"]["description"]
    assert "memory_type" in _tool(specs["memory_list"]).input_schema["properties"]


def test_memory_recall_acts_from_the_tool_s_scope(library):
    from vancetope_desktop.core.errors import ScopeNotVisible
    from vancetope_desktop.services import scopes

    scopes.create_scope(library, "agent", "tau", parent="project/inbox")
    scopes.create_scope(library, "session", "s1", parent="project/inbox", agent="agent/tau")
    scopes.create_scope(library, "session", "s2", parent="project/inbox")
    state = MemoryTools(library, "agent/tau").memory_store("Current work: the linter migration",
                                                           memory_type="project")
    MemoryTools(library, "project/inbox").memory_store("The linter migration is a project decision",
                                                       memory_type="project")
    recalled = MemoryTools(library, "session/s1").call("memory_recall", {"query": "linter migration",
                                                                        "namespace": "agent"})
    assert [(m.id, m.namespace) for m in recalled.memories] == [(state.doc_id, "agent/tau")]
    with pytest.raises(ScopeNotVisible):
        MemoryTools(library, "session/s2").memory_recall("linter migration", namespace="agent/tau")


def test_memory_store_episode_keeps_the_card_in_the_acting_scope(library):
    from vancetope_desktop.core.errors import AccessDenied
    from vancetope_desktop.services import episodes, scopes

    scopes.create_scope(library, "agent", "tau", parent="project/inbox")
    tools = MemoryTools(library, "agent/tau")
    fields = {"context": "Deploying Convex schema changes", "goal": "Add vector index to memories table",
              "action": "Ran npx convex deploy", "outcome": "Deploy failed", "insight": "Order matters",
              "severity": "major"}
    stored = tools.call("memory_store_episode", fields)
    assert (stored.namespace, stored.created_by) == ("agent/tau", "agent/tau")
    assert episodes.list_episodes(library, "agent/tau") == [stored]
    with pytest.raises(InvalidInput, match="outcome"):
        tools.call("memory_store_episode", {k: v for k, v in fields.items() if k != "outcome"})
    with pytest.raises(InvalidInput, match="the episode has no insight"):
        tools.memory_store_episode(**{**fields, "insight": "  "})
    with pytest.raises(AccessDenied, match="stores episodes in its own scope"):
        tools.memory_store_episode(**fields, namespace="project/inbox")
