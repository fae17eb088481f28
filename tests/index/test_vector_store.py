"""Chroma collection names for scope ids of any spelling, and per-collection model records."""

import re

import numpy as np
import pytest

from vancetope_desktop.index.vector_store import VectorStore, collection_name

SCOPES = ["project/AI", "project/ai", "project/Über Attention (2023)", "project/Uber Attention (2023)",
          "project/日本語", "project/中文", "project/" + "x" * 80, "project/" + "x" * 79 + "y",
          "think-process/tp_12", "session/tp_12"]


def test_names_are_valid_and_distinct():
    names = [collection_name(s) for s in SCOPES]
    assert len(set(names)) == len(names)
    for name in names:
        assert 3 <= len(name) <= 512
        assert re.fullmatch(r"[a-zA-Z0-9][a-zA-Z0-9._-]*[a-zA-Z0-9]", name), name


def test_real_chroma_accepts_every_name_and_keeps_scopes_apart(tmp_path):
    store = VectorStore(tmp_path / "chroma", tmp_path / "chroma.lock", lambda: 0)
    for i, scope in enumerate(SCOPES):
        vector = np.zeros((1, 4), np.float32)
        vector[0, i % 4] = 1
        store.upsert(scope, "test-model", [f"doc_{i}:0"], vector, [{"doc_id": f"doc_{i}", "tags": []}])
    for i, scope in enumerate(SCOPES):
        hits = store.query(scope, np.ones(4, np.float32), 10)
        assert [h.document_id for h in hits] == [f"doc_{i}"]
    recorded = {info.scope: (info.model, info.dimension, info.count) for info in store.collections()}
    assert recorded["project/日本語"] == ("test-model", 4, 1)


def test_vectors_of_another_model_are_never_mixed(tmp_path):
    store = VectorStore(tmp_path / "chroma", tmp_path / "chroma.lock", lambda: 0)
    store.upsert("project/p", "model-a", ["d:0"], np.ones((1, 4), np.float32), [{"doc_id": "d"}])
    with pytest.raises(ValueError, match="model-a"):
        store.upsert("project/p", "model-b", ["e:0"], np.ones((1, 4), np.float32), [{"doc_id": "e"}])


def test_delete_documents_removes_several_documents_in_one_call(tmp_path):
    store = VectorStore(tmp_path / "chroma", tmp_path / "chroma.lock", lambda: 0)
    ids = [f"doc_{d}:{o}" for d in "abc" for o in range(2)]
    vectors = np.eye(6, 4, dtype=np.float32) + 0.01
    store.upsert("project/p", "m", ids, vectors, [{"doc_id": i.split(":")[0]} for i in ids])
    store.delete_documents("project/p", ["doc_a", "doc_c", "doc_missing"])
    hits = store.query("project/p", np.ones(4, np.float32), 10)
    assert sorted(h.chunk_id for h in hits) == ["doc_b:0", "doc_b:1"]
    assert {h.document_id for h in hits} == {"doc_b"}
    store.delete_documents("project/absent", ["doc_b"])  # no collection: nothing to do, no error


def test_several_scopes_are_queried_in_one_call_each_with_its_own_filter(tmp_path):
    store = VectorStore(tmp_path / "chroma", tmp_path / "chroma.lock", lambda: 0)
    vectors = np.eye(2, 4, dtype=np.float32) + 0.01
    store.upsert("project/p", "m", ["a:0", "b:0"], vectors, [{"doc_id": "a"}, {"doc_id": "b"}])
    store.upsert("session/s", "m", ["c:0"], vectors[:1], [{"doc_id": "c"}])
    found = store.query_scopes([("project/p", ["b"]), ("session/s", None), ("session/none", None),
                                ("project/p", [])], np.ones(4, np.float32), 10)
    assert [(scope, hit.chunk_id) for scope, hit in found] == [("project/p", "b:0"), ("session/s", "c:0")]
