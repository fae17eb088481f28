"""The audit trail: who moved, requested, approved or rejected which document, when and why.

Entries are written inside the transaction of the change they describe, so the trail and the data
never disagree after a crash. They are kept after a document is purged.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, select

from ..core.promotion import AuditEntry
from ..core.undo import UserAction
from ..store import tables
from ..store.db import read_session

# The acting person, where the callers of the audit trail have always found it (``services.identity`` decides).
from .identity import current_user as current_user
from .library import Library


def record(session: Session, row: tables.DocumentRow, action: str, *, actor: str, from_scope: str | None = None,
           to_scope: str | None = None, reason: str = "", request_id: str | None = None,
           payload: dict[str, Any] | None = None) -> None:
    """Add one entry for ``row`` inside the caller's write transaction.

    Args:
        action: ``promote``, ``demote``, ``request``, ``approve``, ``reject``, ``withdraw``, ``update``,
            or a user action (:func:`record_user_action`).
        actor: ``user:<name>``, ``think-process/<id>`` or ``rule:<tag>``.
        payload: what undo needs (see :func:`record_user_action`); empty for other entries.
    """
    session.add(tables.AuditRow(document_id=row.id, title=row.title, action=action, from_scope=from_scope,
                                to_scope=to_scope, actor=actor, reason=reason, request_id=request_id,
                                payload=payload or {}))


def record_user_action(session: Session, row: tables.DocumentRow, kind: str, user_action: UserAction,
                       change: dict[str, Any], *, from_scope: str | None = None, to_scope: str | None = None,
                       reason: str = "") -> None:
    """Record what ``user_action`` changed in ``row``, in a form ``services.undo`` can invert.

    Args:
        kind: ``trash`` / ``untrash`` (change: ``{"status": [before, after]}``), ``file`` (a folder move:
            ``{"folder": [before, after]}``), ``promote`` / ``demote`` (a scope move by hand: ``{"top":
            bool, "folder": [before, after]}``, the scopes in ``from_scope`` / ``to_scope``), ``tag``,
            ``rename``, ``edit`` (``{"version": [before, after]}``: the version kept before the change,
            which holds the old state, and the document's version after it), ``supersede`` (an ``updates``
            archived it: ``{"status": [before, "archived"], "by": newer id, "superseded_by": earlier value}``),
            ``relate`` (an edge made: ``{"edge": [source, target, type]}``), ``unrelate`` (an edge removed, the
            same payload), ``undo`` / ``redo``
            (``{"target": group, "version": after}``).
    """
    record(session, row, kind, actor=user_action.actor, from_scope=from_scope, to_scope=to_scope, reason=reason,
           payload={"group": user_action.group, "label": user_action.label, **change})


def record_skip(session: Session, entry: tables.AuditRow, user_action: UserAction, reason: str) -> None:
    """Record that the action of ``entry`` (a user action's entry, its document perhaps purged since) was
    taken off ``user_action.actor``'s undo history, and why (``services.undo``)."""
    session.add(tables.AuditRow(document_id=entry.document_id, title=entry.title, action="skip",
                                actor=user_action.actor, reason=reason,
                                payload={"group": user_action.group, "label": user_action.label,
                                         "target": entry.payload["group"]}))


def document_history(lib: Library, document_id: str) -> list[AuditEntry]:
    """Every audit entry of ``document_id``, oldest first (empty for an unknown id)."""
    with read_session(lib.engine) as session:
        rows = session.exec(select(tables.AuditRow).where(tables.AuditRow.document_id == document_id)
                            .order_by(tables.AuditRow.id)).all()  # type: ignore[arg-type]
        return [_entry(r) for r in rows]


def recent_entries(lib: Library, limit: int = 200) -> list[AuditEntry]:
    """The library's latest ``limit`` audit entries, newest first."""
    with read_session(lib.engine) as session:
        rows = session.exec(select(tables.AuditRow).order_by(tables.AuditRow.id.desc()).limit(limit)).all()  # type: ignore[union-attr]
        return [_entry(r) for r in rows]


def _entry(row: tables.AuditRow) -> AuditEntry:
    return AuditEntry(document_id=row.document_id, title=row.title, action=row.action, from_scope=row.from_scope,
                      to_scope=row.to_scope, actor=row.actor, reason=row.reason, request_id=row.request_id,
                      at=row.at)
