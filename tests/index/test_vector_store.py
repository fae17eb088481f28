"""Chroma collection names for scope ids of any spelling, per-collection model records, and the store's contract:
each test that takes ``make_store`` runs on the embedded store and on the real Chroma server (``ServerVectorStore``,
issue 17)."""

import re

import numpy as np
import pytest

from vancetope_desktop.index.chroma_server import ChromaServer, ServerVectorStore
from vancetope_desktop.index.vector_store import VectorStore, collection_name

SCOPES = ["project/AI", "project/ai", "project/Über Attention (2023)", "project/Uber Attention (2023)",
          "project/日本語", "project/中文", "project/" + "x" * 80, "project/" + "x" * 79 + "y",
          "think-process/tp_12", "session/tp_12"]


@pytest.fixture(params=["embedded", "server"])
def make_store(request, tmp_path):
    """Makes a store of the test's kind (each call: another process's handle on the same store), following the
    index generation ``make_store.generation[0]``."""
    generation = [0]
    made = []
    if request.param == "embedded":
        def store():
            return VectorStore(tmp_path / "chroma", tmp_path / "chroma.lock", lambda: generation[0])
    else:
        client = request.getfixturevalue("chroma_server")
        server = ChromaServer(request.getfixturevalue("chroma_server_url"), client.database, tenant=client.tenant)

        def store():
            return ServerVectorStore(server, lambda: generation[0], retry_seconds=0)

    def make():
        made.append(store())
        return made[-1]

    make.generation = generation
    yield make
    for each in made:
        each.close()


def test_names_are_valid_and_distinct():
    names = [collection_name(s) for s in SCOPES]
    assert len(set(names)) == len(names)
    for name in names:
        assert 3 <= len(name) <= 512
        assert re.fullmatch(r"[a-zA-Z0-9][a-zA-Z0-9._-]*[a-zA-Z0-9]", name), name


def test_real_chroma_accepts_every_name_and_keeps_scopes_apart(make_store):
    store = make_store()
    for i, scope in enumerate(SCOPES):
        vector = np.zeros((1, 4), np.float32)
        vector[0, i % 4] = 1
        store.upsert(scope, "test-model", [f"doc_{i}:0"], vector, [{"doc_id": f"doc_{i}", "tags": []}])
    for i, scope in enumerate(SCOPES):
        hits = store.query(scope, np.ones(4, np.float32), 10)
        assert [h.document_id for h in hits] == [f"doc_{i}"]
    recorded = {info.scope: (info.model, info.dimension, info.count) for info in store.collections()}
    assert recorded["project/日本語"] == ("test-model", 4, 1)


def test_vectors_of_another_model_are_never_mixed(make_store):
    store = make_store()
    store.upsert("project/p", "model-a", ["d:0"], np.ones((1, 4), np.float32), [{"doc_id": "d"}])
    with pytest.raises(ValueError, match="model-a"):
        store.upsert("project/p", "model-b", ["e:0"], np.ones((1, 4), np.float32), [{"doc_id": "e"}])


def test_delete_documents_removes_several_documents_in_one_call(make_store):
    store = make_store()
    ids = [f"doc_{d}:{o}" for d in "abc" for o in range(2)]
    vectors = np.eye(6, 4, dtype=np.float32) + 0.01
    store.upsert("project/p", "m", ids, vectors, [{"doc_id": i.split(":")[0]} for i in ids])
    store.delete_documents("project/p", ["doc_a", "doc_c", "doc_missing"])
    hits = store.query("project/p", np.ones(4, np.float32), 10)
    assert sorted(h.chunk_id for h in hits) == ["doc_b:0", "doc_b:1"]
    assert {h.document_id for h in hits} == {"doc_b"}
    store.delete_documents("project/absent", ["doc_b"])  # no collection: nothing to do, no error


