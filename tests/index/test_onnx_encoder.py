"""The ONNX Runtime encoder and its graph cache, against the real bundled model and sentence-transformers.

The graph is built from the real ``model.safetensors`` (no torch); the comparison with sentence-transformers
takes its vectors from ``st_reference`` (once per test run): it is marked slow.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vancetope_desktop.core.errors import IndexUnavailable
from vancetope_desktop.index import onnx_encoder, onnx_export
from vancetope_desktop.index.models import ModelSpec
from vancetope_desktop.index.numpy_encoder import NumpyEncoder
from vancetope_desktop.index.onnx_encoder import OnnxEncoder
from vancetope_desktop.index.onnx_export import build_ahead, ensure_graph, graph_name

from .conftest import StReference, cosine
from .test_numpy_encoder import QUERIES, _variant

pytestmark = pytest.mark.usefixtures("offline")


@pytest.fixture(scope="module")
def prebuilt(spec: ModelSpec, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both graphs of the bundled model, built once for the module into a folder of its own."""
    folder = tmp_path_factory.mktemp("onnx-graphs")
    paths = build_ahead(spec, folder)
    assert [p.name for p in paths] == [graph_name(spec, "fp32"), graph_name(spec, "int8")]
    return folder


@pytest.fixture
def graphs(prebuilt: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The module's graphs as the prebuilt folder, and an empty cache of this test's own."""
    monkeypatch.setenv(onnx_export.GRAPH_DIR_ENV, str(prebuilt))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return prebuilt


@pytest.mark.slow
@pytest.mark.corpus
def test_fp32_vectors_match_sentence_transformers(spec: ModelSpec, graphs: Path, st_reference: StReference) -> None:
    """Queries one by one and documents in one call (length-sorted batches, some truncated), to 1e-5."""
    encoder = OnnxEncoder(spec, "fp32")
    for text, expected in zip(QUERIES, st_reference.queries, strict=True):
        got = encoder.encode(text)
        assert got.shape == (384,) and got.dtype == np.float32
        assert np.abs(got - expected).max() < 1e-5, text[:60]
    texts = st_reference.documents
    got = encoder.encode(texts)
    assert got.shape == (len(texts), 384)
    assert sum(len(encoder.tokenize([note])[0][0]) == 256 for note in st_reference.notes) >= 3  # truncated
    worst = np.abs(got - st_reference.vectors).max(axis=1)
    assert worst.max() < 1e-5, texts[int(worst.argmax())][:80]


@pytest.mark.parametrize("budget", [onnx_encoder.BATCH_TOKENS, 40])
def test_batches_keep_the_input_order(spec: ModelSpec, graphs: Path, budget: int,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Padding must not leak in, and the length sort must not reorder the output (40: a batch per few texts)."""
    monkeypatch.setattr(onnx_encoder, "BATCH_TOKENS", budget)
    encoder = OnnxEncoder(spec, "fp32")
    texts = QUERIES[::-1]
    batch = encoder.encode(texts)
    for row, text in zip(batch, texts, strict=True):
        assert np.abs(row - encoder.encode(text)).max() < 1e-5, text[:60]
    assert encoder.encode([]).shape == (0, 384)


@pytest.mark.parametrize("precision", ["fp32", "int8"])
def test_parallel_streams_give_the_same_vectors_in_the_same_order(spec: ModelSpec, graphs: Path,
                                                                  precision: str) -> None:
    """Batches run on two threads at once (ENCODE_STREAMS) write each its own rows: the output is the one stream's,
    bit for bit, and a query (one text) never starts the threads."""
    texts = QUERIES[::-1] * 3
    one, two = OnnxEncoder(spec, precision, streams=1), OnnxEncoder(spec, precision, streams=2)
    two.encode(texts[0])
    assert two._pool is None
    assert np.array_equal(one.encode(texts), two.encode(texts))
    assert two._pool is not None


def test_int8_is_close_to_fp32_but_not_equal(spec: ModelSpec, graphs: Path) -> None:
    texts = QUERIES[4:12]
    fp32 = OnnxEncoder(spec, "fp32").encode(texts)
    int8 = OnnxEncoder(spec, "int8").encode(texts)
    cosines = [cosine(a, b) for a, b in zip(fp32, int8, strict=True)]
    assert min(cosines) > 0.95, cosines
    assert np.abs(fp32 - int8).max() > 1e-3  # really quantised
    assert np.allclose(np.linalg.norm(int8, axis=1), 1.0, atol=1e-5)


def test_prebuilt_graphs_are_used_and_nothing_is_built(spec: ModelSpec, graphs: Path, tmp_path: Path) -> None:
    assert ensure_graph(spec, "int8") == graphs / graph_name(spec, "int8")
    OnnxEncoder(spec, "int8").encode("a query")
    assert not (tmp_path / "cache").exists()


def test_graph_is_built_once_into_the_cache_then_reused(spec: ModelSpec, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(onnx_export.GRAPH_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    path = ensure_graph(spec, "fp32")
    assert path.parent == onnx_export.cache_dir() and path.is_relative_to(tmp_path / "cache")
    assert path.name == graph_name(spec, "fp32") and path.stat().st_size > 80_000_000
    before = path.stat().st_mtime_ns
    assert ensure_graph(spec, "fp32") == path and path.stat().st_mtime_ns == before
    assert list(path.parent.iterdir()) == [path]  # no temporary file left behind


def test_a_corrupt_cached_graph_is_built_again(spec: ModelSpec, graphs: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(onnx_export.GRAPH_DIR_ENV)
    cached = onnx_export.cache_dir() / graph_name(spec, "fp32")
    cached.parent.mkdir(parents=True)
    shutil.copyfile(graphs / cached.name, cached)
    with cached.open("r+b") as handle:  # a crash of another tool, a bad disk: half the file is gone
        handle.truncate(cached.stat().st_size // 2)
    vector = OnnxEncoder(spec, "fp32").encode("the receptor-binding domain")
    assert cached.stat().st_size > 80_000_000
    assert np.abs(vector - NumpyEncoder(spec).encode("the receptor-binding domain")).max() < 1e-5


# A read-only folder stops every user but root, who writes there anyway: as root only the file in the way blocks
# the cache (both are the same OSError to the encoder), so the case is not offered rather than skipped.
@pytest.mark.parametrize("blocked", ["a file in the way", *(["read-only"] if os.geteuid() != 0 else [])])
def test_an_unwritable_cache_builds_into_a_temporary_folder(spec: ModelSpec, graphs: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch, blocked: str) -> None:
    monkeypatch.delenv(onnx_export.GRAPH_DIR_ENV)
    cache = tmp_path / "cache"
    cache.mkdir()
    if blocked == "read-only":
        cache.chmod(stat.S_IRUSR | stat.S_IXUSR)
    else:
        (cache / "vancetope-desktop").write_text("not a folder")
    try:
        vector = OnnxEncoder(spec, "fp32").encode("a query")
    finally:
        cache.chmod(stat.S_IRWXU)
    assert vector.shape == (384,)
    assert not (cache / "vancetope-desktop").is_dir()


def test_graph_names_key_the_precision_the_builder_and_the_weights(spec: ModelSpec, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    fp32, int8 = graph_name(spec, "fp32"), graph_name(spec, "int8")
    assert fp32 != int8 and fp32.endswith("-fp32.onnx") and fp32.startswith("all-MiniLM-L6-v2-")
    monkeypatch.setattr(onnx_export, "BUILDER_VERSION", onnx_export.BUILDER_VERSION + 1)
    assert graph_name(spec, "fp32") != fp32
    monkeypatch.undo()
    edited = _variant(spec, tmp_path, config={"layer_norm_eps": 1e-6})  # another config.json, same weights
    assert graph_name(edited, "fp32") != fp32
    with pytest.raises(ValueError, match="precision"):
        graph_name(spec, "fp16")  # type: ignore[arg-type]


@pytest.mark.slow
@pytest.mark.parametrize(
    "variant",
    [
        {"pooling": {"pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True}},
        {"pooling": {"pooling_mode_mean_tokens": False, "pooling_mode_max_tokens": True}},
        {"config": {"hidden_act": "gelu_new"}},
        {"prefix": "bert."},
    ],
    ids=["cls-pooling", "max-pooling", "gelu-tanh", "bert-prefixed-keys"],
)
def test_supported_variants_match_the_numpy_encoder(spec: ModelSpec, tmp_path: Path, variant: dict[str, Any],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Every BERT variant the numpy encoder runs (itself checked against sentence-transformers on the same
    edited copies in test_numpy_encoder) gives the same vectors through the ONNX graph."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "model").mkdir()
    edited = _variant(spec, tmp_path / "model", **variant)
    texts = QUERIES[4:10]
    got = OnnxEncoder(edited, "fp32").encode(texts)
    assert np.abs(got - NumpyEncoder(edited).encode(texts)).max() < 1e-5


def test_unsupported_models_are_refused(spec: ModelSpec, tmp_path: Path) -> None:
    relu = _variant(spec, tmp_path, config={"hidden_act": "relu"})
    with pytest.raises(IndexUnavailable, match=r"ONNX encoder cannot run .*hidden_act"):
        OnnxEncoder(relu)


_ENCODE_IN_A_CHILD = """
import sys
if sys.argv[1] == "bare":
    import onnxruntime  # what any program gets that imports it without the product's switch
else:
    from vancetope_desktop.core.settings import BUNDLED_MODEL
    from vancetope_desktop.index.models import resolve_model
    from vancetope_desktop.index.onnx_encoder import OnnxEncoder
    print(OnnxEncoder(resolve_model(BUNDLED_MODEL), sys.argv[1]).encode("telemetry stays off").shape)
"""


def _telemetry_after(mode: str, prebuilt: Path, home: Path) -> Path:
    """Run ``_ENCODE_IN_A_CHILD`` in ``mode`` in a fresh ``home``; the folder ONNX Runtime's telemetry would write."""
    import subprocess
    import sys

    home.mkdir()
    # ONNX Runtime keeps quiet on a build machine (CI, TF_BUILD, GITHUB_ACTIONS, JENKINS_URL): a user's is not.
    dropped = {onnx_export.TELEMETRY_ENV, "XDG_CACHE_HOME", "CI", "TF_BUILD", "GITHUB_ACTIONS", "JENKINS_URL"}
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env |= {"HOME": str(home), onnx_export.GRAPH_DIR_ENV: str(prebuilt)}
    done = subprocess.run([sys.executable, "-c", _ENCODE_IN_A_CHILD, mode], env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return home / ".cache" / "Microsoft" / "DeveloperTools"


@pytest.fixture(scope="module")
def bare_import_writes_telemetry(prebuilt: Path, tmp_path_factory: pytest.TempPathFactory) -> bool:
    """Whether importing ``onnxruntime`` bare, in a fresh home, writes the telemetry files: the proof that the
    check below can see them (one child for both precisions)."""
    return _telemetry_after("bare", prebuilt, tmp_path_factory.mktemp("telemetry") / "home-bare").is_dir()


@pytest.mark.parametrize("precision", ["fp32", "int8"])
def test_an_encode_leaves_no_onnx_runtime_telemetry_files(prebuilt: Path, tmp_path: Path, precision: str,
                                                          bare_import_writes_telemetry: bool) -> None:
    """An encode in a fresh home writes no ``~/.cache/Microsoft/DeveloperTools`` (ONNX Runtime's 1DS telemetry),
    where importing ``onnxruntime`` bare, in the same kind of home, does: the check can see the files."""
    assert bare_import_writes_telemetry, "onnxruntime no longer writes telemetry files: the check cannot fail"
    assert not _telemetry_after(precision, prebuilt, tmp_path / f"home-{precision}").exists()
