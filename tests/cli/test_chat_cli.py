"""`vancetope chat` (issue 15): a conversation from the terminal — append (also from stdin and from an exported
file), pin, the paged history, the prompt block, both compactions, the summaries and the parent process — and bad
input as one line with its exit code, nothing half-written."""

import json

from vancetope_desktop.services import conversations as chat
from vancetope_desktop.services import documents
from vancetope_desktop.services.library import Library

from ..conftest import stored_counts

TASK = "Compare the LoRA and full fine-tuning runs on the Vienna cluster and report which one to keep."


def _json(result) -> dict | list:
    return json.loads(result.stdout)


def _session(cli) -> None:
    cli("scope", "create", "session", "s1", "--parent", "project/inbox")


def test_a_conversation_from_the_terminal(cli, tmp_path):
    _session(cli)
    task = _json(cli("chat", "append", "session/s1", TASK, "--json"))
    assert (task["seq"], task["role"], task["strength"]) == (1, "user", "pinned")
    reply = _json(cli("chat", "append", "session/s1", "-", "--role", "assistant", "--json",
                      stdin="Run 1 on gpu-01 finished in 4 hours; Maria keeps checkpoint 100.\n"))
    assert reply["content"] == "Run 1 on gpu-01 finished in 4 hours; Maria keeps checkpoint 100."
    assert "Appended #3 user" in cli("chat", "append", "session/s1", "Which checkpoint for run 2?").stdout
    for n in range(2, 9):
        cli("chat", "append", "session/s1", f"Run {n} on gpu-0{n} used batch size {16 * n}.", "--no-wait")
        cli("chat", "append", "session/s1", f"Noted: loss {1 / n:.3f} for run {n}.", "--role", "assistant",
            "--no-wait")
    assert "Pinned #2 assistant" in cli("chat", "pin", reply["id"]).stdout
    assert _json(cli("chat", "pin", reply["id"], "--off", "--json"))["strength"] == "normal"
    assert _json(cli("chat", "pin", "2", "--process", reply["process"], "--json"))["id"] == reply["id"]  # by number
    assert _json(cli("chat", "pin", f"{reply['process']}#2", "--off", "--json"))["strength"] == "normal"

    shown = cli("chat", "history", "session/s1", "--limit", "3").stdout
    assert "Vienna" in shown and "pinned" in shown and "1–3 of 17" in shown and "--offset 3 for more" in shown
    page = _json(cli("chat", "history", "session/s1", "--offset", "15", "--json"))
    assert [m["seq"] for m in page["messages"]] == [16, 17] and page["total"] == 17

    block = cli("chat", "compose", "session/s1", "--budget", "300")
    assert block.stdout.startswith("## Earlier Conversation (compacted)") and TASK in block.stdout
    assert "of 300 tokens" in block.stderr
    assert _json(cli("chat", "compose", "session/s1", "--budget", "300", "--json"))["tokens"] <= 300

    done = _json(cli("chat", "compact", "session/s1", "--window", "120", "--json"))
    assert done["folded"] > 0 and done["archive"]["stage"] and done["tokens_after"] < done["tokens_in"]
    folded = _json(cli("chat", "history", "session/s1", "--archived", "--limit", "1000", "--json"))
    assert [m["id"] for m in folded["messages"]] == done["archive"]["message_ids"]
    live = _json(cli("chat", "history", "session/s1", "--live", "--json"))
    assert live["messages"][0]["id"] == task["id"] and live["archived"] == done["folded"]
    assert "below the soft threshold" in cli("chat", "compact", "session/s1", "--window", "100000").stdout

    last = live["messages"][-1]["seq"]
    ranged = cli("chat", "compact-range", "session/s1", str(last - 1), str(last), "--topic", "Run 8").stdout
    assert "into 'Run 8'" in ranged and "stitch doc_" in ranged
    summaries = _json(cli("chat", "archives", "session/s1", "--json"))
    assert [(a["stage"], a["topic"]) for a in summaries] == [(done["archive"]["stage"], None), (None, "Run 8")]
    assert "topic: Run 8" in cli("chat", "archives", "session/s1").stdout
    with Library.open(tmp_path / "lib") as lib:  # --wait (the default): the summaries and the stitch are embedded
        written = [a["id"] for a in summaries] + [chat.history(lib, "session/s1", archived=False).messages[-1].id]
        assert {documents.get_document(lib, i).index_state.value for i in written} == {"indexed"}


