"""The index writer: drains the queued index jobs into the vector store (one process at a time in an embedded
library, several at once in a team library).

Adding a document and queuing its ``embed`` job commit in one transaction, so the queue is
the durable record of what still has to reach Chroma. The writer claims a batch (``index.job_claims``: whole
documents, which no other writer holds), embeds it, writes the vectors
(idempotently: a document's old vectors are deleted, then its chunks upserted under the stable ids
``doc_id:ordinal``), and only then deletes the jobs it still holds. A crash anywhere in between leaves the jobs in
place, claimed until the lease runs out, and the next drain redoes them, so every chunk ends up indexed exactly once.

Vector writes are grouped per scope: a batch makes one delete and one upsert per scope, not per
document (each Chroma call takes the cross-process lock and costs tens of milliseconds, which
dominated the drain of many small notes); a failing group is retried document by document.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, delete, func
from sqlmodel import Session, select

from ..core.documents import EMBEDDED_ROLES, IndexState
from ..core.errors import IndexUnavailable
from ..core.scopes import ScopeKind
from ..store import reconnect, tables
from ..store.db import get_meta, read_session, set_meta, write_session
from .embedder import Embedder
from .job_claims import JobClaims
from .vector_store import VectorStore


@dataclass(frozen=True)
class DrainProgress:
    """Progress of a drain: documents and chunks done out of those queued when it started."""

    documents_done: int
    documents_total: int
    chunks_done: int
    chunks_total: int
    current: str = ""
    reconnecting: bool = False
    """True while a team library's database is reconnected: ``current`` then says so ("reconnecting to the database
    at host:port/db…"), and the figures are the last ones (nothing is counted on a database that is away)."""


@dataclass
class DrainReport:
    """What a drain did: documents indexed, failures with reasons, chunks embedded, cancelled or not."""

    indexed: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    chunks: int = 0
    cancelled: bool = False


_EMBEDDED = [role.value for role in EMBEDDED_ROLES]


def embedded_chunks():
    """The condition selecting the chunks that get vectors (``core.documents.EMBEDDED_ROLES``)."""
    return tables.ChunkRow.role.in_(_EMBEDDED)  # type: ignore[attr-defined]


WAIT_SECONDS = 0.5
"""How often a drain looks again when the jobs left are claimed by other writers (a team library): until they are
done, or their lease runs out and this writer takes them over."""
ID_SLICE = 500
"""Documents per ``IN (…)`` list when a drain is limited to given documents (SQLite caps bound parameters)."""


def pending_work(engine: Engine, documents: Collection[str] | None = None) -> tuple[int, int]:
    """``(documents, chunks)`` still queued for embedding (only chunks that get vectors count).

    Args:
        documents: count only these documents' work; None: the whole queue.
    """
    if documents is not None:
        ids = list(dict.fromkeys(documents))
        parts = [_pending_work_of(engine, ids[i : i + ID_SLICE]) for i in range(0, len(ids), ID_SLICE)]
        return sum(p[0] for p in parts), sum(p[1] for p in parts)
    return _pending_work_of(engine, None)


def _pending_work_of(engine: Engine, documents: list[str] | None) -> tuple[int, int]:
    """:func:`pending_work` for at most :data:`ID_SLICE` documents (or the whole queue)."""
    queued = [tables.JobRow.kind == "embed"]
    if documents is not None:
        queued.append(tables.JobRow.document_id.in_(documents))  # type: ignore[attr-defined]
    with read_session(engine) as session:
        count = session.exec(select(func.count(func.distinct(tables.JobRow.document_id))).where(*queued)).one()
        chunks = session.exec(
            select(func.count()).select_from(tables.ChunkRow).where(
                tables.ChunkRow.document_id.in_(select(tables.JobRow.document_id).where(*queued)),  # type: ignore[attr-defined]
                embedded_chunks(),
            )
        ).one()
    return int(count), int(chunks)


