"""The extraction worker: a time limit per file that holds even when MuPDF loops in C, and no orphans."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hostile_pdfs import looping_pdf
from vancetope_desktop.core.errors import ExtractionTimeout
from vancetope_desktop.ingest.process_pool import SECONDS_PER_MB, ProcessExtractor, time_limit

REPO = Path(__file__).resolve().parents[2]


def test_time_limit_grows_with_the_file() -> None:
    assert time_limit(0, 60.0) == 60.0
    assert time_limit(10_000_000, 60.0) == 60.0 + 10 * SECONDS_PER_MB


@pytest.mark.slow
def test_a_pdf_that_makes_mupdf_loop_is_stopped_and_the_next_file_still_reads(corpus: Path, tmp_path: Path) -> None:
    looping = tmp_path / "never-ends.pdf"
    looping.write_bytes(looping_pdf())
    paper = corpus / "papers/black-hole-singularities-collision-arxiv1805.05865.pdf"
    # The limit is read at every file: generous for a busy machine's slowest read of the good paper
    # (0.1 s when idle, at nice 10), short for the looping file, which would otherwise hold a core 20 s.
    limit = [20.0]
    extractor = ProcessExtractor(timeout_s=lambda: limit[0])
    try:
        assert extractor(paper).chunks  # the worker runs before the looping file comes
        limit[0] = 3.0
        with pytest.raises(ExtractionTimeout, match=r"never-ends\.pdf: reading it took longer than 3 s"):
            extractor(looping)
        limit[0] = 20.0
        assert extractor(paper).chunks  # a fresh worker took over
    finally:
        extractor.close()


def _gone(pid: int) -> bool:
    """True when the process no longer runs (exited, or a zombie nobody has reaped yet)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("state", ["busy", "idle"])
def test_the_worker_exits_when_its_parent_is_killed(state: str, corpus: Path, tmp_path: Path) -> None:
    target = corpus / "papers/black-hole-singularities-collision-arxiv1805.05865.pdf"
    if state == "busy":  # stuck in MuPDF's C code, holding the GIL: no Python watchdog could run
        target = tmp_path / "never-ends.pdf"
        target.write_bytes(looping_pdf())
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    with subprocess.Popen([sys.executable, str(Path(__file__).with_name("extractor_parent.py")), str(target)],
                          stdout=subprocess.PIPE, text=True, env=env) as parent:
        try:
            worker = int(parent.stdout.readline())
            assert not _gone(worker)
        finally:
            parent.send_signal(signal.SIGKILL)
    # Waiting for the event, not timing it: the bound only keeps a regression from hanging the suite.
    deadline = time.monotonic() + 60
    while not _gone(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    if not _gone(worker):
        os.kill(worker, signal.SIGKILL)
        pytest.fail(f"the extraction worker {worker} outlived its {state} parent")
