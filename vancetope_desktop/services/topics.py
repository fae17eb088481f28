"""Topic trees in the library (issue 14, ``core.topics``): reading them, the digest's writes, a person's hand edits.

**Storage.** A topic is a document of type ``topic`` in its tree's scope (status ``active``, ``not_indexed``: no
chunks, no vectors); its title is the label, its content the summary, its metadata ``core.topics.TOPIC_KEY``
the parent, surface, centroid, pins and origin. Membership is an ``in_topic`` edge atom → topic, read through
the relation table's target index (:func:`members`). A retired topic is in the trash (status ``deleted``), so
that an undo brings it back with its edges; emptying the trash purges it for good (the trash view does not list
topics: ``services.documents`` leaves them out of every list).

**Reads** (:func:`get_tree`, :func:`visible_trees`, :func:`topic_atoms`, :func:`topic_sources`,
:func:`atom_paths`, :func:`members`) count live atoms only (``active`` and ``stale``: what ``atoms.list_atoms``
lists); an archived or trashed atom keeps its edges, so that a restore puts it back where it was.

**The digest's writes** (``session_*``) run inside the caller's ``write_session`` and record undo entries under
the caller's ``UserAction`` (``audit.record_user_action``), so a whole digest run stays one undo step:

* a topic made: ``status`` deleted → active (undo puts it in the trash, as the digest's writeup);
* a topic changed (label, summary, surface, centroid, parent, root fields): a version kept, then ``edit``
  (undo restores the version). A topic made or already changed by the same action is not snapshotted again:
  undo restores each document once, to its state before the action;
* a topic retired: ``status`` active → deleted;
* a membership added: ``relate``; removed: ``unrelate`` (``services.undo`` puts the edge back).

**Hand edits** (:func:`rename_topic`, :func:`move_topic`, :func:`merge_topics`, :func:`split_topic`,
:func:`move_atom`, :func:`create_topic`, :func:`delete_topic`) are each one transaction and, given a
``UserAction`` (the app and the CLI give one; the agent tools none, as for every tool call), one undo step. Each
**pins** what it set (``TOPIC_KEY["pinned"]``, ``["pinned_atoms"]``) so that the digest keeps it:

* rename: ``label``; move: ``parent``; create: ``label`` and ``parent``;
* merge: the children moved to the kept topic have ``parent`` pinned, the atoms moved to it are pinned there;
* split: the new topics have ``label`` and ``parent`` pinned, and hold their atoms pinned;
* move an atom: pinned in the topic it goes to (and unpinned from the ones it leaves);
* delete: the children go to the parent with ``parent`` pinned; the atoms go to the parent unpinned (the person
  said where the topic should not be, not where each atom belongs: the digest may place them further down).

**Promotion** (``services.moves``). A topic moves to another scope (promoted or demoted, by hand or by approving a
promotion request in the review queue) as a folder does with its contents, in one transaction (and, by hand, one
undo step): the topic, its live descendant topics and the atoms of its scope in any of them (archived and trashed
ones too, whose edges are kept for a restore) change scope; the subtree keeps its labels, surfaces, centroids, pins
and the atoms' edges inside it (same documents, new scope) and hangs under the target tree's root
(:func:`session_ensure_root` makes one, as the digest's first build would, when the target has no tree), with its
``parent`` pinned there so that the target's digest, cold or consolidated, keeps it where it was put. An atom of the
subtree **also in a topic left behind moves** with the subtree (a document is in one scope; the scopes below the
target still see it) and its edge to the topic left behind is removed (an ``unrelate`` that undo puts back; the
topic left behind is revised by its scope's next digest); topics moved together (a selection, in one transaction)
keep an atom they share, and a selected topic or atom below a selected topic goes along with it. A tree's **root
is refused** (:func:`check_movable`): it stands for its scope's tree, named after the scope and holding its
``consolidated`` mark, and a scope keeps its tree; moving every child of the root together moves the tree's whole
content. Undo moves the subtree back under the parent it left with the pins it had, puts the removed edges back and
trashes a root the move made.

An atom moved alone leaves the tree of the scope it left in the same transaction: its ``in_topic`` edges to that
scope's topics are removed (recorded as ``unrelate`` entries of a move by hand, so that undoing the move puts them
back). The new scope's digest places it in that scope's tree; until then it counts as unplaced there.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict
from sqlalchemy import text
from sqlmodel import Session, select

from ..core.atoms import ATOM_KEY, SOURCE_KEY, Atom, AtomType
from ..core.documents import DocumentStatus, DocumentType, IndexState
from ..core.errors import DocumentNotFound, InvalidInput
from ..core.ids import new_document_id
from ..core.relations import RelationType
from ..core.topics import PINNABLE, TOPIC_KEY, Topic, TopicTree, decode_vector, encode_vector, topic_fields
from ..core.undo import UserAction
from ..index.topic_groups import split_members
from ..store import tables
from ..store.blobs import hash_text
from ..store.db import read_session, write_session
from ..store.dialect_sql import SqlForms
from ..store.tables import utcnow
from . import audit, records, relations
from .library import Library
from .scopes import resolve_scope, visible_scopes
from .sharing import check_read, check_write

IN_TOPIC = RelationType.IN_TOPIC.value
TOPIC = DocumentType.TOPIC.value
LIVE = (DocumentStatus.ACTIVE.value, DocumentStatus.STALE.value)
"""The atom statuses a tree counts and lists (``atoms.LISTED_STATUSES``)."""
ATOM_TYPES = tuple(t.value for t in AtomType)
ORIGINS = ("cold", "attach", "split", "merge", "person")
"""How a topic was made (``core.topics``: ``origin``)."""
SURFACE_WORDS = 5
"""Keywords kept as the surface of a topic a split makes (the best first is its label): a handful routes a query
without drowning the label's own words (the digest revises the surface later unless a person pinned it)."""
MAX_LABEL = 80
"""The longest label kept, in characters: a document title's limit (``services.documents``). A label a person
types that is longer is refused (:func:`hand_label`); one the digest makes is cut."""
PATH_MARK = "›"
"""What separates the labels of a topic's path ("Birds › Herons", ``topic_search.CRUMB``): refused in a label,
which would otherwise read as a deeper path."""


class TopicRow(NamedTuple):
    """A topic's columns as the readers need them (:func:`_read_rows`)."""

    id: str
    scope_path: str
    title: str
    content: str | None
    meta: dict[str, Any]
    updated_at: datetime | None


class InvalidTopic(InvalidInput):
    """A topic edit that cannot be made as asked: a topic of another tree, the root renamed, moved or deleted, a
    move below itself, a blank label, an atom that is not in the tree's scope. Exit code 2."""


