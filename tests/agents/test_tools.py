"""The Think Process memory tools (seed §6.3) and the visibility rule they enforce (seed §4.2), on a real library."""

import json
import re

import pytest

from tests.library_copies import build_template, copied_library
from vancetope_desktop.agents.models import DocumentText, PromotionRequest, QueryResult, StoredDocument
from vancetope_desktop.agents.tools import TOOLS, MemoryTools
from vancetope_desktop.core.documents import DocumentStatus
from vancetope_desktop.core.errors import (
    AccessDenied,
    DocumentNotFound,
    InvalidInput,
    ScopeError,
    ScopeNotFound,
    ScopeNotVisible,
)
from vancetope_desktop.services import (
    audit,
    documents,
    folders,
    indexing,
    promotion_rules,
    review,
    scopes,
    sharing,
)
from vancetope_desktop.services.library import Library

TP12, TP13, TP21 = "think-process/tp_12", "think-process/tp_13", "think-process/tp_21"
WORDS = {  # one distinctive word per scope, so a keyword query names the one document it should find
    "group/default": "aardvark", "group/g2": "bison", "project/inbox": "cheetah", "project/other": "dingo",
    "session/s1": "emu", "session/s2": "ferret", TP12: "gecko", TP13: "heron", TP21: "ibis",
}


def _tree(library):
    """group/default > project/inbox > session/s1 > tp_12, tp_13 and session/s2 > tp_21; project/other; group/g2.

    Each scope holds one fact stored through its own tools, mentioning that scope's word. Returns scope → doc id.
    """
    scopes.create_scope(library, "group", "g2")
    scopes.create_scope(library, "project", "other", parent="group/default")
    scopes.create_scope(library, "session", "s1", parent="project/inbox")
    scopes.create_scope(library, "session", "s2", parent="project/inbox")
    scopes.create_scope(library, "think-process", "tp_12", parent="session/s1")
    scopes.create_scope(library, "think-process", "tp_13", parent="session/s1")
    scopes.create_scope(library, "think-process", "tp_21", parent="session/s2")
    ids = {scope: MemoryTools(library, scope).memory_store(f"The {word} was observed in {scope}.", tags=["animal"],
                                                           type="fact").doc_id
           for scope, word in WORDS.items()}
    indexing.try_drain(library)
    return ids


@pytest.fixture(scope="module")
def tree_template(tmp_path_factory):
    """The tree built and embedded once for the module's embedded runs: (its closed library folder, scope → doc id)."""
    return build_template(tmp_path_factory, _tree)


@pytest.fixture(scope="module")
def team_tree_template(team_template):
    """The tree built and embedded once for the module's team runs (tests/servers.py's ``team_template``): (its
    ``TeamTemplate``, scope → doc id)."""
    return team_template(_tree)


def _is_team(request) -> bool:
    return request.node.callspec.params["library_at"] == "team"


@pytest.fixture
def library(request, tmp_path, library_at):
    """This module's ``library``, embedded then a team library (``library_at``): for a test that takes ``tree``, a
    copy of the tree built once for the module (a library folder copied; on the team side, the database's rows, the
    Chroma collections and the files copied in); otherwise a fresh library."""
    if "tree" in request.fixturenames and _is_team(request):
        template, _ = request.getfixturevalue("team_tree_template")
        with Library.open(library_at(tmp_path / "library", template)) as copy:
            yield copy
    elif "tree" in request.fixturenames:
        template, _ = request.getfixturevalue("tree_template")
        with copied_library(template, library_at(tmp_path / "library")) as copy:
            yield copy
    else:
        with Library.open(library_at(tmp_path / "library")) as fresh:
            yield fresh


@pytest.fixture
def tree(request, library):
    """The tree of ``_tree`` in ``library``: scope → the id of its fact (the ids of the template copied)."""
    return request.getfixturevalue("team_tree_template" if _is_team(request) else "tree_template")[1]


