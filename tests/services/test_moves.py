"""Promotion and demotion: every edge of the tree, refusals, bulk and folder moves, vectors carried without
re-embedding, the audit trail, the Results folder, and a crash in the middle of a move."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from vancetope_desktop.core.documents import DocumentStatus
from vancetope_desktop.core.errors import InvalidInput, ScopeError
from vancetope_desktop.services import audit, documents, folders, indexing, moves, relations, scopes, search
from vancetope_desktop.services.library import Library

G, P, S, TP12, TP13 = "group/default", "project/inbox", "session/s1", "think-process/tp_12", "think-process/tp_13"
OTHER_P, S2, TP21 = "project/other", "session/s2", "think-process/tp_21"


@pytest.fixture
def tree(library):
    """group/default > project/inbox > session/s1 > tp_12, tp_13; project/inbox > s2 > tp_21; project/other."""
    scopes.create_scope(library, "session", "s1", parent=P)
    scopes.create_scope(library, "session", "s2", parent=P)
    scopes.create_scope(library, "think-process", "tp_12", parent=S, name="Paper Analysis")
    scopes.create_scope(library, "think-process", "tp_13", parent=S, name="Hypothesis Check")
    scopes.create_scope(library, "think-process", "tp_21", parent=S2)
    scopes.create_scope(library, "project", "other", parent=G)
    return library


def _scope(lib, doc_id):
    return documents.get_document(lib, doc_id).scope


@pytest.mark.parametrize(("start", "target", "expected"), [
    (TP12, "session", S), (S, "project", P), (P, "group", G), (TP12, "project", P), (TP12, G, G),
    (G, P, P), (P, S, S), (S, TP12, TP12), (G, TP12, TP12),
])
def test_every_edge_of_the_tree_keeps_id_versions_tags_and_relations(tree, start, target, expected):
    source = documents.add_text(tree, "Input paper summary.", scope=start)
    doc = documents.add_text(tree, "Flash attention tiles to cut memory IO.", scope=start, tags=["efficiency"],
                             derived_from=[source.id])
    documents.update_document(tree, doc.id, content="Flash attention tiles to cut HBM traffic.")
    upward = expected in scopes.ancestry(tree, start)
    moved = moves.move_to_scope(tree, doc.id, target, "up" if upward else "down", reason="relevant")
    assert [d.id for d in moved] == [doc.id]
    after = documents.get_document(tree, doc.id)
    assert (after.scope, after.tags, after.version) == (expected, ["efficiency"], 2)
    assert relations.derived_from(tree, doc.id) == [source.id]
    assert [v.number for v in documents.list_versions(tree, doc.id)] == [1]
    entry = audit.document_history(tree, doc.id)[-1]
    assert (entry.action, entry.from_scope, entry.to_scope, entry.reason) == (
        "promote" if upward else "demote", start, expected, "relevant")
    assert entry.actor.startswith("user:")


def test_refusals_across_branches_and_against_the_direction(tree):
    doc = documents.add_text(tree, "A finding", scope=TP12)
    for target in (TP13, S2, TP21, OTHER_P):
        with pytest.raises(ScopeError, match="not on the branch"):
            moves.move_to_scope(tree, doc.id, target)
    with pytest.raises(ScopeError, match="demotion, not a promotion"):
        moves.move_to_scope(tree, documents.add_text(tree, "x", scope=P).id, TP12, "up")
    with pytest.raises(ScopeError, match="promotion, not a demotion"):
        moves.move_to_scope(tree, doc.id, "project", "down")
    assert _scope(tree, doc.id) == TP12
    documents.set_status(tree, doc.id, DocumentStatus.DELETED)
    with pytest.raises(InvalidInput, match="trash"):
        moves.move_to_scope(tree, doc.id, "project")


def test_bulk_move_is_all_or_nothing(tree):
    a = documents.add_text(tree, "First", scope=TP12)
    b = documents.add_text(tree, "Second", scope=S)
    stranger = documents.add_text(tree, "Elsewhere", scope=OTHER_P)
    with pytest.raises(ScopeError):
        moves.move_documents(tree, [a.id, b.id, stranger.id], P)
    assert [_scope(tree, d.id) for d in (a, b, stranger)] == [TP12, S, OTHER_P]
    moved = moves.move_documents(tree, [a.id, b.id], P)
    assert {d.id for d in moved} == {a.id, b.id}
    assert {_scope(tree, d.id) for d in (a, b)} == {P}


def test_folder_moves_with_its_contents_and_leaves_its_parent_behind(tree):
    parent = folders.create_folder(tree, "Drafts", scope=TP12)
    folder = folders.create_folder(tree, "Attention", scope=TP12, parent_id=parent.id)
    inner = documents.add_text(tree, "Inside", scope=TP12, folder_id=folder.id)
    moved = moves.move_to_scope(tree, folder.id, "project")
    assert {d.id for d in moved} == {folder.id, inner.id}
    assert documents.get_document(tree, folder.id).folder_id is None  # its parent stayed in tp_12
    assert documents.get_document(tree, inner.id).folder_id == folder.id
    assert _scope(tree, parent.id) == TP12 and _scope(tree, inner.id) == P


def test_think_process_results_land_in_their_results_folder(tree):
    from vancetope_desktop.agents.task_tree import memory_store_result

    result = memory_store_result(tree, "n1", "extract", "Extraction Vaswani", "Self-attention only.",
                                 think_process_id="tp_12")
    moves.move_to_scope(tree, result.id, "project")
    folder = documents.get_document(tree, documents.get_document(tree, result.id).folder_id)
    parent = documents.get_document(tree, folder.folder_id)
    assert (parent.title, folder.title, folder.scope) == ("Results", "Think-Process: Paper Analysis", P)
    moves.move_to_scope(tree, result.id, TP12)
    back = documents.get_document(tree, documents.get_document(tree, result.id).folder_id)
    assert (back.title, back.scope) == ("Results", TP12)


def test_visibility_change_names_who_gains_and_who_loses(tree):
    doc = documents.add_text(tree, "A finding", scope=TP12)
    change = moves.visibility_change(tree, [doc.id], "project")
    assert change.loses == [] and set(change.gains) == {P, S, S2, TP13, TP21}
    down = moves.visibility_change(tree, [documents.add_text(tree, "x", scope=P).id], TP12)
    assert down.gains == [] and set(down.loses) == {P, S, S2, TP13, TP21}


class EmbedderSpy:
    """The real embedder, counting the texts it is asked to embed."""

    def __init__(self, real):
        self.real, self.texts = real, 0

    def encode_documents(self, texts):
        self.texts += len(texts)
        return self.real.encode_documents(texts)

    def __getattr__(self, name):
        return getattr(self.real, name)


def test_a_move_carries_vectors_without_re_embedding(tree):
    doc = documents.add_text(tree, "Flash attention computes exact attention with fewer memory reads.", scope=TP12)
    other = documents.add_text(tree, "Sparse transformers factorise attention.", scope=TP13)
    real = tree.embedder()
    spy = EmbedderSpy(real)
    tree.embedder = lambda spec=None: spy  # the writer asks the library for its embedder
    indexing.try_drain(tree)
    assert spy.texts >= 2
    before = tree.vectors.document_vectors(TP12, doc.id)
    embedded = spy.texts

    moves.move_to_scope(tree, doc.id, "project")
    # Before the writer runs, the vectors are still in tp_12's collection: search finds them there.
    [hit] = [h for h in search.search(tree, "exact attention with fewer memory reads", scope=P).hits
             if h.document.id == doc.id]
    assert hit.vector is not None and hit.document.scope == P
    [seen] = [h for h in search.search(tree, "exact attention", scope=TP13).hits if h.document.id == doc.id]
    assert seen.vector is not None and seen.scope_weight == pytest.approx(0.5)  # from the project, not tp_12
    indexing.try_drain(tree)
    assert spy.texts == embedded, "moving re-embedded the document"
    ids, vectors, metadata = tree.vectors.document_vectors(P, doc.id)
    assert ids == before[0] and np.abs(vectors - before[1]).max() < 1e-6, np.abs(vectors - before[1]).max()
    assert {m["scope"] for m in metadata} == {P}
    assert tree.vectors.document_vectors(TP12, doc.id)[0] == []
    # The sibling think process now finds it through the project, by meaning and by keyword.
    hits = search.search(tree, "exact attention with fewer memory reads", scope=TP13).hits
    assert doc.id in [h.document.id for h in hits] and other.id in [h.document.id for h in hits]
    assert search.search(tree, "flash", scope=TP13).hits[0].document.scope == P


CRASH = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    from vancetope_desktop.services import audit, indexing, moves
    from vancetope_desktop.services.library import Library
    from vancetope_desktop.index import vector_store

    library, folder_id, where = sys.argv[1:4]
    calls = {"n": 0}

    def crash(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            os.kill(os.getpid(), signal.SIGKILL)  # a power cut, not a clean exit
        return real(*args, **kwargs)

    lib = Library.open(Path(library))
    if where == "transaction":  # killed after some rows changed scope, before the commit
        real = audit.record
        audit.record = crash
        moves.audit.record = crash
        moves.move_to_scope(lib, folder_id, "project")
    else:  # killed while the writer carries vectors: the second document copied, not yet deleted
        real = vector_store.VectorStore.delete_document
        vector_store.VectorStore.delete_document = crash
        moves.move_to_scope(lib, folder_id, "project")
        indexing.try_drain(lib)
    print("not killed")
""")


