"""Row-level helpers shared by the services: row → value object, chunks + lexical index, jobs, versions.

Everything here runs inside the caller's write transaction, so a document, its tags, its chunks,
its lexical index rows and its queued index job are committed together or not at all.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, insert, text
from sqlmodel import Session, select

from ..core.atoms import ATOM_KEY, EDITED_BY_PERSON, SOURCE_KEY, Atom, AtomType, PlanStatus, SourceSpan
from ..core.documents import (
    ANNOTATES,
    SUPERSEDED_BY,
    ChunkInfo,
    ChunkRole,
    DocumentInfo,
    DocumentStatus,
    DocumentType,
    IndexState,
    Source,
    SourceType,
    VersionInfo,
)
from ..core.errors import DocumentNotFound, EmbeddingModelMissing, InvalidAtom
from ..core.memories import MemoryType
from ..core.promotion import RequestStatus
from ..index import lexical_backend
from ..ingest.chunking import fit_to_model
from ..store import tables
from ..store.db import get_meta, read_session, set_meta
from ..store.dialect_sql import SqlForms
from ..store.tables import utcnow
from . import audit
from .library import Library

if TYPE_CHECKING:  # a type only: the extractors' module (and what it imports) is for the commands that import
    from ..ingest.base import ChunkDraft

_log = logging.getLogger(__name__)
_ATOM_TYPES = frozenset(t.value for t in AtomType)


def document_row(session: Session, document_id: str) -> tables.DocumentRow:
    """The row of ``document_id``. Raises DocumentNotFound."""
    row = session.get(tables.DocumentRow, document_id)
    if row is None:
        raise DocumentNotFound(f"no document {document_id}")
    return row


def document_rows(session: Session, document_ids: Iterable[str]) -> list[tables.DocumentRow]:
    """The rows of ``document_ids``, in that order (duplicates once), fetched 500 at a time.

    Raises:
        DocumentNotFound: an id names no document.
    """
    ids = list(dict.fromkeys(document_ids))
    rows: dict[str, tables.DocumentRow] = {}
    for start in range(0, len(ids), 500):
        rows.update((r.id, r) for r in session.exec(select(tables.DocumentRow).where(
            tables.DocumentRow.id.in_(ids[start : start + 500]))).all())  # type: ignore[attr-defined]
    missing = next((i for i in ids if i not in rows), None)
    if missing is not None:
        raise DocumentNotFound(f"no document {missing}")
    return [rows[i] for i in ids]


def tags_of(session: Session, document_id: str) -> list[str]:
    """A document's tags, sorted."""
    return sorted(session.exec(select(tables.TagRow.tag).where(tables.TagRow.document_id == document_id)).all())


def tags_by_document(session: Session, document_ids: Iterable[str]) -> dict[str, list[str]]:
    """Tags of many documents in one query: id → sorted tags."""
    ids = list(document_ids)
    result: dict[str, list[str]] = {i: [] for i in ids}
    for start in range(0, len(ids), 500):
        rows = session.exec(
            select(tables.TagRow).where(tables.TagRow.document_id.in_(ids[start : start + 500]))  # type: ignore[attr-defined]
        ).all()
        for row in rows:
            result[row.document_id].append(row.tag)
    for tags in result.values():
        tags.sort()
    return result


def to_info(lib: Library, row: tables.DocumentRow, tags: list[str]) -> DocumentInfo:
    """A detached :class:`DocumentInfo` for a row (with the stored file's path for files)."""
    file_path = None
    if row.blob_hash:
        suffix = row.meta.get("file_suffix", "")
        file_path = str(lib.blobs.path_for(row.blob_hash, suffix))
    return DocumentInfo(
        id=row.id, scope=row.scope_path, type=DocumentType(row.type), title=row.title, content=row.content,
        mime_type=row.mime_type, tags=tags,
        source=Source(type=SourceType(row.source_type), think_process_id=row.source_think_process,
                      node_id=row.source_node),
        created_at=row.created_at, updated_at=row.updated_at, metadata=dict(row.meta), folder_id=row.folder_id,
        status=DocumentStatus(row.status), index_state=IndexState(row.index_state), index_error=row.index_error,
        file_path=file_path, content_hash=row.content_hash, version=row.version,
        memory_type=MemoryType(row.memory_type) if row.memory_type else None, updated_by=row.updated_by,
    )


