"""Embedder and model resolution with the real bundled all-MiniLM-L6-v2 (no mocks, no network)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from tokenizers import Tokenizer

from vancetope_desktop.core.errors import IndexUnavailable
from vancetope_desktop.core.settings import BUNDLED_MODEL, Settings
from vancetope_desktop.index.embedder import Embedder
from vancetope_desktop.index.models import ModelSpec, resolve_model
from vancetope_desktop.index.numpy_encoder import NumpyEncoder

from .conftest import cosine

REPO = Path(__file__).resolve().parents[2]

SENTENCE = (
    "Spike glycoprotein binding to ACE2 receptors initiates viral entry; neutralising antibodies "
    "against the receptor-binding domain reduce infectivity in vitro and in animal models."
)
WORDS = SENTENCE.split(" ")
TEXTS = [
    "C++ and SARS-CoV-2",
    "日本語の文章と中文句子",
    "Ünïcödé café résumé",
    " ".join(WORDS * 10),  # ~200 words, > 254 word pieces: truncated
    "",
]


pytestmark = pytest.mark.usefixtures("offline")


@pytest.fixture(scope="module")
def embedder(spec: ModelSpec) -> Embedder:
    """One embedder for the module: sentence-transformers is loaded at most once here."""
    return Embedder(spec)


@pytest.fixture(scope="module")
def raw_tokenizer(spec: ModelSpec) -> Tokenizer:
    tokenizer = Tokenizer.from_file(str(spec.path / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


# -- model resolution ------------------------------------------------------------------------------


def test_bundled_spec(spec: ModelSpec) -> None:
    assert spec.name == "all-MiniLM-L6-v2"
    assert spec.dimension == 384
    assert spec.max_tokens == 256
    assert spec.normalize and spec.pooling == ("mean",)
    assert spec.modules == ("Transformer", "Pooling", "Normalize")
    assert (spec.path / "model.safetensors").is_file()
    assert spec.source == BUNDLED_MODEL


def test_local_directory_spec(spec: ModelSpec) -> None:
    local = resolve_model(str(spec.path))
    assert local.path == spec.path and local.dimension == 384 and local.name == spec.path.name


def test_name_in_local_hf_cache_resolves_offline(spec: ModelSpec, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A repo already in the Hugging Face cache (hub layout: refs/main -> snapshots/<commit>)."""
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "hub" / "models--sentence-transformers--all-MiniLM-L6-v2"
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    for item in spec.path.iterdir():
        (snapshot / item.name).symlink_to(item)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    for name in ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
        found = resolve_model(name)
        assert found.path == snapshot.resolve()
        assert found.name == "all-MiniLM-L6-v2" and found.dimension == 384 and found.source == name


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "No embedding model"),
        ("bundled:no-such-model", "Unknown bundled"),
        ("/nonexistent/models/minilm", "does not exist"),
        ("./relative/missing-model", "does not exist"),
        ("no-such-org/no-such-model", "not in the local Hugging Face cache|neither a local directory"),
        ("all-mpnet-base-v2", "neither a local directory"),
    ],
)
def test_unresolvable_specs(
    value: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An empty cache: a name that is not on disk must fail at once, never reach for the network.
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hub"))
    (tmp_path / "empty-hub").mkdir()
    monkeypatch.delenv("SENTENCE_TRANSFORMERS_HOME", raising=False)
    with pytest.raises(IndexUnavailable, match=message):
        resolve_model(value)


def test_broken_directories_are_refused(spec: ModelSpec, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(IndexUnavailable, match="not an embedding model directory"):
        resolve_model(str(tmp_path / "empty"))
    (tmp_path / "file.bin").write_bytes(b"x")
    with pytest.raises(IndexUnavailable, match="is a file"):
        resolve_model(str(tmp_path / "file.bin"))
    no_weights = tmp_path / "no-weights"
    no_weights.mkdir()
    for name in ("config.json", "modules.json", "tokenizer.json", "sentence_bert_config.json"):
        (no_weights / name).symlink_to(spec.path / name)
    with pytest.raises(IndexUnavailable, match="no model weights"):
        resolve_model(str(no_weights))
    odd = tmp_path / "odd-module"
    odd.mkdir()
    (odd / "modules.json").write_text(json.dumps([{"idx": 0, "name": "0", "path": "0_Static",
                                                   "type": "sentence_transformers.models.StaticEmbedding"}]))
    with pytest.raises(IndexUnavailable, match="not supported"):
        resolve_model(str(odd))


# -- embedder --------------------------------------------------------------------------------------


def test_description(embedder: Embedder) -> None:
    assert embedder.name == "all-MiniLM-L6-v2"
    assert embedder.dimension == 384
    assert embedder.max_tokens == 254  # 256 - [CLS] - [SEP]
    assert embedder.backend == "numpy"


def test_from_settings() -> None:
    embedder = Embedder.from_settings(Settings(embedding_batch_size=16))
    assert embedder.name == "all-MiniLM-L6-v2" and embedder.batch_size == 16 and not embedder.loaded


def test_count_tokens_matches_the_tokenizer(embedder: Embedder, raw_tokenizer: Tokenizer) -> None:
    for text in [*TEXTS, "one", "[CLS] x [SEP]"]:
        expected = len(raw_tokenizer.encode(text, add_special_tokens=False).ids)
        assert embedder.count_tokens(text) == expected, text[:40]
    assert embedder.count_tokens("") == 0
    assert embedder.count_tokens("C++") == 3  # "c", "+", "+"
    # Not capped by tokenizer.json's own truncation setting (128 for this model), nor by the model limit.
    long_text = " ".join(WORDS * 40)
    assert embedder.count_tokens(long_text) == len(raw_tokenizer.encode(long_text, add_special_tokens=False))
    assert embedder.count_tokens(long_text) > 1000


def test_count_tokens_is_thread_safe(embedder: Embedder) -> None:
    texts = [" ".join(WORDS[: 1 + i % len(WORDS)]) for i in range(400)]
    expected = [embedder.count_tokens(t) for t in texts]
    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(embedder.count_tokens, texts)) == expected


def test_encode_documents_shapes_and_norms(embedder: Embedder) -> None:
    texts = [f"chunk {i}: " + " ".join(WORDS[: 5 + i * 5]) for i in range(40)]  # several length-sorted batches
    vectors = embedder.encode_documents(texts)
    assert not embedder.loaded  # the numpy path: sentence-transformers (torch) is never loaded
    assert vectors.shape == (40, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # Order is preserved despite the internal length sorting.
    np.testing.assert_allclose(vectors[7], embedder.encode_documents([texts[7]])[0], atol=1e-6)
    assert embedder.encode_documents([]).shape == (0, 384)


def test_query_and_document_vectors_agree(embedder: Embedder) -> None:
    documents = embedder.encode_documents(TEXTS)
    for text, document in zip(TEXTS, documents, strict=True):
        query = embedder.encode_query(text)
        assert query.shape == (384,) and query.dtype == np.float32
        assert np.linalg.norm(query) == pytest.approx(1.0, abs=1e-5)
        assert np.abs(query - document).max() < 1e-6, text[:40]


def test_encode_queries_keeps_order(embedder: Embedder) -> None:
    texts = [TEXTS[3], "short", TEXTS[0], "a medium length query about receptors"]
    batch = embedder.encode_queries(texts)
    assert batch.shape == (4, 384)
    for row, text in zip(batch, texts, strict=True):
        assert cosine(row, embedder.encode_query(text)) >= 0.99999
    assert embedder.encode_queries([]).shape == (0, 384)


def test_text_at_the_chunk_limit_is_not_truncated(embedder: Embedder) -> None:
    """A chunk with count_tokens(chunk) <= max_tokens reaches the model whole."""
    words = (WORDS * 40)[:]
    while embedder.count_tokens(" ".join(words)) > embedder.max_tokens:
        words.pop()
    text = " ".join(words)
    assert embedder.max_tokens - 10 < embedder.count_tokens(text) <= embedder.max_tokens
    encoder = NumpyEncoder(embedder.spec)  # tokenizes exactly like sentence-transformers (tested there)
    ids, _ = encoder.tokenize([text])
    assert ids.shape[1] == embedder.count_tokens(text) + 2 <= embedder.spec.max_tokens
    longer, _ = encoder.tokenize([text + " " + " ".join(WORDS)])
    assert longer.shape[1] == embedder.spec.max_tokens  # beyond the limit: truncated


def test_lazy_loads_once_under_concurrency(spec: ModelSpec) -> None:
    fresh = Embedder(spec)
    with ThreadPoolExecutor(max_workers=6) as pool:
        vectors = list(pool.map(fresh.encode_query, ["same query"] * 12))
        documents = list(pool.map(fresh.encode_documents, [[TEXTS[3], "same query"]] * 4))
    assert all(np.array_equal(v, vectors[0]) for v in vectors)
    assert all(np.array_equal(d, documents[0]) for d in documents)
    assert not fresh.loaded  # neither queries nor documents load sentence-transformers for a numpy-capable model


def test_warm_up_loads_the_numpy_encoder_only(spec: ModelSpec) -> None:
    fresh = Embedder(spec, batch_size=8)
    fresh.warm_up()
    assert fresh._numpy is not None and not fresh.loaded


@pytest.mark.slow  # loads torch
def test_unsupported_model_falls_back_to_sentence_transformers(spec: ModelSpec, tmp_path: Path) -> None:
    """A BERT the numpy path does not handle (ReLU): queries go through sentence-transformers."""
    for item in spec.path.iterdir():
        if item.name != "config.json":
            (tmp_path / item.name).symlink_to(item)
    config = json.loads((spec.path / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**config, "hidden_act": "relu"}))
    fallback = Embedder(resolve_model(str(tmp_path)))
    assert fallback.backend == "sentence-transformers"
    query = fallback.encode_query(TEXTS[0])
    assert fallback.loaded and query.shape == (384,)
    assert cosine(query, fallback.encode_documents([TEXTS[0]])[0]) >= 0.9999


def test_embedding_does_not_import_torch() -> None:
    code = (
        "import sys\n"
        "from vancetope_desktop.index.embedder import Embedder\n"
        "from vancetope_desktop.index.models import resolve_model\n"
        f"embedder = Embedder(resolve_model({BUNDLED_MODEL!r}))\n"
        "assert embedder.encode_query('what binds ACE2?').shape == (384,)\n"
        "assert embedder.encode_documents(['a chunk', 'another chunk']).shape == (2, 384)\n"
        "assert embedder.count_tokens('C++') == 3 and embedder.max_tokens == 254\n"
        "heavy = sorted(m for m in ('torch', 'transformers', 'sentence_transformers') if m in sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
