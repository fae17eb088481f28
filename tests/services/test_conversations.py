"""Conversation memory through the service: messages, pins, both compaction paths, the prompt block, bad input."""

from __future__ import annotations

import threading

import pytest

from vancetope_desktop.core.conversations import MessageKind, Stage, Strength
from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.errors import BudgetTooSmall, InvalidInput, NotFound, ScopeError, ScopeNotFound
from vancetope_desktop.core.memories import MemoryType
from vancetope_desktop.services import conversations as chat
from vancetope_desktop.services import documents, indexing, scopes
from vancetope_desktop.services.conversations import NewMessage
from vancetope_desktop.services.library import Library
from vancetope_desktop.services.search import search

from ..conftest import stored_counts
from ..conversation_samples import TASK, converse, turn


@pytest.fixture
def lib(library: Library) -> Library:
    scopes.create_scope(library, "session", "s1", parent="project/inbox", name="Fine-tuning review")
    scopes.create_scope(library, "think-process", "tp1", parent="session/s1")
    return library


def long_conversation(lib: Library, turns: int = 20, process: str = "session/s1") -> list:
    return converse(lib, process, turns)


def test_messages_are_numbered_counted_and_the_task_is_pinned(lib):
    first = chat.append(lib, "session/s1", TASK)
    second = chat.append(lib, "session/s1", "Which runs?", role="assistant")
    third = chat.append(lib, "session/s1", "All of them.")
    assert (first.seq, second.seq, third.seq) == (1, 2, 3)
    assert first.strength is Strength.PINNED and third.strength is Strength.NORMAL  # only the first user message
    assert first.tokens == lib.embedder().count_tokens(TASK) > 10
    doc = documents.get_document(lib, first.id)
    assert doc.type is DocumentType.MESSAGE and doc.scope == "session/s1" and doc.content == TASK
    # messages have their own view: never among the documents
    assert first.id not in [d.id for d in documents.list_documents(lib, scope="session/s1")]


def test_messages_are_searchable_from_their_process_only(lib):
    long_conversation(lib, 3)
    indexing.try_drain(lib)
    hits = search(lib, "Vienna cluster fine-tuning", scope="session/s1").hits
    assert hits and hits[0].document.type is DocumentType.MESSAGE
    assert not [h for h in search(lib, "Vienna cluster fine-tuning", scope="project/inbox").hits
                if h.document.type is DocumentType.MESSAGE]  # a project does not see its sessions' messages


def test_bad_messages_are_refused_whole(lib):
    before = stored_counts(lib.paths.root)
    with pytest.raises(ScopeNotFound, match="no process"):
        chat.append(lib, "session/nope", "hello")
    with pytest.raises(ScopeError, match="conversations belong to sessions and think processes"):
        chat.append(lib, "project/inbox", "hello")
    with pytest.raises(InvalidInput, match="message 2 is empty"):
        chat.append_many(lib, "session/s1", [NewMessage("fine"), NewMessage("  \n ")])
    with pytest.raises(InvalidInput, match="unknown role 'robot'"):
        chat.append_many(lib, "session/s1", [NewMessage("fine"), NewMessage("beep", "robot")])
    with pytest.raises(InvalidInput, match="no visible text"):
        chat.append(lib, "session/s1", "\u200b\u200b")
    with pytest.raises(InvalidInput, match="more than the 1,000,000 a message may"):
        chat.append(lib, "session/s1", "x" * 1_000_001)
    assert stored_counts(lib.paths.root) == before


def test_hostile_text_is_kept_as_written(lib):
    odd = "NUL\x00 bell\x07 RTL \u202eevil\u202c 中文 emoji 🧪 <script>alert(1)</script> '; DROP TABLE chat_message; --"
    message = chat.append(lib, "session/s1", odd)
    # …but a NUL, which PostgreSQL refuses, is stored as U+FFFD on every library (core.text.without_nul).
    assert chat.get_message(lib, message.id).content == odd.replace("\x00", "\ufffd")
    block = chat.compose_block(lib, "session/s1", 500)
    assert "DROP TABLE" in block.markdown and block.tokens <= 500