class VisibleTree(BaseModel):
    """A tree a scope searches: its own (distance 0) or an ancestor's (1, 2…), with the scope's search weight
    (``scopes.visible_scopes``: seed 000's proximity)."""

    model_config = ConfigDict(frozen=True)

    scope: str
    distance: int
    weight: float
    tree: TopicTree


class TopicSource(BaseModel):
    """A source some of a topic's atoms were read from: its id, title and how many of those atoms (``gone``: it
    was purged; the atoms keep its id)."""

    model_config = ConfigDict(frozen=True)

    document_id: str
    title: str
    atoms: int
    gone: bool = False


# --- Reads.

def get_tree(lib: Library, scope: str | None = None, *, counts: bool = True) -> TopicTree:
    """``scope``'s own tree (default: the current scope); an empty ``TopicTree`` (``root_id`` None) when it has none.

    Args:
        counts: count each topic's live atoms and the scope's unplaced ones (one query over the membership
            edges of the tree); False leaves every count 0, for a reader that only routes (beam search).

    Raises:
        ScopeNotFound.
    """
    scope_path = resolve_scope(lib, scope)
    with read_session(lib.engine) as session:
        return session_tree(session, scope_path, counts=counts)


def session_tree(session: Session, scope_path: str, *, counts: bool = True) -> TopicTree:
    """:func:`get_tree` inside the caller's session (the digest reads the tree it is about to change)."""
    rows = _read_rows(session, scope_path)
    root = _root_of(rows)
    if root is None:
        return TopicTree(scope=scope_path, unplaced=_unplaced(session, scope_path) if counts else 0)
    children: dict[str, list[TopicRow]] = {}
    for row in rows:
        parent = topic_fields(row.meta).get("parent")
        if row.id != root.id and isinstance(parent, str):
            children.setdefault(parent, []).append(row)
    ordered: list[tuple[TopicRow, int, list[str]]] = []
    seen: set[str] = set()
    stack: list[tuple[TopicRow, int, list[str]]] = [(root, 0, [])]
    while stack:  # depth first in label order, without recursion (a deep damaged chain must not overflow)
        row, depth, path = stack.pop()
        if row.id in seen:  # a damaged parent loop is walked once
            continue
        seen.add(row.id)
        ordered.append((row, depth, path))
        below = sorted(children.get(row.id, []), key=lambda r: (r.title.casefold(), r.id))
        stack.extend((child, depth + 1, [*path, child.title]) for child in reversed(below))
    ids = [row.id for row, _, _ in ordered]
    own = members(session, ids) if counts else {}
    subtree: dict[str, set[str]] = {}
    for row, _, _ in reversed(ordered):  # children before parents
        found = set(own.get(row.id, ()))
        for child in children.get(row.id, []):
            found |= subtree.get(child.id, set())
        subtree[row.id] = found
    topics = [_topic(row, depth, path, len(own.get(row.id, ())), len(subtree[row.id]),
                     [c.id for c in sorted(children.get(row.id, []), key=lambda r: (r.title.casefold(), r.id))])
              for row, depth, path in ordered]
    fields = topic_fields(root.meta)
    placed = subtree[root.id]
    return TopicTree(scope=scope_path, root_id=root.id, consolidated=bool(fields.get("consolidated")), topics=topics,
                     atoms=len(placed), unplaced=_unplaced(session, scope_path) if counts else 0,
                     built_at=_moment(fields.get("built_at")))


def get_topic(lib: Library, topic_id: str, *, acting_scope: str | None = None) -> Topic:
    """One live topic as its tree shows it (path, counts, children).

    Raises:
        DocumentNotFound: no such topic (not a topic, or deleted). ScopeNotVisible: ``acting_scope`` may not read it.
    """
    with read_session(lib.engine) as session:
        row = _topic_row(session, topic_id)
        _check_read(lib, session, row, acting_scope)
    return _shown(lib, row.scope_path, row.id)


def visible_trees(lib: Library, scope: str | None = None, *, counts: bool = False) -> list[VisibleTree]:
    """The trees ``scope`` searches: its own and its ancestors' (and the agent's that runs it), nearest first,
    each with its distance and search weight; scopes without a tree are left out. A sibling think process's
    results (``results_only``) bring no tree: only its results are visible, not its memory.

    Args:
        counts: as :func:`get_tree` (default off: search routes by words and centroids, not counts).

    Raises:
        ScopeNotFound.
    """
    scope_path = resolve_scope(lib, scope)
    seen = [v for v in visible_scopes(lib, scope_path) if not v.results_only]
    found = []
    with read_session(lib.engine) as session:
        for visible in seen:
            tree = session_tree(session, visible.path, counts=counts)
            if tree.root_id is not None:
                found.append(VisibleTree(scope=visible.path, distance=visible.distance, weight=visible.weight,
                                         tree=tree))
    return found


def centroids(lib: Library, topic_ids: Iterable[str]) -> dict[str, np.ndarray]:
    """Topic id → its centroid (float32, unit length as the digest stored it), for the topics that have one."""
    ids = list(dict.fromkeys(topic_ids))
    with read_session(lib.engine) as session:
        rows = records.document_rows(session, [i for i in ids if session.get(tables.DocumentRow, i) is not None])
    found = {row.id: decode_vector(topic_fields(row.meta).get("centroid")) for row in rows if row.type == TOPIC}
    return {k: v for k, v in found.items() if v is not None}


def members(session: Session, topic_ids: Iterable[str], statuses: Sequence[str] = LIVE) -> dict[str, list[str]]:
    """Topic id → the live atoms attached to it directly (not its subtree's; in no set order), for each of
    ``topic_ids`` that has any: one query per 500 topics through the relation table's target index (search
    restricts its candidates to these). Runs in the caller's session. ``statuses``: the atom statuses counted
    (default :data:`LIVE`; a topic's promotion takes its archived and trashed atoms along too). 100,000 memberships
    under 1,100 topics read in 1.5 s (the shared 2-core machine at load 6; sorting them by the atoms' age doubled it:
    callers that show them sort the few they show)."""
    ids = list(dict.fromkeys(topic_ids))
    found: dict[str, list[str]] = {}
    for start in range(0, len(ids), 500):
        forms = SqlForms.of(session)
        rows = session.exec(text(
            "SELECT r.target_id, r.source_id FROM relation r JOIN document d ON d.id = r.source_id "
            f"WHERE r.type = :t AND r.target_id IN ({forms.rows('ids')}) AND d.status IN ({forms.rows('live')})"),
            params={"t": IN_TOPIC, "ids": json.dumps(ids[start:start + 500]),
                    "live": json.dumps(list(statuses))}).all()  # type: ignore[call-overload]
        for topic_id, atom_id in rows:
            found.setdefault(topic_id, []).append(atom_id)
    return found


