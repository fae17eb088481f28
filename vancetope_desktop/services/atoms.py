"""Atoms (issue 13): store, list and change the facts, events and plans read from sources or written directly.

An atom is a document whose type is its :class:`~..core.atoms.AtomType` and whose metadata
:data:`~..core.atoms.ATOM_KEY` holds ``span``, ``when``, ``due`` (ISO text), ``status`` (a plan's), ``source_id``
(the source it was read from, kept when the source is purged) and ``edited_by_person``. An atom read from a
source also has a ``derived_from`` edge to it (``services.relations``), so the source's Details list it and
the relation picture shows it. Visibility is every document's: a scope lists its own atoms and its ancestors'.

A plan is ``planned``, ``missed`` or ``canceled``; it never becomes "completed": :func:`plan_happened` writes
an event that ``updates`` the plan, which archives it in the same transaction (``services.lifecycle``).
:func:`mark_missed` (the digest's step) marks the plans past due that nothing happened to.

Dates are read leniently (:func:`parse_moment`): ISO 8601 first, else a natural phrase ("next Friday",
"3 December 2026 at 10:00") with ``dateparser``, which reads offline from its own package data.
"""

from __future__ import annotations

import locale
from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from typing import Any, Literal

from pydantic import BaseModel
from sqlmodel import Session

from ..core.atoms import (
    ATOM_KEY,
    EDITED_BY_PERSON,
    SOURCE_KEY,
    Atom,
    AtomDraft,
    AtomType,
    PlanStatus,
    SourceSpan,
    check_draft,
    parse_atom_type,
    parse_plan_status,
)
from ..core.documents import DocumentStatus, DocumentType, Source
from ..core.errors import DocumentNotFound, InvalidAtom
from ..core.relations import RelationType
from ..core.undo import UserAction
from ..store import tables
from ..store.db import read_session, write_session
from . import audit, documents, lifecycle, records, relations
from .library import Library
from .records import atom_card as card
from .records import atom_cards as cards
from .scopes import resolve_scope
from .sharing import check_read, readable_ids

ATOM_DOCUMENT_TYPES = tuple(DocumentType(t.value) for t in AtomType)
"""The document types that are atoms (fact, event, plan)."""
LISTED_STATUSES = (DocumentStatus.ACTIVE, DocumentStatus.STALE)
"""What :func:`list_atoms` returns unless archived ones (plans that happened, superseded atoms) are asked for."""


def parse_moment(value: str | datetime | date | None, what: str = "date",
                 prefer: Literal["past", "future"] = "future", now: datetime | None = None) -> datetime | None:
    """``value`` as a datetime: a datetime is kept, a date is its midnight, text is ISO 8601 or a natural
    phrase read by ``dateparser`` relative to ``now`` (default: this computer's clock), preferring the
    ``prefer`` side for an ambiguous one ("Friday"). Blank or None gives None.

    Args:
        what: how the message names the field ("due date", "time").

    Raises:
        InvalidAtom: text that is no date (the message names the field and gives examples).
    """
    if value is None or isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime.combine(value, time())
    phrase = " ".join(str(value).split())
    if not phrase:
        return None
    try:
        return datetime.fromisoformat(phrase)
    except ValueError:
        pass
    import dateparser  # ~0.4 s to import: only when a phrase is not ISO

    settings = {"PREFER_DATES_FROM": prefer, "RELATIVE_BASE": now or datetime.now(), "RETURN_AS_TIMEZONE_AWARE": False}
    try:
        found = dateparser.parse(phrase, languages=_date_languages(), settings=settings)
    except ValueError:  # a system language dateparser does not know
        found = dateparser.parse(phrase, languages=["en"], settings=settings)
    if found is None:
        raise InvalidAtom(f"cannot read the {what} {str(value)!r}: give a date such as 2026-12-05, "
                          "2026-12-05T14:30 or 'next Friday'")
    return found


