"""Typed relations as the faces use them (issue 12): make and remove an edge under the visibility rule, read
a document's relations grouped by type, and its neighbourhood (nodes and labelled edges, for a picture).

The rule: an edge is made only between two documents the writer's scope may read (``sharing.read_grant``),
neither in the trash; reading never reveals what the reader's scope may not read: edges to such documents
are left out, not counted nor hinted at. Edges are stored by ``services.relations``; an ``updates`` edge
archives its target in the same transaction (``services.lifecycle``). Edges belong to the documents, not to
their scopes, so they survive promotion, demotion and moves.
"""

from __future__ import annotations

import json
from datetime import datetime

from pydantic import BaseModel, Field
from sqlalchemy import text
from sqlmodel import Session

from ..core.documents import DocumentInfo, DocumentStatus
from ..core.errors import DocumentNotFound, InvalidInput, RelationRefused
from ..core.memories import MemoryType
from ..core.relations import DERIVED_HOW, DERIVED_TYPES, INCOMING_LABELS, RelationType, parse_relation_type
from ..store.db import read_session, write_session
from ..store.dialect_sql import SqlForms
from . import audit, documents, lifecycle, records, relations
from .library import Library
from .scopes import resolve_scope
from .sharing import check_read, readable_ids

MAX_DEPTH = 3
"""The deepest neighbourhood :func:`neighbourhood` draws (edges away from the document)."""
MAX_NODES = 200
"""The most documents a neighbourhood holds: a picture beyond that is unreadable (the nearest are kept)."""


class Edge(BaseModel):
    """One typed edge: ``source_id`` *type* ``target_id`` (e.g. B ``updates`` A), who made it and when."""

    source_id: str
    target_id: str
    type: RelationType
    created_at: datetime | None = None
    created_by: str = ""


class RelateOutcome(BaseModel):
    """What :func:`relate` did: the edge, whether it is new, and the documents it archived (``updates``)."""

    edge: Edge
    created: bool = Field(description="False when the same edge existed already (nothing changed).")
    archived: list[str] = Field(default_factory=list, description="Ids archived by an ``updates`` edge.")


class RelatedDocument(BaseModel):
    """A document at the other end of an edge, as Details and the CLI list it."""

    id: str
    title: str
    type: str = Field(description="The document type (note, result, file…).")
    scope: str
    status: str
    created_by: str = ""


class DocumentRelations(BaseModel):
    """A document's edges the reader may see, grouped by relation type (types without an edge are absent).

    ``outgoing[t]``: what the document *t*s (B ``updates`` A: A is in B's ``outgoing["updates"]``);
    ``incoming[t]``: what *t*s the document (B is in A's ``incoming["updates"]``, read "updated by").
    """

    document_id: str
    outgoing: dict[RelationType, list[RelatedDocument]] = Field(default_factory=dict)
    incoming: dict[RelationType, list[RelatedDocument]] = Field(default_factory=dict)

    def rows(self) -> list[tuple[str, list[RelatedDocument]]]:
        """``(label, documents)`` in a stable order for display: outgoing types by their name ("updates"),
        incoming by their reverse reading ("updated by")."""
        found = [(t.value.replace("_", " "), self.outgoing[t]) for t in RelationType if t in self.outgoing]
        return found + [(INCOMING_LABELS[t], self.incoming[t]) for t in RelationType if t in self.incoming]


class GraphNode(BaseModel):
    """A document of a neighbourhood; ``depth`` is its distance in edges from the centre (0); ``memory_type``
    what a memory is for (None for a document that is not one)."""

    id: str
    title: str
    type: str
    scope: str
    status: str
    depth: int
    memory_type: MemoryType | None = None


class Neighbourhood(BaseModel):
    """The documents around ``center`` within ``depth`` edges (either direction), and every edge among them."""

    center: str
    depth: int
    nodes: list[GraphNode]
    edges: list[Edge]
    truncated: bool = Field(default=False, description=f"More than {MAX_NODES} documents: the farthest left out.")


