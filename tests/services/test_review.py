"""The review queue: requests from rules, think processes and "publish", approve / reject (bulk, to another
scope, with edits, as an update), the per-scope rules and auto-approve, sibling results, the audit trail."""

import sqlite3

import pytest

from tests.store.schemas import downgrade_to_schema_1
from vancetope_desktop.agents.task_tree import memory_store_result
from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.errors import InvalidInput, NotFound, ScopeError
from vancetope_desktop.core.promotion import RequesterKind, RequestStatus
from vancetope_desktop.core.relations import RelationType
from vancetope_desktop.services import (
    audit,
    documents,
    graph,
    indexing,
    moves,
    promotion_rules,
    review,
    scopes,
    search,
    sharing,
)
from vancetope_desktop.services import tags as tags_service
from vancetope_desktop.services.library import Library
from vancetope_desktop.store import tables

G, P, S, TP12, TP13 = "group/default", "project/inbox", "session/s1", "think-process/tp_12", "think-process/tp_13"


@pytest.fixture
def tree(library):
    """group/default > project/inbox > session/s1 > tp_12 (Paper Analysis), tp_13 (Hypothesis Check)."""
    scopes.create_scope(library, "session", "s1", parent=P)
    scopes.create_scope(library, "think-process", "tp_12", parent=S, name="Paper Analysis")
    scopes.create_scope(library, "think-process", "tp_13", parent=S, name="Hypothesis Check")
    return library


def _result(lib, node, text, **kwargs):
    return memory_store_result(lib, node, "extract", f"Extraction {node}", text, think_process_id="tp_12", **kwargs)


def test_rule_request_approve_then_a_sibling_finds_it_through_the_project(tree):
    doc = _result(tree, "n1", "Flash attention reorders the computation to avoid reading HBM twice.",
                  tags=["#Project-Relevant"])
    [request] = review.list_requests(tree)
    assert (request.document_id, request.source_scope, request.target_scope) == (doc.id, TP12, P)
    assert (request.requester, request.requested_by, request.think_process) == (
        RequesterKind.RULE, "rule:project-relevant", TP12)
    assert review.pending_count(tree) == 1
    assert documents.get_document(tree, doc.id).scope == TP12  # a rule asks; it does not move silently
    indexing.try_drain(tree)
    query = "avoid reading HBM twice"
    assert doc.id not in [h.document.id for h in search.search(tree, query, scope=TP13).hits]

    [approved] = review.approve(tree, [request.id], reason="useful for everyone")
    assert (approved.status, approved.final_scope, approved.decision_reason) == (
        RequestStatus.APPROVED, P, "useful for everyone")
    assert approved.decided_by.startswith("user:") and review.pending_count(tree) == 0
    indexing.try_drain(tree)
    hits = search.search(tree, query, scope=TP13).hits
    assert hits[0].document.id == doc.id and hits[0].document.scope == P
    actions = [(e.action, e.actor.split(":")[0]) for e in audit.document_history(tree, doc.id)]
    assert actions == [("request", "rule"), ("promote", "user"), ("approve", "user")]
    with pytest.raises(InvalidInput, match="is approved"):
        review.approve(tree, [request.id])


def test_reject_leaves_the_document_and_keeps_the_reason(tree):
    doc = _result(tree, "n1", "A weak claim.")
    request = review.request_promotion(tree, doc.id, requested_by=TP12, reason="might help")
    assert request.requester is RequesterKind.THINK_PROCESS
    with pytest.raises(InvalidInput, match="reason"):
        review.reject(tree, [request.id], reason="  ")
    [rejected] = review.reject(tree, [request.id], reason="not supported by the papers")
    assert (rejected.status, rejected.decision_reason) == (RequestStatus.REJECTED, "not supported by the papers")
    assert documents.get_document(tree, doc.id).scope == TP12
    assert audit.document_history(tree, doc.id)[-1].reason == "not supported by the papers"
    assert [r.id for r in review.list_requests(tree, status=RequestStatus.REJECTED)] == [request.id]
    assert [r.id for r in review.list_requests(tree, status=None, document_id=doc.id)] == [request.id]
    again = review.request_promotion(tree, doc.id, reason="second try")
    assert again.id != request.id  # a rejected request does not block a new one


