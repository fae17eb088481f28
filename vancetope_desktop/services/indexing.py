"""Running the index: drain the queue (when this process holds the writer lock), status, re-index.

Exactly one process drains at a time. The app holds the writer lock while it is open; a CLI run
drains itself when no app is open, and otherwise waits for the app to index what it queued.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence

from pydantic import BaseModel
from sqlalchemy import func
from sqlmodel import select

from ..core.documents import IndexState
from ..index.writer import DrainProgress, DrainReport, IndexWriter
from ..index.writer import pending_work as _pending_work
from ..store import tables
from ..store.db import get_meta, read_session, set_meta, write_session
from . import records
from .library import Library


def writer_for(lib: Library) -> IndexWriter:
    """An :class:`IndexWriter` over the library, embedding with the library's index model."""
    spec = lib.index_model()
    return IndexWriter(lib.engine, lib.vectors, lambda: lib.embedder(spec), spec,
                       batch_chunks=max(lib.settings.embedding_batch_size * 4, 64))


def pending_work(lib: Library, documents: Collection[str] | None = None) -> tuple[int, int]:
    """``(documents, chunks)`` queued for embedding in the library (of ``documents`` only, when given)."""
    return _pending_work(lib.engine, documents)


def has_jobs(lib: Library, documents: Collection[str] | None = None) -> bool:
    """True when any index job (embed, refresh, move, drop) is queued (for one of ``documents``, when given)."""
    query = select(tables.JobRow.id).limit(1)
    if documents is not None:
        query = query.where(tables.JobRow.document_id.in_(list(documents)))  # type: ignore[attr-defined]
    with read_session(lib.engine) as session:
        return session.exec(query).first() is not None


def try_drain(lib: Library, progress: Callable[[DrainProgress], None] | None = None,
              cancel: Callable[[], bool] | None = None, documents: Collection[str] | None = None) -> DrainReport | None:
    """Drain the queue if this process can take the writer lock; None when another process holds it.

    Args:
        documents: only these documents' jobs. A command passes what it wrote (the note it added, the
            document it tagged): draining others' work belongs to the writer (the open app's indexing
            process, ``vancetope index run``), or a tag could wait minutes behind an agent's backlog.
            None: the whole queue.

    The lock stays held by this library object until it is closed (so repeated drains are cheap).
    """
    if documents is not None and not documents:
        return DrainReport()
    if not lib.writer_lock.try_acquire():
        return None
    return writer_for(lib).drain(progress=progress, cancel=cancel, documents=documents)


def wait_until_indexed(lib: Library, document_ids: Sequence[str], *, timeout: float | None = None,
                       poll: float = 0.5, progress: Callable[[int, int], None] | None = None) -> bool:
    """Wait while another process indexes ``document_ids``; True when none is pending any more.

    Args:
        timeout: seconds to wait at most (None: no limit).
        progress: called with ``(finished, total)`` after each poll.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    ids = list(document_ids)
    while True:
        with read_session(lib.engine) as session:
            pending = session.exec(
                select(func.count()).select_from(tables.DocumentRow).where(
                    tables.DocumentRow.id.in_(ids),  # type: ignore[attr-defined]
                    tables.DocumentRow.index_state == IndexState.PENDING.value,
                )
            ).one()
        if progress is not None:
            progress(len(ids) - pending, len(ids))
        if not pending:
            return True
        if lib.writer_lock.try_acquire():  # the other writer went away: finish our documents here
            writer_for(lib).drain(documents=ids)
            continue
        if deadline is not None and time.monotonic() > deadline:
            return False
        time.sleep(poll)


class IndexStatus(BaseModel):
    """Counts of documents per indexing state, queued jobs, the models, and whether a re-index is due."""

    states: dict[str, int]
    queued_jobs: int
    index_model: str
    settings_model: str
    reindex_needed: bool
    writer_pid: int | None
    failures: list[tuple[str, str, str]]


def index_status(lib: Library) -> IndexStatus:
    """The library's indexing state (``vancetope index status``)."""
    with read_session(lib.engine) as session:
        rows = session.exec(
            select(tables.DocumentRow.index_state, func.count()).group_by(tables.DocumentRow.index_state)
        ).all()
        jobs = session.exec(select(func.count()).select_from(tables.JobRow)).one()
        failures = session.exec(
            select(tables.DocumentRow.id, tables.DocumentRow.title, tables.DocumentRow.index_error).where(
                tables.DocumentRow.index_state.in_([IndexState.FAILED.value, IndexState.NEEDS_OCR.value])  # type: ignore[attr-defined]
            )
        ).all()
        index_model = get_meta(session, "index_model") or lib.settings.embedding_model
    return IndexStatus(
        states={state: count for state, count in rows}, queued_jobs=int(jobs), index_model=index_model,
        settings_model=lib.settings.embedding_model, reindex_needed=index_model != lib.settings.embedding_model,
        writer_pid=None if lib.writer_lock.held else lib.writer_lock.holder_pid(),
        failures=[(i, t, e or "needs OCR") for i, t, e in failures],
    )


def start_reindex(lib: Library) -> int:
    """Switch the library to the settings' embedding model: drop every collection, queue every document.

    Lexical search keeps working meanwhile; vector search returns as documents are re-embedded.

    Returns:
        The number of documents queued.
    """
    for info in lib.vectors.collections():
        lib.vectors.drop_collection(info.scope)
    with write_session(lib.engine) as session:
        ids = session.exec(
            select(tables.DocumentRow.id).where(
                tables.DocumentRow.index_state.in_([IndexState.INDEXED.value, IndexState.PENDING.value,  # type: ignore[attr-defined]
                                                    IndexState.FAILED.value])
            )
        ).all()
        for document_id in ids:
            row = records.document_row(session, document_id)
            has_chunks = session.exec(
                select(func.count()).select_from(tables.ChunkRow).where(tables.ChunkRow.document_id == document_id)
            ).one()
            if not has_chunks:
                continue
            row.index_state, row.index_error = IndexState.PENDING.value, None
            session.add(row)
            records.enqueue(session, document_id, "embed")
        set_meta(session, "index_model", lib.settings.embedding_model)
        generation = int(get_meta(session, "index_generation", "0") or 0) + 1
        set_meta(session, "index_generation", str(generation))
    return len(ids)
