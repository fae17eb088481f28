"""Document and query embedding runtimes of the bundled model: torch, numpy, ONNX Runtime fp32 and int8.

Run: ``.venv/bin/python tests/benchmarks/bench_embedding_runtimes.py [--chunks 300] [--rounds 2] [--threads 1 2]``

1. Real chunks: the body chunks of ``corpus/papers`` as the product stores them (``imports.upload``
   into a temporary library, no embedding), the first ``--chunks`` of them.
2. Each runtime embeds the same chunks in its own process (so its imports, load time and peak memory
   are its own), with each thread count, the runtimes interleaved round by round so that all see the
   same load:

   * ``torch``: sentence-transformers (``batch_size`` 32, ``torch.set_num_threads``), the optional extra;
   * ``numpy``: ``index/numpy_encoder.NumpyEncoder.encode(texts, threads=N)``;
   * ``onnx-fp32`` / ``onnx-int8``: the product's ``index/onnx_encoder.OnnxEncoder(spec, precision,
     threads=N)`` on the graphs ``index/onnx_export`` builds (built once, before the rounds, into a
     temporary cache: the load time below is a cached graph's).

3. Prints, per runtime and thread count: chunks/s (wall, median of the rounds), CPU seconds per 100
   chunks (less disturbed by other processes on a shared machine), import + load seconds, peak
   resident memory of the process (``VmHWM``), and the difference from the torch vectors of the same
   round (max abs diff of normalised vectors, worst and mean cosine).
4. A cold query per runtime, ``--query-rounds`` times interleaved: a new process from start to its
   first query vector (``Embedder`` with ``embedding_runtime`` set, as the CLI does it), wall and CPU.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import CORPUS, median, need, table

RUNTIMES = ("torch", "numpy", "onnx-fp32", "onnx-int8")


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


def child(runtime: str, threads: int, chunks: Path, out: Path) -> None:
    """Embed the chunks with one runtime in this process; write vectors (.npy) and figures (JSON)."""
    start = time.perf_counter()
    import numpy as np

    from vancetope_desktop.core.settings import BUNDLED_MODEL
    from vancetope_desktop.index.models import force_offline, resolve_model

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
        from vancetope_desktop.index.numpy_encoder import NumpyEncoder

        encoder = NumpyEncoder(spec)

        def encode(batch: list[str]) -> Any:
            return encoder.encode(batch, threads=threads)
    else:
        from vancetope_desktop.index.onnx_encoder import OnnxEncoder

        encode = OnnxEncoder(spec, runtime.removeprefix("onnx-"), threads=threads).encode  # type: ignore[arg-type]
    encode(texts[:4])  # first call: allocations, lazy initialisation
    load = time.perf_counter() - start
    cpu, wall = time.process_time(), time.perf_counter()
    vectors = encode(texts)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    np.save(out.with_suffix(".npy"), np.asarray(vectors, dtype=np.float32))
    out.write_text(json.dumps({"load": load, "wall": wall, "cpu": cpu, "peak_mb": _peak_mb()}), encoding="utf-8")


def _peak_mb() -> float:
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over exec from the parent, which held the library.
    status = Path("/proc/self/status")
    peak_kb = next((int(line.split()[1]) for line in status.read_text().splitlines() if line.startswith("VmHWM:")),
                   None) if status.exists() else None
    return (peak_kb if peak_kb is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) / 1024


QUERY = "Which mutations of the SARS-CoV-2 spike protein increase its binding to ACE2?"
QUERY_CODE = """
from vancetope_desktop.core.settings import Settings
from vancetope_desktop.index.embedder import Embedder
runtime, precision = {runtime!r}.split('/')
embedder = Embedder.from_settings(Settings(embedding_runtime=runtime, embedding_precision=precision))
vector = embedder.encode_query({query!r})
assert vector.shape == (384,) and embedder.query_backend.startswith(runtime if runtime != 'auto' else ''), \
    embedder.query_backend
