"""``vancetope index``: the search index's status, a run of its queue, a rebuild."""

from __future__ import annotations

from ..services import indexing
from ..services.library import Library
from . import render
from .apps import index_app
from .context import JsonOption, LibraryOption, WaitOption, emit, err, open_library, out
from .progress import progress


@index_app.command("status")
def index_status(library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """Documents per indexing state, queued work, failures, whether a re-index is needed, and the vector store
    checked against the library (vectors per scope)."""
    with open_library(library) as lib:
        status = indexing.index_status(lib)
        emit(as_json, status, lambda: render.index_status(status))


def _drain_all(lib: Library) -> indexing.DrainReport | None:
    """Drain the whole queue with a progress bar (the writer's work: `index run`, `index rebuild`)."""
    with progress(err) as bar:
        task = bar.add_task("embedding chunks", total=None)
        return indexing.try_drain(lib, progress=lambda p: bar.update(task, completed=p.chunks_done,
                                                                     total=p.chunks_total))


@index_app.command("run")
def index_run(library: LibraryOption = None, as_json: JsonOption = False, wait: WaitOption = True) -> None:
    """Index queued documents now. When another process (the open app) is indexing the library, wait until it
    has indexed what is queued, or with --no-wait leave it to that process: both are a success (exit 0).

    --json prints {indexed, chunks, failed} (what this process indexed) and {indexing_process}: the pid of the
    process that indexes the queue instead (null when this one did).
    """
    with open_library(library) as lib:
        report = _drain_all(lib)
        if report is not None:
            emit(as_json, {"indexed": len(report.indexed), "chunks": report.chunks, "failed": report.failed,
                           "indexing_process": None},
                 lambda: out.print(f"indexed {len(report.indexed)} document(s), {report.chunks} chunks"))
            return
        pid = lib.writer_lock.holder_pid()
        if wait:
            _wait_for_writer(lib, pid)
        said = (f"process {pid} indexed the queue" if wait else
                f"process {pid} is indexing this library (the open app?): it indexes the queue "
                "(`vancetope index status` shows how far)")
        emit(as_json, {"indexed": 0, "chunks": 0, "failed": [], "indexing_process": pid},
             lambda: out.print(said, markup=False))


def _wait_for_writer(lib: Library, pid: int | None) -> None:
    """Wait, with a progress bar, until the queue's documents are indexed by the process ``pid`` holding the writer
    lock (or by this one, should that process go away: ``indexing.wait_until_indexed``)."""
    with progress(err) as bar:
        task = bar.add_task(f"indexing by process {pid}", total=None)
        indexing.wait_until_indexed(lib, indexing.pending_documents(lib),
                                    progress=lambda done, total: bar.update(task, completed=done, total=total))


@index_app.command("rebuild")
def index_rebuild(
    library: LibraryOption = None, as_json: JsonOption = False, wait: WaitOption = True,
) -> None:
    """Rebuild the search index from the library with the settings' embedding model, whatever state the vector
    store is in (a damaged one is moved to the library's backups/ folder and kept)."""
    with open_library(library) as lib:
        rebuilt = indexing.rebuild_index(lib)
        if rebuilt.moved_aside and not as_json:
            err.print(f"the damaged vector store was moved to {rebuilt.moved_aside} (kept; delete it when done)")
        report = _drain_all(lib) if wait else None
        if wait and report is None and not as_json:
            err.print(f"process {lib.writer_lock.holder_pid()} is indexing this library: it re-embeds them")
        done = {"indexed": len(report.indexed), "chunks": report.chunks, "failed": report.failed} if report else {}
        emit(as_json, rebuilt.model_dump(mode="json") | done, lambda: out.print(
            f"queued {rebuilt.queued} document(s) for re-embedding"
            + (f"; indexed {len(report.indexed)} document(s), {report.chunks} chunks" if report else "")))
