"""Agent memory over MCP: the server `vancetope mcp` builds, driven by the SDK's own client: the session-start prompt
through a real `vancetope mcp` process over stdio, the recall and episode tools in this process over the SDK's
in-memory transport (their point is what the tools answer; a start of `vancetope mcp` costs 3-4 s of CPU)."""

import json

import anyio
import pytest
from mcp.shared.exceptions import MCPError

from tests.agents.test_mcp_server import _connect, _in_process, _text
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.services import documents, scopes
from vancetope_desktop.services.library import Library

EPISODE = {"context": "Deploying Convex schema changes", "goal": "Add vector index to memories table",
           "action": "Ran npx convex deploy after editing schema.ts", "outcome": "Deploy failed",
           "insight": "Vector indexes must be added in the same deploy as the embedding field", "severity": "major"}


@pytest.mark.slow  # the server loads the bundled model to embed and to encode queries
def test_recall_and_episodes_round_trip(tmp_path):
    root = tmp_path / "library"
    with Library.open(root) as lib:
        scopes.create_scope(lib, "agent", "tau", parent="project/inbox")
        lesson = documents.add_text(lib, "Convex deploys need the schema first", doc_type=DocumentType.NOTE,
                                    scope="agent/tau", memory_type="feedback")
        documents.add_text(lib, "Convex is our backend", doc_type=DocumentType.NOTE, scope="project/inbox",
                           memory_type="project")

    async def scenario(lib: Library):
        async with _in_process(lib, "agent/tau") as session:
            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert tools["memory_recall"].annotations.read_only_hint
            assert not tools["memory_store_episode"].annotations.read_only_hint
            calls = [("memory_recall", {"query": "Convex deploy", "namespace": "agent/tau",
                                        "memory_types": ["feedback"]}),
                     ("memory_recall", {"query": "", "namespace": "agent/tau"}),
                     ("memory_recall", {"query": "Convex", "namespace": "agent/pi"}),
                     ("memory_store_episode", EPISODE),
                     ("memory_store_episode", {**EPISODE, "goal": ""}),
                     ("memory_recall", {"query": "Convex deploy schema vector index", "memory_types": ["episode"]})]
            return [await session.call_tool(name, arguments) for name, arguments in calls]

    with Library.open(root) as lib:
        found, refused, unknown, stored, incomplete, recalled = anyio.run(scenario, lib)
    assert not found.is_error, _text(found)
    memories = found.structured_content["memories"]
    assert [(m["id"], m["namespace"], m["memory_type"]) for m in memories] == [(lesson.id, "agent/tau", "feedback")]
    assert json.loads(_text(found))["namespace"] == "agent/tau"
    assert refused.is_error and _text(refused).startswith("EmptyQuery: the query is empty")
    assert unknown.is_error and _text(unknown).startswith("ScopeNotFound")
    assert not stored.is_error, _text(stored)
    episode = stored.structured_content
    assert (episode["namespace"], episode["created_by"], episode["severity"]) == ("agent/tau", "agent/tau", "major")
    assert incomplete.is_error and "the episode has no goal" in _text(incomplete)
    assert [m["id"] for m in recalled.structured_content["memories"]] == [episode["id"]]


@pytest.mark.slow  # one server process (it loads the model's query encoder): the prompt, the tool and their errors
def test_session_start_prompt_and_tool_round_trip(tmp_path):
    root = tmp_path / "library"
    with Library.open(root) as lib:
        scopes.create_scope(lib, "agent", "tau", parent="group/default")
        scopes.create_scope(lib, "session", "s1", parent="project/inbox", agent="agent/tau")
        ids = [documents.add_text(lib, text, doc_type=DocumentType.NOTE, scope=scope, memory_type=kind).id
               for text, scope, kind in (("Convention: answer in one line", "group/default", "feedback"),
                                         ("Decision: notes are Markdown", "project/inbox", "project"),
                                         ("Working on the MCP prompt", "agent/tau", "project"))]
    log = tmp_path / "server.log"

    async def scenario():
        async with _connect(root, "session/s1", log) as session:
            prompts = (await session.list_prompts()).prompts
            prompt = await session.get_prompt("session_start", {"token_budget": "300"})
            errors = []
            for arguments in ({"agent": "project/inbox"}, {"token_budget": "5"}, {"colour": "blue"}):
                with pytest.raises(MCPError) as refused:
                    await session.get_prompt("session_start", arguments)
                errors.append(refused.value.error.message)
            tool = await session.call_tool("memory_session_start", {"agent": "agent/tau", "project": "project/inbox"})
            return prompts, prompt, errors, tool

    prompts, prompt, errors, tool = anyio.run(scenario)
    assert [p.name for p in prompts] == ["session_start"]
    assert {a.name for a in prompts[0].arguments} == {"agent", "project", "token_budget"}
    (message,) = prompt.messages
    assert message.role == "user" and message.content.text.startswith("# Session start: agent/tau on project/inbox")
    assert all(f"`{doc_id}`" in message.content.text for doc_id in ids)
    assert errors[0].startswith("NotAnAgentScope: project/inbox is a project, not an agent scope")
    assert errors[1].startswith("BudgetTooSmall") and "unknown argument colour" in errors[2]
    assert not tool.is_error, _text(tool)
    assert tool.structured_content["markdown"] == message.content.text  # the same block: all of it fits either budget
    assert [s["namespace"] for s in tool.structured_content["sections"]] == ["group/default", "project/inbox",
                                                                            "agent/tau"]
    assert "Traceback" not in log.read_text()