def atom_card(lib: Library, doc: DocumentInfo) -> Atom:
    """``doc``'s atom card (its source's title looked up). Raises InvalidAtom when it is not an atom."""
    return atom_cards(lib, [doc])[0]


def atom_cards(lib: Library, docs: Sequence[DocumentInfo]) -> list[Atom]:
    """Cards of ``docs`` (all atoms), their sources' titles read in one query (``services.atoms`` hands them out
    as ``atoms.card`` / ``atoms.cards``; they live here, with the other row → value helpers, so that the topic
    services below ``atoms`` list a topic's atoms as cards too).

    Raises:
        InvalidAtom: a document of ``docs`` is not an atom.
    """
    fields = []
    for doc in docs:
        if doc.type.value not in _ATOM_TYPES:
            raise InvalidAtom(f"{doc.id} is a {doc.type.value}, not an atom (fact, event or plan)")
        value = doc.metadata.get(ATOM_KEY)
        fields.append(value if isinstance(value, dict) else {})  # a fact stored as plain text has none
    wanted = [f[SOURCE_KEY] for f in fields if isinstance(f.get(SOURCE_KEY), str)]
    titles: dict[str, str] = {}
    if wanted:
        with read_session(lib.engine) as session:
            titles = dict(session.exec(text(f"SELECT id, title FROM document WHERE id IN "
                                            f"({SqlForms.of(session).rows('ids')})"),
                                       params={"ids": json.dumps(wanted)}).all())
    return [_atom_card(doc, f, titles) for doc, f in zip(docs, fields, strict=True)]


def _atom_card(doc: DocumentInfo, fields: dict[str, Any], titles: dict[str, str]) -> Atom:
    source_id = fields.get(SOURCE_KEY) if isinstance(fields.get(SOURCE_KEY), str) else None
    try:
        span = SourceSpan(**fields["span"]) if isinstance(fields.get("span"), dict) else None
        status = PlanStatus(fields["status"]) if fields.get("status") else None
        when = datetime.fromisoformat(fields["when"]) if fields.get("when") else None
        due = datetime.fromisoformat(fields["due"]) if fields.get("due") else None
    except (ValueError, TypeError) as error:  # metadata edited by hand: the atom still shows, without them
        span, status, when, due = None, None, None, None
        _log.warning("%s: damaged atom fields (%s)", doc.id, error)
    if doc.type is DocumentType.PLAN and status is None:
        status = PlanStatus.PLANNED
    superseded = doc.metadata.get(SUPERSEDED_BY)
    return Atom(id=doc.id, type=AtomType(doc.type.value), text=doc.content or doc.title, title=doc.title,
                scope=doc.scope, status=doc.status.value, when=when, due=due, plan_status=status, span=span,
                source_id=source_id, source_title=titles.get(source_id or ""),
                source_gone=source_id is not None and source_id not in titles,
                happened_as=superseded if doc.type is DocumentType.PLAN and doc.status is DocumentStatus.ARCHIVED
                and isinstance(superseded, str) else None,
                edited_by_person=bool(fields.get(EDITED_BY_PERSON)), created_at=doc.created_at,
                updated_at=doc.updated_at)


def info(lib: Library, session: Session, document_id: str) -> DocumentInfo:
    """Load one document as a value object. Raises DocumentNotFound."""
    row = document_row(session, document_id)
    return to_info(lib, row, tags_of(session, document_id))


