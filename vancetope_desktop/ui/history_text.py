"""A document's History as the Details panel words it: its audit trail once, and its requests where they add to it.

The audit entries (``services.audit.document_history``) are the truth: every request, decision and move
is there with its actor. The requests (``services.review.list_requests``) add only what the trail cannot
say: that one is still waiting (with a link to the review queue), or a rejection's reason the trail
lacks. An approval writes two entries, the move (``promote``) and the decision (``approve``); the move
is folded into the decision, which names the same route, so the approver is not shown as the author of
the requester's reason. Scope paths inside reasons ("promoted by hand to session/review-2026") read
as names. Pure functions returning escaped HTML fragments.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

from ..core.documents import DocumentInfo, SourceType, VersionInfo
from ..core.promotion import AuditEntry, PromotionRequest, RequestStatus
from .review_model import actor_label, local_time, scope_name
from .scope_text import name_scope_paths

HISTORY_SHOWN = 12
"""Audit entries listed (the newest); older ones are counted."""

ACTION_TEXT = {"promote": "Promoted", "demote": "Demoted", "request": "Promotion requested", "approve": "Approved",
               "reject": "Rejected", "withdraw": "Request withdrawn", "update": "Updated from a newer copy",
               "trash": "Moved to the trash", "untrash": "Restored from the trash", "status": "Status changed",
               "file": "Moved to another folder", "tag": "Tags changed", "rename": "Renamed", "edit": "Edited",
               "undo": "Undone", "redo": "Redone", "skip": "Taken off the undo history", "relate": "Related",
               "unrelate": "Relation removed", "archive": "Archived", "restore": "Restored",
               "memory_type": "Memory type changed"}
"""How each audit action reads (others: the action capitalised)."""

_MOVES = frozenset({"promote", "demote"})


def trail_entries(entries: Sequence[AuditEntry]) -> list[AuditEntry]:
    """The entries worth a line, oldest first: a move carried out by an approval is folded into it."""
    approved = {e.request_id for e in entries if e.action == "approve" and e.request_id}
    return [e for e in entries if not (e.action in _MOVES and e.request_id in approved)]


def trail_rows(entries: Sequence[AuditEntry], scope_names: Mapping[str, str], me: str = "",
               limit: int = HISTORY_SHOWN) -> list[str]:
    """One HTML line per entry of :func:`trail_entries`, newest first, the newest ``limit`` of them.

    A line reads "**Approved** Paper Analysis → Transformer Efficiency Review · You — reason · 2026-05-01
    14:30"; past ``limit`` a last line counts the earlier ones.
    """
    shown = trail_entries(entries)
    rows = []
    for entry in reversed(shown[-limit:]):
        route = ""
        if entry.from_scope and entry.to_scope:
            route = (f" {html.escape(scope_name(entry.from_scope, scope_names))} → "
                     f"{html.escape(scope_name(entry.to_scope, scope_names))}")
        who = html.escape(actor_label(entry.actor, scope_names, me))
        why = f" — {html.escape(name_scope_paths(entry.reason, scope_names))}" if entry.reason else ""
        rows.append(f"<b>{ACTION_TEXT.get(entry.action, html.escape(entry.action.capitalize()))}</b>{route} · "
                    f"{who}{why} · {local_time(entry.at)}")
    if len(shown) > limit:
        rows.append(f"<i>… {len(shown) - limit} earlier</i>")
    return rows


def request_rows(requests: Sequence[PromotionRequest], entries: Sequence[AuditEntry],
                 scope_names: Mapping[str, str], me: str = "") -> list[str]:
    """HTML lines for the requests that add to the trail: pending ones (with a ``request:<id>`` "Review…"
    link), and rejected ones whose reason no ``reject`` entry of the trail carries."""
    rejected_in_trail = {e.request_id for e in entries if e.action == "reject" and e.request_id and e.reason}
    rows = []
    for request in requests:
        target = html.escape(scope_name(request.target_scope, scope_names))
        if request.status is RequestStatus.PENDING:
            asker = html.escape(actor_label(request.requested_by, scope_names, me))
            rows.append(f"<b>Waiting for review</b>: to {target}, asked by {asker} · "
                        f'<a href="request:{html.escape(request.id)}">Review…</a>')
        elif (request.status is RequestStatus.REJECTED and request.decision_reason
              and request.id not in rejected_in_trail):
            who = html.escape(actor_label(request.decided_by, scope_names, me))
            rows.append(f"<b>Rejected</b> (to {target}) by {who}, {local_time(request.decided_at)}: "
                        f"{html.escape(name_scope_paths(request.decision_reason, scope_names))}")
    return rows


def version_origins(versions: Sequence[VersionInfo], doc: DocumentInfo) -> dict[int, str]:
    """How each stored version of ``doc`` came about, by version number.

    A stored version keeps the state *before* a change, with that change's reason ("edited", "tags
    +#x"): the reason belongs to the next version. Version 1 was "imported" (an uploaded file or
    bibliography entry) or "created"; a version whose predecessor is not listed reads "changed".
    """
    reasons = {v.number: v.reason for v in versions if v.document_id == doc.id}
    first = "imported" if doc.source.type is SourceType.USER_UPLOAD else "created"
    return {number: first if number == 1 else reasons.get(number - 1, "changed") for number in reasons}
