"""Document embedding runtimes of the bundled model: sentence-transformers (torch), numpy, ONNX Runtime.

Run: ``.venv/bin/python tests/benchmarks/bench_embedding_runtimes.py [--chunks 300] [--rounds 2]``

1. Real chunks: the body chunks of ``corpus/papers`` as the product stores them (``imports.upload``
   into a temporary library, no embedding), the first ``--chunks`` of them.
2. Each runtime embeds the same chunks in its own process (so its imports, load time and peak memory
   are its own), with one and with two threads, the runtimes interleaved round by round so that
   all see the same load:

   * ``torch``: sentence-transformers as the product used it (``batch_size`` 32, ``torch.set_num_threads``);
   * ``numpy``: ``index/numpy_encoder.NumpyEncoder.encode(texts, threads=N)``, the product's path;
   * ``onnx``: ONNX Runtime (fp32, all graph optimisations) on a graph this script builds from the
     same ``model.safetensors`` with the ``onnx`` package's helpers (no torch; skipped when ``onnx`` is
     not installed), fed the numpy encoder's token ids in length-sorted batches of 32.

3. Prints, per runtime and thread count: chunks/s (wall, median of the rounds), CPU seconds per 100
   chunks (less disturbed by other processes on a shared machine), import + load seconds, peak
   resident memory of the process (``VmHWM``), and the largest difference from the torch vectors (max abs diff of
   normalised vectors, worst cosine).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import CORPUS, median, need, table

RUNTIMES = ("torch", "numpy", "onnx")


def collect_chunks(papers: Path, count: int, out: Path) -> int:
    """Upload papers one by one into a temporary library until ``count`` body chunks; write them as JSON."""
    from sqlmodel import select

    from vancetope_desktop.core.documents import ChunkRole
    from vancetope_desktop.services import imports
    from vancetope_desktop.services.library import Library
    from vancetope_desktop.store import tables
    from vancetope_desktop.store.db import read_session

    texts: list[str] = []
    with tempfile.TemporaryDirectory(prefix="vancetope-bench-runtimes-") as folder:
        lib = Library.open(Path(folder) / "library")
        try:
            for pdf in sorted(papers.glob("*.pdf")):
                report = imports.upload(lib, [pdf])
                ids = [o.document_id for o in report.outcomes if o.status == "imported"]
                with read_session(lib.engine) as session:
                    texts += session.exec(
                        select(tables.ChunkRow.text).where(tables.ChunkRow.document_id.in_(ids))  # type: ignore[attr-defined]
                        .where(tables.ChunkRow.role == ChunkRole.BODY.value)
                        .order_by(tables.ChunkRow.ordinal)  # type: ignore[arg-type]
                    ).all()
                if len(texts) >= count:
                    break
        finally:
            lib.close()
    out.write_text(json.dumps(texts[:count]), encoding="utf-8")
    return min(count, len(texts))


def build_onnx_graph(spec: Any, path: Path) -> None:
    """Write BertModel + mean pooling + Normalize for ``spec`` as an ONNX graph (opset 18), from safetensors.

    Inputs ``input_ids`` and ``attention_mask`` (int64, batch × length), output ``embedding``
    (float32, batch × hidden, unit norm). Mirrors ``NumpyEncoder._forward`` node for node; ONNX
    Runtime's optimiser fuses LayerNorm, GELU and attention.
    """
    import numpy as np
    import onnx
    from onnx import TensorProto, numpy_helper
    from onnx import helper as oh
    from safetensors.numpy import load_file

    config = json.loads((spec.transformer_path / "config.json").read_text(encoding="utf-8"))
    raw = load_file(str(spec.transformer_path / "model.safetensors"))
    hidden, heads, eps = config["hidden_size"], config["num_attention_heads"], config["layer_norm_eps"]
    head_dim = hidden // heads
    initializers: list[Any] = []
    nodes: list[Any] = []

    def const(name: str, value: Any) -> str:
        initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def node(kind: str, inputs: list[str], **attributes: Any) -> str:
        out = f"t{len(nodes)}"
        nodes.append(oh.make_node(kind, inputs, [out], **attributes))
        return out

    def linear(x: str, key: str) -> str:
        return node("Add", [node("MatMul", [x, const(key + ".w", raw[key + ".weight"].T)]),
                            const(key + ".b", raw[key + ".bias"])])

    def norm(x: str, key: str) -> str:
        return node("LayerNormalization", [x, const(key + ".g", raw[key + ".weight"]),
                                           const(key + ".beta", raw[key + ".bias"])], epsilon=eps, axis=-1)

    def split_heads(x: str, perm: list[int]) -> str:
        return node("Transpose", [node("Reshape", [x, "shape4"])], perm=perm)

    const("word", raw["embeddings.word_embeddings.weight"])
    const("position", raw["embeddings.position_embeddings.weight"] + raw["embeddings.token_type_embeddings.weight"][0])
    for name, value in {"zero": [0], "one_i": [1], "two_i": [2], "shape4": [0, 0, heads, head_dim],
                        "shape3": [0, 0, hidden], "ax1": [1], "ax12": [1, 2], "axm1": [-1]}.items():
        const(name, np.array(value, np.int64))
    for name, scalar in {"one": 1.0, "big_negative": -1e9, "half": 0.5, "rsqrt2": 1 / math.sqrt(2),
                         "scale": 1 / math.sqrt(head_dim), "tiny": 1e-9, "eps12": 1e-12}.items():
        const(name, np.array(scalar, np.float32))
    length = node("Slice", [node("Shape", ["input_ids"]), "one_i", "two_i"])
    x = node("Add", [node("Gather", ["word", "input_ids"]), node("Slice", ["position", "zero", length, "zero"])])
    x = norm(x, "embeddings.LayerNorm")
    mask = node("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    bias = node("Unsqueeze", [node("Mul", [node("Sub", ["one", mask]), "big_negative"]), "ax12"])
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        q = split_heads(linear(x, p + "attention.self.query"), [0, 2, 1, 3])
        k = split_heads(linear(x, p + "attention.self.key"), [0, 2, 3, 1])
        v = split_heads(linear(x, p + "attention.self.value"), [0, 2, 1, 3])
        scores = node("Add", [node("Mul", [node("MatMul", [q, k]), "scale"]), bias])
        context = node("MatMul", [node("Softmax", [scores], axis=-1), v])
        context = node("Reshape", [node("Transpose", [context], perm=[0, 2, 1, 3]), "shape3"])
        x = norm(node("Add", [linear(context, p + "attention.output.dense"), x]), p + "attention.output.LayerNorm")
        inner = linear(x, p + "intermediate.dense")
        erf = node("Erf", [node("Mul", [inner, "rsqrt2"])])
        inner = node("Mul", [node("Mul", [inner, "half"]), node("Add", [erf, "one"])])
        x = norm(node("Add", [linear(inner, p + "output.dense"), x]), p + "output.LayerNorm")
    weights = node("Unsqueeze", [mask, "axm1"])
    total = node("ReduceSum", [node("Mul", [x, weights]), "ax1"], keepdims=0)
    mean = node("Div", [total, node("Max", [node("ReduceSum", [weights, "ax1"], keepdims=0), "tiny"])])
    length2 = node("Max", [node("ReduceL2", [mean, "axm1"], keepdims=1), "eps12"])
    nodes.append(oh.make_node("Div", [mean, length2], ["embedding"]))
    graph = oh.make_graph(
        nodes, "bert_mean_normalize",
        [oh.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "length"]),
         oh.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "length"])],
        [oh.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", hidden])],
        initializer=initializers,
    )
    model = oh.make_model(graph, opset_imports=[oh.make_opsetid("", 18)])
    model.ir_version = 8  # what onnxruntime >= 1.15 reads
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def child(runtime: str, threads: int, chunks: Path, graph: Path, out: Path) -> None:
    """Embed the chunks with one runtime in this process; write vectors (.npy) and figures (JSON)."""
    start = time.perf_counter()
    import numpy as np

    from vancetope_desktop.core.settings import BUNDLED_MODEL
    from vancetope_desktop.index.models import force_offline, resolve_model
    from vancetope_desktop.index.numpy_encoder import NumpyEncoder

    texts = json.loads(chunks.read_text(encoding="utf-8"))
    spec = resolve_model(BUNDLED_MODEL)
    if runtime == "torch":
        force_offline()
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(threads)
        model = SentenceTransformer(str(spec.path), device="cpu", local_files_only=True)
        model.max_seq_length = spec.max_tokens

        def encode(batch: list[str]) -> Any:
            return model.encode(batch, batch_size=32, normalize_embeddings=True, convert_to_numpy=True,
                                show_progress_bar=False)
    elif runtime == "numpy":
        encoder = NumpyEncoder(spec)

        def encode(batch: list[str]) -> Any:
            return encoder.encode(batch, threads=threads)
    else:
        import onnxruntime

        tokenizer = NumpyEncoder(spec)  # its tokenize() is sentence-transformers' (tested)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        session = onnxruntime.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])

        def encode(batch: list[str]) -> Any:
            order = sorted(range(len(batch)), key=lambda i: len(batch[i]))
            vectors = np.empty((len(batch), spec.dimension), dtype=np.float32)
            for first in range(0, len(order), 32):
                rows = order[first:first + 32]
                ids, mask = tokenizer.tokenize([batch[i] for i in rows])
                vectors[rows] = session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
            return vectors
    encode(texts[:4])  # first call: allocations, lazy initialisation
    load = time.perf_counter() - start
    cpu, wall = time.process_time(), time.perf_counter()
    vectors = encode(texts)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    np.save(out.with_suffix(".npy"), np.asarray(vectors, dtype=np.float32))
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over exec from the parent, which held the library.
    status = Path("/proc/self/status")
    peak_kb = next((int(line.split()[1]) for line in status.read_text().splitlines() if line.startswith("VmHWM:")),
                   None) if status.exists() else None
    peak_mb = (peak_kb if peak_kb is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) / 1024
    out.write_text(json.dumps({"load": load, "wall": wall, "cpu": cpu, "peak_mb": peak_mb}), encoding="utf-8")


def main() -> None:
    """Run the benchmark and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=Path, default=CORPUS / "papers")
    parser.add_argument("--chunks", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--child", nargs=5, metavar=("RUNTIME", "THREADS", "CHUNKS", "GRAPH", "OUT"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        runtime, threads, chunks, graph, out = args.child
        child(runtime, int(threads), Path(chunks), Path(graph), Path(out))
        return

    import numpy as np

    from vancetope_desktop.core.settings import BUNDLED_MODEL
    from vancetope_desktop.index.models import resolve_model

    with tempfile.TemporaryDirectory(prefix="vancetope-bench-runtimes-") as folder:
        work = Path(folder)
        chunks = work / "chunks.json"
        count = collect_chunks(need(args.papers, "the corpus papers"), args.chunks, chunks)
        runtimes = list(RUNTIMES)
        graph = work / "model.onnx"
        try:
            start = time.perf_counter()
            build_onnx_graph(resolve_model(BUNDLED_MODEL), graph)
            print(f"ONNX graph built from safetensors in {time.perf_counter() - start:.1f} s", flush=True)
        except ImportError:
            runtimes.remove("onnx")
            print("onnx is not installed: ONNX Runtime skipped (pip install onnx to include it)", flush=True)
        results: dict[tuple[str, int], list[dict[str, float]]] = {}
        for round_ in range(args.rounds):
            for threads in args.threads:
                for runtime in runtimes:
                    out = work / f"{runtime}-{threads}-{round_}.json"
                    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "TOKENIZERS_PARALLELISM": "false"}
                    subprocess.run([sys.executable, __file__, "--child", runtime, str(threads), str(chunks),
                                    str(graph), str(out)], check=True, env=env)
                    figures = json.loads(out.read_text(encoding="utf-8"))
                    vectors = np.load(out.with_suffix(".npy"))
                    reference = np.load(work / f"torch-{threads}-{round_}.npy")
                    figures["diff"] = float(np.abs(vectors - reference).max())
                    figures["cosine"] = float((vectors * reference).sum(axis=1).min())
                    results.setdefault((runtime, threads), []).append(figures)
                    print(f"round {round_ + 1} {runtime:5} {threads} thread(s): "
                          f"{count / figures['wall']:.1f} chunks/s, cpu {figures['cpu']:.1f} s", flush=True)
        load = os.getloadavg()[0]
    rows = []
    for (runtime, threads), runs in results.items():
        rows.append([runtime, threads, f"{median([count / r['wall'] for r in runs]):.1f}",
                     f"{median([100 * r['cpu'] / count for r in runs]):.1f}",
                     f"{median([r['load'] for r in runs]):.2f}",
                     f"{max(r['peak_mb'] for r in runs):.0f}", f"{max(r['diff'] for r in runs):.1e}",
                     f"{min(r['cosine'] for r in runs):.7f}"])
    print(table(f"\n{count} body chunks of corpus/papers, {args.rounds} round(s), load average {load:.1f} at the end",
                ["runtime", "threads", "chunks/s (wall)", "CPU s / 100 chunks", "import+load s", "peak MB",
                 "max |diff| vs torch", "min cosine"], rows))


if __name__ == "__main__":
    main()
