"""Agent memory from the terminal: agent scopes, the agent that runs a session, memory types, recall, episodes."""

import json


def as_json(result):
    return json.loads(result.stdout)


def test_agent_scopes_and_the_agent_that_runs_a_session(cli):
    created = as_json(cli("scope", "create", "agent/tau", "--parent", "group/default", "--json"))
    assert created["kind"] == "agent" and created["parent"] == "group/default"
    run = as_json(cli("scope", "create", "session", "s1", "--parent", "project/inbox", "--agent", "agent/tau",
                      "--json"))
    assert run["agent"] == "agent/tau"
    assert "session/s1 is run by agent/tau" in cli("scope", "agent", "session/s1").stdout
    assert as_json(cli("scope", "agent", "session/s1", "--none", "--json"))["agent"] is None
    refused = cli("scope", "agent", "project/inbox", "agent/tau", ok=False)
    assert refused.exit_code == 2 and "an agent runs sessions and think processes" in refused.output


def test_memory_types_from_the_terminal(cli):
    lesson = as_json(cli("memory", "add", "Run the linter first", "--memory-type", "feedback", "--no-wait", "--json"))
    assert lesson["type"] == "note" and lesson["memory_type"] == "feedback"
    cli("memory", "add", "The linter is ruff", "--memory-type", "reference", "--no-wait")
    cli("memory", "add", "Linters find bugs", "--no-wait")
    listed = as_json(cli("memory", "list", "--memory-type", "feedback", "--json"))
    assert [d["id"] for d in listed] == [lesson["id"]] and listed[0]["memory_type"] == "feedback"
    found = as_json(cli("memory", "search", "linter", "--memory-type", "reference", "--json"))
    assert [h["document"]["memory_type"] for h in found["hits"]] == ["reference"]
    assert "feedback" in cli("memory", "list", "--memory-type", "feedback").stdout  # the table folds "note · feedback"
    assert "note · feedback" in cli("memory", "read", lesson["id"]).stdout
    refused = cli("memory", "list", "--memory-type", "lesson", ok=False)
    assert refused.exit_code == 2 and "feedback" in refused.output and "episode" in refused.output
    helped = " ".join(cli("memory", "add", "--help").stdout.replace("│", " ").split())
    assert "feedback for guidance that must change how you work" in helped


def test_recall_from_the_terminal(cli):
    cli("scope", "create", "agent/tau", "--parent", "project/inbox")
    own = as_json(cli("memory", "add", "Deploy order: schema first", "--memory-type", "feedback", "--scope",
                      "agent/tau", "--no-wait", "--json"))
    cli("memory", "add", "Deploy order of the project", "--memory-type", "project", "--no-wait")
    found = as_json(cli("memory", "recall", "deploy order", "--namespace", "agent/tau", "--json"))
    assert [(m["id"], m["namespace"], m["memory_type"]) for m in found["memories"]] == [
        (own["id"], "agent/tau", "feedback")]
    assert "Deploy order: schema first" in cli("memory", "recall", "deploy order", "--namespace", "agent/tau").stdout
    refused = cli("memory", "recall", "deploy", "--namespace", "agent/tau", "--scope", "project/inbox", ok=False)
    assert refused.exit_code == 4 and "cannot recall agent/tau" in refused.output
    assert cli("memory", "recall", " ", "--namespace", "agent/tau", ok=False).exit_code == 2
    assert cli("memory", "recall", "deploy", "--namespace", "agent/nope", ok=False).exit_code == 3


def test_episodes_from_the_terminal(cli):
    cli("scope", "create", "agent/tau", "--parent", "project/inbox")
    fields = ["--context", "Deploying Convex schema changes", "--goal", "Add vector index to memories table",
              "--action", "Ran npx convex deploy", "--outcome", "Deploy failed", "--insight", "Order matters"]
    added = as_json(cli("memory", "episode", "add", *fields, "--severity", "major", "--namespace", "agent/tau",
                        "--created-by", "alice", "--no-wait", "--json"))
    assert (added["namespace"], added["severity"], added["created_by"]) == ("agent/tau", "major", "alice")
    listed = as_json(cli("memory", "episode", "list", "--namespace", "agent/tau", "--severity", "major", "--json"))
    assert [e["id"] for e in listed] == [added["id"]]
    assert as_json(cli("memory", "episode", "list", "--namespace", "agent/tau", "--text", "nothing", "--json")) == []
    shown = cli("memory", "episode", "show", added["id"], "--scope", "agent/tau").stdout
    assert "Insight: Order matters" in shown and "by alice" in shown
    missing = cli("memory", "episode", "add", *fields[:-2], "--severity", "major", ok=False)
    assert missing.exit_code == 2 and "--insight" in missing.output
    bad = cli("memory", "episode", "add", *fields, "--severity", "huge", ok=False)
    assert bad.exit_code == 2 and "minor" in bad.output


