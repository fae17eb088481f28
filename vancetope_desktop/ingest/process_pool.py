"""Extraction in a worker process that can be stopped: a time limit per file, and no orphaned worker.

Every upload path (the app, ``memory upload``, a retried import) extracts files through
:class:`ProcessExtractor`, for two reasons. PyMuPDF holds the GIL for whole pages, which in the app's
process would stall the event loop. And MuPDF can loop in C on a hostile file — form XObjects nested
ten deep, each drawing the next ten times, took 38 s at depth 7 and would take hours at depth 12,
in a 4 KB file — where a thread cannot be interrupted and, holding the GIL, stops every other thread
of its process; a process can be killed. So each file gets :func:`time_limit` seconds; past it the
worker is killed and the file reported (:class:`~..core.errors.ExtractionTimeout`), and a fresh
worker takes the next file. A worker that dies on a file (a crash in MuPDF, the kernel's OOM killer)
costs only that file too.

The worker never outlives its parent: idle, it reads the end of its pipe when the parent goes; on
Linux the kernel kills it the moment the process that started it dies (``PR_SET_PDEATHSIG``, armed by
the worker). Workers forked by the fork server (:func:`worker_context`) are its children: it exits when
the parent does, and they with it. A spawned worker is tied to a launcher thread that lives as long as
the extractor, since the kernel ties the signal to the thread that started the worker, not to the
process. Elsewhere, a worker stuck in C code ends itself a little after its file's time limit
(``faulthandler``'s watchdog is a C thread, free of the GIL).
"""

from __future__ import annotations

import contextlib
import ctypes
import faulthandler
import multiprocessing
import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path

from ..core.errors import DamagedFile, ExtractionTimeout
from .base import Extraction
from .registry import extract_file

DEFAULT_TIMEOUT_S = 60.0
"""Base time limit of one file's extraction (the ``extraction_timeout_s`` setting's default)."""

SECONDS_PER_MB = 5.0
"""Time limit added per MB of file. The slowest PDF of ``../shared/corpus`` (the 352-page book)
took 0.76 s of CPU per MB, and wall time was up to 2.6× CPU time on a busy two-core machine."""

_OWN_DEADLINE_GRACE_S = 10.0  # the parent kills at the limit; the worker ends itself this much later
_START_TIMEOUT_S = 300.0  # a worker starts in 1-3 s; only a broken installation takes longer
_PR_SET_PDEATHSIG = 1


def time_limit(size_bytes: int, base_s: float = DEFAULT_TIMEOUT_S) -> float:
    """Seconds allowed to extract a file of ``size_bytes``: ``base_s`` + :data:`SECONDS_PER_MB` per MB."""
    return base_s + SECONDS_PER_MB * size_bytes / 1_000_000


WORKER_NICE = 10
"""Nice value the app's extraction worker adds to its own, so that the window wins the CPU over it."""


def lower_priority(increment: int = WORKER_NICE) -> None:
    """Let the interactive process win the CPU over background workers (POSIX ``nice``; no-op elsewhere)."""
    if increment and hasattr(os, "nice"):
        os.nice(increment)


