"""Cold CLI search: wall time of a fresh ``vancetope memory search`` process, and where its imports go.

Run: ``.venv/bin/python tests/benchmarks/bench_cold_search.py [--runs 5]``

1. Builds a small temporary library: ``imports.upload`` of ``corpus/notes`` then ``indexing.try_drain``.
2. Runs ``python -m vancetope_desktop.cli.main memory search "…" --json`` as a subprocess: one
   untimed run (fills the OS file cache), then ``--runs`` timed runs; reports the median
   (target 1.5 s) and checks every run found hits.
3. Runs it once more with ``-X importtime`` and reports: total import time, the slowest top-level
   imports, and for each heavy dependency whether it was imported, its cumulative import time and
   the import chain that pulled it in (torch must not be imported by a search).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import CORPUS, REPO, need, table

from vancetope_desktop.services import imports, indexing
from vancetope_desktop.services.library import Library

QUERY = "does stress cause dementia in old age"
TARGET_SECONDS = 1.5
HEAVY = ("torch", "sentence_transformers", "transformers", "chromadb", "sqlmodel", "sqlalchemy", "pydantic",
         "numpy", "tokenizers", "typer", "rich", "fitz", "pymupdf", "onnxruntime", "opentelemetry", "httpx",
         "platformdirs", "portalocker")
PHASES = """
import json, sys, time
from pathlib import Path
start = time.perf_counter()
phases = {}
def mark(name):
    global start
    now = time.perf_counter(); phases[name] = now - start; start = now
from vancetope_desktop.cli import main as cli_main
mark("import the CLI (typer, services, sqlmodel, numpy, ...)")
from vancetope_desktop.services.library import Library
from vancetope_desktop.services import search
lib = Library.open(Path(sys.argv[1]))
mark("Library.open (SQLite engine, schema check)")
lib.embedder().encode_query("warm")
mark("query encoder: tokenizer + numpy weights load, first encode")
lib.vectors.collections()
mark("Chroma: import chromadb + open the persistent client")
search.search(lib, sys.argv[2])
mark("search (SQL, FTS, Chroma query, fusion, hits)")
lib.close()
print(json.dumps(phases))
"""
_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def command(library: Path, *extra: str) -> list[str]:
    """The CLI search command line, run with this interpreter."""
    return [sys.executable, *extra, "-m", "vancetope_desktop.cli.main", "memory", "search", QUERY,
            "--library", str(library), "--json"]


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
    """Build the library, time the cold runs, analyse the imports, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    notes = need(CORPUS / "notes", "the corpus notes")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("VANCETOPE_LIBRARY", None)
    with tempfile.TemporaryDirectory(prefix="vancetope-bench-cold-") as folder:
        library = Path(folder) / "library"
        with Library.open(library) as lib:
            report = imports.upload(lib, [notes], tags=["notes"])
            drained = indexing.try_drain(lib)
            assert drained is not None and not drained.failed
        documents = len(report.document_ids)

        subprocess.run(command(library), env=env, capture_output=True, check=True)  # untimed: file cache
        walls = []
        for _ in range(args.runs):
            start = time.perf_counter()
            done = subprocess.run(command(library), env=env, capture_output=True, check=True, text=True)
            walls.append(time.perf_counter() - start)
            assert json.loads(done.stdout)["hits"], "the search found nothing"
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
        interpreter = time.perf_counter() - start
        traced = subprocess.run(command(library, "-X", "importtime"), env=env, capture_output=True, check=True,
                                text=True)
        phases = json.loads(subprocess.run([sys.executable, "-c", PHASES, str(library), QUERY], env=env,
                                           capture_output=True, check=True, text=True).stdout)
    rows = parse_importtime(traced.stderr)
    total_import = sum(r[1] for r in rows) / 1e6
    print(table(f"bench_cold_search: `vancetope memory search \"{QUERY}\" --json` on {documents} notes "
                f"({drained.chunks} chunks), {args.runs} timed runs after 1 untimed",
                ["measure", "seconds"],
                [["median wall time (target 1.5 s)", f"{statistics.median(walls):.3f}"],
                 ["runs", " ".join(f"{w:.3f}" for w in walls)],
                 ["bare interpreter start (python -c pass)", f"{interpreter:.3f}"],
                 ["all imports (sum of self times, -X importtime)", f"{total_import:.3f}"]]))
    print()
    print(table("one cold process, phase by phase (the same work as the CLI command, timed in order)",
                ["phase", "ms"], [[name, f"{1000 * seconds:.0f}"] for name, seconds in phases.items()]))
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
    if any(r[0] == "torch" for r in rows):
        print("\nFAIL: torch is imported by a search", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
