"""`vancetope review …`, `memory publish/promote/demote/request/history`, `scope rules/rule/siblings` (issue 4).

Typer's runner in-process on a real library (the ``library`` fixture's folder, passed as ``--library``).
"""

import json

import pytest
from typer.testing import CliRunner

from vancetope_desktop.agents import task_tree
from vancetope_desktop.cli.main import app
from vancetope_desktop.core.documents import DocumentStatus
from vancetope_desktop.services import audit, documents, review, scopes

TP12, TP13, TP31 = "think-process/tp_12", "think-process/tp_13", "think-process/tp_31"


@pytest.fixture
def library(each_library):
    """Embedded, then a team library (``tests/conftest.py``'s ``each_library``): promotion's SQL runs on both."""
    return each_library


@pytest.fixture
def cli(library):
    runner = CliRunner()

    def invoke(*args, code=0):
        result = runner.invoke(app, [*args, "--library", str(library.paths.root)])
        assert result.exit_code == code, result.output + str(result.exception)
        return result

    return invoke


@pytest.fixture
def results(library):
    """project/inbox > session/s1 > tp_12 ("Paper Analysis", two results, n2 derived from n1) and tp_13;
    project/other > session/o1 > tp_31 on another branch. Returns (n1 id, n2 id)."""
    scopes.create_scope(library, "session", "s1", parent="project/inbox")
    scopes.create_scope(library, "think-process", "tp_12", parent="session/s1", name="Paper Analysis")
    scopes.create_scope(library, "think-process", "tp_13", parent="session/s1")
    scopes.create_scope(library, "project", "other", parent="group/default")
    scopes.create_scope(library, "session", "o1", parent="project/other")
    scopes.create_scope(library, "think-process", "tp_31", parent="session/o1")
    n1 = task_tree.memory_store_result(library, "n1", "extract", "Claims of paper A",
                                       "Sparse attention keeps recall.\nIt halves memory.", think_process_id="tp_12")
    n2 = task_tree.memory_store_result(library, "n2", "analyze", "Analysis of the claims", "The claims hold.",
                                       [n1.id], think_process_id="tp_12")
    return n1.id, n2.id


def as_json(result):
    return json.loads(result.stdout)


def publish(cli) -> dict[str, str]:
    """Publish tp_12's results; document id → request id."""
    made = as_json(cli("memory", "publish", TP12, "--json"))
    return {r["document_id"]: r["id"] for r in made}


def test_publish_list_and_show(cli, results):
    n1, n2 = results
    requests = publish(cli)
    assert set(requests) == {n1, n2} and all(r.startswith("req_") for r in requests.values())
    listed = as_json(cli("review", "list", "--json"))
    assert [r["id"] for r in listed] == [requests[n1], requests[n2]]  # oldest first
    assert {(r["target_scope"], r["think_process"], r["status"]) for r in listed} == {
        ("project/inbox", TP12, "pending")}

    human = cli("review", "list").stdout
    assert "Paper Analysis (think-process/tp_12)" in human  # grouped by think process
    assert requests[n1] in human and requests[n2] in human and "2 pending" in human

    shown = as_json(cli("review", "show", requests[n2], "--json"))
    assert shown["request"]["id"] == requests[n2]
    assert shown["document"]["title"] == "Analysis of the claims" and shown["document"]["scope"] == TP12
    assert shown["derived_from"] == [{"id": n1, "title": "Claims of paper A"}]
    assert shown["updates"] is None and shown["diff"] is None
    assert [e["action"] for e in shown["history"]] == ["request"]
    text = cli("review", "show", requests[n2]).stdout
    assert "source node: n2 (analyze) of think process tp_12" in text
    assert f"derived from: {n1} (Claims of paper A)" in text
    assert "#analysis" in text and "The claims hold." in text

    again = publish(cli)  # pending requests are kept, not doubled
    assert again == requests and len(as_json(cli("review", "list", "--json"))) == 2
    assert "no promotion request req_nope" in cli("review", "show", "req_nope", code=3).stderr
    assert "has no results" in cli("memory", "publish", TP13, code=2).stderr
    assert "not a think process" in cli("memory", "publish", "session/s1", code=2).stderr