class ProcessExtractor:
    """A callable with :func:`extract_file`'s signature that extracts in a worker process, with a time limit.

    Thread-safe: calls are served one at a time. The worker starts on first use (:func:`worker_context`: about a
    second the first time in a process, when it imports the extractors; milliseconds after) and stays until
    :meth:`close`, or until a file kills it or runs out of time.

    Args:
        timeout_s: the base time limit (see :func:`time_limit`), or a function returning it, read at
            every file (the app passes the library's current ``extraction_timeout_s``).
        nice: added to the worker's nice value (:data:`WORKER_NICE` for the app, whose window must win;
            0 where no window waits, e.g. ``memory upload``, whose encoder works beside the worker: a niced
            worker next to it ran past its time limit on a busy machine).
    """

    def __init__(self, timeout_s: float | Callable[[], float] = DEFAULT_TIMEOUT_S, *, nice: int = WORKER_NICE) -> None:
        self._timeout_s = timeout_s
        self._nice = nice
        self._lock = threading.Lock()
        self._process: BaseProcess | None = None
        self._conn: Connection | None = None
        self._launcher: ThreadPoolExecutor | None = None

    def __call__(self, path: Path, *, password: str | None = None, max_bytes: int | None = None) -> Extraction:
        """Extract ``path`` in the worker; raises what :func:`extract_file` raises.

        Raises:
            ExtractionTimeout: the file took longer than its time limit; the worker was killed.
            DamagedFile: also when the worker process died on this file.
        """
        path = Path(path).absolute()  # a forkserver worker has the working directory its server started in
        try:
            size = path.stat().st_size
        except OSError:
            size = 0  # the worker's extract_file reports the missing or unreadable file
        base = self._timeout_s() if callable(self._timeout_s) else self._timeout_s
        limit = time_limit(size, base)
        request = (path, password, max_bytes, limit)
        with self._lock:
            conn = self._started()
            try:
                conn.send(request)
            except OSError:  # the idle worker was killed from outside: a fresh one takes the file
                self._stop(kill=True)
                conn = self._started()
                conn.send(request)
            try:
                if not conn.poll(limit):
                    self._stop(kill=True)
                    raise ExtractionTimeout(
                        f"{path.name}: reading it took longer than {limit:.0f} s and was stopped (the file may be "
                        "damaged or made to hang PDF readers; a larger extraction_timeout_s setting gives it more time)"
                    )
                ok, value = conn.recv()
            except (EOFError, OSError) as error:
                self._stop(kill=True)
                raise DamagedFile(f"{path.name} crashed the extractor; the file is probably damaged") from error
        if ok:
            return value
        raise value

    def close(self) -> None:
        """Stop the worker process (waits for the file being extracted, if any)."""
        with self._lock:
            self._stop(kill=False)
            launcher, self._launcher = self._launcher, None
        if launcher is not None:
            launcher.shutdown(wait=True)

    def kill(self) -> None:
        """Kill the worker now, even in the middle of a file (the app is closing): the call extracting
        that file raises :class:`~..core.errors.DamagedFile`, so its caller must be cancelled first and
        must not record the file. Later calls start a fresh worker; :meth:`close` still ends the extractor."""
        process = self._process  # read without the lock, which the extracting call holds
        if process is not None:
            with contextlib.suppress(ValueError, OSError):  # already closed or gone
                process.kill()

    def worker_pid(self) -> int | None:
        """The worker's process id, None when no worker runs (for diagnostics and tests)."""
        process = self._process
        return process.pid if process is not None and process.is_alive() else None

    def _started(self) -> Connection:
        """The pipe to a running worker, starting one if needed (the caller holds the lock)."""
        if self._process is not None and self._process.is_alive() and self._conn is not None:
            return self._conn
        self._stop(kill=True)
        if self._launcher is None:
            self._launcher = ThreadPoolExecutor(max_workers=1, thread_name_prefix="extractor-launcher")
        context = worker_context()
        ours, theirs = context.Pipe()
        process = context.Process(target=_serve, args=(theirs, self._nice), name="vancetope-extractor", daemon=True)
        self._launcher.submit(process.start).result()
        theirs.close()  # only the worker holds its end: it reads end-of-file when we close or die
        self._process, self._conn = process, ours
        # Start-up (imports, PyMuPDF) must not eat into the first file's time limit: wait for "ready".
        try:
            if not ours.poll(_START_TIMEOUT_S):
                raise EOFError
            ours.recv()
        except (EOFError, OSError) as error:
            self._stop(kill=True)
            raise RuntimeError("the extraction worker process did not start") from error
        return ours

    def _stop(self, *, kill: bool) -> None:
        process, conn = self._process, self._conn
        self._process = self._conn = None
        if conn is not None:
            conn.close()  # an idle worker reads end-of-file and exits
        if process is not None:
            if kill:
                process.kill()
            process.join(timeout=None if kill else 10)
            if process.is_alive():
                process.kill()
                process.join()
            process.close()


