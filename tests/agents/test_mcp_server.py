"""`vancetope mcp`: the real server in a subprocess, driven by the MCP SDK's own stdio client; where a test's point is
what the server answers, not the process or stdio (the tool list of a session, the user's decisions), the same
server (``build_server``) in this process over the SDK's in-memory transport, which spares a start of `vancetope mcp`
(3-4 s of CPU: the SDK, the tools, the model)."""

import os
import subprocess
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from mcp import Client, ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from vancetope_desktop.agents import mcp_server
from vancetope_desktop.agents.mcp_server import ScopedMemory, build_server
from vancetope_desktop.agents.tools import TOOLS
from vancetope_desktop.services import documents, indexing, promotion_rules, review, scopes
from vancetope_desktop.services.library import Library
from vancetope_desktop.services.team_library import read_descriptor

REPO = Path(__file__).resolve().parents[2]
TP12, TP13 = "think-process/tp_12", "think-process/tp_13"
MEMORY_TOOLS = {"memory_store", "memory_store_episode", "memory_query", "memory_recall", "memory_session_start",
                "memory_list", "memory_duplicates", "memory_read", "memory_tag", "memory_request_promotion",
                "memory_promotion_requests", "memory_context", "memory_cite", "memory_annotations", "memory_links",
                "memory_set_reading_status", "memory_relate", "memory_relations", "memory_neighbourhood",
                "memory_restore", "atoms_list", "atoms_extract", "atoms_files_setting", "plan_update",
                "plan_happened", "digest_run", "digest_show", "memory_profile", "topics_browse", "topics_edit",
                "topics_rebuild", "topics_search", "chat_append", "chat_pin", "chat_compose", "chat_compact",
                "chat_compact_range", "chat_history", "chat_import", "chat_parent"}
TASK_TOOLS = {"memory_store_result", "mark_task_changed"}


CHECKOUT_CLI = [sys.executable, "-m", "vancetope_desktop.cli.main"]
"""`vancetope` as the tests run it: this Python on the checkout's package."""


def _command(library: Path, scope: str) -> list[str]:
    return ["mcp", "--scope", scope, "--library", str(library)]


@pytest.fixture
def prepared(tmp_path, library_at):
    """project/inbox > session/s1 > tp_12 and its sibling tp_13, with a project fact and a sibling's note; in an
    embedded library, then in a team library (``library_at``), which `vancetope mcp --library` opens alike."""
    root = library_at(tmp_path / "library")
    with Library.open(root) as lib:
        scopes.create_scope(lib, "session", "s1", parent="project/inbox")
        scopes.create_scope(lib, "think-process", "tp_12", parent="session/s1")
        scopes.create_scope(lib, "think-process", "tp_13", parent="session/s1")
        fact = documents.add_text(lib, "Project deadline: the review is due on June 15th.", scope="project/inbox")
        secret = documents.add_text(lib, "Sibling draft: heron migration counts.", scope=TP13)
        indexing.try_drain(lib)
    return root, fact.id, secret.id


@asynccontextmanager
async def _connect(library: Path, scope: str, log: Path, server: list[str] | None = None, cwd: Path = REPO,
                   env: dict[str, str] | None = None):
    """An initialised client session with `vancetope mcp` (``server``: the `vancetope` command, default
    :data:`CHECKOUT_CLI`; ``env``: its environment, default this one), its standard error written to ``log``."""
    command, *args = server or CHECKOUT_CLI
    params = StdioServerParameters(command=command, args=[*args, *_command(library, scope)],
                                   env=env or dict(os.environ), cwd=str(cwd))
    with log.open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


@asynccontextmanager
async def _in_process(library: Library, scope: str):
    """A client of the server `vancetope mcp --scope SCOPE` builds, run in this process on ``library``."""
    async with Client(build_server(ScopedMemory(library, scope))) as client:
        yield client


def _text(result) -> str:
    return "\n".join(part.text for part in result.content)


