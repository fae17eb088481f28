"""Undo and redo of a person's own actions: trash, folder moves, scope moves by hand, tags, renames, edits,
memory types, a daily digest's run (``services.digest``: its writeup, the atoms its ``updates`` archived,
its edges), and the topic tree's changes (``services.topics``: topics made, revised, retired; atoms put in and
taken out of topics, ``relate`` / ``unrelate``).

The services record each such action in the audit trail, one entry per document it changed, all under
the action's group id (``audit.record_user_action``, given a ``core.undo.UserAction`` by the app or the
CLI). The history is therefore the library's: it survives restarts of the app and is shared with the
CLI. Undo and redo are recorded there too (actions ``undo`` / ``redo`` naming the group), so the stacks
are rebuilt from the trail each time (:func:`history`): a new action after an undo empties the redo stack,
as in every editor.

Nothing is overwritten: an undo is refused (:class:`UndoRefused`) when a document the action changed
has changed since (edited by an agent, moved elsewhere…); the action is then taken off
the history (a ``skip`` entry), so that the next undo reaches the action before it instead of meeting
the same refusal for ever. Documents deleted for good (purged, or merged into a duplicate) leave the
history with their entries: a step whose documents are all gone is not listed and an undo goes past it,
and a step that keeps some documents takes back only those (the others have nothing to go back to).

An edit, rename or tag change is undone by restoring the version kept before it, as a new version
(history is never rewritten). Scope moves made by approving a promotion request (``services.review``)
are decisions of the review queue, not recorded actions: Ctrl+Z does not take them back (demote the
document instead). Agents' tool calls record no actions either: the tool API has
no undo, since an agent's "undo" would take back the person's work.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import String, bindparam, text
from sqlmodel import Session, select

from ..core.documents import DocumentStatus
from ..core.errors import InvalidInput, NotFound, NothingToUndo, UndoRefused
from ..core.undo import UndoStep, UserAction
from ..store import tables
from ..store.db import read_session, write_session
from ..store.dialect_sql import SqlForms
from . import audit, lifecycle, notelinks, records, relations
from .documents import RestorePlan, apply_restore, apply_status, prepare_restore
from .folders import place_in_folder
from .library import Library
from .moves import check_move, move_in_session

UNDO_DEPTH = 100
"""How many of a person's latest actions (and undos/redos) the stacks are rebuilt from: as deep as the
undo of most editors (Qt's QUndoStack is unlimited; Word keeps 100)."""

VERSIONED = ("tag", "rename", "edit")
"""Actions undone by restoring the version kept before them."""
MARKERS = ("undo", "redo", "skip")
"""Entries about an action: undone, redone, or taken off the history after a refusal."""


def history(lib: Library, actor: str | None = None) -> tuple[list[UndoStep], list[UndoStep]]:
    """What ``actor`` (default: the user at this computer) can undo and redo in this library.

    Returns:
        ``(undoable, redoable)``, each next first: ``undoable[0]`` is what :func:`undo` would undo.
    """
    who = actor or audit.current_user()
    with read_session(lib.engine) as session:
        groups: dict[str, None] = {}
        # Newest first through ix_audit_entry_undo, until the latest UNDO_DEPTH actions are found.
        forms = SqlForms.of(session)
        group_of = forms.text("payload", "group")  # the expression of the index ix_audit_entry_undo
        latest = session.connection().execute(text(
            f"SELECT {group_of} FROM audit_entry WHERE actor = :actor "
            f"AND {group_of} IS NOT NULL ORDER BY id DESC"), {"actor": who})
        for (group,) in latest:
            groups[group] = None
            if len(groups) == UNDO_DEPTH:
                break
        latest.close()
        # Only the documents still in the library count: the trail outlives purged ones (they cannot come back).
        rows = session.connection().execute(text(
            f"SELECT {group_of} AS g, MIN(id) AS first, MIN(action), "
            f"MIN({forms.text('payload', 'label')}), MIN({forms.text('payload', 'target')}), "
            "COUNT(DISTINCT CASE WHEN document_id IN (SELECT id FROM document) THEN document_id END), "
            f"MIN(at) FROM audit_entry WHERE {group_of} IN :groups GROUP BY g ORDER BY first DESC"
        # typed: an empty list is written as an empty set of text, which PostgreSQL compares with text
        ).bindparams(bindparam("groups", expanding=True, type_=String())), {"groups": list(groups)}).all()
    done: list[UndoStep] = []
    undone: list[UndoStep] = []
    for group, _first, kind, label, target, count, at in reversed(rows):
        if kind == "skip":
            done[:] = [s for s in done if s.group != target]
            undone[:] = [s for s in undone if s.group != target]
        elif kind in MARKERS:
            source, sink = (done, undone) if kind == "undo" else (undone, done)
            step = next((s for s in source if s.group == target), None)
            if step is not None:  # else the action is older than the window
                source.remove(step)
                sink.append(step)
        else:
            if count:  # else every document it changed was deleted for good: nothing to take back
                done.append(UndoStep(group=group, label=label or kind, kind=kind, documents=count, at=at))
            undone.clear()
    return done[::-1], undone[::-1]


def undo(lib: Library, actor: str | None = None) -> UndoStep:
    """Invert ``actor``'s latest action in this library (default actor: the user at this computer).

    All its documents go back in one transaction, or none does. Index jobs are queued as for the action
    itself (a restored version is re-chunked and re-embedded, a scope move carries vectors back).

    Returns:
        The step undone (its label names it: "Undo Move 3 documents"), with the ids it changed (their
        index jobs are queued: a command drains them).

    Raises:
        NothingToUndo: no action left to undo (a subclass of UndoRefused).
        UndoRefused: a document changed since the action (the message says which and why): nothing was
        changed, and the action was taken off the history.
    """
    who = actor or audit.current_user()
    undoable, _ = history(lib, who)
    if not undoable:
        raise NothingToUndo("nothing to undo")
    return _apply(lib, undoable[0], who, "undo")


def redo(lib: Library, actor: str | None = None) -> UndoStep:
    """Do again the action ``actor`` undid last, if nothing was done since; as :func:`undo` otherwise.

    Raises:
        NothingToUndo: nothing to redo (nothing undone, or a new action came after the undo).
        UndoRefused: a document changed since the undo.
    """
    who = actor or audit.current_user()
    _, redoable = history(lib, who)
    if not redoable:
        raise NothingToUndo("nothing to redo")
    return _apply(lib, redoable[0], who, "redo")


def _apply(lib: Library, step: UndoStep, actor: str, direction: str) -> UndoStep:
    """Undo (``direction="undo"``) or redo ``step``, refusing if a document changed since (and then taking
    ``step`` off the history); returns ``step`` with the ids of the documents changed."""
    try:
        return _invert(lib, step, actor, direction)
    except UndoRefused as refusal:
        marker = UserAction(label=step.label, actor=actor)
        with write_session(lib.engine) as session:
            for entry in _entries(session, step.group):
                audit.record_skip(session, entry, marker, f"{direction} refused: {refusal}")
        raise UndoRefused(f"{refusal} (taken off the undo history)") from None


def _invert(lib: Library, step: UndoStep, actor: str, direction: str) -> UndoStep:
    with read_session(lib.engine) as session:
        # The documents deleted for good since have nothing to go back to (history() counted the others).
        entries = [e for e in _entries(session, step.group) if session.get(tables.DocumentRow, e.document_id)]
        versions = _latest_versions(session, step.group)
    plans = {e.document_id: _plan(lib, e, direction) for e in entries if e.action in VERSIONED}
    for entry in entries:
        if entry.payload.get("top"):  # a scope move: the tree as it is now must allow the way back
            source, target = (entry.to_scope, entry.from_scope) if direction == "undo" else \
                (entry.from_scope, entry.to_scope)
            _refuse_on(step, direction, lambda s=source, t=target: check_move(lib, s, t))  # type: ignore[misc]
    marker = UserAction(label=step.label, actor=actor)
    with write_session(lib.engine) as session:
        rows = {e.document_id: _row(session, step, direction, e) for e in entries}
        for entry in entries:  # what a moved folder carries goes with it: checked before anything moves
            if entry.action in ("promote", "demote") and not entry.payload.get("top"):
                _check_scope(step, direction, rows[entry.document_id], entry)
        # Undone last step first: a scope move then a folder move (the window's "move into that folder")
        # comes back folder first.
        for entry in entries if direction == "redo" else entries[::-1]:
            row = rows[entry.document_id]
            change: dict[str, Any] = {"target": step.group}
            if entry.action in VERSIONED:
                change["version"] = _invert_version(session, step, direction, row, entry, plans[row.id],
                                                    versions.get(row.id))
            elif entry.action in ("trash", "untrash", "status"):
                _invert_status(session, step, direction, row, entry, actor)
            elif entry.action == "file":
                _invert_folder(session, step, direction, row, entry)
            elif entry.action in ("promote", "demote"):
                _invert_scope_move(session, step, direction, row, entry, actor)
            elif entry.action == "memory_type":
                _invert_memory_type(session, step, direction, row, entry)
            elif entry.action == "supersede":
                _invert_supersede(session, step, direction, row, entry, actor)
            elif entry.action == "relate":
                _invert_relate(session, step, direction, entry, actor)
            elif entry.action == "unrelate":
                _invert_unrelate(session, step, direction, entry, actor)
            audit.record_user_action(session, row, direction, marker, change, reason=step.label)
        records.bump_change_counter(session)
    return step.model_copy(update={"document_ids": list(dict.fromkeys(e.document_id for e in entries))})


def undo_group(lib: Library, group: str, actor: str | None = None) -> UndoStep:
    """Undo the action ``group`` of ``actor`` (default: the person at this computer) even when later actions
    came after it (a digest's run from its Digests view): as :func:`undo`, each document refusing when it
    changed since.

    Raises:
        NothingToUndo: no such action in the history (undone already, or older than :data:`UNDO_DEPTH`).
        UndoRefused: as :func:`undo`.
    """
    who = actor or audit.current_user()
    undoable, _ = history(lib, who)
    step = next((s for s in undoable if s.group == group), None)
    if step is None:
        raise NothingToUndo("that action is undone already, or older than the undo history")
    return _apply(lib, step, who, "undo")


def user_action(lib: Library, verb: str, document_ids: Sequence[str], *, suffix: str = "",
                actor: str | None = None) -> UserAction:
    """The :class:`UserAction` for ``verb`` on ``document_ids``, named after them (``Trash “Notes”``,
    ``Move 3 documents to Inbox``: ``UserAction.named``), by ``actor`` (default: the user at this computer).

    Raises:
        DocumentNotFound.
    """
    with read_session(lib.engine) as session:
        titles = [records.document_row(session, d).title for d in dict.fromkeys(document_ids)]
    return UserAction.named(verb, titles, actor or audit.current_user(), suffix=suffix)


def _entries(session: Session, group: str) -> list[tables.AuditRow]:
    """The audit entries of an action (not its undos and redos), in the order they were written."""
    rows = session.exec(select(tables.AuditRow).where(
        text(f"{SqlForms.of(session).text('audit_entry.payload', 'group')} = :group")).params(group=group)
        .order_by(tables.AuditRow.id)).all()  # type: ignore[arg-type]
    return list(rows)


def _latest_versions(session: Session, group: str) -> dict[str, int]:
    """Per document, the version the latest undo or redo of ``group`` left it at."""
    forms = SqlForms.of(session)
    rows = session.exec(text(
        f"SELECT document_id, {forms.text('payload', 'version')} FROM audit_entry "
        f"WHERE {forms.text('payload', 'target')} = :group ORDER BY id"), params={"group": group}).all()  # type: ignore[call-overload]
    return {doc_id: int(version) for doc_id, version in rows if version is not None}


def _plan(lib: Library, entry: tables.AuditRow, direction: str) -> RestorePlan:
    """The version an undo (the one kept before the action) or a redo (the one the undo kept) restores."""
    before, after = entry.payload["version"]
    try:
        return prepare_restore(lib, entry.document_id, before if direction == "undo" else after)
    except NotFound as error:
        raise UndoRefused(f"cannot {direction} “{entry.title}”: {error}") from None


def _refuse_on(step: UndoStep, direction: str, check: Callable[[], Any]) -> Any:
    try:
        return check()
    except (InvalidInput, NotFound) as error:
        raise UndoRefused(f"cannot {direction} {step.label}: {error}") from None


def _changed_since(step: UndoStep, direction: str, row: tables.DocumentRow, what: str) -> UndoRefused:
    return UndoRefused(f"cannot {direction} {step.label}: “{row.title}” {what} since; {direction} would overwrite "
                       "that change")


def _invert_version(session: Session, step: UndoStep, direction: str, row: tables.DocumentRow,
                    entry: tables.AuditRow, plan: RestorePlan, last: int | None) -> int:
    """Restore the version of ``plan`` if the document is still as the action (or its last undo/redo) left
    it; returns the version it is at afterwards."""
    expected = last if last is not None else entry.payload["version"][1]
    if row.version != expected and not _left_by_own(session, row, direction, step, entry.actor):
        raise _changed_since(step, direction, row, f"was changed (it is at version {row.version}, the "
                                                   f"{'action' if last is None else 'last undo or redo'} left "
                                                   f"version {expected})")
    apply_restore(session, plan)
    return row.version


def _left_by_own(session: Session, row: tables.DocumentRow, direction: str, step: UndoStep, actor: str) -> bool:
    """Whether ``row`` is as ``actor``'s own latest undo (or redo) of another action left it.

    Undoing two actions on one document in a row meets the state the first undo restored (a new
    version, not the one the earlier action left): that is the person's own stack unwinding, not someone
    else's change. Undo always takes the top of the stack, so the undo met is of an action that came
    after ``step``'s (and a redo, of one that came before it).
    """
    latest = session.exec(select(tables.AuditRow).where(tables.AuditRow.document_id == row.id)
                          .order_by(tables.AuditRow.id.desc()).limit(1)).first()  # type: ignore[union-attr]
    payload = latest.payload or {} if latest is not None else {}
    return latest is not None and latest.action == direction and latest.actor == actor and \
        payload.get("target") != step.group and payload.get("version") == row.version


def _invert_status(session: Session, step: UndoStep, direction: str, row: tables.DocumentRow,
                   entry: tables.AuditRow, actor: str) -> None:
    before, after = entry.payload["status"]
    now, wanted = (after, before) if direction == "undo" else (before, after)
    if row.status != now:
        raise _changed_since(step, direction, row, f"became {DocumentStatus(row.status).value}")
    apply_status(session, row, wanted, actor)
    if DocumentStatus.DELETED.value in (now, wanted):  # into or out of the trash: its [[links]] follow
        session.flush()
        notelinks.relink_documents(session, [row])


def _invert_memory_type(session: Session, step: UndoStep, direction: str, row: tables.DocumentRow,
                        entry: tables.AuditRow) -> None:
    """Give a note back the memory type it had before (undo) or after (redo) ``services.memories.set_memory_type``."""
    before, after = entry.payload["memory_type"]
    now, wanted = (after, before) if direction == "undo" else (before, after)
    if row.memory_type != now:
        raise _changed_since(step, direction, row, f"had its memory type changed to {row.memory_type or 'none'}")
    row.memory_type, row.updated_at = wanted, tables.utcnow()
    session.add(row)


def _invert_folder(session: Session, step: UndoStep, direction: str, row: tables.DocumentRow,
                   entry: tables.AuditRow) -> None:
    before, after = entry.payload["folder"]
    now, wanted = (after, before) if direction == "undo" else (before, after)
    if row.folder_id != now:
        raise _changed_since(step, direction, row, "was moved to another folder")
    _refuse_on(step, direction, lambda: place_in_folder(session, row, wanted))


def _invert_supersede(session: Session, step: UndoStep, direction: str, row: tables.DocumentRow,
                      entry: tables.AuditRow, actor: str) -> None:
    """An ``updates`` that archived ``row`` (a digest's merge or happened plan): undone, the edge goes and the
    row is back as it was; redone, both come again (``lifecycle.session_supersede``)."""
    before, after = entry.payload["status"]
    by = entry.payload["by"]
    if direction == "undo":
        if row.status != after or row.meta.get(lifecycle.SUPERSEDED_BY) != by:
            raise _changed_since(step, direction, row, "was restored or superseded again")
        session.exec(text("DELETE FROM relation WHERE source_id = :s AND target_id = :t AND type = :k"),
                     params={"s": by, "t": row.id, "k": lifecycle.UPDATES})  # type: ignore[call-overload]
        previous = entry.payload.get("superseded_by")
        row.meta = {**{k: v for k, v in row.meta.items() if k != lifecycle.SUPERSEDED_BY},
                    **({lifecycle.SUPERSEDED_BY: previous} if previous else {})}
        apply_status(session, row, before, actor)
        return
    if row.status != before:
        raise _changed_since(step, direction, row, f"became {DocumentStatus(row.status).value}")
    newer = session.get(tables.DocumentRow, by)
    if newer is None:
        raise UndoRefused(f"cannot redo {step.label}: {by} was deleted for good since")
    relations.session_add_edge(session, by, row.id, lifecycle.UPDATES, actor)
    lifecycle.session_supersede(session, row, newer, actor)


def _invert_relate(session: Session, step: UndoStep, direction: str, entry: tables.AuditRow, actor: str) -> None:
    """An edge the action made (a digest's ``contradicts``): undone it goes, redone it comes back."""
    source, target, kind = entry.payload["edge"]
    if direction == "undo":
        session.exec(text("DELETE FROM relation WHERE source_id = :s AND target_id = :t AND type = :k"),
                     params={"s": source, "t": target, "k": kind})  # type: ignore[call-overload]
    elif session.get(tables.DocumentRow, target) is None:
        raise UndoRefused(f"cannot redo {step.label}: {target} was deleted for good since")
    else:
        relations.session_add_edge(session, source, target, kind, actor)


def _invert_unrelate(session: Session, step: UndoStep, direction: str, entry: tables.AuditRow, actor: str) -> None:
    """An edge the action removed (an atom taken out of a topic, ``services.topics``): undone it comes back,
    redone it goes again. The inverse of :func:`_invert_relate`."""
    _invert_relate(session, step, "redo" if direction == "undo" else "undo", entry, actor)


def _row(session: Session, step: UndoStep, direction: str, entry: tables.AuditRow) -> tables.DocumentRow:
    row = session.get(tables.DocumentRow, entry.document_id)
    if row is None:
        raise UndoRefused(f"cannot {direction} {step.label}: “{entry.title}” was deleted for good or merged since")
    return row


def _check_scope(step: UndoStep, direction: str, row: tables.DocumentRow, entry: tables.AuditRow) -> str:
    """The scope a scope move's document goes to, if it is still where the move (or its undo) left it."""
    now, wanted = (entry.to_scope, entry.from_scope) if direction == "undo" else (entry.from_scope, entry.to_scope)
    if row.scope_path != now:
        raise _changed_since(step, direction, row, f"was moved to {row.scope_path}")
    return wanted  # type: ignore[return-value]


def _invert_scope_move(session: Session, step: UndoStep, direction: str, row: tables.DocumentRow,
                       entry: tables.AuditRow, actor: str) -> None:
    """Move a document of a scope move back (its folder's contents, a topic's subtree go along with it), into the
    folder it left when that folder is still there; a topic under the parent it left, with its pins as they were."""
    if not entry.payload.get("top"):
        return  # it moved with its folder (checked before)
    wanted = _check_scope(step, direction, row, entry)
    topic = entry.payload.get("topic")  # a topic's parent and pins before and after (``moves._hang``)
    side = 0 if direction == "undo" else 1
    place = (topic["parent"][side], topic["pinned"][side]) if topic else None
    # The topics the step moved go back together: an atom in two of them keeps both edges.
    along = [e.document_id for e in _entries(session, step.group) if e.payload.get("top") and e.payload.get("topic")]
    _refuse_on(step, direction, lambda: move_in_session(session, row.id, wanted, actor=actor,  # type: ignore[arg-type]
                                                        reason=f"{direction}: {step.label}", topic_place=place,
                                                        along=along))
    folder = entry.payload["folder"][0 if direction == "undo" else 1]
    target = session.get(tables.DocumentRow, folder) if folder else None
    if folder is None or (target is not None and target.scope_path == wanted
                          and target.status == DocumentStatus.ACTIVE.value):
        place_in_folder(session, row, folder)