# acting scope → (its ancestors, a sibling of the same kind, a descendant's scope or None)
CASES = {
    "group/default": ([], "group/g2", TP12),
    "project/inbox": (["group/default"], "project/other", TP12),
    "session/s1": (["project/inbox", "group/default"], "session/s2", TP12),
    TP12: (["session/s1", "project/inbox", "group/default"], TP13, None),
}


@pytest.mark.parametrize("acting", list(CASES))
def test_visibility_from_every_scope_kind(library, tree, acting):
    ancestors, sibling, descendant = CASES[acting]
    tools = MemoryTools(library, acting)

    own = tools.memory_read(tree[acting])
    assert (own.access, own.scope, own.doc_id) == ("own", acting, tree[acting])
    for ancestor in ancestors:
        assert tools.memory_read(tree[ancestor]).access == "ancestor"

    listed = {d.doc_id for d in tools.memory_list().documents}
    assert listed == {tree[s] for s in [acting, *ancestors]}
    assert tools.memory_list().scopes == [acting, *ancestors]
    for scope in [acting, *ancestors]:
        hits = tools.memory_query(f"{WORDS[scope]} observed").hits
        assert hits[0].doc_id == tree[scope]
        assert {h.scope for h in hits} <= {acting, *ancestors}

    with pytest.raises(ScopeNotVisible) as refused:
        tools.memory_read(tree[sibling])
    message = str(refused.value)
    assert f"{acting} cannot read {tree[sibling]} in {sibling}" in message
    assert "sees its own memory and its ancestors', not a sibling's" in message
    assert f"vancetope memory share {tree[sibling]} --with {acting}" in message

    if descendant is not None:
        with pytest.raises(ScopeNotVisible, match="not its descendants'"):
            tools.memory_read(tree[descendant])
        assert tree[descendant] not in {h.doc_id for h in tools.memory_query(WORDS[descendant]).hits}


def test_another_sessions_think_process_is_refused_by_name(library, tree):
    with pytest.raises(ScopeNotVisible, match="not another think process's"):
        MemoryTools(library, TP21).memory_read(tree[TP12])
    with pytest.raises(ScopeNotVisible, match="not another session's"):
        MemoryTools(library, TP21).memory_list(scope="session/s1")


def test_store_query_list_read_tag_round_trip(library):
    scopes.create_scope(library, "session", "s1", parent="project/inbox")
    scopes.create_scope(library, "think-process", "tp_12", parent="session/s1")
    tools = MemoryTools(library, TP12)

    stored = tools.memory_store("FlashAttention keeps the attention matrix out of GPU main memory.",
                                tags=["#Attention", "efficiency"], type="result", title="IO-aware attention")
    assert isinstance(stored, StoredDocument) and stored.doc_id.startswith("doc_")
    assert (stored.scope, stored.type, stored.title) == (TP12, "result", "IO-aware attention")
    # The seed's provenance tag for think process output (§3.3), and the source with the think process id.
    assert stored.tags == ["attention", "efficiency", "thinkprocess:tp_12"]
    assert stored.think_process_id == "tp_12"
    indexing.try_drain(library)

    found = tools.memory_query("how does attention avoid reading GPU memory", tags=["efficiency"])
    assert isinstance(found, QueryResult)
    assert found.scopes == [TP12, "session/s1", "project/inbox", "group/default"]
    assert [h.doc_id for h in found.hits] == [stored.doc_id]
    assert "FlashAttention" in found.hits[0].snippet and found.hits[0].rank == 1
    assert tools.memory_query("attention", tags=["unrelated"]).hits == []

    listed = tools.memory_list(tags=["attention"], type="result")
    assert [d.doc_id for d in listed.documents] == [stored.doc_id] and not listed.truncated
    assert listed.documents[0].index_state == "indexed"

    read = tools.memory_read(stored.doc_id)
    assert isinstance(read, DocumentText)
    assert read.text.startswith("FlashAttention") and read.next_offset is None
    assert read.total_chars == len(read.text)

    tagged = tools.memory_tag(stored.doc_id, ["verified", "-efficiency"])
    assert tagged.tags == ["attention", "thinkprocess:tp_12", "verified"]
    assert tools.memory_tag(stored.doc_id, remove=["attention"]).tags == ["thinkprocess:tp_12", "verified"]
    assert tools.memory_read(stored.doc_id).version == 3  # each tag change keeps the previous tags as a version
    # Every state is the think process's: made by it, retagged by it (issue 17: versions record their author).
    assert [v.created_by for v in documents.list_versions(library, stored.doc_id)] == [TP12, TP12]
    assert documents.get_document(library, stored.doc_id).updated_by == TP12
    assert tools.memory_read(stored.doc_id).updated_by == TP12  # the tool face says who made the version read
    json.dumps([m.model_dump(mode="json") for m in (stored, found, listed, read, tagged)])