@pytest.mark.parametrize("where", ["transaction", "vectors"])
def test_killed_in_the_middle_of_a_move_each_document_is_in_one_scope_with_all_its_chunks(tmp_path, where):
    path = tmp_path / "lib"
    with Library.open(path) as lib:
        scopes.create_scope(lib, "session", "s1", parent=P)
        scopes.create_scope(lib, "think-process", "tp_12", parent=S)
        folder = folders.create_folder(lib, "Extractions", scope=TP12)
        docs = [documents.add_text(lib, f"## Part {i}\n\nFinding {i} about attention.\n\n## More\n\nDetail {i}.",
                                   doc_type=documents.DocumentType.NOTE, scope=TP12, folder_id=folder.id)
                for i in range(3)]
        indexing.try_drain(lib)
        chunks = {d.id: len(documents.list_chunks(lib, d.id)) for d in docs}
    script = tmp_path / "crash.py"
    script.write_text(CRASH)
    run = subprocess.run([sys.executable, str(script), str(path), folder.id, where], capture_output=True, text=True,
                         timeout=300, env=dict(os.environ))
    assert run.returncode == -9, run.stdout + run.stderr

    with Library.open(path) as lib:
        indexing.try_drain(lib)  # the restart finishes what the queue holds
        expected = P if where == "vectors" else TP12
        for doc in docs:
            info = documents.get_document(lib, doc.id)
            assert info.scope == expected
            assert len(documents.list_chunks(lib, doc.id)) == chunks[doc.id]
            assert len(lib.vectors.document_vectors(expected, doc.id)[0]) == chunks[doc.id]
            other = TP12 if expected == P else P
            assert lib.vectors.document_vectors(other, doc.id)[0] == []
        seen = {h.document.id for h in search.search(lib, "finding about attention", scope=TP12, limit=10).hits}
        assert seen == {d.id for d in docs}  # tp_12 sees them either way (own scope or its project)