def relate(lib: Library, source_id: str, target_id: str, relation: RelationType | str, created_by: str | None = None,
           *, scope: str | None = None) -> RelateOutcome:
    """Make the edge ``source_id`` *relation* ``target_id`` as the acting ``scope`` (default: the current one).

    Both documents must exist, be out of the trash and be readable from ``scope``. Making an existing edge
    again changes nothing. ``updates`` archives the target in the same transaction
    (``lifecycle.session_supersede``); a cycle of ``updates`` is refused. An ``audit`` entry ``relate`` goes
    on the source.

    Args:
        relation: a :class:`RelationType` or its name (``relates-to`` works too); not ``links_to``, which
            follows a note's ``[[links]]``.
        created_by: an actor string (default: the person at this computer).

    Raises:
        UnknownRelationType. RelationRefused: an edge to itself, or a ``links_to``. UpdatesCycle.
        DocumentNotFound: a missing or trashed document. ScopeNotVisible: ``scope`` may not read one of
        them. ScopeNotFound. Nothing is written when any of these is raised.
    """
    source_id, target_id = source_id.strip(), target_id.strip()
    if source_id == target_id:
        raise RelationRefused(f"{source_id} cannot be related to itself")
    acting = resolve_scope(lib, scope)
    kind = check_relation(lib, acting, relation, [source_id, target_id])
    who = created_by or audit.current_user()
    with write_session(lib.engine) as session:
        source, target = records.document_row(session, source_id), records.document_row(session, target_id)
        if DocumentStatus.DELETED.value in (source.status, target.status):  # trashed since the check
            raise DocumentNotFound(f"{source_id if source.status == DocumentStatus.DELETED.value else target_id} "
                                   "is in the trash")
        if kind is RelationType.UPDATES:
            lifecycle.session_check_updates_cycle(session, source_id, target_id)
        created = relations.session_add_edge(session, source_id, target_id, kind, who)
        archived = []
        if created:
            audit.record(session, source, "relate", actor=who, reason=f"{kind.value} {target_id} ({target.title})")
            if kind is RelationType.UPDATES and lifecycle.session_supersede(session, target, source, who):
                archived.append(target_id)
            records.bump_change_counter(session)
        edge = _edges(session, "r.source_id = :s AND r.target_id = :t AND r.type = :k",
                      {"s": source_id, "t": target_id, "k": kind.value})[0]
    return RelateOutcome(edge=edge, created=created, archived=archived)


def unrelate(lib: Library, source_id: str, target_id: str, relation: RelationType | str, actor: str | None = None,
             *, scope: str | None = None) -> bool:
    """Remove the edge ``source_id`` *relation* ``target_id`` (an ``unrelate`` audit entry on the source).

    Removing an ``updates`` edge does not bring its target back: :func:`lifecycle.restore` does.

    Returns:
        Whether there was such an edge.

    Raises:
        UnknownRelationType. RelationRefused: a ``links_to`` (edit the note's text). DocumentNotFound.
        ScopeNotVisible. ScopeNotFound.
    """
    kind = parse_relation_type(relation) if not isinstance(relation, RelationType) else relation
    if kind in DERIVED_TYPES:
        raise RelationRefused(DERIVED_HOW[kind])
    acting = resolve_scope(lib, scope)
    source_id, target_id = (check_read_doc(lib, acting, i).id for i in (source_id, target_id))
    with write_session(lib.engine) as session:
        gone = session.exec(text("DELETE FROM relation WHERE source_id = :s AND target_id = :t AND type = :k"),
                            params={"s": source_id, "t": target_id, "k": kind.value}).rowcount
        if gone:
            source, target = records.document_row(session, source_id), records.document_row(session, target_id)
            audit.record(session, source, "unrelate", actor=actor or audit.current_user(),
                         reason=f"no longer {kind.value} {target_id} ({target.title})")
            records.bump_change_counter(session)
    return bool(gone)


def relations_of(lib: Library, doc_id: str, viewer_scope: str | None = None) -> DocumentRelations:
    """``doc_id``'s edges in both directions, grouped by type, oldest edge first, among the documents
    ``viewer_scope`` (default: the current scope) may read and that are not in the trash.

    Raises:
        DocumentNotFound. ScopeNotVisible: the viewer may not read ``doc_id`` itself. ScopeNotFound.
    """
    acting = resolve_scope(lib, viewer_scope)
    check_read_doc(lib, acting, doc_id)
    with read_session(lib.engine) as session:
        edges = _edges(session, "r.source_id = :d OR r.target_id = :d", {"d": doc_id})
        others = {e.target_id if e.source_id == doc_id else e.source_id for e in edges}
        rows = {r.id: r for r in records.document_rows(session, others)}
    visible = readable_ids(lib, acting, others)
    found = DocumentRelations(document_id=doc_id)
    for edge in edges:
        outgoing = edge.source_id == doc_id
        other = edge.target_id if outgoing else edge.source_id
        if other not in visible:
            continue
        row = rows[other]
        side = found.outgoing if outgoing else found.incoming
        side.setdefault(edge.type, []).append(RelatedDocument(
            id=row.id, title=row.title, type=row.type, scope=row.scope_path, status=row.status,
            created_by=edge.created_by))
    return found