async def _conversation(session: ClientSession, tools: dict) -> dict:
    """The chat tools over the real protocol, in the round trip's session: three messages, the block, a compaction
    with a tiny window, and the history that still holds the folded original. Returns the compaction's archive."""
    assert "start of every turn" in tools["chat_compact"].description
    assert tools["chat_history"].annotations.read_only_hint
    assert not tools["chat_append"].annotations.read_only_hint
    sent = []
    for args in ({"content": "Count the herons at the north lake and report the total."},
                 {"content": "I counted 14 herons at the north lake on Monday.", "role": "assistant"},
                 {"content": "Now the south lake, please."}):
        result = await session.call_tool("chat_append", args)
        assert not result.is_error, _text(result)
        sent.append(result.structured_content)
    assert [m["seq"] for m in sent] == [1, 2, 3] and sent[0]["strength"] == "pinned"

    block = (await session.call_tool("chat_compose", {"budget": 300})).structured_content
    assert block["markdown"].startswith("## Earlier Conversation (compacted)")
    assert "Count the herons" in block["markdown"] and block["recent"] == [sent[1]["id"], sent[2]["id"]]

    folded = await session.call_tool("chat_compact", {"context_window": 20})
    assert not folded.is_error, _text(folded)
    done = folded.structured_content
    assert done["stage"] == "emergency" and done["archive"]["message_ids"] == [sent[1]["id"]]

    history = (await session.call_tool("chat_history", {"archived": True})).structured_content
    assert [m["id"] for m in history["messages"]] == [sent[1]["id"]]
    assert history["messages"][0]["archived_in"] == done["archive"]["id"] == history["archives"][0]["id"]
    assert (history["live"], history["archived"]) == (2, 1)

    small = await session.call_tool("chat_compose", {"budget": 5})
    assert small.is_error and "BudgetTooSmall" in _text(small) and "give at least" in _text(small)
    hidden = await session.call_tool("chat_history", {"process": TP13})
    assert hidden.is_error and "ScopeNotVisible" in _text(hidden)
    return done["archive"]


