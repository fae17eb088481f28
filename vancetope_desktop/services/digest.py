"""The daily digest (issue 13): one scope's day written up, its atoms reconciled, the whole run one change set.

:func:`run_digest` takes one scope and one day (this computer's calendar day). Its **material** is the scope's
own live documents created or changed that day (sources: anything but atoms; atoms: facts, events, plans), the
writeups themselves left out. It

1. drafts the **writeup**, a note titled ``generation.base.digest_title(day)`` in the scope, by the chosen
   generator's ``write_digest`` behind the fallback wrapper (a generator that fails, times out or returns
   garbage is answered by the built-in one, and the run says so);
2. **reconciles** the scope's atoms (``services.reconcile``: near-duplicates merge, contradictions are marked
   ``contradicts``, plans past due happened or were missed), never changing an atom a person edited. A missed
   plan is marked here rather than by ``atoms.mark_missed``, which writes each plan in a transaction of its own
   and unrecorded (and ``atoms.plan_update`` given an undo record marks the plan as a person's edit): the run
   must be one transaction and one undo step;
3. keeps the scope's **topic tree** (issue 14, ``services.topic_upkeep``: rebuilt while the scope is cold, revised
   locally once consolidated), planned with the reconciliation and written after it, so that the atoms it
   archives leave their topics; a tree a person changed meanwhile is left for the next run, with a warning;
4. writes all of it in **one transaction** and records it as **one undo step** of the person at this computer
   (``undo.user_action`` entries under one group: the writeup appearing, plans marked missed as edits, atoms
   archived as ``supersede``, edges as ``relate``, the tree's topics and memberships), so that ``vancetope
   undo``, Edit ▸ Undo or :func:`undo_digest` take the whole run back. The **change set** (kept / added /
   modified / deleted) is stored in the writeup's metadata :data:`DIGEST_KEY`. The person is the actor even when
   an agent asked for the run (``digest_run``): the digest is the library's housekeeping, reviewed and undone by
   the person.

Idempotent: the writeup records the material it covered (id → version, as it was once the run was written). A
run with nothing new says "already digested" and changes nothing; new material since (a note added later that
day) reruns it: the writeup is rewritten (a new version) and the new change set appended, one more undo step.
A writeup undone (in the trash) counts for the app's automatic run (:func:`pending_digests`: the person took it
back, the app does not redo it) but not for an explicit run, which writes a new one.

Two processes at once: the checks are repeated inside the write transaction, which SQLite's write lock
(``BEGIN IMMEDIATE``) serialises: the second waits for the first and then finds the day digested; past the busy
timeout it gets :class:`DigestBusy`. (A lease row in ``meta`` would also keep the second from drafting, but a
lease outlives a crashed process; the lock does not.) The generator's own time limit bounds a slow model: the
digest waits for its answer or its ``GeneratorTimeout``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import or_
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, select

from ..core.atoms import ATOM_KEY, EDITED_BY_PERSON, Atom, AtomType, PlanStatus, check_draft
from ..core.documents import STRUCTURAL_TYPES, UNLISTED_TYPES, DocumentStatus, DocumentType
from ..core.errors import InvalidAtom, InvalidInput, LibraryBusy, NotFound, NothingToUndo
from ..core.profiles import profile_of
from ..core.relations import RelationType
from ..core.undo import UndoStep, UserAction
from ..generation.base import DigestAtom, DigestRequest, DigestSource, Generator, digest_title
from ..generation.builtin import BuiltinGenerator
from ..generation.digest import link
from ..generation.fallback import FallbackGenerator
from ..store import tables
from ..store.blobs import hash_text
from ..store.db import BUSY_TIMEOUT_MS, is_busy, read_session, write_session
from . import atoms, audit, documents, generators, lifecycle, records, relations, topic_upkeep, undo
from .library import Library
from .reconcile import Reconciliation, reconcile
from .scopes import list_scopes, resolve_scope

DIGEST_KEY = "digest"
"""Metadata key of a writeup: ``{"day", "scope", "material": {id: version}, "changes": [DigestChange…],
"runs": [{"group", "at", "generator", "fallback"}…]}``."""
LIVE = (DocumentStatus.ACTIVE.value, DocumentStatus.STALE.value)
ATOM_TYPES = tuple(t.value for t in AtomType)
AUTO_DAYS = 7
"""How many days back the app's automatic run looks (:func:`pending_digests` for each): a week away from the
app still gets each day written up; older days wait for ``digest run --day``."""

ChangeKind = Literal["kept", "added", "modified", "deleted"]


class DigestBusy(LibraryBusy):
    """Another process held the library's write lock for longer than the busy timeout (a digest or an import)."""