def topic_atoms(lib: Library, topic_id: str, *, recursive: bool = False,
                acting_scope: str | None = None) -> list[Atom]:
    """The live atoms of a topic (``recursive``: of its whole subtree, each once), oldest first, as atom cards.

    Raises:
        DocumentNotFound: no such topic (or not a topic). ScopeNotVisible: ``acting_scope`` may not read it.
    """
    with read_session(lib.engine) as session:
        row = _topic_row(session, topic_id)
        _check_read(lib, session, row, acting_scope)
        rows = records.document_rows(session, _subtree_atoms(session, row, recursive))
        infos = [records.to_info(lib, r, []) for r in sorted(rows, key=lambda r: (r.created_at, r.id))]
    return records.atom_cards(lib, infos)


def topic_sources(lib: Library, topic_id: str, *, recursive: bool = True,
                  acting_scope: str | None = None) -> list[TopicSource]:
    """The sources the atoms of a topic (with ``recursive``, of its subtree) were read from, most atoms first,
    then by title; atoms written directly have no source and are not counted.

    Raises:
        DocumentNotFound. ScopeNotVisible.
    """
    with read_session(lib.engine) as session:
        row = _topic_row(session, topic_id)
        _check_read(lib, session, row, acting_scope)
        counted: dict[str, int] = {}
        for atom in records.document_rows(session, _subtree_atoms(session, row, recursive)):
            source = (atom.meta.get(ATOM_KEY) or {}).get(SOURCE_KEY) if isinstance(atom.meta.get(ATOM_KEY), dict) \
                else None
            if isinstance(source, str):
                counted[source] = counted.get(source, 0) + 1
        titles = {r.id: r.title for r in session.exec(select(tables.DocumentRow).where(
            tables.DocumentRow.id.in_(list(counted)))).all()}  # type: ignore[attr-defined]
    found = [TopicSource(document_id=i, title=titles.get(i, i), atoms=n, gone=i not in titles)
             for i, n in counted.items()]
    return sorted(found, key=lambda s: (-s.atoms, s.title.casefold(), s.document_id))


def atom_paths(lib: Library, atom_ids: Iterable[str]) -> dict[str, list[list[str]]]:
    """Atom id → the label paths (breadcrumbs, from the root's child down, the root left out) of every live topic
    it is in, sorted; an atom in no topic maps to an empty list. Ids of no document map to an empty list too."""
    with read_session(lib.engine) as session:
        return session_atom_paths(session, atom_ids)


def session_atom_paths(session: Session, atom_ids: Iterable[str]) -> dict[str, list[list[str]]]:
    """:func:`atom_paths` inside the caller's session (search's explanations)."""
    ids = list(dict.fromkeys(atom_ids))
    found: dict[str, list[list[str]]] = {i: [] for i in ids}
    if not ids:
        return found
    edges = session.exec(text(
        "SELECT r.source_id, r.target_id FROM relation r JOIN document t ON t.id = r.target_id "
        f"WHERE r.type = :t AND r.source_id IN ({SqlForms.of(session).rows('ids')}) AND t.status = :active"),
        params={"t": IN_TOPIC, "ids": json.dumps(ids), "active": DocumentStatus.ACTIVE.value}).all()  # type: ignore[call-overload]
    paths: dict[str, list[str]] = {}
    for atom_id, topic_id in edges:
        if topic_id not in paths:
            paths[topic_id] = _label_path(session, topic_id)
        found[atom_id].append(paths[topic_id])
    for value in found.values():
        value.sort()
    return found


# --- The digest's writes, inside the caller's write transaction.

def session_create_topic(session: Session, action: UserAction | None, *, scope_path: str, label: str,
                         parent_id: str | None, summary: str = "", surface: Sequence[str] = (),
                         centroid: np.ndarray | str | None = None, origin: str = "cold",
                         pinned: Sequence[str] = (), pinned_atoms: Sequence[str] = (),
                         root_fields: dict[str, Any] | None = None, worded: int | None = None,
                         reason: str = "") -> tables.DocumentRow:
    """Make one topic (``parent_id`` None: the tree's root) in ``scope_path``; recorded as ``status`` deleted →
    active under ``action`` (None: not recorded, an agent's tool call).

    Args:
        label: its name (blank refused; cut to :data:`MAX_LABEL`). summary: a sentence or two.
        surface: its routing keywords, best first. centroid: a vector (stored with ``encode_vector``) or text
            already encoded. origin: one of :data:`ORIGINS`. pinned: fields of ``core.topics.PINNABLE``.
        root_fields: the root's own fields (``consolidated``, ``built_at``, ``atoms``); only with no parent.
        worded: the atoms its surface was made from (``core.topics``' ``worded``; the digest's plans say it).

    Returns:
        The new row (flushed).

    Raises:
        InvalidTopic: a blank label, an unknown origin or pin, a parent of another scope, a second root.
        DocumentNotFound: no such parent topic.
    """
    name = _label(label)
    if origin not in ORIGINS:
        raise InvalidTopic(f"unknown topic origin {origin!r}: one of {', '.join(ORIGINS)}")
    fields: dict[str, Any] = {"parent": parent_id, "surface": _words(surface), "centroid": _encoded(centroid),
                              "pinned": _pins(pinned), "pinned_atoms": list(dict.fromkeys(pinned_atoms)),
                              "origin": origin}
    if worded is not None:
        fields["worded"] = worded
    if parent_id is None:
        if _root_of(_tree_rows(session, scope_path)) is not None:
            raise InvalidTopic(f"{scope_path} has a topic tree already: a scope has one root")
        fields.update({"root": True, "consolidated": False, "built_at": None, "atoms": 0, **(root_fields or {})})
    else:
        parent = _topic_row(session, parent_id)
        if parent.scope_path != scope_path:
            raise InvalidTopic(f"topic {parent_id} is in the tree of {parent.scope_path}, not of {scope_path}")
    now = utcnow()
    row = tables.DocumentRow(
        id=new_document_id(), scope_path=scope_path, type=TOPIC, title=name, content=summary.strip(),
        mime_type="text/plain", meta={TOPIC_KEY: fields, "title_from_content": False},
        content_hash=hash_text(summary.strip()), index_state=IndexState.NOT_INDEXED.value, created_at=now,
        updated_at=now, updated_by=action.actor if action is not None else records.creator(None))
    session.add(row)
    session.flush()
    if action is not None:
        audit.record_user_action(session, row, "status", action,
                                 {"status": [DocumentStatus.DELETED.value, DocumentStatus.ACTIVE.value]},
                                 reason=reason or f"topic made ({origin})")
    return row