"""
QUERY_RUNTIMES = ("numpy/fp32", "onnx/fp32", "onnx/int8", "sentence-transformers/fp32")


def cold_query(runtime: str) -> tuple[float, float]:
    """Wall and CPU seconds of a new Python process from start to its first query vector with ``runtime``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", QUERY_CODE.format(runtime=runtime, query=QUERY)], check=True,
                   env={**os.environ, "TOKENIZERS_PARALLELISM": "false"})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def main() -> None:
    """Run the benchmark and print its tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=Path, default=CORPUS / "papers")
    parser.add_argument("--chunks", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--runtimes", nargs="+", choices=RUNTIMES, default=list(RUNTIMES))
    parser.add_argument("--query-rounds", type=int, default=3, help="cold query processes per runtime (0: none)")
    parser.add_argument("--child", nargs=4, metavar=("RUNTIME", "THREADS", "CHUNKS", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        runtime, threads, chunks, out = args.child
        child(runtime, int(threads), Path(chunks), Path(out))
        return

    import numpy as np

    from vancetope_desktop.core.settings import BUNDLED_MODEL
    from vancetope_desktop.index.models import resolve_model
    from vancetope_desktop.index.onnx_export import PRECISIONS, ensure_graph

    with tempfile.TemporaryDirectory(prefix="vancetope-bench-runtimes-") as folder:
        work = Path(folder)
        # The graphs are built here, once, into a cache of this run's own (timed: what a first run pays);
        # the children and the cold queries then load the cached graphs.
        os.environ["XDG_CACHE_HOME"] = str(work / "cache")
        for precision in PRECISIONS:
            start, cpu = time.perf_counter(), time.process_time()
            ensure_graph(resolve_model(BUNDLED_MODEL), precision)
            print(f"ONNX {precision} graph built from the safetensors in {time.perf_counter() - start:.1f} s "
                  f"({time.process_time() - cpu:.1f} CPU s)", flush=True)
        chunks = work / "chunks.json"
        count = collect_chunks(need(args.papers, "the corpus papers"), args.chunks, chunks)
        results: dict[tuple[str, int], list[dict[str, float]]] = {}
        loads: list[float] = []
        runtimes = ["torch", *[r for r in args.runtimes if r != "torch"]]  # torch first: the reference
        for round_ in range(args.rounds):
            for threads in args.threads:
                for runtime in runtimes:
                    out = work / f"{runtime}-{threads}-{round_}.json"
                    env = {**os.environ, "OMP_NUM_THREADS": str(threads), "TOKENIZERS_PARALLELISM": "false"}
                    subprocess.run([sys.executable, __file__, "--child", runtime, str(threads), str(chunks),
                                    str(out)], check=True, env=env)
                    loads.append(os.getloadavg()[0])
                    figures = json.loads(out.read_text(encoding="utf-8"))
                    vectors = np.load(out.with_suffix(".npy"))
                    reference = np.load(work / f"torch-{threads}-{round_}.npy")
                    cosines = (vectors * reference).sum(axis=1)
                    figures["diff"] = float(np.abs(vectors - reference).max())
                    figures["cosine"] = float(cosines.min())
                    figures["mean_cosine"] = float(cosines.mean())
                    results.setdefault((runtime, threads), []).append(figures)
                    print(f"round {round_ + 1} {runtime:9} {threads} thread(s): "
                          f"{count / figures['wall']:.1f} chunks/s, "
                          f"cpu {figures['cpu']:.1f} s, load average {loads[-1]:.1f}", flush=True)
        queries: dict[str, list[tuple[float, float]]] = {}
        for _ in range(args.query_rounds):
            for runtime in QUERY_RUNTIMES:
                queries.setdefault(runtime, []).append(cold_query(runtime))
                loads.append(os.getloadavg()[0])
    rows = []
    for (runtime, threads), runs in results.items():
        rows.append([runtime, threads, f"{median([count / r['wall'] for r in runs]):.1f}",
                     f"{median([100 * r['cpu'] / count for r in runs]):.1f}",
                     f"{median([r['load'] for r in runs]):.2f}",
                     f"{max(r['peak_mb'] for r in runs):.0f}", f"{max(r['diff'] for r in runs):.1e}",
                     f"{min(r['cosine'] for r in runs):.4f}", f"{median([r['mean_cosine'] for r in runs]):.4f}"])
    print(table(f"\n{count} body chunks of corpus/papers, {args.rounds} round(s), load average "
                f"{min(loads):.1f}-{max(loads):.1f}",
                ["runtime", "threads", "chunks/s (wall)", "CPU s / 100 chunks", "import+load s", "peak MB",
                 "max |diff| vs torch", "min cosine", "mean cosine"], rows))
    if queries:
        print(table(f"\ncold query: process start to first query vector, median of {args.query_rounds}",
                    ["embedding_runtime/precision", "wall s", "CPU s"],
                    [[runtime, f"{median([w for w, _ in runs]):.2f}", f"{median([c for _, c in runs]):.2f}"]
                     for runtime, runs in queries.items()]))


if __name__ == "__main__":
    main()