class DigestChange(BaseModel):
    """One line of a digest's change set.

    Attributes:
        kind: kept (an atom of the day left as it was), added (the writeup, an edge), modified (a plan marked
            missed, a writeup rewritten), deleted (an atom archived: merged into a near-duplicate, a plan that
            happened; archived, not purged: Restore brings it back).
        document_id, title: the document concerned. related_id: the other end (the survivor, the event, the
            contradicted atom). what: one line saying what and why. run: which run of the day made it (1, 2…).
    """

    kind: ChangeKind
    document_id: str
    title: str = ""
    related_id: str | None = None
    what: str = ""
    run: int = 1


class DigestRun(BaseModel):
    """What :func:`run_digest` did, or what :func:`show_digest` found.

    Attributes:
        outcome: ``digested`` (a new writeup), ``updated`` (new material since: the writeup rewritten),
            ``already digested`` (nothing new: nothing changed), ``nothing to digest`` (no material that day),
            ``topics updated`` (:func:`run_pending` kept a scope's topic tree alone: no writeup).
        writeup_id: the writeup (None when there is none). status: its document status (``deleted``: undone).
        changes: the change set (every run of the day, oldest first). message: one line for a person.
        generator: who wrote the writeup; fallback: the chosen generator failed and the built-in one wrote it.
        warnings: what was left undone and why (an atom changed meanwhile, the model missing).
    """

    scope: str
    day: date
    outcome: Literal["digested", "updated", "already digested", "nothing to digest", "topics updated"]
    writeup_id: str | None = None
    title: str = ""
    status: str | None = None
    content: str = ""
    changes: list[DigestChange] = Field(default_factory=list)
    generator: str = ""
    fallback: bool = False
    warnings: list[str] = Field(default_factory=list)
    message: str = ""


def parse_day(value: str | date | None, *, now: datetime | None = None) -> date:
    """The day named by ``value``: a date, ``YYYY-MM-DD``, ``today``, ``yesterday``; None is today.

    Raises:
        InvalidInput: an unreadable day, or one after today (nothing has happened yet).
    """
    today = _local_today(now or datetime.now())
    if value is None or (isinstance(value, str) and not value.strip()):
        return today
    if isinstance(value, datetime):
        value = value.date()
    if isinstance(value, date):
        found = value
    else:
        word = value.strip().lower()
        if word in ("today", "yesterday"):
            found = today - timedelta(days=word == "yesterday")
        else:
            try:
                found = date.fromisoformat(word)
            except ValueError:
                raise InvalidInput(f"cannot read the day {value!r}: give it as YYYY-MM-DD (e.g. "
                                   f"{today.isoformat()}), 'today' or 'yesterday'") from None
    if found > today:
        raise InvalidInput(f"{found.isoformat()} is in the future (today is {today.isoformat()}): a digest writes "
                           "up a day that has begun")
    return found


