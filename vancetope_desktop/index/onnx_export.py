"""The ONNX graph of a BERT sentence model, built from its safetensors without torch, and its cache.

:func:`build_graph` writes BertModel + sentence-transformers Pooling (+ Normalize) as an ONNX graph with
the ``onnx`` package's helpers, node for node what ``numpy_encoder.NumpyEncoder`` computes, for every
model :func:`~vancetope_desktop.index.numpy_encoder.unsupported_reason` accepts. ``int8`` is that graph
through ONNX Runtime's ``quantize_dynamic`` (int8 weights, activations quantised per batch at run time).

:func:`ensure_graph` finds or makes the graph a process needs. A graph's file name holds a key: a hash of
the model's files (``config.json``, ``model.safetensors``), its pooling, :data:`BUILDER_VERSION` and the
precision, so a changed model or builder never reuses a stale graph. It looks, in order, in

1. ``$VANCETOPE_ONNX_DIR`` and the frozen bundle's ``onnx-graphs`` folder (read-only: graphs built
   ahead with ``python -m vancetope_desktop.index.onnx_export FOLDER``, see :func:`main`);
2. ``<platformdirs user cache dir>/vancetope-desktop/onnx`` (built there on first use, ~3 s for
   all-MiniLM-L6-v2 in fp32, ~6 s for int8, written to a temporary file and renamed, so a crash never
   leaves half a graph; a cache that cannot be written falls back to a temporary folder for this process).

Only :func:`build_graph` and :func:`quantize` import ``onnx`` / ``onnxruntime.quantization``; finding a
graph reads a few small files and hashes the weights once per process (~0.1 s for 90 MB).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import math
import os
import re
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from platformdirs import user_cache_path

from vancetope_desktop.core.errors import IndexUnavailable

from .models import ModelSpec

TELEMETRY_ENV = "ORT_DISABLE_TELEMETRY"
"""ONNX Runtime's switch for its 1DS telemetry, set to ``"1"`` when this module is imported.

ONNX Runtime (1.32 measured) starts that telemetry when ``onnxruntime`` is imported, on Linux too: it writes a device
id and an event database under ``~/.cache/Microsoft/DeveloperTools/.onnxruntime`` and its threads look up
``mobile.events.data.microsoft.com``. It reads the variable once, at import: set after the import, or replaced by
``onnxruntime.disable_telemetry_events()`` (Windows ETW events only), the files are still written. Every product
path to ``onnxruntime`` imports this module first (``onnx_encoder`` at its top, :func:`quantize` here), and worker
processes inherit the variable; ``tests/index/test_onnx_encoder.py`` checks an encode in a fresh home writes none.
"""
os.environ[TELEMETRY_ENV] = "1"

__all__ = [
    "BUILDER_VERSION",
    "GRAPH_DIR_ENV",
    "PRECISIONS",
    "TELEMETRY_ENV",
    "Precision",
    "build_ahead",
    "build_graph",
    "cache_dir",
    "ensure_graph",
    "graph_name",
    "main",
    "quantize",
]

Precision = Literal["fp32", "int8"]
PRECISIONS: tuple[Precision, ...] = ("fp32", "int8")

BUILDER_VERSION = 2
"""Bumped whenever :func:`build_graph` or :func:`quantize` changes what they write: old cached graphs are
then never reused (their key no longer matches)."""

GRAPH_DIR_ENV = "VANCETOPE_ONNX_DIR"
"""Environment variable naming a read-only folder of graphs built ahead (:func:`build_ahead`)."""

BUNDLE_FOLDER = "onnx-graphs"
"""The folder, inside a frozen bundle's data (``sys._MEIPASS``), where its build puts prebuilt graphs."""

_OPSET = 18
_IR_VERSION = 8  # what onnxruntime >= 1.15 reads
_WEIGHTS = "model.safetensors"
_HASHED_FILES = ("config.json", _WEIGHTS)
_digests: dict[tuple[str, int, int], str] = {}
_digests_lock = threading.Lock()
_build_lock = threading.Lock()