def session_update_topic(session: Session, row: tables.DocumentRow, action: UserAction | None, *,
                         label: str | None = None, summary: str | None = None,
                         fields: dict[str, Any] | None = None, reason: str = "") -> bool:
    """Change a topic: its label, summary and any :data:`~core.topics.TOPIC_KEY` fields in ``fields``
    (``surface``, ``centroid`` as a vector or encoded text, ``parent``, ``pinned``, ``pinned_atoms``, ``origin``,
    ``worded``, the root's ``consolidated`` / ``built_at`` / ``atoms``). The state before is kept as a version and
    the change recorded as ``edit`` under ``action``, once per action (see the module's note). Nothing changes,
    nothing is written.

    Returns:
        Whether it changed.

    Raises:
        InvalidTopic: a blank label, a new parent in another tree, below the topic itself, or for the root.
        DocumentNotFound: the new parent.
    """
    current = topic_fields(row.meta)
    wanted = {**current, **(fields or {})}
    if "centroid" in (fields or {}):
        wanted["centroid"] = _encoded(fields["centroid"])  # type: ignore[index]
    if "surface" in (fields or {}):
        wanted["surface"] = _words(fields["surface"])  # type: ignore[index]
    if "pinned" in (fields or {}):
        wanted["pinned"] = _pins(fields["pinned"])  # type: ignore[index]
    if wanted.get("parent") != current.get("parent"):
        session_check_parent(session, row, wanted.get("parent"))
    name = _label(label) if label is not None else row.title
    body = summary.strip() if summary is not None else (row.content or "")
    if wanted == current and name == row.title and body == (row.content or ""):
        return False
    first = action is None or not _touched(session, row.id, action)
    if first:
        kept_as = row.version
        records.snapshot_version(session, row, reason or "topic revised")
    else:
        row.updated_at = utcnow()
    row.title, row.content, row.content_hash = name, body, hash_text(body)
    row.meta = {**row.meta, TOPIC_KEY: wanted}
    session.add(row)
    if action is not None and first:
        audit.record_user_action(session, row, "edit", action, {"version": [kept_as, row.version]},
                                 reason=reason or "topic revised")
    return True


def session_retire_topic(session: Session, row: tables.DocumentRow, action: UserAction | None, *,
                         reason: str = "") -> None:
    """Put a topic in the trash (``status`` active → deleted, undoable); its edges stay, so an undo brings it back
    whole. The caller moves its atoms and children first (a retired topic's members are not listed)."""
    if row.status == DocumentStatus.DELETED.value:
        return
    before = row.status
    row.status, row.updated_at = DocumentStatus.DELETED.value, utcnow()
    session.add(row)
    if action is not None:
        audit.record_user_action(session, row, "status", action, {"status": [before, DocumentStatus.DELETED.value]},
                                 reason=reason or "topic retired")


def session_add_member(session: Session, atom_id: str, topic_id: str, action: UserAction | None, *,
                       actor: str | None = None, reason: str = "") -> bool:
    """Put an atom in a topic (an ``in_topic`` edge; ``relate`` under ``action``). Whether it was added (False:
    it was there already). ``actor`` (default: the action's, else the person at this computer) signs the edge."""
    who = actor or (action.actor if action else audit.current_user())
    if not relations.session_add_edge(session, atom_id, topic_id, IN_TOPIC, who):
        return False
    if action is not None:
        audit.record_user_action(session, records.document_row(session, atom_id), "relate", action,
                                 {"edge": [atom_id, topic_id, IN_TOPIC]}, reason=reason or f"in topic {topic_id}")
    return True


def session_remove_member(session: Session, atom_id: str, topic_id: str, action: UserAction | None, *,
                          reason: str = "") -> bool:
    """Take an atom out of a topic (``unrelate`` under ``action``: undo puts the edge back). Whether it was there."""
    done = session.exec(text("DELETE FROM relation WHERE source_id = :s AND target_id = :t AND type = :k"),
                        params={"s": atom_id, "t": topic_id, "k": IN_TOPIC})  # type: ignore[call-overload]
    if not done.rowcount:
        return False
    if action is not None:
        audit.record_user_action(session, records.document_row(session, atom_id), "unrelate", action,
                                 {"edge": [atom_id, topic_id, IN_TOPIC]},
                                 reason=reason or f"out of topic {topic_id}")
    return True


def topics_of(lib: Library, atom_id: str) -> list[str]:
    """The ids of the topics (any status) an atom is in, oldest edge first (what a face compares around a
    :func:`move_atom` to say the atom was already there)."""
    with read_session(lib.engine) as session:
        return session_topics_of(session, (atom_id or "").strip())


def session_topics_of(session: Session, atom_id: str, scope_path: str | None = None) -> list[str]:
    """The topics (any status) an atom is in, oldest edge first; with ``scope_path``, only that scope's."""
    found = relations.session_targets(session, atom_id, IN_TOPIC)
    if scope_path is None:
        return found
    return [t for t in found
            if (row := session.get(tables.DocumentRow, t)) is not None and row.scope_path == scope_path]


def session_ensure_root(session: Session, scope_path: str, action: UserAction | None, *,
                        reason: str = "") -> tables.DocumentRow:
    """``scope_path``'s tree root, made (named after the scope, cold, with no atoms yet: as the digest's first build
    makes it) when the scope has no tree, recorded under ``action`` as :func:`session_create_topic` records it."""
    root = _root_of(_tree_rows(session, scope_path))
    if root is not None:
        return root
    return session_create_topic(session, action, scope_path=scope_path, label=session_scope_name(session, scope_path),
                                parent_id=None, reason=reason or "the scope's topic tree")


def session_scope_name(session: Session, scope_path: str) -> str:
    """The label of ``scope_path``'s root: the scope's name (its path when it has none)."""
    row = session.get(tables.ScopeRow, scope_path)
    return row.name if row is not None and row.name else scope_path


def check_movable(row: tables.DocumentRow) -> None:
    """Refuse to move a tree's root to another scope (``services.moves``, a promotion request): the root stands
    for its scope's tree (named after the scope, it holds the tree's ``consolidated`` mark), and a scope keeps its
    tree. Moving every child of the root together moves the whole tree's content.

    Raises:
        InvalidTopic: ``row`` is a root.
    """
    if row.type == TOPIC and topic_fields(row.meta).get("root"):
        raise InvalidTopic(f"“{row.title}” is the root of {row.scope_path}'s topic tree: the tree stays with its "
                           "scope; promote its topics instead (select them all to move the whole tree)")