def run_digest(lib: Library, scope: str | None = None, day: str | date | None = None, *,
               generator: Generator | None = None, now: datetime | None = None,
               before_write: Callable[[], None] | None = None, topics: bool = True) -> DigestRun:
    """Digest ``scope``'s ``day`` (see the module's note).

    Args:
        scope: a scope path or name (default: the current scope).
        day: :func:`parse_day` (default: today).
        generator: who writes the writeup (default: the library's, ``services.generators.library_generator``);
            a model is wrapped so that a failure falls back to the built-in generator.
        now: the present moment (default: this computer's clock; naive is local time).
        before_write: called just before the one write transaction, after the slow part (reading, embedding,
            drafting): the app's gate that lets a person's own edits go first (it may raise to cancel).
        topics: keep the scope's topic tree in the same run (``services.topic_upkeep``); :func:`run_pending` does
            it once per scope, in the latest day it digests.

    Returns:
        The run: its outcome, writeup and change set.

    Raises:
        InvalidInput: a bad day. ScopeNotFound. DigestBusy: the library stayed locked by another process.
    """
    moment = now or datetime.now()
    the_day = parse_day(day, now=moment)
    scope_path = resolve_scope(lib, scope)
    start, end = _bounds(the_day)
    with read_session(lib.engine) as session:
        material = _material(session, scope_path, start, end)
        writeup = _writeup(session, scope_path, the_day, live_only=True)
        covered = dict(writeup.meta.get(DIGEST_KEY, {}).get("material") or {}) if writeup else {}
    if writeup is not None and _covered(material, covered):
        return _shown(lib, writeup.id, "already digested")
    if not material and writeup is None:
        return DigestRun(scope=scope_path, day=the_day, outcome="nothing to digest",
                         message=f"nothing new in {scope_path} on {the_day.isoformat()}: no digest written")
    by_id = {row.id: row for row in material}
    scope_atoms = [a for a in atoms.list_atoms(lib, scope_path) if a.scope == scope_path]
    day_atoms = [a for a in scope_atoms if a.id in by_id]
    found = reconcile(lib, day_atoms, scope_atoms, the_day, _local_today(moment))
    problem = ""
    if generator is None:  # the library's choice (Settings ▸ Generator), the built-in behind any model
        picked = generators.library_generator(lib)
        generator, problem = picked.generator, picked.problem
    chosen = generator
    writer = chosen if isinstance(chosen, BuiltinGenerator | FallbackGenerator) else \
        FallbackGenerator(chosen, BuiltinGenerator())
    listed, damaged = [], []
    for atom in day_atoms:
        try:
            listed.append(_digest_atom(atom))
        except InvalidAtom as error:  # its metadata was damaged by hand: the writeup goes on without it
            damaged.append(f"{atom.id} is left out of the writeup: {error}")
    request = DigestRequest(day=the_day, scope=scope_path, atoms=tuple(listed),
                            sources=tuple(_source(r) for r in material if r.type not in ATOM_TYPES))
    body = writer.write_digest(request)
    fallback = bool(getattr(writer, "fallbacks", 0))
    content = f"# {digest_title(the_day)}\n\n{body.rstrip()}\n{_reconciled(found, {a.id: a for a in scope_atoms})}"
    prepared = documents.prepare_text(lib, content, DocumentType.NOTE, digest_title(the_day))
    # The tree's slow part (its atoms' vectors, the clustering) before the transaction; the atoms this run
    # archives are left out of it.
    tree = topic_upkeep.plan_upkeep(lib, scope_path, leaving={m.gone for m in found.merges} | {
        p.plan for p in found.plans if p.event}) if topics else None
    action = UserAction(label=f"Digest {the_day.isoformat()} of {scope_path}", actor=audit.current_user())
    if before_write is not None:
        before_write()
    try:
        with write_session(lib.engine) as session:
            row = _writeup(session, scope_path, the_day, live_only=True)
            if row is not None and _covered(_material(session, scope_path, start, end),
                                            dict(row.meta.get(DIGEST_KEY, {}).get("material") or {})):
                done_id, outcome = row.id, "already digested"  # another process digested it while we drafted
            else:
                done_id, outcome = _write(session, lib, scope_path, the_day, row, found, day_atoms, prepared,
                                          action, start, end, chosen.name, fallback, tree)
    except OperationalError as error:
        if not is_busy(error):
            raise
        raise DigestBusy(f"the library stayed locked by another process (a digest or an import) for "
                         f"{BUSY_TIMEOUT_MS // 1000} s: try again in a moment") from None
    done = _shown(lib, done_id, outcome)  # type: ignore[arg-type]
    unused = [f"written by the built-in generator: {problem}"] if problem else []
    return done.model_copy(update={"warnings": [*done.warnings, *found.warnings, *damaged, *unused]})


def show_digest(lib: Library, scope: str | None = None, day: str | date | None = None) -> DigestRun:
    """The writeup of ``scope``'s ``day`` and its change set (a live one first, else the latest undone one).

    Raises:
        InvalidInput: a bad day. ScopeNotFound. NotFound: no digest for that scope and day.
    """
    the_day = parse_day(day)
    scope_path = resolve_scope(lib, scope)
    with read_session(lib.engine) as session:
        row = _writeup(session, scope_path, the_day, live_only=True) or _writeup(session, scope_path, the_day)
    if row is None:
        raise NotFound(f"no digest of {scope_path} on {the_day.isoformat()}: run `vancetope digest run --day "
                       f"{the_day.isoformat()}`")
    return _shown(lib, row.id, "digested")


