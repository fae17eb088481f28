"""Conflicts between memories (issue 12): two active documents joined by ``contradicts``, listed for the
app's Conflicts view and settled by keeping one (the other is then superseded: ``updates`` from the kept
one archives it, ``services.lifecycle``). Search and recall name a hit's open conflicts in its
``conflicts_with`` (``relations.conflicts_for``).
"""

from __future__ import annotations

from pydantic import BaseModel
from sqlalchemy import text

from ..core.documents import DocumentStatus
from ..core.errors import InvalidInput
from ..core.relations import RelationType
from ..store.db import read_session
from ..store.dialect_sql import SqlForms
from . import graph
from .graph import RelatedDocument, RelateOutcome
from .library import Library
from .scopes import resolve_scope
from .sharing import readable_ids


class Conflict(BaseModel):
    """Two active documents, one of which ``contradicts`` the other (``first`` is the edge's source)."""

    first: RelatedDocument
    second: RelatedDocument


def list_conflicts(lib: Library, scope: str | None = None, *, limit: int = 200) -> list[Conflict]:
    """The open conflicts ``scope`` (default: the current scope) may read both sides of, newest edge first.

    Raises:
        ScopeNotFound.
    """
    acting = resolve_scope(lib, scope)
    with read_session(lib.engine) as session:
        rows = session.exec(text(
            "SELECT r.created_by, s.id, s.title, s.type, s.scope_path, s.status, t.id, t.title, t.type, "
            "t.scope_path, t.status FROM relation r JOIN document s ON s.id = r.source_id "
            "JOIN document t ON t.id = r.target_id WHERE r.type = :k AND s.status = :a AND t.status = :a "
            f"ORDER BY r.created_at DESC, {SqlForms.of(session).insertion_order('r')} DESC"),
            params={"k": RelationType.CONTRADICTS.value, "a": DocumentStatus.ACTIVE.value}).all()
    visible = readable_ids(lib, acting, {i for r in rows for i in (r[1], r[6])})
    found = []
    for by, *ends in rows:
        first, second = (RelatedDocument(id=i, title=t, type=k, scope=s, status=st, created_by=by)
                         for i, t, k, s, st in (ends[:5], ends[5:]))
        if first.id in visible and second.id in visible:
            found.append(Conflict(first=first, second=second))
    return found[:limit]


def settle(lib: Library, keep_id: str, other_id: str, *, scope: str | None = None,
           actor: str | None = None) -> RelateOutcome:
    """Settle the conflict between ``keep_id`` and ``other_id`` by keeping ``keep_id``: it ``updates`` the
    other, which is archived in the same transaction (``graph.relate``). The ``contradicts`` edge stays, for
    the audit trail; it no longer counts as a conflict once one side is archived.

    Raises:
        InvalidInput: the two are not in conflict (no ``contradicts`` edge between them, either way).
        DocumentNotFound. ScopeNotVisible. UpdatesCycle: ``other_id`` already updates ``keep_id``.
    """
    with read_session(lib.engine) as session:
        found = session.exec(text(
            "SELECT 1 FROM relation WHERE type = :k AND ((source_id = :a AND target_id = :b) OR "
            "(source_id = :b AND target_id = :a))"),
            params={"k": RelationType.CONTRADICTS.value, "a": keep_id, "b": other_id}).first()
    if found is None:
        raise InvalidInput(f"{keep_id} and {other_id} are not in conflict (neither contradicts the other)")
    return graph.relate(lib, keep_id, other_id, RelationType.UPDATES, actor, scope=scope)


