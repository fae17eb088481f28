"""`memory relate / relations / restore / conflicts / settle` (issue 12): the graph services from the terminal,
with exit codes for the typed errors."""

import json


def _add(cli, text):
    return json.loads(cli("memory", "add", text, "--type", "note", "--no-wait", "--json").output)["id"]


def test_relate_list_restore_and_settle_from_the_terminal(cli):
    old, new = _add(cli, "Colours use hex codes"), _add(cli, "Colours use OKLCH tokens")
    shown = cli("memory", "relate", new, old, "--type", "updates").output
    assert f"{new} updates {old}; archived {old}" in shown
    listed = json.loads(cli("memory", "relations", old, "--json").output)
    assert [d["id"] for d in listed["incoming"]["updates"]] == [new]
    assert "updated by" in cli("memory", "relations", old).output
    assert cli("memory", "relate", old, new, "--type", "updates", ok=False).exit_code == 2  # a cycle
    assert cli("memory", "relate", new, "doc_missing", "--type", "cites", ok=False).exit_code == 3
    bad = cli("memory", "relate", new, old, "--type", "likes", ok=False)
    assert bad.exit_code == 2 and "unknown relation type" in bad.output
    assert json.loads(cli("memory", "restore", old, "--json").output)[0]["status"] == "active"
    cli("memory", "relate", old, new, "--type", "contradicts")
    assert "contradicts" in cli("memory", "conflicts").output
    assert f"archived {old}" in cli("memory", "settle", new, old).output
    assert "No open conflicts." in cli("memory", "conflicts").output


def test_memory_add_can_relate_and_refuse_a_twin(cli):
    old = _add(cli, "Colours use hex codes")
    out = cli("memory", "add", "Colours use OKLCH tokens", "--type", "note", "--no-wait", "--relates-to", old,
              "--relation", "updates").output
    assert f"updates {old} (archived)" in out
    assert cli("memory", "add", "x", "--relates-to", old, "--no-wait", ok=False).exit_code == 2
    held = json.loads(cli("memory", "add", "Colours use OKLCH tokens", "--type", "note", "--no-wait",
                          "--on-duplicate", "return", "--json").output)
    assert held["stored"] is False and held["duplicates"][0]["similarity"] == 1.0