def test_pin_and_unpin(lib):
    first, reply = chat.append_many(lib, "session/s1", [NewMessage(TASK), NewMessage("ok", "assistant")])
    assert chat.set_pinned(lib, reply.id, True).pinned
    assert chat.set_pinned(lib, reply.id, True).pinned  # idempotent
    assert not chat.set_pinned(lib, first.id, False).pinned  # people may unpin even the task
    with pytest.raises(NotFound):
        chat.set_pinned(lib, "doc_000000000000", True)


def test_below_the_soft_threshold_nothing_is_folded(lib):
    long_conversation(lib, 2)
    result = chat.compact(lib, "session/s1", context_window=100_000)
    assert result.archive is None and result.folded == 0 and "below the soft threshold" in result.reason


def test_sliding_window_folds_old_turns_and_keeps_pins_and_recent_turns(lib):
    messages = long_conversation(lib, 20)
    tokens = chat.prompt_tokens(lib, "session/s1")
    window = int(tokens / 0.9)  # past the hard threshold (85 %)
    result = chat.compact(lib, "session/s1", context_window=window)
    assert result.stage is Stage.HARD and result.folded > 0 and result.archive is not None
    assert result.tokens_after < tokens
    archive = result.archive
    assert archive.stage is Stage.HARD and archive.summary and archive.tokens <= chat.summary_bound(lib, window)
    live = chat.live_messages(lib, "session/s1")
    assert live[0].id == messages[0].id and live[0].pinned  # the task survives
    assert [m.id for m in live[-6:]] == [m.id for m in messages[-6:]]  # the last three turns are kept
    originals = chat.archived_messages(lib, archive.id)
    assert [m.id for m in originals] == archive.message_ids and all(m.archived_in == archive.id for m in originals)
    doc = documents.get_document(lib, archive.id)
    assert doc.memory_type is MemoryType.ARCHIVED_CHAT and doc.scope == "session/s1"
    # the same compaction again changes nothing: the prompt is under the threshold now
    again = chat.compact(lib, "session/s1", context_window=window)
    assert again.folded == 0 and len(chat.archives(lib, "session/s1")) == 1


def test_a_second_compaction_rolls_the_summary_up(lib):
    long_conversation(lib, 12)
    window = int(chat.prompt_tokens(lib, "session/s1") / 0.75)
    first = chat.compact(lib, "session/s1", context_window=window).archive
    chat.append_many(lib, "session/s1", [m for n in range(13, 30) for m in turn(n)])
    window = int(chat.prompt_tokens(lib, "session/s1") / 0.75)
    second = chat.compact(lib, "session/s1", context_window=window).archive
    assert second.previous == first.id
    assert documents.get_document(lib, first.id).status is DocumentStatus.ARCHIVED  # `updates` archives it
    assert chat.active_summary(lib, "session/s1").id == second.id
    every = chat.archived_messages(lib, second.id, rolled_up=True)
    assert set(first.message_ids) | set(second.message_ids) == {m.id for m in every}


def test_range_recompaction_writes_a_stitch_and_keeps_pins(lib):
    messages = long_conversation(lib, 6)
    chat.set_pinned(lib, messages[4].id, True)
    result = chat.compact_range(lib, "session/s1", 2, 7, topic="Runs 1 to 3")
    archive = result.archive
    assert archive.topic == "Runs 1 to 3" and archive.stage is None
    assert messages[4].id not in archive.message_ids  # the pinned one stays verbatim
    assert [m.seq for m in chat.archived_messages(lib, archive.id)] == [2, 3, 4, 6, 7]
    page = chat.history(lib, "session/s1")
    stitch = next(m for m in page.messages if m.kind is MessageKind.STITCH)
    assert stitch.after_seq == 7 and "Runs 1 to 3" in stitch.content
    order = [m.seq for m in page.messages]
    assert order.index(stitch.seq) == order.index(7) + 1  # shown where the range was
    # the same range again: already done, nothing new
    again = chat.compact_range(lib, "session/s1", 2, 7, topic="Runs 1 to 3")
    assert again.already_done and again.archive.id == archive.id and again.folded == 0
    with pytest.raises(InvalidInput, match="overlaps messages already folded"):
        chat.compact_range(lib, "session/s1", 6, 9, topic="Overlap")