def test_bulk_is_all_or_nothing_and_approve_to_another_scope(tree):
    a, b, c = (_result(tree, n, f"Result {n}.") for n in ("n1", "n2", "n3"))
    ra, rb, rc = (review.request_promotion(tree, d.id, reason="x").id for d in (a, b, c))
    review.reject(tree, [rc], reason="no")
    with pytest.raises(InvalidInput, match=f"{rc} is rejected"):
        review.approve(tree, [ra, rb, rc])
    assert {documents.get_document(tree, d.id).scope for d in (a, b)} == {TP12}
    with pytest.raises(ScopeError):
        review.approve(tree, [ra], to=TP13)
    with pytest.raises(NotFound):
        review.approve(tree, ["req_nope"])
    decided = review.approve(tree, [ra, rb], to="session")
    assert [r.final_scope for r in decided] == [S, S]
    assert {documents.get_document(tree, d.id).scope for d in (a, b)} == {S}


def test_edit_then_approve(tree):
    doc = _result(tree, "n1", "Notes on FlashAttention.", tags=["draft"])
    request = review.request_promotion(tree, doc.id, reason="x")
    with pytest.raises(InvalidInput, match="one request"):
        review.approve(tree, [request.id, request.id + "x"], title="T")
    review.approve(tree, [request.id], title="FlashAttention: IO-aware exact attention", add_tags=["attention"],
                   remove_tags=["draft"])
    after = documents.get_document(tree, doc.id)
    assert after.title == "FlashAttention: IO-aware exact attention" and after.scope == P
    assert "attention" in after.tags and "draft" not in after.tags
    assert [v.reason for v in documents.list_versions(tree, doc.id)] == [f"edited in review ({request.id})"]


def test_a_re_run_result_updates_the_promoted_document(tree):
    first = _result(tree, "n1", "Version one of the extraction.")
    review.approve(tree, [review.request_promotion(tree, first.id, reason="x").id])
    rerun = _result(tree, "n1", "Version two of the extraction, with the HBM numbers.", tags=["hbm"])
    assert rerun.id != first.id and rerun.scope == TP12
    check = documents.add_text(tree, "HBM numbers checked against the paper.", scope=TP12)
    graph.relate(tree, check.id, rerun.id, "supports", scope=TP12)
    request = review.request_promotion(tree, rerun.id, requested_by=TP12, reason="re-ran node n1")
    assert request.updates == first.id
    review.approve(tree, [request.id])
    updated = documents.get_document(tree, first.id)
    assert updated.content == "Version two of the extraction, with the HBM numbers." and updated.scope == P
    assert "hbm" in updated.tags
    assert documents.read_version(tree, first.id, 1).content == "Version one of the extraction."
    assert documents.get_document(tree, rerun.id).status == DocumentStatus.DELETED
    assert [e.action for e in audit.document_history(tree, first.id)][-1] == "update"
    assert [d.id for d in graph.relations_of(tree, first.id, TP12).incoming[RelationType.SUPPORTS]] == [check.id]


def test_publish_requests_every_result_once(tree):
    results = [_result(tree, n, f"Result {n}.") for n in ("n1", "n2")]
    documents.add_text(tree, "A private note", doc_type=DocumentType.NOTE, scope=TP12)
    requests = review.publish_think_process(tree, TP12)
    assert [r.document_id for r in requests] == [d.id for d in results]
    assert {r.target_scope for r in requests} == {P}
    assert [r.id for r in review.publish_think_process(tree, TP12)] == [r.id for r in requests]  # no duplicates
    with pytest.raises(InvalidInput, match="not a think process"):
        review.publish_think_process(tree, S)
    with pytest.raises(InvalidInput, match="no results"):
        review.publish_think_process(tree, TP13)


