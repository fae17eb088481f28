"""Running the index: drain the queue (when this process holds the writer lock), status, checks, rebuild.

In an embedded library exactly one process drains at a time. The app holds the writer lock while it is open; a CLI
run drains itself when no app is open, and otherwise waits for the app to index what it queued. In a team library
every process drains, the writers sharing the queue out by claims (``index.job_claims``).

The vector store is a cache of what SQLite holds: :func:`check_vectors` compares the two per scope,
and :func:`rebuild_index` makes it again from SQLite whatever state it is in.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Sequence
from typing import Protocol
from weakref import WeakKeyDictionary

import numpy as np
from pydantic import BaseModel, Field, computed_field
from sqlalchemy import exists, func, text
from sqlmodel import Session, select

from ..core.documents import ChunkRole, DocumentType, IndexState
from ..core.errors import EmbeddingModelMissing, IndexUnavailable
from ..index.drain_thread import DrainThread
from ..index.job_claims import JobClaims
from ..index.writer import DrainProgress, DrainReport, IndexWriter, embedded_chunks
from ..index.writer import pending_work as _pending_work
from ..ingest.base import ChunkDraft
from ..ingest.chunking import fit_to_model
from ..store import tables
from ..store.backups import timestamp, unique_path
from ..store.db import get_meta, read_session, set_meta, write_session
from ..store.dialect_sql import SqlForms
from . import records
from .library import Library


def writer_for(lib: Library) -> IndexWriter:
    """An :class:`IndexWriter` over the library, embedding with the library's index model, its claims on the queue
    leased as the library's writer election says (``writer_lock.lease_seconds``: 0 for the embedded library's one
    writer)."""
    spec = lib.index_model()
    return IndexWriter(lib.engine, lib.vectors, lambda: lib.embedder(spec), spec,
                       batch_chunks=max(lib.settings.embedding_batch_size * 4, 64),
                       claims=JobClaims(lib.engine, lease_seconds=lib.writer_lock.lease_seconds))


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
    fit_unfitted(lib, documents)
    return writer_for(lib).drain(progress=progress, cancel=cancel, documents=documents)


def try_drain_own(lib: Library, documents: Collection[str]) -> DrainReport | None:
    """:func:`try_drain` of what a call just wrote, for the agent tools: None also when the embedding model cannot
    run here. The documents are stored and found by their words; they stay queued, and ``index status`` and the
    writer say why: a store must not look failed (and be retried, stored twice) for want of the model."""
    try:
        return try_drain(lib, documents=documents)
    except EmbeddingModelMissing:
        return None


_UNFITTED = text(
    "SELECT DISTINCT j.document_id FROM index_job j WHERE j.kind = 'embed' AND EXISTS "
    "(SELECT 1 FROM chunk c WHERE c.document_id = j.document_id AND c.token_count = :unfitted)"
).bindparams(unfitted=records.UNFITTED)


def fit_unfitted(lib: Library, documents: Collection[str] | None = None) -> list[str]:
    """Cut the chunks of queued documents that were stored without the embedding model (``records.fit_chunks``) to
    the model's limit, before the writer embeds them; the drains of this module call it.

    Args:
        documents: only these documents; None: every queued one.

    Returns:
        The ids of the documents whose chunks were fitted (usually none: one small query over the queue).

    Raises:
        EmbeddingModelMissing: such documents wait and the model still cannot run here (they stay queued, found by
            their words).
    """
    with read_session(lib.engine) as session:
        ids = [row[0] for row in session.exec(_UNFITTED).all()]
    if documents is not None:
        wanted = set(documents)
        ids = [i for i in ids if i in wanted]
    if not ids:
        return []
    model = lib.embedder()
    for document_id in ids:
        # Read and written in one transaction: an edit committed in between cannot be overwritten by old chunks.
        with write_session(lib.engine) as session:
            stored = session.exec(select(tables.ChunkRow).where(tables.ChunkRow.document_id == document_id)
                                  .order_by(tables.ChunkRow.ordinal)).all()  # type: ignore[arg-type]
            drafts = [ChunkDraft(c.text, c.page, c.section, ChunkRole(c.role)) for c in stored]
            chunks, counts = fit_to_model(drafts, model)
            records.replace_chunks(session, records.document_row(session, document_id), chunks, counts)
    return ids


def drain_alongside(lib: Library, progress: Callable[[DrainProgress], None] | None = None) -> DrainThread | None:
    """A thread that indexes the documents handed to it while the caller writes more (an upload: each file's
    documents as soon as they are committed, while the next file is extracted), when this process can take
    the writer lock; None when another process holds it (that process indexes them: ``wait_until_indexed``).

    Use the result as a context manager (:class:`~..index.drain_thread.DrainThread`): leaving it waits until
    every document handed over is indexed, and its ``report`` says what was done. ``progress``: called on
    that thread after each batch, over every document handed over so far.
    """
    if not lib.writer_lock.try_acquire():
        return None
    return DrainThread(writer_for(lib), progress)


def pending_documents(lib: Library) -> list[str]:
    """The ids of the library's documents waiting to be embedded (index state pending), e.g. to wait for another
    process's drain of them (:func:`wait_until_indexed`)."""
    with read_session(lib.engine) as session:
        return list(session.exec(select(tables.DocumentRow.id).where(
            tables.DocumentRow.index_state == IndexState.PENDING.value)).all())


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
            fit_unfitted(lib, ids)
            writer_for(lib).drain(documents=ids)
            continue
        if deadline is not None and time.monotonic() > deadline:
            return False
        time.sleep(poll)


