"""Task-tree memory (seed §7) and the start-of-work context block, on a real library with the real model."""

from datetime import datetime, timedelta

import pytest

from vancetope_desktop.agents.context import context_block
from vancetope_desktop.agents.task_tree import TaskNode, mark_task_changed, memory_store_result, resolve_inputs
from vancetope_desktop.core.atoms import AtomDraft, AtomType
from vancetope_desktop.core.documents import DocumentStatus, DocumentType, SourceType
from vancetope_desktop.core.errors import DocumentNotFound, InvalidInput, NotFound, ScopeNotVisible
from vancetope_desktop.services import atoms, documents, folders, indexing, relations, scopes, sharing

TP = "think-process/tp_12"
SIBLING = "think-process/tp_13"


@pytest.fixture
def tree(library):
    """group grp_1 > project proj_5 > session sess_7 > think processes tp_12 and its sibling tp_13; plus proj_9."""
    scopes.create_scope(library, "group", "grp_1", name="Lab")
    scopes.create_scope(library, "project", "proj_5", parent="group/grp_1", name="Transformer Efficiency Review")
    scopes.create_scope(library, "project", "proj_9", parent="group/grp_1", name="Protein folding")
    scopes.create_scope(library, "session", "sess_7", parent="project/proj_5", name="Monday")
    scopes.create_scope(library, "think-process", "tp_12", parent="session/sess_7", name="Paper Analysis")
    scopes.create_scope(library, "think-process", "tp_13", parent="session/sess_7", name="Hypothesis Check")
    return library


def _note(lib, content, scope, *, title=None, tags=(), doc_type=DocumentType.NOTE):
    return documents.add_text(lib, content, doc_type=doc_type, title=title, scope=scope, tags=tags)


# -- inputs -------------------------------------------------------------------------------------------


def test_inputs_by_id_query_and_tags_in_order_without_duplicates(tree):
    lib = tree
    paper = _note(lib, "FlashAttention tiles the attention matrix to cut HBM reads on GPUs.",
                  "project/proj_5", title="dao2022_flashattention", tags=["efficiency", "unread"])
    reformer = _note(lib, "Reformer uses locality-sensitive hashing for sparse attention.",
                     "project/proj_5", title="kitaev2020_reformer", tags=["efficiency", "unread", "sparse"])
    own = _note(lib, "My plan: compare memory use of the two methods.", TP, title="plan")
    _note(lib, "Protein language models and GPU attention kernels.", "project/proj_9", title="elsewhere",
          tags=["efficiency", "unread"])
    indexing.try_drain(lib)

    node = TaskNode(node_id="extract_paper_1", node_type="extract", think_process_id="tp_12",
                    input_docs=[own.id, own.id], input_query="sparse attention hashing",
                    input_tags=["#Unread", "efficiency"])
    assert node.scope == TP
    found = [d.id for d in resolve_inputs(lib, node)]
    assert found[0] == own.id
    assert found[1] == reformer.id  # best hit for the query
    assert set(found) == {own.id, paper.id, reformer.id}  # other project's document never found
    assert len(found) == len(set(found))

    by_tags = resolve_inputs(lib, TaskNode(node_id="n", think_process_id="tp_12", input_tags=["sparse"]))
    assert [d.id for d in by_tags] == [reformer.id]


def test_input_from_a_sibling_think_process_is_refused_naming_the_rule(tree):
    lib = tree
    secret = _note(lib, "Hypothesis 1 holds under restriction X.", SIBLING, title="finding", tags=["finding"])
    node = TaskNode(node_id="verify_1", node_type="verify", think_process_id="tp_12", input_docs=[secret.id])
    with pytest.raises(ScopeNotVisible) as error:
        resolve_inputs(lib, node)
    message = str(error.value)
    assert secret.id in message and SIBLING in message and "verify_1" in message
    assert "its own memory and its ancestors'" in message and "sibling" in message
    # An explicit reference the user shared is readable by id (issue 5), still not by query or tags.
    sharing.share_document(lib, secret.id, TP)
    assert [d.id for d in resolve_inputs(lib, node)] == [secret.id]
    # The sibling's note is also out of reach of a query or a tag filter.
    indexing.try_drain(lib)
    assert resolve_inputs(lib, TaskNode(node_id="q", think_process_id="tp_12", input_query="hypothesis restriction",
                                        input_tags=["finding"])) == []
    with pytest.raises(DocumentNotFound):
        resolve_inputs(lib, TaskNode(node_id="x", think_process_id="tp_12", input_docs=["doc_000000000000"]))


