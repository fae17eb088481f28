"""The engine-only reader (``index/chroma_reader.py``) answers a search's reads as the chromadb client does."""

import numpy as np
import pytest

from vancetope_desktop.index import vector_store
from vancetope_desktop.index.vector_store import VectorStore

SCOPE, OTHER, MISSING = "project/p", "session/s", "session/none"


@pytest.fixture
def stored(tmp_path):
    """A real Chroma store holding 400 vectors of 40 documents in SCOPE and 30 in OTHER (written by the client),
    and a fresh query vector; returns ``(root, documents of SCOPE, query)``."""
    rng = np.random.default_rng(16)
    writer = VectorStore(tmp_path / "chroma", tmp_path / "chroma.lock", lambda: 0)
    docs = [f"doc_{i:03d}" for i in range(40)]
    ids = [f"{d}:{o}" for d in docs for o in range(10)]
    writer.upsert(SCOPE, "m", ids, rng.normal(size=(len(ids), 32)).astype(np.float32),
                  [{"doc_id": i.split(":")[0]} for i in ids])
    writer.upsert(OTHER, "m", [f"doc_x{i}:0" for i in range(30)], rng.normal(size=(30, 32)).astype(np.float32),
                  [{"doc_id": f"doc_x{i}"} for i in range(30)])
    writer.close()
    return tmp_path, docs, rng.normal(size=32).astype(np.float32)


def _requests(docs):
    return [(SCOPE, None), (OTHER, None), (MISSING, None), (SCOPE, docs[5:12])]


def test_the_reader_finds_what_the_client_finds_with_the_same_similarities(stored):
    root, docs, query = stored
    fresh = VectorStore(root / "chroma", root / "chroma.lock", lambda: 0)
    read = fresh.query_scopes(_requests(docs), query, 25)
    counted = fresh.counts([SCOPE, OTHER, MISSING])
    listed = fresh.collections()
    assert fresh._reader is not None and fresh._client is None  # answered without the chromadb client
    client = VectorStore(root / "chroma", root / "chroma.lock", lambda: 0)
    client._client_for_read()
    assert client.query_scopes(_requests(docs), query, 25) == read
    assert client.counts([SCOPE, OTHER, MISSING]) == counted == {SCOPE: 400, OTHER: 30, MISSING: 0}
    assert client.collections() == listed and {(c.scope, c.model, c.count) for c in listed} == {
        (SCOPE, "m", 400), (OTHER, "m", 30)}
    assert len(read) == 25 + 25 + 0 + 25
    assert {hit.document_id for scope, hit in read[50:]} <= set(docs[5:12])


def test_a_write_elsewhere_is_seen_once_the_index_generation_moves(stored):
    root, _, query = stored
    generation = [0]
    reader = VectorStore(root / "chroma", root / "chroma.lock", lambda: generation[0])
    assert reader.counts([MISSING]) == {MISSING: 0}
    writer = VectorStore(root / "chroma", root / "chroma.lock", lambda: 0)
    writer.upsert(MISSING, "m", ["doc_new:0"], query.reshape(1, -1), [{"doc_id": "doc_new"}])
    writer.close()
    generation[0] = 1  # what the indexing writer does after its batch
    assert reader.counts([MISSING]) == {MISSING: 1}
    assert reader.query_scopes([(MISSING, None)], query, 5)[0][1].chunk_id == "doc_new:0"


def test_a_write_in_the_same_process_opens_the_client_which_then_answers(stored):
    root, _, query = stored
    store = VectorStore(root / "chroma", root / "chroma.lock", lambda: 0)
    before = store.query_scopes([(SCOPE, None)], query, 3)
    store.upsert(SCOPE, "m", ["doc_new:0"], query.reshape(1, -1), [{"doc_id": "doc_new"}])
    assert store._reader is None  # one engine on the store at a time
    after = store.query_scopes([(SCOPE, None)], query, 3)
    assert after[0][1].chunk_id == "doc_new:0" and after[1:] == before[:2]


def test_when_the_engine_cannot_be_opened_the_client_answers(stored, monkeypatch):
    root, docs, query = stored
    expected = VectorStore(root / "chroma", root / "chroma.lock", lambda: 0).query_scopes(_requests(docs), query, 9)

    def other_release(root):
        raise TypeError("Bindings.__new__() got an unexpected keyword argument 'hnsw_cache_size'")

    monkeypatch.setattr(vector_store, "ChromaReader", other_release)
    store = VectorStore(root / "chroma", root / "chroma.lock", lambda: 0)
    assert store.query_scopes(_requests(docs), query, 9) == expected
    assert store._client is not None