def test_scope_argument_narrows_reads_to_one_visible_scope(library, tree):
    tools = MemoryTools(library, TP12)
    only_project = tools.memory_list(scope="project")
    assert [d.doc_id for d in only_project.documents] == [tree["project/inbox"]]
    assert only_project.scopes == ["project/inbox"]
    assert tools.memory_list(scope=TP12).scopes == [TP12]
    hits = tools.memory_query("observed", scope="session/s1").hits
    assert [h.doc_id for h in hits] == [tree["session/s1"]]
    with pytest.raises(ScopeNotVisible, match="cannot see think-process/tp_13"):
        tools.memory_query("heron", scope=TP13)
    with pytest.raises(ScopeNotVisible, match="not its descendants'"):
        MemoryTools(library, "session/s1").memory_list(scope=TP12)
    with pytest.raises(ScopeNotFound):
        tools.memory_list(scope="project/nope")
    with pytest.raises(ScopeError):  # a kind with no scope above the acting one
        MemoryTools(library, "session/s1").memory_list(scope="think-process")


def test_shared_sibling_document_is_readable_by_id_only(library, tree):
    tp13 = MemoryTools(library, TP13)
    sharing.share_document(library, tree[TP12], TP13)

    read = tp13.memory_read(tree[TP12])
    assert (read.access, read.doc_id, read.scope) == ("shared", tree[TP12], TP12)
    assert "gecko" in read.text
    # Only an explicit reference: a share does not bring the document into listings or searches.
    assert tree[TP12] not in {d.doc_id for d in tp13.memory_list().documents}
    assert tree[TP12] not in {h.doc_id for h in tp13.memory_query("gecko observed").hits}
    with pytest.raises(AccessDenied, match="shared with it"):
        tp13.memory_tag(tree[TP12], ["seen"])
    with pytest.raises(ScopeNotVisible):  # the share is with tp_13, not with its sibling tp_21's branch
        MemoryTools(library, TP21).memory_read(tree[TP12])

    sharing.unshare_document(library, tree[TP12], TP13)
    with pytest.raises(ScopeNotVisible):
        tp13.memory_read(tree[TP12])
    sharing.share_document(library, tree[TP12], "session/s2")  # a share reaches the scopes below
    assert MemoryTools(library, TP21).memory_read(tree[TP12]).access == "shared"


def test_writes_go_to_the_own_scope_only(library, tree):
    tools = MemoryTools(library, TP12)
    assert tools.memory_store("mine", scope=TP12).scope == TP12
    assert tools.memory_store("mine too", scope="think-process").scope == TP12  # a kind: the own one
    assert tools.memory_store("mine as well").promotion_request is None
    with pytest.raises(ScopeNotVisible, match="writes only its own memory"):
        tools.memory_store("not mine", scope=TP13)
    with pytest.raises(ScopeNotVisible, match="writes only its own memory"):
        MemoryTools(library, "session/s1").memory_store("below me", scope=TP12)
    with pytest.raises(AccessDenied, match="changes only its own documents"):
        tools.memory_tag(tree["project/inbox"], ["read"])
    with pytest.raises(ScopeNotVisible):  # an unreadable document: the read rule speaks first
        tools.memory_tag(tree[TP13], ["read"])


@pytest.mark.parametrize(("scope", "target"), [("session/s1", "session/s1"), ("project", "project/inbox"),
                                               ("group/default", "group/default")])
