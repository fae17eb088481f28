"""Agent memory over MCP: the real server in a subprocess, driven by the SDK's own stdio client."""

import json

import anyio
import pytest

from tests.agents.test_mcp_server import _connect, _text
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.services import documents, scopes
from vancetope_desktop.services.library import Library


@pytest.mark.slow
def test_recall_round_trip(tmp_path):
    root = tmp_path / "library"
    with Library.open(root) as lib:
        scopes.create_scope(lib, "agent", "tau", parent="project/inbox")
        scopes.create_scope(lib, "session", "s1", parent="project/inbox", agent="agent/tau")
        lesson = documents.add_text(lib, "Convex deploys need the schema first", doc_type=DocumentType.NOTE,
                                    scope="agent/tau", memory_type="feedback")
        documents.add_text(lib, "Convex is our backend", doc_type=DocumentType.NOTE, scope="project/inbox",
                           memory_type="project")
    log = tmp_path / "server.log"

    async def scenario():
        async with _connect(root, "session/s1", log) as session:
            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert tools["memory_recall"].annotations.read_only_hint
            assert "memory_types" in tools["memory_recall"].input_schema["properties"]
            found = await session.call_tool("memory_recall", {"query": "Convex deploy", "namespace": "agent/tau",
                                                              "memory_types": ["feedback"]})
            refused = await session.call_tool("memory_recall", {"query": "", "namespace": "agent/tau"})
            unknown = await session.call_tool("memory_recall", {"query": "Convex", "namespace": "agent/pi"})
            return found, refused, unknown

    found, refused, unknown = anyio.run(scenario)
    assert not found.is_error, _text(found)
    memories = found.structured_content["memories"]
    assert [(m["id"], m["namespace"], m["memory_type"]) for m in memories] == [(lesson.id, "agent/tau", "feedback")]
    assert json.loads(_text(found))["namespace"] == "agent/tau"
    assert refused.is_error and _text(refused).startswith("EmptyQuery: the query is empty")
    assert unknown.is_error and _text(unknown).startswith("ScopeNotFound")
    assert "Traceback" not in log.read_text()
