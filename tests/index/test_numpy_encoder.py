"""The numpy encoder against the real sentence-transformers model (bundled all-MiniLM-L6-v2).

The comparisons load torch (``st_model``; the reference vectors of the bundled model, ``st_reference``, once per
test run): they are marked slow.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from vancetope_desktop.core.errors import IndexUnavailable
from vancetope_desktop.core.settings import BUNDLED_MODEL
from vancetope_desktop.index import numpy_encoder
from vancetope_desktop.index.models import ModelSpec, resolve_model
from vancetope_desktop.index.numpy_encoder import NumpyEncoder, gelu, unsupported_reason

from .conftest import StReference, cosine

REPO = Path(__file__).resolve().parents[2]

LONG = " ".join(
    f"Paragraph {i}: the receptor-binding domain of SARS-CoV-2 binds ACE2 with nanomolar affinity."
    for i in range(40)
)  # ~800 word pieces: truncated at 256 tokens
QUERIES = [
    "hello",
    "x",
    "",
    "   leading and trailing whitespace   ",
    "C++ template metaprogramming",
    "SARS-CoV-2 spike protein mutations (D614G, N501Y)",
    "What is the effect of vitamin D supplementation on COVID-19 severity?",
    "日本語の検索クエリ 中文查询 한국어 질의",
    "Ünïcödé café naïve résumé Straße",
    "α-helix vs β-sheet: ΔG = −5 kJ/mol at 37 °C",
    "emoji 🧬🔬 and symbols ©®™ …",
    "https://doi.org/10.1038/s41586-020-2012-7",
    "def f(x): return x**2  # python\tcode\nnew line",
    "[CLS] literal special tokens [SEP] [MASK]",
    "UPPER CASE AND MiXeD cAsE",
    LONG,
]


pytestmark = pytest.mark.usefixtures("offline")


@pytest.fixture(scope="module")
def encoder(spec: ModelSpec) -> NumpyEncoder:
    return NumpyEncoder(spec)


def _sentence_transformer(path: Path, max_seq_length: int) -> Any:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
    model.max_seq_length = max_seq_length
    return model


@pytest.fixture(scope="module")
def st_model(spec: ModelSpec) -> Any:
    """The reference: the real sentence-transformers pipeline, loaded once for this module."""
    return _sentence_transformer(spec.path, spec.max_tokens)


def test_bundled_model_is_supported(spec: ModelSpec) -> None:
    assert unsupported_reason(spec) is None
    assert spec.pooling == ("mean",) and spec.normalize and spec.max_tokens == 256


@pytest.mark.slow
def test_vectors_match_sentence_transformers(encoder: NumpyEncoder, st_reference: StReference) -> None:
    for text, expected in zip(QUERIES, st_reference.queries, strict=True):
        got = encoder.encode(text)
        assert got.shape == (384,) and got.dtype == np.float32
        assert np.abs(got - expected).max() < 1e-5, text[:60]
        assert np.linalg.norm(got) == pytest.approx(1.0, abs=1e-5)


@pytest.mark.slow
@pytest.mark.corpus
def test_document_batches_match_sentence_transformers(encoder: NumpyEncoder, st_reference: StReference) -> None:
    """Documents as the index writer sends them: one call, length-sorted padded batches, input order kept.

    Real notes whole (most longer than 256 tokens: truncated) and paragraph by paragraph, with the
    CJK, empty and whitespace-only strings of QUERIES (``st_reference``); the vectors libraries already hold came
    from sentence-transformers, so they must stay comparable with new ones to 1e-5.
    """
    texts = st_reference.documents
    got = encoder.encode(texts)
    assert got.shape == (len(texts), 384) and got.dtype == np.float32
    assert sum(len(encoder.tokenize([note])[0][0]) == 256 for note in st_reference.notes) >= 3  # truncated
    worst = np.abs(got - st_reference.vectors).max(axis=1)
    assert worst.max() < 1e-5, texts[int(worst.argmax())][:80]


@pytest.mark.parametrize("batch_tokens", [numpy_encoder.BATCH_TOKENS, 40])
def test_padded_batches_match_single_texts(encoder: NumpyEncoder, batch_tokens: int,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Padding must not leak in, and the input order survives the length sort (40: a batch per few texts)."""
    monkeypatch.setattr(numpy_encoder, "BATCH_TOKENS", batch_tokens)
    texts = QUERIES[::-1]
    batch = encoder.encode(texts)
    assert batch.shape == (len(texts), 384) and batch.dtype == np.float32
    for row, text in zip(batch, texts, strict=True):
        assert np.abs(row - encoder.encode(text)).max() < 1e-6, text[:60]
    assert encoder.encode([]).shape == (0, 384)


@pytest.mark.slow
def test_token_ids_match_sentence_transformers(encoder: NumpyEncoder, st_model: Any) -> None:
    tokenizer = st_model.tokenizer
    for text in QUERIES:
        ids, mask = encoder.tokenize([text])
        expected = tokenizer(text, truncation=True, max_length=256)["input_ids"]
        assert ids[0].tolist() == expected, text[:60]
        assert mask.all()
    ids, _ = encoder.tokenize([LONG])
    assert ids.shape == (1, 256)  # truncated at max_seq_length, [CLS]/[SEP] included
    assert ids[0, 0] == 101 and ids[0, -1] == 102


def _blas_threads() -> int:
    """numpy's BLAS threads (the encoder's matrix products run there); scipy's own BLAS, loaded by
    another test, is not the encoder's business."""
    blas = [i for i in threadpool_info() if i["user_api"] == "blas"]
    numpy_blas = [i for i in blas if Path(i["filepath"]).parent.name.startswith("numpy")] or blas
    return max(i["num_threads"] for i in numpy_blas)


