"""How long the undo stacks take to read (``services.undo.history``) as the audit trail grows.

Run: ``.venv/bin/python tests/benchmarks/bench_undo.py [--entries 10000 100000] [--runs 20]``

The window reads the stacks after every snapshot (to name Edit ▸ Undo), on the read lane. For each
size, a fresh library gets that many audit entries written straight into SQLite: half of them user
actions of ten documents each (three quarters by the person measured, a quarter by another), half
plain entries (moves by agents, review decisions). Milliseconds per call, p50 / p95.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from _common import percentile, table
from sqlalchemy import text

from vancetope_desktop.services import undo
from vancetope_desktop.services.library import Library
from vancetope_desktop.store.db import write_session

ME = "user:me"


def _fill(lib: Library, entries: int) -> None:
    rows = []
    for i in range(entries):
        grouped = i % 2 == 0
        payload = {"group": f"g{i // 20}", "label": "Trash 10 documents", "status": ["active", "deleted"]}
        rows.append({"doc": f"doc_{i}", "payload": json.dumps(payload) if grouped else "{}",
                     "actor": ME if (i // 20) % 4 else "user:other"})
    with write_session(lib.engine) as session:
        session.exec(text("INSERT INTO audit_entry (document_id, title, action, actor, reason, at, payload) "
                          "VALUES (:doc, 't', 'trash', :actor, '', '2026-12-01 10:00:00', :payload)"), params=rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--entries", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    rows = []
    for entries in args.entries:
        with tempfile.TemporaryDirectory() as tmp, Library.open(Path(tmp) / "lib") as lib:
            _fill(lib, entries)
            undo.history(lib, ME)  # warm the page cache
            times = []
            for _ in range(args.runs):
                start = time.perf_counter()
                undone = undo.history(lib, ME)
                times.append((time.perf_counter() - start) * 1000)
            rows.append([f"{entries:,}", len(undone[0]),
                         f"{percentile(times, 50):.1f}", f"{percentile(times, 95):.1f}"])
    print(table("services.undo.history", ["audit entries", "steps listed", "p50 ms", "p95 ms"], rows))


if __name__ == "__main__":
    main()
