"""Time to window: from launching ``vancetope-desktop`` to its first painted frame (target < 1 s).

Run: ``.venv/bin/python tests/benchmarks/bench_startup.py [--runs 7] [--library PATH] [--bundle DIR]``

Each run starts ``python -m vancetope_desktop.app --startup-probe`` as a new process (offscreen Qt
unless ``--platform`` says otherwise) on an existing library; the app prints "window shown" from its
first event-loop turn after ``show()`` and quits. The time is measured from just before the process
is spawned to that line, so it includes the interpreter, Qt, the services' imports and opening the
library, but not the model, which loads afterwards in the background. A bare Qt window is timed the
same way for reference, and with ``--bundle DIR`` the frozen app (``DIR/vancetope-desktop``, built by
``packaging/build_bundle.py``); the processes take turns, run after run, so a change in load hits them alike.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import median, percentile, table

BARE = (
    "from PySide6.QtWidgets import QApplication, QMainWindow\n"
    "from PySide6.QtCore import QTimer\n"
    "app = QApplication([]); w = QMainWindow(); w.show()\n"
    "QTimer.singleShot(0, lambda: (print('window shown', flush=True), app.quit()))\n"
    "app.exec()\n"
)


def _time(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    for line in process.stdout:
        if "window shown" in line:
            elapsed = time.perf_counter() - start
            process.wait(timeout=60)
            return elapsed
    process.wait(timeout=60)
    raise SystemExit(f"{command} never showed its window (exit code {process.returncode})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--library", type=Path, default=None, help="default: a fresh temporary library")
    parser.add_argument("--platform", default="offscreen", help="QT_QPA_PLATFORM (e.g. xcb under xvfb-run)")
    parser.add_argument("--bundle", type=Path, default=None, help="the frozen app's folder (dist/vancetope-desktop)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        library = args.library or Path(scratch) / "library"
        env = {**os.environ, "QT_QPA_PLATFORM": args.platform, "VANCETOPE_CONFIG_DIR": str(Path(scratch) / "config")}
        app = [sys.executable, "-m", "vancetope_desktop.app", "--library", str(library), "--startup-probe"]
        commands = {"bare Qt window": [sys.executable, "-c", BARE], "vancetope-desktop": app}
        if args.bundle is not None:
            commands["vancetope-desktop, frozen bundle"] = [
                str(args.bundle / "vancetope-desktop"), "--library", str(library), "--startup-probe"]
        for command in commands.values():
            _time(command, env)  # the first run creates the library and warms the disk cache
        times: dict[str, list[float]] = {label: [] for label in commands}
        for _ in range(args.runs):
            for label, command in commands.items():
                times[label].append(_time(command, env))
        rows = [(label, f"{median(t):.2f}", f"{percentile(t, 95):.2f}", f"{max(t):.2f}") for label, t in times.items()]
    print(table(f"time to window, {args.runs} runs (s); target < 1 s", ("process", "median", "p95", "max"), rows))


if __name__ == "__main__":
    main()