@pytest.mark.slow
def test_round_trip_over_stdio(prepared, tmp_path):
    """One `vancetope mcp` process serves the memory tools, the resources and then a conversation
    (:func:`_conversation`): one start (~5 s of CPU: the SDK, the tools, the model, the vector store's client)
    for both, as an agent's session uses them."""
    root, fact_id, secret_id = prepared
    log = tmp_path / "server.log"
    seen: dict = {}
    # A team library's writers share its queue out by claims (index/job_claims.py): every process embeds what it
    # stores, whoever holds this machine's writer lock; an embedded library's one writer holds the others back.
    team = read_descriptor(root) is not None
    held_back = "indexed" if team else "pending"

    async def scenario():
        async with _connect(root, TP12, log) as session:
            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert set(tools) == MEMORY_TOOLS | TASK_TOOLS
            store = tools["memory_store"]
            assert "content" in store.input_schema["required"] and "tags" in store.input_schema["properties"]
            assert store.description.startswith("Store text") and "doc_id" in store.output_schema["properties"]
            assert tools["memory_query"].annotations.read_only_hint

            stored = await session.call_tool("memory_store", {
                "content": "The gecko regrows its lost tail within about six weeks.", "tags": ["reptile"],
                "type": "fact"})
            assert not stored.is_error, _text(stored)
            doc = stored.structured_content
            assert doc["doc_id"].startswith("doc_") and doc["scope"] == TP12
            assert doc["index_state"] == "indexed"  # no app holds the writer lock: the server embedded it
            assert doc["doc_id"] in _text(stored)  # the same JSON as text, for clients without structured content
            seen["doc"] = doc["doc_id"]

            # The server gave the writer lock up, so the app's indexing process can take it.
            with Library.open(root) as app:
                assert app.writer_lock.try_acquire()
                # While "the app" holds it, a stored document waits for it, findable by its words.
                pending = await session.call_tool("memory_store", {"content": "Pending quokka observation."})
                assert pending.structured_content["index_state"] == held_back
                words = await session.call_tool("memory_query", {"question": "quokka"})
                found = [h["doc_id"] for h in words.structured_content["hits"]]
                assert pending.structured_content["doc_id"] in found
                seen["pending"] = pending.structured_content["doc_id"]

            hits = (await session.call_tool("memory_query", {"question": "how fast does a lizard tail grow back"}))
            assert hits.structured_content["hits"][0]["doc_id"] == doc["doc_id"]
            # The fact is an atom: topics_search finds it, flat while no tree exists (the cold start), and says so.
            atoms = await session.call_tool("topics_search", {"query": "how fast does a lizard tail grow back"})
            assert not atoms.is_error, _text(atoms)
            assert atoms.structured_content["hits"][0]["doc_id"] == doc["doc_id"]
            answer = atoms.structured_content
            assert answer["mode"] == "flat" and "no topic tree" in answer["mode_reason"]
            assert tools["topics_search"].annotations.read_only_hint

            read = await session.call_tool("memory_read", {"doc_id": doc["doc_id"]})
            assert read.structured_content["text"].startswith("The gecko regrows")
            assert read.structured_content["access"] == "own"
            ancestor = await session.call_tool("memory_read", {"doc_id": fact_id})
            assert ancestor.structured_content["access"] == "ancestor"

            tagged = await session.call_tool("memory_tag", {"doc_id": doc["doc_id"], "tags": ["important"]})
            assert tagged.structured_content["tags"] == ["important", "reptile", "thinkprocess:tp_12"]

            forbidden = await session.call_tool("memory_read", {"doc_id": secret_id})
            assert forbidden.is_error and forbidden.structured_content is None
            assert f"{TP12} cannot read {secret_id} in {TP13}" in _text(forbidden)
            assert "sees its own memory and its ancestors', not a sibling's" in _text(forbidden)

            bad = await session.call_tool("memory_query", {"question": "gecko", "limit": 0})
            assert bad.is_error and "limit" in _text(bad) and "InvalidInput" in _text(bad)
            misspelt = await session.call_tool("memory_read", {"id": doc["doc_id"]})
            assert misspelt.is_error and "doc_id" in _text(misspelt) and "id:" in _text(misspelt)
            upward = await session.call_tool("memory_store", {"content": "Herons nest in colonies.", "scope": "project",
                                                              "reason": "the whole project studies birds"})
            assert not upward.is_error, _text(upward)
            assert upward.structured_content["scope"] == TP12  # stored here; the user decides on the project
            seen["upward"] = (upward.structured_content["doc_id"], upward.structured_content["promotion_request"])
            assert "promotion_request" in tools["memory_store"].output_schema["properties"]
            assert "review" in tools["memory_request_promotion"].description

            asked = await session.call_tool("memory_request_promotion", {
                "doc_id": doc["doc_id"], "to": "project", "reason": "a finding for the whole project"})
            assert not asked.is_error, _text(asked)
            request = asked.structured_content
            assert request["id"].startswith("req_") and request["id"] in _text(asked)
            assert (request["doc_id"], request["target_scope"], request["status"]) == (
                doc["doc_id"], "project/inbox", "pending")
            seen["request"] = request["id"]
            no_reason = await session.call_tool("memory_request_promotion", {"doc_id": doc["doc_id"], "to": "project"})
            assert no_reason.is_error and "reason" in _text(no_reason)
            unknown = await session.call_tool("memory_forget", {})
            assert unknown.is_error and "unknown tool" in _text(unknown)

            result = await session.call_tool("memory_store_result", {
                "node_id": "extract_1", "node_type": "extract", "title": "Tail regrowth",
                "content": "Geckos regrow tails in six weeks.", "derived_from": [doc["doc_id"]]})
            assert not result.is_error, _text(result)
            assert {"extraction", "auto:extract_1"} <= set(result.structured_content["tags"])
            changed = await session.call_tool("mark_task_changed", {"node_id": "extract_1"})
            assert changed.structured_content["stale"] == [result.structured_content["doc_id"]]
            context = await session.call_tool("memory_context", {"token_budget": 400})
            assert doc["doc_id"] in context.structured_content["markdown"]
            assert context.structured_content["tokens"] <= 400

            # Typed relations: relates_to on store, memory_relate (updates archives), a refused cycle, restore.
            later = await session.call_tool("memory_store", {
                "content": "Quokkas were seen twice more at dawn.", "on_duplicate": "store",
                "relates_to": {"target_id": seen["pending"], "type": "extends"}})
            later_id = later.structured_content["doc_id"]
            assert [e["type"] for e in later.structured_content["relations"]] == ["extends"]
            newer = await session.call_tool("memory_relate", {"source_id": seen["pending"], "target_id": later_id,
                                                              "type": "updates"})
            assert newer.structured_content["archived"] == [later_id]
            cycle = await session.call_tool("memory_relate", {"source_id": later_id, "target_id": seen["pending"],
                                                              "type": "updates"})
            assert cycle.is_error and "UpdatesCycle" in _text(cycle)
            shown = (await session.call_tool("memory_relations", {"doc_id": seen["pending"]})).structured_content
            assert [d["id"] for d in shown["outgoing"]["updates"]] == [later_id] == [
                d["id"] for d in shown["incoming"]["extends"]]
            back = await session.call_tool("memory_restore", {"doc_id": later_id})
            assert back.structured_content["status"] == "active"
            upward_id = upward.structured_content["doc_id"]
            hidden = await session.call_tool("memory_relate", {"source_id": upward_id, "target_id": secret_id,
                                                               "type": "supports"})
            assert hidden.is_error and "not a sibling's" in _text(hidden)

            listed = {str(r.uri) for r in (await session.list_resources()).resources}
            assert {f"vancetope://document/{doc['doc_id']}", f"vancetope://document/{fact_id}"} <= listed
            assert f"vancetope://document/{secret_id}" not in listed
            templates = (await session.list_resource_templates()).resource_templates
            assert templates[0].uri_template == "vancetope://document/{doc_id}"
            body = await session.read_resource(f"vancetope://document/{fact_id}")
            assert body.contents[0].text == "Project deadline: the review is due on June 15th."
            with pytest.raises(MCPError) as refused:
                await session.read_resource(f"vancetope://document/{secret_id}")
            assert "not a sibling's" in refused.value.message
            seen["archive"] = await _conversation(session, tools)

    anyio.run(scenario)
    with Library.open(root) as lib:  # what the app would show: stored through MCP, embedded by the server
        stored = documents.get_document(lib, seen["doc"])
        assert stored.scope == TP12 and "important" in stored.tags
        # The requests wait in the review queue, made by the think process.
        upward_doc, upward_request = seen["upward"]
        queued = {r.id: r for r in review.list_requests(lib)}
        assert set(queued) == {seen["request"], upward_request}
        assert queued[seen["request"]].document_id == seen["doc"] and queued[seen["request"]].requested_by == TP12
        assert queued[upward_request].document_id == upward_doc
        assert queued[upward_request].reason == "the whole project studies birds"
        # The conversation's summary is a memory of the think process, embedded by the server.
        archive = documents.get_document(lib, seen["archive"]["id"])
        assert (archive.scope, archive.memory_type.value, archive.index_state.value) == (
            TP12, "archived_chat", "indexed")
        # Later writes embedded only their own documents: the one left queued is the writer's (the app, `index run`).
        assert documents.get_document(lib, seen["pending"]).index_state.value == held_back
        assert indexing.try_drain(lib).indexed == ([] if team else [seen["pending"]])
    assert "Traceback" not in log.read_text()


