"""The digest's upkeep of a scope's topic tree (issue 14, seed 002: "digest updates the topic tree").

The tree's nodes are topic documents and its membership ``in_topic`` edges (``core.topics``). The upkeep has two
modes, told by the tree's root:

- **cold** (no tree yet, or a root not marked ``consolidated``): the whole tree is built again from the scope's
  live atoms (``index.topic_build.build_tree``). A new topic holding mostly the atoms of an existing one
  (Jaccard ≥ ``topic_build.MATCH_OVERLAP``) takes over that topic's document instead of replacing it, so a
  rebuild over the same atoms changes nothing and a tree grown by a few atoms changes by a few lines; the other
  machine-made topics are retired and new ones created. When the scope's live atoms reach
  ``Settings.topic_consolidate_at`` the root is marked ``consolidated``; the digest never unmarks it (a tree
  hovering at the threshold would otherwise be rebuilt and revised in turn), a rebuild asked ``from_scratch``
  sets it from the count again.
- **consolidated**: never rebuilt by the digest. New atoms (live atoms in no topic) are attached to their nearest
  leaf (``topic_revise.attach``, by centroid; the centroids of the leaf and its ancestors move by a running
  mean); a leaf grown past the leaf size is split (``topic_revise.splits`` with ``regroup``: when its parent
  holds only leaves, those sibling leaves are rebuilt with it as a cold build of that subtree; otherwise its parts
  go beside it, or into a subtree below it when its parent is full); a leaf holding half as many atoms again as
  its words were made from (its stored ``worded``) gets new words, label and surface, unless pinned
  (``topic_revise.rewords``), so a leaf that only gains atoms is not routed by its first members' words until it
  splits; then near-identical sibling leaves are merged (``topic_revise.merges``). Where a step changed a
  leaf's words its parent's follow (``topic_revise.relabel``).

In both modes atoms archived, trashed or moved to another scope leave their topics (their edges go, the counts
fall), and a person's pins are kept: a pinned field (label, parent, surface) is never rewritten, a pinned atom
never moved out of its topic (an unplaced atom pinned somewhere goes back there), a topic with any pin is never
retired or merged away.

**Two steps.** :func:`plan_upkeep` does the slow part outside any transaction: it reads the tree, the atoms and
their vectors and works out every change. :func:`apply_upkeep` writes them inside the caller's write
transaction (the digest's: its changes are lines of the digest's change set, and undone with it as one step)
through the session writes of ``services.topics``, which record each one under the caller's ``UserAction``.
Before writing it re-reads the tree's stamp (its topics' versions and memberships): a tree changed meanwhile (a
person's edit) is left as it is, with a warning, until the next run. :func:`update_topics` does both for one
scope in a transaction and undo step of its own (``vancetope topics rebuild``, the ``topics_rebuild`` tool, the
app's Topics pane, and the app's opening for a scope whose atoms changed with no day to digest).

**The threshold** (``Settings.topic_consolidate_at``, 2,000 atoms): below it every digest rebuilds the tree, so
the rebuild must stay cheap; past it the tree is only revised locally, so what the cold build left must be good
enough to revise. Splits regroup (``splits(regroup=True)``): a leaf that overflows under a parent holding only
leaves is rebuilt with its sibling leaves, so atoms an early, coarse leaf drew to itself can join a sibling.
Without it a revised tree kept the cold build's coarse leaves, and routed within about a point of a rebuild only
from a cold build of 2,000 (from 300, 3.5-7 points below): that is why the threshold was raised from 300 to
2,000. With it the start hardly matters for routing on SciFact (``bench_topic_clusters.py --part consolidate --regroup
yes``, SciFact 600 abstracts, 5,245 sentences, revised in days of 100, 2 December 2026: claims' abstracts reached
at 5 / 10 / 25 % of the atoms 97.1 / 99.4 / 99.7 % revised from 300, 96.5 / 98.8 / 99.4 from 1,000, 95.9 / 98.5 /
99.7 from 2,000, against 96.2 / 98.8 / 99.7 for a rebuild; LoCoMo's conversations, revised for a day or two past
300, from equal to their rebuild to 6-12 points below).
The threshold stays at 2,000 all the same: a tree revised from a small start grows deep (depth 7 from 300, 6
from 1,000, 4 from 2,000, 3 rebuilt: more beam steps per query), regrouping costs more per new atom (5.4-6.4 s
per 1,000 new atoms against 3.7-4.0 without regroup, the cluster helper's run; 30-44 s in mine at load 4 beside
the tests, not comparable), the rebuild under 2,000 stays affordable (clustering 2,000 atoms 1.7 s, a whole first
build with its writes 8.8 s, a day's rebuild writes only what moved: ``bench_topic_upkeep.py``, load 3-6: 100
atoms 1.7 s, 1,000 1.7 s, 3,000 23 s), and a flat search over fewer atoms is exact and cheap. A lower threshold
is worth measuring again (LoCoMo too) if the daily rebuild ever costs too much.

**Vectors.** An atom's vector is read from the scope's Chroma collection (its one chunk's embedding, the
vector ``encode_queries`` gives its statement: ``indexing.statement_vectors``); an atom not embedded yet (still
queued) is encoded here with ``lib.embedder()`` rather than left unplaced, since an unplaced atom is out of reach
of the tree search until the next run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, Field
from sqlalchemy import text
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, select

from ..core.atoms import AtomType
from ..core.documents import DocumentStatus, DocumentType
from ..core.errors import IndexUnavailable, InvalidInput, LibraryBusy
from ..core.relations import RelationType
from ..core.topics import KEYWORDS_SHOWN, decode_vector, topic_fields
from ..core.undo import UserAction
from ..index import topic_build, topic_plans, topic_revise
from ..store import tables
from ..store.db import BUSY_TIMEOUT_MS, is_busy, read_session, write_session
from ..store.dialect_sql import SqlForms
from . import audit, indexing, records, topics
from .library import Library
from .scopes import list_scopes, resolve_scope

TREE = topic_plans.TreeParams()
"""The trees' shape (leaf size, branching): ``index.topic_plans.TreeParams``' defaults, measured there."""
ATTACHED_NAMED = 3
"""An attach line names the atoms attached to a topic when there are at most this many, else counts them."""

LIVE = (DocumentStatus.ACTIVE.value, DocumentStatus.STALE.value)
ATOM_TYPES = tuple(t.value for t in AtomType)
IN_TOPIC = RelationType.IN_TOPIC.value

Mode = Literal["cold", "consolidated", "unchanged", "skipped"]


class TopicChange(BaseModel):
    """One line of what the upkeep changed (the digest makes each a ``DigestChange`` line of its run).

    Attributes:
        kind: ``added`` (a topic created, atoms attached), ``modified`` (a topic split, relabeled, moved, the
            root marked consolidated), ``deleted`` (a topic retired: merged into ``related_id``, or gone in a
            rebuild; atoms that left their topic).
        document_id, title: the topic concerned (its label). related_id: the other topic (merged into, split
            from). what: one line saying what and why.
    """

    kind: Literal["added", "modified", "deleted"]
    document_id: str
    title: str = ""
    related_id: str | None = None
    what: str = ""


class TopicUpkeep(BaseModel):
    """What :func:`update_topics` (or a digest's :func:`apply_upkeep`) did to a scope's tree.

    Attributes:
        mode: ``cold`` (rebuilt), ``consolidated`` (revised locally), ``unchanged`` (nothing new: nothing
            written), ``skipped`` (left as it is: see ``warnings``).
        changes: the change lines, in the order written. warnings: what was left undone and why.
        message: one line for a person.
    """

    scope: str
    mode: Mode
    changes: list[TopicChange] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    message: str = ""


# --- The plan: read outside the transaction, written inside it.

@dataclass(frozen=True)
class _Atom:
    """A live atom of the scope: what the clustering and ``indexing.statement_vectors`` need."""

    id: str
    scope: str
    text: str
    title: str
    created_at: Any


@dataclass
class UpkeepPlan:
    """What :func:`plan_upkeep` worked out for one scope, for :func:`apply_upkeep` to write.

    Attributes:
        scope: the tree's scope. mode: as :class:`TopicUpkeep`.
        stamp: the tree as read (:func:`_stamp`): the write is skipped when it differs then.
        operations: the ``index.topic_build`` / ``topic_revise`` plan, in the order to write.
        atoms: the scope's live atoms as read. threshold: ``Settings.topic_consolidate_at`` then.
        consolidated: the root's mark to write (None: left as it is).
        titles: atom and topic titles for the change lines. warnings: what could not be done and why.
    """

    scope: str
    mode: Mode
    stamp: str = ""
    operations: list[topic_plans.Operation] = field(default_factory=list)
    atoms: int = 0
    threshold: int = 0
    consolidated: bool | None = None
    titles: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def plan_upkeep(lib: Library, scope: str, *, leaving: Iterable[str] = (), from_scratch: bool = False) -> UpkeepPlan:
    """Work out what keeping ``scope``'s tree changes (the slow part: reads, vectors, clustering; no transaction).

    Args:
        scope: a scope path (resolved already).
        leaving: atoms the caller archives in the same transaction (a digest's merges): left out as if gone.
        from_scratch: rebuild the whole tree though it is consolidated (a person's request); the root's
            ``consolidated`` mark then follows the atom count again.

    Returns:
        The plan: mode ``cold`` or ``consolidated`` with its operations, ``unchanged`` (nothing new: every live
        atom placed, none gone; :func:`apply_upkeep` still takes out atoms gone meanwhile), or ``skipped`` with a
        warning (the model or the vector store could not be read, a damaged tree).
    """
    gone = set(leaving)
    with read_session(lib.engine) as session:
        rows, edges = _read_tree(session, scope)
        live = _live_ids(session, scope) - gone
        stamp = _stamp(session, scope)
    root = next((r for r in rows if r.root), None)
    unplaced = live - {atom for atom, _ in edges}  # as ``stale_scopes`` and the tree's count say
    dead = any(atom not in live for atom, _ in edges)
    plan = UpkeepPlan(scope=scope, mode="unchanged", stamp=stamp, atoms=len(live),
                      threshold=lib.settings.topic_consolidate_at, titles={r.id: r.label for r in rows})
    if (root is None and not live) or (root is not None and not unplaced and not dead and not from_scratch):
        return plan
    try:
        state = _state(rows, edges, live) if root is not None else None
        if root is None or not root.consolidated or from_scratch:
            plan.mode = "cold"
            atoms = _atoms(lib, live)
            vectors = indexing.statement_vectors(lib, atoms) if atoms else np.zeros((0, 0), dtype=np.float32)
            plan.operations = topic_build.build_tree([a.id for a in atoms], vectors, [a.text for a in atoms],
                                                        previous=state, params=TREE).operations
            reached = len(live) >= plan.threshold
            if root is None or from_scratch or reached:  # else it stays cold
                plan.consolidated = reached if root is None or root.consolidated != reached else None
        else:
            plan.mode = "consolidated"
            atoms = _atoms(lib, unplaced)
            plan.operations = _revisions(lib, state, atoms)  # type: ignore[arg-type]
        plan.titles |= {a.id: a.title for a in atoms}
    except (IndexUnavailable, InvalidInput) as error:
        return UpkeepPlan(scope=scope, mode="skipped",
                          warnings=[f"the topic tree of {scope} was left as it is: {error}"])
    return plan


def _revisions(lib: Library, state: topic_plans.TreeState, new: list[_Atom]) -> list[topic_plans.Operation]:
    """A consolidated tree's local revision, each step planned on the tree as the steps before leave it: the new
    atoms attached (an atom a person pinned to a topic, back there; the others to their nearest leaf), then the
    leaves that grew past the leaf size split (their sibling leaves regrouped with them: see the module's
    note), then the words of the leaves that outgrew them renewed (``topic_revise.rewords``), then near-identical
    sibling leaves merged. Only the atoms a step names are read (their statements, and vectors for a split)."""
    pinned_at = {atom: t.id for t in state.topics for atom in t.pinned_atoms}
    plan = topic_plans.TreePlan([topic_plans.MoveAtom(a.id, pinned_at[a.id]) for a in new if a.id in pinned_at])
    free = [a for a in new if a.id not in pinned_at]
    vectors = indexing.statement_vectors(lib, free) if free else None
    if free:
        plan.extend(topic_revise.attach([a.id for a in free], vectors, state))  # type: ignore[arg-type]
    tree = topic_plans.apply_plan(state, plan)
    texts = {a.id: a.text for a in new}
    wanted = topic_revise.split_atoms(tree, TREE, regroup=True)
    if wanted:
        known = {a.id for a in free}
        members = _atoms(lib, wanted - known)
        texts |= {a.id: a.text for a in members}
        table = topic_plans.atom_table(
            [a.id for a in free] + [a.id for a in members],
            np.vstack([v for v in (vectors, indexing.statement_vectors(lib, members) if members else None)
                       if v is not None]),
            [a.text for a in free] + [a.text for a in members])
        split = topic_revise.splits(tree, table, TREE, regroup=True)
        plan.extend(split)
        tree = topic_plans.apply_plan(tree, split)
    stale = topic_revise.reword_atoms(tree)
    if stale:
        texts |= {a.id: a.text for a in _atoms(lib, stale - texts.keys())}
        reworded = topic_revise.rewords(tree, texts, TREE)
        plan.extend(reworded)
        tree = topic_plans.apply_plan(tree, reworded)
    plan.extend(topic_revise.merges(tree, params=TREE))
    return plan.operations


def apply_upkeep(session: Session, plan: UpkeepPlan, action: UserAction) -> TopicUpkeep:
    """Write ``plan`` inside the caller's write transaction, each write recorded under ``action`` (one undo step
    with the caller's other writes: ``services.topics``' session writes).

    Atoms no longer live atoms of the scope (archived, trashed or moved since the plan was read, or by the
    caller's own writes before this call) leave their topics and are not attached. Nothing is written when the
    tree changed since :func:`plan_upkeep` read it (a person's edit meanwhile): the result's warnings say so.

    Returns:
        What was written: the change lines in the order written.
    """
    result = TopicUpkeep(scope=plan.scope, mode=plan.mode, warnings=list(plan.warnings))
    if plan.mode == "skipped":
        return result
    if plan.operations and _stamp(session, plan.scope) != plan.stamp:
        result.mode = "skipped"
        result.warnings.append(f"the topic tree of {plan.scope} changed while it was being revised (a person's "
                               "edit): left as it is until the next run")
        return result
    writer = _Writer(session, plan, action)
    writer.load_rows()
    writer.leave_dead()
    for operation in plan.operations:
        writer.apply(operation)
    result.changes = writer.finish()
    if result.changes:
        records.bump_change_counter(session)
    return result


def update_topics(lib: Library, scope: str | None = None, *, from_scratch: bool = False,
                  before_write: Callable[[], None] | None = None) -> TopicUpkeep:
    """Keep ``scope``'s topic tree now, as a digest would (:func:`plan_upkeep` then :func:`apply_upkeep`), in one
    transaction recorded as one undo step of the person at this computer (``Topics of <scope>``).

    Args:
        scope: a scope path or name (default: the current scope).
        from_scratch: rebuild the whole tree though it is consolidated (pins kept).
        before_write: called between the slow part and the write transaction (the app's gate that lets a
            person's own edits go first; it may raise to cancel), as ``digest.run_digest``'s.

    Raises:
        ScopeNotFound. LibraryBusy: the library stayed locked by another process past the busy timeout.
    """
    scope_path = resolve_scope(lib, scope)
    plan = plan_upkeep(lib, scope_path, from_scratch=from_scratch)
    action = UserAction(label=f"Topics of {scope_path}", actor=audit.current_user())
    if before_write is not None:
        before_write()
    try:
        with write_session(lib.engine) as session:
            done = apply_upkeep(session, plan, action)
    except OperationalError as error:
        if not is_busy(error):
            raise
        raise LibraryBusy(f"the library stayed locked by another process (a digest or an import) for "
                          f"{BUSY_TIMEOUT_MS // 1000} s: try again in a moment") from None
    said = {"cold": "rebuilt", "consolidated": "revised", "unchanged": "up to date", "skipped": "left as it is"}
    word = said[done.mode] if done.changes or done.mode == "skipped" else "up to date"
    counted = f" ({len(done.changes)} change{'s' if len(done.changes) != 1 else ''})" if done.changes else ""
    return done.model_copy(update={"message": f"the topic tree of {scope_path} {word}{counted}"})


def stale_scopes(lib: Library) -> list[str]:
    """The scopes whose tree lags behind their atoms, parents first: a live atom in no topic (a new one; every
    atom of a scope with no tree yet), or a topic holding an atom archived, trashed or moved since."""
    with read_session(lib.engine) as session:
        forms = SqlForms.of(session)
        rows = session.exec(text(  # type: ignore[call-overload]
            f"SELECT DISTINCT d.scope_path FROM document d WHERE d.type IN ({forms.rows('atoms')}) "
            f"AND d.status IN ({forms.rows('live')}) AND NOT EXISTS (SELECT 1 FROM relation r "
            "JOIN document t ON t.id = r.target_id WHERE r.source_id = d.id AND r.type = :in_topic "
            "AND t.status = 'active' AND t.scope_path = d.scope_path) "
            "UNION SELECT DISTINCT t.scope_path FROM relation r JOIN document t ON t.id = r.target_id "
            "JOIN document a ON a.id = r.source_id WHERE r.type = :in_topic AND t.status = 'active' "
            f"AND (a.status NOT IN ({forms.rows('live')}) OR a.scope_path != t.scope_path)"),
            params=_params()).all()
    found = {r[0] for r in rows}
    return [s.path for s in list_scopes(lib) if s.path in found]


# --- Writing a plan.

class _Writer:
    """Carries out a plan's operations through ``services.topics``' session writes, and says what it did."""

    def __init__(self, session: Session, plan: UpkeepPlan, action: UserAction) -> None:
        self.session, self.plan, self.action = session, plan, action
        self.ids: dict[str, str] = {}
        self.changes: list[TopicChange] = []
        self.joined: dict[str, list[str]] = {}
        self.moved_in: dict[str, list[str]] = {}
        self.left: dict[str, list[str]] = {}
        self.splits: list[topic_plans.SplitTopic] = []
        self.root: tables.DocumentRow | None = None
        self.live: dict[str, bool] = {}
        self.atoms: dict[str, tables.DocumentRow] = {}  # held here: the session keeps only weak references

    def resolve(self, ref: str) -> str:
        return self.ids.get(ref, ref)

    def row(self, ref: str) -> tables.DocumentRow:
        return records.document_row(self.session, self.resolve(ref))

    def load_rows(self) -> None:
        """The rows of the scope's topics and of every atom the plan moves, in a few queries: the writes below (the
        audit entries name each atom) then find them in the session instead of loading each one (2 of the 6.6 s of
        200 atoms attached, measured with cProfile on bench_topic_upkeep.py's library)."""
        ids = list(dict.fromkeys(op.atom for op in self.plan.operations if isinstance(op, topic_plans.MoveAtom)))
        doc = tables.DocumentRow
        self.atoms |= {row.id: row for row in self.session.exec(select(doc).where(
            doc.scope_path == self.plan.scope, doc.type == DocumentType.TOPIC.value)).all()}  # and the topics
        for start in range(0, len(ids), 500):
            for row in self.session.exec(select(doc).where(doc.id.in_(ids[start:start + 500]))).all():  # type: ignore[attr-defined]
                self.atoms[row.id] = row
                self.live[row.id] = row.status in LIVE and row.scope_path == self.plan.scope

    def leave_dead(self) -> None:
        for atom_id, topic_id in _dead_members(self.session, self.plan.scope):
            if topics.session_remove_member(self.session, atom_id, topic_id, self.action,
                                            reason="no longer a live atom of the scope"):
                self.left.setdefault(topic_id, []).append(atom_id)

    def apply(self, op: topic_plans.Operation) -> None:
        if isinstance(op, topic_plans.CreateTopic):
            self.create(op)
        elif isinstance(op, topic_plans.UpdateTopic):
            self.update(op)
        elif isinstance(op, topic_plans.MoveAtom):
            # The edges and audit entries of a move need no flush between them: they go out together at the
            # next query that does (an update's check of what this action touched).
            with self.session.no_autoflush:
                self.move(op)
        elif isinstance(op, topic_plans.MergeTopics):
            self.merge(op)
        elif isinstance(op, topic_plans.SplitTopic):
            self.splits.append(op)
        elif isinstance(op, topic_plans.DeleteTopic):
            row = self.row(op.topic)
            self.retire(row, "retired: the rebuild left it without atoms")

    def create(self, op: topic_plans.CreateTopic) -> None:
        if op.parent is None:  # the tree's root, named after its scope
            row = topics.session_create_topic(
                self.session, self.action, scope_path=self.plan.scope,
                label=topics.session_scope_name(self.session, self.plan.scope),
                parent_id=None, summary=op.summary, surface=op.surface, centroid=op.centroid, origin=op.origin,
                root_fields=self._root_fields(), reason="the scope's topic tree")
            self.root = row
            what = "the scope's topic tree, made" + (f"; {self._consolidated_line()}" if self.plan.consolidated
                                                     else "")
        else:
            row = topics.session_create_topic(
                self.session, self.action, scope_path=self.plan.scope, label=op.label or "(no words)",
                parent_id=self.resolve(op.parent), summary=op.summary, surface=op.surface, centroid=op.centroid,
                origin=op.origin, worded=op.worded)
            what = f"new topic ({op.origin}): “{row.title}”" + (f"; keywords: {', '.join(op.surface[:6])}"
                                                                  if op.surface else "")
        self.ids[op.key] = row.id
        self.changes.append(TopicChange(kind="added", document_id=row.id, title=row.title, what=what))

    def update(self, op: topic_plans.UpdateTopic) -> None:
        row = self.row(op.topic)
        before = topic_fields(row.meta)
        fields: dict[str, Any] = {}
        if op.surface is not None:
            fields["surface"] = list(op.surface)
        if op.parent is not None:
            fields["parent"] = self.resolve(op.parent)
        if op.centroid is not None and not _same_vector(decode_vector(before.get("centroid")), op.centroid):
            fields["centroid"] = op.centroid
        if op.worded is not None:
            fields["worded"] = op.worded
        old_label, old_parent = row.title, before.get("parent")
        if not topics.session_update_topic(self.session, row, self.action, label=op.label, summary=op.summary,
                                           fields=fields, reason="revised by the digest"):
            return
        said = []
        if row.title != old_label:
            said.append(f"relabeled “{old_label}” → “{row.title}”")
        if fields.get("parent") not in (None, old_parent):
            said.append(f"moved under “{self.row(fields['parent']).title}”")
        if "surface" in fields and list(before.get("surface") or []) != fields["surface"]:
            # The head is what a person reads (core.topics.KEYWORDS_SHOWN); past it, words that only route.
            head = list(before.get("surface") or [])[:KEYWORDS_SHOWN] != fields["surface"][:KEYWORDS_SHOWN]
            said.append(f"keywords: {', '.join(fields['surface'][:6])}" if head else
                        f"routing words renewed ({len(fields['surface'])} terms)")
        made_from = before.get("worded")
        if said and op.worded is not None and made_from is not None and op.worded > made_from:
            said.insert(0, f"words renewed: {op.worded} atoms, made from {made_from}")
        self.changes.append(TopicChange(kind="modified", document_id=row.id, title=row.title,
                                        what="; ".join(said) or "centroid and summary revised"))

    def move(self, op: topic_plans.MoveAtom) -> None:
        target = self.resolve(op.to)
        if self.live.get(op.atom) and \
                topics.session_add_member(self.session, op.atom, target, self.action):
            (self.moved_in if op.source else self.joined).setdefault(target, []).append(op.atom)
        if op.source is not None and topics.session_remove_member(self.session, op.atom, self.resolve(op.source),
                                                                  self.action):
            self.left.setdefault(self.resolve(op.source), []).append(op.atom)

    def merge(self, op: topic_plans.MergeTopics) -> None:
        source, target = self.row(op.source), self.row(op.target)
        fields = topic_fields(source.meta)
        for atom_id in topics.members(self.session, [source.id]).get(source.id, []):
            topics.session_add_member(self.session, atom_id, target.id, self.action)
            topics.session_remove_member(self.session, atom_id, source.id, self.action)
        pinned = list(fields.get("pinned_atoms") or [])
        if pinned:
            kept = topic_fields(target.meta).get("pinned_atoms") or []
            topics.session_update_topic(self.session, target, self.action,
                                        fields={"pinned_atoms": list(dict.fromkeys([*kept, *pinned]))})
        for child in _children(self.session, source.id):
            topics.session_update_topic(self.session, child, self.action, fields={"parent": target.id})
        self.retire(source, f"merged into “{target.title}” (near-identical siblings)", related=target.id)

    def retire(self, row: tables.DocumentRow, what: str, related: str | None = None) -> None:
        topics.session_retire_topic(self.session, row, self.action, reason=what)
        self.changes.append(TopicChange(kind="deleted", document_id=row.id, title=row.title, related_id=related,
                                        what=what))

    def finish(self) -> list[TopicChange]:
        # The atoms a split or a regroup moves were not read by the plan: their rows here name them.
        titles = {atom_id: row.title for atom_id, row in self.atoms.items()} | self.plan.titles
        for split in self.splits:
            parts = [self.row(p) for p in split.parts]
            self.changes.append(TopicChange(
                kind="modified", document_id=self.resolve(split.topic), title=self.row(split.topic).title,
                what=f"split in {len(parts)}, past the leaf size: {', '.join(f'“{p.title}”' for p in parts)}"))
        for topic_id, atoms in self.joined.items():
            self.changes.append(TopicChange(kind="added", document_id=topic_id, title=self.row(topic_id).title,
                                            what=_count_line(atoms, titles, "attached")))
        for topic_id, atoms in self.moved_in.items():
            self.changes.append(TopicChange(kind="modified", document_id=topic_id, title=self.row(topic_id).title,
                                            what=_count_line(atoms, titles, "moved in from another topic")))
        for topic_id, atoms in self.left.items():
            self.changes.append(TopicChange(kind="modified", document_id=topic_id, title=self.row(topic_id).title,
                                            what=_count_line(atoms, titles, "left (moved, archived, trashed or "
                                                                            "promoted)")))
        if (self.changes or self.plan.consolidated is not None) and self.root is None:
            self._revise_root()
        return self.changes

    def _root_fields(self) -> dict[str, Any]:
        mark = {} if self.plan.consolidated is None else {"consolidated": self.plan.consolidated}
        return {"built_at": datetime.now(UTC).isoformat(), "atoms": self.plan.atoms, **mark}

    def _consolidated_line(self) -> str:
        plan = self.plan
        if plan.consolidated:
            return (f"consolidated at {plan.atoms} atoms (Settings.topic_consolidate_at {plan.threshold}): from now "
                    "on revised locally, never rebuilt by the digest, and searched by topics")
        return (f"no longer consolidated: {plan.atoms} atoms, under Settings.topic_consolidate_at "
                f"{plan.threshold}: rebuilt by each digest until it has that many, and searched flat")

    def _revise_root(self) -> None:
        row = _root_row(self.session, self.plan.scope)
        if row is None:
            return
        topics.session_update_topic(self.session, row, self.action, fields=self._root_fields(),
                                    reason="the tree revised")
        if self.plan.consolidated is not None:
            self.changes.append(TopicChange(kind="modified", document_id=row.id, title=row.title,
                                            what=self._consolidated_line()))


# --- Reading.

@dataclass(frozen=True)
class _Row:
    """A live topic as read (its document and :data:`~core.topics.TOPIC_KEY` fields)."""

    id: str
    label: str
    summary: str
    parent: str | None
    surface: tuple[str, ...]
    centroid: np.ndarray | None
    pinned: frozenset[str]
    pinned_atoms: frozenset[str]
    root: bool
    consolidated: bool
    worded: int | None


def _read_tree(session: Session, scope: str) -> tuple[list[_Row], list[tuple[str, str]]]:
    """The scope's live topics (oldest first) and every ``(atom, topic)`` membership of them, live atom or not."""
    doc = tables.DocumentRow
    found = session.exec(select(doc).where(doc.scope_path == scope, doc.type == DocumentType.TOPIC.value,
                                           doc.status == DocumentStatus.ACTIVE.value)
                         .order_by(doc.created_at, doc.id)).all()  # type: ignore[arg-type]
    rows = []
    for row in found:
        fields = topic_fields(row.meta)
        rows.append(_Row(id=row.id, label=row.title or "", summary=row.content or "", parent=fields.get("parent"),
                         surface=tuple(fields.get("surface") or ()), centroid=decode_vector(fields.get("centroid")),
                         pinned=frozenset(fields.get("pinned") or ()),
                         pinned_atoms=frozenset(fields.get("pinned_atoms") or ()), root=bool(fields.get("root")),
                         consolidated=bool(fields.get("consolidated")), worded=fields.get("worded")))
    edges = session.exec(text(  # type: ignore[call-overload]
        "SELECT r.source_id, r.target_id FROM relation r JOIN document t ON t.id = r.target_id "
        "WHERE r.type = :in_topic AND t.scope_path = :scope AND t.type = :topic AND t.status = 'active' "
        "ORDER BY 1, 2"), params=_params(scope=scope)).all()
    return rows, [(a, t) for a, t in edges]


def _state(rows: Sequence[_Row], edges: Sequence[tuple[str, str]], live: set[str]) -> topic_plans.TreeState:
    """The tree as ``index.topic_revise`` reads it: each topic with its live atoms and its subtree's count.

    Raises:
        InvalidInput: a damaged tree (no root or two, a parent that is not a live topic of it).
    """
    own: dict[str, list[str]] = {r.id: [] for r in rows}
    for atom, topic in edges:
        if atom in live:
            own[topic].append(atom)
    by_id = {r.id: r for r in rows}
    subtree: dict[str, set[str]] = {r.id: set(own[r.id]) for r in rows}
    for r in rows:
        parent, seen = r.parent, 0
        while parent in by_id and seen < len(rows):
            subtree[parent] |= set(own[r.id])
            parent, seen = by_id[parent].parent, seen + 1
    return topic_plans.TreeState(tuple(
        topic_plans.TopicState(id=r.id, parent_id=None if r.root else r.parent, label=r.label,
                                  surface=r.surface, summary=r.summary, centroid=r.centroid,
                                  atoms=tuple(own[r.id]), size=len(subtree[r.id]), pinned=r.pinned,
                                  pinned_atoms=r.pinned_atoms, worded=r.worded)
        for r in sorted(rows, key=lambda r: not r.root)))


def _live_ids(session: Session, scope: str) -> set[str]:
    """The ids of the scope's own live atoms (not its ancestors')."""
    forms = SqlForms.of(session)
    rows = session.exec(text(  # type: ignore[call-overload]
        f"SELECT id FROM document WHERE scope_path = :scope AND type IN ({forms.rows('atoms')}) "
        f"AND status IN ({forms.rows('live')})"), params=_params(scope=scope)).all()
    return {r[0] for r in rows}


def _atoms(lib: Library, ids: Iterable[str]) -> list[_Atom]:
    """The atoms ``ids`` with their statements, oldest first (the clustering's order: a rerun sees the same)."""
    wanted = list(ids)
    found: list[_Atom] = []
    with read_session(lib.engine) as session:
        for start in range(0, len(wanted), 5000):
            found += [_Atom(*row) for row in session.exec(text(  # type: ignore[call-overload]
                "SELECT id, scope_path, COALESCE(NULLIF(content, ''), title), title, created_at FROM document "
                f"WHERE id IN ({SqlForms.of(session).rows('ids')})"),
                params={"ids": json.dumps(wanted[start:start + 5000])}).all()]
    return sorted(found, key=lambda a: (a.created_at, a.id))


def _stamp(session: Session, scope: str) -> str:
    """A digest of the tree as it stands: its topics' ids, versions and statuses and its membership edges. Any
    write to it (a person's edit, another upkeep) changes one of them."""
    found = session.exec(text(  # type: ignore[call-overload]
        "SELECT id, version, status FROM document WHERE scope_path = :scope AND type = :topic ORDER BY id"),
        params=_params(scope=scope)).all()
    edges = session.exec(text(  # type: ignore[call-overload]
        "SELECT r.source_id, r.target_id FROM relation r JOIN document t ON t.id = r.target_id "
        "WHERE r.type = :in_topic AND t.scope_path = :scope AND t.type = :topic ORDER BY 1, 2"),
        params=_params(scope=scope)).all()
    return hashlib.sha256(json.dumps([[list(r) for r in found], [list(e) for e in edges]]).encode()).hexdigest()


def _dead_members(session: Session, scope: str) -> list[tuple[str, str]]:
    """``(atom, topic)`` memberships of the scope's live topics whose atom is no longer a live atom of the scope."""
    rows = session.exec(text(  # type: ignore[call-overload]
        "SELECT r.source_id, r.target_id FROM relation r JOIN document t ON t.id = r.target_id "
        "JOIN document a ON a.id = r.source_id WHERE r.type = :in_topic AND t.scope_path = :scope "
        f"AND t.type = :topic AND t.status = 'active' "
        f"AND (a.status NOT IN ({SqlForms.of(session).rows('live')}) "
        "OR a.scope_path != :scope) ORDER BY 1, 2"), params=_params(scope=scope)).all()
    return [(a, t) for a, t in rows]


def _root_row(session: Session, scope: str) -> tables.DocumentRow | None:
    root = topics.session_tree(session, scope, counts=False).root_id
    return records.document_row(session, root) if root else None


def _children(session: Session, topic_id: str) -> list[tables.DocumentRow]:
    """The live topics whose parent is ``topic_id`` (as written so far in this transaction)."""
    found = session.exec(text(  # type: ignore[call-overload]
        "SELECT id FROM document WHERE type = :topic AND status = 'active' "
        f"AND {SqlForms.of(session).text('metadata', 'topic.parent')} = :parent ORDER BY created_at, id"),
        params=_params(parent=topic_id)).all()
    return [records.document_row(session, r[0]) for r in found]


def _same_vector(stored: np.ndarray | None, wanted: np.ndarray) -> bool:
    """Whether a recomputed centroid is the stored one up to float noise (an atom's vector read from the index
    and the same statement encoded again differ in the 7th decimal): not worth a new version."""
    return stored is not None and stored.shape == np.shape(wanted) and bool(np.allclose(stored, wanted, atol=1e-5))


def _count_line(atom_ids: list[str], titles: dict[str, str], verb: str) -> str:
    count = f"{len(atom_ids)} atom{'s' if len(atom_ids) != 1 else ''} {verb}"
    if len(atom_ids) > ATTACHED_NAMED:
        return count
    return f"{count}: {', '.join(f'“{titles.get(a, a)}”' for a in atom_ids)}"


def _params(**extra: str) -> dict[str, str]:
    return {"in_topic": IN_TOPIC, "topic": DocumentType.TOPIC.value, "atoms": json.dumps(ATOM_TYPES),
            "live": json.dumps(LIVE), **extra}