def cache_dir() -> Path:
    """``<platformdirs user cache dir>/vancetope-desktop/onnx``: where graphs are built on first use."""
    return user_cache_path("vancetope-desktop", appauthor=False) / "onnx"


def _prebuilt_dirs() -> list[Path]:
    dirs = []
    if os.environ.get(GRAPH_DIR_ENV):
        dirs.append(Path(os.environ[GRAPH_DIR_ENV]))
    bundle = getattr(sys, "_MEIPASS", None)  # set by PyInstaller in a frozen app
    if bundle:
        dirs.append(Path(bundle) / BUNDLE_FOLDER)
    return dirs


def _file_digest(path: Path) -> str:
    """sha256 of a file, memoised per process by (path, size, mtime)."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    with _digests_lock:
        if key not in _digests:
            with path.open("rb") as handle:
                _digests[key] = hashlib.file_digest(handle, "sha256").hexdigest()
        return _digests[key]


def graph_name(spec: ModelSpec, precision: Precision) -> str:
    """The graph's file name for ``spec`` at ``precision``, e.g. ``all-MiniLM-L6-v2-3f2a…-int8.onnx``.

    Raises:
        ValueError: an unknown precision.
        OSError: the model's files cannot be read.
    """
    if precision not in PRECISIONS:
        raise ValueError(f"unknown embedding precision {precision!r} (one of {', '.join(PRECISIONS)})")
    key = hashlib.sha256()
    key.update(f"builder {BUILDER_VERSION} {precision} {spec.pooling} {spec.normalize}\n".encode())
    for name in _HASHED_FILES:
        key.update(f"{name} {_file_digest(spec.transformer_path / name)}\n".encode())
    slug = re.sub(r"[^\w.-]+", "_", spec.name)[:60]
    return f"{slug}-{key.hexdigest()[:20]}-{precision}.onnx"


def ensure_graph(spec: ModelSpec, precision: Precision, *, rebuild: bool = False) -> Path:
    """The graph for ``spec`` at ``precision``: a prebuilt one, the cached one, or one built now.

    Args:
        spec: a model :func:`~vancetope_desktop.index.numpy_encoder.unsupported_reason` accepts.
        precision: ``"fp32"`` or ``"int8"``.
        rebuild: build again even if a graph is cached (the caller found it corrupt); prebuilt folders
            are then skipped too.

    Returns:
        The path of an ``.onnx`` file (not checked beyond existing: ONNX Runtime reports a corrupt one).

    Raises:
        IndexUnavailable: the graph has to be built and ``onnx`` is not installed, or building failed.
    """
    name = graph_name(spec, precision)
    if not rebuild:
        for folder in _prebuilt_dirs():
            if (folder / name).is_file():
                return folder / name
    with _build_lock:  # two threads of one process build once; two processes may both build (rename wins)
        target = cache_dir() / name
        if target.is_file() and not rebuild:
            return target
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            _build_into(spec, precision, target)
        except OSError:
            # A cache that cannot be written (read-only home, a file in the way, a full disk): build for
            # this process into a temporary folder (the next process tries the cache again).
            target = Path(tempfile.mkdtemp(prefix="vancetope-onnx-")) / name
            _build_into(spec, precision, target)
        return target


def _build_into(spec: ModelSpec, precision: Precision, target: Path) -> None:
    """Build the graph (int8: from the fp32 one, found or built first) and rename it into ``target``."""
    handle, temporary = tempfile.mkstemp(prefix=target.stem + ".", suffix=".part", dir=target.parent)
    os.close(handle)
    try:
        if precision == "fp32":
            build_graph(spec, Path(temporary))
        else:
            quantize(_fp32_for(spec, target), Path(temporary))
        os.chmod(temporary, 0o644)  # mkstemp's 0600 would keep a graph shipped in a bundle from other users
        os.replace(temporary, target)
    finally:
        Path(temporary).unlink(missing_ok=True)


def _fp32_for(spec: ModelSpec, int8_target: Path) -> Path:
    """The fp32 graph an int8 one is quantised from: prebuilt or cached beside it, else built there."""
    name = graph_name(spec, "fp32")
    for folder in (*_prebuilt_dirs(), int8_target.parent):
        if (folder / name).is_file():
            return folder / name
    _build_into(spec, "fp32", int8_target.parent / name)
    return int8_target.parent / name


def quantize(fp32_graph: Path, out: Path) -> None:
    """Write ``fp32_graph`` with int8 weights to ``out`` (``onnxruntime.quantization.quantize_dynamic``).

    Signed int8 weights (``QuantType.QInt8``) with one scale per output channel: per tensor, one outlier
    column set the scale of all and the vectors fell to cosine 0.93 mean / 0.78 worst against fp32 on 43
    corpus notes; per channel 0.988 / 0.961 (unsigned weights 0.970 / 0.917, ``reduce_range`` 0.78).
    The MatMuls with a weight operand become ``MatMulInteger`` and quantise their activations per run, with one
    scale for the whole batch: ``OnnxEncoder`` therefore runs int8 one text at a time.

    Raises:
        IndexUnavailable: ``onnx`` (which the quantiser needs) is not installed, or quantising failed.
    """
    try:
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError as exc:
        raise IndexUnavailable(f"int8 embeddings need the onnx package to build their graph: {exc}") from exc
    quiet = _DropPreprocessingAdvice()
    logging.getLogger().addFilter(quiet)
    try:
        quantize_dynamic(str(fp32_graph), str(out), weight_type=QuantType.QInt8, per_channel=True)
    except Exception as exc:  # onnx's and the quantiser's own errors are many and undocumented
        raise IndexUnavailable(f"Cannot quantise {fp32_graph.name} to int8: {exc}") from exc
    finally:
        logging.getLogger().removeFilter(quiet)


class _DropPreprocessingAdvice(logging.Filter):
    """The quantiser logs a warning on the root logger advising shape-inference pre-processing: that pass
    only matters for static quantisation of convolutions, and the advice would land in the user's terminal."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "pre-processing before quantization" not in record.getMessage()