# --- Reading helpers.

def _tree_rows(session: Session, scope_path: str) -> list[tables.DocumentRow]:
    """The live topics of ``scope_path``, oldest first."""
    doc = tables.DocumentRow
    return list(session.exec(select(doc).where(doc.scope_path == scope_path, doc.type == TOPIC,
                                               doc.status == DocumentStatus.ACTIVE.value)
                             .order_by(doc.created_at, doc.id)).all())  # type: ignore[arg-type]


def _read_rows(session: Session, scope_path: str) -> list[TopicRow]:
    """:func:`_tree_rows` for reading only, as plain tuples: the ORM's rows took 0.19 ms each (its datetime
    parsing mostly), 0.2 s for the 1,100 topics over 100,000 atoms, which a search reads on every query."""
    session.flush()  # a caller's pending changes to the tree (the digest reads what it is writing)
    found = session.exec(text(
        "SELECT id, scope_path, title, content, metadata, updated_at FROM document WHERE scope_path = :s "
        "AND type = :t AND status = :active ORDER BY created_at, id"),
        params={"s": scope_path, "t": TOPIC, "active": DocumentStatus.ACTIVE.value}).all()  # type: ignore[call-overload]
    return [TopicRow(i, scope, title, content, _json(meta), _moment(at))
            for i, scope, title, content, meta, at in found]


def _json(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    try:
        found = json.loads(value) if isinstance(value, str | bytes) else None
    except ValueError:  # a damaged metadata column: the topic shows with no fields
        return {}
    return found if isinstance(found, dict) else {}


def _root_of(rows: Sequence[Any]) -> Any:
    """The tree's root among ``rows`` (the oldest, should a damaged library hold two)."""
    return next((r for r in rows if topic_fields(r.meta).get("root")), None)


def _topic(row: TopicRow | tables.DocumentRow, depth: int, path: list[str], own: int, atoms: int,
           children: list[str]) -> Topic:
    fields = topic_fields(row.meta)
    surface = fields.get("surface")
    return Topic(id=row.id, scope=row.scope_path, label=row.title, summary=row.content or "",
                 parent_id=fields.get("parent") if isinstance(fields.get("parent"), str) else None,
                 surface=[w for w in surface if isinstance(w, str)] if isinstance(surface, list) else [],
                 path=path, depth=depth, own_atoms=own, atoms=atoms, children=children,
                 pinned=[p for p in fields.get("pinned") or [] if p in PINNABLE],
                 pinned_atoms=[a for a in fields.get("pinned_atoms") or [] if isinstance(a, str)],
                 origin=str(fields.get("origin") or "cold"), is_root=bool(fields.get("root")),
                 updated_at=row.updated_at)


def _unplaced(session: Session, scope_path: str) -> int:
    """How many live atoms of ``scope_path`` itself are in no live topic of that scope.

    ``CROSS JOIN`` keeps SQLite's join order (each atom's few edges, then their topic by id): left to itself the
    planner walked every topic of the scope for each atom, 62 s against 0.8 s for 100,000 atoms under 1,100 topics
    (measured on the shared 2-core machine at load 6)."""
    forms = SqlForms.of(session)
    return int(session.exec(text(
        f"SELECT COUNT(*) FROM document d WHERE d.scope_path = :s AND d.type IN ({forms.rows('types')}) "
        f"AND d.status IN ({forms.rows('live')}) AND NOT EXISTS (SELECT 1 FROM relation r "
        f"{forms.then_join} document t ON t.id = r.target_id WHERE r.source_id = d.id AND r.type = :t "
        "AND t.scope_path = d.scope_path AND t.type = :topic AND t.status = :active)"),
        params={"s": scope_path, "types": json.dumps(ATOM_TYPES), "live": json.dumps(LIVE), "t": IN_TOPIC,
                "topic": TOPIC, "active": DocumentStatus.ACTIVE.value}).one()[0])  # type: ignore[call-overload]


def _moment(value: Any) -> datetime | None:
    if isinstance(value, datetime):  # PostgreSQL's timestamp; SQLite gives the stored text
        return value
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) and value else None
    except ValueError:
        return None


def _topic_row(session: Session, topic_id: str) -> tables.DocumentRow:
    """The live topic ``topic_id``. Raises DocumentNotFound (no such document, not a topic, retired)."""
    row = session.get(tables.DocumentRow, (topic_id or "").strip())
    if row is None or row.type != TOPIC:
        raise DocumentNotFound(f"no topic {topic_id} (see `vancetope topics show`)")
    if row.status != DocumentStatus.ACTIVE.value:
        raise DocumentNotFound(f"topic {topic_id} (“{row.title}”) was deleted: undo its deletion to use it again")
    return row


def _check_read(lib: Library, session: Session, row: tables.DocumentRow, acting_scope: str | None) -> None:
    if acting_scope is not None:
        check_read(lib, resolve_scope(lib, acting_scope), records.to_info(lib, row, []))


def _children(session: Session, row: tables.DocumentRow) -> list[tables.DocumentRow]:
    """The live child topics of ``row``."""
    return [r for r in _tree_rows(session, row.scope_path) if topic_fields(r.meta).get("parent") == row.id]


def session_descendants(session: Session, row: tables.DocumentRow) -> list[tables.DocumentRow]:
    """``row`` and every live topic below it (each once)."""
    rows = _tree_rows(session, row.scope_path)
    below: dict[str, list[tables.DocumentRow]] = {}
    for r in rows:
        parent = topic_fields(r.meta).get("parent")
        if isinstance(parent, str):
            below.setdefault(parent, []).append(r)
    found, queue, seen = [row], [row], {row.id}
    while queue:
        for child in below.get(queue.pop().id, []):
            if child.id not in seen:
                seen.add(child.id)
                found.append(child)
                queue.append(child)
    return found


def _subtree_atoms(session: Session, row: tables.DocumentRow, recursive: bool) -> list[str]:
    topics = session_descendants(session, row) if recursive else [row]
    found = members(session, [t.id for t in topics])
    return list(dict.fromkeys(a for t in topics for a in found.get(t.id, [])))


def _label_path(session: Session, topic_id: str) -> list[str]:
    """The labels from the root's child down to ``topic_id`` (empty for the root)."""
    path: list[str] = []
    seen: set[str] = set()
    row = session.get(tables.DocumentRow, topic_id)
    while row is not None and row.id not in seen:
        seen.add(row.id)
        fields = topic_fields(row.meta)
        if fields.get("root"):
            break
        path.append(row.title)
        parent = fields.get("parent")
        row = session.get(tables.DocumentRow, parent) if isinstance(parent, str) else None
    return path[::-1]


