"""The conversation tools (issue 15) through ``MemoryTools.call`` with JSON arguments, as an MCP server calls them:
append, pin, compose, both compactions and the paged history; the visibility rule; bad input."""

from __future__ import annotations

import pytest

from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.core.errors import (
    AccessDenied,
    BudgetTooSmall,
    InvalidInput,
    NotFound,
    ScopeError,
    ScopeNotFound,
    ScopeNotVisible,
)
from vancetope_desktop.services import conversations as chat
from vancetope_desktop.services import documents, scopes
from vancetope_desktop.services.library import Library
from vancetope_desktop.services.search import search

from ..conftest import stored_counts
from ..conversation_samples import TASK, turn

TP1, TP2 = "think-process/tp1", "think-process/tp2"


@pytest.fixture
def lib(library: Library) -> Library:
    """project/inbox > session/s1 > think processes tp1 and tp2 (siblings)."""
    scopes.create_scope(library, "session", "s1", parent="project/inbox", name="Fine-tuning review")
    scopes.create_scope(library, "think-process", "tp1", parent="session/s1")
    scopes.create_scope(library, "think-process", "tp2", parent="session/s1")
    return library


def converse(tools: MemoryTools, turns: int) -> list[dict]:
    """The task, then ``turns`` user/assistant exchanges with names and numbers, through ``chat_append``."""
    sent = [tools.call("chat_append", {"content": TASK}).model_dump()]
    for message in (m for n in range(1, turns + 1) for m in turn(n)):
        sent.append(tools.call("chat_append", {"content": message.content, "role": str(message.role)}).model_dump())
    return sent


def test_append_pin_and_history_through_json_calls(lib):
    tools = MemoryTools(lib, TP1)
    task = tools.call("chat_append", {"content": TASK})
    assert (task.process, task.seq, task.role.value, task.pinned) == (TP1, 1, "user", True)  # the task is pinned
    call = tools.call("chat_append", {"content": "Checking the queue.", "role": "assistant",
                                      "tool_call_id": "call_1"})
    result = tools.call("chat_append", {"content": '{"jobs": 3}', "role": "tool", "tool_call_id": "call_1"})
    assert result.tool_call_id == call.tool_call_id == "call_1" and not result.pinned
    assert documents.get_document(lib, task.id).content == TASK  # a message is a document of the process

    assert tools.call("chat_pin", {"message_id": call.id}).pinned
    assert not tools.call("chat_pin", {"message_id": call.id, "pinned": False}).pinned
    assert not tools.call("chat_pin", {"message_id": task.id, "pinned": False}).pinned  # even the task
    assert tools.call("chat_pin", {"message_id": "#3"}).id == result.id  # by its number in your conversation
    with pytest.raises(NotFound, match="has no message #9"):
        tools.call("chat_pin", {"message_id": "9"})

    page = tools.call("chat_history", {"offset": 1, "limit": 1})
    assert [m.id for m in page.messages] == [call.id] and (page.total, page.live, page.archived) == (3, 3, 0)
    assert tools.call("chat_history", {"archived": True}).messages == []


def test_compose_gives_the_block_within_budget_or_says_what_the_pins_need(lib):
    tools = MemoryTools(lib, TP1)
    sent = converse(tools, 3)
    block = tools.call("chat_compose", {"budget": 400})
    assert block.markdown.startswith(chat.EARLIER) and TASK in block.markdown and chat.RECENT in block.markdown
    assert block.tokens <= 400 and block.pinned == [sent[0]["id"]] and block.recent[-1] == sent[-1]["id"]
    with pytest.raises(BudgetTooSmall, match=r"cannot hold the pinned messages .* give at least"):
        tools.call("chat_compose", {"budget": 10})


def test_compaction_folds_with_the_window_and_history_shows_the_originals(lib):
    tools = MemoryTools(lib, TP1, index_now=True)
    sent = converse(tools, 16)
    below = tools.call("chat_compact", {"context_window": 1_000_000})
    assert below.folded == 0 and "below the soft threshold" in below.reason

    tokens = chat.prompt_tokens(lib, TP1)
    done = tools.call("chat_compact", {"context_window": int(tokens / 0.9)})
    assert done.stage.value == "hard" and done.folded > 0 and done.tokens_after < done.tokens_in == tokens
    archive = done.archive
    assert archive.process == TP1 and archive.message_ids[0] == sent[1]["id"]  # the pinned task stays live
    doc = documents.get_document(lib, archive.id)
    assert (doc.scope, doc.memory_type.value) == (TP1, "archived_chat")
    assert doc.index_state.value == "indexed"  # index_now: the summary is found by meaning at once

    folded = tools.call("chat_history", {"archived": True, "limit": 1000})
    assert [m.id for m in folded.messages] == archive.message_ids
    assert all(m.archived_in == archive.id for m in folded.messages)
    assert folded.archived == done.folded and [a.id for a in folded.archives] == [archive.id]
    block = tools.call("chat_compose", {"budget": 2000})
    assert block.summary_id == archive.id

    # tokens_in as the agent's model counts them (a long system prompt too): the emergency stage
    more = tools.call("chat_compact", {"context_window": 10_000, "tokens_in": 9_800})
    assert more.stage.value == "emergency" and more.tokens_in == 9_800


