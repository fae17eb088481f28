"""Seconds from a quick user action to the window showing it, in the real window, idle and during an import.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python tests/benchmarks/bench_quick_actions.py [--load 4]``

A temporary library gets the 1010 references of ``corpus/refs/ai-classic-paren-delimited.bib`` (a library of
a thousand documents, as a Zotero user brings). The main window opens on it (the start-up is timed with its
indexer: the first snapshot shown), then each quick action of the new-user trial of issue 11 is made through
the window's own controller and timed until the list (the applied snapshot) or the Edit menu shows it:
rename, move to trash, Undo named after it, undo, tag, empty trash (one document), export of 50 references
to BibTeX. Then the same while ``corpus/papers`` (10 of them) imports. ``--load N`` starts N busy processes
beside (as the trial's loaded laptop; the load average is printed too).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import CORPUS, need, table

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from vancetope_desktop.core.documents import DocumentStatus
from vancetope_desktop.services import imports
from vancetope_desktop.services.library import Library
from vancetope_desktop.services.preferences import Preferences
from vancetope_desktop.ui.main_window import MainWindow

TIMEOUT_S = 240


def _wait(app: QApplication, condition, timeout: float | None = None) -> float | None:
    """Seconds until ``condition()`` holds while the event loop runs; None after ``timeout`` (default
    :data:`TIMEOUT_S`)."""
    started = time.perf_counter()
    while not condition():
        if time.perf_counter() - started > (timeout or TIMEOUT_S):
            return None
        app.processEvents()
        time.sleep(0.005)
    return time.perf_counter() - started


def _listed(window: MainWindow) -> dict[str, str]:
    snapshot = window.workbench.snapshot
    return {} if snapshot is None else {d.id: d.title for d in snapshot.documents}


def _actions(app: QApplication, window: MainWindow, root: Path, round_: str) -> list[tuple[str, float | None]]:
    wb, undo_action = window.workbench, window.undo_actions.undo_action
    _wait(app, lambda: len(_listed(window)) > 52)  # the list of All documents, not an opening's first view
    ids = list(_listed(window))
    first, second = ids[0], ids[1]
    results: list[tuple[str, float | None]] = []
    title = f"Renamed {round_}"
    wb.rename_document(first, title)
    results.append(("rename → list", _wait(app, lambda: _listed(window).get(first) == title)))
    wb.set_status([second], DocumentStatus.DELETED, "Move to trash")
    results.append(("trash → list", _wait(app, lambda: second not in _listed(window))))
    results.append(("trash → Undo named", _wait(app, lambda: undo_action.text().startswith("Undo Trash"))))
    window.undo_actions.trigger()
    results.append(("undo → list", _wait(app, lambda: second in _listed(window))))
    tag = f"bench-{round_}"
    wb.add_tag([first], tag)
    results.append(("tag → Undo named", _wait(app, lambda: tag in undo_action.text())))
    wb.set_status([second], DocumentStatus.DELETED, "Move to trash")
    _wait(app, lambda: second not in _listed(window))
    wb.empty_trash()
    results.append(("empty trash (1) → counts",
                    _wait(app, lambda: wb.snapshot is not None and wb.snapshot.smart_counts.get("trash", 0) == 0)))
    exported: list[object] = []
    wb.export_citations(ids[2:52], root / f"export-{round_}.bib", "bibtex", exported.append)
    results.append(("export 50 → done", _wait(app, lambda: bool(exported))))
    return results


def shown(value: float | None) -> str:
    """Seconds with one decimal, or "over the timeout"."""
    return f"{value:.1f}" if value is not None else f">{TIMEOUT_S}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--load", type=int, default=4, help="busy processes to start beside")
    parser.add_argument("--timeout", type=float, default=240, help="seconds to wait for one action")
    args = parser.parse_args()
    global TIMEOUT_S
    TIMEOUT_S = args.timeout
    bib = need(CORPUS / "refs" / "ai-classic-paren-delimited.bib", "the shared corpus")
    papers = sorted(need(CORPUS / "papers", "the shared corpus").glob("*.pdf"))[:10]
    app = QApplication.instance() or QApplication([])
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)]
    try:
        with tempfile.TemporaryDirectory() as scratch:
            root = Path(scratch)
            os.environ["VANCETOPE_CONFIG_DIR"] = str(root / "config")
            lib = Library.open(root / "library")
            imports.upload(lib, [bib])
            settings = QSettings(str(root / "window.ini"), QSettings.Format.IniFormat)
            started = time.perf_counter()
            window = MainWindow(lib, settings=settings, preferences=Preferences())
            window.show()
            shown_at = _wait(app, lambda: window.workbench.snapshot is not None)
            first_snapshot = None if shown_at is None else time.perf_counter() - started  # the window's build too
            listed = len(_listed(window))
            rows = [["start-up (indexer on) → first list", shown(first_snapshot), ""]]
            window.close()
            window = MainWindow(lib, settings=settings, preferences=Preferences(), start_background=False)
            window.show()
            _wait(app, lambda: window.workbench.snapshot is not None)
            idle = _actions(app, window, root, "idle")
            folder = root / "ten papers"
            folder.mkdir()
            for paper in papers:
                shutil.copyfile(paper, folder / paper.name)
            window.workbench.import_paths([folder])
            busy_import = _actions(app, window, root, "import")
            still = any(t.title.startswith("Importing") and not t.state.finished for t in window.tasks.tasks)
            window.close()  # cancels the import (its files are not what is measured)
            lib.close()
    finally:
        for process in busy:
            process.kill()
            process.wait()
    load = os.getloadavg()[0]
    rows += [[name, shown(a), shown(b)] for (name, a), (_n, b) in zip(idle, busy_import, strict=True)]
    print(table(f"Quick actions in the window, {listed} documents listed, {args.load} busy processes, "
                f"load {load:.1f}; import still running at the end: {still}",
                ["seconds from action to shown", "idle", "during an import"], rows))


if __name__ == "__main__":
    main()
