"""Event-loop gaps of the real window while 54 papers import and the indexing process embeds them.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python tests/benchmarks/bench_responsiveness.py [--batches 3]``

The main window opens on a temporary library with its real background work (the extraction worker
process, the indexing process, the task lanes). Once the query encoder has loaded, ``corpus/papers``
is imported ``--batches`` times (as a drop does) (copies with a byte appended, so none is a duplicate) and a 5 ms
timer on the UI thread records every gap between its ticks until the indexing process has embedded
its first documents. The largest gap is the longest a click or a keystroke would have waited (target
< 100 ms). It used to be asserted by a test; on a shared CI machine a timing assertion fails under
load that has nothing to do with the product, so the figure lives here and in the README.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from _common import CORPUS, need, percentile, table

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

from vancetope_desktop.services.library import Library
from vancetope_desktop.services.preferences import Preferences
from vancetope_desktop.ui.main_window import MainWindow


class GapMeter:
    """Every gap between ticks of a 5 ms timer on the UI thread, in seconds."""

    def __init__(self) -> None:
        self.gaps: list[float] = []
        self._last = time.perf_counter()
        self.timer = QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)

    def start(self) -> None:
        """Start measuring from now."""
        self._last = time.perf_counter()
        self.timer.start()

    def _tick(self) -> None:
        now = time.perf_counter()
        self.gaps.append(now - self._last)
        self._last = now


def _wait(app: QApplication, condition, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            sys.exit(f"timed out waiting for {what}")
        app.processEvents()
        time.sleep(0.002)


def _copies(folder: Path, batches: int) -> list[Path]:
    papers = sorted(need(CORPUS / "papers", "the shared corpus").glob("*.pdf"))
    copies = []
    for batch in range(batches):
        target = folder / f"batch {batch}"
        target.mkdir()
        for paper in papers:
            copy = target / paper.name
            shutil.copyfile(paper, copy)
            with copy.open("ab") as handle:
                handle.write(f"\n% copy {batch}\n".encode())
            copies.append(copy)
    return copies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=3, help="copies of the 18 papers to drop")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        os.environ["VANCETOPE_CONFIG_DIR"] = str(root / "config")
        copies = _copies(root, args.batches)
        lib = Library.open(root / "library")
        window = MainWindow(lib, settings=QSettings(str(root / "window.ini"), QSettings.Format.IniFormat),
                            preferences=Preferences())
        window.show()
        _wait(app, lambda: window.workbench.indexer.ready, 120, "the query encoder")
        meter = GapMeter()
        meter.start()
        started = time.perf_counter()
        window.workbench.import_paths(copies)
        _wait(app, lambda: any(t.title.startswith("Importing") and t.state.finished for t in window.tasks.tasks),
              1800, "the import")
        imported = time.perf_counter() - started
        _wait(app, lambda: any(t.title == "Indexing" and t.done > 0 for t in window.tasks.tasks), 600,
              "the first embedded documents")
        meter.timer.stop()
        window.close()
        lib.close()
    gaps = sorted(meter.gaps)
    print(table("Event loop while papers import and are embedded", ["measure", "value"], [
        ["files imported", f"{len(copies)} in {imported:.1f} s"],
        ["ticks recorded", f"{len(gaps)}"],
        ["gap p50 / p99", f"{percentile(gaps, 50) * 1000:.0f} / {percentile(gaps, 99) * 1000:.0f} ms"],
        ["largest gap (target < 100 ms)", f"{gaps[-1] * 1000:.0f} ms"],
        ["gaps over 100 ms", f"{sum(g > 0.1 for g in gaps)}"],
    ]))


if __name__ == "__main__":
    main()
