"""MCP sampling as a generator: a server's tool asks the connected client's model through the protocol.

The client is the SDK's own (``mcp.Client`` over its in-memory transport, the real protocol messages); its
sampling callback is the client's model. The server is the SDK's low-level ``Server`` running a tool the way
``mcp_server.build_server`` runs ours: on a worker thread, with the generator that ``build_generator``
makes for a library whose generator is ``mcp``.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Any

import anyio
import mcp_types as types
from mcp import Client
from mcp.server import Server, ServerRequestContext

from vancetope_desktop.agents.mcp_sampling import sampling_chat
from vancetope_desktop.core.atoms import AtomType
from vancetope_desktop.core.settings import Settings
from vancetope_desktop.generation.choice import build_generator

NOTE = ("Anna and Ravi met on 2 December 2026 to review the draft. "
        "We will submit the paper to the workshop by 15 January 2027.")
REFERENCE = datetime(2026, 12, 2, 18, 0, tzinfo=UTC)


def _server(problems: list[str]) -> Server[Any]:
    """A server with one tool, ``extract``, that drafts the atoms of its ``text`` with the library's generator."""

    def extract(ctx: ServerRequestContext[Any], text: str) -> str:
        choice = build_generator(Settings(generator="mcp", generator_timeout_s=20), sampling=sampling_chat(ctx))
        if choice.problem:
            problems.append(choice.problem)
        drafts = choice.generator.extract_atoms(text, reference_time=REFERENCE)
        return json.dumps([d.model_dump(mode="json") for d in drafts])

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name="extract", input_schema={
            "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})])

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        text = await anyio.to_thread.run_sync(extract, ctx, params.arguments["text"])
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    return Server("sampling-test", on_list_tools=list_tools, on_call_tool=call_tool)


def _client_model(reply: str, seen: list[types.CreateMessageRequestParams]):
    async def sample(context, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        seen.append(params)
        return types.CreateMessageResult(role="assistant", model="client-model",
                                         content=types.TextContent(type="text", text=reply))
    return sample


def _extract(reply: str | None, seen: list, problems: list[str], mode: str = "legacy") -> list[dict]:
    async def scenario() -> list[dict]:
        callback = _client_model(reply, seen) if reply is not None else None
        async with Client(_server(problems), sampling_callback=callback, mode=mode) as client:
            result = await client.call_tool("extract", {"text": NOTE})
            assert not result.is_error, result.content
            return json.loads(result.content[0].text)

    return anyio.run(scenario)


def test_the_clients_model_drafts_the_atoms():
    reply = {"atoms": [
        {"type": "event", "text": "Anna and Ravi reviewed the draft.", "when": "2026-12-02",
         "quote": "Anna and Ravi met on 2 December 2026 to review the draft."},
        {"type": "plan", "text": "Submit the paper to the workshop.", "due": "2027-01-15",
         "quote": "We will submit the paper to the workshop by 15 January 2027."},
    ]}
    seen: list[types.CreateMessageRequestParams] = []
    problems: list[str] = []
    drafts = _extract("```json\n" + json.dumps(reply) + "\n```", seen, problems)
    assert not problems
    assert len(seen) == 1  # one sampling request, carrying the text and the reply's schema
    assert NOTE in seen[0].messages[0].content.text
    assert '"atoms"' in seen[0].system_prompt
    assert [d["type"] for d in drafts] == [AtomType.EVENT, AtomType.PLAN]
    assert drafts[0]["text"] == "Anna and Ravi reviewed the draft."  # the model's words, not the built-in's
    plan_span = drafts[1]["span"]
    assert NOTE[plan_span["start"]:plan_span["end"]].startswith("We will submit")
    assert drafts[1]["due"].startswith("2027-01-15") and drafts[1]["status"] == "planned"


def test_a_garbage_reply_is_answered_by_the_builtin_and_logged(caplog):
    seen: list = []
    with caplog.at_level(logging.WARNING, logger="vancetope_desktop.generation.fallback"):
        drafts = _extract("Sure! Here are the atoms: event, plan.", seen, [])
    assert len(seen) == 1
    # The built-in generator read the same note: nothing lost.
    assert {d["type"] for d in drafts} >= {AtomType.PLAN}
    assert any("malformed" in record.getMessage() for record in caplog.records)


def test_a_client_without_sampling_gets_the_builtin_with_the_reason():
    problems: list[str] = []
    drafts = _extract(None, [], problems)
    assert problems and "no MCP client that offers sampling" in problems[0]
    assert drafts  # the built-in generator answered


def test_a_client_on_the_2026_protocol_gets_the_builtin():
    """From protocol 2026-07-28 a server cannot send a request mid-call (SEP-2577): the built-in answers."""
    problems: list[str] = []
    seen: list = []
    drafts = _extract('{"atoms": []}', seen, problems, mode="auto")
    assert not seen and problems and drafts