def test_rules_per_scope_inherited_switched_off_and_auto_approved(tree):
    assert [(r.tag, r.target, r.auto_approve) for r in promotion_rules.effective_rules(tree, TP12)] == [
        ("project-relevant", "project", False)]
    promotion_rules.set_rule(tree, S, "#Verified", target="session", auto_approve=True)
    rule = {r.tag: r for r in promotion_rules.effective_rules(tree, TP12)}["verified"]
    assert (rule.target, rule.auto_approve, rule.defined_in) == ("session", True, S)
    assert "verified" not in {r.tag for r in promotion_rules.effective_rules(tree, P)}  # only below the session

    auto = _result(tree, "n1", "Checked twice.", tags=["verified"])
    assert documents.get_document(tree, auto.id).scope == S  # approved by the rule's setting
    [decided] = review.list_requests(tree, status=RequestStatus.APPROVED)
    assert decided.decided_by == "rule:verified"

    promotion_rules.remove_rule(tree, TP12, "project-relevant")
    quiet = _result(tree, "n2", "Kept here.", tags=["project-relevant"])
    assert review.list_requests(tree) == []
    promotion_rules.reset_rule(tree, TP12, "project-relevant")
    documents.tag_document(tree, quiet.id, add=["project-relevant/methods"])  # a tag below the rule's tag
    assert [r.document_id for r in review.list_requests(tree)] == [quiet.id]


def test_moving_by_hand_keeps_a_request_still_above_and_withdraws_one_reached(tree):
    doc = _result(tree, "n1", "Text.")
    request = review.request_promotion(tree, doc.id, reason="x")
    moves.move_to_scope(tree, doc.id, "session")
    still = review.get_request(tree, request.id)
    assert (still.status, still.source_scope, still.target_scope) == (RequestStatus.PENDING, S, P)
    moves.move_to_scope(tree, doc.id, "project")
    withdrawn = review.get_request(tree, request.id)
    assert (withdrawn.status, withdrawn.final_scope) == (RequestStatus.WITHDRAWN, P)
    with pytest.raises(InvalidInput, match="withdrawn"):
        review.approve(tree, [request.id])


def test_approving_an_update_to_a_scope_above_the_earlier_copy_keeps_one_copy(tree):
    first = _result(tree, "n1", "Version one.")
    review.approve(tree, [review.request_promotion(tree, first.id, "session", reason="x").id])
    rerun = _result(tree, "n1", "Version two.")
    request = review.request_promotion(tree, rerun.id, "session", reason="re-ran")
    assert request.updates == first.id
    [decided] = review.approve(tree, [request.id], to="project")
    assert decided.final_scope == P
    updated = documents.get_document(tree, first.id)
    assert (updated.scope, updated.content) == (P, "Version two.")
    assert documents.get_document(tree, rerun.id).status is DocumentStatus.DELETED
    copies = [d for d in documents.list_documents(tree, scope=TP12) if d.source.node_id == "n1"]
    assert [d.id for d in copies] == [first.id]


def test_requests_are_refused_where_they_make_no_sense(tree):
    doc = _result(tree, "n1", "Text.")
    with pytest.raises(ScopeError):
        review.request_promotion(tree, doc.id, TP13)
    with pytest.raises(ScopeError):
        review.request_promotion(tree, documents.add_text(tree, "x", scope=P).id, "project")
    documents.set_status(tree, doc.id, DocumentStatus.DELETED)
    with pytest.raises(InvalidInput, match="trash"):
        review.request_promotion(tree, doc.id)


def test_sibling_results_setting_changes_search_and_reading(tree):
    result = _result(tree, "n1", "Counterarguments: sparse attention loses long-range recall.")
    note = documents.add_text(tree, "Private musing about sparse attention recall.", doc_type=DocumentType.NOTE,
                              scope=TP12)
    indexing.try_drain(tree)
    query = "sparse attention long-range recall"
    assert search.search(tree, query, scope=TP13).hits == []
    assert sharing.read_grant(tree, TP13, result) is None

    info = scopes.set_sibling_results_visible(tree, TP13, True)
    assert info.sibling_results_visible
    hits = search.search(tree, query, scope=TP13).hits
    assert [h.document.id for h in hits] == [result.id]  # its results, not its notes
    assert hits[0].scope_weight == pytest.approx(0.8)
    assert sharing.read_grant(tree, TP13, result) is sharing.ReadGrant.SIBLING
    assert sharing.read_grant(tree, TP13, note) is None
    assert search.search(tree, query, scope=TP12).hits[0].document.id in {result.id, note.id}
    with pytest.raises(InvalidInput, match="not a think process"):
        scopes.set_sibling_results_visible(tree, S, True)
    scopes.set_sibling_results_visible(tree, TP13, False)
    assert search.search(tree, query, scope=TP13).hits == []