def test_a_range_never_splits_a_tool_call_from_its_result(lib):
    chat.append_many(lib, "session/s1", [
        NewMessage(TASK), NewMessage("Checking the queue.", "assistant", tool_call_id="call_1"),
        NewMessage('{"jobs": 3}', "tool", tool_call_id="call_1"), NewMessage("Three jobs are queued.", "assistant")])
    result = chat.compact_range(lib, "session/s1", 3, 4, topic="Queue check")
    assert [m.seq for m in chat.archived_messages(lib, result.archive.id)] == [2, 3, 4]
    assert "widened from 3–4 to 2–4" in result.reason


def test_a_pinned_tool_result_keeps_its_call_out_of_a_range(lib):
    # found by the property test (conversation 53): the call was folded and its pinned result kept
    messages = chat.append_many(lib, "session/s1", [
        NewMessage(TASK), NewMessage("Checking the queue.", "assistant", tool_call_id="call_1"),
        NewMessage('{"jobs": 3}', "tool", tool_call_id="call_1", pinned=True),
        NewMessage("Three are queued.", "assistant"), NewMessage("Thanks.")])
    result = chat.compact_range(lib, "session/s1", 2, 5, topic="Queue check")
    assert [m.seq for m in chat.archived_messages(lib, result.archive.id)] == [4, 5]
    assert {m.id for m in chat.live_messages(lib, "session/s1")} >= {messages[1].id, messages[2].id}


def test_a_compaction_that_fails_half_way_leaves_nothing(lib, monkeypatch):
    long_conversation(lib, 10)
    before = stored_counts(lib.paths.root)

    def broken(*args, **kwargs):
        raise RuntimeError("disk unplugged")

    monkeypatch.setattr(chat, "mark_archived", broken)
    with pytest.raises(RuntimeError):
        chat.compact_range(lib, "session/s1", 2, 9, topic="Half")
    assert stored_counts(lib.paths.root) == before
    assert all(m.archived_in is None for m in chat.live_messages(lib, "session/s1"))