def test_storing_for_an_ancestor_stores_here_and_asks_for_promotion(library, tree, scope, target):
    tools = MemoryTools(library, TP12)
    stored = tools.memory_store("A project-wide finding", tags=["finding"], scope=scope, reason="all sessions need it")
    assert stored.scope == TP12  # nothing lands above the think process before the user approves
    assert stored.promotion_request is not None and stored.promotion_request.startswith("req_")
    request = review.get_request(library, stored.promotion_request)
    assert (request.document_id, request.source_scope, request.target_scope) == (stored.doc_id, TP12, target)
    assert (request.requested_by, request.reason, request.status.value) == (TP12, "all sessions need it", "pending")
    assert [r.id for r in review.list_requests(library)] == [request.id]
    assert tools.memory_store("no reason given", scope="project").promotion_request is not None
    assert review.list_requests(library, document_id=tools.memory_list().documents[0].doc_id)[0].reason == \
        f"stored by {TP12} for project/inbox"


def test_tagging_by_a_rule_reports_the_request(library, tree):
    tools = MemoryTools(library, TP12)
    tagged = tools.memory_tag(tree[TP12], ["project-relevant"])  # the built-in rule asks for the project
    request = review.get_request(library, tagged.promotion_request)
    assert (request.target_scope, request.requested_by) == ("project/inbox", "rule:project-relevant")
    assert tools.memory_tag(tree[TP12], ["more"]).promotion_request == request.id  # still pending
    assert tools.memory_request_promotion(tree[TP12], "project", "again").id == request.id  # one at a time


def test_promotion_request_goes_to_the_review_queue(library, tree):
    tools = MemoryTools(library, TP12)
    request = tools.memory_request_promotion(tree[TP12], "project", " relevant to the whole project ")
    assert isinstance(request, PromotionRequest) and request.id.startswith("req_")
    assert (request.doc_id, request.source_scope, request.target_scope) == (tree[TP12], TP12, "project/inbox")
    assert (request.status, request.reason, request.requested_by) == ("pending", "relevant to the whole project", TP12)
    json.dumps(request.model_dump(mode="json"))
    queued = review.list_requests(library)
    assert [(r.id, r.requester.value, r.think_process) for r in queued] == [(request.id, "think_process", TP12)]
    assert documents.get_document(library, tree[TP12]).scope == TP12  # it moves only when the user approves
    review.approve(library, [request.id])
    assert documents.get_document(library, tree[TP12]).scope == "project/inbox"
    assert [e.action for e in audit.document_history(library, tree[TP12])] == ["request", "promote", "approve"]

    # From a session the user is the one asking (a session is not an agent).
    by_session = MemoryTools(library, "session/s1").memory_request_promotion(tree["session/s1"], "group", "why")
    assert by_session.requested_by == audit.current_user() and by_session.target_scope == "group/default"