def test_several_scopes_are_queried_in_one_call_each_with_its_own_filter(make_store):
    store = make_store()
    vectors = np.eye(2, 4, dtype=np.float32) + 0.01
    store.upsert("project/p", "m", ["a:0", "b:0"], vectors, [{"doc_id": "a"}, {"doc_id": "b"}])
    store.upsert("session/s", "m", ["c:0"], vectors[:1], [{"doc_id": "c"}])
    found = store.query_scopes([("project/p", ["b"]), ("session/s", None), ("session/none", None),
                                ("project/p", [])], np.ones(4, np.float32), 10)
    assert [(scope, hit.chunk_id) for scope, hit in found] == [("project/p", "b:0"), ("session/s", "c:0")]


def test_metadata_updates_and_reads_of_vectors(make_store):
    store = make_store()
    vectors = np.eye(3, 4, dtype=np.float32) + 0.01
    store.upsert("project/p", "m", ["a:0", "a:1", "b:0"], vectors,
                 [{"doc_id": "a", "tags": "x"}, {"doc_id": "a", "tags": "x"}, {"doc_id": "b"}])
    store.update_metadata("project/p", "a", {"tags": "y", "title": None})
    ids, found, metadatas = store.document_vectors("project/p", "a")
    assert sorted(ids) == ["a:0", "a:1"] and found.shape == (2, 4)
    assert [m["tags"] for m in metadatas] == ["y", "y"]
    by_id = store.chunk_vectors("project/p", ["b:0", "z:0"])
    assert list(by_id) == ["b:0"] and np.allclose(by_id["b:0"], vectors[2])
    assert store.document_vectors("project/none", "a")[0] == []
    assert store.counts(["project/p", "project/none"]) == {"project/p": 3, "project/none": 0}


def test_a_collection_dropped_and_made_again_elsewhere_is_seen_when_the_generation_moves(make_store):
    reader, writer = make_store(), make_store()
    writer.upsert("project/p", "model-a", ["a:0"], np.ones((1, 4), np.float32), [{"doc_id": "a"}])
    assert [h.chunk_id for h in reader.query("project/p", np.ones(4, np.float32), 5)] == ["a:0"]
    writer.drop_collection("project/p")
    writer.drop_collection("project/p")  # none left: nothing to drop, no error
    writer.upsert("project/p", "model-b", ["b:0"], np.ones((1, 4), np.float32), [{"doc_id": "b"}])
    make_store.generation[0] += 1  # the writer's batch is committed
    assert [h.chunk_id for h in reader.query("project/p", np.ones(4, np.float32), 5)] == ["b:0"]
    assert [(i.scope, i.model, i.count) for i in reader.collections()] == [("project/p", "model-b", 1)]


def test_reset_empties_the_store_for_a_rebuild(make_store, tmp_path):
    store = make_store()
    store.upsert("project/p", "m", ["a:0"], np.ones((1, 4), np.float32), [{"doc_id": "a"}])
    store.upsert("session/s", "m", ["b:0"], np.ones((1, 4), np.float32), [{"doc_id": "b"}])
    assert store.reset(tmp_path / "aside") is None  # emptied in place: nothing moved aside
    assert store.collections() == []
    assert store.query("project/p", np.ones(4, np.float32), 5) == []
    store.upsert("project/p", "m2", ["c:0"], np.ones((1, 4), np.float32), [{"doc_id": "c"}])
    assert store.counts(["project/p"]) == {"project/p": 1}


def test_an_upsert_above_the_stores_batch_limit_is_split(make_store):
    store = make_store()
    store._client_for_read()  # the client open: the limit is its (the server's, for a server)
    limit = store._max_batch()
    assert limit == store._client.get_max_batch_size()
    count = limit + 3
    ids = [f"d{i}:0" for i in range(count)]
    vectors = np.random.default_rng(0).normal(size=(count, 4)).astype(np.float32)
    store.upsert("project/p", "m", ids, vectors, [{"doc_id": f"d{i}"} for i in range(count)])
    assert store.counts(["project/p"]) == {"project/p": count}