@pytest.mark.slow
def test_the_agent_learns_the_users_decision(prepared):
    """request → the user rejects it (services, as the app would) → memory_promotion_requests says so and why;
    asking for another scope meanwhile is a tool error naming the pending request; an auto-approving rule's
    request comes back with the result that triggered it."""
    root, _, _ = prepared
    with Library.open(root) as lib:
        promotion_rules.set_rule(lib, "session/s1", "verified", auto_approve=True)

    async def scenario(lib: Library):
        async with _in_process(lib, TP12) as session:
            tools = {t.name: t for t in (await session.list_tools()).tools}
            listing = tools["memory_promotion_requests"]
            assert listing.annotations.read_only_hint and "rejected" in listing.description
            assert {"doc_id", "status"} <= set(listing.input_schema["properties"])

            stored = await session.call_tool("memory_store", {"content": "Herons hunt at dawn.", "type": "fact"})
            doc_id = stored.structured_content["doc_id"]
            asked = await session.call_tool("memory_request_promotion", {
                "doc_id": doc_id, "to": "project", "reason": "the project studies birds"})
            assert not asked.is_error, _text(asked)
            request_id = asked.structured_content["id"]
            other = await session.call_tool("memory_request_promotion", {
                "doc_id": doc_id, "to": "session", "reason": "or just the session"})
            assert other.is_error and "InvalidInput" in _text(other) and request_id in _text(other)

            waiting = await session.call_tool("memory_promotion_requests", {"doc_id": doc_id})
            assert [(r["id"], r["status"]) for r in waiting.structured_content["requests"]] == [
                (request_id, "pending")]
            with Library.open(root) as app:  # the user decides in the app while the agent works
                review.reject(app, [request_id], reason="dawn hunting is already in the project notes")
            decided = await session.call_tool("memory_promotion_requests", {"status": "rejected"})
            assert not decided.is_error, _text(decided)
            [rejected] = decided.structured_content["requests"]
            assert (rejected["id"], rejected["doc_id"], rejected["status"]) == (request_id, doc_id, "rejected")
            assert rejected["decision_reason"] == "dawn hunting is already in the project notes"
            assert rejected["decided_by"].startswith("user:") and rejected["decided_at"]
            assert rejected["title"] == "Herons hunt at dawn." and rejected["target_scope"] == "project/inbox"
            assert "dawn hunting is already in the project notes" in _text(decided)

            again = await session.call_tool("memory_request_promotion", {
                "doc_id": doc_id, "to": "project", "reason": "now with counts"})
            previous = again.structured_content["previous_decision"]
            assert (previous["request_id"], previous["status"]) == (request_id, "rejected")
            assert previous["decision_reason"] == "dawn hunting is already in the project notes"

            result = await session.call_tool("memory_store_result", {
                "node_id": "verify_1", "node_type": "verify", "title": "Checked", "content": "Counts hold.",
                "tags": ["verified"]})
            assert not result.is_error, _text(result)
            moved = result.structured_content
            assert (moved["scope"], moved["promotion_status"]) == ("project/inbox", "approved")
            assert moved["promotion_request"].startswith("req_")

    with Library.open(root) as lib:
        anyio.run(scenario, lib)