def test_a_version_1_library_gains_the_review_tables(tmp_path):
    path = tmp_path / "lib"
    Library.open(path).close()
    downgrade_to_schema_1(path / "library.sqlite")
    with Library.open(path) as lib:
        assert review.pending_count(lib) == 0
    with sqlite3.connect(path / "library.sqlite") as con:
        assert con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] == str(
            tables.SCHEMA_VERSION)


def test_trashing_a_document_withdraws_its_pending_request(tree):
    doc = _result(tree, "n1", "Text.")
    request = review.request_promotion(tree, doc.id, reason="x")
    documents.set_status(tree, doc.id, DocumentStatus.DELETED)
    withdrawn = review.get_request(tree, request.id)
    assert (withdrawn.status, withdrawn.decision_reason) == (RequestStatus.WITHDRAWN, "moved to the trash")
    assert review.pending_count(tree) == 0


def test_a_second_request_to_another_target_is_refused_and_publish_keeps_it(tree):
    doc = _result(tree, "n1", "Text.")
    first = review.request_promotion(tree, doc.id, "session", reason="for the session")
    assert review.request_promotion(tree, doc.id, "session", reason="again").id == first.id
    with pytest.raises(InvalidInput, match=f"already waits for review to {S} \\({first.id}\\)"):
        review.request_promotion(tree, doc.id, "project", reason="for the project")
    other = _result(tree, "n2", "Other.")
    published = review.publish_think_process(tree, TP12)
    assert {r.document_id: r.target_scope for r in published} == {doc.id: S, other.id: P}


def test_rules_refuse_targets_no_document_could_reach(tree):
    scopes.create_scope(tree, "project", "other", parent=G)
    for target in ("project/other", TP12, "think-process"):
        with pytest.raises(ScopeError):
            promotion_rules.set_rule(tree, S, "x", target=target)
    with pytest.raises(ScopeError, match="no session"):
        promotion_rules.set_rule(tree, P, "x", target="session")
    assert promotion_rules.set_rule(tree, S, "x", target="session").target == "session"  # for its think processes
    with pytest.raises(InvalidInput, match="no setting of its own"):
        promotion_rules.reset_rule(tree, TP12, "never-set")


def test_approving_records_the_reviewer_not_the_requester_as_the_reason(tree):
    doc = _result(tree, "n1", "Text.", tags=["project-relevant"])
    [request] = review.list_requests(tree)
    review.approve(tree, [request.id])
    promote = next(e for e in audit.document_history(tree, doc.id) if e.action == "promote")
    assert promote.actor.startswith("user:") and promote.reason == f"approving {request.id}"
    assert review.get_request(tree, request.id).document_type is DocumentType.RESULT


def test_sibling_results_are_listed_and_tagged_too(tree):
    result = _result(tree, "n1", "Shared finding.", tags=["finding"])
    documents.add_text(tree, "Private", doc_type=DocumentType.NOTE, scope=TP12, tags=["private"])
    assert result.id not in {d.id for d in documents.list_documents(tree, scope=TP13)}
    scopes.set_sibling_results_visible(tree, TP13, True)
    listed = {d.id: d for d in documents.list_documents(tree, scope=TP13)}
    assert result.id in listed and all(d.type is not DocumentType.NOTE for d in listed.values())
    tags = {t.tag for t in tags_service.list_tags(tree, scope=TP13)}
    assert "finding" in tags and "private" not in tags
