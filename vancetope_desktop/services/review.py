"""The review queue: promotion requests that the user approves or rejects (seed §4.3, §8, §9 question 1).

A think process's result reaches a wider scope only when someone decides so. A request names the
document, where it is, where it would go, who asked (a user, a think process, an auto-promote rule:
see ``promotion_rules``) and why. Approving moves the document (``moves``), or, when the same think
process node's earlier result is already in a scope above, writes the new content as a new version of
that document; rejecting leaves the document where it is, with the reason kept. Every step is in the
audit trail (``audit``), and decided requests stay as history. The steps that run inside a caller's
transaction (create a request, carry out an approval) are in ``promotion_requests``, below the
document services, so that a tag those services add can ask for a promotion (``promotion_rules``).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from sqlmodel import Session, col, func, select

from ..core.documents import DocumentInfo, DocumentStatus, DocumentType
from ..core.errors import DocumentNotFound, InvalidInput, NotFound, ScopeError
from ..core.promotion import DerivedFrom, PromotionRequest, RequestDetail, RequestStatus, requester_kind
from ..core.scopes import ScopeKind, ScopePath
from ..store import tables
from ..store.db import read_session, write_session
from ..store.tables import utcnow
from . import audit, documents, records, relations, stale
from .library import Library
from .moves import check_move
from .promotion_requests import create_request, decide_approved, pending_request, update_target
from .scopes import resolve_scope


def request_promotion(lib: Library, document_id: str, target: str = "project", *, requested_by: str | None = None,
                      reason: str = "") -> PromotionRequest:
    """Ask for ``document_id`` to be promoted to ``target``; the user decides in the review queue.

    Asking again while a request for the document is pending returns that request unchanged.

    Args:
        target: a full scope path, or a kind (``project``: the document's own project); it must be
            above the document's scope.
        requested_by: the actor (``think-process/tp_12``, ``rule:<tag>``); default the user here.
        reason: why, shown to the reviewer.

    Raises:
        DocumentNotFound. ScopeNotFound. ScopeError: the target is not above the document.
        InvalidInput: a folder (request its documents), or a trashed document.
    """
    with write_session(lib.engine) as session:
        row = records.document_row(session, document_id)
        target_path = check_move(lib, row.scope_path, target, "up")
        request = create_request(session, row, target_path, requested_by=requested_by or audit.current_user(),
                                 reason=reason)
        records.bump_change_counter(session)
        return to_model(session, request)


def publish_think_process(lib: Library, think_process: str, *, to: str = "project", actor: str | None = None,
                          reason: str = "") -> list[PromotionRequest]:
    """Request the promotion of every result of a think process at once ("publish to project", seed §8).

    Results in the trash are left out; results with a pending request keep it (to whatever target; it
    is returned too).

    Args:
        think_process: the think process's scope path (``think-process/tp_12``).
        to: the target, a kind (default its project) or a full path above it.

    Returns:
        The pending requests of the think process's results, oldest result first.

    Raises:
        ScopeNotFound. InvalidInput: not a think process, or it has no results. ScopeError: a bad target.
    """
    path = resolve_scope(lib, think_process)
    if ScopePath.parse(path).kind is not ScopeKind.THINK_PROCESS:
        raise InvalidInput(f"{path} is not a think process: publish works on a think process's results")
    target_path = check_move(lib, path, to, "up")
    if target_path == path:
        raise ScopeError(f"{path} cannot publish to itself: give a scope above it")
    who = actor or audit.current_user()
    why = reason.strip() or "published when the think process finished"
    with write_session(lib.engine) as session:
        rows = session.exec(select(tables.DocumentRow).where(
            tables.DocumentRow.scope_path == path, tables.DocumentRow.type == DocumentType.RESULT.value,
            col(tables.DocumentRow.status).in_([DocumentStatus.ACTIVE.value, DocumentStatus.STALE.value]),
        ).order_by(tables.DocumentRow.created_at, tables.DocumentRow.id)).all()  # type: ignore[arg-type]
        if not rows:
            raise InvalidInput(f"{path} has no results to publish")
        # A result already waiting for review elsewhere keeps that request: the reviewer sees it there.
        requests = [pending_request(session, row.id) or create_request(session, row, target_path, requested_by=who,
                                                                       reason=why) for row in rows]
        records.bump_change_counter(session)
        return [to_model(session, r) for r in requests]


def list_requests(lib: Library, *, status: RequestStatus | None = RequestStatus.PENDING,
                  document_id: str | None = None, source_scope: str | None = None,
                  limit: int = 1000) -> list[PromotionRequest]:
    """Requests, pending ones oldest first, decided ones most recently decided first.

    Args:
        status: only this status; None for all (pending first, then the history).
        document_id: only the requests about this document (its history of requests).
        source_scope: only requests made from this scope.
    """
    query = select(tables.PromotionRequestRow)
    if status is not None:
        query = query.where(tables.PromotionRequestRow.status == status.value)
    if document_id is not None:
        query = query.where(tables.PromotionRequestRow.document_id == document_id)
    if source_scope is not None:
        query = query.where(tables.PromotionRequestRow.source_scope == source_scope)
    with read_session(lib.engine) as session:
        rows = list(session.exec(query).all())
        pending = sorted((r for r in rows if r.status == RequestStatus.PENDING.value),
                         key=lambda r: (r.created_at, r.id))
        decided = sorted((r for r in rows if r.status != RequestStatus.PENDING.value),
                         key=lambda r: (r.decided_at or r.created_at, r.id), reverse=True)
        return [to_model(session, r) for r in [*pending, *decided][:limit]]


def get_request(lib: Library, request_id: str) -> PromotionRequest:
    """One request. Raises NotFound."""
    with read_session(lib.engine) as session:
        return to_model(session, _request_row(session, request_id))


def pending_count(lib: Library) -> int:
    """How many requests wait for a decision (the review badge)."""
    with read_session(lib.engine) as session:
        return session.exec(select(func.count()).select_from(tables.PromotionRequestRow).where(
            tables.PromotionRequestRow.status == RequestStatus.PENDING.value)).one()


def approve(lib: Library, request_ids: Sequence[str], *, to: str | None = None, title: str | None = None,
            add_tags: Sequence[str] = (), remove_tags: Sequence[str] = (), actor: str | None = None,
            reason: str = "") -> list[PromotionRequest]:
    """Approve requests: each document moves to its target (or ``to``), all of them or none.

    Before anything changes, every request must be pending and every target must be above its
    document. ``title`` and the tag edits are applied first (as one version of the document), then
    the documents move in one transaction. A request whose think process node already has a result in
    a scope above updates that document instead (a new version with the new content, tags merged,
    stale mark cleared; moved up to the target when it is below it) and puts the requested copy in
    the trash, so the node keeps one promoted result.

    Args:
        to: approve to another scope than requested: a kind or a full path above each document.
        title: a new title (one request only).
        add_tags / remove_tags: tag edits made before the move.
        reason: the reviewer's note, kept with the decision.

    Returns:
        The decided requests.

    Raises:
        NotFound: an unknown request. InvalidInput: a request already decided, a title for several
        requests, a document in the trash. ScopeError: a target not above its document.
    """
    if title is not None and len(request_ids) != 1:
        raise InvalidInput("a new title can be given when approving one request, not several")
    who = actor or audit.current_user()
    plan = _plan(lib, request_ids, to)
    for request_id, (document_id, _target) in plan.items():
        if (title is not None and title.strip()) or add_tags or remove_tags:
            documents.update_document(lib, document_id, title=title if title and title.strip() else None,
                                      add_tags=add_tags, remove_tags=remove_tags,
                                      reason=f"edited in review ({request_id})")
    merged = {rid: _merge_into_existing(lib, rid, doc_id) for rid, (doc_id, _target) in plan.items()}
    with write_session(lib.engine) as session:
        decided = []
        for request_id, (_document_id, target_path) in plan.items():
            decided.append(decide_approved(session, _request_row(session, request_id), target_path, actor=who,
                                           reason=reason, merged_into=merged[request_id]))
        records.bump_change_counter(session)
        return [to_model(session, r) for r in decided]


def reject(lib: Library, request_ids: Sequence[str], *, reason: str,
           actor: str | None = None) -> list[PromotionRequest]:
    """Reject requests; their documents stay where they are and the reason is kept. All or none.

    Raises:
        NotFound: an unknown request. InvalidInput: a blank reason, or a request already decided.
    """
    if not reason.strip():
        raise InvalidInput("give a reason for the rejection: the think process and the history keep it")
    who = actor or audit.current_user()
    with write_session(lib.engine) as session:
        rows = [_request_row(session, r) for r in dict.fromkeys(request_ids)]
        _refuse_decided(rows)
        for request in rows:
            request.status = RequestStatus.REJECTED.value
            request.decided_by, request.decided_at, request.decision_reason = who, utcnow(), reason.strip()
            session.add(request)
            doc = session.get(tables.DocumentRow, request.document_id)
            if doc is not None:
                audit.record(session, doc, "reject", actor=who, from_scope=request.source_scope,
                             to_scope=request.target_scope, reason=reason.strip(), request_id=request.id)
        records.bump_change_counter(session)
        return [to_model(session, r) for r in rows]


def request_detail(lib: Library, request_id: str) -> RequestDetail:
    """What a reviewer needs for one request (see :class:`RequestDetail`); works after a purge too.

    The diff is a unified diff of the text content, from the document it would update to the new one.

    Raises:
        NotFound: an unknown request.
    """
    request = get_request(lib, request_id)
    doc = _maybe_document(lib, request.document_id)
    updated = _maybe_document(lib, request.updates) if request.updates else None
    derived = []
    for source_id in relations.derived_from(lib, doc.id) if doc else []:
        source = _maybe_document(lib, source_id)
        derived.append(DerivedFrom(id=source_id, title=source.title if source else None))
    diff = None
    if doc is not None and updated is not None:
        diff = "\n".join(difflib.unified_diff(
            (updated.content or "").splitlines(), (doc.content or "").splitlines(),
            fromfile=f"{updated.id} in {updated.scope} (version {updated.version})",
            tofile=f"{doc.id} in {doc.scope}", lineterm=""))
    return RequestDetail(request=request, document=doc, updates=updated, diff=diff, derived_from=derived,
                         history=audit.document_history(lib, request.document_id))


def _maybe_document(lib: Library, document_id: str) -> DocumentInfo | None:
    try:
        return documents.get_document(lib, document_id)
    except DocumentNotFound:  # purged since: the request and the trail remain
        return None


def to_model(session: Session, row: tables.PromotionRequestRow) -> PromotionRequest:
    """A request row as a :class:`PromotionRequest` (with its think process and, when pending, the
    document it would update)."""
    doc = session.get(tables.DocumentRow, row.document_id)
    think_process = row.source_scope if row.source_scope.startswith("think-process/") else None
    if think_process is None and doc is not None and doc.source_think_process:
        think_process = f"think-process/{doc.source_think_process}"
    updates = update_target(session, doc) \
        if doc is not None and row.status == RequestStatus.PENDING.value else None
    return PromotionRequest(
        id=row.id, document_id=row.document_id, title=doc.title if doc is not None else row.title,
        document_type=DocumentType(doc.type) if doc is not None else None,
        source_scope=row.source_scope, target_scope=row.target_scope, requested_by=row.requested_by,
        requester=requester_kind(row.requested_by), reason=row.reason, status=RequestStatus(row.status),
        think_process=think_process, updates=updates, decided_by=row.decided_by, decided_at=row.decided_at,
        decision_reason=row.decision_reason, final_scope=row.final_scope, created_at=row.created_at,
    )


def _plan(lib: Library, request_ids: Sequence[str], to: str | None) -> dict[str, tuple[str, str]]:
    """Check every request before anything changes: request id → (document id, target path)."""
    plan: dict[str, tuple[str, str]] = {}
    with read_session(lib.engine) as session:
        rows = [_request_row(session, r) for r in dict.fromkeys(request_ids)]
        _refuse_decided(rows)
        docs = {r.id: records.document_row(session, r.document_id) for r in rows}
    for request in rows:
        doc = docs[request.id]
        if doc.status == DocumentStatus.DELETED.value:
            raise InvalidInput(f"{doc.id} ({request.id}) is in the trash: restore it or reject the request")
        target = check_move(lib, doc.scope_path, to or request.target_scope, "up")
        if target == doc.scope_path:
            raise ScopeError(f"{doc.id} ({request.id}) is in {target} already: give a scope above it")
        plan[request.id] = (doc.id, target)
    return plan


def _merge_into_existing(lib: Library, request_id: str, document_id: str) -> str | None:
    """When a scope above holds this node's earlier result, write the new content into it; its id, else None.

    Idempotent: after a crash the approval can run again (an unchanged content makes no new version).
    """
    with read_session(lib.engine) as session:
        existing = update_target(session, records.document_row(session, document_id))
    if existing is None:
        return None
    new = documents.get_document(lib, document_id)
    metadata = {k: v for k, v in new.metadata.items() if k == "node_type"}
    inputs = [i for i in relations.derived_from(lib, document_id) if i != existing]
    documents.update_document(lib, existing, title=new.title, content=new.content, metadata=metadata or None,
                              derived_from=inputs or None,
                              reason=f"updated by review ({request_id}) from {document_id}")
    stale.set_stale(lib, [existing], stale=False)
    documents.tag_document(lib, existing, add=[t for t in new.tags if t != stale.STALE_TAG],
                           reason=f"tags from {document_id} ({request_id})")
    return existing


def _request_row(session: Session, request_id: str) -> tables.PromotionRequestRow:
    row = session.get(tables.PromotionRequestRow, request_id.strip())
    if row is None:
        raise NotFound(f"no promotion request {request_id} (see `vancetope review list`)")
    return row


def _refuse_decided(rows: Sequence[tables.PromotionRequestRow]) -> None:
    decided = [f"{r.id} is {r.status}" for r in rows if r.status != RequestStatus.PENDING.value]
    if decided:
        raise InvalidInput("only pending requests can be decided: " + "; ".join(decided))