def test_approve_to_the_target_or_another_scope_with_edits(cli, library, results):
    n1, n2 = results
    requests = publish(cli)
    approved = as_json(cli("review", "approve", requests[n1], "--note", "checked against the paper", "--json"))
    assert approved[0]["status"] == "approved" and approved[0]["final_scope"] == "project/inbox"
    assert approved[0]["decision_reason"] == "checked against the paper"
    assert documents.get_document(library, n1).scope == "project/inbox"

    text = cli("review", "approve", requests[n2], "--to", "session", "--title", "Claims hold",
               "--tag", "verified", "--untag", "analysis").stdout
    assert f"approved {requests[n2]}: Claims hold ({n2}) moved to session/s1" in text
    doc = documents.get_document(library, n2)
    assert (doc.scope, doc.title) == ("session/s1", "Claims hold")
    assert "verified" in doc.tags and "analysis" not in doc.tags

    assert as_json(cli("review", "list", "--json")) == []
    assert "No pending requests." in cli("review", "list").stdout
    decided = as_json(cli("review", "list", "--status", "approved", "--json"))
    assert {r["id"] for r in decided} == set(requests.values())
    assert f"{requests[n1]} is approved" in cli("review", "approve", requests[n1], code=2).stderr


def test_reject_needs_a_reason_and_leaves_the_document(cli, library, results):
    n1, _ = results
    request = publish(cli)[n1]
    for missing in ([], ["--reason", "  "]):
        result = cli("review", "reject", request, *missing, code=2)
        assert 'give a reason: review reject REQ… --reason "…"' in result.stderr
    assert review.get_request(library, request).status.value == "pending"

    rejected = as_json(cli("review", "reject", request, "--reason", "the recall claim is not in the paper",
                           "--json"))
    assert (rejected[0]["status"], rejected[0]["decision_reason"]) == (
        "rejected", "the recall claim is not in the paper")
    assert documents.get_document(library, n1).scope == TP12
    assert [r["id"] for r in as_json(cli("review", "list", "--status", "rejected", "--json"))] == [request]
    assert len(as_json(cli("review", "list", "--status", "all", "--json"))) == 2

    history = as_json(cli("memory", "history", n1, "--scope", TP12, "--json"))
    assert [(e["action"], e["reason"]) for e in history["entries"]][-1] == (
        "reject", "the recall claim is not in the paper")
    assert [(r["id"], r["status"]) for r in history["requests"]] == [(request, "rejected")]
    text = cli("memory", "history", n1, "--scope", TP12).stdout
    assert "reject" in text and f"{request}: rejected" in text


def test_bulk_decisions_are_all_or_none(cli, library, results):
    n1, n2 = results
    requests = publish(cli)
    cli("review", "reject", requests[n2], "--reason", "not yet")
    result = cli("review", "approve", requests[n1], requests[n2], code=2)
    assert f"{requests[n2]} is rejected" in result.stderr
    assert documents.get_document(library, n1).scope == TP12  # nothing moved

    both = publish(cli)  # a rejected result may be asked for again
    assert both[n1] == requests[n1] and both[n2] != requests[n2]
    rejected = as_json(cli("review", "reject", *both.values(), "--reason", "duplicates", "--json"))
    assert [r["status"] for r in rejected] == ["rejected", "rejected"]
    assert "no promotion request req_x" in cli("review", "reject", "req_x", "--reason", "x", code=3).stderr

    third = publish(cli)
    assert "one request, not several" in cli("review", "approve", *third.values(), "--title", "T", code=2).stderr
    approved = as_json(cli("review", "approve", *third.values(), "--json"))
    assert {r["final_scope"] for r in approved} == {"project/inbox"}
    assert {documents.get_document(library, d).scope for d in (n1, n2)} == {"project/inbox"}


def test_refusal_across_branches(cli, library, results):
    n1, _ = results
    request = publish(cli)[n1]
    result = cli("review", "approve", request, "--to", "project/other", code=2)
    assert "not on the branch" in result.stderr
    assert review.get_request(library, request).status.value == "pending"
    assert "not on the branch" in cli("memory", "promote", n1, "--to", "project/other", "--scope", TP12,
                                      code=2).stderr
    assert "not on the branch" in cli("memory", "publish", TP12, "--to", "project/other", code=2).stderr
    other = documents.add_text(library, "A note of another project", scope=TP31)
    assert "not on the branch" in cli("memory", "request", other.id, "--to", "project/inbox", "--scope", TP31,
                                      "--reason", "mine", code=2).stderr
    assert cli("review", "approve", request, "--to", TP13, code=2)  # not above the document either
    assert documents.get_document(library, n1).scope == TP12