def digest_days(lib: Library, scope: str | None = None) -> list[date]:
    """The days ``scope`` has a writeup for (undone ones included), oldest first (the app's calendar marks them)."""
    scope_path = resolve_scope(lib, scope)
    with read_session(lib.engine) as session:
        rows = session.exec(select(tables.DocumentRow).where(
            tables.DocumentRow.scope_path == scope_path, tables.DocumentRow.type == DocumentType.NOTE.value,
            tables.DocumentRow.title.startswith("Digest — "))).all()  # type: ignore[union-attr]
    return sorted({date.fromisoformat(r.meta[DIGEST_KEY]["day"]) for r in rows if _is_writeup(r)})


def undo_digest(lib: Library, scope: str | None = None, day: str | date | None = None) -> UndoStep:
    """Take back the latest run of ``scope``'s ``day`` (the whole run: the writeup, merges, marks, missed plans),
    whatever the person did since, unless a document it changed has changed since (``services.undo``).

    Raises:
        NotFound: no digest that day. NothingToUndo: undone already, or older than the undo history.
        UndoRefused: a document changed since (nothing is changed).
    """
    shown = show_digest(lib, scope, day)
    with read_session(lib.engine) as session:
        runs = records.document_row(session, shown.writeup_id).meta[DIGEST_KEY].get("runs") or []  # type: ignore[arg-type]
    if not runs or shown.status == DocumentStatus.DELETED.value:
        raise NothingToUndo(f"the digest of {shown.scope} on {shown.day.isoformat()} is undone already")
    return undo.undo_group(lib, runs[-1]["group"])


def pending_digests(lib: Library, day: str | date | None = None) -> list[str]:
    """The scopes with material on ``day`` that no writeup of theirs (undone ones included) covers: what the app
    digests when it is first opened that day (for each of the :data:`AUTO_DAYS` days before).

    Raises:
        InvalidInput: a bad day.
    """
    the_day = parse_day(day)
    start, end = _bounds(the_day)
    pending = []
    with read_session(lib.engine) as session:
        for info in list_scopes(lib):
            material = _material(session, info.path, start, end)
            if not material:
                continue
            covered: dict[str, int] = {}
            writeups = _writeups(session, info.path, the_day)
            for row in writeups:
                covered.update(row.meta[DIGEST_KEY].get("material") or {})
            if any(r.status == DocumentStatus.DELETED.value for r in writeups):
                # Undone by the person: its undo changed the atoms' versions; only new documents bring it back.
                covered = {r.id: r.version for r in material if r.id in covered}
            if not _covered(material, covered):
                pending.append(info.path)
    return pending


def run_pending(lib: Library, *, now: datetime | None = None,
                before_write: Callable[[], None] | None = None) -> list[DigestRun]:
    """Digest every scope with undigested material on each of the :data:`AUTO_DAYS` days before today, oldest
    day first: what the app runs when it opens. Today waits for tomorrow's first opening (the day is not over),
    and once a day is digested, opening again the same day finds nothing: "once a day per scope with new
    material". A scope that fails (a lock held too long) is left for the next opening, the others go on.
    ``before_write`` is given to each :func:`run_digest`.

    Each scope's topic tree is kept once per call, not once per day (its clustering is the costly part): by the
    scope's latest pending day, and, for a scope with no day pending whose atoms changed since its tree was
    kept (atoms written today, atoms archived or trashed: ``topic_upkeep.stale_scopes``), by a run of its own
    (outcome ``topics updated``, its own undo step).

    Returns:
        The runs made (none when everything is digested and every tree is up to date).
    """
    today = _local_today(now or datetime.now())
    queue = [(day, scope_path) for back in range(AUTO_DAYS, 0, -1)
             for day in (today - timedelta(days=back),) for scope_path in pending_digests(lib, day)]
    latest = {scope_path: day for day, scope_path in queue}
    done = []
    for day, scope_path in queue:
        try:
            done.append(run_digest(lib, scope_path, day, now=now, before_write=before_write,
                                   topics=latest[scope_path] == day))
        except DigestBusy:
            continue
    for scope_path in topic_upkeep.stale_scopes(lib):
        if scope_path in latest:
            continue
        try:
            kept = topic_upkeep.update_topics(lib, scope_path, before_write=before_write)
        except LibraryBusy:
            continue
        if kept.changes:
            done.append(DigestRun(scope=scope_path, day=today, outcome="topics updated", warnings=kept.warnings,
                                  changes=[DigestChange(**c.model_dump()) for c in kept.changes],
                                  message=kept.message))
    return done