def annotations_of(session: Session, document_ids: Iterable[str], *, live_only: bool = False) -> list[str]:
    """Ids of the annotations (``services.annotations``) on any of ``document_ids``, oldest first.

    Args:
        live_only: leave out annotations in the trash.
    """
    ids = list(dict.fromkeys(document_ids))
    if not ids:
        return []
    live = f" AND status != '{DocumentStatus.DELETED.value}'" if live_only else ""
    forms = SqlForms.of(session)
    rows = session.exec(text(
        f"SELECT id FROM document WHERE type = '{DocumentType.ANNOTATION.value}'{live} AND "
        f"{forms.text(forms.valid('metadata'), ANNOTATES)} IN ({forms.rows('ids')}) "
        "ORDER BY created_at, id"),
        params={"ids": json.dumps(ids)}).all()
    return [row[0] for row in rows]


UNFITTED = 0
"""The token count of a chunk stored without the embedding model (:func:`fit_chunks`): cut to the model's limit
when its document is indexed (``indexing.fit_unfitted``); a fitted chunk counts at least one token."""


def fit_chunks(lib: Library, chunks: list[ChunkDraft]) -> tuple[list[ChunkDraft], list[int]]:
    """An extraction's chunks cut to the library's model (``ingest.chunking.fit_to_model``), with their token counts.

    Storing a document does not need the model: when it cannot run here (``EmbeddingModelMissing``) the chunks are
    kept as extracted, blank ones dropped, with the count :data:`UNFITTED`; keyword search finds them at once, and
    the document's indexing fits them once the model is there (until then it reports the model's problem).
    """
    return chunk_fitter(lib)(chunks)


def chunk_fitter(lib: Library) -> Callable[[list[ChunkDraft]], tuple[list[ChunkDraft], list[int]]]:
    """:func:`fit_chunks` for many extractions: the library's model is looked up once (a query of its index
    identity each), not per call; a bibliography's thousand entries made a thousand of those queries."""
    try:
        model = lib.embedder()
    except EmbeddingModelMissing:
        def unfitted(chunks: list[ChunkDraft]) -> tuple[list[ChunkDraft], list[int]]:
            kept = [chunk for chunk in chunks if chunk.text.strip()]
            return kept, [UNFITTED] * len(kept)

        return unfitted
    return lambda chunks: fit_to_model(chunks, model)


def replace_chunks(session: Session, row: tables.DocumentRow, chunks: list[ChunkDraft], counts: list[int]) -> None:
    """Replace a document's chunks and their lexical index rows with ``chunks`` (token counts beside)."""
    lexical_backend.unindex_document(session, row.id)
    session.exec(delete(tables.ChunkRow).where(tables.ChunkRow.document_id == row.id))
    session.flush()
    add_chunks(session, [(row, chunks, counts)])


def add_chunks(session: Session, documents: Iterable[tuple[tables.DocumentRow, list[ChunkDraft], list[int]]]) -> None:
    """Add chunks and their lexical index rows to documents that have none yet, numbered from 0.

    One ``INSERT … RETURNING`` for every chunk of every document, then one batch of lexical rows: a
    bibliography's thousand references cost two statements, not four thousand ORM round trips.

    Args:
        documents: (row, chunks, token counts) per document; the rows must already be flushed.
    """
    values, lexical = [], []
    for row, chunks, counts in documents:
        for ordinal, (draft, count) in enumerate(zip(chunks, counts, strict=True)):
            values.append({"document_id": row.id, "ordinal": ordinal, "text": draft.text, "page": draft.page,
                           "section": draft.section, "token_count": count, "role": draft.role.value})
            lexical.append((row.title, draft.text))
    if not values:
        return
    table = tables.ChunkRow.__table__  # type: ignore[attr-defined]
    ids = session.execute(insert(table).returning(table.c.id, sort_by_parameter_order=True), values).scalars().all()
    lexical_backend.index_chunks(session, [(i, title, body) for i, (title, body) in zip(ids, lexical, strict=True)])


def enqueue(session: Session, document_id: str, kind: str, **payload: object) -> None:
    """Queue index work for the writer (committed with the caller's transaction)."""
    session.add(tables.JobRow(document_id=document_id, kind=kind, payload=dict(payload)))