def _date_languages() -> list[str]:
    """English and this computer's language: dateparser tries every language it knows on a phrase none reads,
    13 s on this machine against 0.6 s for English alone, so the list stays short."""
    code = (locale.getlocale()[0] or "en").split("_")[0].lower()
    return ["en"] if code in ("en", "c", "posix") else ["en", code]


def draft_atom(type: str | AtomType, text: str, *, when: str | datetime | date | None = None,
               due: str | datetime | date | None = None, status: str | PlanStatus | None = None,
               span: SourceSpan | None = None, now: datetime | None = None) -> AtomDraft:
    """An atom draft from a person's or an agent's words (the tool, CLI and app faces call this).

    Args:
        when: an event's time; due: a plan's due date (ISO or a natural phrase: :func:`parse_moment`).
        status: a plan's status (default ``planned``).

    Raises:
        InvalidAtom: an unknown type or status ("completed" with its reason), an unreadable date, an event
            without a time, a plan without a due date, a time field on the wrong kind, a blank text.
    """
    kind = parse_atom_type(type)
    fields: dict[str, Any] = {"type": kind, "text": text, "span": span,
                              "when": parse_moment(when, "time", "past", now),
                              "due": parse_moment(due, "due date", "future", now)}
    if status is not None and str(status).strip():
        fields["status"] = parse_plan_status(status)
    return check_draft(**fields)


def store_atom(lib: Library, draft: AtomDraft, *, scope: str | None = None, title: str | None = None,
               tags: Sequence[str] = (), source: Source | None = None) -> Atom:
    """Store one atom a person or an agent wrote, and queue its indexing (one transaction).

    Args:
        scope: where it goes (default: the current scope). title: default a short form of the statement
            (its first line, at most 80 characters). A draft whose span names a source document gets a
            ``derived_from`` edge to it (the source must exist).

    Raises:
        InvalidInput: bad tags. ScopeNotFound. DocumentNotFound: the span's source.
    """
    source_id = draft.span.document_id if draft.span else None
    doc = documents.add_text(lib, draft.text, doc_type=DocumentType(draft.type.value), title=title, tags=tags,
                             scope=scope, source=source, metadata={ATOM_KEY: _fields(draft, source_id)},
                             derived_from=[source_id] if source_id else ())
    return card(lib, doc)


def store_atoms(lib: Library, drafts: Sequence[AtomDraft], source_id: str, scope: str | None = None, *,
                source: Source | None = None) -> list[Atom]:
    """Store the atoms a generator read from the document ``source_id``, all in one transaction, each with a
    ``derived_from`` edge to the source and its span's ``document_id`` set to it.

    Args:
        scope: where they go (default: the source's scope); the source must be readable from it.
        source: provenance of the atom documents (default: manual).

    Returns:
        The stored atoms' cards, in the drafts' order.

    Raises:
        DocumentNotFound: no such source, or it is in the trash. ScopeNotVisible: ``scope`` cannot read it.
        InvalidAtom: a draft whose span names another document, or whose text is only invisible characters
            (nothing is stored then).
    """
    origin = documents.get_document(lib, source_id.strip())
    if origin.status is DocumentStatus.DELETED:
        raise DocumentNotFound(f"{origin.id} is in the trash: restore it before storing atoms read from it")
    scope_path = resolve_scope(lib, scope) if scope else origin.scope
    check_read(lib, scope_path, origin)
    ready = []
    for number, draft in enumerate(drafts, start=1):
        if draft.span is not None and draft.span.document_id not in (None, origin.id):
            raise InvalidAtom(f"atom {number} was read from {draft.span.document_id}, not from {origin.id}")
        span = draft.span.model_copy(update={"document_id": origin.id}) if draft.span else None
        try:
            prepared = documents.prepare_text(lib, draft.text, DocumentType(draft.type.value))
        except ValueError as error:  # EmptyFile: a statement made of invisible characters
            raise InvalidAtom(f"atom {number} has no readable text ({error})") from None
        ready.append((prepared, {**_fields(draft.model_copy(update={"span": span}), origin.id)}))
    with write_session(lib.engine) as session:  # one batch, whatever their number: the write lock held briefly
        ids = [row.id for row in documents.session_add_texts(
            session, [(prepared, {ATOM_KEY: fields}) for prepared, fields in ready], scope_path=scope_path,
            source=source, derived_from=[origin.id])]
    with read_session(lib.engine) as session:
        rows, tags = records.document_rows(session, ids), records.tags_by_document(session, ids)
        return cards(lib, [records.to_info(lib, row, tags[row.id]) for row in rows])


