"""Cold CLI search: wall and CPU time of a fresh ``vancetope memory search`` process, and where its time goes.

Run: ``.venv/bin/python tests/benchmarks/bench_cold_search.py [--runs 9] [--library PATH] [--baseline CHECKOUT]``

1. Builds a temporary library of ``corpus/papers`` (``imports.upload``, then ``indexing.try_drain``; 18 papers,
   ~1,000 chunks, 2 min), or uses ``--library`` (a library built before, e.g. by an earlier run's ``--keep``).
2. Runs ``python -m vancetope_desktop.cli.main memory search "…" --json`` as a subprocess: one untimed run
   (fills the OS file cache and the benchmark's cache of compiled modules: ``process_env``), then ``--runs``
   timed runs; reports the median wall time (target 0.6 s, issue 16)
   and CPU time (user + system: what the process itself spent, less blurred by other load on a busy machine)
   with the load average, and checks every run found the paper on stressful life events and dementia.
   With ``--baseline CHECKOUT`` (another checkout, e.g. a worktree of ``main``) its runs alternate with this
   checkout's, and both answers must be the same.
3. Runs it once with ``-X importtime`` and once phase by phase (the CLI command's work, timed in order), and
   reports the slowest top-level imports and, for each heavy dependency, whether it was imported, its cumulative
   import time and the import chain that pulled it in (torch and chromadb must not be imported by a search).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import CORPUS, REPO, need, table

QUERY = "does stress cause dementia in old age"
EXPECTED_TITLE = "Stressful life events are not associated with the development of dementia"
TARGET_SECONDS = 0.6
HEAVY = ("torch", "sentence_transformers", "transformers", "chromadb", "chromadb_rust_bindings", "sqlmodel",
         "sqlalchemy", "pydantic", "numpy", "tokenizers", "safetensors", "typer", "rich", "fitz", "pymupdf",
         "onnxruntime", "opentelemetry", "httpx", "platformdirs", "portalocker")
PHASES = """
import json, sys, time
from pathlib import Path
start, cpu = time.perf_counter(), time.process_time()
phases = {}
def mark(name):
    global start, cpu
    now, now_cpu = time.perf_counter(), time.process_time()
    phases[name] = (now - start, now_cpu - cpu); start, cpu = now, now_cpu
