"""Extraction in a separate process, for callers that must stay responsive (the desktop app).

PyMuPDF is not thread-safe and holds the GIL for whole pages; in the app's process that would stall
the event loop for hundreds of milliseconds on busy pages. :class:`ProcessExtractor` runs
:func:`.registry.extract_file` in one worker process (spawned, never forked from a Qt process) and
hands back the :class:`.base.Extraction`. A worker that dies on a hostile file (a decompression bomb,
a crash in MuPDF) costs only that file: it is reported as damaged and a fresh worker takes the next.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from ..core.errors import DamagedFile
from .base import Extraction
from .registry import extract_file


def lower_priority() -> None:
    """Let the interactive process win the CPU over background workers (POSIX ``nice``; no-op elsewhere)."""
    if hasattr(os, "nice"):
        os.nice(10)


class ProcessExtractor:
    """A callable with :func:`extract_file`'s signature that extracts in a worker process.

    Thread-safe; the worker starts on first use (about a second: it imports the extractors) and
    stays until :meth:`close`.
    """

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def __call__(self, path: Path, *, password: str | None = None, max_bytes: int | None = None) -> Extraction:
        """Extract ``path`` in the worker; raises what :func:`extract_file` raises.

        Raises:
            DamagedFile: also when the worker process died on this file.
        """
        future = self._executor().submit(extract_file, Path(path), password=password, max_bytes=max_bytes)
        try:
            return future.result()
        except BrokenProcessPool as error:
            self._discard()
            raise DamagedFile(f"{Path(path).name} crashed the extractor; the file is probably damaged") from error

    def close(self) -> None:
        """Stop the worker process (waits for the file being extracted, if any)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def _executor(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=lower_priority)
            return self._pool

    def _discard(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
