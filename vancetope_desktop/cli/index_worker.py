"""The desktop app's indexing process: drains the embedding queue and reports as JSON lines.

Embedding runs in its own process so that importing torch, loading the model and writing vectors
(C code that holds the GIL for up to a few hundred milliseconds) never stall the app's event loop.
The app starts ``python -m vancetope_desktop.cli.index_worker --library PATH`` and talks over pipes:

* stdin, one command per line: ``drain`` (drain now), ``cancel`` (stop the running drain after its
  current batch); end of file makes the worker exit.
* stdout, one JSON object per line: ``{"event": "ready"}``, ``{"event": "progress", "done", "total",
  "documents_done", "documents_total", "current"}``, ``{"event": "drained", "indexed", "failed",
  "chunks", "cancelled"}``, ``{"event": "busy"}`` (another process holds the writer lock) and
  ``{"event": "error", "message"}`` (the library cannot be opened: the worker exits; the vector store
  cannot be used: it waits for the next ``drain``).

Between commands the worker looks for queued work every :data:`POLL_SECONDS`, so documents written by
the CLI or an agent are indexed too.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from pathlib import Path

from ..core.errors import IndexUnavailable, VancetopeError
from ..index.writer import DrainProgress
from ..ingest.process_pool import lower_priority
from ..services import indexing
from ..services.library import Library

POLL_SECONDS = 2.0
EXIT_GRACE_SECONDS = 1.0


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


def _progress(progress: DrainProgress) -> None:
    _say("progress", done=progress.chunks_done, total=progress.chunks_total,
         documents_done=progress.documents_done, documents_total=progress.documents_total,
         current=progress.current)


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
        if not asked and (unavailable or not indexing.has_jobs(lib)):
            continue
        commands.cancel.clear()
        try:
            report = indexing.try_drain(lib, progress=_progress, cancel=commands.cancel.is_set)
        except IndexUnavailable as error:
            unavailable = True
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
    lower_priority()
    commands = _Commands()
    try:
        with Library.open(args.library) as lib:
            serve(lib, commands)
    except VancetopeError as error:
        _say("error", message=str(error))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