REBUILD_HINT = "`vancetope index rebuild`, or File ▸ Rebuild Search Index in the app"
"""How a user rebuilds the search index, for messages (both faces run ``rebuild_index``)."""


class ScopeVectors(BaseModel):
    """One scope's vectors: how many its collection holds against the chunks that should have one."""

    scope: str
    expected: int = Field(description="Body chunks of the scope's indexed documents with no index job queued.")
    stored: int = Field(description="Vectors in the scope's collection.")
    busy: bool = Field(default=False, description="Documents of the scope have index jobs queued: vectors of "
                       "theirs may be there or not yet, so only a shortfall counts.")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def missing(self) -> int:
        """Vectors certainly missing (a document with queued work may hold extra ones, never fewer)."""
        return max(self.expected - self.stored, 0)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def extra(self) -> int:
        """Vectors of no settled document, counted only when nothing is queued for the scope."""
        return 0 if self.busy else max(self.stored - self.expected, 0)


class VectorCheck(BaseModel):
    """The vector store checked against SQLite: per-scope counts, or why the store cannot be read."""

    error: str | None = None
    scopes: list[ScopeVectors] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def problems(self) -> list[str]:
        """What is wrong, one line each (empty when the store matches the library)."""
        if self.error is not None:
            return [self.error]
        lines = []
        for scope in self.scopes:
            if scope.missing:
                lines.append(f"{scope.scope}: {scope.missing} of {scope.expected} vectors missing "
                             f"(the store holds {scope.stored})")
            if scope.extra:
                lines.append(f"{scope.scope}: {scope.extra} vectors of documents no longer in the library")
        return lines


def _busy_scopes(forms: SqlForms) -> str:
    """The scopes the queue's jobs will write to or remove from: a document's, a move's origin, a drop's."""
    return f"""
    SELECT d.scope_path FROM index_job j JOIN document d ON d.id = j.document_id
    UNION SELECT {forms.text('j.payload', 'from')} FROM index_job j WHERE j.kind = 'move'
    UNION SELECT {forms.text('j.payload', 'scope')} FROM index_job j WHERE j.kind = 'drop'
"""


def stored_vectors(lib: Library, scope: str, document_ids: Collection[str]) -> dict[str, np.ndarray]:
    """The index's vector of each document of ``document_ids`` in ``scope`` that is indexed as one chunk (an
    atom, a short memory): the vector ``lib.embedder().encode_queries`` gives its text (cosine 1.0), read rather
    than computed. A document still queued (new or edited), failed, in several chunks or of another scope is left
    out: the caller encodes those.

    Raises:
        IndexUnavailable: the vector store cannot be read.
    """
    if not document_ids:
        return {}
    with read_session(lib.engine) as session:
        single = session.exec(
            select(tables.ChunkRow.document_id, func.min(tables.ChunkRow.ordinal))
            .join(tables.DocumentRow, tables.DocumentRow.id == tables.ChunkRow.document_id)  # type: ignore[arg-type]
            .where(tables.ChunkRow.document_id.in_(list(document_ids)),  # type: ignore[attr-defined]
                   tables.DocumentRow.scope_path == scope, tables.DocumentRow.index_state == IndexState.INDEXED.value)
            .group_by(tables.ChunkRow.document_id).having(func.count() == 1)
        ).all()
    found = lib.vectors.chunk_vectors(scope, [f"{doc_id}:{ordinal}" for doc_id, ordinal in single])
    return {chunk_id.rsplit(":", 1)[0]: vector for chunk_id, vector in found.items()}