def _touched(session: Session, document_id: str, action: UserAction) -> bool:
    """Whether ``action`` already made or versioned ``document_id`` (an ``edit`` or ``status`` entry of its group):
    undo restores each document once, to its state before the action."""
    session.flush()  # the entries this action added so far
    return session.exec(text(
        "SELECT 1 FROM audit_entry WHERE document_id = :d AND action IN ('edit', 'status') "
        f"AND {SqlForms.of(session).text('payload', 'group')} = :g LIMIT 1"),
        params={"d": document_id, "g": action.group}).first() is not None  # type: ignore[call-overload]


# --- Checking what a write is given.

def _label(label: str) -> str:
    # Control characters (a pasted BEL, a NUL) are dropped from any label; whitespace runs become one space.
    name = " ".join("".join(c for c in (label or "") if c.isspace() or unicodedata.category(c) != "Cc").split())
    if not name:
        raise InvalidTopic("a topic needs a label")
    return name[:MAX_LABEL]


def hand_label(label: str) -> str:
    """A label a person typed (rename, create, split), checked: whitespace runs made one space.

    Raises:
        InvalidTopic: blank; a control character (other than whitespace: a pasted BEL); longer than
        :data:`MAX_LABEL` characters; holding :data:`PATH_MARK`, which separates the labels of a path.
    """
    control = next((c for c in label or "" if not c.isspace() and unicodedata.category(c) == "Cc"), None)
    if control is not None:
        raise InvalidTopic(f"a label cannot hold the control character U+{ord(control):04X}: type plain text")
    name = " ".join((label or "").split())
    if not name:
        raise InvalidTopic("a topic needs a label")
    if len(name) > MAX_LABEL:
        raise InvalidTopic(f"a label holds at most {MAX_LABEL} characters; this one has {len(name)}: shorten it")
    if PATH_MARK in name:
        raise InvalidTopic(f"a label cannot hold “{PATH_MARK}”: it separates the topics of a path "
                           f"(“Birds {PATH_MARK} Herons”), so the label would read as a deeper topic")
    return name


def _words(surface: Any) -> list[str]:
    if isinstance(surface, str) or not isinstance(surface, Iterable):
        raise InvalidTopic("a topic's surface is a list of keywords")
    return list(dict.fromkeys(w for w in (" ".join(str(s).split()) for s in surface) if w))


def _pins(pinned: Any) -> list[str]:
    wanted = list(dict.fromkeys(pinned or []))
    unknown = [p for p in wanted if p not in PINNABLE]
    if unknown:
        raise InvalidTopic(f"cannot pin {unknown[0]!r}: a topic pins {', '.join(PINNABLE)}")
    return wanted


def _encoded(centroid: np.ndarray | str | None) -> str | None:
    if centroid is None or isinstance(centroid, str):
        return centroid
    return encode_vector(np.asarray(centroid, dtype=np.float32))


def session_check_parent(session: Session, row: tables.DocumentRow, parent_id: Any) -> tables.DocumentRow:
    """The new parent of ``row``: a live topic of its tree, not itself nor below it. Raises InvalidTopic,
    DocumentNotFound."""
    if topic_fields(row.meta).get("root"):
        raise InvalidTopic(f"“{row.title}” is the root of {row.scope_path}'s tree: it has no parent to change")
    if not isinstance(parent_id, str):
        raise InvalidTopic(f"“{row.title}” needs a parent topic: only the root has none")
    parent = _topic_row(session, parent_id)
    if parent.scope_path != row.scope_path:
        raise InvalidTopic(f"“{parent.title}” is in the tree of {parent.scope_path}, not of {row.scope_path}: a "
                           "topic moves within its own tree")
    if any(d.id == parent.id for d in session_descendants(session, row)):
        raise InvalidTopic(f"cannot move “{row.title}” into “{parent.title}”: that is {row.title!r} itself or "
                           "below it")
    return parent


# --- A person's hand edits: each one transaction, one undo step given ``user_action``.

def user_action(lib: Library, verb: str, topic_id: str, *, actor: str | None = None) -> UserAction:
    """The undo step of a hand edit, named after the topic it acts on (``Rename topic “Herons”``), by ``actor``
    (default: the person at this computer): what the app and the CLI pass to the edits below.

    Raises:
        DocumentNotFound: no such topic (the edit would say the same).
    """
    with read_session(lib.engine) as session:
        title = _topic_row(session, topic_id).title
    return UserAction.named(verb, [title], actor or audit.current_user())


def rename_topic(lib: Library, topic_id: str, label: str, *, acting_scope: str | None = None,
                 user_action: UserAction | None = None) -> Topic:
    """Give a topic a new label, pinned (the digest keeps it). The root is named after its scope: refused.

    Raises:
        DocumentNotFound: no such topic. InvalidTopic: the root, a label :func:`hand_label` refuses.
        AccessDenied / ScopeNotVisible: ``acting_scope`` may not write the topic's scope.
    """
    with write_session(lib.engine) as session:
        row = _writable(lib, session, topic_id, acting_scope)
        if topic_fields(row.meta).get("root"):
            raise InvalidTopic(f"“{row.title}” is the root of {row.scope_path}'s tree: it is named after its scope")
        session_update_topic(session, row, user_action, label=hand_label(label),
                             fields={"pinned": _pinned(row, "label")}, reason="renamed by hand")
        _done(session)
    return _shown(lib, row.scope_path, row.id)


def move_topic(lib: Library, topic_id: str, parent_id: str, *, acting_scope: str | None = None,
               user_action: UserAction | None = None) -> Topic:
    """Hang a topic (with its subtree) under another topic of the same tree, pinned there.

    Raises:
        DocumentNotFound. InvalidTopic: the root, a parent in another tree, the topic itself or one below it.
        AccessDenied / ScopeNotVisible.
    """
    with write_session(lib.engine) as session:
        row = _writable(lib, session, topic_id, acting_scope)
        parent = session_check_parent(session, row, (parent_id or "").strip())
        session_update_topic(session, row, user_action, fields={"parent": parent.id, "pinned": _pinned(row, "parent")},
                             reason="moved by hand")
        _done(session)
    return _shown(lib, row.scope_path, row.id)