# -- storing results ----------------------------------------------------------------------------------


def test_store_result_tags_source_folder_and_derived_from(tree):
    lib = tree
    paper = _note(lib, "Attention is all you need.", "project/proj_5", title="vaswani2017")
    result = memory_store_result(lib, "node_7_1", "extract", "Extraction: Attention is All You Need",
                                 "Core thesis: self-attention replaces recurrence.", derived_from=[paper.id],
                                 think_process_id="tp_12", tags=["attention"])
    assert result.type is DocumentType.RESULT and result.scope == TP
    assert result.source.type is SourceType.THINK_PROCESS_RESULT
    assert (result.source.think_process_id, result.source.node_id) == ("tp_12", "node_7_1")
    assert set(result.tags) == {"thinkprocess:tp_12", "auto:node_7_1", "extraction", "attention"}
    assert relations.derived_from(lib, result.id) == [paper.id]
    assert relations.derived_documents(lib, [paper.id]) == [result.id]
    assert folders.folder_path(lib, result.id) == ["Results"]
    folder = documents.get_document(lib, result.folder_id)
    assert folder.scope == TP and folder.type is DocumentType.FOLDER

    second = memory_store_result(lib, "node_7_2", "synthesize", "Synthesis", "Both agree.",
                                 derived_from=[result.id], think_process_id="tp_12")
    assert second.folder_id == result.folder_id  # one Results folder, reused
    assert "synthesis" in second.tags

    with pytest.raises(ScopeNotVisible):
        memory_store_result(lib, "node_7_3", "analyze", "Bad", "Uses a sibling's note.",
                            derived_from=[_note(lib, "private", SIBLING).id], think_process_id="tp_12")
    with pytest.raises(InvalidInput):
        memory_store_result(lib, "node_7_3", "dream", "Bad", "text", think_process_id="tp_12")
    with pytest.raises(InvalidInput):
        memory_store_result(lib, "node_7_3", "analyze", "Bad", "   ", think_process_id="tp_12")


def test_rerun_replaces_content_as_a_new_version_and_clears_stale(tree):
    lib = tree
    first = memory_store_result(lib, "node_1", "analyze", "Analysis", "First answer.", think_process_id="tp_12")
    assert mark_task_changed(lib, "node_1", think_process_id="tp_12") == [first.id]
    stale = documents.get_document(lib, first.id)
    assert stale.status is DocumentStatus.STALE and "stale" in stale.tags

    again = memory_store_result(lib, "node_1", "analyze", "Analysis", "Second answer.", think_process_id="tp_12")
    assert again.id == first.id
    assert again.content == "Second answer." and again.version > first.version
    assert again.status is DocumentStatus.ACTIVE and "stale" not in again.tags
    assert "analysis" in again.tags and "auto:node_1" in again.tags
    history = documents.list_versions(lib, first.id)
    assert any(v.content == "First answer." and "stale" not in v.tags for v in history)
    assert again.updated_by == TP and {v.created_by for v in history} == {TP}  # each state the think process's
    assert len(relations.node_results(lib, "tp_12", "node_1")) == 1


# -- stale propagation --------------------------------------------------------------------------------