def build_graph(spec: ModelSpec, path: Path) -> None:
    """Write BertModel + Pooling (+ Normalize) for ``spec`` as an fp32 ONNX graph (opset 18) at ``path``.

    Inputs ``input_ids`` and ``attention_mask`` (int64, batch × length, right-padded), output
    ``embedding`` (float32, batch × hidden; unit norm when the model ends with Normalize). Mirrors
    ``NumpyEncoder._forward`` and ``_pool``: the token-type embedding folded into the positions
    (single texts: all type 0), post-LayerNorm layers, padding keys masked with -1e9, GELU exact (erf)
    or tanh as ``hidden_act`` says, mean / CLS / max pooling. ONNX Runtime's optimiser fuses LayerNorm,
    GELU and attention at session creation.

    Raises:
        IndexUnavailable: ``onnx`` is not installed, or a weight tensor is missing.
    """
    try:
        import numpy as np
        import onnx
        from onnx import TensorProto, numpy_helper
        from onnx import helper as oh
        from safetensors.numpy import load_file
    except ImportError as exc:
        raise IndexUnavailable(f"Building the ONNX graph needs the onnx package: {exc}") from exc

    config = json.loads((spec.transformer_path / "config.json").read_text(encoding="utf-8"))
    raw = load_file(str(spec.transformer_path / _WEIGHTS))
    # Checkpoints saved from BertFor* heads prefix the encoder with "bert."; BertModel's do not.
    prefix = "bert." if "bert.embeddings.word_embeddings.weight" in raw else ""
    hidden, heads = int(config["hidden_size"]), int(config["num_attention_heads"])
    eps = float(config.get("layer_norm_eps", 1e-12))
    head_dim = hidden // heads
    initializers: list[Any] = []
    nodes: list[Any] = []

    def weight(key: str) -> Any:
        try:
            return raw[prefix + key]
        except KeyError:
            raise IndexUnavailable(f"{spec.transformer_path / _WEIGHTS} has no tensor {prefix + key!r}.") from None

    def const(name: str, value: Any) -> str:
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def node(kind: str, inputs: list[str], **attributes: Any) -> str:
        out = f"t{len(nodes)}"
        nodes.append(oh.make_node(kind, inputs, [out], **attributes))
        return out

    def linear(x: str, key: str) -> str:
        # Weights are (out, in) as in torch; stored transposed so the MatMul is x @ W.
        return node("Add", [node("MatMul", [x, const(key + ".w", weight(key + ".weight").T)]),
                            const(key + ".b", weight(key + ".bias"))])

    def norm(x: str, key: str) -> str:
        return node("LayerNormalization", [x, const(key + ".g", weight(key + ".weight")),
                                           const(key + ".beta", weight(key + ".bias"))], epsilon=eps, axis=-1)

    def split_heads(x: str, perm: list[int]) -> str:
        return node("Transpose", [node("Reshape", [x, "shape4"])], perm=perm)

    def activation(x: str) -> str:
        if config["hidden_act"] == "gelu":  # exact: 0.5·x·(1 + erf(x/√2))
            erf = node("Erf", [node("Mul", [x, "rsqrt2"])])
            return node("Mul", [node("Mul", [x, "half"]), node("Add", [erf, "one"])])
        # gelu_new / gelu_pytorch_tanh: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
        cube = node("Mul", [node("Mul", [node("Mul", [x, x]), x]), "c044715"])
        inner = node("Tanh", [node("Mul", [node("Add", [x, cube]), "sqrt2pi"])])
        return node("Mul", [node("Mul", [x, "half"]), node("Add", [inner, "one"])])

    const("word", weight("embeddings.word_embeddings.weight"))
    const("position", weight("embeddings.position_embeddings.weight")
          + weight("embeddings.token_type_embeddings.weight")[0])
    for name, value in {"zero": [0], "one_i": [1], "two_i": [2], "shape4": [0, 0, heads, head_dim],
                        "shape3": [0, 0, hidden], "ax1": [1], "ax12": [1, 2], "axm1": [-1]}.items():
        const(name, np.array(value, np.int64))
    scalars = {"one": 1.0, "big_negative": -1e9, "half": 0.5, "scale": 1 / math.sqrt(head_dim), "tiny": 1e-9,
               "eps12": 1e-12}
    # Only the constants the graph uses: ONNX Runtime warns about every unused initialiser.
    scalars.update({"rsqrt2": 1 / math.sqrt(2)} if config["hidden_act"] == "gelu"
                   else {"c044715": 0.044715, "sqrt2pi": math.sqrt(2 / math.pi)})
    if spec.pooling[0] == "max":
        scalars["minus_inf"] = -np.inf
    for name, scalar in scalars.items():
        const(name, np.array(scalar, np.float32))
    length = node("Slice", [node("Shape", ["input_ids"]), "one_i", "two_i"])
    x = node("Add", [node("Gather", ["word", "input_ids"]), node("Slice", ["position", "zero", length, "zero"])])
    x = norm(x, "embeddings.LayerNorm")
    mask = node("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    bias = node("Unsqueeze", [node("Mul", [node("Sub", ["one", mask]), "big_negative"]), "ax12"])
    for i in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{i}."
        q = split_heads(linear(x, p + "attention.self.query"), [0, 2, 1, 3])
        k = split_heads(linear(x, p + "attention.self.key"), [0, 2, 3, 1])
        v = split_heads(linear(x, p + "attention.self.value"), [0, 2, 1, 3])
        scores = node("Add", [node("Mul", [node("MatMul", [q, k]), "scale"]), bias])
        context = node("MatMul", [node("Softmax", [scores], axis=-1), v])
        context = node("Reshape", [node("Transpose", [context], perm=[0, 2, 1, 3]), "shape3"])
        x = norm(node("Add", [linear(context, p + "attention.output.dense"), x]), p + "attention.output.LayerNorm")
        inner = activation(linear(x, p + "intermediate.dense"))
        x = norm(node("Add", [linear(inner, p + "output.dense"), x]), p + "output.LayerNorm")
    weights = node("Unsqueeze", [mask, "axm1"])
    pooling = spec.pooling[0]
    if pooling == "mean":
        total = node("ReduceSum", [node("Mul", [x, weights]), "ax1"], keepdims=0)
        pooled = node("Div", [total, node("Max", [node("ReduceSum", [weights, "ax1"], keepdims=0), "tiny"])])
    elif pooling == "cls":  # right padding: [CLS] is always position 0
        pooled = node("Gather", [x, "zero"], axis=1)
        pooled = node("Squeeze", [pooled, "ax1"])
    else:  # "max" over real tokens
        pooled = node("ReduceMax", [node("Where", [node("Cast", [weights], to=TensorProto.BOOL), x, "minus_inf"]),
                                    "ax1"], keepdims=0)
    if spec.normalize:
        norm_length = node("Max", [node("ReduceL2", [pooled, "axm1"], keepdims=1), "eps12"])
        nodes.append(oh.make_node("Div", [pooled, norm_length], ["embedding"]))
    else:
        nodes.append(oh.make_node("Identity", [pooled], ["embedding"]))
    graph = oh.make_graph(
        nodes, "bert_sentence_embedding",
        [oh.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "length"]),
         oh.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "length"])],
        [oh.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", hidden])],
        initializer=initializers,
    )
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", _OPSET)])
    model.ir_version = _IR_VERSION
    serialized = model.SerializeToString()  # once: check_model of the model object and onnx.save each did (90 MB)
    onnx.checker.check_model(serialized)
    path.write_bytes(serialized)