def test_encoding_runs_blas_on_one_thread_and_restores_the_count(encoder: NumpyEncoder,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # Under CPU contention a multi-threaded BLAS made a query take ~800 ms instead of ~50 ms: the
    # forward pass must run on one thread, whatever the process's setting, and leave it as it was.
    seen: list[int] = []
    layer_norm = numpy_encoder._layer_norm

    def watched(*args: Any) -> np.ndarray:
        seen.append(_blas_threads())
        return layer_norm(*args)

    monkeypatch.setattr(numpy_encoder, "_layer_norm", watched)
    with threadpool_limits(limits=2, user_api="blas"):
        encoder.encode("a short query about protein folding")
        assert _blas_threads() == 2
    assert seen and set(seen) == {1}


def test_gelu_is_the_exact_erf_form() -> None:
    x = np.linspace(-8, 8, 4001, dtype=np.float32)
    exact = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.tolist()])
    assert np.max(np.abs(gelu(x) - exact)) < 1e-6
    assert gelu(x).dtype == np.float32


def _variant(spec: ModelSpec, tmp: Path, *, config: dict[str, Any] | None = None,
             pooling: dict[str, Any] | None = None, prefix: str = "") -> ModelSpec:
    """A copy of the bundled model (weights linked, not copied) with edited configs."""
    for item in spec.path.iterdir():
        if item.is_file() and item.name not in ("config.json", "model.safetensors"):
            (tmp / item.name).symlink_to(item)
    (tmp / "1_Pooling").mkdir()
    original_pooling = json.loads((spec.path / "1_Pooling" / "config.json").read_text())
    (tmp / "1_Pooling" / "config.json").write_text(json.dumps({**original_pooling, **(pooling or {})}))
    original_config = json.loads((spec.path / "config.json").read_text())
    (tmp / "config.json").write_text(json.dumps({**original_config, **(config or {})}))
    if prefix:
        from safetensors.numpy import load_file, save_file

        weights = load_file(str(spec.path / "model.safetensors"))
        renamed = {prefix + key: value for key, value in weights.items()}
        save_file(renamed, str(tmp / "model.safetensors"), {"format": "pt"})
    else:
        (tmp / "model.safetensors").symlink_to(spec.path / "model.safetensors")
    return resolve_model(str(tmp))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("variant", "changes_vectors"),
    [
        ({"pooling": {"pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True}}, True),
        ({"pooling": {"pooling_mode_mean_tokens": False, "pooling_mode_max_tokens": True}}, True),
        ({"config": {"hidden_act": "gelu_new"}}, True),
        ({"prefix": "bert."}, False),
    ],
    ids=["cls-pooling", "max-pooling", "gelu-tanh", "bert-prefixed-keys"],
)
def test_supported_variants_match_sentence_transformers(
    spec: ModelSpec, encoder: NumpyEncoder, tmp_path: Path, variant: dict[str, Any], changes_vectors: bool
) -> None:
    """Code paths the bundled model does not take, checked against sentence-transformers on edited copies."""
    edited = _variant(spec, tmp_path, **variant)
    assert unsupported_reason(edited) is None
    texts = QUERIES[4:8]  # truncation is covered above; keep these runs short
    reference = _sentence_transformer(edited.path, edited.max_tokens).encode(texts, convert_to_numpy=True)
    got = NumpyEncoder(edited).encode(texts)
    for text, a, b in zip(texts, got, reference, strict=True):
        assert cosine(a, b) >= 0.9999, text[:60]
    # The edit must matter (far more than the numpy/torch discrepancy), or this would prove nothing.
    # The tanh GELU is close to the erf one (cosine ~0.999997), hence a distance test, not a cosine one.
    to_reference = float(np.abs(got - reference).max())
    to_unedited = float(np.abs(got - encoder.encode(texts)).max())
    assert (to_unedited > 10 * to_reference) == changes_vectors, (to_unedited, to_reference)


def test_unsupported_models_are_refused(spec: ModelSpec, tmp_path: Path) -> None:
    relu = _variant(spec, tmp_path, config={"hidden_act": "relu"})
    assert "hidden_act" in (unsupported_reason(relu) or "")
    with pytest.raises(IndexUnavailable, match="numpy query encoder"):
        NumpyEncoder(relu)
    dense = ModelSpec(**{**_fields(spec), "modules": ("Transformer", "Pooling", "Dense", "Normalize")})
    assert "pipeline" in (unsupported_reason(dense) or "")
    weighted = ModelSpec(**{**_fields(spec), "pooling": ("weightedmean",)})
    assert "pooling" in (unsupported_reason(weighted) or "")


def _fields(spec: ModelSpec) -> dict[str, Any]:
    return {name: getattr(spec, name) for name in spec.__dataclass_fields__}


def test_encoding_a_query_does_not_import_torch() -> None:
    """The point of the module: a cold process embeds a query with numpy only."""
    code = (
        "import sys\n"
        "from vancetope_desktop.index.models import resolve_model\n"
        "from vancetope_desktop.index.numpy_encoder import NumpyEncoder\n"
        f"vector = NumpyEncoder(resolve_model({BUNDLED_MODEL!r})).encode('SARS-CoV-2 C++ query')\n"
        "assert vector.shape == (384,), vector.shape\n"
        "heavy = sorted(m for m in ('torch', 'transformers', 'sentence_transformers') if m in sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