def test_promote_and_demote_several_with_a_reason(cli, library, results):
    n1, n2 = results
    moved = as_json(cli("memory", "promote", n1, n2, "--to", "project", "--reason", "the project needs them",
                        "--scope", TP12, "--json"))
    assert [d["id"] for d in moved["moved"]] == [n1, n2]
    assert moved["gains"] == ["project/inbox", "session/s1", TP13] and moved["loses"] == []
    last = audit.document_history(library, n2)[-1]
    assert (last.action, last.reason, last.to_scope) == ("promote", "the project needs them", "project/inbox")

    text = cli("memory", "demote", n1, n2, "--to", "session/s1", "--reason", "too early").stdout
    assert "demoted 2 document(s) to session/s1" in text
    assert "no longer seen from: project/inbox" in text and "now also seen from: nobody" in text

    group_note = documents.add_text(library, "A group-wide note", scope="group/default")
    own = documents.add_text(library, "A note of tp_12", scope=TP12)
    result = cli("memory", "demote", group_note.id, own.id, "--to", "session/s1", "--scope", TP12, code=2)
    assert "promotion, not a demotion" in result.stderr
    assert documents.get_document(library, group_note.id).scope == "group/default"  # all or none
    assert cli("memory", "promote", n1, "--to", "project", "--scope", TP13, code=0)  # tp_13 sees session/s1
    assert cli("memory", "promote", own.id, "--to", "project", "--scope", TP13, code=4)  # not a sibling's


def test_memory_request_by_the_user(cli, library, results):
    n1, _ = results
    result = cli("memory", "request", n1, "--scope", TP12, code=2)
    assert "give a reason: memory request" in result.stderr
    made = as_json(cli("memory", "request", n1, "--to", "session", "--reason", "for the session", "--scope", TP12,
                       "--json"))
    assert (made["target_scope"], made["requested_by"], made["requester"]) == (
        "session/s1", audit.current_user(), "user")
    assert [r["id"] for r in as_json(cli("review", "list", "--json"))] == [made["id"]]
    assert cli("memory", "request", n1, "--reason", "again", "--scope", TP13, code=4)  # a sibling's document


def test_the_acting_scope_manages_its_whole_subtree(cli, library, results):
    """The current scope is the project (as after the demo install): its think processes' results can be
    requested, traced, promoted, demoted and published from there; only another branch is refused."""
    n1, n2 = results
    assert as_json(cli("scope", "list", "--json"))["current"] == "project/inbox"
    made = as_json(cli("memory", "request", n1, "--reason", "for the project", "--json"))
    assert (made["document_id"], made["target_scope"]) == (n1, "project/inbox")
    history = as_json(cli("memory", "history", n1, "--json"))
    assert [e["action"] for e in history["entries"]] == ["request"] and history["requests"][0]["id"] == made["id"]
    moved = as_json(cli("memory", "promote", n2, "--to", "project", "--reason", "ready", "--json"))
    assert moved["moved"][0]["scope"] == "project/inbox"
    cli("memory", "demote", n2, "--to", TP12, "--reason", "not yet")
    assert documents.get_document(library, n2).scope == TP12
    assert [r["document_id"] for r in as_json(cli("memory", "publish", TP12, "--json"))] == [n1, n2]
    assert cli("memory", "read", n1, code=4)  # reading keeps the visibility rule: the project does not see it

    other = documents.add_text(library, "A note of another project", scope=TP31)
    for args in (("promote", other.id, "--to", "project"), ("request", other.id, "--reason", "mine"),
                 ("history", other.id), ("demote", other.id, "--to", TP31), ("publish", TP31)):
        refused = cli("memory", *args, code=4).stderr
        assert "on another branch than the acting scope project/inbox" in refused
        assert f"--scope {TP31}" in refused and f"scope use {TP31}" in refused
        assert "memory share" not in refused
    assert documents.get_document(library, other.id).scope == TP31
    assert cli("memory", "history", other.id, "--scope", TP31)  # from its own branch it works
    assert "--scope think-process/tp_12" in cli("memory", "promote", n1, "--to", "session", "--scope", TP13,
                                                code=4).stderr  # a sibling think process is another branch


def test_update_of_an_earlier_result_shows_a_diff(cli, library, results):
    n1, _ = results
    cli("review", "approve", publish(cli)[n1])
    rerun = task_tree.memory_store_result(library, "n1", "extract", "Claims of paper A",
                                          "Sparse attention keeps recall.\nIt cuts memory by 60%.",
                                          think_process_id="tp_12")
    assert rerun.id != n1 and rerun.scope == TP12
    request = publish(cli)[rerun.id]
    shown = as_json(cli("review", "show", request, "--json"))
    assert shown["request"]["updates"] == n1 and shown["updates"]["id"] == n1
    assert "-It halves memory." in shown["diff"] and "+It cuts memory by 60%." in shown["diff"]
    text = cli("review", "show", request).stdout
    assert f"updates {n1} (Claims of paper A) in project/inbox" in text and "+It cuts memory by 60%." in text

    assert f"new version of {n1}" in cli("review", "approve", request).stdout
    assert documents.get_document(library, n1).content == "Sparse attention keeps recall.\nIt cuts memory by 60%."