def worker_context() -> multiprocessing.context.BaseContext:
    """How extraction workers start: ``forkserver`` on Linux and macOS when run from Python, ``spawn`` elsewhere.

    Never ``fork``: the app's process runs Qt and threads. ``spawn`` starts a fresh interpreter that imports the
    extractors for each worker (0.8-1.3 s of CPU: PyMuPDF, the format readers, and the parent's main module
    again); ``forkserver`` pays that once per parent process, in a server process started the same way and
    preloaded with this module and the PDF reader, then forks each worker from it (single-threaded, so forking
    it is safe) in milliseconds: every ``memory upload`` after a killed worker, every upload through the
    services in one process. The chain to the parent holds: the server exits when its parent does, and a
    worker's ``PR_SET_PDEATHSIG`` (:func:`_exit_with_parent`) then kills it.

    A frozen bundle keeps ``spawn``, the method its entry script serves through ``multiprocessing.freeze_support()``
    (``installer/entry.py``); Windows has no ``forkserver``.
    """
    if getattr(sys, "frozen", False) or "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    # Ignored once this process's server runs (it was preloaded with the same list); a module that fails to import
    # is skipped by the server and imported by the worker itself (``_serve``).
    context.set_forkserver_preload([__name__, f"{__package__}.pdf"])
    return context


def _serve(conn: Connection, nice: int = WORKER_NICE) -> None:
    """The worker's loop: extract each requested file and send back the result or the error."""
    _exit_with_parent()
    lower_priority(nice)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in a terminal is the parent's to handle
    sink = open(os.devnull, "w")  # noqa: SIM115 - faulthandler needs a file that stays open
    # PyMuPDF's import (~0.5 s) belongs to start-up, not to a file's time; if it is broken, the PDFs
    # that need it fail with the reason, not every other file.
    with contextlib.suppress(ImportError):
        from . import pdf  # noqa: F401
    conn.send("ready")
    while True:
        try:
            path, password, max_bytes, limit = conn.recv()
        except (EOFError, OSError):
            return  # the parent closed the pipe or died
        faulthandler.dump_traceback_later(limit + _OWN_DEADLINE_GRACE_S, exit=True, file=sink)
        try:
            reply = (True, extract_file(path, password=password, max_bytes=max_bytes))
        except Exception as error:  # every failure is the file's outcome, reported to the parent
            reply = (False, _sendable(error))
        finally:
            faulthandler.cancel_dump_traceback_later()
        try:
            conn.send(reply)
        except (EOFError, OSError):
            return


def _exit_with_parent() -> None:
    """Linux: ask the kernel to kill this worker when the thread that started it ends (see the module doc).

    A worker forked by the fork server (:func:`worker_context`) dies with the server, and the server exits when no
    process holds the write end of its "alive" pipe any more. The server hands that end to each worker it forks
    (so that a worker could start processes of its own); a worker stuck in C code would keep the server, and so
    itself, alive after the parent's death. The worker closes its copy first: it starts no processes.
    ``_forkserver_alive_fd`` is multiprocessing's private name (CPython 3.11-3.14); where it is missing the worker
    still ends at its own deadline, and tests/ingest/test_process_pool.py fails.
    """
    from multiprocessing import forkserver

    server = getattr(forkserver, "_forkserver", None)
    alive = getattr(server, "_forkserver_alive_fd", None)
    if isinstance(alive, int):  # None in a spawned worker, or in one whose server gave it none
        with contextlib.suppress(OSError):
            os.close(alive)
        server._forkserver_alive_fd = None
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    parent = multiprocessing.parent_process()
    if parent is not None and not parent.is_alive():  # it died before the line above ran
        os._exit(0)


def _sendable(error: Exception) -> Exception:
    """``error`` if it survives pickling, else a RuntimeError carrying its type and message."""
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:
        return RuntimeError(f"{type(error).__name__}: {error}")
    return error