def test_session_scope_offers_no_task_tools(prepared):
    root, _, _ = prepared

    async def scenario(lib: Library):
        async with _in_process(lib, "session/s1") as session:
            return {t.name for t in (await session.list_tools()).tools}

    with Library.open(root) as lib:
        assert anyio.run(scenario, lib) == MEMORY_TOOLS


def test_unknown_scope_fails_before_serving(prepared):
    """…and before it loads the MCP SDK and the tools (``-X importtime`` lists every module the process imported
    on its standard error)."""
    root, _, _ = prepared
    python, *cli = CHECKOUT_CLI
    done = subprocess.run([python, "-X", "importtime", *cli, *_command(root, "think-process/tp_99")], input="",
                          capture_output=True, text=True, timeout=60, cwd=REPO)
    assert done.returncode == 3
    assert done.stdout == ""  # stdout belongs to the protocol: errors go to stderr
    assert "think-process/tp_99" in done.stderr
    imported = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "vancetope_desktop.services.library" in imported  # the probe sees the process's imports
    loaded = imported & {"mcp", "vancetope_desktop.agents.mcp_server", "vancetope_desktop.agents.tools"}
    assert not loaded, loaded


def test_every_tool_is_either_writing_or_read_only():
    # A writing tool must give the writer lock back (ScopedMemory.call); a read-only one is hinted as such to clients.
    names = {spec.name for spec in (*TOOLS, *mcp_server.TASK_TOOLS, mcp_server.CONTEXT_TOOL)}
    assert names == mcp_server.WRITING_TOOLS | mcp_server.READ_ONLY_TOOLS
    assert not mcp_server.WRITING_TOOLS & mcp_server.READ_ONLY_TOOLS
