"""Value objects of promotion: requests in the review queue, audit entries, and auto-promote rules.

Seed §4.3 (promotion / demotion, auto-promote by tag) and §9 question 1 (automatic vs. reviewed
promotion): a think process's result reaches a wider scope only through a request the user decides,
unless the user configured a rule to approve by itself.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from .documents import DocumentInfo, DocumentType


class RequestStatus(StrEnum):
    """Where a promotion request stands."""

    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    WITHDRAWN = "withdrawn"  # its document was trashed, moved by hand, or promoted by another request


class RequesterKind(StrEnum):
    """Who asked for a promotion, read from the actor string (see :func:`requester_kind`)."""

    USER = "user"
    THINK_PROCESS = "think_process"
    RULE = "rule"


def requester_kind(actor: str) -> RequesterKind:
    """The kind of an actor string: ``rule:…`` a rule, ``think-process/…`` a think process, else a user."""
    if actor.startswith("rule:"):
        return RequesterKind.RULE
    if actor.startswith("think-process/"):
        return RequesterKind.THINK_PROCESS
    return RequesterKind.USER


class PromotionRequest(BaseModel):
    """A request to move ``document_id`` from ``source_scope`` up to ``target_scope``.

    ``updates`` is the id of a document above this one that it would update (the same think
    process node's result, promoted earlier); approving then writes a new version of that document
    instead of moving this one.
    """

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="The request's id (req_…).")
    document_id: str = Field(description="The document to promote (doc_…).")
    title: str = Field(description="The document's title (as it is now, or when it was purged).")
    document_type: DocumentType | None = Field(default=None, description="None once the document is purged.")
    source_scope: str = Field(description="Where the document is.")
    target_scope: str = Field(description="Where it would go.")
    requested_by: str = Field(description="user:<name>, think-process/<id> or rule:<tag>.")
    requester: RequesterKind
    reason: str = ""
    status: RequestStatus = RequestStatus.PENDING
    think_process: str | None = Field(default=None, description="The think process the document comes from.")
    updates: str | None = Field(default=None, description="An earlier promoted result above, which this updates.")
    decided_by: str | None = None
    decided_at: datetime | None = None
    decision_reason: str | None = None
    final_scope: str | None = Field(default=None, description="Where an approved document went.")
    created_at: datetime


class AuditEntry(BaseModel):
    """One line of a document's audit trail: what, from, to, who, when, why."""

    model_config = ConfigDict(frozen=True)

    document_id: str
    title: str
    action: str
    from_scope: str | None = None
    to_scope: str | None = None
    actor: str
    reason: str = ""
    request_id: str | None = None
    at: datetime


class PromotionRule(BaseModel):
    """An auto-promote rule: a document newly tagged ``tag`` gets a request to ``target``.

    ``target`` is a scope kind (``project``: the document's own project) or a full scope path.
    ``auto_approve`` makes the request approve itself (seed §9 question 1); off by default.
    ``defined_in`` is the scope whose settings hold the rule (None: the built-in default).
    """

    model_config = ConfigDict(frozen=True)

    tag: str
    target: str = "project"
    auto_approve: bool = False
    defined_in: str | None = None


class VisibilityChange(BaseModel):
    """Who gains and who loses sight of documents when they move (scope paths, tree order)."""

    model_config = ConfigDict(frozen=True)

    source_scope: str
    target_scope: str
    gains: list[str] = Field(default_factory=list)
    loses: list[str] = Field(default_factory=list)


class DerivedFrom(BaseModel):
    """An input a result was derived from: its id and title (None when it no longer exists)."""

    model_config = ConfigDict(frozen=True)

    id: str
    title: str | None


class RequestDetail(BaseModel):
    """Everything a reviewer looks at for one request: the request, its document (None once purged),
    the document above it that it would update with a unified diff (old → new), the inputs it
    was derived from, and the document's audit trail."""

    model_config = ConfigDict(frozen=True)

    request: PromotionRequest
    document: DocumentInfo | None
    updates: DocumentInfo | None = None
    diff: str | None = None
    derived_from: list[DerivedFrom] = Field(default_factory=list)
    history: list[AuditEntry] = Field(default_factory=list)
