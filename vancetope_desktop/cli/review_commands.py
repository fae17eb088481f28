"""``vancetope review``: the review queue of promotion requests from the terminal (list, show, approve, reject)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from ..core.promotion import RequestStatus
from ..core.tags import split_tag_list
from ..services import indexing, review, scopes
from . import render
from .apps import review_app
from .context import JsonOption, LibraryOption, WaitOption, emit, open_library, required_reason


class RequestFilter(StrEnum):
    """``review list --status``: one request status, or all."""

    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    WITHDRAWN = "withdrawn"
    ALL = "all"


@review_app.command("list")
def review_list(
    status: Annotated[RequestFilter, typer.Option("--status", help="Which requests.")] = RequestFilter.PENDING,
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Promotion requests, grouped by think process: pending ones (oldest first) unless --status says otherwise."""
    with open_library(library) as lib:
        items = review.list_requests(lib, status=None if status is RequestFilter.ALL else RequestStatus(status))
        names = {s.path: s.name for s in scopes.list_scopes(lib, include_archived=True)}
        emit(as_json, items, lambda: render.requests(items, names, status.value))


@review_app.command("show")
def review_show(request_id: Annotated[str, typer.Argument(help="Request id (req_…).")],
                library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """One request: its document (source node, tags, derived from), what it would update (a diff), its history."""
    with open_library(library) as lib:
        detail = review.request_detail(lib, request_id)
        emit(as_json, detail, lambda: render.request_detail(detail))


def _tags(values: list[str] | None) -> list[str]:
    """Repeated ``--tag`` values, each possibly comma-separated, as normalised tags."""
    return [tag for value in values or [] for tag in split_tag_list(value)]


@review_app.command("approve")
def review_approve(
    request_ids: Annotated[list[str], typer.Argument(help="Request ids (req_…): all are approved, or none.")],
    to: Annotated[str | None, typer.Option("--to", help="Approve to another scope above the document: a kind "
                                           "or a path (default: the requested one).")] = None,
    title: Annotated[str | None, typer.Option("--title", help="A new title first (one request only).")] = None,
    tag: Annotated[list[str] | None, typer.Option("--tag", help="Add this tag first (repeatable).")] = None,
    untag: Annotated[list[str] | None, typer.Option("--untag", help="Remove this tag first (repeatable).")] = None,
    note: Annotated[str, typer.Option("--note", help="Your note, kept with the decision.")] = "",
    library: LibraryOption = None, as_json: JsonOption = False, wait: WaitOption = True,
) -> None:
    """Approve requests, all or none: `review approve REQ… [--to SCOPE]`; the documents move (or update)."""
    with open_library(library) as lib:
        before = {r: review.get_request(lib, r) for r in dict.fromkeys(request_ids)}  # what each would update
        decided = review.approve(lib, request_ids, to=to, title=title, add_tags=_tags(tag), remove_tags=_tags(untag),
                                 reason=note)
        if wait:  # their vectors follow them (the document moved, or the earlier result it updates)
            indexing.try_drain(lib, documents=[d for r in decided for d in (r.document_id, r.updates) if d])
        emit(as_json, decided, lambda: render.approved(decided, before))


@review_app.command("reject")
def review_reject(
    request_ids: Annotated[list[str], typer.Argument(help="Request ids (req_…): all are rejected, or none.")],
    reason: Annotated[str | None, typer.Option("--reason", help="Why (required): kept in the history.")] = None,
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Reject requests, all or none: `review reject REQ… --reason "…"`; the documents stay where they are."""
    why = required_reason(reason, "review reject REQ…")
    with open_library(library) as lib:
        decided = review.reject(lib, request_ids, reason=why)
        emit(as_json, decided, lambda: render.rejected(decided))