def test_range_compaction_leaves_a_stitch(lib):
    tools = MemoryTools(lib, TP1, index_now=True)
    converse(tools, 4)
    done = tools.call("chat_compact_range", {"first_seq": 2, "last_seq": 5, "topic": "Runs 1 and 2"})
    assert done.archive.topic == "Runs 1 and 2" and done.folded == 4 and done.stitch_id
    stitch = chat.get_message(lib, done.stitch_id)
    assert stitch.kind.value == "stitch" and "Runs 1 and 2" in stitch.content and stitch.after_seq == 5
    assert documents.get_document(lib, done.stitch_id).index_state.value == "indexed"
    again = tools.call("chat_compact_range", {"first_seq": 2, "last_seq": 5, "topic": "Runs 1 and 2"})
    assert again.already_done and again.archive.id == done.archive.id and again.folded == 0
    with pytest.raises(InvalidInput, match="say what the range was about"):
        tools.call("chat_compact_range", {"first_seq": 6, "last_seq": 7, "topic": "  "})


def test_a_process_reads_its_ancestors_conversation_and_writes_only_its_own(lib):
    session = chat.append(lib, "session/s1", "Plan the fine-tuning review with the team.")
    sibling = chat.append(lib, TP2, "Sibling's private task: the heron counts.")
    tools = MemoryTools(lib, TP1)
    assert tools.call("chat_history", {"process": "session"}).messages[0].id == session.id  # an ancestor: readable
    assert session.content in tools.call("chat_compose", {"budget": 300, "process": "session/s1"}).markdown
    before = stored_counts(lib.paths.root)
    with pytest.raises(AccessDenied, match="cannot write to session/s1"):
        tools.call("chat_append", {"content": "Sneaking a message in.", "process": "session/s1"})
    with pytest.raises(AccessDenied):
        tools.call("chat_pin", {"message_id": session.id, "pinned": False})
    with pytest.raises(AccessDenied):
        tools.call("chat_compact_range", {"first_seq": 1, "last_seq": 1, "topic": "x", "process": "session"})
    for name, args in (("chat_history", {}), ("chat_compose", {"budget": 300}),
                       ("chat_append", {"content": "Hello, sibling."}),
                       ("chat_compact", {"context_window": 10, "tokens_in": 10})):
        with pytest.raises(ScopeNotVisible, match="think-process/tp2"):
            tools.call(name, {**args, "process": TP2})
    with pytest.raises(ScopeNotVisible):
        tools.call("chat_pin", {"message_id": sibling.id})
    assert stored_counts(lib.paths.root) == before
    assert not chat.get_message(lib, session.id).archived_in and chat.get_message(lib, session.id).pinned


def test_bad_input_is_refused_with_what_to_do(lib):
    tools = MemoryTools(lib, TP1)
    before = stored_counts(lib.paths.root)
    with pytest.raises(ScopeNotFound, match="session/nope"):
        tools.call("chat_history", {"process": "session/nope"})
    with pytest.raises(InvalidInput, match="the message is empty"):
        tools.call("chat_append", {"content": " \n "})
    with pytest.raises(InvalidInput, match="role"):
        tools.call("chat_append", {"content": "Beep.", "role": "robot"})
    with pytest.raises(InvalidInput, match="text"):
        tools.call("chat_append", {"text": "a misspelt argument"})
    with pytest.raises(InvalidInput, match="budget"):
        tools.call("chat_compose", {"budget": 0})
    with pytest.raises(InvalidInput, match="limit"):
        tools.call("chat_history", {"limit": 5000})
    with pytest.raises(InvalidInput, match="context_window"):
        tools.call("chat_compact", {"context_window": 0})
    with pytest.raises(NotFound, match="no message"):
        tools.call("chat_pin", {"message_id": "doc_000000000000"})
    with pytest.raises(ScopeError, match="conversations belong to sessions and think processes"):
        MemoryTools(lib, "project/inbox").call("chat_append", {"content": "A project has no conversation."})
    with pytest.raises(InvalidInput, match=r"no message 1 \(it has no messages\)"):
        tools.call("chat_compact_range", {"first_seq": 1, "last_seq": 3, "topic": "Nothing yet"})
    assert stored_counts(lib.paths.root) == before


def test_messages_appended_by_a_tool_are_found_by_search_from_the_process(lib):
    tools = MemoryTools(lib, TP1, index_now=True)
    message = tools.call("chat_append", {"content": TASK})
    assert documents.get_document(lib, message.id).index_state.value == "indexed"
    hits = search(lib, "which fine-tuning run to keep on the Vienna cluster", scope=TP1).hits
    assert hits[0].document.id == message.id


def test_import_and_parent_through_json_calls(lib):
    tools = MemoryTools(lib, TP1)
    before = stored_counts(lib.paths.root)
    with pytest.raises(InvalidInput, match="message 2: not an object"):
        tools.call("chat_import", {"messages": [{"role": "user", "content": "ok"}, "oops"]})
    assert stored_counts(lib.paths.root) == before  # all or nothing
    imported = tools.call("chat_import", {"messages": [
        {"role": "user", "content": [{"type": "text", "text": TASK}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_9", "type": "function", "function": {"name": "queue", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_9", "content": '{"jobs": 2}'}]}).messages
    assert [m.seq for m in imported] == [1, 2, 3] and imported[0].pinned and imported[0].content == TASK
    assert imported[1].tool_call_id == "call_9" and "Tool call: queue({})" in imported[1].content
    assert tools.call("chat_parent", {}).parent is None
    assert tools.call("chat_parent", {"parent": "session/s1"}).parent == "session/s1"
    assert tools.call("chat_compose", {"budget": 800}).markdown.startswith(chat.PARENT)
    assert tools.call("chat_parent", {"clear": True}).parent is None
    with pytest.raises((ScopeNotVisible, AccessDenied)):
        tools.call("chat_parent", {"parent": "session/s1", "process": TP2})  # a sibling's conversation
