"""The topic tree's plans (issue 14): the inputs the tree algorithms read and the operations they return.

The algorithms (:mod:`.topic_build`, the cold build; :mod:`.topic_revise`, local revisions once consolidated)
read a scope's atoms as an :class:`AtomTable` and its stored tree as a :class:`TreeState`, and return a
:class:`TreePlan`: a list of plain operations (:class:`CreateTopic`, :class:`UpdateTopic`, :class:`MoveAtom`,
:class:`MergeTopics`, :class:`SplitTopic`, :class:`DeleteTopic`) that ``services/topic_upkeep.py`` turns into
document writes in the digest's transaction; :func:`apply_plan` plays a plan on a state in memory (to chain
revisions within one digest, and in tests). numpy only: no database, no Qt.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..core.errors import InvalidInput
from .topic_labels import LABEL_TERMS


@dataclass(frozen=True)
class TreeParams:
    """The shape of a tree.

    Attributes:
        leaf_max: most atoms a leaf holds; a bigger one is split (:func:`splits`). 40, a choice: the beam
            scores every atom of a leaf it reaches, and a cold build's leaves, aimed at half of it, held 19
            atoms on average (bench_topic_clusters.py): 4-5% of a LoCoMo conversation's turns each, so a
            query reaching a few leaves stays within the issue's budget of 25% of the atoms. Leaves aimed at 13
            routed SciFact claims a little better (1-2 points at 5% of the atoms), LoCoMo questions alike.
        leaf_fill: the share of ``leaf_max`` a cold build aims at per leaf (room to grow before a split).
        branching: children a cold build aims at per inner topic; ``max_children`` the most it allows (the
            beam scores every child of a topic it extends: 5-20 keeps a step cheap).
        surface_terms: terms in a lexical surface, best c-TF-IDF first (a parent's: its children's, weighed by
            size and rank). 150: a leaf of ~20 statements keeps nearly every content word, so a query's word
            that occurs in a leaf's atoms routes it there, as BM25 over the leaf's text would (cluster-based
            retrieval); only the first ``core.topics.KEYWORDS_SHOWN`` are shown. Measured on SciFact (1,000
            abstracts as 9,638 sentence atoms, ``tests/benchmarks/bench_topic_search.py``, beam width 16, depth
            weight 0.7): nDCG@10 0.807 / 0.814 / 0.822 / 0.825 / 0.827 with 15 / 60 / 100 / 150 / 300 terms at
            3.5-3.7 % of the atoms scored (flat search 0.828); 15 terms needed width 128 and 24 % of the atoms
            for 0.819. Past 150 the gain is within the bench's noise and the inverted index grows.
    """

    leaf_max: int = 40
    leaf_fill: float = 0.5
    branching: int = 10
    max_children: int = 20
    surface_terms: int = 150

    def __post_init__(self) -> None:
        if self.leaf_max < 2 or not 0 < self.leaf_fill <= 1 or not 2 <= self.branching <= self.max_children \
                or self.surface_terms < LABEL_TERMS:
            raise InvalidInput(f"topic tree parameters out of range: {self}")

    @property
    def leaf_target(self) -> int:
        """Atoms per leaf a cold build aims at (at least 2)."""
        return max(2, round(self.leaf_max * self.leaf_fill))


@dataclass(frozen=True)
class AtomTable:
    """Atoms as the algorithms read them: ``ids`` (distinct), ``vectors`` (``n × d`` float32, unit length),
    ``texts`` (their statements). Build it with :func:`atom_table`, which checks the shapes."""

    ids: tuple[str, ...]
    vectors: np.ndarray
    texts: tuple[str, ...]

    def rows(self, ids: Iterable[str]) -> np.ndarray:
        """The row numbers of ``ids`` (each must be in the table)."""
        index = self._index
        return np.array([index[i] for i in ids], dtype=np.int64)

    @property
    def _index(self) -> dict[str, int]:
        found = self.__dict__.get("_index_cache")
        if found is None:
            found = {atom: row for row, atom in enumerate(self.ids)}
            object.__setattr__(self, "_index_cache", found)
        return found

    def __contains__(self, atom: object) -> bool:
        return atom in self._index


def atom_table(ids: Sequence[str], vectors: np.ndarray, texts: Sequence[str]) -> AtomTable:
    """Check and pack atoms for the functions here.

    Raises:
        InvalidInput: lengths that differ, a repeated id, vectors that are not a 2-d finite array.
    """
    matrix = np.asarray(vectors, dtype=np.float32)
    if len(ids) == 0 and matrix.size == 0:
        matrix = matrix.reshape(0, matrix.shape[-1] if matrix.ndim == 2 else 0)
    if matrix.ndim != 2:
        raise InvalidInput(f"atom vectors must be one row per atom (a 2-d array), not shape {matrix.shape}")
    if not len(ids) == matrix.shape[0] == len(texts):
        raise InvalidInput(f"{len(ids)} atom ids, {matrix.shape[0]} vectors and {len(texts)} texts: they must match")
    if len(set(ids)) != len(ids):
        raise InvalidInput("an atom id is given twice")
    if not np.isfinite(matrix).all():
        raise InvalidInput("atom vectors hold NaN or infinite values")
    return AtomTable(tuple(ids), matrix, tuple(texts))


@dataclass(frozen=True)
class TopicState:
    """One stored topic, as the upkeep reads it from the library.

    Attributes:
        id: its document id; ``parent_id`` its parent's (None for the root).
        label, surface, summary: its words.
        centroid: unit float32 vector, or None when it has no atom yet.
        atoms: the atoms attached to it itself (not to its children).
        size: atoms in its whole subtree (the weight of its centroid's running mean).
        pinned: the fields a person set (``core.topics.PINNABLE``); ``pinned_atoms`` the atoms a person put here.
        worded: the atoms it held itself when its surface was last made (``core.topics``' ``worded``), None when
            not known: :func:`rewords` renews the words of a leaf grown well past it.
    """

    id: str
    parent_id: str | None
    label: str = ""
    surface: tuple[str, ...] = ()
    summary: str = ""
    centroid: np.ndarray | None = None
    atoms: tuple[str, ...] = ()
    size: int = 0
    pinned: frozenset[str] = frozenset()
    pinned_atoms: frozenset[str] = frozenset()
    worded: int | None = None

    @property
    def has_pins(self) -> bool:
        """Whether a person's edit holds this topic in place (a pinned field or a pinned atom)."""
        return bool(self.pinned or self.pinned_atoms)


@dataclass(frozen=True)
class TreeState:
    """A stored tree: its topics, the root first (the one whose ``parent_id`` is None).

    Raises (on construction):
        InvalidInput: no root or several, a parent that is not in the tree, a topic id given twice.
    """

    topics: tuple[TopicState, ...]
    by_id: dict[str, TopicState] = field(init=False, repr=False, compare=False)
    children: dict[str, list[str]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_id = {t.id: t for t in self.topics}
        if len(by_id) != len(self.topics):
            raise InvalidInput("a topic id is given twice in the tree")
        roots = [t.id for t in self.topics if t.parent_id is None]
        if len(roots) != 1:
            raise InvalidInput(f"a topic tree has one root, not {len(roots)}")
        children: dict[str, list[str]] = {t.id: [] for t in self.topics}
        for topic in self.topics:
            if topic.parent_id is not None:
                if topic.parent_id not in by_id:
                    raise InvalidInput(f"topic {topic.id}'s parent {topic.parent_id} is not in the tree")
                children[topic.parent_id].append(topic.id)
        object.__setattr__(self, "by_id", by_id)
        object.__setattr__(self, "children", children)

    @property
    def root(self) -> TopicState:
        """The root topic."""
        return next(t for t in self.topics if t.parent_id is None)

    def leaves(self) -> list[TopicState]:
        """The topics without children (the root when it has none), in the tree's order."""
        return [t for t in self.topics if not self.children[t.id]]

    def ancestors(self, topic_id: str) -> list[str]:
        """The ids above ``topic_id``, its parent first, the root last."""
        out = []
        parent = self.by_id[topic_id].parent_id
        while parent is not None:
            out.append(parent)
            parent = self.by_id[parent].parent_id
        return out


@dataclass(frozen=True)
class CreateTopic:
    """Make a topic. ``key`` names it within the plan (``new:3``; the upkeep gives it a document id); ``parent``
    is an existing topic's id or an earlier CreateTopic's key, None for a new root. ``origin`` is
    ``core.topics``' (``cold``, ``split``…). ``worded``: the atoms its surface was made from (a leaf's; None for
    an inner topic), to store with it (``core.topics``' ``worded``; see :func:`rewords`)."""

    key: str
    parent: str | None
    label: str
    surface: tuple[str, ...]
    summary: str
    centroid: np.ndarray | None
    origin: str
    worded: int | None = None


@dataclass(frozen=True)
class UpdateTopic:
    """Set fields of an existing topic (or of one the plan created); None leaves a field as it is. ``parent``
    moves it (with its subtree); ``worded`` as in :class:`CreateTopic` (set with a leaf's new surface)."""

    topic: str
    label: str | None = None
    surface: tuple[str, ...] | None = None
    summary: str | None = None
    centroid: np.ndarray | None = None
    parent: str | None = None
    worded: int | None = None


@dataclass(frozen=True)
class MoveAtom:
    """Put ``atom`` in topic ``to`` (an id or a plan key; a no-op when it is there already) and take it out of
    ``source`` when given (None: a new atom, or a second membership)."""

    atom: str
    to: str
    source: str | None = None


@dataclass(frozen=True)
class MergeTopics:
    """Merge ``source`` into ``target`` (siblings): ``source``'s atoms join ``target`` (pins included), its
    children move under ``target``, then ``source`` is deleted. The UpdateTopic of ``target``'s new centroid
    and words follows in the plan."""

    source: str
    target: str


@dataclass(frozen=True)
class SplitTopic:
    """For the change set: ``topic`` was cut into ``parts`` (plan keys, and ``topic`` itself when it keeps a
    part), or, when :func:`splits` regroups a parent's leaves, ``topic`` is that parent and ``parts`` its
    children now (the kept ones' ids and the new ones' keys). The CreateTopic, MoveAtom, UpdateTopic and
    DeleteTopic operations that follow carry it out."""

    topic: str
    parts: tuple[str, ...]


@dataclass(frozen=True)
class DeleteTopic:
    """Delete ``topic`` (a rebuild left it without atoms); by the time it comes, the plan has moved its atoms."""

    topic: str


Operation = CreateTopic | UpdateTopic | MoveAtom | MergeTopics | SplitTopic | DeleteTopic


@dataclass
class TreePlan:
    """What to write, in order: a topic is created or updated before its children and before any atom
    moves to it; deletions come last. ``len(plan)`` is the number of operations."""

    operations: list[Operation] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.operations)

    def of(self, kind: type) -> list:
        """The operations of one kind, in order (``plan.of(MoveAtom)``)."""
        return [op for op in self.operations if isinstance(op, kind)]

    def extend(self, other: TreePlan) -> None:
        """Append ``other``'s operations."""
        self.operations.extend(other.operations)


class Keys:
    """Plan keys ``<prefix>0``, ``<prefix>1``… for topics a plan creates, skipping ``taken`` ids (a tree made
    by an earlier plan, not yet written, holds keys as ids)."""

    def __init__(self, prefix: str = "new:", taken: Iterable[str] = ()) -> None:
        self.prefix = prefix
        self.taken = set(taken)
        self.count = 0

    def __call__(self) -> str:
        key = f"{self.prefix}{self.count}"
        while key in self.taken:
            self.count += 1
            key = f"{self.prefix}{self.count}"
        self.count += 1
        return key


def apply_plan(state: TreeState, plan: TreePlan) -> TreeState:
    """``state`` as it is once ``plan`` is written (a created topic's id is its plan key): to chain revisions
    within one digest (attach, then split what grew, then merge) and to check plans in tests.

    Sizes are recounted (distinct atoms per subtree). Raises InvalidInput when an operation names a topic
    the tree does not hold.
    """
    topics: dict[str, dict] = {t.id: {**t.__dict__, "atoms": list(t.atoms), "pinned_atoms": set(t.pinned_atoms)}
                               for t in state.topics}

    def get(topic_id: str) -> dict:
        if topic_id not in topics:
            raise InvalidInput(f"the plan names topic {topic_id}, which the tree does not hold")
        return topics[topic_id]

    for op in plan.operations:
        if isinstance(op, CreateTopic):
            topics[op.key] = {"id": op.key, "parent_id": op.parent, "label": op.label, "surface": op.surface,
                              "summary": op.summary, "centroid": op.centroid, "atoms": [], "size": 0,
                              "pinned": frozenset(), "pinned_atoms": set(), "worded": op.worded}
        elif isinstance(op, UpdateTopic):
            fields = get(op.topic)
            for name in ("label", "surface", "summary", "centroid", "worded"):
                if getattr(op, name) is not None:
                    fields[name] = getattr(op, name)
            if op.parent is not None:
                fields["parent_id"] = op.parent
        elif isinstance(op, MoveAtom):
            if op.source is not None and op.atom in get(op.source)["atoms"]:
                get(op.source)["atoms"].remove(op.atom)
            if op.atom not in get(op.to)["atoms"]:
                get(op.to)["atoms"].append(op.atom)
        elif isinstance(op, MergeTopics):
            source, target = get(op.source), get(op.target)
            target["atoms"].extend(a for a in source["atoms"] if a not in target["atoms"])
            target["pinned_atoms"] |= source["pinned_atoms"]
            for other in topics.values():
                if other["parent_id"] == op.source:
                    other["parent_id"] = op.target
            del topics[op.source]
        elif isinstance(op, DeleteTopic):
            get(op.topic)
            del topics[op.topic]
    draft = TreeState(tuple(TopicState(**{**f, "atoms": tuple(f["atoms"]), "size": 0,
                                           "pinned_atoms": frozenset(f["pinned_atoms"])}) for f in topics.values()))
    subtree = subtree_atoms(draft)
    return TreeState(tuple(TopicState(**{**t.__dict__, "size": len(subtree[t.id])}) for t in draft.topics))


def subtree_atoms(state: TreeState) -> dict[str, set[str]]:
    """Each previous topic's atoms, its subtree's included."""
    out: dict[str, set[str]] = {t.id: set(t.atoms) for t in state.topics}
    for topic in state.topics:
        for ancestor in state.ancestors(topic.id):
            out[ancestor].update(topic.atoms)
    return out