def list_atoms(lib: Library, scope: str | None = None, *, types: Sequence[str | AtomType] = (),
               status: str | PlanStatus | None = None, source_id: str | None = None,
               due_before: str | datetime | date | None = None, text: str | None = None,
               include_archived: bool = False, limit: int | None = None) -> list[Atom]:
    """The atoms ``scope`` sees (its own and its ancestors'), newest first.

    Args:
        types: only these kinds (empty: all three). status: only plans in this status. source_id: only atoms
            read from this document. due_before: only plans due before this moment (:func:`parse_moment`).
        text: only atoms whose statement holds this text (case-insensitive; matched here, after the SQL
            filters, since a scope holds thousands of atoms at most).
        include_archived: archived atoms too (plans that happened, superseded atoms).

    Raises:
        InvalidAtom: an unknown type or status, an unreadable date. ScopeNotFound.
    """
    kinds = [parse_atom_type(t) for t in types] or list(AtomType)
    wanted = None if status is None or not str(status).strip() else parse_plan_status(status)
    before = parse_moment(due_before, "due date")
    if wanted is not None or before is not None:
        kinds = [k for k in kinds if k is AtomType.PLAN]
    if not kinds:
        return []
    statuses = (*LISTED_STATUSES, DocumentStatus.ARCHIVED) if include_archived else LISTED_STATUSES
    docs = documents.list_documents(lib, scope=scope, types=[DocumentType(k.value) for k in kinds],
                                    statuses=statuses)
    needle = (text or "").strip().casefold()
    found = [a for a in cards(lib, docs)
             if (wanted is None or a.plan_status is wanted) and (not source_id or a.source_id == source_id.strip())
             and (before is None or (a.due is not None and local_time(a.due) < local_time(before)))
             and (not needle or needle in a.text.casefold())]
    return found[:limit] if limit else found


def atoms_of_source(lib: Library, source_id: str, *, scope: str | None = None) -> list[Atom]:
    """The atoms read from ``source_id`` (its ``derived_from`` edges), oldest first; with ``scope``, only those
    it may read. The trash is left out."""
    ids = relations.derived_documents(lib, [source_id])
    if scope is not None:
        readable = readable_ids(lib, resolve_scope(lib, scope), ids)
        ids = [i for i in ids if i in readable]
    docs = [documents.get_document(lib, i) for i in ids]
    return cards(lib, [d for d in docs if d.type in ATOM_DOCUMENT_TYPES and d.status is not DocumentStatus.DELETED])


def atom(lib: Library, atom_id: str, *, acting_scope: str | None = None) -> Atom:
    """One atom's card by its document id.

    Raises:
        DocumentNotFound. ScopeNotVisible: ``acting_scope`` may not read it. InvalidAtom: not an atom.
    """
    doc = documents.get_document(lib, atom_id.strip(), acting_scope=acting_scope)
    if doc.type not in ATOM_DOCUMENT_TYPES:
        raise InvalidAtom(f"{doc.id} is a {doc.type.value}, not an atom (fact, event or plan)")
    return card(lib, doc)


class SourcePassage(BaseModel):
    """Where to open an atom's source: the document, its page (PDFs) and the passage's text to find there
    (None when the span does not fit the source's text any more, e.g. after an edit: open it at the top)."""

    document_id: str
    page: int | None = None
    text: str | None = None


