"""The desktop app's indexing process: drains the embedding queue and reports as JSON lines.

Embedding runs in its own process so that loading the model, the forward passes and writing vectors
(C code that holds the GIL for up to a few hundred milliseconds) never stall the app's event loop.
The app starts ``python -m vancetope_desktop.workers.index_worker --library PATH`` and talks over pipes:

* stdin, one command per line: ``drain`` (drain now), ``cancel`` (stop the running drain after its
  current batch); end of file makes the worker exit.
* stdout, one JSON object per line: ``{"event": "ready"}``, ``{"event": "progress", "done", "total",
  "documents_done", "documents_total", "current"}``, ``{"event": "drained", "indexed", "failed",
  "chunks", "cancelled"}``, ``{"event": "busy"}`` (another process holds the writer lock) and
  ``{"event": "error", "message"}`` (the library cannot be opened: the worker exits; the vector store
  cannot be used: it waits for the next ``drain``).

Between commands the worker looks for queued work every :data:`POLL_SECONDS`, so documents written by
the CLI or an agent are indexed too. Progress counts what is queued now (work queued during a drain
included), so a drain never shows "105/105" while more waits.

The worker yields to the user without starving (:func:`yield_to_the_user`). It used to run at nice 10
with torch's default of one thread per core: on a busy machine a nice-10 process gets about a tenth of
a nice-0 process's share, and each of torch's parallel steps waits for its slowest thread, so the drain
nearly stopped (about 20 documents in 12 minutes, issue 11).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from ..core.errors import DatabaseAway, IndexUnavailable, VancetopeError
from ..index.writer import DrainProgress
from ..services import indexing
from ..services.library import Library

POLL_SECONDS = 2.0
EXIT_GRACE_SECONDS = 1.0
INDEX_NICE = 3
"""Nice value added to the worker: CFS weight 526 against 1024 for a normal process (nice 10: 110), so
the app's UI thread still wins a contended core, and the worker keeps a third of the CPU under load.
Measured with ``tests/benchmarks/bench_index_under_load.py`` (figures in its docstring)."""


def yield_to_the_user() -> None:
    """Lower this process's claim on the CPU without letting other work starve it (call before the model loads).

    * ``SCHED_BATCH`` (Linux): a CPU-bound task that never preempts an interactive one on wake-up, yet
      keeps its fair share: the UI's latency is protected by the policy, not by a heavy nice value.
    * nice +:data:`INDEX_NICE`.
    * torch's threads (``OMP_NUM_THREADS``, for models only sentence-transformers runs): half the cores,
      at least one, so a core stays free for the UI, and a parallel step does not wait on a thread the
      scheduler has parked. The numpy encoder (the bundled model) runs its BLAS on one thread anyway.
    """
    if hasattr(os, "sched_setscheduler") and hasattr(os, "SCHED_BATCH"):
        with contextlib.suppress(OSError):  # not allowed here: nice alone must do
            os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    if hasattr(os, "nice"):
        os.nice(INDEX_NICE)
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 2) // 2)))


class _Commands:
    """Reads stdin on a thread and turns lines into events the drain loop waits on."""

    def __init__(self) -> None:
        self.drain = threading.Event()
        self.cancel = threading.Event()
        self.closed = threading.Event()
        threading.Thread(target=self._read, name="index-worker-stdin", daemon=True).start()

    def _read(self) -> None:
        for line in sys.stdin:
            command = line.strip()
            if command == "drain":
                self.drain.set()
            elif command == "cancel":
                self.cancel.set()
        self.closed.set()
        self.cancel.set()
        self.drain.set()  # wake the loop so it can exit
        # The app closed or died: do not embed for minutes more (loading the model, a long batch).
        # Leaving mid-batch is safe: jobs are only deleted once their vectors are written.
        threading.Timer(EXIT_GRACE_SECONDS, os._exit, args=(0,)).start()


def _say(event: str, **fields: object) -> None:
    print(json.dumps({"event": event, **fields}), flush=True)


def _reporter(lib: Library) -> Callable[[DrainProgress], None]:
    """Progress lines whose totals are what is done plus what is queued now (a count query per batch)."""

    def report(progress: DrainProgress) -> None:
        if progress.reconnecting:  # the database is away (store.reconnect): the drain's own totals, not a count
            _say("progress", done=progress.chunks_done, total=progress.chunks_total,
                 documents_done=progress.documents_done, documents_total=progress.documents_total,
                 current=progress.current)
            return
        documents, chunks = indexing.pending_work(lib)
        _say("progress", done=progress.chunks_done, total=progress.chunks_done + chunks,
             documents_done=progress.documents_done, documents_total=progress.documents_done + documents,
             current=progress.current)

    return report


def serve(lib: Library, commands: _Commands) -> None:
    """Drain when asked or when work is queued, until stdin closes.

    A vector store that cannot be used is reported once (an ``error`` event) and tried again only when
    asked (after a rebuild, the app kicks): polling it every two seconds would repeat the same failure.
    """
    _say("ready")
    unavailable = False
    while not commands.closed.is_set():
        asked = commands.drain.wait(POLL_SECONDS)
        commands.drain.clear()
        if commands.closed.is_set():
            break
        commands.cancel.clear()
        try:
            if not asked and (unavailable or not indexing.has_jobs(lib)):
                continue
            report = indexing.try_drain(lib, progress=_reporter(lib), cancel=commands.cancel.is_set)
        except IndexUnavailable as error:
            unavailable = True
            _say("error", message=str(error))
            continue
        except DatabaseAway as error:  # its jobs stay queued: the next poll finds them once the server answers
            _say("error", message=str(error))
            continue
        unavailable = False
        if report is None:
            _say("busy")
            continue
        if asked or report.indexed or report.failed or report.chunks:
            _say("drained", indexed=len(report.indexed), failed=[list(f) for f in report.failed],
                 chunks=report.chunks, cancelled=report.cancelled)
            if not report.cancelled and indexing.has_jobs(lib):
                commands.drain.set()  # more arrived while draining


def main(argv: list[str] | None = None) -> int:
    """Entry point: ``--library PATH``; exits when stdin closes."""
    parser = argparse.ArgumentParser(prog="vancetope-index-worker")
    parser.add_argument("--library", type=Path, required=True)
    args = parser.parse_args(argv)
    yield_to_the_user()
    commands = _Commands()
    try:
        with Library.open(args.library) as lib:
            serve(lib, commands)
    except VancetopeError as error:
        _say("error", message=str(error))
        return 1
    finally:
        # The library is closed: the process's objects are frozen out of the garbage collector so that the exit
        # frees them without its teardown's collections (the model, Chroma, SQLAlchemy: as `vancetope` does).
        gc.freeze()
    return 0


if __name__ == "__main__":
    sys.exit(main())
