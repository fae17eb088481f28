"""Seconds per daily digest of N new atoms (issue 13's figure: 500), with the built-in generator.

Run: ``.venv/bin/python tests/benchmarks/bench_digest.py [--atoms 500]``

* Input: the LoCoMo turns (``eval/locomo/locomo-dev.json``), each dated by its session, stored as notes of one
  scope of a fresh library with the atoms the built-in generator reads from them (``atoms.store_atoms``), until
  N atoms are stored (extraction and storing are not timed: ``bench_generator.py`` measures extraction).
* Timed: one ``digest.run_digest`` of the day (the model already loaded by a warm-up query), split into what it
  does: reconciliation (embedding the scope's atoms, near-duplicates, contradictions, plans) and the rest
  (writeup, one transaction). Printed beside: what it found (merges, contradictions, plans).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from _common import table
from bench_generator import _turns

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.generation.builtin import BuiltinGenerator
from vancetope_desktop.services import atoms, digest, documents, reconcile
from vancetope_desktop.services.library import DEFAULT_PROJECT, Library


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--atoms", type=int, default=500)
    wanted = parser.parse_args().atoms
    generator = BuiltinGenerator()
    with tempfile.TemporaryDirectory() as folder:
        lib = Library.open(Path(folder) / "library")
        stored = 0
        for text, when in _turns(None):
            drafts = generator.extract_atoms(text, reference_time=when)
            if not drafts:
                continue
            note = documents.add_text(lib, text, doc_type=DocumentType.NOTE, scope=DEFAULT_PROJECT)
            stored += len(atoms.store_atoms(lib, drafts[: wanted - stored], note.id))
            if stored >= wanted:
                break
        lib.embedder().encode_query("warm-up")
        timings: dict[str, float] = {}
        original = reconcile.reconcile

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                timings["reconcile"] = time.perf_counter() - start

        digest.reconcile = timed  # type: ignore[assignment]
        start = time.perf_counter()
        run = digest.run_digest(lib, DEFAULT_PROJECT)
        total = time.perf_counter() - start
        kinds = {k: sum(c.kind == k for c in run.changes) for k in ("kept", "added", "modified", "deleted")}
        title = f"Daily digest, built-in generator (load average {os.getloadavg()[0]:.1f})"
        print(table(title, ["atoms", "digest s", "reconcile s", "the rest s", "change set"],
              [[str(stored), f"{total:.1f}", f"{timings['reconcile']:.1f}", f"{total - timings['reconcile']:.1f}",
                ", ".join(f"{n} {k}" for k, n in kinds.items())]]))
        lib.close()


if __name__ == "__main__":
    main()
