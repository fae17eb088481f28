"""Relations between documents: the typed edges of the ``relation`` table (``core.relations.RelationType``),
``derived_from`` lineage (seed §7.3; the stale mark that follows it is ``services.stale``), and a
reference's bibliography files and attachments.

The edges (schema 6) are rows (source, target, type) with who made them and when; this module is their
one reader and writer: ``derived_from`` (a result's inputs), ``links_to`` (what a note's ``[[Title]]``
links resolve to, kept by ``services.notelinks``) and the memory relations (``updates``, ``contradicts``…,
written with the visibility rule by ``services.graph``). Purging a document takes its edges (foreign keys
with ON DELETE CASCADE); the trash keeps them.

A reference's bibliography links stay JSON lists in its metadata (:data:`LINK_KEYS`), read in bulk with
the entry's other fields by the import's de-duplication (``services.bibliography``):

* ``listed_in``: the bibliography files (``.bib``, ``.ris``, CSL-JSON) that list a reference;
* ``attachments``: a reference's file documents (its PDF).

Think process results are found by their source columns (``source_think_process``, ``source_node``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, Field
from sqlalchemy import TextClause, text
from sqlmodel import Session, select

from ..core.documents import DocumentInfo, DocumentStatus, DocumentType, SourceType
from ..core.relations import RelationType
from ..store import tables
from ..store.db import read_session
from ..store.dialect_sql import SqlForms
from ..store.tables import utcnow
from . import records
from .library import Library
from .scopes import resolve_scope
from .sharing import readable_ids

DERIVED_FROM = RelationType.DERIVED_FROM.value
"""The relation from a result to the documents it was derived from."""
LINKS_TO = RelationType.LINKS_TO.value
"""The relation from a note to what its ``[[…]]`` links resolve to (kept by ``services.notelinks``)."""
LISTED_IN = "listed_in"
"""Metadata key of a reference holding the ids of the bibliography files that list it."""
ATTACHMENTS = "attachments"
"""Metadata key of a reference holding the ids of its file documents (the entry's PDF)."""
LINK_KEYS = (LISTED_IN, ATTACHMENTS)
"""Metadata keys holding lists of related document ids (the bibliography's links)."""
EDGE_KEYS = (DERIVED_FROM, LINKS_TO)
"""The relations :class:`DocumentLinks` shows besides the bibliography's (the memory relations have
``services.graph.relations_of``)."""
_EDGE_TYPES = frozenset(RelationType)
_STORED_TIME = "%Y-%m-%d %H:%M:%S.%f"
"""How SQLAlchemy stores a datetime in SQLite (UTC, no offset), so raw inserts sort with ORM rows."""


def session_targets(session: Session, source_id: str, relation: str) -> list[str]:
    """The targets of ``source_id``'s edges of type ``relation``, in the order they were made."""
    order = SqlForms.of(session).insertion_order("relation")
    rows = session.exec(text(f"SELECT target_id FROM relation WHERE source_id = :s AND type = :t ORDER BY {order}"),
                        params={"s": source_id, "t": str(relation)}).all()
    return [r[0] for r in rows]


def session_set_targets(session: Session, source_id: str, relation: str, target_ids: Iterable[str],
                        created_by: str) -> bool:
    """Make ``source_id``'s edges of type ``relation`` exactly ``target_ids`` (inside the caller's write
    transaction): missing ones are added, others removed, kept ones keep their author and time. Self-edges
    are dropped; every target must exist (the foreign key refuses a missing one).

    Returns:
        Whether anything changed.
    """
    wanted = [i for i in dict.fromkeys(target_ids) if i != source_id]
    before = session_targets(session, source_id, relation)
    gone = [i for i in before if i not in wanted]
    new = [i for i in wanted if i not in before]
    if gone:
        session.exec(text("DELETE FROM relation WHERE source_id = :s AND type = :t AND target_id IN "
                          f"({SqlForms.of(session).rows('ids')})"),
                     params={"s": source_id, "t": str(relation), "ids": json.dumps(gone)})
    for target_id in new:
        session_add_edge(session, source_id, target_id, relation, created_by)
    return bool(gone or new)


def session_add_edge(session: Session, source_id: str, target_id: str, relation: str, created_by: str) -> bool:
    """Add one edge (inside the caller's write transaction) unless it exists; whether it was added."""
    done = session.exec(_edge_insert(session), params=_edge_values(source_id, target_id, relation, created_by))
    return bool(done.rowcount)


def session_add_edges(session: Session, edges: Sequence[tuple[str, str]], relation: str, created_by: str) -> None:
    """Add many edges of one type, (source id, target id) each, in one batch inside the caller's write
    transaction; those that exist stay as they are."""
    if edges:
        session.execute(_edge_insert(session), [_edge_values(s, t, relation, created_by) for s, t in edges])


def _edge_insert(session: Session) -> TextClause:
    return text(SqlForms.of(session).insert_new("relation (source_id, target_id, type, created_at, created_by)",
                                                "VALUES (:s, :t, :k, :at, :by)"))


def _edge_values(source_id: str, target_id: str, relation: str, created_by: str) -> dict[str, str]:
    return {"s": source_id, "t": target_id, "k": str(relation), "at": utcnow().strftime(_STORED_TIME),
            "by": created_by}


def session_sources(session: Session, relation: str, target_ids: Iterable[str], *,
                    live_only: bool = False) -> list[str]:
    """Ids of the documents with an edge of type ``relation`` to any of ``target_ids``, oldest document first."""
    ids = list(dict.fromkeys(target_ids))
    if not ids:
        return []
    live = f" AND d.status != '{DocumentStatus.DELETED.value}'" if live_only else ""
    rows = session.exec(text(
        "SELECT DISTINCT d.id, d.created_at FROM relation r JOIN document d ON d.id = r.source_id "
        f"WHERE r.type = :t AND r.target_id IN ({SqlForms.of(session).rows('ids')}){live} "
        "ORDER BY d.created_at, d.id"),
        params={"t": str(relation), "ids": json.dumps(ids)}).all()
    return [r[0] for r in rows]


def session_repoint(session: Session, keep_id: str, gone: Sequence[str]) -> None:
    """Every edge from or to one of ``gone`` (documents merged into ``keep_id``) starts or ends at ``keep_id``
    instead; edges that would join ``keep_id`` to itself, or repeat one it has, are dropped."""
    params = {"keep": keep_id, "gone": json.dumps(list(gone))}
    forms = SqlForms.of(session)
    in_gone = f"IN ({forms.rows('gone')})"
    session.exec(text(forms.insert_new(
        "relation (source_id, target_id, type, created_at, created_by)",
        f"SELECT CASE WHEN source_id {in_gone} THEN :keep ELSE source_id END, "
        f"CASE WHEN target_id {in_gone} THEN :keep ELSE target_id END, type, created_at, created_by "
        f"FROM relation WHERE source_id {in_gone} OR target_id {in_gone}")), params=params)
    session.exec(text(f"DELETE FROM relation WHERE source_id {in_gone} OR target_id {in_gone} "
                      "OR source_id = target_id"), params=params)


def session_neighbours(session: Session, document_ids: Iterable[str]) -> dict[str, set[str]]:
    """Id → the ids it shares an edge with (either direction, any type), for each of ``document_ids``
    that has one."""
    ids = json.dumps(list(dict.fromkeys(document_ids)))
    listed = SqlForms.of(session).rows("ids")
    rows = session.exec(text(  # two indexed lookups, not an OR that scans every edge
        f"SELECT source_id, target_id FROM relation WHERE source_id IN ({listed}) "
        f"UNION SELECT source_id, target_id FROM relation WHERE target_id IN ({listed})"),
        params={"ids": ids}).all()
    found: dict[str, set[str]] = {}
    for source, target in rows:
        found.setdefault(source, set()).add(target)
        found.setdefault(target, set()).add(source)
    return found


def targets(lib: Library, document_id: str, relation: str) -> list[str]:
    """The targets of ``document_id``'s edges of type ``relation``, in the order they were made, whoever sees
    them (the faces use ``services.graph.relations_of``, which applies the visibility rule).

    Raises:
        DocumentNotFound.
    """
    with read_session(lib.engine) as session:
        records.document_row(session, document_id)
        return session_targets(session, document_id, relation)


def conflicts_for(lib: Library, document_ids: Iterable[str], *, scope: str | None = None) -> dict[str, list[str]]:
    """For each of ``document_ids`` in an open conflict, the ids it conflicts with: a ``contradicts`` edge
    in either direction to a document that is active (a superseded or trashed one no longer conflicts).
    Ids without a conflict are absent. What search and recall put on a hit as ``conflicts_with``.

    Args:
        scope: when given, only documents that scope may read are named (reading never reveals an
            invisible document; ``sharing.readable_ids``).

    Raises:
        ScopeNotFound: an unknown ``scope``.
    """
    ids = json.dumps(list(dict.fromkeys(document_ids)))
    with read_session(lib.engine) as session:
        # Two indexed lookups (the key from the source, ix_relation_target from the target), not an OR that
        # scans every edge: this runs on every search.
        listed = SqlForms.of(session).rows("ids")
        rows = session.exec(text(
            f"SELECT r.source_id, r.target_id FROM (SELECT * FROM relation WHERE type = :k AND source_id IN "
            f"({listed}) UNION SELECT * FROM relation WHERE type = :k AND target_id IN "
            f"({listed})) r JOIN document s ON s.id = r.source_id "
            "JOIN document t ON t.id = r.target_id WHERE s.status = :a AND t.status = :a "
            "ORDER BY r.created_at, r.source_id, r.target_id"),
            params={"k": RelationType.CONTRADICTS.value, "a": DocumentStatus.ACTIVE.value, "ids": ids}).all()
    wanted = set(json.loads(ids))
    pairs = [(a, b) for s, t in rows for a, b in ((s, t), (t, s)) if a in wanted]
    visible = readable_ids(lib, resolve_scope(lib, scope), {b for _, b in pairs}) if scope is not None else None
    found: dict[str, list[str]] = {}
    for a, b in pairs:
        if visible is None or b in visible:
            found.setdefault(a, [])
            if b not in found[a]:
                found[a].append(b)
    return found


def derived_from(lib: Library, document_id: str) -> list[str]:
    """The ids ``document_id`` was derived from (its ``derived_from`` edges), in the order they were given.

    Raises:
        DocumentNotFound.
    """
    return targets(lib, document_id, DERIVED_FROM)


def derived_documents(lib: Library, document_ids: Iterable[str]) -> list[str]:
    """Ids of the documents directly derived from any of ``document_ids``, any status, oldest first."""
    return linking_documents(lib, DERIVED_FROM, document_ids)


def linking_documents(lib: Library, key: str, document_ids: Iterable[str], *, live_only: bool = False) -> list[str]:
    """Ids of the documents with a ``key`` relation (a :class:`RelationType` or one of :data:`LINK_KEYS`) to
    any of ``document_ids``, oldest first: what was derived from them, which notes link to them, which
    references a bibliography lists, which references a file is attached to.

    One query: over the ``relation`` table's target index, or ``json_each`` over each document's list.

    Args:
        live_only: leave out documents in the trash.

    Raises:
        ValueError: ``key`` is neither a relation type nor one of :data:`LINK_KEYS`.
    """
    with read_session(lib.engine) as session:
        return session_linking_documents(session, key, document_ids, live_only=live_only)


def session_linking_documents(session: Session, key: str, document_ids: Iterable[str], *,
                              live_only: bool = False) -> list[str]:
    """:func:`linking_documents` inside the caller's session (a write that rewrites the links it finds)."""
    if key in _EDGE_TYPES:
        return session_sources(session, key, document_ids, live_only=live_only)
    if key not in LINK_KEYS:
        raise ValueError(f"not a relation: {key}")
    ids = list(dict.fromkeys(document_ids))
    if not ids:
        return []
    live = f" AND d.status != '{DocumentStatus.DELETED.value}'" if live_only else ""
    forms = SqlForms.of(session)
    rows = session.exec(
        # has_key() first: only the documents holding such a list are parsed as JSON (a third of the time
        # at 20,000 documents, most without one).
        text(f"SELECT DISTINCT d.id, d.created_at FROM (SELECT id, created_at, status, metadata FROM document "
             f"WHERE {forms.has_key('metadata', key)}) d, {forms.elements(forms.valid('d.metadata'), key, 'j')} "
             f"WHERE j.value IN ({forms.rows('ids')}){live} "
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
        edges = {key: session_targets(session, document_id, key) for key in EDGE_KEYS}
    # Only files are listed in or attached to anything: spare other documents the scan of every list.
    entries = linking_documents(lib, LISTED_IN, [document_id], live_only=True) if is_file else []
    attached_to = linking_documents(lib, ATTACHMENTS, [document_id], live_only=True) if is_file else []
    named = {**{key: _id_values(meta.get(key)) for key in LINK_KEYS}, **edges}
    found = _linked(lib, [*(i for ids in named.values() for i in ids), *entries[:limit], *attached_to])
    return DocumentLinks(
        **{key: [found[i] for i in ids if i in found] for key, ids in named.items()},
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