class IndexWriter:
    """Drains index jobs. Only a process that took the library's writer lock may call :meth:`drain` (in a team
    library, every process: ``index.job_claims.SharedWriters``).

    Args:
        engine: the library database.
        vectors: the vector store to write.
        embedder: returns the embedder of the library's index model (called lazily: loading it is slow).
        model_spec: the settings string of that model, recorded in the library on first use.
        batch_chunks: chunks embedded per batch; larger batches amortise model calls, smaller ones
            commit progress more often (and, in a team library, share the queue out more evenly).
        claims: this writer's claims on the queue; default: the embedded library's one writer (lease 0).
    """

    def __init__(self, engine: Engine, vectors: VectorStore, embedder: Callable[[], Embedder], model_spec: str,
                 batch_chunks: int = 256, claims: JobClaims | None = None) -> None:
        self.engine = engine
        self.vectors = vectors
        self._embedder = embedder
        self.model_spec = model_spec
        self.batch_chunks = batch_chunks
        self.claims = claims or JobClaims(engine, lease_seconds=0)

    def drain(self, progress: Callable[[DrainProgress], None] | None = None,
              cancel: Callable[[], bool] | None = None, documents: Collection[str] | None = None) -> DrainReport:
        """Process queued jobs until the queue is empty or ``cancel()`` returns True. Jobs other writers hold are
        waited for (every :data:`WAIT_SECONDS`), and taken over when their claims run out.

        Args:
            documents: only these documents' jobs (a command's own work: the document it added, tagged,
                purged…), leaving the rest of the queue to the writer; None: every job (the writer).

        Returns:
            A :class:`DrainReport`. Failures of single documents are recorded on the document
            (``index_state=failed`` with the reason) and do not stop the drain.

        Raises:
            IndexUnavailable: the vector store cannot be opened or read; the jobs not done stay queued
            (failing every document on a damaged store would hide what is wrong).
            DatabaseUnreachable: a team library's database did not answer within the reconnect budget
            (``store.reconnect``; a batch it cut off is redone while within it); the jobs not done stay queued.
        """
        report = DrainReport()
        ids = None if documents is None else list(dict.fromkeys(documents))
        slices = [None] if ids is None else [ids[i : i + ID_SLICE] for i in range(0, len(ids), ID_SLICE)]
        total_docs, total_chunks = pending_work(self.engine, ids)
        done_docs = 0
        try:
            for wanted in slices:
                done_docs = self._drain(report, wanted, done_docs, (total_docs, total_chunks), progress, cancel)
                if report.cancelled:
                    break
        finally:  # cancelled or failed: what this writer did not finish is free for the others at once
            self.claims.release()
        return report

    def _drain(self, report: DrainReport, wanted: list[str] | None, done_docs: int, totals: tuple[int, int],
               progress: Callable[[DrainProgress], None] | None, cancel: Callable[[], bool] | None) -> int:
        """Drain the jobs of ``wanted`` (None: all) into ``report``; returns the documents done so far."""
        total_docs, total_chunks = totals
        queued = select(tables.JobRow.id).limit(1)
        if wanted is not None:
            queued = queued.where(tables.JobRow.document_id.in_(wanted))  # type: ignore[attr-defined]

        def waiting(message: str | None) -> None:  # a team library's database away: the progress says so
            if progress is not None:
                progress(DrainProgress(done_docs, max(total_docs, done_docs), report.chunks,
                                       max(total_chunks, report.chunks), message or "", message is not None))

        while True:
            if cancel is not None and cancel():
                report.cancelled = True
                break
            # A batch the database's connection cut off is claimed again (its jobs are still this writer's) and
            # redone, once the server answers (store.reconnect): its jobs are deleted only with its results.
            with reconnect.reporting(waiting):
                done = reconnect.resuming(self.engine, lambda: self._drain_step(wanted, queued, report))
            if done is None:
                break
            done_docs += done
            if done and progress is not None:
                progress(DrainProgress(done_docs, max(total_docs, done_docs), report.chunks,
                                       max(total_chunks, report.chunks)))
        return done_docs

    def _drain_step(self, wanted: list[str] | None, queued: Any, report: DrainReport) -> int | None:
        """Claim one batch of ``wanted``'s jobs (None: any) and do it: maintenance jobs, then embedding. Returns the
        documents embedded (0 when the jobs left are other writers': after waiting :data:`WAIT_SECONDS`), or None
        when ``queued`` (the first job of ``wanted``) finds none left."""
        jobs = self.claims.claim(wanted, self._take_batch)
        if not jobs:
            with read_session(self.engine) as session:
                if session.exec(queued).first() is None:
                    return None
            time.sleep(WAIT_SECONDS)  # the rest is other writers' (a team library)
            return 0
        for job in jobs:
            if job.kind != "embed":
                self._run_maintenance(job)
        batch: dict[str, list[int]] = {}
        for job in jobs:
            if job.kind == "embed":
                batch.setdefault(job.document_id, []).append(job.id)  # type: ignore[arg-type]
        return self._embed_batch(batch, report) if batch else 0

    # -- embedding -----------------------------------------------------------------------------
    def _take_batch(self, session: Session, jobs: list[tables.JobRow]) -> list[tables.JobRow]:
        """The batch among ``jobs`` (free jobs, oldest first): whole documents, in queue order, until the documents
        to embed hold ``batch_chunks`` chunks (moves, drops and refreshes count none). ``session``: the claim's."""
        embedding = list(dict.fromkeys(j.document_id for j in jobs if j.kind == "embed"))
        sizes = dict(session.exec(
            select(tables.ChunkRow.document_id, func.count()).where(
                tables.ChunkRow.document_id.in_(embedding), embedded_chunks())  # type: ignore[attr-defined]
            .group_by(tables.ChunkRow.document_id)
        ).all()) if embedding else {}
        taken: set[str] = set()
        size = 0
        for job in jobs:
            if job.document_id not in taken and (not taken or size < self.batch_chunks):
                taken.add(job.document_id)
                size += sizes.get(job.document_id, 0)  # once per document, however many jobs it has
        return [job for job in jobs if job.document_id in taken]

    def _embed_batch(self, batch: dict[str, list[int]], report: DrainReport) -> int:
        """Embed the claimed documents of ``batch`` (document → its embed jobs), write their vectors while the claims
        are still held, then delete the jobs and record the documents' index states; returns the documents done
        (0 when the claims were lost meanwhile: the writer that took them over does the work)."""
        job_ids = [i for ids in batch.values() for i in ids]
        with self.claims.kept(job_ids):
            return self._embed_claimed(batch, job_ids, report)

    def _embed_claimed(self, batch: dict[str, list[int]], job_ids: list[int], report: DrainReport) -> int:
        documents: list[tuple[tables.DocumentRow, list[tables.ChunkRow], dict[str, Any]]] = []
        with read_session(self.engine) as session:
            for document_id in batch:
                row = session.get(tables.DocumentRow, document_id)
                if row is None:
                    continue  # purged meanwhile: its jobs are simply dropped
                # Reference lists, author pages… stay keyword-only (core.documents.ChunkRole).
                chunks = list(session.exec(
                    select(tables.ChunkRow).where(tables.ChunkRow.document_id == document_id, embedded_chunks())
                    .order_by(tables.ChunkRow.ordinal)  # type: ignore[arg-type]
                ).all())
                documents.append((row, chunks, _chunk_metadata(session, row)))
        texts = [chunk.text for _, chunks, _ in documents for chunk in chunks]
        failures: dict[str, str] = {}
        embedder = self._embedder()
        try:
            vectors = embedder.encode_documents(texts) if texts else None
        except Exception as error:  # a model failure must not lose the queue: record and stop this batch
            for row, _, _ in documents:
                failures[row.id] = f"embedding failed: {error}"
            vectors = None
        if not self.claims.renew(job_ids):
            return 0  # another writer took these jobs over (this one was stopped past its lease): its vectors win
        self._write_vectors(documents, vectors, embedder.vector_identity, failures)
        done = DrainReport()  # into ``report`` once committed: a batch the connection cut off is done again
        with write_session(self.engine) as session:
            session.exec(delete(tables.JobRow).where(  # type: ignore[call-overload]
                tables.JobRow.id.in_(job_ids), self.claims.owned()))  # type: ignore[union-attr]
            # Two queries for the whole batch, not two a document: a batch of 128 atoms held a team library's
            # write lock for seconds on a loaded machine, one round trip after the other (issue 17's load test).
            ids = [row.id for row, _, _ in documents]
            stored = {r.id: r for r in session.exec(select(tables.DocumentRow).where(
                tables.DocumentRow.id.in_(ids))).all()}  # type: ignore[attr-defined]
            queued = set(session.exec(select(tables.JobRow.document_id).where(
                tables.JobRow.document_id.in_(ids), tables.JobRow.kind == "embed")).all())  # type: ignore[attr-defined]
            for row, chunks, _ in documents:
                current = stored.get(row.id)
                if current is None:
                    continue
                still_queued = row.id in queued
                if row.id in failures:
                    current.index_state, current.index_error = IndexState.FAILED.value, failures[row.id]
                    done.failed.append((row.id, failures[row.id]))
                elif not still_queued:
                    current.index_state, current.index_error = IndexState.INDEXED.value, None
                    done.indexed.append(row.id)
                    done.chunks += len(chunks)
                session.add(current)
            if get_meta(session, "index_model") is None:
                set_meta(session, "index_model", self.model_spec)
                set_meta(session, "index_precision", self._embedder().precision)
            generation = _bump_generation(session)
        report.indexed += done.indexed
        report.failed += done.failed
        report.chunks += done.chunks
        self.vectors.mark_written(generation)
        return len(documents)

    def _write_vectors(self, documents: list[tuple[tables.DocumentRow, list[tables.ChunkRow], dict[str, Any]]],
                       vectors: Any, model: str, failures: dict[str, str]) -> None:
        """Replace the batch's vectors: per scope, one delete of the documents' old vectors, one upsert.

        Two Chroma calls per scope instead of two per document (each takes the cross-process lock and
        costs tens of ms whatever its size). If a scope's batched write fails, its documents are
        retried one by one so a single bad document is recorded as failed without failing the rest.
        """
        groups: dict[str, list[tuple[tables.DocumentRow, list[tables.ChunkRow], dict[str, Any], int]]] = {}
        offset = 0
        for row, chunks, base in documents:
            if row.id not in failures:
                groups.setdefault(row.scope_path, []).append((row, chunks, base, offset))
            offset += len(chunks)
        for scope, members in groups.items():
            try:
                self._replace(scope, members, vectors, model)
            except IndexUnavailable:
                raise  # the whole store, not these documents: the jobs stay queued until it is rebuilt
            except Exception:
                for member in members:
                    try:
                        self._replace(scope, [member], vectors, model)
                    except IndexUnavailable:
                        raise
                    except Exception as error:
                        failures[member[0].id] = f"vector store: {error}"

    def _replace(self, scope: str, members: list[tuple[tables.DocumentRow, list[tables.ChunkRow],
                                                        dict[str, Any], int]], vectors: Any, model: str) -> None:
        self.vectors.delete_documents(scope, [row.id for row, _, _, _ in members])
        ids: list[str] = []
        metadatas: list[dict[str, Any]] = []
        rows: list[int] = []
        for row, chunks, base, offset in members:
            ids += [f"{row.id}:{c.ordinal}" for c in chunks]
            metadatas += [{**base, "page": c.page, "ordinal": c.ordinal} for c in chunks]
            rows += range(offset, offset + len(chunks))
        if ids:
            self.vectors.upsert(scope, model, ids, vectors[rows], metadatas)

    # -- moves, drops, metadata ----------------------------------------------------------------
    def _run_maintenance(self, job: tables.JobRow) -> None:
        error = None
        try:
            with read_session(self.engine) as session:
                row = session.get(tables.DocumentRow, job.document_id)
                base = _chunk_metadata(session, row) if row is not None else None
            if job.kind == "drop":
                self.vectors.delete_document(job.payload["scope"], job.document_id)
            elif job.kind == "move" and row is not None and base is not None:
                self._move(row, job.payload["from"], base)
            elif job.kind == "refresh" and row is not None and base is not None:
                self.vectors.update_metadata(row.scope_path, row.id, base)
        except IndexUnavailable:
            raise  # the whole store: the job stays as it is
        except Exception as failure:  # recorded on the job; the drain goes on with the rest
            error = str(failure)
        with write_session(self.engine) as session:
            stored = session.get(tables.JobRow, job.id)
            if stored is None or stored.claimed_by != self.claims.claimant:
                return  # done, or taken over by another writer, meanwhile
            if error is None or stored.attempts >= 3:
                session.delete(stored)
            else:
                stored.attempts += 1
                stored.last_error = error
                stored.claimed_by = stored.claimed_at = None  # free again: tried anew by the next claim
                session.add(stored)
            generation = _bump_generation(session)
        self.vectors.mark_written(generation)

    def _move(self, row: tables.DocumentRow, source_scope: str, base: dict[str, Any]) -> None:
        """Carry a document's vectors to its new scope without re-embedding; idempotent."""
        if source_scope == row.scope_path:
            return
        ids, embeddings, metadatas = self.vectors.document_vectors(source_scope, row.id)
        if ids:
            model = self._embedder_name_for(source_scope)
            self.vectors.upsert(row.scope_path, model, ids, embeddings,
                                [{**m, **base} for m in metadatas])
            self.vectors.delete_document(source_scope, row.id)
        else:
            # Already moved by an interrupted run (the vectors are at the target), or never embedded.
            self.vectors.update_metadata(row.scope_path, row.id, base)

    def _embedder_name_for(self, scope: str) -> str:
        for info in self.vectors.collections():
            if info.scope == scope and info.model:
                return info.model
        return self._embedder().vector_identity


def _bump_generation(session: Session) -> int:
    generation = int(get_meta(session, "index_generation", "0") or 0) + 1
    set_meta(session, "index_generation", str(generation))
    return generation


def _chunk_metadata(session: Session, row: tables.DocumentRow) -> dict[str, Any]:
    """Seed §5.2 chunk metadata: scope, its session/project/group, doc id and type, tags."""
    meta: dict[str, Any] = {"scope": row.scope_path, "doc_id": row.id, "doc_type": row.type}
    scope = session.get(tables.ScopeRow, row.scope_path)
    seen: set[str] = set()
    while scope is not None and scope.path not in seen:
        seen.add(scope.path)
        kind = ScopeKind(scope.kind)
        meta[kind.value.replace("-", "_")] = scope.path
        scope = session.get(tables.ScopeRow, scope.parent_path) if scope.parent_path else None
    meta["tags"] = sorted(session.exec(select(tables.TagRow.tag).where(tables.TagRow.document_id == row.id)).all())
    return meta