def test_the_agent_learns_the_users_decision_and_sees_a_rejection_when_asking_again(library, tree):
    tools = MemoryTools(library, TP12)
    note = tools.memory_store("Geckos climb glass", tags=["biology"])
    first = tools.memory_request_promotion(tree[TP12], "project", "the project needs it")
    second = tools.memory_request_promotion(note.doc_id, "session", "for the session")
    assert first.previous_decision is None
    MemoryTools(library, TP13).memory_request_promotion(tree[TP13], "project", "a sibling's request")
    assert [r.id for r in tools.memory_promotion_requests().requests] == [first.id, second.id]  # ours only

    review.reject(library, [first.id], reason="the gecko is not in the project's scope")
    review.approve(library, [second.id])
    decided = {r.id: r for r in tools.memory_promotion_requests().requests}
    rejected, approved = decided[first.id], decided[second.id]
    assert (rejected.status, rejected.decision_reason) == ("rejected", "the gecko is not in the project's scope")
    assert rejected.decided_by == audit.current_user() and rejected.decided_at is not None
    assert rejected.final_scope is None and rejected.target_scope == "project/inbox"
    assert (approved.status, approved.final_scope) == ("approved", "session/s1")
    assert [r.id for r in tools.memory_promotion_requests(status="rejected").requests] == [first.id]
    assert [r.id for r in tools.memory_promotion_requests(doc_id=note.doc_id).requests] == [second.id]
    assert tools.memory_promotion_requests(doc_id=note.doc_id, status="pending").requests == []
    assert tools.memory_promotion_requests(limit=1).truncated
    assert tools.memory_promotion_requests(doc_id=tree["session/s1"]).requests == []  # readable, none asked
    with pytest.raises(ScopeNotVisible):
        tools.memory_promotion_requests(doc_id=tree[TP21])
    with pytest.raises(DocumentNotFound):
        tools.memory_promotion_requests(doc_id="doc_000000000000")
    with pytest.raises(InvalidInput, match="status"):
        tools.call("memory_promotion_requests", {"status": "maybe"})
    with pytest.raises(InvalidInput, match="document id is empty"):
        tools.memory_promotion_requests(doc_id=" ")

    again = tools.memory_request_promotion(tree[TP12], "project", "now with the project's gecko chapter")
    assert again.id != first.id and again.status == "pending"
    previous = again.previous_decision
    assert previous is not None and (previous.request_id, previous.status) == (first.id, "rejected")
    assert previous.decision_reason == "the gecko is not in the project's scope"
    assert tools.memory_request_promotion(tree[TP12], "project", "once more").previous_decision == previous


def test_asking_for_another_target_while_a_request_is_pending_is_an_error(library, tree):
    tools = MemoryTools(library, TP12)
    pending = tools.memory_request_promotion(tree[TP12], "project", "for the project")
    with pytest.raises(InvalidInput, match=pending.id) as refused:
        tools.call("memory_request_promotion", {"doc_id": tree[TP12], "to": "session", "reason": "or the session"})
    assert "project/inbox" in str(refused.value)
    assert [r.id for r in review.list_requests(library)] == [pending.id]


def test_an_auto_approving_rule_reports_its_request_and_the_new_scope(library, tree):
    promotion_rules.set_rule(library, "session/s1", "verified", auto_approve=True)
    tools = MemoryTools(library, TP12)
    tagged = tools.memory_tag(tree[TP12], ["verified"])
    assert (tagged.scope, tagged.promotion_status) == ("project/inbox", "approved")
    request = review.get_request(library, tagged.promotion_request)
    assert (request.document_id, request.requested_by, request.final_scope) == (
        tree[TP12], "rule:verified", "project/inbox")
    with pytest.raises(AccessDenied):  # moved: read-only for the think process now
        tools.memory_tag(tree[TP12], ["more"])

    stored = tools.memory_store("A verified claim", tags=["verified"], type="fact")
    assert (stored.scope, stored.promotion_status) == ("project/inbox", "approved")
    assert review.get_request(library, stored.promotion_request).document_id == stored.doc_id
    # Stored for an ancestor too: the rule's request stands for it (one request per document), no error.
    both = tools.memory_store("Another verified claim", tags=["verified"], scope="session", reason="why")
    assert (both.scope, both.promotion_status) == ("project/inbox", "approved")
    assert len(review.list_requests(library, status=None, document_id=both.doc_id)) == 1
    plain = tools.memory_store("An unverified claim", scope="session", reason="why")
    assert (plain.scope, plain.promotion_status) == (TP12, "pending")


def test_promotion_request_checks_come_first(library, tree):
    tools = MemoryTools(library, TP12)
    with pytest.raises(InvalidInput, match="not above"):
        tools.memory_request_promotion(tree[TP12], "project/other", "why not")
    with pytest.raises(InvalidInput, match="reason"):
        tools.memory_request_promotion(tree[TP12], "project", "  ")
    with pytest.raises(AccessDenied):
        tools.memory_request_promotion(tree["session/s1"], "project", "not mine")
    with pytest.raises(ScopeNotVisible):
        tools.memory_request_promotion(tree[TP13], "project", "not mine either")
    with pytest.raises(InvalidInput, match="a project group has none"):
        MemoryTools(library, "group/default").memory_request_promotion(tree["group/default"], "group/g2", "up")
    assert review.list_requests(library, status=None) == []


