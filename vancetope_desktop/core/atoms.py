"""Atoms (issue 13, seed 002 "Mindcache"): small durable statements extracted from source material.

Seed 002 keeps **sources** (files, notes, results, conversations: preserved, never rewritten) apart from
**atoms**: one statement each, of three kinds — a ``fact``, an ``event`` (something that happened, with when)
and a ``plan`` (something intended, with a due date and a status). An atom is a document of its own (its
document type is the atom type's value), in a scope like any other, embedded and keyword-indexed, and keeps
its provenance: the source document, chunk, page and character span it came from.

A plan is never "completed": when it happens, an ``event`` atom is written that ``updates`` it (so the plan
is archived, superseded by the event); until then it is ``planned``, ``missed`` (past due, nothing happened)
or ``canceled``.

This module holds the shapes shared by the generators that draft atoms (``generation``) and the services
that store them; it checks each draft's own consistency (an event has a time, a plan a due date).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .errors import InvalidInput


class AtomType(StrEnum):
    """The three kinds of atom (seed 002 "Atoms"); each value is also the atom's document type."""

    FACT = "fact"
    EVENT = "event"
    PLAN = "plan"


class PlanStatus(StrEnum):
    """Where a plan stands (issue 13): there is no "completed" — a plan that happened is superseded by an event."""

    PLANNED = "planned"
    MISSED = "missed"
    CANCELED = "canceled"


class SourceSpan(BaseModel):
    """Where in its source an atom was read: enough for the app to open the source at the passage.

    Attributes:
        start, end: character offsets into the text the generator was given (``end`` exclusive, ``start <
            end``); the caller that knows the source fills the rest.
        document_id: the source document (None while drafting from a bare text).
        chunk_index: the source chunk the text came from, when it came from one.
        page: the 1-based page of a paginated source (PDF), else None.
    """

    model_config = ConfigDict(frozen=True)

    start: int = Field(ge=0)
    end: int = Field(gt=0)
    document_id: str | None = None
    chunk_index: int | None = Field(default=None, ge=0)
    page: int | None = Field(default=None, ge=1)

    @model_validator(mode="after")
    def _ordered(self) -> SourceSpan:
        if self.end <= self.start:
            raise ValueError(f"a span ends after it starts (start {self.start}, end {self.end})")
        return self


class AtomDraft(BaseModel):
    """One atom as a generator proposes it, before it is stored.

    Attributes:
        type: fact, event or plan.
        text: the statement, one sentence, as self-contained as the generator can make it.
        span: where it was read (None for an atom written directly by a person or an agent).
        when: an event's time (timezone-aware when the source said so); None for facts and plans.
        due: a plan's due date; None for facts and events.
        status: a plan's status (``planned`` unless the source said otherwise); None for facts and events.

    Raises (on construction):
        pydantic.ValidationError: an empty text, an event without ``when``, a plan without ``due``, or a
            time field on the wrong kind of atom. :func:`check_draft` turns it into ``InvalidInput``.
    """

    model_config = ConfigDict(frozen=True)

    type: AtomType
    text: str = Field(min_length=1)
    span: SourceSpan | None = None
    when: datetime | None = None
    due: datetime | None = None
    status: PlanStatus | None = None

    @model_validator(mode="before")
    @classmethod
    def _plan_status(cls, data: object) -> object:
        # A plan drafted without a status is planned: said here so that every reader sees the same value.
        if isinstance(data, dict) and str(data.get("type", "")).strip().lower() == AtomType.PLAN.value \
                and data.get("status") is None:
            return {**data, "status": PlanStatus.PLANNED}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> AtomDraft:
        if not self.text.strip():
            raise ValueError("an atom needs a statement (the text is blank)")
        if self.type is AtomType.EVENT and self.when is None:
            raise ValueError("an event atom needs a time ('when')")
        if self.type is AtomType.PLAN and self.due is None:
            raise ValueError("a plan atom needs a due date ('due')")
        if self.type is not AtomType.EVENT and self.when is not None:
            raise ValueError(f"only an event has a 'when' (this atom is a {self.type.value})")
        if self.type is not AtomType.PLAN and (self.due is not None or self.status is not None):
            raise ValueError(f"only a plan has a 'due' date and a status (this atom is a {self.type.value})")
        return self


def parse_atom_type(text: str | AtomType) -> AtomType:
    """``text`` as an :class:`AtomType` (case and surrounding blanks ignored).

    Raises:
        InvalidInput: naming the allowed values.
    """
    if isinstance(text, AtomType):
        return text
    try:
        return AtomType(str(text).strip().lower())
    except ValueError:
        raise InvalidInput(f"unknown atom type {text!r}: use one of "
                           f"{', '.join(t.value for t in AtomType)}") from None


def parse_plan_status(text: str | PlanStatus) -> PlanStatus:
    """``text`` as a :class:`PlanStatus` (case and surrounding blanks ignored).

    Raises:
        InvalidInput: naming the allowed values ("completed" is refused with the reason: record an event).
    """
    if isinstance(text, PlanStatus):
        return text
    value = str(text).strip().lower()
    if value in ("completed", "done"):
        raise InvalidInput("a plan is never 'completed': record the event that happened (it updates the plan)")
    try:
        return PlanStatus(value)
    except ValueError:
        raise InvalidInput(f"unknown plan status {text!r}: use one of "
                           f"{', '.join(s.value for s in PlanStatus)}") from None
