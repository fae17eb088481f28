"""Relations between documents: ``derived_from`` lineage (seed §7.3; the stale mark that follows it is
``services.stale``), and a reference's bibliography files and attachments.

Each relation is a JSON list of ids in the metadata of the document it starts from, so it needs no
schema change; the reverse lookup ("what was derived from X", "which references does X.bib list") is
one SQL query over ``json_each`` of that list. The lists (:data:`LINK_KEYS`):

* ``derived_from``: a result's inputs;
* ``listed_in``: the bibliography files (``.bib``, ``.ris``, CSL-JSON) that list a reference;
* ``attachments``: a reference's file documents (its PDF);
* ``links_to``: the documents a note's ``[[Title]]`` links resolve to (``services.notelinks``).

Think process results are found by their source columns (``source_think_process``, ``source_node``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from pydantic import BaseModel, Field
from sqlalchemy import text
from sqlmodel import Session, select

from ..core.documents import DocumentInfo, DocumentStatus, DocumentType, SourceType
from ..store import tables
from ..store.db import read_session
from ..store.json_columns import json_or_empty
from . import records
from .library import Library

DERIVED_FROM = "derived_from"
"""Metadata key holding the ids a document was derived from."""
LISTED_IN = "listed_in"
"""Metadata key of a reference holding the ids of the bibliography files that list it."""
ATTACHMENTS = "attachments"
"""Metadata key of a reference holding the ids of its file documents (the entry's PDF)."""
LINKS_TO = "links_to"
"""Metadata key of a note holding the ids its ``[[…]]`` links resolve to (kept by ``services.notelinks``)."""
LINK_KEYS = (DERIVED_FROM, LISTED_IN, ATTACHMENTS, LINKS_TO)
"""Metadata keys holding lists of related document ids."""


def derived_from(lib: Library, document_id: str) -> list[str]:
    """The ids ``document_id`` was derived from (its ``derived_from`` metadata), in stored order.

    Raises:
        DocumentNotFound.
    """
    with read_session(lib.engine) as session:
        value = records.document_row(session, document_id).meta.get(DERIVED_FROM) or []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def derived_documents(lib: Library, document_ids: Iterable[str]) -> list[str]:
    """Ids of the documents directly derived from any of ``document_ids``, any status, oldest first."""
    return linking_documents(lib, DERIVED_FROM, document_ids)


def linking_documents(lib: Library, key: str, document_ids: Iterable[str], *, live_only: bool = False) -> list[str]:
    """Ids of the documents whose ``key`` list (one of :data:`LINK_KEYS`) holds any of ``document_ids``,
    oldest first: what was derived from them, which references a bibliography lists, which references
    a file is attached to.

    One query: ``json_each`` over each document's list, matched against the ids.

    Args:
        live_only: leave out documents in the trash.

    Raises:
        ValueError: ``key`` is not one of :data:`LINK_KEYS`.
    """
    with read_session(lib.engine) as session:
        return session_linking_documents(session, key, document_ids, live_only=live_only)


def session_linking_documents(session: Session, key: str, document_ids: Iterable[str], *,
                              live_only: bool = False) -> list[str]:
    """:func:`linking_documents` inside the caller's session (a write that rewrites the links it finds)."""
    if key not in LINK_KEYS:
        raise ValueError(f"not a relation: {key}")
    ids = list(dict.fromkeys(document_ids))
    if not ids:
        return []
    live = f" AND d.status != '{DocumentStatus.DELETED.value}'" if live_only else ""
    rows = session.exec(
        # instr() first: only the documents holding such a list are parsed as JSON (a third of the time
        # at 20,000 documents, most without one).
        text(f"SELECT DISTINCT d.id, d.created_at FROM (SELECT id, created_at, status, metadata FROM document "
             f"WHERE instr(metadata, '\"{key}\"')) d, json_each({json_or_empty('d.metadata')}, "
             f"'$.{key}') j WHERE j.value IN (SELECT value FROM json_each(:ids)){live} "
             "ORDER BY d.created_at, d.id"),
        params={"ids": json.dumps(ids)},
    ).all()
    return [row[0] for row in rows]


class LinkedDocument(BaseModel):
    """A related document as the faces show it: a link with its title."""

    id: str
    title: str
    type: str


class DocumentLinks(BaseModel):
    """A document's relations in both directions (empty lists when it has none)."""

    derived_from: list[LinkedDocument] = Field(default_factory=list)
    listed_in: list[LinkedDocument] = Field(default_factory=list, description="Bibliography files listing it.")
    attachments: list[LinkedDocument] = Field(default_factory=list, description="Its files (a reference's PDF).")
    links_to: list[LinkedDocument] = Field(default_factory=list, description="What its [[…]] links resolve to.")
    entries: list[LinkedDocument] = Field(default_factory=list,
                                          description="For a bibliography file: the first references it lists.")
    entry_count: int = Field(default=0, description="How many references the bibliography file lists in all.")
    attached_to: list[LinkedDocument] = Field(default_factory=list, description="References this file is attached to.")


def document_links(lib: Library, document_id: str, *, limit: int = 50) -> DocumentLinks:
    """The documents related to ``document_id``: those its lists name (that still exist) and those whose
    lists name it (not in the trash); ``entries`` holds at most ``limit`` (``entry_count`` all of them).

    Raises:
        DocumentNotFound.
    """
    with read_session(lib.engine) as session:
        row = records.document_row(session, document_id)
        meta, is_file = row.meta, row.type == DocumentType.FILE.value
    # Only files are listed in or attached to anything: spare other documents the scan of every list.
    entries = linking_documents(lib, LISTED_IN, [document_id], live_only=True) if is_file else []
    attached_to = linking_documents(lib, ATTACHMENTS, [document_id], live_only=True) if is_file else []
    named = {key: _id_values(meta.get(key)) for key in LINK_KEYS}
    found = _linked(lib, [*(i for ids in named.values() for i in ids), *entries[:limit], *attached_to])
    return DocumentLinks(
        **{key: [found[i] for i in named[key] if i in found] for key in LINK_KEYS},
        entries=[found[i] for i in entries[:limit] if i in found], entry_count=len(entries),
        attached_to=[found[i] for i in attached_to if i in found],
    )


def _id_values(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else [str(value)] if value else []


def _linked(lib: Library, ids: list[str]) -> dict[str, LinkedDocument]:
    """Id → :class:`LinkedDocument` for those of ``ids`` that exist (one query per 500 ids)."""
    unique = list(dict.fromkeys(ids))
    found: dict[str, LinkedDocument] = {}
    with read_session(lib.engine) as session:
        for start in range(0, len(unique), 500):
            doc = tables.DocumentRow
            rows = session.exec(select(doc.id, doc.title, doc.type).where(
                doc.id.in_(unique[start : start + 500]))).all()  # type: ignore[union-attr]
            found.update({i: LinkedDocument(id=i, title=t, type=k) for i, t, k in rows})
    return found


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