def test_rules(cli, library, results):
    n1, _ = results
    rules = as_json(cli("scope", "rules", TP12, "--json"))
    assert rules == {"scope": TP12, "switched_off": {}, "rules": [
        {"tag": "project-relevant", "target": "project", "auto_approve": False, "defined_in": None}]}
    assert "built in" in cli("scope", "rules", TP12).stdout

    rule = as_json(cli("scope", "rule", "set", "#Verified", "--scope", "session/s1", "--auto-approve", "--json"))
    assert rule == {"tag": "verified", "target": "project", "auto_approve": True, "defined_in": "session/s1"}
    cli("memory", "tag", n1, "--add", "verified", "--scope", TP12)
    assert documents.get_document(library, n1).scope == "project/inbox"  # approved by the rule at once
    assert review.list_requests(library, status=None)[0].requested_by == "rule:verified"

    off = as_json(cli("scope", "rule", "off", "project-relevant", "--scope", "project/inbox", "--json"))
    assert [r["tag"] for r in off] == []
    listed = as_json(cli("scope", "rules", TP12, "--json"))
    assert [r["tag"] for r in listed["rules"]] == ["verified"]
    assert listed["switched_off"] == {"project-relevant": "project/inbox"}
    assert "#project-relevant is switched off (in project/inbox" in cli("scope", "rules", TP12).stdout
    assert "nothing to switch off" in cli("scope", "rule", "off", "never-set", "--scope", TP12, code=2).stderr
    back = as_json(cli("scope", "rule", "reset", "project-relevant", "--scope", "project/inbox", "--json"))
    assert [r["tag"] for r in back] == ["project-relevant"]
    assert cli("scope", "rule", "set", "a,b", code=2)


def test_sibling_results_setting(cli, results):
    n1, _ = results
    assert cli("memory", "read", n1, "--scope", TP13, code=4)
    on = as_json(cli("scope", "siblings", TP13, "on", "--json"))
    assert on["path"] == TP13 and on["sibling_results_visible"] is True
    assert "Sparse attention keeps recall." in cli("memory", "read", n1, "--scope", TP13).stdout
    assert "does not see" in cli("scope", "siblings", TP13, "off").stdout
    assert cli("memory", "read", n1, "--scope", TP13, code=4)
    assert "not a think process" in cli("scope", "siblings", "session/s1", "on", code=2).stderr
    assert cli("scope", "siblings", TP13, "maybe", code=2)


def test_sibling_setting_is_shown_without_on_or_off(cli, results):
    assert f"{TP13} does not see the results" in cli("scope", "siblings", TP13).stdout
    assert as_json(cli("scope", "siblings", TP13, "--json"))["sibling_results_visible"] is False
    cli("scope", "siblings", TP13, "on")
    assert f"{TP13} sees the results of its sibling think processes" in cli("scope", "siblings", TP13).stdout
    assert as_json(cli("scope", "siblings", TP13, "--json"))["sibling_results_visible"] is True
    assert "not a think process" in cli("scope", "siblings", "session/s1", code=2).stderr
    assert "think-process/tp_99" in cli("scope", "siblings", "think-process/tp_99", code=3).stderr


def test_library_before_the_command(library, results, tmp_path):
    """`vancetope --library PATH review list`: the global option; a command's own --library wins."""
    runner, root = CliRunner(), str(library.paths.root)
    publish_run = runner.invoke(app, ["--library", root, "memory", "publish", TP12, "--json"])
    assert publish_run.exit_code == 0, publish_run.output
    listed = runner.invoke(app, ["--library", root, "review", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    assert {r["think_process"] for r in as_json(listed)} == {TP12}
    empty = tmp_path / "empty"
    own = runner.invoke(app, ["--library", str(empty), "review", "list", "--json", "--library", root])
    assert len(as_json(own)) == 2 and not empty.exists()
    other = runner.invoke(app, ["--library", str(empty), "review", "list", "--json"])
    assert other.exit_code == 0 and as_json(other) == [] and empty.exists()


def test_a_purged_documents_request_and_history_remain(cli, library, results):
    n1, _ = results
    request = publish(cli)[n1]
    documents.set_status(library, n1, DocumentStatus.DELETED)
    documents.purge_document(library, n1)
    shown = cli("review", "show", request).stdout
    assert f"{n1} (Claims of paper A) no longer exists" in shown
    assert as_json(cli("review", "show", request, "--json"))["document"] is None
    history = as_json(cli("memory", "history", n1, "--json"))
    assert history["entries"][0]["action"] == "request"
    assert "no document doc_000000000000" in cli("memory", "history", "doc_000000000000", code=3).stderr
