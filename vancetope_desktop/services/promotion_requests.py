"""Promotion requests inside the caller's transaction: create one, find the document it would update,
carry out an approval.

The review queue (``review``) and the auto-promote rules (``promotion_rules``) both build on these;
they need only the move of a document (``moves``), never the document services above it.
"""

from __future__ import annotations

from sqlmodel import Session, col, select

from ..core.documents import TEXT_TYPES, DocumentStatus, DocumentType, SourceType
from ..core.errors import InvalidInput, ScopeError
from ..core.ids import new_id
from ..core.promotion import RequestStatus
from ..store import tables
from ..store.tables import utcnow
from . import audit, records, relations, topics
from .moves import move_in_session
from .scopes import session_ancestry


def create_request(session: Session, row: tables.DocumentRow, target_path: str, *, requested_by: str,
                   reason: str = "") -> tables.PromotionRequestRow:
    """Create a pending request inside the caller's transaction, or return the one already pending.

    ``target_path`` must be an ancestor of the document's scope (checked here against the tree).

    Raises:
        ScopeError: the target is not above the document. InvalidInput: a folder or trashed document, a tree's
        root topic, or a request pending to another target.
    """
    if row.type == DocumentType.FOLDER.value:
        raise InvalidInput(f"{row.id} is a folder: request the promotion of the documents inside it")
    topics.check_movable(row)  # a topic goes with its subtree (``moves``); a tree's root stays
    if row.status == DocumentStatus.DELETED.value:
        raise InvalidInput(f"{row.id} is in the trash: restore it before asking for its promotion")
    if target_path == row.scope_path or target_path not in session_ancestry(session, row.scope_path):
        raise ScopeError(f"{target_path} is not above {row.scope_path}: a promotion goes to an ancestor")
    pending = pending_request(session, row.id)
    if pending is not None and pending.target_scope != target_path:
        raise InvalidInput(f"{row.id} already waits for review to {pending.target_scope} ({pending.id}): the "
                           "reviewer can approve it to another scope, or reject it first")
    if pending is not None:
        return pending
    request = tables.PromotionRequestRow(
        id=new_id("req"), document_id=row.id, title=row.title, source_scope=row.scope_path,
        target_scope=target_path, requested_by=requested_by, reason=reason.strip(),
    )
    session.add(request)
    audit.record(session, row, "request", actor=requested_by, from_scope=row.scope_path, to_scope=target_path,
                 reason=request.reason, request_id=request.id)
    session.flush()
    return request


def decide_approved(session: Session, request: tables.PromotionRequestRow, target_path: str, *, actor: str,
                    reason: str = "", merged_into: str | None = None) -> tables.PromotionRequestRow:
    """Carry out an approval inside the caller's transaction: move the document, or (``merged_into``)
    trash the copy whose content (and typed relations) that document now holds, and move that document up
    to ``target_path`` when it is below it; record the decision (with where the content now is) and audit
    entries.

    Raises:
        InvalidInput: the request is no longer pending.
    """
    if request.status != RequestStatus.PENDING.value:
        raise InvalidInput(f"{request.id} is {request.status} already")
    row = records.document_row(session, request.document_id)
    if merged_into is None:
        # The move is the reviewer's: its reason is the decision's, not the requester's.
        move_in_session(session, row.id, target_path, actor=actor, request_id=request.id,
                        reason=reason.strip() or f"approving {request.id}")
    else:
        row.status = DocumentStatus.DELETED.value
        row.updated_at = utcnow()
        session.add(row)
        relations.session_repoint(session, merged_into, [row.id])  # its relations go with its content
        target_row = records.document_row(session, merged_into)
        audit.record(session, target_row, "update", actor=actor, from_scope=request.source_scope,
                     to_scope=target_row.scope_path, reason=f"new content from {row.id} ({request.reason})".strip(),
                     request_id=request.id)
        if target_path in session_ancestry(session, target_row.scope_path)[1:]:
            # Approved to a scope above the earlier copy: the updated document goes there (one copy).
            move_in_session(session, target_row.id, target_path, actor=actor, request_id=request.id,
                            reason=reason.strip() or f"approving {request.id}")
        target_path = target_row.scope_path
    request.status = RequestStatus.APPROVED.value
    request.decided_by, request.decided_at = actor, utcnow()
    request.decision_reason = reason.strip() or None
    request.final_scope = target_path
    session.add(request)
    audit.record(session, row, "approve", actor=actor, from_scope=request.source_scope, to_scope=target_path,
                 reason=reason.strip() or (f"merged into {merged_into}" if merged_into else ""), request_id=request.id)
    return request


def update_target(session: Session, row: tables.DocumentRow) -> str | None:
    """The document above ``row`` that it would update: the same think process node's earlier result.

    A node re-run after its first result was promoted makes a new copy in the think process; the
    earlier one sits in one of its ancestors (the nearest counts). Only text results count; None
    otherwise.
    """
    if row.source_type != SourceType.THINK_PROCESS_RESULT.value or not row.source_node \
            or row.type not in {t.value for t in TEXT_TYPES}:
        return None
    above = session_ancestry(session, row.scope_path)[1:]
    found = session.exec(select(tables.DocumentRow.id, tables.DocumentRow.scope_path).where(
        col(tables.DocumentRow.scope_path).in_(above), tables.DocumentRow.id != row.id,
        tables.DocumentRow.source_type == row.source_type,
        tables.DocumentRow.source_think_process == row.source_think_process,
        tables.DocumentRow.source_node == row.source_node,
        tables.DocumentRow.status != DocumentStatus.DELETED.value,
    ).order_by(tables.DocumentRow.created_at)).all()  # type: ignore[arg-type]
    return min(found, key=lambda f: above.index(f[1]))[0] if found else None


def pending_request(session: Session, document_id: str) -> tables.PromotionRequestRow | None:
    """The request waiting for a decision about ``document_id``, or None (a document has at most one)."""
    return session.exec(select(tables.PromotionRequestRow).where(
        tables.PromotionRequestRow.document_id == document_id,
        tables.PromotionRequestRow.status == RequestStatus.PENDING.value,
    )).first()