# --- Writing one run, inside the caller's write transaction.

def _write(session: Session, lib: Library, scope_path: str, day: date, row: tables.DocumentRow | None,
           found: Reconciliation, day_atoms: list[Atom], prepared: documents.PreparedText, action: UserAction,
           start: datetime, end: datetime, generator: str, fallback: bool,
           tree: topic_upkeep.UpkeepPlan | None) -> tuple[str, str]:
    who = action.actor
    previous = dict(row.meta[DIGEST_KEY]) if row is not None else {}
    # What it archives counts as covered too (else an undo, which brings it back, would look like new material).
    before = {m.id: m.version for m in _material(session, scope_path, start, end)}
    run = len(previous.get("runs") or []) + 1
    changes: list[DigestChange] = []
    skipped: list[str] = []
    touched: set[str] = set()

    def live(doc_id: str) -> tables.DocumentRow | None:
        """The row, if it is still a live atom no person edited (else the change is left out)."""
        target = session.get(tables.DocumentRow, doc_id)
        atom = (target.meta.get(ATOM_KEY) or {}) if target is not None else {}
        if target is None or target.status not in LIVE or (isinstance(atom, dict) and atom.get(EDITED_BY_PERSON)):
            skipped.append(doc_id)
            return None
        return target

    for merge in found.merges:
        survivor, gone = session.get(tables.DocumentRow, merge.survivor), live(merge.gone)
        if survivor is None or survivor.status not in LIVE or gone is None:
            continue
        _supersede(session, gone, survivor, action)
        touched.add(gone.id)
        changes.append(DigestChange(kind="deleted", document_id=gone.id, title=gone.title, related_id=survivor.id,
                                    what=f"near-duplicate of “{survivor.title}” (cosine {merge.similarity:.2f}): "
                                         "merged into it", run=run))
    for mark in found.contradictions:
        newer, older = session.get(tables.DocumentRow, mark.newer), session.get(tables.DocumentRow, mark.older)
        if newer is None or older is None or {newer.status, older.status} - set(LIVE):
            continue
        if relations.session_add_edge(session, newer.id, older.id, RelationType.CONTRADICTS.value, who):
            audit.record_user_action(session, newer, "relate", action,
                                     {"edge": [newer.id, older.id, RelationType.CONTRADICTS.value]},
                                     reason=f"contradicts {older.id} ({mark.why})")
            changes.append(DigestChange(kind="added", document_id=newer.id, title=newer.title, related_id=older.id,
                                        what=f"contradicts “{older.title}” ({mark.why}): for a person to settle",
                                        run=run))
    for outcome in found.plans:
        plan = live(outcome.plan)
        if plan is None:
            continue
        touched.add(plan.id)
        event = session.get(tables.DocumentRow, outcome.event) if outcome.event else None
        if event is not None and event.status in LIVE:
            _supersede(session, plan, event, action)
            changes.append(DigestChange(kind="deleted", document_id=plan.id, title=plan.title, related_id=event.id,
                                        what=f"happened as “{event.title}” (the event updates the plan)", run=run))
        else:
            kept_as = plan.version
            records.snapshot_version(session, plan, "digest: plan missed")
            plan.meta = {**plan.meta, ATOM_KEY: {**(plan.meta.get(ATOM_KEY) or {}), "status": PlanStatus.MISSED.value}}
            session.add(plan)
            audit.record_user_action(session, plan, "edit", action, {"version": [kept_as, plan.version]},
                                     reason="digest: past due, no matching event")
            changes.append(DigestChange(kind="modified", document_id=plan.id, title=plan.title,
                                        what="planned → missed: past due and no event says it happened", run=run))
    tree_warnings: list[str] = []
    if tree is not None:  # after the merges: the atoms they archived leave their topics in this transaction
        kept_tree = topic_upkeep.apply_upkeep(session, tree, action)
        changes += [DigestChange(**c.model_dump(), run=run) for c in kept_tree.changes]
        tree_warnings = kept_tree.warnings
    for atom in day_atoms:
        if atom.id not in touched:
            changes.append(DigestChange(kind="kept", document_id=atom.id, title=atom.title,
                                        what=f"{atom.type.value} kept", run=run))
    if row is None:
        row = documents.session_add_text(session, prepared, scope_path=scope_path, metadata={DIGEST_KEY: {}})
        audit.record_user_action(session, row, "status", action,
                                 {"status": [DocumentStatus.DELETED.value, DocumentStatus.ACTIVE.value]},
                                 reason="digest writeup written")
        changes.insert(0, DigestChange(kind="added", document_id=row.id, title=row.title, what="the day's writeup",
                                       run=run))
        outcome_word = "digested"
    else:
        kept_as = row.version
        records.snapshot_version(session, row, "digest: new material")
        row.content, row.content_hash = prepared.content, hash_text(prepared.content)
        records.replace_chunks(session, row, prepared.chunks, prepared.counts)
        records.enqueue(session, row.id, "embed")
        audit.record_user_action(session, row, "edit", action, {"version": [kept_as, row.version]},
                                 reason="digest: new material")
        changes.insert(0, DigestChange(kind="modified", document_id=row.id, title=row.title,
                                       what="the writeup rewritten with the new material", run=run))
        outcome_word = "updated"
    session.flush()
    material = {**before, **{m.id: m.version for m in _material(session, scope_path, start, end)}}
    warnings = [f"{doc_id} changed while the digest was drafted (archived, trashed or edited by a person): left "
                "as it is" for doc_id in dict.fromkeys(skipped)] + tree_warnings
    row.meta = {**row.meta, "title_from_content": False, DIGEST_KEY: {
        "day": day.isoformat(), "scope": scope_path, "material": material,
        "changes": [*(previous.get("changes") or []), *(c.model_dump() for c in changes)],
        "runs": [*(previous.get("runs") or []), {"group": action.group, "at": datetime.now(UTC).isoformat(),
                                                 "generator": generator, "fallback": fallback,
                                                 "warnings": warnings}]}}
    session.add(row)
    records.bump_change_counter(session)
    return row.id, outcome_word


