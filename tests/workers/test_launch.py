"""One command line starts a worker from a checkout (``python -m``) and from a frozen bundle (``--worker``), and
``app.main`` runs the worker it names before Qt loads (issue 16). The frozen bundle itself is started by
``tests/packaging/test_bundle.py``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from vancetope_desktop.workers import index_worker, launch


def test_from_a_checkout_a_worker_runs_as_a_module():
    assert launch.worker_command(index_worker.__name__, "--library", "/tmp/lib") == [
        sys.executable, "-m", "vancetope_desktop.workers.index_worker", "--library", "/tmp/lib"]


def test_frozen_a_worker_runs_as_the_app_with_the_worker_flag(monkeypatch):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert launch.worker_command(index_worker.__name__, "--library", "/tmp/lib") == [
        sys.executable, "--worker", "index_worker", "--library", "/tmp/lib"]


def test_only_the_workers_of_the_package_can_be_named():
    with pytest.raises(ValueError, match="not a worker module"):
        launch.worker_command("vancetope_desktop.cli.main")
    with pytest.raises(SystemExit, match="--worker needs one of: index_worker"):
        launch.run_worker(["rm"])


def test_the_app_entry_runs_the_index_worker_before_qt(library):
    """``vancetope-desktop --worker index_worker --library L`` is the index worker: it says ready, drains when
    asked and leaves at end of input, without loading Qt (the probe fails if PySide6 was imported)."""
    probe = ("import sys, vancetope_desktop.app as app; status = app.main(sys.argv[1:]); "
             "sys.exit(3 if 'PySide6' in sys.modules else status)")
    with subprocess.Popen([sys.executable, "-c", probe, "--worker", "index_worker", "--library",
                           str(library.paths.root)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True) as worker:
        events = [json.loads(worker.stdout.readline())["event"]]
        worker.stdin.write("drain\n")
        worker.stdin.flush()
        events.append(json.loads(worker.stdout.readline())["event"])
        worker.stdin.close()  # end of input: the worker leaves
        assert worker.wait(timeout=120) == 0, worker.stderr.read()
    assert events == ["ready", "drained"]
