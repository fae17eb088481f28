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
    # Documents through ONNX Runtime, fp32 queries through numpy (no onnxruntime import for a cold query).
    assert embedder.backend == "onnx-fp32" and embedder.query_backend == "numpy"
    assert embedder.vector_identity == "all-MiniLM-L6-v2"


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
    assert not embedder.loaded  # the torch-free paths: sentence-transformers (torch) is never loaded
    assert vectors.shape == (40, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # Order is preserved despite the internal length sorting.
    np.testing.assert_allclose(vectors[7], embedder.encode_documents([texts[7]])[0], atol=1e-5)
    assert embedder.encode_documents([]).shape == (0, 384)


def test_query_and_document_vectors_agree(embedder: Embedder) -> None:
    documents = embedder.encode_documents(TEXTS)
    for text, document in zip(TEXTS, documents, strict=True):
        query = embedder.encode_query(text)
        assert query.shape == (384,) and query.dtype == np.float32
        assert np.linalg.norm(query) == pytest.approx(1.0, abs=1e-5)
        assert np.abs(query - document).max() < 1e-5, text[:40]  # numpy and ONNX Runtime, both fp32


def test_encode_queries_keeps_order(embedder: Embedder) -> None:
    texts = [TEXTS[3], "short", TEXTS[0], "a medium length query about receptors"]
    batch = embedder.encode_queries(texts)
    assert batch.shape == (4, 384)
    for row, text in zip(batch, texts, strict=True):
        assert cosine(row, embedder.encode_query(text)) >= 0.99999
    assert embedder.encode_queries([]).shape == (0, 384)


def test_text_at_the_chunk_limit_is_not_truncated(embedder: Embedder) -> None:
    """A chunk with count_tokens(chunk) <= max_tokens reaches the model whole."""
    words = WORDS * 40
    fits, beyond = 0, len(words)  # the longest prefix within the limit, by bisection: its count grows with it
    while beyond - fits > 1:
        middle = (fits + beyond) // 2
        if embedder.count_tokens(" ".join(words[:middle])) <= embedder.max_tokens:
            fits = middle
        else:
            beyond = middle
    text = " ".join(words[:fits])
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
    assert not fresh.loaded  # neither queries nor documents load sentence-transformers for a BERT model


def test_warm_up_loads_onnx_and_numpy_only(spec: ModelSpec) -> None:
    fresh = Embedder(spec, batch_size=8)
    fresh.warm_up()
    assert fresh._numpy is not None and fresh._onnx is not None and not fresh.loaded


def test_int8_embeds_documents_and_queries_alike(spec: ModelSpec) -> None:
    """A query must be embedded at the precision of the documents it is compared with."""
    int8 = Embedder(spec, precision="int8")
    assert int8.backend == int8.query_backend == "onnx-int8"
    assert int8.vector_identity == "all-MiniLM-L6-v2 int8"
    documents, query = int8.encode_documents([TEXTS[0], TEXTS[3]]), int8.encode_query(TEXTS[0])
    # One text per run: a chunk's vector does not depend on the chunks embedded with it (activations are quantised
    # with one scale per run), so the same text as a query gets the same vector.
    assert np.abs(query - documents[0]).max() < 1e-6
    fp32 = Embedder(spec).encode_query(TEXTS[0])
    assert 0.95 < cosine(query, fp32) < 0.99999  # quantised, really
    assert not int8.loaded


@pytest.mark.parametrize(("runtime", "precision", "message"), [
    ("numpy", "int8", "ONNX Runtime only"),
    ("sentence-transformers", "int8", "ONNX Runtime only"),
])
def test_impossible_combinations_are_refused(spec: ModelSpec, runtime: str, precision: str, message: str) -> None:
    with pytest.raises(IndexUnavailable, match=message):
        Embedder(spec, runtime=runtime, precision=precision)  # type: ignore[arg-type]


def test_unknown_precisions_and_runtimes_are_refused(spec: ModelSpec) -> None:
    with pytest.raises(ValueError, match="unknown embedding precision 'fp16'"):
        Embedder(spec, precision="fp16")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="runtime 'torch'"):
        Embedder(spec, runtime="torch")  # type: ignore[arg-type]