def _reconciled(found: Reconciliation, by_id: dict[str, Atom]) -> str:
    """The writeup's closing section: what the reconciliation does, linking each atom (the change set in
    :data:`DIGEST_KEY` is the exact record; an atom changed meanwhile is left out there and in the warnings)."""
    def name(doc_id: str) -> str:
        atom = by_id.get(doc_id)
        return link(doc_id, atom.text if atom else doc_id)

    lines = [f"- merged {name(m.gone)} into {name(m.survivor)} (near-duplicates)" for m in found.merges]
    lines += [f"- {name(c.newer)} contradicts {name(c.older)} ({c.why}): for a person to settle"
              for c in found.contradictions]
    lines += [f"- {name(p.plan)} happened: {name(p.event)}" if p.event else f"- {name(p.plan)} missed (past due)"
              for p in found.plans]
    return "\n## Reconciled\n\n" + "\n".join(lines) + "\n" if lines else ""


def _supersede(session: Session, old: tables.DocumentRow, new: tables.DocumentRow, action: UserAction) -> None:
    """``new`` updates ``old``, which is archived (``lifecycle``), recorded for undo as a ``supersede``."""
    before, superseded = old.status, old.meta.get(lifecycle.SUPERSEDED_BY)
    relations.session_add_edge(session, new.id, old.id, RelationType.UPDATES.value, action.actor)
    lifecycle.session_supersede(session, old, new, action.actor)
    audit.record_user_action(session, old, "supersede", action,
                             {"status": [before, DocumentStatus.ARCHIVED.value], "by": new.id,
                              "superseded_by": superseded}, reason=f"updated by {new.id} ({new.title})")


# --- Reading.

def _bounds(day: date) -> tuple[datetime, datetime]:
    """``day``'s local midnight to the next one, in UTC (the stored times' zone)."""
    start = datetime.combine(day, time()).astimezone()
    return start.astimezone(UTC), (start + timedelta(days=1)).astimezone(UTC)