class Statement(Protocol):
    """What :func:`statement_vectors` needs of an atom (``core.atoms.Atom`` is one): its id, scope and text."""

    @property
    def id(self) -> str: ...
    @property
    def scope(self) -> str: ...
    @property
    def text(self) -> str: ...


def statement_vectors(lib: Library, atoms: Sequence[Statement]) -> np.ndarray:
    """The atoms' statement vectors ``(len(atoms), dimension)`` float32, unit length: read from the index for the
    atoms it holds (:func:`stored_vectors`: the app's indexing process embeds an atom within seconds of its
    writing), encoded with ``lib.embedder().encode_queries`` for the rest (queued, edited, several chunks).
    Encoding every atom again was most of a digest's time: 18.6 of 30.5 s for 500 atoms (``bench_throughput.py``).

    Raises:
        IndexUnavailable: the vector store cannot be read, or the model cannot be loaded.
    """
    stored: dict[str, np.ndarray] = {}
    for scope in {a.scope for a in atoms}:
        stored |= stored_vectors(lib, scope, [a.id for a in atoms if a.scope == scope])
    embedder = lib.embedder()
    out = np.empty((len(atoms), embedder.dimension), dtype=np.float32)
    missing = [i for i, atom in enumerate(atoms) if atom.id not in stored]
    if missing:
        out[missing] = embedder.encode_queries([atoms[i].text for i in missing])
    for i, atom in enumerate(atoms):
        if atom.id in stored:
            out[i] = stored[atom.id]
    return out


def check_vectors(lib: Library, scopes: Sequence[str] | None = None) -> VectorCheck:
    """Compare the vector store with SQLite: per scope, vectors stored against body chunks of indexed
    documents (``index.writer.embedded_chunks``; documents with queued jobs are left out).

    Args:
        scopes: check these scopes only (search checks the scopes it reads); None: every scope that has
            indexed documents or a collection.

    Returns:
        A :class:`VectorCheck`; its ``error`` says why the store cannot be opened or read. Never raises
        for the store's state: a damaged store is what this reports.
    """
    document, chunk = tables.DocumentRow, tables.ChunkRow
    query = (
        select(document.scope_path, func.count(chunk.id)).join(chunk, chunk.document_id == document.id)  # type: ignore[arg-type]
        .where(document.index_state == IndexState.INDEXED.value, embedded_chunks(),
               ~exists().where(tables.JobRow.document_id == document.id))
        .group_by(document.scope_path)
    )
    if scopes is not None:
        query = query.where(document.scope_path.in_(list(scopes)))  # type: ignore[attr-defined]
    with read_session(lib.engine) as session:
        expected = dict(session.exec(query).all())
        busy = {row[0] for row in session.exec(text(_busy_scopes(SqlForms.of(session)))).all()}
    try:
        if scopes is None:
            stored = {info.scope: info.count for info in lib.vectors.collections() if info.scope}
            wanted = sorted(set(expected) | set(stored))
        else:
            wanted = list(scopes)
            stored = lib.vectors.counts(wanted)
    except IndexUnavailable as error:
        return VectorCheck(error=f"{error} ({REBUILD_HINT})")
    return VectorCheck(scopes=[
        ScopeVectors(scope=scope, expected=int(expected.get(scope, 0)), stored=int(stored.get(scope, 0)),
                     busy=scope in busy)
        for scope in wanted
    ])


_CHECKED: WeakKeyDictionary[Library, dict[tuple[str, ...], tuple[tuple[int, int], VectorCheck]]] = WeakKeyDictionary()


def missing_vector_warnings(lib: Library, session: Session, scopes: Sequence[str]) -> list[str]:
    """The warning search shows when vectors of ``scopes`` are missing (results by meaning are incomplete
    and keyword matches carry the search), else nothing. ``session``: the caller's read session, for
    the counters.

    The check is kept per library object until the index generation or the change counter moves (a
    vector written, a document changed): it costs about 35 ms at 100,000 chunks (an index-only count
    over ``chunk(document_id, role)``; 176 ms without that index), a third of a search's budget, and
    nothing it counts changes without one of them moving. A one-shot CLI search pays it once.
    """
    counters = lib.index_counters(session)
    kept = _CHECKED.setdefault(lib, {})
    found = kept.get(tuple(scopes))
    if found is None or found[0] != counters:
        found = kept[tuple(scopes)] = (counters, check_vectors(lib, scopes))
    check = found[1]
    missing = sum(scope.missing for scope in check.scopes)
    if check.error is not None:
        return [check.error]
    if not missing:
        return []
    return [f"{missing} passages have no vectors ({', '.join(s.scope for s in check.scopes if s.missing)}): "
            f"they are found by their words only; rebuild the search index ({REBUILD_HINT})"]