def test_an_episode_is_edited_from_the_terminal(cli):
    fields = ["--context", "Deploying Convex schema changes", "--goal", "Add vector index", "--action", "Ran deploy",
              "--outcome", "Deploy failed", "--insight", "Order matters"]
    added = as_json(cli("memory", "episode", "add", *fields, "--severity", "minor", "--no-wait", "--json"))
    edited = as_json(cli("memory", "episode", "edit", added["id"], "--severity", "critical", "--insight",
                         "Add the field and its index in one deploy", "--no-wait", "--json"))
    assert (edited["severity"], edited["insight"], edited["goal"]) == (
        "critical", "Add the field and its index in one deploy", "Add vector index")
    assert "Severity: critical" in cli("memory", "read", added["id"]).stdout
    blank = cli("memory", "episode", "edit", added["id"], "--goal", " ", ok=False)
    assert blank.exit_code == 2 and "goal cannot be blank" in blank.output
    cli("undo")
    assert as_json(cli("memory", "episode", "show", added["id"], "--json"))["severity"] == "minor"


def test_a_note_s_memory_type_is_set_and_cleared_from_the_terminal(cli):
    note = as_json(cli("memory", "add", "The linter is ruff", "--memory-type", "feedback", "--no-wait", "--json"))
    assert as_json(cli("memory", "type", note["id"], "Reference", "--json"))["memory_type"] == "reference"
    assert [d["id"] for d in as_json(cli("memory", "list", "--memory-type", "reference", "--json"))] == [note["id"]]
    assert "memory type none" in cli("memory", "type", note["id"], "none").stdout
    refused = cli("memory", "type", note["id"], "episode", ok=False)
    assert refused.exit_code == 2 and "memory episode add" in refused.output
    assert cli("memory", "type", note["id"], "lesson", ok=False).exit_code == 2


def test_a_memory_type_change_from_the_terminal_is_undone_and_redone(cli):
    note = as_json(cli("memory", "add", "The linter is ruff", "--memory-type", "feedback", "--no-wait", "--json"))
    cli("memory", "type", note["id"], "Reference")
    assert cli("undo", "--list").stdout.startswith("Undo (next first):\n  Set memory type of “The linter is ruff” "
                                                   "to reference")
    assert cli("undo").stdout.startswith("Undo Set memory type of “The linter is ruff” to reference")
    assert as_json(cli("memory", "read", note["id"], "--json"))["memory_type"] == "feedback"
    cli("redo")
    assert as_json(cli("memory", "read", note["id"], "--json"))["memory_type"] == "reference"


def test_session_start_from_the_terminal(cli):
    cli("scope", "create", "agent/tau", "--parent", "group/default")
    cli("memory", "add", "Always run the linter first", "--memory-type", "feedback", "--scope", "group/default",
        "--no-wait")
    decision = as_json(cli("memory", "add", "Architecture decision: SQLite holds the documents", "--memory-type",
                           "project", "--scope", "project/inbox", "--no-wait", "--json"))
    cli("memory", "add", "Current work: the importer", "--memory-type", "project", "--scope", "agent/tau", "--no-wait")
    shown = cli("memory", "session-start", "--agent", "agent/tau", "--project", "project/inbox").stdout
    assert shown.startswith("# Session start: agent/tau on project/inbox")
    assert f"- `{decision['id']}` project: Architecture decision: SQLite holds the documents" in shown
    assert "## Conventions (`group/default`)" in shown and "## Agent state (`agent/tau`)" in shown
    found = as_json(cli("memory", "session-start", "-a", "agent/tau", "-p", "project/inbox", "--budget", "300",
                        "--json"))
    assert [s["namespace"] for s in found["sections"]] == ["group/default", "project/inbox", "agent/tau"]
    assert found["tokens"] <= found["token_budget"] == 300
    not_agent = cli("memory", "session-start", "--agent", "project/inbox", "--project", "project/inbox", ok=False)
    assert not_agent.exit_code == 2 and "not an agent scope" in not_agent.output
    small = cli("memory", "session-start", "--agent", "agent/tau", "--project", "project/inbox", "--budget", "10",
                ok=False)
    assert small.exit_code == 2 and "give at least" in small.output