def _local_today(moment: datetime) -> date:
    return moment.astimezone().date() if moment.tzinfo else moment.date()


def _material(session: Session, scope_path: str, start: datetime, end: datetime) -> list[tables.DocumentRow]:
    """The scope's own live documents created or changed in ``[start, end)`` (writeups, folders and topics left
    out: the tree is the digest's own output),
    in the order they were created."""
    doc = tables.DocumentRow
    rows = session.exec(select(doc).where(
        doc.scope_path == scope_path, doc.status.in_(LIVE),  # type: ignore[attr-defined]
        doc.type.not_in([t.value for t in (*STRUCTURAL_TYPES, *UNLISTED_TYPES)]),  # type: ignore[attr-defined]
        or_(doc.created_at.between(start, end), doc.updated_at.between(start, end)))  # type: ignore[attr-defined]
        .order_by(doc.created_at)).all()  # type: ignore[arg-type]
    return [r for r in rows if not _is_writeup(r)]


def _covered(material: list[tables.DocumentRow], covered: dict[str, int]) -> bool:
    return all(covered.get(r.id) == r.version for r in material)


def _is_writeup(row: tables.DocumentRow) -> bool:
    return row.type == DocumentType.NOTE.value and isinstance(row.meta.get(DIGEST_KEY), dict) \
        and bool(row.meta[DIGEST_KEY].get("day"))


def _writeups(session: Session, scope_path: str, day: date) -> list[tables.DocumentRow]:
    """The writeups of ``scope_path``'s ``day``, any status, newest first."""
    doc = tables.DocumentRow
    rows = session.exec(select(doc).where(doc.scope_path == scope_path, doc.type == DocumentType.NOTE.value,
                                          doc.title == digest_title(day))
                        .order_by(doc.created_at.desc())).all()  # type: ignore[attr-defined]
    return [r for r in rows if _is_writeup(r) and r.meta[DIGEST_KEY]["day"] == day.isoformat()]


def _writeup(session: Session, scope_path: str, day: date, *, live_only: bool = False) -> tables.DocumentRow | None:
    rows = _writeups(session, scope_path, day)
    if live_only:
        rows = [r for r in rows if r.status != DocumentStatus.DELETED.value]
    return rows[0] if rows else None


def _source(row: tables.DocumentRow) -> DigestSource:
    """A source as the writeup links it, with its profile's summary and keywords (``services.source_profile``)."""
    profile = profile_of(row.meta)
    if profile is None:
        return DigestSource(id=row.id, title=row.title)
    return DigestSource(id=row.id, title=row.title, summary=profile.summary, keywords=tuple(profile.keywords))


def _digest_atom(atom: Atom) -> DigestAtom:
    draft = check_draft(type=atom.type, text=atom.text, when=atom.when, due=atom.due, status=atom.plan_status)
    return DigestAtom(id=atom.id, draft=draft, source_id=atom.source_id)


def _shown(lib: Library, writeup_id: str, outcome: str) -> DigestRun:
    doc = documents.get_document(lib, writeup_id)
    fields: dict[str, Any] = doc.metadata.get(DIGEST_KEY) or {}
    runs = fields.get("runs") or [{}]
    day = date.fromisoformat(fields["day"])
    changes = [DigestChange(**c) for c in fields.get("changes") or []]
    counts = {k: sum(c.kind == k for c in changes if c.run == len(runs)) for k in ("kept", "added", "modified",
                                                                                    "deleted")}
    said = {"already digested": f"{doc.scope} on {day.isoformat()} is already digested: nothing new since",
            "digested": f"digested {doc.scope} on {day.isoformat()}",
            "updated": f"digest of {doc.scope} on {day.isoformat()} updated with new material"}[outcome]
    if doc.status is DocumentStatus.DELETED:
        said += " (undone: the writeup is in the trash)"
    summary = ", ".join(f"{n} {k}" for k, n in counts.items())
    return DigestRun(scope=doc.scope, day=day, outcome=outcome, writeup_id=doc.id, title=doc.title,  # type: ignore[arg-type]
                     status=doc.status.value, content=doc.content or "", changes=changes,
                     generator=str(runs[-1].get("generator") or ""), fallback=bool(runs[-1].get("fallback")),
                     warnings=list(runs[-1].get("warnings") or []), message=f"{said} ({summary})")

