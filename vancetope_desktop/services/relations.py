"""Relations between documents: ``derived_from`` lineage (seed §7.3) and the stale mark that follows it.

A document's inputs are listed in its metadata under ``derived_from`` (a JSON list of ids), so the
relation needs no schema change; the reverse lookup ("what was derived from X") is one SQL query over
``json_each`` of that list. Think process results are found by their source columns
(``source_think_process``, ``source_node``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from sqlalchemy import text
from sqlmodel import select

from ..core.documents import DocumentInfo, DocumentStatus, SourceType
from ..store import tables
from ..store.db import read_session, write_session
from ..store.json_columns import json_or_empty
from ..store.tables import utcnow
from . import records
from .library import Library

DERIVED_FROM = "derived_from"
"""Metadata key holding the ids a document was derived from."""
STALE_TAG = "stale"
"""The tag mirroring :attr:`DocumentStatus.STALE`, so tag filters and chips show it too."""


def derived_from(lib: Library, document_id: str) -> list[str]:
    """The ids ``document_id`` was derived from (its ``derived_from`` metadata), in stored order.

    Raises:
        DocumentNotFound.
    """
    with read_session(lib.engine) as session:
        value = records.document_row(session, document_id).meta.get(DERIVED_FROM) or []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def derived_documents(lib: Library, document_ids: Iterable[str]) -> list[str]:
    """Ids of the documents directly derived from any of ``document_ids``, any status, oldest first.

    One query: ``json_each`` over each document's ``derived_from`` list, matched against the ids.
    """
    ids = list(dict.fromkeys(document_ids))
    if not ids:
        return []
    with read_session(lib.engine) as session:
        rows = session.exec(
            text(f"SELECT DISTINCT d.id, d.created_at FROM document d, json_each({json_or_empty('d.metadata')}, "
                 "'$.derived_from') j "
                 "WHERE j.value IN (SELECT value FROM json_each(:ids)) ORDER BY d.created_at, d.id"),
            params={"ids": json.dumps(ids)},
        ).all()
    return [row[0] for row in rows]


def derivation_closure(lib: Library, document_ids: Iterable[str]) -> list[str]:
    """``document_ids`` and everything derived from them, transitively, breadth first (roots first).

    Each document appears once, so cycles in ``derived_from`` end the walk instead of looping.
    """
    found = list(dict.fromkeys(document_ids))
    seen, frontier = set(found), found
    while frontier:
        frontier = [d for d in derived_documents(lib, frontier) if d not in seen]
        seen.update(frontier)
        found.extend(frontier)
    return found


def node_results(lib: Library, think_process_id: str, node_id: str, *,
                 scope: str | None = None) -> list[DocumentInfo]:
    """The result documents a think process stored for one task node (not in the trash), oldest first.

    Args:
        scope: when given, only those in this scope (a result promoted elsewhere is left out).
    """
    doc = tables.DocumentRow
    query = select(doc).where(
        doc.source_type == SourceType.THINK_PROCESS_RESULT.value, doc.source_think_process == think_process_id,
        doc.source_node == node_id, doc.status != DocumentStatus.DELETED.value,
    )
    if scope is not None:
        query = query.where(doc.scope_path == scope)
    with read_session(lib.engine) as session:
        rows = session.exec(query.order_by(doc.created_at, doc.id)).all()  # type: ignore[arg-type]
        tags = records.tags_by_document(session, [r.id for r in rows])
        return [records.to_info(lib, r, tags[r.id]) for r in rows]


def set_stale(lib: Library, document_ids: Iterable[str], stale: bool = True) -> list[str]:
    """Mark documents stale (status ``stale`` and tag ``#stale``) or clear the mark (back to ``active``).

    All in one transaction. Only active and stale documents take part: archived or trashed ones keep
    their status. The status is not versioned, and the tag only mirrors it, so no version is kept.

    Returns:
        The ids (in the order given) whose status is now the requested one, changed or already so.

    Raises:
        DocumentNotFound: an unknown id (nothing is changed).
    """
    wanted = DocumentStatus.STALE if stale else DocumentStatus.ACTIVE
    eligible = {DocumentStatus.ACTIVE.value, DocumentStatus.STALE.value}
    marked: list[str] = []
    with write_session(lib.engine) as session:
        for document_id in dict.fromkeys(document_ids):
            row = records.document_row(session, document_id)
            if row.status not in eligible:
                continue
            marked.append(row.id)
            tags = records.tags_of(session, row.id)
            new_tags = sorted({*tags, STALE_TAG}) if stale else [t for t in tags if t != STALE_TAG]
            if row.status == wanted.value and new_tags == tags:
                continue
            row.status = wanted.value
            row.updated_at = utcnow()
            if new_tags != tags:
                records.set_tags(session, row.id, new_tags)
                records.enqueue(session, row.id, "refresh")  # vectors carry the tags
            session.add(row)
        records.bump_change_counter(session)
        session.flush()
    return marked