def test_the_parent_process(cli):
    _session(cli)
    cli("scope", "create", "think-process", "tp1", "--parent", "session/s1")
    assert "works for no other process" in cli("chat", "parent", "think-process/tp1").stdout
    assert "works for session/s1" in cli("chat", "parent", "think-process/tp1", "session/s1").stdout
    assert _json(cli("chat", "parent", "think-process/tp1", "--json")) == {"process": "think-process/tp1",
                                                                          "parent": "session/s1"}
    assert _json(cli("chat", "parent", "think-process/tp1", "--none", "--json"))["parent"] is None
    both = cli("chat", "parent", "think-process/tp1", "session/s1", "--none", ok=False)
    assert both.exit_code == 2 and "not both" in both.output
    cli("chat", "parent", "think-process/tp1", "session/s1")
    loop = cli("chat", "parent", "session/s1", "think-process/tp1", ok=False)
    assert loop.exit_code == 2 and "cannot be the parent" in loop.output
    itself = cli("chat", "parent", "session/s1", "session/s1", ok=False)
    assert itself.exit_code == 2 and "a process cannot work for itself" in itself.output


def test_import_an_exported_conversation_all_or_nothing(cli, tmp_path):
    _session(cli)
    export = tmp_path / "chat.json"
    export.write_text(json.dumps([
        {"role": "system", "content": "You count birds."},
        {"role": "user", "content": "How many herons at the north lake?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_9", "type": "function", "function": {"name": "count", "arguments": '{"lake": "north"}'}}]},
        {"role": "tool", "tool_call_id": "call_9", "content": "14"},
        {"role": "assistant", "content": [{"type": "text", "text": "There are 14 herons."}]},
    ]))
    made = _json(cli("chat", "import", "session/s1", str(export), "--json"))
    assert [m["role"] for m in made] == ["system", "user", "assistant", "tool", "assistant"]
    assert made[1]["strength"] == "pinned" and made[2]["content"] == 'Tool call: count({"lake": "north"})'
    assert made[2]["tool_call_id"] == made[3]["tool_call_id"] == "call_9"
    assert made[4]["content"] == "There are 14 herons."

    before = stored_counts(tmp_path / "lib")
    for content, code, message in [
        ([{"role": "user", "content": "fine"}, 5, {"role": "user", "content": {"a": 1}}], 2,
         "nothing imported: message 2: not an object but 5; message 3: no text content"),
        # every bad entry in one refusal: an unknown role, blank text and a missing role are found at once
        ([{"role": "user", "content": "fine"}, {"role": "robot", "content": "beep"}, {"role": "user", "content": " "},
          {"content": "who said this?"}], 2,
         "nothing imported: message 2: unknown role 'robot' (use one of user, assistant, tool, system); "
         "message 3: the text is blank; message 4: no role"),
        ({"role": "user"}, 2, "holds a JSON dict: give a list of messages"),
    ]:
        export.write_text(json.dumps(content))
        result = cli("chat", "import", "session/s1", str(export), ok=False)
        assert result.exit_code == code and message in result.output, result.output
    export.write_text("[{\"role\": ")
    assert "is not JSON" in cli("chat", "import", "session/s1", str(export), ok=False).output
    assert stored_counts(tmp_path / "lib") == before
    export.write_text(json.dumps({"messages": [{"role": "user", "content": "An OpenAI fine-tuning line."}]}))
    assert "Imported 1 message into session/s1 (#6–#6; pinned: none)" in cli("chat", "import", "session/s1",
                                                                             str(export)).stdout


def test_bad_input_is_one_line_with_its_exit_code(cli, tmp_path):
    _session(cli)
    cli("chat", "append", "session/s1", TASK)
    before = stored_counts(tmp_path / "lib")
    for args, code, message in [
        (("chat", "append", "session/nope", "hello"), 3, "no process 'session/nope'"),
        (("chat", "append", "project/inbox", "hello"), 2, "conversations belong to sessions and think processes"),
        (("chat", "append", "session/s1", "   "), 2, "the message is empty: give its text"),
        (("chat", "append", "session/s1", "hi", "--role", "robot"), 2, "robot"),
        (("chat", "pin", "doc_000000000000"), 3, "no message 'doc_000000000000'"),
        (("chat", "compose", "session/s1", "--budget", "5"), 2, "cannot hold the pinned messages"),
        (("chat", "compact-range", "session/s1", "1", "4", "--topic", "Too far"), 2, "no message 4"),
        (("chat", "compact-range", "session/s1", "1", "1", "--topic", "Only the task"), 2, "all pinned"),
        (("chat", "history", "session/s1", "--limit", "0"), 2, "--limit"),
    ]:
        result = cli(*args, ok=False)
        assert result.exit_code == code and message in result.output, (args, result.output)
        assert "Traceback" not in result.output
    assert stored_counts(tmp_path / "lib") == before