def enqueue_many(session: Session, document_ids: Iterable[str], kind: str) -> None:
    """Queue the same index work for many documents in one statement (committed with the caller's transaction)."""
    values = [{"document_id": i, "kind": kind, "payload": {}, "attempts": 0, "created_at": utcnow()}
              for i in document_ids]
    if values:
        session.execute(insert(tables.JobRow.__table__), values)  # type: ignore[attr-defined]


def snapshot_version(session: Session, row: tables.DocumentRow, reason: str, *, author: str | None = None) -> None:
    """Keep the document's current state as a version before it changes; bumps ``row.version``.

    The kept version carries who made that state (the row's ``updated_by``) and when; the new state is
    ``author``'s (default: the acting person, ``services.identity``; an agent's or think process's change passes
    its actor).
    """
    session.add(tables.VersionRow(
        document_id=row.id, number=row.version, title=row.title, content=row.content,
        tags=tags_of(session, row.id), meta=dict(row.meta), content_hash=row.content_hash,
        blob_hash=row.blob_hash, reason=reason, created_at=row.updated_at, created_by=row.updated_by,
    ))
    row.version += 1
    row.updated_at = utcnow()
    row.updated_by = author or audit.current_user()


def creator(source_think_process: str | None) -> str:
    """Who makes a new document: the think process it comes from (``think-process/<id>``), else the acting person."""
    return f"think-process/{source_think_process}" if source_think_process else audit.current_user()


def version_info(row: tables.VersionRow) -> VersionInfo:
    """A stored version as a value object."""
    return VersionInfo(document_id=row.document_id, number=row.number, title=row.title, content=row.content,
                       tags=list(row.tags), metadata=dict(row.meta), content_hash=row.content_hash,
                       reason=row.reason, created_at=row.created_at, created_by=row.created_by)


def bump_change_counter(session: Session) -> None:
    """Record that documents changed, so other processes (the open app) notice within seconds."""
    set_meta(session, "change_counter", str(int(get_meta(session, "change_counter", "0") or 0) + 1))


def chunk_info(row: tables.ChunkRow) -> ChunkInfo:
    """A chunk row as a value object."""
    return ChunkInfo(document_id=row.document_id, ordinal=row.ordinal, text=row.text, page=row.page,
                     section=row.section, token_count=row.token_count, role=ChunkRole(row.role))


def withdraw_requests(session: Session, row: tables.DocumentRow, actor: str, *, why: str,
                      keep: str | None = None, moved_to: str | None = None) -> None:
    """Withdraw the document's pending promotion requests (but ``keep``), with ``why`` in each and in the audit
    trail: it was put in the trash, or moved by hand.

    After a move by hand (``moved_to``), a request whose target is still above the document's new scope
    stays pending, from the new scope; the others are withdrawn with ``moved_to`` as where it went.
    """
    pending = session.exec(select(tables.PromotionRequestRow).where(
        tables.PromotionRequestRow.document_id == row.id,
        tables.PromotionRequestRow.status == RequestStatus.PENDING.value,
    )).all()
    above = _ancestors(session, moved_to) if moved_to else []
    for request in pending:
        if request.id == keep:
            continue
        if request.target_scope in above:
            request.source_scope = moved_to  # type: ignore[assignment]
            session.add(request)
            continue
        request.status = RequestStatus.WITHDRAWN.value
        request.decided_by, request.decided_at, request.decision_reason = actor, utcnow(), why
        request.final_scope = moved_to
        session.add(request)
        audit.record(session, row, "withdraw", actor=actor, from_scope=request.source_scope,
                     to_scope=request.target_scope, reason=why, request_id=request.id)


def _ancestors(session: Session, path: str) -> list[str]:
    """The scopes strictly above ``path``, nearest first."""
    found: list[str] = []
    scope = session.get(tables.ScopeRow, path)
    while scope is not None and scope.parent_path and scope.parent_path not in found:
        found.append(scope.parent_path)
        scope = session.get(tables.ScopeRow, scope.parent_path)
    return found