def test_a_moved_folder_merges_with_its_namesake(tree):
    session_drafts = folders.create_folder(tree, "Drafts", scope=S)
    kept = documents.add_text(tree, "Session draft", scope=S, folder_id=session_drafts.id)
    drafts = folders.create_folder(tree, "Drafts", scope=TP12)
    inner = folders.create_folder(tree, "Attention", scope=TP12, parent_id=drafts.id)
    moved = documents.add_text(tree, "Think process draft", scope=TP12, folder_id=inner.id)
    reported = moves.move_to_scope(tree, drafts.id, "session")
    assert {d.id for d in reported} == {inner.id, moved.id}  # the merged folder itself is gone
    tops = [n for n in folders.folder_tree(tree, scope=S, include_ancestors=False) if n.parent_id is None]
    assert [(n.id, n.title) for n in tops] == [(session_drafts.id, "Drafts")]
    assert documents.get_document(tree, inner.id).folder_id == session_drafts.id
    assert documents.get_document(tree, kept.id).folder_id == session_drafts.id
    assert documents.get_document(tree, moved.id).folder_id == inner.id


def test_a_promoted_results_folder_files_its_results_and_empty_landing_folders_go(tree):
    from vancetope_desktop.agents.task_tree import memory_store_result

    first = memory_store_result(tree, "n1", "extract", "One", "First result.", think_process_id="tp_12")
    moves.move_to_scope(tree, first.id, "session")  # Results/Think-Process: Paper Analysis/ in the session
    landing = documents.get_document(tree, first.id).folder_id
    second = memory_store_result(tree, "n2", "extract", "Two", "Second result.", think_process_id="tp_12")
    tp_results = documents.get_document(tree, second.folder_id)
    moves.move_to_scope(tree, tp_results.id, "session")  # tp_12's Results folder: its results are filed
    assert documents.get_document(tree, second.id).folder_id == landing
    titles = sorted(n.title for n in folders.folder_tree(tree, scope=S, include_ancestors=False))
    assert titles == ["Results", "Think-Process: Paper Analysis"]
    assert [n.title for n in folders.folder_tree(tree, scope=TP12, include_ancestors=False)] == []

    moves.move_to_scope(tree, first.id, TP12)
    moves.move_to_scope(tree, second.id, TP12)  # the landing folder is empty now: it goes, and Results too
    assert folders.folder_tree(tree, scope=S, include_ancestors=False) == []


def test_a_result_an_agent_stored_lands_in_its_think_process_folder(tree):
    from vancetope_desktop.core.documents import DocumentType, Source, SourceType

    doc = documents.add_text(tree, "Stored by the agent.", doc_type=DocumentType.RESULT, scope=TP12,
                             source=Source(type=SourceType.TOOL_OUTPUT, think_process_id="tp_12"))
    moves.move_to_scope(tree, doc.id, "project")
    assert documents.get_document(tree, documents.get_document(tree, doc.id).folder_id).title == \
        "Think-Process: Paper Analysis"