def neighbourhood(lib: Library, doc_id: str, depth: int = 1, viewer_scope: str | None = None) -> Neighbourhood:
    """The documents within ``depth`` edges of ``doc_id`` (either direction, any type) and the edges among
    them, for a picture: only documents ``viewer_scope`` (default: the current scope) may read and that are
    not in the trash are reached or drawn, so an invisible document neither appears nor links two visible
    ones. Breadth first; at most :data:`MAX_NODES` documents (the nearest).

    Raises:
        InvalidInput: ``depth`` outside 1..:data:`MAX_DEPTH`. DocumentNotFound. ScopeNotVisible. ScopeNotFound.
    """
    if not 1 <= depth <= MAX_DEPTH:
        raise InvalidInput(f"the depth must be between 1 and {MAX_DEPTH} (got {depth})")
    acting = resolve_scope(lib, viewer_scope)
    check_read_doc(lib, acting, doc_id)
    depth_of = {doc_id: 0}
    frontier, truncated = [doc_id], False
    with read_session(lib.engine) as session:
        for level in range(1, depth + 1):
            near = relations.session_neighbours(session, frontier)
            candidates = [n for f in frontier for n in sorted(near.get(f, ())) if n not in depth_of]
            visible = readable_ids(lib, acting, candidates)
            frontier = []
            for other in dict.fromkeys(c for c in candidates if c in visible):
                if len(depth_of) >= MAX_NODES:
                    truncated = True
                    break
                depth_of[other] = level
                frontier.append(other)
            if not frontier:
                break
        rows = {r.id: r for r in records.document_rows(session, depth_of)}
        edges = [e for e in _edges(session, f"r.source_id IN ({SqlForms.of(session).rows('ids')})",
                                   {"ids": json.dumps(list(depth_of))}) if e.target_id in depth_of]
    nodes = [GraphNode(id=i, title=rows[i].title, type=rows[i].type, scope=rows[i].scope_path,
                       status=rows[i].status, depth=d, memory_type=rows[i].memory_type) for i, d in depth_of.items()]
    return Neighbourhood(center=doc_id, depth=depth, nodes=nodes, edges=edges, truncated=truncated)


def check_read_doc(lib: Library, acting: str, doc_id: str) -> DocumentInfo:
    """The document ``doc_id`` when ``acting`` may read it (``sharing.check_read``).

    Raises:
        InvalidInput: a blank id. DocumentNotFound. ScopeNotVisible.
    """
    if not doc_id or not doc_id.strip():
        raise InvalidInput("the document id is empty: give one such as 'doc_3f2a9c01b7de'")
    doc = documents.get_document(lib, doc_id.strip())
    check_read(lib, acting, doc)
    return doc


def check_relation(lib: Library, acting: str, relation: RelationType | str, doc_ids: list[str]) -> RelationType:
    """The :class:`RelationType` named by ``relation``, once it is one a person or agent may write and each of
    ``doc_ids`` exists, is out of the trash and is readable from ``acting`` (what :func:`relate` checks
    before writing, and ``memory_store`` before storing).

    Raises:
        UnknownRelationType. RelationRefused: ``links_to``. DocumentNotFound. ScopeNotVisible.
    """
    kind = relation if isinstance(relation, RelationType) else parse_relation_type(relation)
    if kind in DERIVED_TYPES:
        raise RelationRefused(DERIVED_HOW[kind])
    for doc_id in doc_ids:
        if check_read_doc(lib, acting, doc_id).status is DocumentStatus.DELETED:
            raise DocumentNotFound(f"{doc_id} is in the trash: restore it before relating it")
    return kind


def _edges(session: Session, where: str, params: dict) -> list[Edge]:
    order = SqlForms.of(session).insertion_order("r")
    rows = session.exec(text(f"SELECT r.source_id, r.target_id, r.type, r.created_at, r.created_by FROM relation r "
                             f"WHERE {where} ORDER BY r.created_at, {order}"), params=params).all()
    return [Edge(source_id=s, target_id=t, type=RelationType(k), created_at=_time(at), created_by=by or "")
            for s, t, k, at, by in rows]


def _time(value: object) -> datetime | None:
    return value if isinstance(value, datetime) else datetime.fromisoformat(str(value)) if value else None
