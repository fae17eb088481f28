"""A memory's lifecycle through ``updates`` (issue 12): superseding archives the older document in the same
transaction as the edge, a cycle of ``updates`` is refused, and a person can restore an archived memory.

created → active → archived (superseded here, or by hand with ``documents.set_status``) → deleted (the
trash, then a purge). Every change is an audit entry (``archive``, ``restore``) on the document it changes.

Restoring a superseded memory removes the ``updates`` edges into it: such an edge says "the target is no
longer current", and the person restoring it says it is. The audit entry names the documents that had
superseded it, so the trail keeps what happened; to keep both as current, relate them with ``extends``
or ``contradicts`` instead.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import text
from sqlmodel import Session, select

from ..core.documents import SUPERSEDED_BY, DocumentInfo, DocumentStatus
from ..core.errors import InvalidInput, UpdatesCycle
from ..core.relations import RelationType
from ..core.undo import UserAction
from ..store import tables
from ..store.db import read_session, write_session
from ..store.tables import utcnow
from . import audit, documents, records, relations
from .library import Library
from .scopes import resolve_scope
from .sharing import check_read, readable_ids

UPDATES = RelationType.UPDATES.value


def session_check_updates_cycle(session: Session, source_id: str, target_id: str) -> None:
    """Refuse the edge "``source_id`` updates ``target_id``" when ``target_id`` already updates ``source_id``,
    directly or through a chain (one recursive query over the ``updates`` edges).

    Raises:
        UpdatesCycle: naming the chain's length.
    """
    found = session.exec(text(
        "WITH RECURSIVE chain(id, depth) AS (SELECT CAST(:target AS VARCHAR), 0 UNION "  # the column's type
        "SELECT r.target_id, c.depth + 1 FROM relation r JOIN chain c ON r.source_id = c.id "
        "WHERE r.type = :k AND c.depth < 10000) SELECT min(depth) FROM chain WHERE id = :source"),
        params={"source": source_id, "target": target_id, "k": UPDATES}).first()
    if found is not None and found[0] is not None:
        raise UpdatesCycle(f"{source_id} cannot update {target_id}: {target_id} already updates {source_id} "
                           f"({'directly' if found[0] == 1 else f'through {found[0]} updates'}), and a cycle "
                           "would leave none of them current")


def session_supersede(session: Session, old: tables.DocumentRow, new: tables.DocumentRow, actor: str) -> bool:
    """Archive ``old`` because ``new`` updates it (inside the caller's write transaction, beside the edge):
    status ``archived``, metadata :data:`SUPERSEDED_BY`, an ``archive`` audit entry. An already archived
    document only takes the new :data:`SUPERSEDED_BY` (the latest word); a stale one is archived too.

    Returns:
        Whether ``old`` was active or stale (and is archived now).
    """
    was_live = old.status in (DocumentStatus.ACTIVE.value, DocumentStatus.STALE.value)
    old.meta = {**old.meta, SUPERSEDED_BY: new.id}
    if was_live:
        documents.apply_status(session, old, DocumentStatus.ARCHIVED.value, actor)
    session.add(old)
    audit.record(session, old, "archive", actor=actor, reason=f"superseded by {new.id} ({new.title})")
    return was_live


def superseded_titles(lib: Library, docs: Iterable[DocumentInfo], scope: str | None = None) -> dict[str, str | None]:
    """What superseded each archived document of ``docs``, as ``scope`` may know it (the app's Archived view).

    Args:
        docs: any documents; only the archived ones with :data:`SUPERSEDED_BY` are answered.
        scope: the acting scope (default: the current one).

    Returns:
        ``{archived id: the newer document's title}``; None for a newer document ``scope`` may not read (its
        title is not for these eyes) or one deleted for good since. Two queries whatever the number.

    Raises:
        ScopeNotFound.
    """
    newer = {d.id: n for d in docs if d.status is DocumentStatus.ARCHIVED
             and isinstance(n := d.metadata.get(SUPERSEDED_BY), str) and n}
    if not newer:
        return {}
    readable = readable_ids(lib, resolve_scope(lib, scope), newer.values())
    with read_session(lib.engine) as session:
        row = tables.DocumentRow
        titles = dict(session.exec(select(row.id, row.title).where(row.id.in_(readable))).all())  # type: ignore[union-attr]
    return {old: titles.get(new) for old, new in newer.items()}


def restore(lib: Library, document_id: str, *, scope: str | None = None, actor: str | None = None) -> DocumentInfo:
    """Bring an archived document back to ``active``: its :data:`SUPERSEDED_BY` goes, and so do the
    ``updates`` edges into it (see the module's note); a ``restore`` audit entry names them.

    Args:
        scope: the acting scope, which must see the document (default: the current scope).
        actor: who restores it (default: the person at this computer).

    Raises:
        DocumentNotFound. ScopeNotVisible. InvalidInput: the document is not archived (a trashed one comes
        back with ``documents.set_status``; an active one has nothing to restore).
    """
    acting = resolve_scope(lib, scope)
    check_read(lib, acting, documents.get_document(lib, document_id))
    who = actor or audit.current_user()
    with write_session(lib.engine) as session:
        row = records.document_row(session, document_id)
        if row.status != DocumentStatus.ARCHIVED.value:
            raise InvalidInput(f"{document_id} is {row.status}, not archived: nothing to restore")
        newer = relations.session_sources(session, UPDATES, [document_id])
        session.exec(text("DELETE FROM relation WHERE target_id = :t AND type = :k"),
                     params={"t": document_id, "k": UPDATES})
        row.meta = {k: v for k, v in row.meta.items() if k != SUPERSEDED_BY}
        row.status, row.updated_at = DocumentStatus.ACTIVE.value, utcnow()
        session.add(row)
        why = f"restored; it had been superseded by {', '.join(newer)}" if newer else "restored"
        audit.record(session, row, "restore", actor=who, reason=why)
        records.bump_change_counter(session)
        session.flush()
        return records.info(lib, session, document_id)


def bring_back(lib: Library, document_id: str, *, scope: str | None = None,
               user_action: UserAction | None = None) -> list[DocumentInfo]:
    """Restore a document whatever took it away, the one function behind ``memory restore`` and the app's
    Restore: an archived one through :func:`restore` (a superseded memory loses its :data:`SUPERSEDED_BY` and
    the ``updates`` into it), a trashed or stale one back to ``active`` (``documents.set_status``, with its
    folder's contents, undoable when given ``user_action``).

    Args:
        scope: the acting scope, which must see the document (default: the current scope).

    Returns:
        Every document whose status changed.

    Raises:
        DocumentNotFound. ScopeNotVisible.
    """
    acting = resolve_scope(lib, scope)
    doc = documents.get_document(lib, document_id, acting_scope=acting)
    if doc.status is DocumentStatus.ARCHIVED:
        return [restore(lib, document_id, scope=acting, actor=user_action.actor if user_action else None)]
    return documents.set_status(lib, document_id, DocumentStatus.ACTIVE, user_action=user_action)
