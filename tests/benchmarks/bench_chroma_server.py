"""The vector store embedded vs on a Chroma server on this machine (issue 17): writing N vectors (upserts of a writer's
batch size) and nearest-neighbour queries, in wall and CPU seconds.

Run: ``.venv/bin/python tests/benchmarks/bench_chroma_server.py [--vectors 10000] [--queries 200]``

Random unit vectors of 384 dimensions (the bundled model's), 100 per upsert (``index/batching.py``'s order of
magnitude), one scope. CPU seconds: this process's (``getrusage``) and, for the server, the ``chroma run`` process's
(``/proc/PID/stat``; Linux only).
"""

from __future__ import annotations

import argparse
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _common import percentile, table

from tests.servers import harness  # packaging/servers.py, as the tests' fixtures load it
from vancetope_desktop.index.chroma_server import ChromaServer, ServerVectorStore
from vancetope_desktop.index.vector_store import VectorStore

DIMENSION, BATCH = 384, 100



def _cpu() -> float:
    """CPU seconds of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _process_cpu(pid: int) -> float:
    """CPU seconds of process ``pid`` so far (user + system, from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _run(store: VectorStore, vectors: np.ndarray, queries: np.ndarray, server_cpu) -> list[str]:
    """Write then query; the row of figures."""
    ids = [f"d{i}:0" for i in range(len(vectors))]
    cpu, server, start = _cpu(), server_cpu(), time.perf_counter()
    for first in range(0, len(vectors), BATCH):
        store.upsert("project/bench", "bench", ids[first:first + BATCH], vectors[first:first + BATCH],
                     [{"doc_id": f"d{i}"} for i in range(first, min(first + BATCH, len(vectors)))])
    write, write_cpu, write_server = time.perf_counter() - start, _cpu() - cpu, server_cpu() - server
    assert store.counts(["project/bench"]) == {"project/bench": len(vectors)}
    times = []
    cpu, server = _cpu(), server_cpu()
    for query in queries:
        start = time.perf_counter()
        hits = store.query("project/bench", query, 10)
        times.append(time.perf_counter() - start)
        assert len(hits) == 10
    query_cpu, query_server = _cpu() - cpu, server_cpu() - server
    return [f"{write:.2f}", f"{write_cpu:.2f} + {write_server:.2f}", f"{len(vectors) / write:.0f}",
            f"{percentile(times, 50) * 1000:.1f} / {percentile(times, 95) * 1000:.1f}",
            f"{(query_cpu + query_server) / len(queries) * 1000:.1f}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vectors", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    args = parser.parse_args()
    rng = np.random.default_rng(17)
    vectors = rng.normal(size=(args.vectors, DIMENSION)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    queries = vectors[rng.choice(args.vectors, args.queries)] + 0.05
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-chroma-") as folder:
        root = Path(folder)
        embedded = VectorStore(root / "embedded", root / "chroma.lock", lambda: 0)
        rows.append(["embedded", *_run(embedded, vectors, queries, lambda: 0.0)])
        embedded.close()
        port = harness.free_port()
        with (root / "chroma.log").open("wb") as log:
            server = subprocess.Popen([str(Path(sys.executable).parent / "chroma"), "run", "--path",
                                       str(root / "server"), "--host", "127.0.0.1", "--port", str(port)],
                                      stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ,
                                                                                    ANONYMIZED_TELEMETRY="False"),
                                      preexec_fn=harness.die_with_parent)
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + harness.READY_SECONDS
            while not harness.chroma_answers(url):
                if server.poll() is not None or time.monotonic() > deadline:
                    sys.exit((root / "chroma.log").read_text()[-2000:])
                time.sleep(0.1)
            store = ServerVectorStore(ChromaServer(url, "bench"), lambda: 0)
            store.create_database()
            rows.append(["Chroma server (HTTP, this machine)", *_run(store, vectors, queries,
                                                                     lambda: _process_cpu(server.pid))])
            store.close()
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(harness.STOP_SECONDS)
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(table(f"Vector store, {args.vectors} vectors of {DIMENSION} dims in upserts of {BATCH}, {args.queries} "
                f"queries of 10 (load average {load})",
                ["store", "write s", "write CPU s (client + server)", "vectors/s", "query p50 / p95 ms",
                 "query CPU ms (both)"], rows))


if __name__ == "__main__":
    main()