def source_passage(lib: Library, atom_id: str, *, acting_scope: str | None = None) -> SourcePassage:
    """The passage of its source an atom was read from: the span's characters of the chunk it names (a paper's
    text was given to the generator chunk by chunk), else of the source's text.

    Raises:
        DocumentNotFound: the atom, or its source (purged: the message says the atom keeps its text).
        InvalidAtom: the atom was written directly (it has no source). ScopeNotVisible.
    """
    found = atom(lib, atom_id, acting_scope=acting_scope)
    if found.source_id is None:
        raise InvalidAtom(f"{found.id} was written directly: it has no source to open")
    if found.source_gone:
        raise DocumentNotFound(f"the source of {found.id} ({found.source_id}) was purged; the atom keeps its text")
    span = found.span
    if span is None:
        return SourcePassage(document_id=found.source_id)
    if span.chunk_index is not None:
        chunk = next((c for c in documents.list_chunks(lib, found.source_id) if c.ordinal == span.chunk_index), None)
        text, page = (chunk.text, span.page or chunk.page) if chunk else ("", span.page)
    else:
        text, page = documents.get_document(lib, found.source_id).content or "", span.page
    passage = text[span.start:span.end].strip() if span.end <= len(text) else ""
    return SourcePassage(document_id=found.source_id, page=page, text=passage or None)


def plan_update(lib: Library, plan_id: str, status: str | PlanStatus, *, acting_scope: str | None = None,
                user_action: UserAction | None = None) -> Atom:
    """Set a plan's status (``planned``, ``missed`` or ``canceled``), keeping the previous state as a version.
    Given ``user_action`` (a person's change, undoable), the plan is marked edited by a person.

    Raises:
        InvalidAtom: an unknown status; "completed" (the reason: record the event with :func:`plan_happened`);
            not a plan; a plan that happened already. DocumentNotFound. ScopeNotVisible.
    """
    wanted = parse_plan_status(status)
    current = _live_plan(lib, plan_id, acting_scope)
    fields = dict(documents.get_document(lib, current.id).metadata.get(ATOM_KEY) or {})
    if current.plan_status is wanted:
        return current
    doc = documents.update_document(lib, current.id, metadata={ATOM_KEY: {**fields, "status": wanted.value}},
                                    reason=f"plan {wanted.value}", user_action=user_action)
    return card(lib, doc)


def plan_happened(lib: Library, plan_id: str, when: str | datetime | date, text: str | None = None, *,
                  acting_scope: str | None = None, created_by: str | None = None,
                  source: Source | None = None) -> Atom:
    """Record that a plan happened: a new event atom (``text``, default the plan's statement) at ``when``, in
    the plan's scope, that ``updates`` the plan, which is archived — one transaction.

    Raises:
        InvalidAtom: no time or an unreadable one, not a plan, a plan that happened already. DocumentNotFound.
        ScopeNotVisible.
    """
    plan = _live_plan(lib, plan_id, acting_scope)
    moment = parse_moment(when, "time", "past")
    if moment is None:
        raise InvalidAtom("an event needs its time: say when the plan happened (e.g. 2026-12-05T14:30)")
    draft = check_draft(type=AtomType.EVENT, text=(text or "").strip() or plan.text, when=moment)
    prepared = documents.prepare_text(lib, draft.text, DocumentType.EVENT)
    who = created_by or audit.current_user()
    with write_session(lib.engine) as session:
        row = documents.session_add_text(session, prepared, scope_path=plan.scope, source=source,
                                         metadata={ATOM_KEY: _fields(draft, None)})
        _supersede(session, row, plan.id, who)
    return atom(lib, row.id)