def test_two_writers_compacting_at_once_fold_once(lib):
    long_conversation(lib, 16)
    window = int(chat.prompt_tokens(lib, "session/s1") / 0.9)
    other = Library.open(lib.paths.root)
    results = []
    start = threading.Barrier(2)

    def run(library: Library) -> None:
        start.wait()
        results.append(chat.compact(library, "session/s1", context_window=window))

    try:
        threads = [threading.Thread(target=run, args=(x,)) for x in (lib, other)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        other.close()
    assert len(chat.archives(lib, "session/s1")) == 1
    assert sorted(r.folded > 0 for r in results) == [False, True]
    late = next(r for r in results if not r.folded)
    assert late.already_done or "below the soft threshold" in late.reason


def test_the_block_replays_summary_and_pins_within_budget(lib):
    messages = long_conversation(lib, 20)
    chat.compact(lib, "session/s1", context_window=int(chat.prompt_tokens(lib, "session/s1") / 0.9))
    block = chat.compose_block(lib, "session/s1", 600)
    assert block.tokens <= 600 == block.budget
    assert chat.token_counter(lib)(block.markdown) == block.tokens
    assert block.markdown.startswith(chat.EARLIER) and TASK in block.markdown and chat.RECENT in block.markdown
    assert block.summary_id == chat.active_summary(lib, "session/s1").id
    assert block.pinned == [messages[0].id]
    assert block.recent[-1] == messages[-1].id  # the newest message is in; older ones went first
    small = chat.compose_block(lib, "session/s1", 120)
    assert small.tokens <= 120 and small.left_out > block.left_out
    with pytest.raises(BudgetTooSmall, match="cannot hold the pinned messages"):
        chat.compose_block(lib, "session/s1", 20)


def test_a_budget_below_the_headings_is_refused_even_without_pins(lib):
    # found by the property test: with nothing pinned, a 14-token budget got a 17-token block
    reply = chat.append_many(lib, "session/s1", [NewMessage(TASK), NewMessage("On it.", "assistant")])[1]
    chat.set_pinned(lib, chat.live_messages(lib, "session/s1")[0].id, False)
    with pytest.raises(BudgetTooSmall, match="give at least"):
        chat.compose_block(lib, "session/s1", 14)
    block = chat.compose_block(lib, "session/s1", 200)
    assert block.tokens <= 200 and not block.pinned and block.recent[-1] == reply.id and block.left_out == 0


def test_parent_context_crosses_projects_only_as_identity(lib):
    scopes.create_scope(lib, "project", "secret", parent="group/default", name="Secret project")
    scopes.create_scope(lib, "session", "s9", parent="project/secret", name="Other lab")
    long_conversation(lib, 20)
    chat.compact(lib, "session/s1", context_window=int(chat.prompt_tokens(lib, "session/s1") / 0.9))
    summary = chat.active_summary(lib, "session/s1").summary
    chat.append(lib, "think-process/tp1", "Check run 3's loss curve.")
    assert chat.set_parent(lib, "think-process/tp1", "session/s1") == "session/s1"
    same = chat.compose_block(lib, "think-process/tp1", 2000)
    assert same.markdown.startswith(chat.PARENT) and same.parent_shared
    parent_part = same.markdown.split(chat.EARLIER)[0]
    assert TASK in parent_part  # the parent's task, pinned, heads the worker's block
    assert summary.split("\n")[0][:40] in same.markdown
    chat.set_parent(lib, "think-process/tp1", "session/s9")
    chat.append(lib, "session/s9", "Confidential: the Zurich budget is 1.2 M.")
    other = chat.compose_block(lib, "think-process/tp1", 2000)
    assert "Other lab (session/s9)" in other.markdown and "another project" in other.markdown
    assert not other.parent_shared and "Zurich" not in other.markdown
    with pytest.raises(InvalidInput, match="cannot be the parent"):
        chat.set_parent(lib, "session/s9", "think-process/tp1")


def test_a_named_tokenizer_counts_the_tokens(lib, tmp_path):
    own = lib.embedder().spec.transformer_path / "tokenizer.json"  # a real tokenizer.json, as a chat model's would be
    lib.settings.chat_tokenizer = str(own.parent)  # a folder holding one
    message = chat.append(lib, "session/s1", TASK)
    assert message.tokens == lib.embedder().count_tokens(TASK)
    lib.settings.chat_tokenizer = str(tmp_path / "missing.json")
    with pytest.raises(InvalidInput, match="cannot read a tokenizer"):
        chat.append(lib, "session/s1", "Another message.")
    with pytest.raises(ValueError, match="increasing"):
        lib.settings.chat_thresholds = (0.9, 0.8, 0.95)


def test_read_export_decodes_the_file_as_a_text_file_and_refuses_what_is_not_json(tmp_path):
    """``read_export`` (``chat import`` and the app's Import Conversation…): a Windows tool's UTF-16 export reads as
    a UTF-8 one; bytes that are not JSON are refused with the file named."""
    export = tmp_path / "run.json"
    export.write_bytes('[{"role": "user", "content": "Größe prüfen"}]'.encode("utf-16"))
    assert chat.read_export(export) == [NewMessage("Größe prüfen", "user", None, False)]
    export.write_text("role: user", encoding="utf-8")
    with pytest.raises(InvalidInput, match=r"run\.json is not JSON"):
        chat.read_export(export)


# -- the new-user trial's fixes (FIXES brief) ------------------------------------------------------

def test_an_export_names_every_bad_entry_at_once_and_writes_nothing(lib):
    before = stored_counts(lib.paths.root)
    export = [{"role": "user", "content": "fine"}, {"role": "robot", "content": "beep"},
              {"role": "user", "content": "  \n"}, {"content": "who said this?"}, 7,
              {"role": "assistant", "content": [{"type": "tool_result", "tool_use_id": "t", "content": ""}]}]
    with pytest.raises(InvalidInput) as refused:
        chat.messages_from_export(export, "run.json")
    message = str(refused.value)
    assert message.startswith("run.json: nothing imported: message 2: unknown role 'robot'")
    for part in ("message 3: the text is blank", "message 4: no role", "message 5: not an object but 7",
                 "message 6: tool result 1 has no text"):
        assert part in message, message
    assert "message 1" not in message
    assert stored_counts(lib.paths.root) == before


def test_an_anthropic_export_keeps_tool_use_tool_results_and_the_system_prompt(lib):
    export = {"system": "You are a careful lab assistant.", "messages": [
        {"role": "user", "content": [{"type": "text", "text": "How many herons at the north lake?"}]},
        {"role": "assistant", "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"lake": "north", "bird": "heron"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "14"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": "a census"}]},
            {"type": "text", "text": "And the south lake?"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_3", "name": "count", "input": {}}]},
    ]}
    made = chat.append_many(lib, "session/s1", chat.messages_from_export(export))
    assert [(m.role.value, m.tool_call_id) for m in made] == [
        ("system", None), ("user", None), ("assistant", "toolu_1"), ("tool", "toolu_1"), ("tool", "toolu_2"),
        ("user", None), ("assistant", "toolu_3")]
    assert made[0].content == "You are a careful lab assistant."
    assert made[2].content == 'Let me look.\n\nTool call: lookup({"lake": "north", "bird": "heron"})'
    assert [m.content for m in made[3:6]] == ["14", "a census", "And the south lake?"]
    assert made[6].content == "Tool call: count({})"
    assert made[1].pinned and not made[5].pinned  # the first user message is the task
    # OpenAI's shape still works beside it
    openai = chat.messages_from_export([{"role": "assistant", "tool_calls": [
        {"id": "call_9", "type": "function", "function": {"name": "count", "arguments": '{"lake": "north"}'}}]}])
    assert openai == [NewMessage('Tool call: count({"lake": "north"})', "assistant", "call_9")]


