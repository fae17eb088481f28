"""Moving documents between scopes along one branch of the tree: promotion and demotion (seed §4.3).

A move keeps the document's id, versions, tags and relations, and carries its vectors to the target
scope's collection without re-embedding (a ``move`` job the index writer runs). The rows change scope,
the job is queued and the audit entry is written in one transaction: a document is never visible in
two scopes, and after a crash at any moment it is in exactly one scope, with its vectors following
when the writer next drains (the job is idempotent).

A topic moves with its subtree: its descendant topics and the atoms in them go along, and it hangs under the target
tree's root (``services.topics``' note, "Promotion"); a tree's root stays with its scope.

A think process's result promoted above its think process lands in ``Results/Think-Process: <name>/``
of the target scope (seed §3.2); demoted back into its think process, in that scope's ``Results``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from sqlalchemy import text
from sqlmodel import Session, select

from ..core.documents import DocumentInfo, DocumentStatus, DocumentType, SourceType
from ..core.errors import InvalidInput, ScopeError
from ..core.promotion import VisibilityChange
from ..core.relations import RelationType
from ..core.topics import TOPIC_KEY, topic_fields
from ..core.undo import UserAction
from ..store import tables
from ..store.db import read_session, write_session
from ..store.tables import utcnow
from . import audit, notelinks, records, topics
from .folders import RESULTS_FOLDER, ensure_folder, with_contents
from .library import Library
from .scopes import ancestry, resolve_relative, session_ancestry, subtree

Direction = Literal["up", "down"]


def move_to_scope(lib: Library, document_id: str, target: str, direction: Direction | None = None, *,
                  actor: str | None = None, reason: str = "") -> list[DocumentInfo]:
    """Promote or demote a document (a folder: with everything inside it; a topic: with its subtree) to ``target``.

    Args:
        target: a full scope path, or a kind (``project``) meaning that ancestor of the document's scope.
        direction: ``"up"`` (promotion: the target must be an ancestor), ``"down"`` (demotion: a
            descendant), or None for either.
        actor: who moves it, for the audit trail (default: the user at this computer).
        reason: why, for the audit trail.

    Returns:
        Every document moved (empty when it is in ``target`` already).

    Raises:
        DocumentNotFound. ScopeNotFound. ScopeError: the target is on another branch of the tree
        (neither an ancestor nor a descendant of the document's scope), or against ``direction``.
    """
    return move_documents(lib, [document_id], target, direction, actor=actor, reason=reason)


def move_documents(lib: Library, document_ids: Sequence[str], target: str, direction: Direction | None = None, *,
                   actor: str | None = None, reason: str = "",
                   user_action: UserAction | None = None) -> list[DocumentInfo]:
    """Move several documents (a selection; folders with their contents) to ``target``, all or none.

    Every document is checked before anything moves; then all move in one transaction. A document
    inside a folder that is moved too goes along with its folder, a topic or an atom under a topic moved too
    with that topic. With ``user_action`` (a move by hand;
    its actor is the mover) the move is recorded for undo (``audit.record_user_action``).

    Returns / Raises: as :func:`move_to_scope`.
    """
    who = user_action.actor if user_action else actor or audit.current_user()
    with read_session(lib.engine) as session:
        rows = [records.document_row(session, d) for d in dict.fromkeys(document_ids)]
        # Topics first, each before the topics below it: a topic carries its subtree and the atoms in it, so that
        # a topic or an atom it carries that is selected too goes along with it (not alone, out of its topics).
        rows.sort(key=lambda r: (0, len(topics.session_ancestors(session, r))) if r.type == DocumentType.TOPIC.value
                  else (1, 0))
        sources = {r.id: r.scope_path for r in rows}
    plan = {d: check_move(lib, source, target, direction) for d, source in sources.items()}
    with write_session(lib.engine) as session:
        moved: list[str] = []
        for doc_id, target_path in plan.items():
            if doc_id not in moved:
                moved += move_in_session(session, doc_id, target_path, actor=who, reason=reason,
                                         user_action=user_action, along=list(plan))
        if moved:
            records.bump_change_counter(session)
        session.flush()
        # A folder merged into its namesake in the target is gone: its contents are reported.
        return [records.info(lib, session, i) for i in moved if session.get(tables.DocumentRow, i) is not None]


def check_move(lib: Library, source: str, target: str, direction: Direction | None = None) -> str:
    """Resolve ``target`` from ``source`` and check that a document may move there; returns its path.

    Raises:
        ScopeNotFound. ScopeError: another branch of the tree, or against ``direction``.
    """
    target_path = resolve_relative(lib, source, target)
    if target_path == source:
        return target_path
    upward = target_path in ancestry(lib, source)
    if not upward and source not in ancestry(lib, target_path):
        raise ScopeError(
            f"{target_path} is not on the branch of {source}: documents move only up to an ancestor "
            "(promote) or down to a descendant (demote)"
        )
    if direction == "up" and not upward:
        raise ScopeError(f"{target_path} is below {source}: that is a demotion, not a promotion")
    if direction == "down" and upward:
        raise ScopeError(f"{target_path} is above {source}: that is a promotion, not a demotion")
    return target_path


def move_in_session(session: Session, document_id: str, target_path: str, *, actor: str, reason: str = "",
                    request_id: str | None = None, user_action: UserAction | None = None,
                    topic_place: TopicPlace | None = None, along: Sequence[str] = ()) -> list[str]:
    """Move one document (with a folder's contents, a topic's subtree) to ``target_path`` inside the caller's
    transaction.

    The target must have been checked (:func:`check_move`). Pending promotion requests of the moved
    documents whose target is still above them stay pending; the others are withdrawn, except
    ``request_id`` (the request this move carries out). A think process's ``Results`` folder promoted
    files each result in its landing folder (:func:`_landing_folder`); a folder meeting a namesake merges.
    With ``user_action`` the audit entries also say what undo needs (the document's folder before and
    after, a topic's parent and pins before and after; ``audit.record_user_action``).

    A topic moves with its subtree (:func:`_topic_subtree`, the module's note): by default it hangs under the
    target tree's root (made when the target has no tree), its ``parent`` pinned; ``topic_place`` says where
    instead (undo's way back: the parent and pins it had). ``along``: the other documents moving to the same target
    in this transaction (a selection, an undo step): an atom's edges to the topics among them, and to the topics
    below those, are kept, since those topics come along too.

    Returns:
        The ids moved, the document first; empty when it is in ``target_path`` already.

    Raises:
        DocumentNotFound. InvalidInput: the document is in the trash; a tree's root (``topics.check_movable``);
        ``topic_place``'s parent not a live topic of the target's tree (``topics.InvalidTopic``).
    """
    top = records.document_row(session, document_id)
    source = top.scope_path
    if source == target_path:
        return []
    if top.status == DocumentStatus.DELETED.value:
        raise InvalidInput(f"{document_id} is in the trash: restore it before moving it")
    if top.type == DocumentType.MESSAGE.value:
        raise InvalidInput(f"{document_id} is a message of {source}'s conversation: it stays there (promote its "
                           "compaction summary, or store what matters as a memory)")
    upward = target_path in session_ancestry(session, source)
    action = "promote" if upward else "demote"
    left_folder = top.folder_id
    is_topic = top.type == DocumentType.TOPIC.value
    if is_topic:
        topics.check_movable(top)
        ids = _topic_subtree(session, top)
        coming = {t.id for r in records.document_rows(session, [a for a in along if a != top.id])
                  if r.type == DocumentType.TOPIC.value and r.scope_path == source
                  for t in topics.session_descendants(session, r)}
        # The target's root is made first, so that undo (last entry first) trashes it after the subtree left it.
        place = topic_place or (topics.session_ensure_root(session, target_path, user_action).id,
                                list(dict.fromkeys([*(topic_fields(top.meta).get("pinned") or []), "parent"])))
    else:
        ids = with_contents(session, document_id)
        coming = set()
    for doc_id in ids:
        row = top if doc_id == document_id else records.document_row(session, doc_id)
        previous = row.scope_path
        row.scope_path = target_path
        row.updated_at = utcnow()
        if row.type not in _NO_VECTORS:
            records.enqueue(session, doc_id, "move", **{"from": previous})
        if user_action is None:
            audit.record(session, row, action, actor=actor, from_scope=previous, to_scope=target_path,
                         reason=reason, request_id=request_id)
        elif doc_id != document_id:
            audit.record_user_action(session, row, action, user_action, {"top": False}, from_scope=previous,
                                     to_scope=target_path, reason=reason)
        records.withdraw_requests(session, row, actor, keep=request_id, moved_to=target_path,
                                  why=f"{action}d by hand to {target_path}")
        _leave_topics(session, row, previous, actor, user_action, coming)
        session.add(row)
    session.flush()
    # Its folder stays behind in the source scope; a result goes to its think process's folder.
    top.folder_id = _landing_folder(session, top, target_path)
    change: dict[str, object] = {"top": True, "folder": [left_folder, top.folder_id]}
    if is_topic:
        change["topic"] = _hang(session, top, place)
    session.add(top)
    if user_action is not None:
        audit.record_user_action(session, top, action, user_action, change,
                                 from_scope=source, to_scope=target_path, reason=reason)
    session.flush()
    if top.type == DocumentType.FOLDER.value:
        if upward and top.title == RESULTS_FOLDER:
            _file_results(session, top, target_path)
        if session.get(tables.DocumentRow, top.id) is not None:
            _merge_with_namesake(session, top)
    _drop_empty_landing_folders(session, left_folder)
    # In its new scope a document answers other [[links]] and its own links resolve from there.
    notelinks.relink_documents(session, [r for i in ids if (r := session.get(tables.DocumentRow, i)) is not None])
    return ids


TopicPlace = tuple[str, list[str]]
"""Where a moved topic hangs in its new scope's tree: its parent topic's id and its ``pinned`` fields."""

_NO_VECTORS = (DocumentType.FOLDER.value, DocumentType.TOPIC.value)
"""Structural documents: no chunks or vectors to carry to the target's collection."""


def topic_carries(lib: Library, topic_id: str) -> tuple[int, int]:
    """What a move of topic ``topic_id`` carries along (the confirmation says it): how many topics below it and how
    many atoms in it and them (:func:`_topic_subtree`, whatever their status)."""
    with read_session(lib.engine) as session:
        top = records.document_row(session, topic_id)
        carried = _topic_subtree(session, top)
        below = len(topics.session_descendants(session, top)) - 1  # they come first, after the topic itself
    return below, len(carried) - 1 - below


def _topic_subtree(session: Session, top: tables.DocumentRow) -> list[str]:
    """What a topic's move carries (``services.topics``' note, "Promotion"): the topic, its live descendant topics,
    then the atoms of its scope in any of them, whatever their status (an archived or trashed atom keeps its edges,
    so that a restore puts it back where it was: it goes along to stay in its topic). Topics come first: an atom's
    edges to topics left behind are told from those to moving topics by their scope once the topics have moved."""
    subtree = [t.id for t in topics.session_descendants(session, top)]
    held = topics.members(session, subtree, statuses=tuple(s.value for s in DocumentStatus))
    atoms = dict.fromkeys(a for t in subtree for a in held.get(t, []))
    return [*subtree, *(r.id for r in records.document_rows(session, list(atoms)) if r.scope_path == top.scope_path)]


def _hang(session: Session, top: tables.DocumentRow, place: TopicPlace) -> dict[str, list[object]]:
    """Hang a moved topic (already in its new scope) from ``place``'s parent with ``place``'s pins; returns the
    parent and pins before and after, for undo. Its place in the tree is like a document's folder: the move's audit
    entry records it, no version is kept. Raises InvalidTopic: the parent is not a live topic of the new tree."""
    fields = topic_fields(top.meta)
    parent, pinned = place
    topics.session_check_parent(session, top, parent)
    top.meta = {**top.meta, TOPIC_KEY: {**fields, "parent": parent, "pinned": list(pinned)}}
    return {"parent": [fields.get("parent"), parent], "pinned": [list(fields.get("pinned") or []), list(pinned)]}


def _leave_topics(session: Session, row: tables.DocumentRow, left: str, actor: str,
                  user_action: UserAction | None, coming: set[str]) -> None:
    """A document that moves scope leaves the topic tree of the scope it left (``services.topics``' note): an
    atom's ``in_topic`` edges to that scope's topics go (those to the topics moving with it have changed scope
    already; those to the topics of ``coming`` stay, as those move next), recorded as ``unrelate`` of a move by
    hand (so that undoing the move puts them back) or as plain audit entries otherwise. The new scope's digest
    places an atom moved alone."""
    session.flush()  # the scopes of the topics moved so far
    edges = session.exec(text(
        "SELECT r.target_id FROM relation r JOIN document t ON t.id = r.target_id "
        "WHERE r.source_id = :s AND r.type = :k AND t.scope_path = :left"),
        params={"s": row.id, "k": RelationType.IN_TOPIC.value, "left": left}).all()  # type: ignore[call-overload]
    for (topic_id,) in edges:
        if topic_id in coming:
            continue
        session.exec(text("DELETE FROM relation WHERE source_id = :s AND target_id = :t AND type = :k"),
                     params={"s": row.id, "t": topic_id, "k": RelationType.IN_TOPIC.value})  # type: ignore[call-overload]
        change = {"edge": [row.id, topic_id, RelationType.IN_TOPIC.value]}
        why = f"left the topic tree of {left}"
        if user_action is not None:
            audit.record_user_action(session, row, "unrelate", user_action, change, reason=why)
        else:
            audit.record(session, row, "unrelate", actor=actor, reason=why, payload=change)


def _file_results(session: Session, folder: tables.DocumentRow, target_path: str) -> None:
    """A think process's ``Results`` folder promoted: each result in it goes to its think process's
    landing folder of the target, like a result promoted alone; the folder goes once it is empty."""
    for child in session.exec(select(tables.DocumentRow).where(tables.DocumentRow.folder_id == folder.id)).all():
        landing = _landing_folder(session, child, target_path)
        if landing is not None:
            child.folder_id = landing
            session.add(child)
    session.flush()
    if not _has_children(session, folder):
        session.delete(folder)
        session.flush()


def _merge_with_namesake(session: Session, folder: tables.DocumentRow) -> None:
    """A moved folder meeting a folder of the same name at the same place is merged into it (a file
    manager's "merge"): its contents go into the one already there, recursively, and it is deleted."""
    existing = _named_folder(session, folder.scope_path, folder.title, folder.folder_id, other_than=folder.id)
    if existing is None:
        return
    for child in session.exec(select(tables.DocumentRow).where(tables.DocumentRow.folder_id == folder.id)).all():
        child.folder_id = existing.id
        session.add(child)
        session.flush()
        if child.type == DocumentType.FOLDER.value:
            _merge_with_namesake(session, child)
    session.delete(folder)
    session.flush()


def _named_folder(session: Session, scope: str, title: str, parent_id: str | None, *,
                  other_than: str) -> tables.DocumentRow | None:
    return session.exec(select(tables.DocumentRow).where(
        tables.DocumentRow.scope_path == scope, tables.DocumentRow.type == DocumentType.FOLDER.value,
        tables.DocumentRow.title == title, tables.DocumentRow.folder_id == parent_id,
        tables.DocumentRow.status == DocumentStatus.ACTIVE.value, tables.DocumentRow.id != other_than,
    )).first()


def _drop_empty_landing_folders(session: Session, folder_id: str | None) -> None:
    """Delete a ``Results/Think-Process: <name>/`` folder (and then ``Results``) that a move left empty.

    Those folders are made by promotion (:func:`_landing_folder`); a folder the user made stays.
    """
    folder = session.get(tables.DocumentRow, folder_id) if folder_id else None
    if folder is None or not folder.title.startswith(_LANDING_PREFIX) or folder.folder_id is None:
        return
    parent = session.get(tables.DocumentRow, folder.folder_id)
    if parent is None or parent.title != RESULTS_FOLDER or parent.folder_id is not None:
        return
    for candidate in (folder, parent):
        if _has_children(session, candidate):
            return
        session.delete(candidate)
        session.flush()


def _has_children(session: Session, folder: tables.DocumentRow) -> bool:
    return session.exec(select(tables.DocumentRow.id).where(tables.DocumentRow.folder_id == folder.id)).first() \
        is not None


_LANDING_PREFIX = "Think-Process: "


def _landing_folder(session: Session, row: tables.DocumentRow, target_path: str) -> str | None:
    """Where a moved document lands in ``target_path``: a think process's result (stored as its node's
    result, or any document of type result it wrote) in that think process's folder, else the top."""
    is_result = row.source_type == SourceType.THINK_PROCESS_RESULT.value or row.type == DocumentType.RESULT.value
    if not is_result or not row.source_think_process:
        return None
    tp_path = f"think-process/{row.source_think_process}"
    if target_path == tp_path:
        return ensure_folder(session, target_path, RESULTS_FOLDER, None).id
    tp = session.get(tables.ScopeRow, tp_path)
    if tp is None or target_path not in session_ancestry(session, tp_path):
        return None
    results = ensure_folder(session, target_path, RESULTS_FOLDER, None)
    return ensure_folder(session, target_path, f"{_LANDING_PREFIX}{tp.name}", results.id).id


def visibility_change(lib: Library, document_ids: Sequence[str], target: str) -> VisibilityChange:
    """Which scopes will see the documents after a move to ``target``, and which will stop seeing them.

    A document in scope S is seen by S and every scope below it (seed §4.2), so a move from S to T
    gains ``subtree(T) - subtree(S)`` and loses ``subtree(S) - subtree(T)``. Shares by id are left out.
    With documents from several scopes, the union over their sources.

    Raises:
        DocumentNotFound. ScopeNotFound / ScopeError: as :func:`check_move`. InvalidTopic: a tree's root (as the
        move would: ``topics.check_movable``), so that a confirmation shows the refusal before asking.
    """
    with read_session(lib.engine) as session:
        rows = [records.document_row(session, d) for d in document_ids]
        for row in rows:
            topics.check_movable(row)
        sources = sorted({r.scope_path for r in rows})
    if not sources:
        raise InvalidInput("no documents to move")
    target_path = check_move(lib, sources[0], target)
    after = subtree(lib, target_path)
    gains: list[str] = []
    loses: list[str] = []
    sources = [s for s in sources if s != target_path] or [target_path]  # those already there do not move
    for source in sources:
        check_move(lib, source, target_path)
        before = subtree(lib, source)
        gains += [s for s in after if s not in before and s not in gains]
        loses += [s for s in before if s not in after and s not in loses]
    return VisibilityChange(source_scope=", ".join(sources), target_scope=target_path, gains=gains, loses=loses)