def test_task_change_marks_two_levels_of_derived_results_stale_and_nothing_else(tree):
    lib = tree
    paper = _note(lib, "Input paper.", "project/proj_5", title="paper")
    a = memory_store_result(lib, "extract_1", "extract", "A", "Extracted.", [paper.id], think_process_id="tp_12")
    b = memory_store_result(lib, "analyze_1", "analyze", "B", "Analysed.", [a.id], think_process_id="tp_12")
    c = memory_store_result(lib, "synth_1", "synthesize", "C", "Synthesised.", [b.id], think_process_id="tp_12")
    unrelated = memory_store_result(lib, "extract_2", "extract", "D", "Other.", [paper.id], think_process_id="tp_12")

    marked = mark_task_changed(lib, "extract_1", think_process_id="tp_12")
    assert marked == [a.id, b.id, c.id]
    for doc_id in marked:
        doc = documents.get_document(lib, doc_id)
        assert doc.status is DocumentStatus.STALE and "stale" in doc.tags
    for doc_id in (paper.id, unrelated.id):
        doc = documents.get_document(lib, doc_id)
        assert doc.status is DocumentStatus.ACTIVE and "stale" not in doc.tags
    stale_view = documents.list_documents(lib, scope=TP, statuses=(DocumentStatus.STALE,))
    assert {d.id for d in stale_view} == {a.id, b.id, c.id}

    with pytest.raises(NotFound, match="no result for node 'never_ran'"):
        mark_task_changed(lib, "never_ran", think_process_id="tp_12")


def test_stale_propagation_survives_a_derivation_cycle(tree):
    lib = tree
    a = memory_store_result(lib, "n_a", "analyze", "A", "a", think_process_id="tp_12")
    b = memory_store_result(lib, "n_b", "analyze", "B", "b", [a.id], think_process_id="tp_12")
    documents.update_document(lib, a.id, derived_from=[b.id])  # a ← b ← a
    assert mark_task_changed(lib, "n_b", think_process_id="tp_12") == [b.id, a.id]


# -- context block ------------------------------------------------------------------------------------


@pytest.fixture
def memory(tree):
    """Memory on every level of tp_12's branch, a sibling's, and another project's."""
    lib = tree
    add = documents.add_text
    ids = {
        "group_fact": add(lib, "The lab owns four GPU servers.", scope="group/grp_1").id,
        "project_fact": add(lib, "Supervisor is Prof. Müller.", scope="project/proj_5").id,
        "project_decision": _note(lib, "We focus on inference efficiency, not training.", "project/proj_5",
                                  title="Scope decision", tags=["decision"]).id,
        "project_paper_note": _note(lib, "Long reading notes about a paper.", "project/proj_5",
                                    title="reading notes").id,
        "session_note": _note(lib, "Today: compare FlashAttention and Reformer.", "session/sess_7",
                              title="session goal").id,
        "tp_note": _note(lib, "Flash Attention optimises IO, not compute. " * 30, TP, title="insight").id,
        "tp_fact": add(lib, "Deadline for the comparison is Friday.", scope=TP).id,
        "sibling_note": _note(lib, "Hypothesis 1 holds under restriction X.", SIBLING, title="finding").id,
        "other_project": add(lib, "Protein folding deadline is in July.", scope="project/proj_9").id,
    }
    ids["tp_result"] = memory_store_result(lib, "extract_1", "extract", "Extraction: FlashAttention",
                                           "Tiling keeps attention blocks in SRAM.", think_process_id="tp_12").id
    return lib, ids


def test_context_block_orders_by_proximity_and_excludes_siblings(memory):
    lib, ids = memory
    block = context_block(lib, TP, token_budget=5000)
    md = block.markdown
    assert block.tokens == lib.embedder().count_tokens(md) <= 5000
    for key in ("tp_fact", "tp_result", "tp_note", "session_note", "project_fact", "project_decision", "group_fact"):
        assert f"`{ids[key]}`" in md, key
    for key in ("sibling_note", "other_project", "project_paper_note"):
        assert ids[key] not in md and ids[key] not in block.documents, key
    order = block.documents
    # Own scope first (facts > results > notes), then session, project, group.
    assert order[:3] == [ids["tp_fact"], ids["tp_result"], ids["tp_note"]]
    assert order.index(ids["session_note"]) < order.index(ids["project_fact"]) < order.index(ids["group_fact"])
    headings = [line for line in md.splitlines() if line.startswith("## Memory")]
    assert [h.rsplit("`", 2)[1] for h in headings] == [TP, "session/sess_7", "project/proj_5", "group/grp_1"]
    assert md.index(headings[0]) < md.index(ids["tp_fact"])


