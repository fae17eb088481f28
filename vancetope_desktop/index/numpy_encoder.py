"""A pure-numpy BERT sentence encoder: documents and queries embedded without torch.

Why it exists: importing sentence-transformers costs 4-6 s and ~500 MB per process (torch alone
>1 s), which the CLI's cold ``vancetope memory search`` (budget ~1.5 s), the indexing process and
every test process would pay. A query is a few dozen word pieces, for which a 6-layer MiniLM forward
pass in numpy takes a few milliseconds; document batches run as fast as torch on one thread
(``tests/benchmarks/bench_embedding_runtimes.py``). This module needs only ``numpy``, ``tokenizers``
and ``safetensors.numpy`` (~0.1 s to import together), reads the same ``model.safetensors`` /
``tokenizer.json`` as sentence-transformers, and reproduces its vectors (max abs difference < 1e-5
on normalised vectors; tested against the real model in ``tests/index/test_numpy_encoder.py``).

It mirrors Hugging Face ``BertModel`` (post-LayerNorm encoder, absolute position embeddings,
``token_type_ids`` all 0) followed by the sentence-transformers Pooling and Normalize modules.
:func:`unsupported_reason` says whether a resolved model fits; otherwise use sentence-transformers.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import numpy as np
from safetensors import safe_open
from safetensors.numpy import load_file
from threadpoolctl import ThreadpoolController

from vancetope_desktop.core.errors import IndexUnavailable

from .batching import TOKENIZER_FILE, SentenceTokenizer, length_batches
from .models import ModelSpec

__all__ = ["SUPPORTED_ACTIVATIONS", "SUPPORTED_POOLING", "NumpyEncoder", "gelu", "model_config", "unsupported_reason"]

SUPPORTED_POOLING = frozenset({"mean", "cls", "max"})
"""Single pooling modes implemented here (sentence-transformers ``Pooling`` semantics)."""

SUPPORTED_ACTIVATIONS = frozenset({"gelu", "gelu_new", "gelu_pytorch_tanh"})
"""``config.json`` ``hidden_act`` values implemented (names from transformers' ``ACT2FN``)."""

_WEIGHTS = "model.safetensors"
# Half-precision checkpoints run in half precision under transformers, so float32 numpy would not
# reproduce them closely enough; they (and bfloat16, unknown to numpy) go to sentence-transformers.
_WEIGHT_DTYPES = {"F32"}
_INDEX_DTYPES = {"I64", "I32"}  # e.g. embeddings.position_ids, unused
# Additive attention bias for padding keys: large enough that exp() underflows to exactly 0, small
# enough that score + bias never overflows float32 (transformers uses finfo.min, same effect).
_MASK_BIAS = np.float32(-1e9)
_SQRT_HALF = np.float32(1.0 / math.sqrt(2.0))
_SQRT_2_OVER_PI = np.float32(math.sqrt(2.0 / math.pi))


_BLAS_LOCK = threading.Lock()
_blas: ThreadpoolController | None = None


def blas_threads(threads: int = 1) -> AbstractContextManager[Any]:
    """A context in which numpy's BLAS runs on ``threads`` threads (threadpoolctl), restored on exit.

    A query is a few dozen tokens: its matrix products are too small to gain from threads, and
    under CPU contention OpenBLAS's spinning threads wait for cores: a query took ~800 ms with the
    default two threads on a busy 2-core machine against ~50 ms on one
    (``tests/benchmarks/bench_query_threads.py``). The thread count is process-wide, so callers
    hold :data:`_BLAS_LOCK` while inside (two overlapping contexts would restore each other's value).
    The controller scans the loaded libraries once (~25 ms); each limit costs ~25 µs.
    """
    global _blas
    if _blas is None:
        _blas = ThreadpoolController()
    return _blas.limit(limits=max(1, threads), user_api="blas")


BATCH_TOKENS = 512
"""Most padded tokens per forward pass in :meth:`NumpyEncoder.encode` (2 chunks of 256, 25 queries of 20).

The largest temporary is then 3 MB (tokens × 1536 activations), which stays in the CPU caches: on
300 SciFact abstracts (one BLAS thread, busy 2-core machine) 512 took 46 CPU s, 2048 47-50 s and
8192 59 s; one text per pass 54 s. The matrix products are already large enough at 512 rows, and a
query waiting for the BLAS lock waits for at most one such batch (~0.1-0.2 s).
"""


def unsupported_reason(spec: ModelSpec) -> str | None:
    """Why :class:`NumpyEncoder` cannot reproduce ``spec``'s vectors, or ``None`` if it can.

    Reads only small files (configs and the safetensors header), never the weights.
    """
    if spec.modules not in (("Transformer", "Pooling"), ("Transformer", "Pooling", "Normalize")):
        return f"pipeline {' → '.join(spec.modules)} (only Transformer → Pooling → [Normalize])"
    if len(spec.pooling) != 1 or spec.pooling[0] not in SUPPORTED_POOLING:
        return f"pooling {'+'.join(spec.pooling)}"
    base = spec.transformer_path
    for required in (_WEIGHTS, TOKENIZER_FILE):
        if not (base / required).is_file():
            return f"no {required}"
    config = model_config(base)
    if config.get("model_type") != "bert":
        return f"model_type {config.get('model_type')!r} (only 'bert')"
    if config.get("hidden_act") not in SUPPORTED_ACTIVATIONS:
        return f"hidden_act {config.get('hidden_act')!r}"
    if config.get("position_embedding_type", "absolute") != "absolute":
        return f"position_embedding_type {config.get('position_embedding_type')!r}"
    if config.get("is_decoder") or config.get("add_cross_attention"):
        return "decoder / cross-attention BERT"
    bert_config = base / "sentence_bert_config.json"
    if bert_config.is_file() and json.loads(bert_config.read_text(encoding="utf-8")).get("do_lower_case"):
        return "do_lower_case (sentence-transformers lowercases before the tokenizer)"
    st_config = spec.path / "config_sentence_transformers.json"
    if st_config.is_file():
        # A default prompt would be prepended by sentence-transformers on every encode() call.
        prompt = json.loads(st_config.read_text(encoding="utf-8")).get("default_prompt_name")
        if prompt:
            return f"default prompt {prompt!r}"
    try:
        with safe_open(str(base / _WEIGHTS), framework="np") as handle:
            dtypes = {handle.get_slice(key).get_dtype() for key in handle.keys()}  # noqa: SIM118
    except Exception as exc:  # a corrupt header is sentence-transformers' problem to report
        return f"unreadable {_WEIGHTS}: {exc}"
    if not dtypes & _WEIGHT_DTYPES or dtypes - _WEIGHT_DTYPES - _INDEX_DTYPES:
        return f"weight dtypes {sorted(dtypes)}"
    return None


def model_config(path: Path) -> dict[str, Any]:
    """The ``config.json`` of a transformer directory as a dict (``{}`` if it holds something else)."""
    value = json.loads((path / "config.json").read_text(encoding="utf-8"))
    return value if isinstance(value, dict) else {}


# Abramowitz & Stegun 7.1.26: erf(z) = 1 - t·P(t)·exp(-z²), t = 1/(1 + p·z), z ≥ 0 (|error| ≤ 1.5e-7, below
# float32 resolution here). numpy has no erf, and scipy.special costs ~0.5 s to import and is no faster.
_ERF_P = np.float32(0.3275911)
_ERF_COEFFICIENTS = tuple(np.float32(c) for c in (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592))


def _gelu_erf(x: np.ndarray) -> np.ndarray:
    """``0.5·x·(1 + erf(x/√2))`` in float32, computed in place on two temporaries.

    The activation is the largest array of the forward pass (tokens × 1536 for MiniLM); written as
    nested expressions it made ~20 passes through memory and took as long as the two GEMMs around
    it. Here: ``q = ½·t·P(t)·exp(-z²)`` with ``z = |x|/√2`` is ``(1 - erf(z))/2``, so the result is
    ``x·(1 - q)`` for ``x ≥ 0`` and ``x·q`` for ``x < 0``.
    """
    z = np.abs(x)
    z *= _SQRT_HALF
    t = z * _ERF_P
    t += 1
    np.reciprocal(t, out=t)
    q = t * _ERF_COEFFICIENTS[0]
    for coefficient in _ERF_COEFFICIENTS[1:]:
        q += coefficient
        q *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    q *= z
    q *= np.float32(0.5)
    np.subtract(1, q, out=q, where=x >= 0)
    q *= x
    return q


def gelu(x: np.ndarray, kind: str = "gelu") -> np.ndarray:
    """The activation named by ``config.json`` ``hidden_act``, as in transformers' ``ACT2FN``.

    ``"gelu"`` is the exact erf form ``0.5·x·(1 + erf(x/√2))`` used by ``BertModel`` (and by
    all-MiniLM-L6-v2); ``"gelu_new"`` / ``"gelu_pytorch_tanh"`` are the tanh approximation.
    Returns a float32 array of ``x``'s shape.
    """
    x = np.asarray(x, dtype=np.float32)
    if kind == "gelu":
        return _gelu_erf(x)
    if kind in ("gelu_new", "gelu_pytorch_tanh"):
        inner = _SQRT_2_OVER_PI * (x + np.float32(0.044715) * x * x * x)
        return (0.5 * x * (1.0 + np.tanh(inner))).astype(np.float32, copy=False)
    raise ValueError(f"unsupported activation {kind!r}")


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    """LayerNorm over the last axis, computed in ``x`` (a temporary the caller gives up) and returned."""
    x -= x.mean(axis=-1, keepdims=True)
    var = np.einsum("...i,...i->...", x, x)[..., None]  # sum of squares without a squared copy
    var /= np.float32(x.shape[-1])
    var += np.float32(eps)
    np.sqrt(var, out=var)
    x /= var
    x *= weight
    x += bias
    return x


class NumpyEncoder:
    """Sentence embeddings of a BERT sentence-transformers model in numpy (float32, CPU).

    Build with :meth:`from_spec`. Immutable after construction, so :meth:`encode` is thread-safe
    (the ``tokenizers`` object is never reconfigured after ``__init__``). Loading reads the whole
    ``model.safetensors`` (~90 MB for MiniLM, ~50 ms warm) and ``tokenizer.json`` (~20 ms).
    """

    def __init__(self, spec: ModelSpec) -> None:
        """Load weights and tokenizer for ``spec``.

        Raises:
            IndexUnavailable: if :func:`unsupported_reason` objects, or a weight tensor is missing.
        """
        reason = unsupported_reason(spec)
        if reason is not None:
            raise IndexUnavailable(f"The numpy query encoder cannot run {spec.name}: {reason}.")
        config = model_config(spec.transformer_path)
        self.spec = spec
        self.max_length = spec.max_tokens
        self._eps = float(config.get("layer_norm_eps", 1e-12))
        self._act = str(config["hidden_act"])
        self._heads = int(config["num_attention_heads"])
        hidden = int(config["hidden_size"])
        self._head_dim = hidden // self._heads
        self._pooling = spec.pooling[0]
        self._tokenizer = SentenceTokenizer(spec, config)
        self._load_weights(spec.transformer_path / _WEIGHTS, int(config["num_hidden_layers"]))

    @classmethod
    def from_spec(cls, spec: ModelSpec) -> NumpyEncoder:
        """Same as ``NumpyEncoder(spec)``."""
        return cls(spec)

    def _load_weights(self, path: Path, layers: int) -> None:
        raw = load_file(str(path))
        # Checkpoints saved from BertFor* heads prefix the encoder with "bert."; BertModel's do not.
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in raw else ""

        def get(key: str) -> np.ndarray:
            try:
                return np.ascontiguousarray(raw[prefix + key])
            except KeyError:
                raise IndexUnavailable(f"{path} has no tensor {prefix + key!r}.") from None

        self._word = get("embeddings.word_embeddings.weight")
        # token_type_ids are all 0 for single texts, so the type embedding folds into the positions.
        self._position = get("embeddings.position_embeddings.weight") + get(
            "embeddings.token_type_embeddings.weight"
        )[0]
        self._emb_norm = (get("embeddings.LayerNorm.weight"), get("embeddings.LayerNorm.bias"))
        self._layers: list[dict[str, np.ndarray]] = []
        for i in range(layers):
            p = f"encoder.layer.{i}."
            attn = p + "attention.self."
            # Linear weights are (out, in) as in torch; x @ W.T goes to BLAS as a transposed GEMM, no copy.
            self._layers.append(
                {
                    # Q, K and V fused into one (3H, H) matrix: one GEMM per layer instead of three.
                    "qkv_w": np.concatenate([get(attn + n + ".weight") for n in ("query", "key", "value")]),
                    "qkv_b": np.concatenate([get(attn + n + ".bias") for n in ("query", "key", "value")]),
                    "out_w": get(p + "attention.output.dense.weight"),
                    "out_b": get(p + "attention.output.dense.bias"),
                    "ln1_w": get(p + "attention.output.LayerNorm.weight"),
                    "ln1_b": get(p + "attention.output.LayerNorm.bias"),
                    "in_w": get(p + "intermediate.dense.weight"),
                    "in_b": get(p + "intermediate.dense.bias"),
                    "ff_w": get(p + "output.dense.weight"),
                    "ff_b": get(p + "output.dense.bias"),
                    "ln2_w": get(p + "output.LayerNorm.weight"),
                    "ln2_b": get(p + "output.LayerNorm.bias"),
                }
            )

    @property
    def dimension(self) -> int:
        """Length of the output vectors."""
        return int(self._word.shape[1])

    def tokenize(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Token ids and attention mask, both ``(len(texts), longest)`` int64, as sentence-transformers.

        Texts are truncated to ``max_length`` tokens including ``[CLS]``/``[SEP]``, padded on the right.
        """
        return self._tokenizer.tokenize(texts)

    def encode(self, texts: str | Sequence[str], *, threads: int = 1) -> np.ndarray:
        """Embed one text or many (queries or document chunks).

        Texts are sorted by token count and cut into batches of at most :data:`BATCH_TOKENS` padded
        tokens, so padding stays small and the temporaries fit the CPU caches; the result keeps the
        input order.

        Args:
            texts: a string, or a sequence of strings.
            threads: BLAS threads for the matrix products (numpy's process-wide pool, limited with
                threadpoolctl and restored afterwards). 1 by default: a query is too small to gain
                from threads, and under CPU contention OpenBLAS's spinning threads stall
                (``tests/benchmarks/bench_query_threads.py``); document batches too: two threads took
                3.8× the CPU time of one on the shared 2-core machine, for a quarter of the throughput
                (``tests/benchmarks/bench_embedding_runtimes.py``).

        Returns:
            float32 ``(dimension,)`` for a string, ``(len(texts), dimension)`` for a sequence;
            unit L2 norm when the model ends with Normalize (as sentence-transformers would).
        """
        single = isinstance(texts, str)
        batch = [texts] if single else list(texts)
        out = np.empty((len(batch), self.dimension), dtype=np.float32)
        encoded = [self._tokenizer.ids(text) for text in batch]
        for rows in length_batches(encoded, BATCH_TOKENS):
            ids, mask = self._tokenizer.pad([encoded[i] for i in rows])
            with _BLAS_LOCK, blas_threads(threads):
                hidden = self._forward(ids, mask)
            out[rows] = self._pool(hidden, mask)
        if self.spec.normalize:
            norms = np.linalg.norm(out, axis=1, keepdims=True)
            out /= np.maximum(norms, np.float32(1e-12))  # torch F.normalize's eps
        return out[0] if single else out

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """BertModel's last hidden state, ``(batch, length, hidden)`` float32.

        Written for memory traffic as much as for arithmetic: fused QKV, K laid out transposed and
        contiguous (numpy hands stacked products to BLAS only for contiguous operands; a transposed
        view took twice as long), softmax and activation in place.
        """
        batch, length = ids.shape
        heads, head_dim = self._heads, self._head_dim
        x = self._word[ids] + self._position[:length]
        x = _layer_norm(x, *self._emb_norm, self._eps)
        # Padding keys get a large negative bias; skipped when nothing is padded (always for one text).
        bias = None
        if not mask.all():
            bias = np.where(mask[:, None, None, :] == 0, _MASK_BIAS, np.float32(0.0))
        scale = np.float32(1.0 / math.sqrt(head_dim))
        x = x.reshape(batch * length, -1)  # 2-D activations: every Linear is one GEMM
        for w in self._layers:
            qkv = x @ w["qkv_w"].T  # (B·L, 3H)
            qkv += w["qkv_b"]
            qkv = qkv.reshape(batch, length, 3, heads, head_dim)
            q = np.ascontiguousarray(qkv[:, :, 0].transpose(0, 2, 1, 3))  # (B, heads, L, head_dim)
            q *= scale
            k_t = np.ascontiguousarray(qkv[:, :, 1].transpose(0, 2, 3, 1))  # (B, heads, head_dim, L)
            v = np.ascontiguousarray(qkv[:, :, 2].transpose(0, 2, 1, 3))
            scores = q @ k_t  # (B, heads, L, L)
            if bias is not None:
                scores += bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch * length, heads * head_dim)
            attended = context @ w["out_w"].T
            attended += w["out_b"]
            attended += x
            x = _layer_norm(attended, w["ln1_w"], w["ln1_b"], self._eps)
            inner = x @ w["in_w"].T
            inner += w["in_b"]
            inner = gelu(inner, self._act)
            output = inner @ w["ff_w"].T
            output += w["ff_b"]
            output += x
            x = _layer_norm(output, w["ln2_w"], w["ln2_b"], self._eps)
        return x.reshape(batch, length, -1)

    def _pool(self, hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """sentence-transformers Pooling over real (unpadded) tokens, ``(batch, hidden)``."""
        weights = mask[:, :, None].astype(np.float32)
        if self._pooling == "mean":
            total = (hidden * weights).sum(axis=1)
            return total / np.maximum(weights.sum(axis=1), np.float32(1e-9))
        if self._pooling == "cls":
            return hidden[:, 0]  # right padding: [CLS] is always position 0
        return np.where(weights > 0, hidden, -np.inf).max(axis=1)  # "max"
