"""Bibliography import: each file of ``corpus/refs`` into a fresh library, entries in vs documents out.

Run: ``.venv/bin/python tests/benchmarks/bench_bibliography.py``

For each file: ``imports.upload`` timed whole and by phase (parsing = the extractor; preparation =
chunking every entry; writing = the one SQLite transaction of the file and its references), the CPU
time, entries read, references created, duplicates merged or skipped; then the same file imported
again after one entry changed (the update path). Embedding is not included: it is the writer's
work, the same as for any chunk.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from _common import CORPUS, PhaseTimer, need, table

from vancetope_desktop.services import bibliography, imports
from vancetope_desktop.services.library import Library


def main() -> None:
    refs = need(CORPUS / "refs", "corpus/refs")
    timer = PhaseTimer()
    imports.extract_file = timer.wrap("parse", imports.extract_file)  # type: ignore[assignment]
    bibliography.prepare = timer.wrap("prepare", bibliography.prepare)  # type: ignore[assignment]
    imports.bibliography.write = timer.wrap("write", bibliography.write)  # type: ignore[attr-defined]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        warm = Library.open(Path(folder) / "warm")
        warm.embedder()  # the model's tokenizer loads once per process: not part of any file's figure
        warm.close()
        for index, path in enumerate(sorted(refs.iterdir(), key=lambda p: -p.stat().st_size)):
            lib = Library.open(Path(folder) / f"lib{index}")
            copy = Path(folder) / path.name
            copy.write_bytes(path.read_bytes())
            timer.seconds.clear()
            wall, cpu = time.perf_counter(), time.process_time()
            outcome = imports.upload(lib, [copy], extractor=imports.extract_file).outcomes[0]
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            phases = dict(timer.seconds)
            listing = outcome.references
            # The update path: the same file with one entry's title changed, at the same path.
            text = copy.read_text(encoding="utf-8", errors="surrogateescape")
            title = next((e.title for e in listing.entries if e.title and e.title in text), None)
            again = None
            if title:
                copy.write_text(text.replace(title, title + " (revised)", 1), encoding="utf-8",
                                errors="surrogateescape")
                again = time.perf_counter()
                updated = imports.upload(lib, [copy], extractor=imports.extract_file).outcomes[0].references
                again = time.perf_counter() - again
                assert updated is not None and updated.count("updated") == 1, updated.summary
            rows.append([path.name, len(listing.entries), listing.count("imported"),
                         listing.count("merged"), listing.count("duplicate"), f"{wall:.2f}", f"{cpu:.2f}",
                         f"{phases.get('parse', 0):.2f}", f"{phases.get('prepare', 0):.2f}",
                         f"{phases.get('write', 0):.2f}", f"{again:.2f}" if again is not None else "-"])
            lib.close()
    print(table("Bibliography import (seconds; wall unless marked)",
                ["file", "entries", "references", "merged", "skipped", "total", "CPU", "parse", "prepare",
                 "write", "re-import"], rows))


if __name__ == "__main__":
    main()