@pytest.mark.parametrize("budget", [20, 50, 90, 200])
def test_context_block_respects_the_token_budget(memory, budget):
    lib, ids = memory
    block = context_block(lib, TP, token_budget=budget)
    count = lib.embedder().count_tokens
    assert count(block.markdown) == block.tokens <= budget
    assert block.truncated
    assert all(f"`{d}`" in block.markdown for d in block.documents)
    assert block.documents == [ids["tp_fact"], ids["tp_result"], ids["tp_note"]][: len(block.documents)]
    if budget >= 50:
        assert block.documents[0] == ids["tp_fact"]


def test_context_block_truncates_the_last_item_rather_than_exceeding(memory):
    lib, ids = memory
    block = context_block(lib, TP, token_budget=200)
    assert block.documents == [ids["tp_fact"], ids["tp_result"], ids["tp_note"]]
    assert block.markdown.endswith("…") and block.tokens <= 200
    assert block.tokens >= 190  # the cut note fills the budget up to a word
    # One document alone cannot take more than its share.
    roomy = context_block(lib, TP, token_budget=5000, max_item_tokens=50)
    note_line = next(line for line in roomy.markdown.splitlines() if ids["tp_note"] in line)
    assert note_line.endswith("…") and lib.embedder().count_tokens(note_line) <= 50


def test_context_block_ranks_query_hits_first(memory):
    lib, ids = memory
    indexing.try_drain(lib)
    block = context_block(lib, TP, token_budget=5000, query="Who is the supervisor?")
    assert block.documents[0] == ids["project_fact"]
    assert block.markdown.startswith("## Memory — Project: Transformer Efficiency Review (`project/proj_5`)")
    assert ids["sibling_note"] not in block.documents


def test_context_block_of_an_empty_scope_and_bad_budget(tree):
    lib = tree
    block = context_block(lib, SIBLING, token_budget=100)
    assert block.documents == [] and block.markdown.startswith("## Memory")
    with pytest.raises(InvalidInput):
        context_block(lib, TP, token_budget=0)


def test_context_block_lists_plans_ahead_and_recent_events(tree):
    """Atoms of time: plans still planned, soonest due first (overdue ones marked), events of the last month,
    latest first; settled plans and old events stay out."""
    lib, now = tree, datetime(2026, 12, 2, 10, 0)

    def atom(kind, text, scope=TP, **moments):
        return atoms.store_atom(lib, AtomDraft(type=kind, text=text, **moments), scope=scope).id

    fact = atom(AtomType.FACT, "Tiling keeps attention blocks in SRAM.")
    later = atom(AtomType.PLAN, "Rerun the memory benchmark.", due=now + timedelta(days=10))
    soon = atom(AtomType.PLAN, "Send the tiling figures to Anna.", due=datetime(2026, 12, 5))
    overdue = atom(AtomType.PLAN, "Reply to the reviewers.", due=now - timedelta(days=2))
    canceled = atom(AtomType.PLAN, "Port the kernel to TPUs.", due=now + timedelta(days=3), status="canceled")
    met = atom(AtomType.EVENT, "Met Anna about the figures.", when=datetime(2026, 11, 30, 14, 30))
    old = atom(AtomType.EVENT, "Started the review.", when=now - timedelta(days=60))
    workshop = atom(AtomType.PLAN, "Submit the review to the workshop.", scope="project/proj_5",
                    due=now + timedelta(days=20))

    block = context_block(lib, TP, token_budget=5000, now=now)
    assert block.documents[:5] == [fact, overdue, soon, later, met]
    assert canceled not in block.documents and old not in block.documents
    assert workshop in block.documents  # the project's deadline, under its heading
    lines = {d: next(line for line in block.markdown.splitlines() if d in line) for d in block.documents}
    assert f"(`{soon}`, plan, due 2026-12-05)" in lines[soon]
    assert lines[overdue].split(")")[0].endswith(", overdue")
    assert f"(`{met}`, event, 2026-11-30 14:30)" in lines[met]