def create_topic(lib: Library, label: str, parent_id: str, *, summary: str = "", surface: Sequence[str] = (),
                 acting_scope: str | None = None, user_action: UserAction | None = None) -> Topic:
    """Make a topic under ``parent_id`` (in that topic's tree), its label and parent pinned. A scope's root is
    made by its digest, not by hand.

    Raises:
        DocumentNotFound: no such parent. InvalidTopic: a label :func:`hand_label` refuses.
        AccessDenied / ScopeNotVisible.
    """
    label = hand_label(label)
    with write_session(lib.engine) as session:
        parent = _writable(lib, session, parent_id, acting_scope)
        row = session_create_topic(session, user_action, scope_path=parent.scope_path, label=label,
                                   parent_id=parent.id, summary=summary, surface=surface or [_label(label)],
                                   origin="person", pinned=("label", "parent"), reason="made by hand")
        _done(session)
    return _shown(lib, row.scope_path, row.id)


def delete_topic(lib: Library, topic_id: str, *, acting_scope: str | None = None,
                 user_action: UserAction | None = None) -> Topic:
    """Retire a topic: its atoms go to its parent (unpinned: see the module's note), its children too (their
    parent pinned), and it goes in the trash (undo brings it back with its atoms and children).

    Returns:
        The parent, as it is afterwards.

    Raises:
        DocumentNotFound. InvalidTopic: the root (the tree goes with its scope). AccessDenied / ScopeNotVisible.
    """
    with write_session(lib.engine) as session:
        row = _writable(lib, session, topic_id, acting_scope)
        fields = topic_fields(row.meta)
        if fields.get("root"):
            raise InvalidTopic(f"“{row.title}” is the root of {row.scope_path}'s tree: it cannot be deleted")
        parent = _topic_row(session, fields["parent"])
        _absorb(session, parent, [row], user_action, pin_atoms=False, why=f"topic “{row.title}” deleted")
        _done(session)
    return _shown(lib, parent.scope_path, parent.id)


def merge_topics(lib: Library, keep_id: str, other_ids: Sequence[str], *, acting_scope: str | None = None,
                 user_action: UserAction | None = None) -> Topic:
    """Merge ``other_ids`` into ``keep_id``: their atoms (pinned there) and children (parent pinned) move to it,
    and they are retired. Topics below ``keep_id`` may be merged into it; ``keep_id``'s own ancestors may not.

    Raises:
        DocumentNotFound. InvalidTopic: nothing to merge, a topic of another tree, the root, the kept topic
        among the others, an ancestor of the kept topic. AccessDenied / ScopeNotVisible.
    """
    with write_session(lib.engine) as session:
        keep = _writable(lib, session, keep_id, acting_scope)
        others = [_topic_row(session, i) for i in dict.fromkeys(o.strip() for o in other_ids)]
        if not others:
            raise InvalidTopic("name at least one topic to merge into the kept one")
        above = {r.id for r in session_ancestors(session, keep)}
        for other in others:
            if other.id == keep.id:
                raise InvalidTopic(f"“{keep.title}” cannot be merged into itself")
            if other.scope_path != keep.scope_path:
                raise InvalidTopic(f"“{other.title}” is in the tree of {other.scope_path}, not of {keep.scope_path}: "
                                   "topics merge within one tree")
            if topic_fields(other.meta).get("root"):
                raise InvalidTopic(f"“{other.title}” is the root of {other.scope_path}'s tree: merge into it instead")
            if other.id in above:
                raise InvalidTopic(f"“{other.title}” is above “{keep.title}”: merge the lower topic into it instead")
        _absorb(session, keep, others, user_action, pin_atoms=True, why=f"merged into “{keep.title}”")
        _done(session)
    return _shown(lib, keep.scope_path, keep.id)


def split_topic(lib: Library, topic_id: str, groups: Sequence[Sequence[str]] | None = None, *, parts: int = 2,
                labels: Sequence[str] | None = None, acting_scope: str | None = None,
                user_action: UserAction | None = None) -> list[Topic]:
    """Split a topic: each group of its atoms becomes a new child topic (label and parent pinned, the atoms
    pinned there), the atoms leaving the split topic. Atoms in no group stay where they are.

    Args:
        groups: two or more disjoint lists of atom ids, each atom one of the topic's own. None: all its own atoms
            cut in ``parts`` groups of like meaning (``index.topic_groups.split_members`` over their vectors,
            embedded here by the library's model: a topic's atoms are short and a few hundred at most).
        labels: one label per group (default: each group's best keyword, ``generation.keywords``, else the
            split topic's label and the group's number); each group's surface is its :data:`SURFACE_WORDS` best
            keywords.

    Returns:
        The new topics, in the groups' order.

    Raises:
        DocumentNotFound. InvalidTopic: fewer than two groups, an empty group, an atom in two groups or not in
        the topic, as many labels as groups missing, a label :func:`hand_label` refuses. InvalidInput: fewer
        atoms than ``parts``. AccessDenied / ScopeNotVisible.
    """
    with read_session(lib.engine) as session:
        row = _topic_row(session, topic_id)
        own_ids = sorted(members(session, [row.id]).get(row.id, []))  # the cut is the same on every run
        texts = {r.id: r.content or r.title for r in records.document_rows(session, own_ids)}
    if groups is None:
        if len(own_ids) < parts:
            raise InvalidTopic(f"“{row.title}” holds {len(own_ids)} atom{'s' if len(own_ids) != 1 else ''} of its "
                               f"own: too few to split in {parts}")
        vectors = lib.embedder().encode_documents([texts[i] for i in own_ids])
        groups = [[own_ids[int(i)] for i in part] for part in split_members(vectors, parts)]
    if labels is None:
        # Imported here: the keyword extractor (segtok, regex) is for a split, not for the searches that import this
        from ..generation.keywords import keywords
        from ..generation.sentences import BlockKind, Sentence

        found = [keywords([Sentence(0, len(texts.get(a, "")), texts.get(a, ""), BlockKind.PROSE) for a in g],
                          SURFACE_WORDS) for g in groups]
        named = [words[0] if words else "" for words in found]
        labels = [n if n and named.count(n) == 1 else f"{row.title} {k}" for k, n in enumerate(named, start=1)]
        surfaces: list[list[str]] = found
    else:
        labels = [hand_label(name) for name in labels]
        surfaces = [[] for _ in groups]
    with write_session(lib.engine) as session:
        row = _writable(lib, session, topic_id, acting_scope)
        own = set(members(session, [row.id]).get(row.id, []))
        wanted = [list(dict.fromkeys(a.strip() for a in g)) for g in groups]
        if len(wanted) < 2 or not all(wanted):
            raise InvalidTopic("a split needs two or more groups of atoms, none empty")
        flat = [a for g in wanted for a in g]
        if len(flat) != len(set(flat)):
            raise InvalidTopic("an atom is in two groups: each atom goes to one new topic")
        stray = next((a for a in flat if a not in own), None)
        if stray is not None:
            raise InvalidTopic(f"{stray} is not an atom of “{row.title}”: a split divides the topic's own atoms")
        names = list(labels)
        if len(names) != len(wanted):
            raise InvalidTopic(f"{len(names)} labels for {len(wanted)} groups: give one label per group")
        made = []
        for name, group, surface in zip(names, wanted, surfaces, strict=True):
            child = session_create_topic(session, user_action, scope_path=row.scope_path, label=name,
                                         parent_id=row.id, surface=surface or [_label(name)],
                                         origin="person", pinned=("label", "parent"), pinned_atoms=group,
                                         reason=f"split from “{row.title}”")
            for atom_id in group:
                session_remove_member(session, atom_id, row.id, user_action, reason=f"split from “{row.title}”")
                session_add_member(session, atom_id, child.id, user_action, reason=f"split from “{row.title}”")
            made.append(child.id)
        session_update_topic(session, row, user_action,
                             fields={"pinned_atoms": [a for a in topic_fields(row.meta).get("pinned_atoms") or []
                                                      if a not in flat]}, reason="split by hand")
        _done(session)
    tree = get_tree(lib, row.scope_path)
    return [t for t in (tree.get(i) for i in made) if t is not None]


