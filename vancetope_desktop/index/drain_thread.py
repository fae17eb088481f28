"""Draining on a thread what a writer of documents hands over, while it goes on writing: an upload's pipeline.

An upload extracts each file in a worker process, then stores it (one transaction: document, chunks, index
job). Draining the jobs only after the last file kept one core busy at a time: extraction and storage ran
between encode batches, never beside them. Here the documents of each committed file are handed to a
thread that embeds them and writes their vectors while the upload extracts and stores the next file, so the
extraction process and the encoder run at once (``tests/benchmarks/bench_vs_peer.py``).

A thread, not a process: the encoders (numpy, ONNX Runtime, torch) spend their time in C that releases the
GIL, and the model is already loaded in this process (the upload counts tokens with its tokenizer); a second
process would load it again. The two threads write SQLite through separate connections, and every write
transaction starts with ``BEGIN IMMEDIATE`` (``store/db.py``), so they queue on the busy timeout instead of
failing. The guarantees are the writer's (``index/writer.py``): a document and its job commit together
before they are handed over, and a job is deleted only once its vectors are written, so a crash at any
moment leaves the rest queued for the next drain, and every chunk is indexed exactly once.

The thread runs at the process's priority, and ``memory upload``'s extraction worker is not niced (no window
waits on that process): run at the worker's nice, the encoder was starved on a busy machine (numpy: 480 s of
wall for 94 s of CPU, ``bench_upload.py`` at load 5), and a niced worker beside a nice-0 encoder ran past its
time limit (63 s) on a paper read in seconds alone.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable
from dataclasses import replace

from .writer import DrainProgress, DrainReport, IndexWriter, pending_work


class DrainThread:
    """Drains the index jobs of the documents :meth:`add` hands over, on its own thread, in the order given.

    The caller must hold the library's writer lock for as long as the thread runs (one drainer at a time).

    Args:
        writer: the writer that embeds and stores the vectors.
        progress: called on the thread after each batch, with chunks done so far out of those done plus those
            still queued for the documents handed over (the total grows as the caller adds documents).

    Use as a context manager: leaving the ``with`` block waits until every document handed over is drained
    and raises what stopped the thread (e.g. ``IndexUnavailable``); leaving it on an exception cancels
    the drain after its current batch instead (what is not done stays queued).
    """

    def __init__(self, writer: IndexWriter, progress: Callable[[DrainProgress], None] | None = None) -> None:
        self._writer = writer
        self._progress = progress
        self._waiting: list[str] = []
        self._handed: list[str] = []  # every document handed over, for the progress totals
        self._ready = threading.Condition()
        self._closed = False
        self._cancel = threading.Event()
        self._error: BaseException | None = None
        self.report = DrainReport()
        """What was drained so far (complete once the thread ended)."""
        self._last = DrainProgress(0, 0, 0, 0)  # what _report said last
        self._thread = threading.Thread(target=self._run, name="index-drain", daemon=True)

    def __enter__(self) -> DrainThread:
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, *_rest: object) -> None:
        if kind is None:
            self.finish()
            return
        self._cancel.set()
        with contextlib.suppress(Exception):  # the caller's exception is the one to see; the rest stays queued
            self.finish()

    def add(self, document_ids: Iterable[str]) -> None:
        """Hand over documents whose jobs are committed; the thread drains them as soon as it is free.

        Raises:
            RuntimeError: after :meth:`finish` (the thread is gone).
        """
        ids = list(document_ids)
        with self._ready:
            if self._closed:
                raise RuntimeError("the drain thread has finished; nothing more can be handed over")
            self._waiting += ids
            self._handed += ids
            self._ready.notify()

    def finish(self) -> DrainReport:
        """Wait until everything handed over is drained (or the drain was cancelled) and return the report.

        Raises:
            What stopped the thread (``IndexUnavailable``: the vector store cannot be used; the jobs stay queued).
        """
        with self._ready:
            self._closed = True
            self._ready.notify()
        if self._thread.is_alive():
            self._thread.join()
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        return self.report

    def _run(self) -> None:
        try:
            while not self._cancel.is_set():
                with self._ready:
                    while not self._waiting and not self._closed:
                        self._ready.wait()
                    if not self._waiting:
                        return
                    # Everything handed over meanwhile in one drain: the writer fills its batches across them.
                    batch, self._waiting = self._waiting, []
                part = self._writer.drain(documents=batch, cancel=self._cancel.is_set, progress=self._report)
                self.report.indexed += part.indexed
                self.report.failed += part.failed
                self.report.chunks += part.chunks
                self.report.cancelled = part.cancelled
        except BaseException as error:  # raised again by finish(), in the caller's thread
            self._error = error

    def _report(self, part: DrainProgress) -> None:
        """The writer's progress within one drain, turned into progress over everything handed over."""
        if self._progress is None:
            return
        if part.reconnecting:  # the database is away (store.reconnect): no count to ask it for; the last figures
            self._progress(replace(self._last, current=part.current, reconnecting=True))
            return
        with self._ready:
            handed = list(self._handed)
        documents, chunks = pending_work(self._writer.engine, handed)
        done_documents = len(self.report.indexed) + len(self.report.failed) + part.documents_done
        done = self.report.chunks + part.chunks_done
        self._last = DrainProgress(done_documents, done_documents + documents, done, done + chunks)
        self._progress(self._last)