def test_bad_arguments_give_typed_errors(library, tree):
    tools = MemoryTools(library, TP12)
    with pytest.raises(InvalidInput, match="content is empty"):
        tools.memory_store("   \n")
    for bad_tags in (["a,b"], [""], ["topic//x"]):
        with pytest.raises(InvalidInput):
            tools.memory_store("text", tags=bad_tags)
    with pytest.raises(InvalidInput, match="tags"):
        tools.memory_store("text", tags="not-a-list")
    with pytest.raises(InvalidInput, match="type"):
        tools.memory_store("text", type="file")
    with pytest.raises(InvalidInput, match="question is empty"):
        tools.memory_query(" ")
    with pytest.raises(InvalidInput, match="limit"):
        tools.memory_list(limit=0)
    with pytest.raises(DocumentNotFound):
        tools.memory_read("doc_000000000000")
    with pytest.raises(InvalidInput):
        tools.memory_read(" ")
    with pytest.raises(InvalidInput, match="tags to add"):
        tools.memory_tag(tree[TP12])
    with pytest.raises(ScopeNotFound):
        tools.memory_store("text", scope="think-process/nope")
    with pytest.raises(ScopeNotFound):
        MemoryTools(library, "think-process/nope")
    with pytest.raises(InvalidInput):
        MemoryTools(library, "")
    with pytest.raises(InvalidInput):
        tools.memory_store("text", scope="not a path")


def test_trashed_documents_and_folders(library, tree):
    tools = MemoryTools(library, TP12)
    documents.set_status(library, tree[TP12], DocumentStatus.DELETED)
    with pytest.raises(DocumentNotFound, match="trash"):
        tools.memory_read(tree[TP12])
    folder = folders.create_folder(library, "Drafts", scope=TP12)
    with pytest.raises(InvalidInput, match="folder"):
        tools.memory_read(folder.id)
    assert folder.id not in {d.doc_id for d in tools.memory_list().documents}


def test_read_long_text_in_parts(library):
    tools = MemoryTools(library, "project/inbox")
    text = "\n\n".join(f"## Part {i}\n\n" + " ".join(["word"] * 200) for i in range(5))
    doc = tools.memory_store(text)
    assert tools.memory_read(doc.doc_id).text == text
    first = tools.memory_read(doc.doc_id, max_chars=1000)
    assert len(first.text) == 1000 and first.next_offset == 1000 and first.total_chars == len(text)
    rest = tools.memory_read(doc.doc_id, offset=first.next_offset, max_chars=10**5)
    assert first.text + rest.text == text and rest.next_offset is None


def test_index_now_and_provenance_outside_think_processes(library):
    tools = MemoryTools(library, "project/inbox", index_now=True)
    stored = tools.memory_store("Deadline is June 15th", tags=["admin"], type="fact")
    assert stored.index_state == "indexed"
    assert stored.tags == ["admin"] and stored.think_process_id is None
    assert tools.memory_query("when is the due date").hits[0].doc_id == stored.doc_id
    assert tools.memory_tag(stored.doc_id, ["deadline"]).index_state == "indexed"


def test_call_runs_a_tool_from_json_arguments(library, tree):
    tools = MemoryTools(library, TP12)
    stored = tools.call("memory_store", {"content": "Gecko feet use van der Waals forces", "tags": ["biology"]})
    assert isinstance(stored, StoredDocument)
    read = tools.call("memory_read", json.loads(json.dumps({"doc_id": stored.doc_id})))
    assert read.model_dump(mode="json")["doc_id"] == stored.doc_id
    with pytest.raises(InvalidInput, match="unknown tool"):
        tools.call("memory_delete", {})
    with pytest.raises(InvalidInput, match="Extra inputs"):
        tools.call("memory_store", {"content": "x", "tag": ["typo"]})
    with pytest.raises(InvalidInput, match="content"):
        tools.call("memory_store", {})
    with pytest.raises(InvalidInput, match="JSON object"):
        tools.call("memory_list", ["not", "an", "object"])  # type: ignore[arg-type]
    with pytest.raises(ScopeNotVisible):
        tools.call("memory_read", {"doc_id": tree[TP13]})


