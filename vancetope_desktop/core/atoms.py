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
that store them; it checks each draft's own consistency (an event has a time, a plan a due date). A stored
atom keeps its fields in the document's metadata :data:`ATOM_KEY` and is read back as an :class:`Atom` card.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .errors import InvalidAtom

ATOM_KEY = "atom"
"""Metadata key of an atom document: ``{"span": SourceSpan fields or None, "source_id": the source's id or None
(kept after the source is purged, when the ``derived_from`` edge goes with it), "when"/"due": ISO text or None,
"status": a plan's status or None, "edited_by_person": bool}`` (``services.atoms``)."""
SOURCE_KEY = "source_id"
"""Key of :data:`ATOM_KEY` naming the source the atom was read from (kept after the source is purged)."""
EDITED_BY_PERSON = "edited_by_person"
"""Key of :data:`ATOM_KEY` saying a person wrote or edited the atom: a digest never changes it (issue 13)."""


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
            time field on the wrong kind of atom. :func:`check_draft` turns it into ``InvalidAtom``.
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


class Atom(BaseModel):
    """A stored atom's card, as the atom services return it to the app, the CLI and the tools.

    Attributes:
        id: the atom's document id; ``scope`` its scope; ``status`` its document status (``archived`` for a
            plan that happened: ``happened_as`` is then the event that updates it).
        type, text, when, due: as drafted (``text`` is the statement, ``title`` its short form).
        plan_status: a plan's status; None for facts and events.
        span: where in its source it was read (None for an atom written directly).
        source_id, source_title: the source it was derived from (None when written directly);
            ``source_gone`` is True when that source was purged (the atom keeps its text).
        edited_by_person: a person wrote or edited it; a digest never changes it.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    type: AtomType
    text: str
    title: str
    scope: str
    status: str = "active"
    when: datetime | None = None
    due: datetime | None = None
    plan_status: PlanStatus | None = None
    span: SourceSpan | None = None
    source_id: str | None = None
    source_title: str | None = None
    source_gone: bool = False
    happened_as: str | None = None
    edited_by_person: bool = False
    created_at: datetime
    updated_at: datetime


def check_draft(**fields: Any) -> AtomDraft:
    """An :class:`AtomDraft` made of ``fields`` (type, text, span, when, due, status).

    Raises:
        InvalidAtom: the draft's first problem in one line (an event without a time, a plan without a due
            date, a blank text, a time field on the wrong kind of atom, an unknown type or status).
    """
    try:
        return AtomDraft(**fields)
    except ValidationError as error:
        first = error.errors()[0]
        message = str(first.get("msg", error)).removeprefix("Value error, ")
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise InvalidAtom(f"{where}: {message}" if where else message) from None


def parse_atom_type(text: str | AtomType) -> AtomType:
    """``text`` as an :class:`AtomType` (case and surrounding blanks ignored).

    Raises:
        InvalidAtom: naming the allowed values.
    """
    if isinstance(text, AtomType):
        return text
    try:
        return AtomType(str(text).strip().lower())
    except ValueError:
        raise InvalidAtom(f"unknown atom type {text!r}: use one of "
                           f"{', '.join(t.value for t in AtomType)}") from None


def parse_plan_status(text: str | PlanStatus) -> PlanStatus:
    """``text`` as a :class:`PlanStatus` (case and surrounding blanks ignored).

    Raises:
        InvalidAtom: naming the allowed values ("completed" is refused with the reason: record an event).
    """
    if isinstance(text, PlanStatus):
        return text
    value = str(text).strip().lower()
    if value in ("completed", "done"):
        raise InvalidAtom("a plan is never 'completed': record the event that happened (it updates the plan)")
    try:
        return PlanStatus(value)
    except ValueError:
        raise InvalidAtom(f"unknown plan status {text!r}: use one of "
                           f"{', '.join(s.value for s in PlanStatus)}") from None