from vancetope_desktop.cli import main as cli_main
mark("import the CLI entry (typer, the command groups, the library: SQLAlchemy, SQLModel, pydantic)")
from vancetope_desktop.cli import memory_search_commands
mark("import the search command (services.topic_search, search, numpy, rendering)")
from vancetope_desktop.core.documents import DocumentStatus
from vancetope_desktop.services.library import Library
from vancetope_desktop.services.topic_search import topic_search
lib = Library.open(Path(sys.argv[1]))
mark("Library.open (SQLite engine, schema check)")
lib.embedder().encode_query("warm")
mark("query encoder: tokenizer + weights load, first encode")
lib.vectors.counts(["project/inbox"])
mark("vector store: open Chroma's engine, count a collection")
topic_search(lib, sys.argv[2], statuses=(DocumentStatus.ACTIVE,), limit=10)
mark("search (SQL, FTS, vector query, fusion, hits)")
lib.close()
print(json.dumps(phases))
"""
_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def command(library: Path, *extra: str) -> list[str]:
    """The CLI search command line, run with this interpreter."""
    return [sys.executable, *extra, "-m", "vancetope_desktop.cli.main", "memory", "search", QUERY,
            "--library", str(library), "--json"]


def process_env(checkout: Path, bytecode: Path) -> dict[str, str]:
    """The environment of a search process running ``checkout``'s code, its compiled modules cached in ``bytecode``.

    An installed package runs from bytecode compiled when it was installed; a checkout under
    ``PYTHONDONTWRITEBYTECODE`` (set on the machines this was measured on) compiled the ~60 product modules a
    search imports on every run (0.15-0.3 s of CPU), so the cache goes to a folder of the benchmark's own.
    """
    env = {**os.environ, "PYTHONPATH": str(checkout), "PYTHONPYCACHEPREFIX": str(bytecode)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("VANCETOPE_LIBRARY", None)
    return env


def timed_run(checkout: Path, library: Path, bytecode: Path) -> tuple[float, float, str]:
    """``(wall s, CPU s, stdout)`` of one search process run from ``checkout`` (its code, on ``PYTHONPATH`` and as
    the working directory, which ``python -m`` puts first on ``sys.path``)."""
    env = process_env(checkout, bytecode)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command(library), env=env, cwd=checkout, capture_output=True, check=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    hits = json.loads(done.stdout)["hits"]
    assert hits and hits[0]["document"]["title"] == EXPECTED_TITLE, "the search did not find the dementia paper"
    return wall, cpu, done.stdout


def build_library(library: Path) -> None:
    """Upload ``corpus/papers`` into a new library at ``library`` and embed it."""
    from vancetope_desktop.services import imports, indexing
    from vancetope_desktop.services.library import Library

    papers = need(CORPUS / "papers", "the corpus papers")
    with Library.open(library) as lib:
        imports.upload(lib, [papers], tags=["papers"])
        drained = indexing.try_drain(lib)
        assert drained is not None and not drained.failed


def parse_importtime(stderr: str) -> list[tuple[str, int, int, int]]:
    """``(module, self µs, cumulative µs, depth)`` per ``-X importtime`` line, in completion order."""
    rows = []
    for line in stderr.splitlines():
        match = _LINE.match(line)
        if match:
            rows.append((match.group(4), int(match.group(1)), int(match.group(2)), len(match.group(3)) // 2))
    return rows


def importer_chain(rows: list[tuple[str, int, int, int]], index: int) -> list[str]:
    """The modules whose import led to ``rows[index]``: the first following line one level up, repeatedly."""
    chain = [rows[index][0]]
    depth = rows[index][3]
    for module, _, _, level in rows[index + 1 :]:
        if level < depth:
            chain.append(module)
            depth = level
            if level == 0:
                break
    return list(reversed(chain))


def main() -> None:
    """Build or open the library, time the cold runs (interleaved with a baseline), analyse, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--library", type=Path, help="an existing library of corpus/papers (default: build one)")
    parser.add_argument("--keep", type=Path, help="build the library here and keep it (for later --library runs)")
    parser.add_argument("--baseline", type=Path, help="another checkout whose runs alternate with this one's")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="vancetope-bench-cold-"))
    try:
        library = args.library or args.keep or folder / "library"
        if args.library is None:
            build_library(library)
        report(args, library, folder / "bytecode")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def report(args: argparse.Namespace, library: Path, bytecode: Path) -> None:
    """Time and analyse the cold search on ``library`` (compiled modules cached in ``bytecode``); print the tables."""
    checkouts = {"this checkout": REPO} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    for checkout in checkouts.values():
        timed_run(checkout, library, bytecode)  # untimed: the OS file cache, the compiled modules
    walls: dict[str, list[float]] = {name: [] for name in checkouts}
    cpus: dict[str, list[float]] = {name: [] for name in checkouts}
    answers: dict[str, set[str]] = {name: set() for name in checkouts}
    loads = [os.getloadavg()[0]]
    for _ in range(args.runs):
        for name, checkout in reversed(checkouts.items()):  # the baseline first, then this checkout
            wall, cpu, out = timed_run(checkout, library, bytecode)
            walls[name].append(wall)
            cpus[name].append(cpu)
            answers[name].add(json.dumps(json.loads(out)["hits"], sort_keys=True))
        loads.append(os.getloadavg()[0])
    assert all(len(a) == 1 for a in answers.values()), "a checkout answered differently from one run to the next"
    assert len({a.pop() for a in answers.values()}) == 1, "the baseline and this checkout answered differently"
    env = process_env(REPO, bytecode)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
    interpreter = time.perf_counter() - start
    traced = subprocess.run(command(library, "-X", "importtime"), env=env, cwd=REPO, capture_output=True,
                            check=True, text=True)
    phases = json.loads(subprocess.run([sys.executable, "-c", PHASES, str(library), QUERY], env=env, cwd=REPO,
                                       capture_output=True, check=True, text=True).stdout)
    rows = parse_importtime(traced.stderr)
    total_import = sum(r[1] for r in rows) / 1e6
    measures = []
    for name in checkouts:
        measures += [[f"{name}: median wall time (target {TARGET_SECONDS} s)", f"{statistics.median(walls[name]):.3f}"],
                     [f"{name}: median CPU time (user + system)", f"{statistics.median(cpus[name]):.3f}"],
                     [f"{name}: runs (wall)", " ".join(f"{w:.2f}" for w in walls[name])]]
    interleaved = ", interleaved with the baseline" if args.baseline else ""
    print(table(f"bench_cold_search: `vancetope memory search \"{QUERY}\" --json` on corpus/papers, "
                f"{args.runs} timed runs after 1 untimed{interleaved}",
                ["measure", "seconds"],
                [*measures,
                 ["load average (1 min) during the runs", f"{min(loads):.2f}-{max(loads):.2f}"],
                 ["bare interpreter start (python -c pass)", f"{interpreter:.3f}"],
                 ["all imports (sum of self times, -X importtime)", f"{total_import:.3f}"]]))
    print()
    print(table("one cold process, phase by phase (the CLI command's work, timed in order)",
                ["phase", "wall ms", "CPU ms"],
                [[name, f"{1000 * wall:.0f}", f"{1000 * cpu:.0f}"] for name, (wall, cpu) in phases.items()]))
    print()
    top = [r for r in rows if r[3] == 0]
    top.sort(key=lambda r: -r[2])
    print(table("slowest top-level imports (cumulative)", ["module", "ms"],
                [[m, f"{c / 1000:.0f}"] for m, _, c, _ in top[:12]]))
    print()
    heavy_rows = []
    for name in HEAVY:
        found = [i for i, r in enumerate(rows) if r[0] == name]
        if not found:
            heavy_rows.append([name, "no", "", ""])
            continue
        index = found[0]
        chain = importer_chain(rows, index)
        heavy_rows.append([name, "yes", f"{rows[index][2] / 1000:.0f}",
                           " > ".join(chain[:-1][:5]) or "the CLI module itself, or lazily at first use"])
    print(table("heavy dependencies in the search process", ["package", "imported", "cumulative ms",
                                                             "pulled in by (outermost first)"], heavy_rows))
    imported = {r[0] for r in rows}
    if imported & {"torch", "chromadb"}:
        print(f"\nFAIL: a search imports {sorted(imported & {'torch', 'chromadb'})}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
