"""Our MCP server's tools bring the client's model (issue 13): ``digest_run`` over MCP, through the SDK's own
client (in process, the real protocol messages), whose sampling callback stands in for the client's LLM.

A library whose generator is ``mcp`` has the client's model write the digest; a garbage reply is answered by the
built-in generator (nothing lost, the run says so); a client without sampling gets the built-in with the
reason; a library that chose another generator never asks the client.
"""

from __future__ import annotations

import json
import re
from typing import Any

import anyio
import mcp_types as types
from mcp import Client

from vancetope_desktop.agents.mcp_server import ScopedMemory, build_server
from vancetope_desktop.core.atoms import AtomDraft, AtomType
from vancetope_desktop.services import atoms, generators, scopes

MARK = "Written by the client's model."


def _writer(seen: list[str]):
    """The client's "model": a writeup naming every ``[[id|…]]`` link of the request, as the schema asks."""

    async def sample(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        asked = params.messages[0].content.text
        seen.append(asked)
        links = "\n".join(f"- {link}" for link in re.findall(r"\[\[[^\]]+\]\]", asked))
        return types.CreateMessageResult(role="assistant", model="client-llm", content=types.TextContent(
            type="text", text=json.dumps({"markdown": f"{MARK}\n\n{links}"})))

    return sample


def _garbage(seen: list[str]):
    async def sample(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        seen.append(params.messages[0].content.text)
        return types.CreateMessageResult(role="assistant", model="client-llm",
                                         content=types.TextContent(type="text", text="Here is your digest!"))

    return sample


def _digest(library, scope: str, callback) -> dict:
    """``digest_run`` of ``scope``'s one new fact, called over MCP by a client with ``callback`` as its model."""
    scopes.create_scope(library, "session", scope.split("/")[1], parent="project/inbox")
    atoms.store_atom(library, AtomDraft(type=AtomType.FACT, text=f"The heron count in {scope} was 14."), scope=scope)

    async def scenario() -> dict:
        async with Client(build_server(ScopedMemory(library, scope)), sampling_callback=callback,
                          mode="legacy") as client:  # a handshake-era connection: sampling mid-call works there
            result = await client.call_tool("digest_run", {})
            assert not result.is_error, result.content
            return result.structured_content

    return anyio.run(scenario)


def test_digest_run_over_mcp_writes_with_the_clients_model(library):
    generators.choose_generator(library, generator="mcp")
    seen: list[str] = []
    run = _digest(library, "session/s1", _writer(seen))
    assert len(seen) == 1 and "The heron count in session/s1 was 14." in seen[0]
    assert run["outcome"] == "digested" and run["generator"] == "mcp" and not run["fallback"]
    assert MARK in run["content"] and not run["warnings"]

    seen.clear()  # a reply that is not the schema's JSON: the built-in writes it, the run says so
    run = _digest(library, "session/s2", _garbage(seen))
    assert len(seen) == 1 and run["outcome"] == "digested" and run["fallback"]
    assert MARK not in run["content"] and "The heron count in session/s2 was 14." in run["content"]

    run = _digest(library, "session/s3", None)  # a client that cannot sample
    assert run["outcome"] == "digested" and run["generator"] == "builtin"
    assert any("no MCP client that offers sampling" in w for w in run["warnings"])

    generators.choose_generator(library, generator="builtin")  # the library's choice rules: the client is not asked
    run = _digest(library, "session/s4", _writer(seen := []))
    assert not seen and run["generator"] == "builtin" and MARK not in run["content"]


def test_the_tools_that_write_profiles_and_atoms_ask_the_clients_model_too(library):
    # memory_store (a note's profile and atoms), atoms_extract and memory_profile hand the client's model to
    # their services; a garbage reply is answered by the built-in, so the note still gets both.
    generators.choose_generator(library, generator="mcp")
    seen: list[str] = []

    async def scenario() -> tuple[dict, dict, dict]:
        async with Client(build_server(ScopedMemory(library, "project/inbox")), sampling_callback=_garbage(seen),
                          mode="legacy") as client:
            stored = await client.call_tool("memory_store", {
                "content": "The heron colony moved to the east marsh in May. We will count the nests on 2027-04-02.",
                "title": "Heron survey"})
            assert not stored.is_error, stored.content
            asked_by_store = len(seen)
            doc_id = stored.structured_content["doc_id"]
            extracted = await client.call_tool("atoms_extract", {"ids": [doc_id]})
            profiled = await client.call_tool("memory_profile", {"doc_ids": [doc_id]})
            assert not extracted.is_error and not profiled.is_error, (extracted.content, profiled.content)
            assert asked_by_store > 0 and len(seen) > asked_by_store
            return stored.structured_content, extracted.structured_content, profiled.structured_content

    stored, _extracted, _profiled = anyio.run(scenario)
    assert stored["atoms"], stored  # the built-in answered the garbage: nothing lost
    read = ScopedMemory(library, "project/inbox").memory.memory_read(stored["doc_id"])
    assert read.profile is not None and read.profile.summary


def test_chat_compaction_asks_the_clients_model_for_its_summary(library):
    # chat_compact and chat_compact_range hand MemoryTools.generator() to the service: with the library's generator
    # `mcp`, the summary that every later prompt replays is the client's model's.
    generators.choose_generator(library, generator="mcp")
    scopes.create_scope(library, "session", "s1", parent="project/inbox")
    seen: list[str] = []

    async def summarise(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        seen.append(params.messages[0].content.text)
        return types.CreateMessageResult(role="assistant", model="client-llm", content=types.TextContent(
            type="text", text=json.dumps({"summary": f"{MARK} Maria counted 14 herons at the north lake."})))

    async def scenario() -> tuple[dict, dict]:
        async with Client(build_server(ScopedMemory(library, "session/s1")), sampling_callback=summarise,
                          mode="legacy") as client:
            for text, role in (("Count the herons at the north lake.", "user"),
                               ("Maria counted 14 herons at the north lake on Monday.", "assistant"),
                               ("And the south lake?", "user"), ("Nine herons there, on Tuesday.", "assistant"),
                               ("Thanks. Now the ducks.", "user")):
                assert not (await client.call_tool("chat_append", {"content": text, "role": role})).is_error
            topic = await client.call_tool("chat_compact_range", {"first_seq": 2, "last_seq": 2,
                                                                  "topic": "North lake"})
            window = await client.call_tool("chat_compact", {"context_window": 40})
            assert not window.is_error and not topic.is_error, (window.content, topic.content)
            return window.structured_content, topic.structured_content

    window, topic = anyio.run(scenario)
    # (a summary over its bound is asked for again, shorter, before it is cut: a call may ask more than once)
    assert "Topic of the folded messages: North lake" in seen[0]
    assert "Nine herons there" in seen[-1] and "Topic of the folded messages" not in seen[-1]  # the window's fold
    assert window["archive"]["summary"].startswith(MARK) and topic["archive"]["summary"].startswith(MARK)