class IndexStatus(BaseModel):
    """Counts of documents per indexing state (folders left out: they hold no text), queued jobs, the models and
    precisions (the vectors' and the settings'), whether a re-index is due (either differs), why the model cannot
    run here (``model_problem``, ``Library.model_problem``; None when it can), and the vector store checked
    against SQLite."""

    states: dict[str, int]
    queued_jobs: int
    index_model: str
    settings_model: str
    index_precision: str
    settings_precision: str
    reindex_needed: bool
    writer_pid: int | None
    failures: list[tuple[str, str, str]]
    model_problem: str | None = None
    vectors: VectorCheck = Field(default_factory=VectorCheck)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def problems(self) -> list[str]:
        """What a rebuild would repair (the vector store's problems)."""
        return self.vectors.problems


def index_status(lib: Library) -> IndexStatus:
    """The library's indexing state (``vancetope index status``, the window's index check), with
    :func:`check_vectors` and the model's problem, if any."""
    with read_session(lib.engine) as session:
        rows = session.exec(
            select(tables.DocumentRow.index_state, func.count())
            .where(tables.DocumentRow.type != DocumentType.FOLDER.value)
            .group_by(tables.DocumentRow.index_state)
        ).all()
        jobs = session.exec(select(func.count()).select_from(tables.JobRow)).one()
        failures = session.exec(
            select(tables.DocumentRow.id, tables.DocumentRow.title, tables.DocumentRow.index_error).where(
                tables.DocumentRow.index_state.in_([IndexState.FAILED.value, IndexState.NEEDS_OCR.value])  # type: ignore[attr-defined]
            )
        ).all()
        index_model = get_meta(session, "index_model") or lib.settings.embedding_model
    index_precision, settings_precision = lib.index_precision(), lib.settings.embedding_precision
    return IndexStatus(
        states={state: count for state, count in rows}, queued_jobs=int(jobs), index_model=index_model,
        settings_model=lib.settings.embedding_model, index_precision=index_precision,
        settings_precision=settings_precision,
        reindex_needed=index_model != lib.settings.embedding_model or index_precision != settings_precision,
        writer_pid=None if lib.writer_lock.held else lib.writer_lock.holder_pid(),
        failures=[(i, t, e or "needs OCR") for i, t, e in failures], model_problem=lib.model_problem(),
        vectors=check_vectors(lib),
    )


class RebuildReport(BaseModel):
    """What :func:`rebuild_index` did: documents queued, and where a damaged store was moved (kept)."""

    queued: int
    moved_aside: str | None = None


def rebuild_index(lib: Library) -> RebuildReport:
    """Make the vector index again from SQLite, whatever state the store is in, with the settings' model and
    precision.

    The store is emptied (every collection dropped) or, when it cannot be opened or emptied, its folder
    is moved to ``backups/chroma-damaged-<time>`` and kept; then every document with chunks is queued for
    embedding. Lexical search keeps working meanwhile; vector search returns as documents are embedded
    (by the writer: the open app's indexing process, or ``vancetope index run``).

    Raises:
        IndexUnavailable: the damaged store cannot be moved aside (nothing was changed).
    """
    aside = unique_path(lib.paths.backups / f"chroma-damaged-{timestamp()}")
    try:
        moved = lib.vectors.reset(aside)
    except OSError as error:
        raise IndexUnavailable(f"cannot move the damaged vector store aside to {aside}: {error}") from error
    with write_session(lib.engine) as session:
        ids = session.exec(
            select(tables.DocumentRow.id).where(
                tables.DocumentRow.index_state.in_([IndexState.INDEXED.value, IndexState.PENDING.value,  # type: ignore[attr-defined]
                                                    IndexState.FAILED.value])
            )
        ).all()
        queued = 0
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
            queued += 1
        set_meta(session, "index_model", lib.settings.embedding_model)
        set_meta(session, "index_precision", lib.settings.embedding_precision)
        generation = int(get_meta(session, "index_generation", "0") or 0) + 1
        set_meta(session, "index_generation", str(generation))
    return RebuildReport(queued=queued, moved_aside=None if moved is None else str(moved))