def mark_missed(lib: Library, scope: str | None = None, now: datetime | None = None) -> list[str]:
    """Mark ``missed`` the plans of ``scope`` itself (not its ancestors') that are ``planned``, past due and
    not superseded by an event; a plan a person edited is left as it is (a digest never changes those). A due
    date at midnight is a whole day: that plan is missed once the day is over.

    Args:
        now: the moment to compare with (default: this computer's clock; naive is local time).

    Returns:
        The ids marked missed.

    Raises:
        ScopeNotFound.
    """
    moment = local_time(now or datetime.now())
    marked = []
    plans = documents.list_documents(lib, scope=scope, types=[DocumentType.PLAN], statuses=LISTED_STATUSES,
                                     include_ancestors=False)
    for plan in cards(lib, plans):
        if plan.plan_status is PlanStatus.PLANNED and not plan.edited_by_person and plan.due is not None \
                and deadline(plan.due) <= moment:
            plan_update(lib, plan.id, PlanStatus.MISSED)
            marked.append(plan.id)
    return marked


def atom_metadata(doc_type: str | DocumentType, text: str, *, when: str | datetime | date | None = None,
                  due: str | datetime | date | None = None) -> dict[str, Any] | None:
    """The metadata that makes a text stored as ``doc_type`` an atom written directly (``memory_store``'s
    ``when`` / ``due``): ``{ATOM_KEY: …}`` for a fact, event or plan, None for another type given neither.

    Raises:
        InvalidAtom: ``when`` or ``due`` on another type than an event or a plan, and :func:`draft_atom`'s.
    """
    kind = str(getattr(doc_type, "value", doc_type)).strip().lower()
    if kind not in {t.value for t in AtomType}:
        given = [name for name, value in (("when", when), ("due", due)) if value is not None and str(value).strip()]
        if given:
            raise InvalidAtom(f"'{given[0]}' is for {'an event' if given[0] == 'when' else 'a plan'}, not a {kind}: "
                              f"store it with type='{'event' if given[0] == 'when' else 'plan'}'")
        return None
    return {ATOM_KEY: _fields(draft_atom(kind, text, when=when, due=due), None)}


def _fields(draft: AtomDraft, source_id: str | None) -> dict[str, Any]:
    """The :data:`ATOM_KEY` metadata of ``draft``."""
    return {"span": draft.span.model_dump() if draft.span else None, SOURCE_KEY: source_id,
            "when": draft.when.isoformat() if draft.when else None,
            "due": draft.due.isoformat() if draft.due else None,
            "status": draft.status.value if draft.status else None, EDITED_BY_PERSON: False}


def _live_plan(lib: Library, plan_id: str, acting_scope: str | None) -> Atom:
    """The plan ``plan_id``, refused unless it is a plan still open (not happened, not trashed)."""
    found = atom(lib, plan_id, acting_scope=acting_scope)
    if found.type is not AtomType.PLAN:
        raise InvalidAtom(f"{found.id} is a{'n' if found.type is AtomType.EVENT else ''} {found.type.value}, "
                          "not a plan: only a plan has a status")
    if found.happened_as:
        raise InvalidAtom(f"{found.id} happened already (event {found.happened_as}): restore it to change it")
    if found.status == DocumentStatus.DELETED.value:
        raise DocumentNotFound(f"{found.id} is in the trash: restore it first")
    return found


def _supersede(session: Session, event: tables.DocumentRow, plan_id: str, who: str) -> None:
    """Inside the caller's transaction: ``event`` updates the plan, which is archived (``services.lifecycle``)."""
    plan = records.document_row(session, plan_id)
    relations.session_add_edge(session, event.id, plan_id, RelationType.UPDATES.value, who)
    audit.record(session, event, "relate", actor=who, reason=f"updates {plan_id} ({plan.title}): the plan happened")
    lifecycle.session_supersede(session, plan, event, who)


def deadline(due: datetime) -> datetime:
    """When a plan due at ``due`` is past due, as naive local time: a due date at midnight means by the end of
    that day."""
    naive = local_time(due)
    return naive + timedelta(days=1) if naive.time() == time() else naive


def local_time(moment: datetime) -> datetime:
    """``moment`` as naive local time (an aware one is converted), so dates given either way compare."""
    return moment.astimezone().replace(tzinfo=None) if moment.tzinfo else moment