def test_text_that_is_not_unicode_is_refused_by_name(library, tree):
    """JSON may carry lone surrogates ("\\udce9"): every tool refuses them before the tokenizer or SQLite."""
    tools = MemoryTools(library, TP12)
    calls = [
        ("memory_query", {"question": "caf\udce9"}, "question"),
        ("memory_store", {"content": "\udcff\udcfeabc"}, "content"),
        ("memory_store", {"content": "fine", "tags": ["ok", "r\udce9sum\udce9"]}, "tags[1]"),
        ("memory_list", {"tags": ["\udce9"]}, "tags[0]"),
        ("memory_tag", {"doc_id": tree[TP12], "tags": ["\ud800"]}, "tags[0]"),
        ("memory_read", {"doc_id": "doc_\udce9"}, "doc_id"),
    ]
    for name, arguments, where in calls:
        with pytest.raises(InvalidInput, match=rf"{re.escape(where)}: not valid UTF-8 text"):
            tools.call(name, arguments)
    with pytest.raises(InvalidInput, match=r"caf\\xe9"):
        tools.memory_query("caf\udce9")
    assert {d.doc_id for d in tools.memory_list().documents} == {tree[s] for s in tools.readable_scopes}  # none new


def test_tool_specs_have_json_schemas_with_descriptions():
    assert [t.name for t in TOOLS] == ["memory_store", "memory_query", "memory_recall", "memory_session_start",
                                       "memory_store_episode", "memory_list", "memory_read",
                                       "memory_annotations", "memory_tag", "memory_request_promotion", "memory_cite",
                                       "memory_promotion_requests", "memory_duplicates", "memory_links",
                                       "memory_relate", "memory_relations", "memory_neighbourhood", "memory_restore",
                                       "memory_set_reading_status", "atoms_list", "atoms_extract",
                                       "atoms_files_setting", "plan_update", "plan_happened", "digest_run",
                                       "digest_show", "memory_profile", "topics_browse", "topics_edit",
                                       "topics_rebuild", "topics_search", "chat_append", "chat_pin", "chat_compose",
                                       "chat_compact", "chat_compact_range", "chat_history", "chat_import",
                                       "chat_parent"]
    for spec in TOOLS:
        assert hasattr(MemoryTools, spec.name) and spec.description
        schema = spec.input_model.model_json_schema()
        json.dumps(schema)
        json.dumps(spec.output_model.model_json_schema())
        assert schema["additionalProperties"] is False
        assert all(field.get("description") for field in schema["properties"].values()), spec.name
    assert TOOLS[0].input_model.model_json_schema()["required"] == ["content"]


def test_query_hits_say_what_matched_and_how_they_scored(library, tree):
    hit = MemoryTools(library, TP12).memory_query("aardvark observed").hits[0]
    assert hit.doc_id == tree["group/default"] and hit.matched == ["aardvark", "observed"]
    assert 0 < hit.meaning <= 1 and 0 < hit.keywords <= 1 and 0 < hit.relevance <= 1  # the copy has its vectors
    assert hit.scope_weight < 1 and hit.score == pytest.approx(hit.relevance * hit.scope_weight)
    assert "matched aardvark, observed" in hit.why and "scope weight" in hit.why


def test_stale_results_stay_listed_and_found_with_their_status(library, tree):
    tools = MemoryTools(library, TP12)
    documents.set_status(library, tree[TP12], DocumentStatus.STALE)
    listed = {d.doc_id: d.status for d in tools.memory_list().documents}
    assert listed[tree[TP12]] == "stale"
    hit = tools.memory_query("gecko observed").hits[0]
    assert (hit.doc_id, hit.status) == (tree[TP12], "stale")
    documents.set_status(library, tree[TP12], DocumentStatus.ARCHIVED)
    assert tree[TP12] not in {d.doc_id for d in tools.memory_list().documents}
    assert tools.memory_read(tree[TP12]).status == "archived"  # by id, still readable
