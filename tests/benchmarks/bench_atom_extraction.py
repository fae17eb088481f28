"""Atoms read from sources end to end (``services.atom_extraction``): papers with the files setting on, and notes.

Run: ``.venv/bin/python tests/benchmarks/bench_atom_extraction.py [--papers N]``

* A fresh library in a temporary folder; the papers of ``corpus/papers`` (smallest first, ``--papers`` of them)
  and the 24 corpus notes are uploaded (read in this process, ``extract_file``; not timed), then
  ``extract_atoms`` reads them all with the built-in generator (dateparser warmed up first), one source at a time.
* Figures: per kind, sources, atoms, seconds, atoms/s, seconds per source, how many hit the per-source cap
  (:data:`~vancetope_desktop.services.atom_extraction.MAX_ATOMS_PER_SOURCE`) and a second run's time (idempotent:
  it must add nothing).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from _common import CORPUS, need, table

from vancetope_desktop.generation.builtin import BuiltinGenerator
from vancetope_desktop.ingest.registry import extract_file
from vancetope_desktop.services import atom_extraction, imports
from vancetope_desktop.services.library import Library


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=6, help="how many papers, smallest first (default 6)")
    args = parser.parse_args()
    papers = sorted(need(CORPUS / "papers", "corpus papers").glob("*.pdf"), key=lambda p: p.stat().st_size)
    notes = sorted(need(CORPUS / "notes", "corpus notes").rglob("*.md"))
    BuiltinGenerator().extract_atoms("We met yesterday.", reference_time=datetime.now(UTC))  # dateparser's load
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        lib = Library.open(Path(folder) / "library")
        try:
            for kind, files in (("papers", papers[:args.papers]), ("notes", notes)):
                ids = imports.upload(lib, files, extractor=extract_file).document_ids
                start = time.perf_counter()
                report = atom_extraction.extract_atoms(lib, ids)
                seconds = time.perf_counter() - start
                start = time.perf_counter()
                again = atom_extraction.extract_atoms(lib, ids)
                rerun = time.perf_counter() - start
                count = len(report.added)
                rows.append([kind, len(ids), count, f"{seconds:.1f}", f"{count / seconds:.0f}",
                             f"{seconds / len(ids):.2f}", sum(o.cut_short for o in report.outcomes),
                             f"{rerun:.1f} (+{len(again.added)})"])
        finally:
            lib.close()
    print(table("Atoms read from sources (built-in generator)",
                ["sources", "n", "atoms", "s", "atoms/s", "s/source", "capped", "second run s (added)"], rows))


if __name__ == "__main__":
    main()
