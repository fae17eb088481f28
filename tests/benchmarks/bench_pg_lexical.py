"""SciFact through PostgreSQL's keyword search (issue 17) against FTS5's, on the same chunks.

Run: ``.venv/bin/python tests/benchmarks/bench_pg_lexical.py [--split test]`` (PostgreSQL's server installed; the
SciFact library built by bench_scifact.py, which this script builds first when missing).

* The library: bench_scifact.py's cached one (5,183 abstracts as notes). Its documents and chunks are copied into a
  database on a PostgreSQL server started for the run (packaging/servers.py, stopped at the end) and indexed there
  (``store/pg_fulltext``, tests/pg_lexical_copy.py): the same chunk ids, titles and texts.
* Rankings: BM25-only = ``index/lexical.search_chunks`` (FTS5) and ``index/pg_lexical.search_chunks`` (PostgreSQL),
  aggregated to documents by best chunk; hybrid = ``index/fusion.fuse`` with the shipped settings over the library's
  dense ranking and each keyword ranking (bench_scifact's ``run_fused``: the fusion's own arithmetic).
* Metrics: nDCG@10 and Recall@100; per-query wall time and this process's CPU time of each keyword search (the
  PostgreSQL server's own CPU is in the server's processes: reported from /proc when readable).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from _common import SCIFACT, need, scifact_qrels, scifact_queries, table
from bench_scifact import DEPTH, Rankings, evaluate, open_index, run_fused, run_single
from sqlmodel import Session

from tests.pg_lexical_copy import copy_library, postgres_engine
from tests.servers import harness
from vancetope_desktop.index import pg_lexical
from vancetope_desktop.index.fusion import RankedChunk
from vancetope_desktop.services.library import DEFAULT_PROJECT
from vancetope_desktop.store.filters import SqlFilter


def backend_cpu(pid: int) -> float:
    """CPU seconds of every live process in ``pid``'s tree (the postmaster and its backends)."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid or int(entry.name) == pid:
                total += sum(int(value) for value in fields[11:13]) / os.sysconf("SC_CLK_TCK")
    return total


def pg_rankings(engine, queries: dict[str, str], settings) -> tuple[dict[str, list[RankedChunk]], float, float]:
    """Query id → chunks by keyword score through PostgreSQL, the mean wall and CPU seconds per query."""
    where = SqlFilter().and_in("scope_path", [DEFAULT_PROJECT]).and_in("status", ["active"])
    out = {}
    wall, cpu = time.perf_counter(), time.process_time()
    with Session(engine) as session:
        for q, text in queries.items():
            out[q] = [RankedChunk(h.chunk_id, h.document_id, h.keyword, h.role, h.in_text)
                      for h in pg_lexical.search_chunks(session, text, where, DEPTH, title_weight=settings.title_weight,
                                                        max_postings=settings.lexical_max_postings,
                                                        stemming=settings.lexical_stemming)]
    count = max(len(queries), 1)
    return out, (time.perf_counter() - wall) / count, (time.process_time() - cpu) / count


def main() -> None:
    """Copy the SciFact library into PostgreSQL, rank every query both ways, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", default="test", choices=["train", "test"], help="split to report (default test)")
    args = parser.parse_args()
    need(SCIFACT, "the SciFact benchmark")
    if harness.postgres_bin_dir() is None:
        sys.exit(harness.POSTGRES_MISSING)
    lib, mapping, built = open_index(False)
    queries, qrels = scifact_queries(args.split), scifact_qrels(args.split)
    settings = lib.settings
    try:
        with harness.running(Path(sys.executable).parent / "chroma") as servers:
            postmaster = servers.processes["postgres"][0].pid
            engine = postgres_engine(servers.postgres_url)
            wall, cpu = time.perf_counter(), time.process_time()
            chunks = copy_library(lib.engine, engine)
            copied = time.perf_counter() - wall, time.process_time() - cpu
            rankings = Rankings(lib, queries)
            wall, cpu = time.perf_counter(), time.process_time()
            fts5 = rankings.lexical(settings.title_weight, settings.lexical_max_postings, settings.lexical_stemming)
            fts5_time = ((time.perf_counter() - wall) / len(queries), (time.process_time() - cpu) / len(queries))
            server_before = backend_cpu(postmaster)
            postgres, pg_wall, pg_cpu = pg_rankings(engine, queries, settings)
            pg_server = (backend_cpu(postmaster) - server_before) / len(queries)
            engine.dispose()
        dense = rankings.dense()
        shipped = dict(dense_weight=settings.dense_weight, lexical_weight=settings.lexical_weight,
                       meaning_floor=settings.meaning_floor, meaning_ceiling=settings.meaning_ceiling)
        rows = []
        for name, lexical, (seconds, cpu_seconds), server in (
                ("FTS5 (embedded)", fts5, fts5_time, 0.0), ("PostgreSQL", postgres, (pg_wall, pg_cpu), pg_server)):
            bm25 = evaluate(run_single(lexical, mapping), qrels)
            hybrid = evaluate(run_fused(dense, lexical, mapping, settings.candidates, **shipped), qrels)
            rows.append([name, f"{bm25[0]:.4f}", f"{bm25[1]:.4f}", f"{hybrid[0]:.4f}", f"{hybrid[1]:.4f}",
                         f"{1000 * seconds:.1f}", f"{1000 * cpu_seconds:.1f}", f"{1000 * server:.1f}"])
        load = " ".join(f"{value:.2f}" for value in os.getloadavg())
        print(table(
            f"bench_pg_lexical: SciFact {args.split}, {len(qrels)} queries, {built['documents']} documents / {chunks} "
            f"chunks copied and indexed in PostgreSQL in {copied[0]:.1f} s ({copied[1]:.1f} s CPU here); "
            f"keyword depth {DEPTH}, shipped fusion {shipped}, candidates {settings.candidates}; load average {load}",
            ["keyword search", "BM25 nDCG@10", "BM25 R@100", "hybrid nDCG@10", "hybrid R@100", "ms/query",
             "CPU ms/query (client)", "CPU ms/query (server)"], rows))
    finally:
        lib.close()


if __name__ == "__main__":
    main()