def build_ahead(spec: ModelSpec, folder: Path, precisions: Sequence[Precision] = PRECISIONS) -> list[Path]:
    """Build ``spec``'s graphs into ``folder`` for a bundle: the encoder finds them there (see the module).

    Args:
        spec: the model to build for (the bundle's: ``resolve_model(BUNDLED_MODEL)``).
        folder: created if missing; e.g. the frozen bundle's ``onnx-graphs`` data folder.
        precisions: which graphs (fp32 and int8 by default, ~90 MB and ~23 MB for all-MiniLM-L6-v2).

    Returns:
        The paths written (existing graphs with the same key are kept as they are).
    """
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for precision in precisions:
        target = folder / graph_name(spec, precision)
        if not target.is_file():
            _build_into(spec, precision, target)  # int8: from the fp32 graph, built beside it if need be
        written.append(target)
    if "fp32" not in precisions:  # built only to be quantised
        (folder / graph_name(spec, "fp32")).unlink(missing_ok=True)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m vancetope_desktop.index.onnx_export FOLDER [--model SPEC] [--precision fp32 int8]``.

    Builds graphs ahead into FOLDER (for a frozen bundle: its ``onnx-graphs`` data folder, or any folder
    named by ``$VANCETOPE_ONNX_DIR`` at run time) and prints their paths. Returns the exit status.
    """
    from vancetope_desktop.core.settings import BUNDLED_MODEL

    from .models import resolve_model

    parser = argparse.ArgumentParser(prog="python -m vancetope_desktop.index.onnx_export",
                                     description="Build the embedding model's ONNX graphs ahead of first use.")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--model", default=BUNDLED_MODEL, help="an embedding_model setting (default: the bundled)")
    parser.add_argument("--precision", nargs="+", choices=PRECISIONS, default=list(PRECISIONS))
    args = parser.parse_args(argv)
    for path in build_ahead(resolve_model(args.model), args.folder, args.precision):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