def move_atom(lib: Library, atom_id: str, to_topic: str, from_topic: str | None = None, *,
              acting_scope: str | None = None, user_action: UserAction | None = None) -> Topic:
    """Put an atom in ``to_topic``, pinned there, taking it out of ``from_topic`` (default: of every other topic of
    that tree). An atom of the tree's scope only (an ancestor's atom is placed by the ancestor's tree).

    Returns:
        ``to_topic`` as it is afterwards.

    Raises:
        DocumentNotFound: no such atom or topic. InvalidTopic: not an atom, an atom of another scope,
        ``from_topic`` of another tree or not holding the atom. AccessDenied / ScopeNotVisible.
    """
    with write_session(lib.engine) as session:
        target = _writable(lib, session, to_topic, acting_scope)
        atom = records.document_row(session, (atom_id or "").strip())
        if atom.type not in ATOM_TYPES:
            raise InvalidTopic(f"{atom.id} is a {atom.type}, not an atom (fact, event or plan): only atoms go in "
                               "topics")
        if atom.scope_path != target.scope_path:
            raise InvalidTopic(f"{atom.id} is an atom of {atom.scope_path}: it goes in that scope's tree, not in "
                               f"{target.scope_path}'s")
        held = session_topics_of(session, atom.id, target.scope_path)
        if from_topic is not None:
            source = _topic_row(session, from_topic)
            if source.scope_path != target.scope_path:
                raise InvalidTopic(f"“{source.title}” is in the tree of {source.scope_path}, not of "
                                   f"{target.scope_path}")
            if source.id not in held:  # a refused edit (exit 2), not an unknown id
                raise InvalidTopic(f"{atom.id} is not in “{source.title}”: nothing to take it out of")
            leaving = [source.id]
        else:
            leaving = [t for t in held if t != target.id]
        for topic_id in leaving:
            if topic_id == target.id:
                continue
            session_remove_member(session, atom.id, topic_id, user_action, reason="moved by hand")
            gone = records.document_row(session, topic_id)
            pins = [a for a in topic_fields(gone.meta).get("pinned_atoms") or [] if a != atom.id]
            session_update_topic(session, gone, user_action, fields={"pinned_atoms": pins}, reason="atom moved out")
        session_add_member(session, atom.id, target.id, user_action, reason="moved by hand")
        pins = list(dict.fromkeys([*(topic_fields(target.meta).get("pinned_atoms") or []), atom.id]))
        session_update_topic(session, target, user_action, fields={"pinned_atoms": pins}, reason="atom moved in")
        _done(session)
    return _shown(lib, target.scope_path, target.id)


def _absorb(session: Session, into: tables.DocumentRow, gone: Sequence[tables.DocumentRow],
            action: UserAction | None, *, pin_atoms: bool, why: str) -> None:
    """Move the atoms and children of ``gone`` to ``into`` and retire ``gone`` (merge, delete)."""
    held = members(session, [g.id for g in gone])
    moved: list[str] = []
    for row in gone:
        for atom_id in held.get(row.id, []):
            session_remove_member(session, atom_id, row.id, action, reason=why)
            session_add_member(session, atom_id, into.id, action, reason=why)
            moved.append(atom_id)
        for child in _children(session, row):
            if all(child.id != g.id for g in gone):
                session_update_topic(session, child, action,
                                     fields={"parent": into.id, "pinned": _pinned(child, "parent")}, reason=why)
        session_retire_topic(session, row, action, reason=why)
    if pin_atoms and moved:
        pins = list(dict.fromkeys([*(topic_fields(into.meta).get("pinned_atoms") or []), *moved]))
        session_update_topic(session, into, action, fields={"pinned_atoms": pins}, reason=why)


def session_ancestors(session: Session, row: tables.DocumentRow) -> list[tables.DocumentRow]:
    """The topics above ``row``, its parent first, up to the root (a damaged parent loop is walked once)."""
    found: list[tables.DocumentRow] = []
    parent = topic_fields(row.meta).get("parent")
    while isinstance(parent, str) and all(parent != f.id for f in found):
        above = session.get(tables.DocumentRow, parent)
        if above is None:
            break
        found.append(above)
        parent = topic_fields(above.meta).get("parent")
    return found


def _pinned(row: tables.DocumentRow, field: str) -> list[str]:
    return list(dict.fromkeys([*(topic_fields(row.meta).get("pinned") or []), field]))


def _writable(lib: Library, session: Session, topic_id: str, acting_scope: str | None) -> tables.DocumentRow:
    """The live topic ``topic_id``, once ``acting_scope`` (when given) is found to write its scope."""
    row = _topic_row(session, topic_id)
    if acting_scope is not None:
        check_write(lib, resolve_scope(lib, acting_scope), row.scope_path)
    return row


def _done(session: Session) -> None:
    session.flush()
    records.bump_change_counter(session)


def _shown(lib: Library, scope_path: str, topic_id: str) -> Topic:
    found = get_tree(lib, scope_path).get(topic_id)
    if found is None:  # a topic cut off from its root by a damaged parent: shown on its own
        with read_session(lib.engine) as session:
            return _topic(_topic_row(session, topic_id), 0, _label_path(session, topic_id), 0, 0, [])
    return found

