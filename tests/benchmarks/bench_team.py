"""Issue 17's figures, embedded vs team library: ingest of the corpus papers, and indexing throughput with 1, 2 and 4
writer processes draining one team library's queue. (Search latency: ``bench_search.py --backend team``.)

Run: ``.venv/bin/python tests/benchmarks/bench_team.py [--chunks 2000] [--writers 1 2 4] [--skip-ingest]
[--skip-writers]``

Both servers run on this machine, started for the run (the tests' servers: packaging/servers.py, ``_team.py``), and
each team library is a new one (its own PostgreSQL and Chroma databases, ``create_team_library``).

* **Ingest**: every PDF of ``corpus/papers`` through ``imports.upload`` into a new library, then the queue drained
  (``indexing.try_drain``) in the same process: when it returns, every chunk is searchable. The model is loaded
  before the clock starts. Wall seconds to stored and to indexed, CPU seconds (this process and the processes it
  waited for, i.e. the extraction workers, plus both servers' for the team library), pages/s to indexed.
* **Writers**: :data:`CHUNKS` chunks of ``bench_search.py``'s synthetic library (SciFact sentences and windows,
  over four scopes) stored with their embed jobs, then N processes ``vancetope index run --json`` started at once
  on the library (each loads the model and embeds with it: real work, no precomputed vectors) and waited for.
  Wall seconds from the start of the processes to the last one's end, chunks/s, CPU seconds (the writers', the
  servers'), each writer's share of the chunks, and the 1-minute load average at the end. The embedded library's
  one writer is the reference (an embedded library elects one writer: a second would wait).

The machine is shared: the load average is printed with each table.
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
from contextlib import ExitStack
from pathlib import Path

from _common import CORPUS, REPO, need, table
from _team import new_team_library, servers_cpu, team_servers
from bench_search import store_synthetic

from tests.servers import harness
from vancetope_desktop.ingest.mupdf import pymupdf  # the product's one door to PyMuPDF (no telemetry)
from vancetope_desktop.services import imports, indexing
from vancetope_desktop.services.library import Library

CHUNKS = 2000
"""Chunks queued for the writers: enough batches (``indexing.writer_for``: 128 chunks) for 4 writers to share."""


def _cpu() -> float:
    """CPU seconds of this process and of its children waited for so far."""
    return sum(resource.getrusage(who).ru_utime + resource.getrusage(who).ru_stime
               for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))


def _new_library(servers: harness.TestServers | None, folder: Path, name: str) -> Path:
    """A new library's root in ``folder``: embedded (``servers`` None) or a team library on ``servers``."""
    return folder / name if servers is None else new_team_library(servers, folder / name)


def _server_cpu(servers: harness.TestServers | None) -> float:
    return servers_cpu(servers) if servers is not None else 0.0


def ingest(servers: harness.TestServers | None, folder: Path, papers: list[Path], pages: int) -> list[str]:
    """Upload ``papers`` into a new library and drain its queue; the table row."""
    root = _new_library(servers, folder, f"ingest-{'team' if servers else 'embedded'}")
    with Library.open(root) as lib:
        lib.embedder().encode_documents(["warm up"])  # the model loaded before the clock starts
        cpu, server, start = _cpu(), _server_cpu(servers), time.perf_counter()
        report = imports.upload(lib, papers)
        stored = time.perf_counter() - start
        drained = indexing.try_drain(lib)
        indexed = time.perf_counter() - start
        cpu, server = _cpu() - cpu, _server_cpu(servers) - server
        assert not report.failed and drained is not None and not drained.failed, (report.failed, drained)
    return ["team" if servers else "embedded", f"{len(papers)} / {pages}", str(drained.chunks), f"{stored:.1f}",
            f"{indexed:.1f}", f"{cpu:.1f} + {server:.1f}", f"{pages / indexed:.2f}"]


def writers(servers: harness.TestServers | None, folder: Path, count: int, chunks: int) -> list[str]:
    """``count`` writer processes drain a queue of ``chunks`` synthetic chunks in a new library; the table row."""
    root = _new_library(servers, folder, f"writers-{'team' if servers else 'embedded'}-{count}")
    with Library.open(root) as lib:
        store_synthetic(lib, chunks)
    command = [sys.executable, "-m", "vancetope_desktop.cli.main", "--library", str(root), "index", "run", "--json"]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    cpu, server, start = _cpu(), _server_cpu(servers), time.perf_counter()
    processes = [subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                 for _ in range(count)]
    ended = [process.communicate(timeout=3600) for process in processes]
    wall = time.perf_counter() - start
    cpu, server = _cpu() - cpu, _server_cpu(servers) - server
    load = os.getloadavg()[0]
    failed = [err.decode()[-1500:] for process, (_, err) in zip(processes, ended, strict=True) if process.returncode]
    assert not failed, failed
    shares = [json.loads(out.decode())["chunks"] for out, _ in ended]  # --json: one (indented) object
    assert sum(shares) == chunks, shares
    return ["team" if servers else "embedded", str(count), f"{wall:.1f}", f"{chunks / wall:.1f}",
            f"{cpu:.1f} + {server:.1f}", " / ".join(map(str, shares)), f"{load:.1f}"]


def main() -> None:
    """Run the ingest and the writers on each backend; print both tables."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=CHUNKS)
    parser.add_argument("--writers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--skip-ingest", action="store_true")
    parser.add_argument("--skip-writers", action="store_true")
    args = parser.parse_args()
    papers = sorted(need(CORPUS / "papers", "the papers corpus").glob("*.pdf"))
    pages = 0
    for path in papers:
        with pymupdf.open(path) as pdf:
            pages += pdf.page_count
    with ExitStack() as stack:
        servers = stack.enter_context(team_servers())
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="vancetope-bench-team-")))
        if not args.skip_ingest:
            rows = [ingest(backend, folder, papers, pages) for backend in (None, servers)]
            print(table(f"bench_team: ingest of corpus/papers, load average {_load()}",
                        ["library", "PDFs / pages", "chunks", "stored s", "indexed s", "CPU s (here + servers)",
                         "pages/s"], rows), flush=True)
        if not args.skip_writers:
            rows = [writers(None, folder, 1, args.chunks)]
            rows += [writers(servers, folder, count, args.chunks) for count in args.writers]
            print(table(f"bench_team: {args.chunks} queued chunks drained by N `vancetope index run` processes "
                        f"(model load included), {os.cpu_count()} cores, load average {_load()}",
                        ["library", "writers", "wall s", "chunks/s", "CPU s (writers + servers)",
                         "chunks per writer", "load (1 min)"], rows))


def _load() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