def test_a_single_empty_message_is_the_message_not_message_1(lib):
    with pytest.raises(InvalidInput, match=r"^the message is empty: give its text$"):
        chat.append(lib, "session/s1", "  ")
    with pytest.raises(InvalidInput, match=r"^unknown role 'robot'"):
        chat.append(lib, "session/s1", "beep", role="robot")
    with pytest.raises(InvalidInput, match="message 2 is empty"):  # several: numbered
        chat.append_many(lib, "session/s1", [NewMessage("fine"), NewMessage(" ")])


def test_a_process_cannot_work_for_itself(lib):
    with pytest.raises(InvalidInput, match="a process cannot work for itself") as refused:
        chat.set_parent(lib, "session/s1", "session/s1")
    assert "cannot be the parent" not in str(refused.value)
    assert chat.parent_process(lib, "session/s1") is None


def _leaks(markdown: str) -> list[str]:
    """Inline emphasis that spans blocks, as markdown-it-py parses it: an ``_`` or ``*`` left as text."""
    from markdown_it import MarkdownIt
    tokens = MarkdownIt("commonmark").parse(markdown)
    return [c.content for t in tokens if t.type == "inline" for c in (t.children or [])
            if c.type == "text" and ("_" in c.content or "**" in c.content)]


def test_the_block_renders_a_stitch_as_a_quote_and_says_when_no_message_is_recent(lib):
    from markdown_it import MarkdownIt
    long_conversation(lib, 6)
    result = chat.compact_range(lib, "session/s1", 2, 9, topic="Runs 1 to 4")
    block = chat.compose_block(lib, "session/s1", 2000)
    stitch = chat.get_message(lib, result.stitch_id)
    head = f"**topic stitch** (#{stitch.seq}): Topic-Stitch: Runs 1 to 4 — messages 2–9 folded into a summary."
    assert head in block.markdown and "\n_" not in block.markdown
    quoted = block.markdown.split(head, 1)[1].split("\n\n**", 1)[0].strip()
    assert quoted and all(line.startswith(">") for line in quoted.splitlines())
    tokens = MarkdownIt("commonmark").parse(block.markdown)
    kinds = [t.type for t in tokens if t.level == 0 and t.nesting >= 0]
    assert "blockquote_open" in kinds and "em_open" not in [c.type for t in tokens for c in (t.children or [])]
    assert not _leaks(block.markdown)
    assert block.tokens <= 2000 and chat.token_counter(lib)(block.markdown) == block.tokens
    # a process with only its pinned task: the heading says nothing is recent
    chat.append(lib, "think-process/tp1", TASK)
    empty = chat.compose_block(lib, "think-process/tp1", 500)
    assert empty.markdown.endswith(f"{chat.RECENT}\n\n{chat.NO_RECENT}") and not empty.recent