def test_a_model_the_builtin_runtimes_cannot_run_is_refused_for_them(spec: ModelSpec, tmp_path: Path) -> None:
    relu = _relu_copy(spec, tmp_path)
    for runtime in ("numpy", "onnx"):
        with pytest.raises(IndexUnavailable, match=f"The {runtime} runtime cannot run .*hidden_act"):
            Embedder(relu, runtime=runtime)  # type: ignore[arg-type]
    with pytest.raises(IndexUnavailable, match="int8 embeddings need a model ONNX Runtime runs"):
        Embedder(relu, precision="int8")
    assert Embedder(relu).backend == "sentence-transformers"


def _relu_copy(spec: ModelSpec, folder: Path) -> ModelSpec:
    """The bundled model with a ReLU activation: a BERT the numpy and ONNX encoders do not handle."""
    for item in spec.path.iterdir():
        if item.name != "config.json":
            (folder / item.name).symlink_to(item)
    config = json.loads((spec.path / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "hidden_act": "relu"}))
    return resolve_model(str(folder))


# A meta-path finder that makes the named top-level packages impossible to import, as if not installed.
BLOCK_IMPORTS = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in BLOCKED:
            raise ImportError(f"No module named {name!r} (blocked by the test)")
sys.meta_path.insert(0, Block())
"""


def _run_without(blocked: set[str], code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("VANCETOPE_ONNX_DIR", None)
    script = f"BLOCKED = {blocked!r}\n{BLOCK_IMPORTS}\n{code}"
    return subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True)


def test_without_the_torch_extra_another_model_says_what_to_install(spec: ModelSpec, tmp_path: Path) -> None:
    (tmp_path / "model").mkdir()
    relu = _relu_copy(spec, tmp_path / "model")
    code = (
        "from vancetope_desktop.core.errors import IndexUnavailable\n"
        "from vancetope_desktop.index.embedder import Embedder\n"
        "from vancetope_desktop.index.models import resolve_model\n"
        f"embedder = Embedder(resolve_model({str(relu.path)!r}))\n"
        "try:\n"
        "    embedder.encode_query('a query')\n"
        "except IndexUnavailable as error:\n"
        "    print(error)\n"
    )
    result = _run_without({"sentence_transformers", "transformers", "torch"}, code, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "needs sentence-transformers (torch), which is not installed" in result.stdout, result.stdout
    assert "pip install 'vancetope-desktop[torch]'" in result.stdout, result.stdout


def test_without_onnx_and_no_graph_documents_fall_back_to_numpy(tmp_path: Path) -> None:
    """A frozen bundle shipped without its graph and without the onnx package: the same fp32 vectors, from numpy."""
    code = (
        "import numpy as np\n"
        "from vancetope_desktop.index.embedder import Embedder\n"
        "from vancetope_desktop.index.models import resolve_model\n"
        "from vancetope_desktop.index.numpy_encoder import NumpyEncoder\n"
        f"spec = resolve_model({BUNDLED_MODEL!r})\n"
        "embedder = Embedder(spec)\n"
        "assert embedder.backend == 'onnx-fp32', embedder.backend\n"
        "vectors = embedder.encode_documents(['a chunk', 'another chunk'])\n"
        "assert embedder.backend == 'numpy', embedder.backend\n"
        "assert np.abs(vectors - NumpyEncoder(spec).encode(['a chunk', 'another chunk'])).max() < 1e-6\n"
        "try:\n"
        "    Embedder(spec, runtime='onnx').encode_documents(['x'])\n"
        "    raise SystemExit('an explicit onnx runtime must not fall back')\n"
        "except Exception as error:\n"
        "    assert 'onnx package' in str(error), error\n"
        "print('ok')\n"
    )
    result = _run_without({"onnx"}, code, tmp_path)
    assert result.returncode == 0 and "ok" in result.stdout, result.stderr


@pytest.mark.slow  # loads torch
def test_unsupported_model_falls_back_to_sentence_transformers(spec: ModelSpec, tmp_path: Path) -> None:
    """A BERT the numpy path does not handle (ReLU): queries go through sentence-transformers."""
    fallback = Embedder(_relu_copy(spec, tmp_path))
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
        "assert 'onnxruntime' not in sys.modules  # a cold fp32 query pays no ONNX Runtime import or session\n"
        "assert embedder.encode_documents(['a chunk', 'another chunk']).shape == (2, 384)\n"
        "assert embedder.count_tokens('C++') == 3 and embedder.max_tokens == 254\n"
        "heavy = sorted(m for m in ('torch', 'transformers', 'sentence_transformers') if m in sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
