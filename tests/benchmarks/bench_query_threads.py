"""Query encoding latency with numpy's BLAS on one thread (shipped) and on all cores, idle and under CPU load.

Run: ``.venv/bin/python tests/benchmarks/bench_query_threads.py [--queries 100] [--load 0 2 4]``

For each load level (that many busy-looping processes started beside the benchmark, on top of
whatever else runs on the machine), the same SciFact test claims are encoded by the numpy query
encoder (``index/numpy_encoder.NumpyEncoder``) two ways, interleaved query by query so both see the
same load: ``encode()`` as shipped (one BLAS thread, ``blas_threads``), and the same steps with
BLAS on ``os.cpu_count()`` threads (what the encoder did before). Milliseconds per query.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import time

from _common import SCIFACT, need, percentile, scifact_queries, table
from threadpoolctl import threadpool_limits

from vancetope_desktop.core.settings import BUNDLED_MODEL
from vancetope_desktop.index.models import resolve_model
from vancetope_desktop.index.numpy_encoder import NumpyEncoder


def _spin(stop: multiprocessing.synchronize.Event) -> None:
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def _threaded(encoder: NumpyEncoder, query: str, threads: int) -> None:
    """``encode`` without the single-thread limit: tokenize, forward and pool with BLAS on ``threads``."""
    ids, mask = encoder.tokenize([query])
    with threadpool_limits(limits=threads, user_api="blas"):
        encoder._pool(encoder._forward(ids, mask), mask)


def measure(encoder: NumpyEncoder, queries: list[str], load: int) -> dict[str, list[float]]:
    """Per-query milliseconds of both ways, with ``load`` busy processes running meanwhile."""
    stop = multiprocessing.Event()
    spinners = [multiprocessing.Process(target=_spin, args=(stop,), daemon=True) for _ in range(load)]
    for process in spinners:
        process.start()
    threads = os.cpu_count() or 1
    samples: dict[str, list[float]] = {"one thread (shipped)": [], f"{threads} threads (before)": []}
    try:
        time.sleep(0.5 if load else 0)
        for query in queries:
            start = time.perf_counter()
            encoder.encode(query)
            samples["one thread (shipped)"].append(1000 * (time.perf_counter() - start))
            start = time.perf_counter()
            _threaded(encoder, query, threads)
            samples[f"{threads} threads (before)"].append(1000 * (time.perf_counter() - start))
    finally:
        stop.set()
        for process in spinners:
            process.join()
    return samples


def main() -> None:
    """Encode the queries at each load level and print p50 / p95 / max per way."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--load", type=int, nargs="+", default=[0, 2, 4], help="busy processes started beside")
    args = parser.parse_args()
    need(SCIFACT, "the SciFact benchmark")
    queries = list(scifact_queries("test").values())[: args.queries]
    encoder = NumpyEncoder(resolve_model(BUNDLED_MODEL))
    for query in queries[:10]:  # warm up both paths
        encoder.encode(query)
        _threaded(encoder, query, os.cpu_count() or 1)
    rows = []
    for load in args.load:
        for way, values in measure(encoder, queries, load).items():
            rows.append([str(load), way, f"{percentile(values, 50):.1f}", f"{percentile(values, 95):.1f}",
                         f"{max(values):.1f}"])
    busy = os.getloadavg()[0]
    print(table(f"bench_query_threads: {len(queries)} SciFact test claims, numpy query encoder, {os.cpu_count()} "
                f"cores, load average {busy:.1f} at the end, milliseconds per query",
                ["busy processes", "BLAS", "p50", "p95", "max"], rows))


if __name__ == "__main__":
    main()