def test_a_compaction_that_cannot_reach_its_target_says_so(lib):
    messages = long_conversation(lib, 8)
    for message in messages[1:9]:  # pin most of the conversation: the fold cannot get under the target
        chat.set_pinned(lib, message.id, True)
    tokens = chat.prompt_tokens(lib, "session/s1")
    window = int(tokens / 0.9)
    result = chat.compact(lib, "session/s1", context_window=window)
    assert result.stage is Stage.HARD and result.folded > 0
    share = result.tokens_after / window
    assert share > 0.40
    assert f"to about {result.tokens_after:,} tokens ({share:.0%}: above the hard stage's 40% target: 9 pinned " \
           "messages and the last 3 turns stay verbatim)" in result.reason, result.reason


def test_an_export_s_times_date_the_messages(lib):
    found = chat.messages_from_export([
        {"role": "user", "content": "Hey Mel!", "created_at": "2023-05-08T13:56:00Z"},
        {"role": "assistant", "content": "Hi Caroline!", "create_time": 1683554220.5},  # ChatGPT's export: seconds
        {"role": "user", "content": "How was the lake?", "timestamp": 1683554280000}])  # milliseconds
    messages = chat.append_many(lib, "session/s1", found)
    assert [m.created_at.replace(tzinfo=None).isoformat(timespec="minutes") for m in messages] == [
        "2023-05-08T13:56", "2023-05-08T13:57", "2023-05-08T13:58"]
    assert [m.seq for m in messages] == [1, 2, 3]  # the order is the export's, whatever the times say
    with pytest.raises(InvalidInput, match=r"message 2: unreadable time \"yesterday\""):
        chat.messages_from_export([{"role": "user", "content": "a"},
                                   {"role": "user", "content": "b", "created_at": "yesterday"}])


def test_a_message_is_found_by_id_or_by_number(lib):
    first, second = chat.append_many(lib, "session/s1", [NewMessage(TASK), NewMessage("On it.", "assistant")])
    assert chat.find_message(lib, second.id).seq == 2
    assert chat.find_message(lib, "#2", "session/s1").id == second.id
    assert chat.find_message(lib, "session/s1#1").id == first.id
    with pytest.raises(InvalidInput, match="of which conversation"):
        chat.find_message(lib, "2")
    with pytest.raises(NotFound, match="has no message #7"):
        chat.find_message(lib, "session/s1#7")
    with pytest.raises(InvalidInput, match="names no message"):
        chat.find_message(lib, "the second one", "session/s1")
