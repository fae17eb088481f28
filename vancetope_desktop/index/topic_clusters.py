"""The topic tree's pure algorithms (issue 14): build a scope's tree from its atoms' vectors and texts, and
revise it locally once it is consolidated. numpy and scikit-learn only: no database, no Qt. Every function
returns a :class:`TreePlan` (a list of plain operations); ``services/topic_upkeep.py`` turns it into document
writes in the digest's transaction.

**Cold build** (:func:`build_tree`): leaves first, then the levels above them.

1. Leaves: Ward agglomerative clustering of the atoms' unit vectors into ``ceil(n / leaf_target)`` groups,
   groups over ``leaf_max`` cut again by :func:`split_members`. Above :data:`WARD_MAX` atoms (Ward keeps an
   ``n × n`` distance matrix: 5,000 atoms are 100 MB), k-means first cuts the atoms into chunks of at most
   that many and Ward runs in each. A leaf is cut again where its atoms are clearly distinct (the centroids of its
   Ward halves under :data:`DISTINCT_COSINE`), so a small library on three unrelated themes gets three topics.
2. Levels: while a level has more than ``max_children`` nodes, its nodes' centroids are grouped the same way
   into ``ceil(count / branching)`` parents. The root takes the last level.
3. Words: each leaf's lexical surface is its c-TF-IDF keywords against the other leaves (class-based TF-IDF,
   Grootendorst 2022: ``tf(t, c) × log(1 + A / f(t))``, ``tf`` the term's share of the leaf's terms, ``A``
   the mean terms per leaf, ``f(t)`` the term's count in all leaves), over the product's stemmed phrase keys
   (``generation.keywords``: its stop words, Snowball stems, runs of up to two content words), shown as first
   written but lower-cased unless an acronym, mixed case or a proper noun. A parent's surface combines its
   children's (:func:`relabel`). The label (for people; the surface routes queries) is the first
   :data:`LABEL_TERMS` surface terms, nouns before the members' verbs ("Sleep · memory · REM"); the summary the
   member statement nearest the centroid, shortened.

Why Ward (tests/benchmarks/bench_topic_clusters.py, 2 December 2026, 2 cores at load 6-8; the tables are in
tests/benchmarks/README.md): on 2,718 sentences of 300 SciFact abstracts, Ward's leaves kept 53% of the pairs of
sentences of one abstract together (pair recall), top-down k-means 30%, HDBSCAN 50%; it took 9 s, k-means 24 s,
HDBSCAN 37 s (c-TF-IDF words: 4 s of each then, about half since). On LoCoMo turns, the leaves nearest a question by
centroid, up to 5% / 10% of the turns, held its evidence turns 39% / 52% of the time with Ward, 33% / 42% with
k-means, 37% / 48% with HDBSCAN. (On SciFact k-means' smaller, split-up leaves routed a little better, 98% against
94% of the claims' abstracts reached at 5%: an abstract spread over more leaves is reached by more of them.) HDBSCAN
(smallest cluster 5) called 56% of SciFact's sentences noise and 54-81% of LoCoMo's turns, which it cut into two
clusters: its leaves are mostly the nearest-centroid placing of noise and the cutting of big clusters.

Local revision against a rebuild (same benchmark, 5,245 SciFact sentences, a tree built cold on the first N₀
then revised in days of 100 new atoms): the leaves nearest a claim, up to 5 / 10 / 25% of the atoms, reach its
abstracts 96.2 / 98.8 / 99.7% of the time in a rebuilt tree, 95.3 / 97.6 / 99.7% revised from N₀ = 2,000,
91.7 / 96.8 / 98.8% from 1,000, 89.1 / 93.5 / 96.2% from 300. Revised leaves are only ever cut from the
leaves of the cold build, never regrouped across them, so a small cold build's coarse leaves leave their mark
(with leaves as full as the revised ones, a rebuild still routes best). Hence ``Settings.topic_consolidate_at``
near 2,000 (a cold build of 2,000 atoms: 1.7 s).

**Revisions** once consolidated: :func:`attach` (each new atom to its nearest leaf by centroid, running-mean
centroids), :func:`splits` (leaves past ``leaf_max``), :func:`merges` (near-identical sibling leaves),
:func:`relabel` (a parent's words from its children's). A person's edits are pins (``core.topics``): a pinned
label, parent or surface is never rewritten, an atom pinned to a topic never leaves it, a topic holding pins
is never merged away.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from sklearn.cluster import AgglomerativeClustering, KMeans

from ..core.errors import InvalidInput
from ..generation.keywords import STOP_WORDS, overlaps, stemmer, written_phrases

WARD_MAX = 5_000
"""Most atoms one Ward clustering takes (its distance matrix is ``n² / 2`` float64: 100 MB here); more are
first cut into chunks of at most this many by k-means."""
DISTINCT_COSINE = 0.35
"""A cold build's leaf is cut in two when the centroids of its Ward halves have a cosine under this, however
small it is (:func:`_distinct`), so a small library on unrelated themes gets a topic per theme. Measured with
the bundled model (all-MiniLM-L6-v2; /tmp script, 2 December 2026, the 12 statements of
tests/index/test_topic_clusters.py's ``THEMES``): halves on different themes 0.03 (transformers against the
rest) and 0.30 (sleep against coffee), halves within one theme 0.48-0.79 (0.38 for a lone statement against its
theme's three others). On real leaves (bench_topic_clusters.py's cold build, leaves aimed at 20 atoms) the
halves' cosine is under 0.35 for 1.4% of 284 SciFact leaves (median 0.65) and for none of LoCoMo's (median
0.77-0.81; lowest 0.52), so big libraries are cut about as before."""
DISTINCT_PART = 2
"""The fewest atoms each half of a :data:`DISTINCT_COSINE` cut holds: a single odd statement stays with its
leaf rather than becoming a topic of one."""
SPLIT_SEED = 0
"""k-means' random seed: a split must come out the same on every run (the digest is replayed in tests)."""
SPLIT_RESTARTS = 4
"""k-means restarts per cut of more than WARD_MAX atoms (the best inertia wins)."""
PHRASE_WORDS = 2
"""Surface terms are single words or two-word phrases ("stem cells", "signaling pathways" on SciFact); a
phrase must occur twice in a leaf to count, which three-word runs of a leaf's few statements seldom do."""
LABEL_TERMS = 3
"""A label is the first three surface terms ("methylation, epigenetic, DNA" on SciFact, "camping, nature, kids"
on LoCoMo): one line of the Topics pane, and enough words to tell sibling topics apart."""
LABEL_JOIN = " · "
"""Between a label's terms ("Sleep · memory · REM"): a list of keywords, not a sentence, so no "and" (which
would also need the library's language); a term never holds it, where a comma may be read into a phrase."""
SUMMARY_CHARS = 140
"""A summary is cut at a word boundary before this many characters (one line of the Topics pane)."""
REWORD_SHARE = 0.5
"""A leaf's words are renewed once it holds half as many atoms again as they were made from (:func:`rewords`).
A choice: a cold build's leaf is made at about ``leaf_target`` (20) atoms and splits past ``leaf_max`` (40), so
its words are renewed once in between (at 30), and a leaf grown from 2 to 4 atoms at once; each renewal costs
one c-TF-IDF over the leaf and its sibling leaves."""
MERGE_OVERLAP = 0.2
"""Sibling leaves merge only when the shorter surface shares at least this share of its terms with the other
(see :func:`merges`): two leaves close in meaning without a word in common say different things.
Measured: the two halves of one leaf share 27-33% (median), distinct sibling leaves 0-7%."""
MATCH_OVERLAP = 0.5
"""A rebuilt topic takes a previous topic's id when their atoms' Jaccard overlap is at least this (a choice:
then most of their atoms are the same): the same topic, updated rather than deleted and made anew, so its
history and undo stay with it (a pinned topic takes its best overlap above 0, to keep the person's edit)."""


# -- inputs ---------------------------------------------------------------------------------------


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
        surface_terms: keywords in a lexical surface.
    """

    leaf_max: int = 40
    leaf_fill: float = 0.5
    branching: int = 10
    max_children: int = 20
    surface_terms: int = 15

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


# -- the plan -------------------------------------------------------------------------------------


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


class _Keys:
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


# -- splitting ------------------------------------------------------------------------------------


def split_members(vectors: np.ndarray, parts: int = 2) -> list[np.ndarray]:
    """Cut a topic's atoms into ``parts`` groups of like meaning.

    Ward agglomerative clustering of their unit vectors (the cold build's method; deterministic, and it always
    gives ``parts`` groups, duplicate vectors or not); past :data:`WARD_MAX` atoms, k-means (seeded).

    Args:
        vectors: ``n × d`` float array, one row per atom (unit length as the embedder gives them).
        parts: how many groups (at least 2).

    Returns:
        ``parts`` sorted int arrays of row indices, each non-empty, together covering ``0..n-1`` once, ordered by
        their first row. Deterministic.

    Raises:
        InvalidInput: ``parts`` under 2, ``vectors`` not a 2-d array, fewer rows than ``parts``, or a value
        that is not finite.
    """
    matrix = np.asarray(vectors, dtype=np.float64)
    if parts < 2:
        raise InvalidInput(f"a topic is split into at least 2 parts, not {parts}")
    if matrix.ndim != 2:
        raise InvalidInput(f"split_members needs one vector per row (a 2-d array), not shape {matrix.shape}")
    rows = matrix.shape[0]
    if rows < parts:
        raise InvalidInput(f"cannot split {rows} atom{'s' if rows != 1 else ''} into {parts} parts")
    if not np.isfinite(matrix).all():
        raise InvalidInput("cannot split atoms whose vectors hold NaN or infinite values")
    if rows <= WARD_MAX:
        return _by_label(AgglomerativeClustering(n_clusters=parts, linkage="ward").fit_predict(matrix))
    if np.unique(matrix, axis=0).shape[0] >= parts:
        labels = KMeans(n_clusters=parts, n_init=SPLIT_RESTARTS, random_state=SPLIT_SEED).fit_predict(matrix)
        groups = _by_label(labels)
        if len(groups) == parts:
            return groups
    # Fewer distinct vectors than parts: k-means would leave a group empty, so the rows are dealt out in order.
    return list(np.array_split(np.arange(rows), parts))


def _by_label(labels: np.ndarray) -> list[np.ndarray]:
    """Row indices per label, ordered by their first row."""
    return sorted((np.flatnonzero(labels == label) for label in np.unique(labels)), key=lambda g: int(g[0]))


def _bounded(vectors: np.ndarray, rows: np.ndarray, most: int) -> list[np.ndarray]:
    """``rows`` (indices into ``vectors``) cut by :func:`split_members` until no group holds more than ``most``."""
    pending, done = [rows], []
    while pending:
        group = pending.pop()
        if len(group) <= most:
            done.append(group)
            continue
        parts = max(2, math.ceil(len(group) / most))
        pending.extend(group[part] for part in split_members(vectors[group], parts))
    return sorted(done, key=lambda group: int(group.min()))


def _groups(vectors: np.ndarray, count: int) -> list[np.ndarray]:
    """Rows of ``vectors`` in ``count`` groups of like meaning (Ward; k-means chunks first past WARD_MAX)."""
    rows = len(vectors)
    if count <= 1 or rows <= 1:
        return [np.arange(rows)]
    count = min(count, rows)
    if rows > WARD_MAX:
        chunks = _bounded(vectors, np.arange(rows), WARD_MAX)
        out = []
        for chunk in chunks:
            share = max(1, round(count * len(chunk) / rows))
            out.extend(chunk[group] for group in _groups(vectors[chunk], share))
        return sorted(out, key=lambda group: int(group.min()))
    return split_members(vectors, count)


def _unit(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return (vector / norm if norm > 0 else vector).astype(np.float32)


def _centroid(vectors: np.ndarray) -> np.ndarray:
    """The unit mean of ``vectors`` (rows)."""
    return _unit(vectors.astype(np.float64).mean(axis=0))


# -- words ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Words:
    label: str
    surface: tuple[str, ...]


def _class_words(texts_by_class: Sequence[Sequence[str]], terms: int) -> list[tuple[str, ...]]:
    """Each class's ``terms`` best c-TF-IDF keywords (written forms), best first (see the module doc)."""
    phrases = [[pair for text in texts for pair in written_phrases(text, PHRASE_WORDS)] for texts in texts_by_class]
    counts = [Counter(key for key, _ in pairs) for pairs in phrases]
    overall: Counter[str] = Counter()
    for counter in counts:
        overall.update(counter)
    mean_terms = sum(overall.values()) / max(1, len(counts))
    out = []
    for texts, pairs, counter in zip(texts_by_class, phrases, counts, strict=True):
        total = sum(counter.values())
        forms: dict[str, str] = {}
        for key, form in pairs:
            forms.setdefault(key, form)
        order = {key: i for i, key in enumerate(forms)}
        scored = sorted(
            (-(count / total) * math.log(1 + mean_terms / overall[key]), order.get(key, 0), key)
            for key, count in counter.items()
            # A phrase said once is a coincidence of words, not a key phrase (generation.keywords' rule).
            if " " not in key or count >= 2
        )
        chosen: list[str] = []
        taken: list[set[str]] = []
        seen = _casing(texts)
        for _, _, key in scored:
            if overlaps(key, taken):
                continue
            chosen.append(" ".join(_cased(word, seen) for word in forms.get(key, key).split()))
            taken.append(set(key.split()))
            if len(chosen) == terms:
                break
        out.append(tuple(chosen))
    return out


_TOKEN = re.compile(r"[^\W_][\w'’-]*")
_SENTENCE_END = re.compile(r"[.!?…:;]\s*$")
_VERB_CUES = frozenset({"to", "can", "could", "may", "might", "will", "would", "should", "must", "it", "they", "we",
                        "which", "that", "who", "also", "often", "not", "does", "do", "did"})
"""Words after which a word is a verb ("to improve", "it improves")."""
_OBJECT_WORDS = frozenset({"the", "a", "an", "this", "these", "those", "its", "their", "our", "his", "her"})
"""Words that open an object: a word before one is a verb ("Knead the dough")."""


def _cased(word: str, seen: Mapping[str, tuple[bool, bool]]) -> str:
    """``word`` lower-cased unless written in capitals or mixed case ("GPU", "FlashAttention", "mRNA") or
    capitalised everywhere the members write it, once at least not starting a sentence (a proper noun).
    ``seen``: lower-cased word → (always capitalised, seen inside a sentence), from :func:`_casing`."""
    if any(c.isupper() for c in word[1:]):
        return word
    always, inside = seen.get(word.casefold(), (False, False))
    return word if always and inside else word.lower()


def _casing(texts: Iterable[str]) -> dict[str, tuple[bool, bool]]:
    """Lower-cased word → (every occurrence starts with a capital, one of them is not a sentence's first word)."""
    seen: dict[str, tuple[bool, bool]] = {}
    for text in texts:
        for match in _TOKEN.finditer(text):
            word = match.group()
            first = not text[:match.start()].strip() or _SENTENCE_END.search(text[:match.start()]) is not None
            always, inside = seen.get(word.casefold(), (True, False))
            seen[word.casefold()] = (always and word[0].isupper(), inside or (not first and word[0].isupper()))
    return seen


def _verb_like(term: str, texts: Iterable[str]) -> bool:
    """Whether the single word ``term`` is used as a verb in most of its occurrences in ``texts``: after "to", a
    modal or a pronoun, before a determiner (an object: "Knead the dough", "by replaying the day"), or as
    "-s"/"-ed" between two content words ("Sleep consolidates memory"); any other use counts as a noun's. A
    heuristic (no tagger model ships), to put nouns first in a label."""
    target = term.casefold()
    votes = 0
    for text in texts:
        words = [w.casefold() for w in _TOKEN.findall(text)]
        for i, word in enumerate(words):
            if word != target:
                continue
            before = words[i - 1] if i else ""
            after = words[i + 1] if i + 1 < len(words) else ""
            inflected = (word.endswith("s") and not word.endswith(("ss", "us", "is"))) or word.endswith("ed")
            if before in _VERB_CUES or after in _OBJECT_WORDS or (
                    inflected and before and before not in STOP_WORDS and after and after not in STOP_WORDS):
                votes += 1
            else:
                votes -= 1
    return votes > 0


def _label(surface: Sequence[str], texts: Sequence[str] = ()) -> str:
    """A topic's name for people: its first :data:`LABEL_TERMS` surface terms, single words used as verbs in
    ``texts`` (the members, when given) after the others, joined by :data:`LABEL_JOIN`, the first letter
    capitalised (unless its word is written in mixed case, "mRNA")."""
    terms = list(surface)
    if texts:
        verbs = {t for t in terms if " " not in t and _verb_like(t, texts)}
        terms = [t for t in terms if t not in verbs] + [t for t in terms if t in verbs]
    label = LABEL_JOIN.join(terms[:LABEL_TERMS])
    first = label.split(" ", 1)[0]
    return label[:1].upper() + label[1:] if first.islower() else label


def _stem_key(term: str) -> str:
    stem = stemmer().stemWord
    return " ".join(stem(word.casefold()) for word in term.split())


def combine_surfaces(children: Sequence[tuple[Sequence[str], int]], terms: int) -> tuple[str, ...]:
    """A parent's surface from its children's: each child's term weighs its child's size times
    ``1 - rank / len(surface)`` (its first term 1, its last near 0), weights summed per stem key; the best
    ``terms``, shown as the heaviest child wrote them.

    Args:
        children: ``(surface, size)`` per child, ``size`` its atoms.
        terms: how many to keep.
    """
    weight: dict[str, float] = defaultdict(float)
    forms: dict[str, str] = {}
    first: dict[str, int] = {}
    for surface, size in sorted(children, key=lambda child: -child[1]):
        for rank, term in enumerate(surface):
            key = _stem_key(term)
            weight[key] += max(size, 1) * (1 - rank / len(surface))
            forms.setdefault(key, term)
            first.setdefault(key, len(first))
    chosen: list[str] = []
    taken: list[set[str]] = []
    for key in sorted(weight, key=lambda k: (-weight[k], first[k])):
        if overlaps(key, taken):
            continue
        chosen.append(forms[key])
        taken.append(set(key.split()))
        if len(chosen) == terms:
            break
    return tuple(chosen)


def _summary(texts: Sequence[str], vectors: np.ndarray, centroid: np.ndarray) -> str:
    """The member statement nearest ``centroid``, cut at a word before :data:`SUMMARY_CHARS`."""
    if not texts:
        return ""
    best = " ".join(texts[int(np.argmax(vectors @ centroid))].split())
    if len(best) <= SUMMARY_CHARS:
        return best
    cut = best[:SUMMARY_CHARS - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


# -- cold build -----------------------------------------------------------------------------------


@dataclass
class _Node:
    """A topic of a tree being built: ``rows`` its own atoms (table rows), ``ident`` its id or plan key."""

    rows: list[int] = field(default_factory=list)
    children: list[_Node] = field(default_factory=list)
    ident: str = ""
    parent: _Node | None = None

    def walk(self) -> Iterable[_Node]:
        """This node, then its subtree depth-first (parents before children)."""
        yield self
        for child in self.children:
            yield from child.walk()

    def subtree_rows(self) -> list[int]:
        return [row for node in self.walk() for row in node.rows]


def _leaf_groups(vectors: np.ndarray, params: TreeParams) -> list[np.ndarray]:
    """Rows of ``vectors`` in leaves of at most ``leaf_max``, about ``leaf_target`` each, each cut again where
    its atoms are clearly distinct (:func:`_distinct`; see the module doc)."""
    count = math.ceil(len(vectors) / params.leaf_target)
    return [distinct for part in _groups(vectors, count) for group in _bounded(vectors, part, params.leaf_max)
            for distinct in _distinct(vectors, group)]


def _distinct(vectors: np.ndarray, rows: np.ndarray) -> list[np.ndarray]:
    """``rows`` cut in two by :func:`split_members` while both halves hold at least :data:`DISTINCT_PART` atoms
    and their centroids' cosine is under :data:`DISTINCT_COSINE`, recursively; ``[rows]`` when they are not."""
    if len(rows) < 2 * DISTINCT_PART:
        return [rows]
    halves = [rows[half] for half in split_members(vectors[rows], 2)]
    if min(len(half) for half in halves) < DISTINCT_PART \
            or float(_centroid(vectors[halves[0]]) @ _centroid(vectors[halves[1]])) >= DISTINCT_COSINE:
        return [rows]
    return sorted((part for half in halves for part in _distinct(vectors, half)), key=lambda g: int(g.min()))


def _fresh_tree(vectors: np.ndarray, rows: np.ndarray, params: TreeParams) -> _Node:
    """Root → levels → leaves over ``rows`` (table rows; ``vectors`` the whole table's), no words yet."""
    root = _Node()
    if len(rows) == 0:
        return root
    nodes = [_Node(rows=sorted(int(rows[i]) for i in leaf)) for leaf in _leaf_groups(vectors[rows], params)]
    while len(nodes) > params.max_children:
        centroids = np.vstack([_centroid(vectors[node.subtree_rows()]) for node in nodes])
        groups = [bounded for group in _groups(centroids, math.ceil(len(nodes) / params.branching))
                  for bounded in _bounded(centroids, group, params.max_children)]
        nodes = [_Node(children=[nodes[i] for i in group]) for group in groups]
    root.children = nodes
    for node in root.walk():
        for child in node.children:
            child.parent = node
    return root


def _subtree_atoms(state: TreeState) -> dict[str, set[str]]:
    """Each previous topic's atoms, its subtree's included."""
    out: dict[str, set[str]] = {t.id: set(t.atoms) for t in state.topics}
    for topic in state.topics:
        for ancestor in state.ancestors(topic.id):
            out[ancestor].update(topic.atoms)
    return out


def _match(nodes: list[_Node], ids: tuple[str, ...], previous: TreeState) -> dict[int, str]:
    """Fresh node index → the previous topic whose id it takes (one-to-one, the root to the root; see
    :data:`MATCH_OVERLAP`)."""
    old = _subtree_atoms(previous)
    fresh = [{ids[row] for row in node.subtree_rows()} for node in nodes]
    candidates = []
    for topic in previous.topics:
        if topic.parent_id is None:
            continue
        for index, atoms in enumerate(fresh[1:], start=1):
            shared = len(old[topic.id] & atoms)
            if not shared:
                continue
            jaccard = shared / len(old[topic.id] | atoms)
            if topic.has_pins or jaccard >= MATCH_OVERLAP:
                candidates.append((not topic.has_pins, -jaccard, index, topic.id))
    matched = {0: previous.root.id}
    taken = {previous.root.id}
    for _, _, index, topic_id in sorted(candidates):
        if index not in matched and topic_id not in taken:
            matched[index] = topic_id
            taken.add(topic_id)
    return matched


def build_tree(ids: Sequence[str], vectors: np.ndarray, texts: Sequence[str], *, previous: TreeState | None = None,
               params: TreeParams | None = None) -> TreePlan:
    """A whole tree for a scope's atoms, from scratch (the cold start; see the module doc).

    Args:
        ids, vectors, texts: the scope's live atoms (``n × d`` float32 unit vectors; checked by :func:`atom_table`).
        previous: the tree stored now, if any. Its pins hold: atoms pinned to a topic stay there (and out of the
            clustering), a pinned label, surface or parent is kept. A rebuilt topic takes the id of the previous
            topic with the most overlapping atoms (:data:`MATCH_OVERLAP`; a pinned topic its best overlap), so
            an unchanged topic is updated, not deleted and made anew; a pinned topic that keeps pinned atoms but
            matches no new one stays as a leaf under its parent (or the root when the parent went).
        params: the tree's shape (:class:`TreeParams`).

    Returns:
        A plan: the root (CreateTopic ``new:0`` with an empty label, which the upkeep names after the scope, or
        an UpdateTopic of the previous root), then every topic parents first, then the MoveAtom operations that
        put each atom in its leaf (and its pinned topics), then DeleteTopic for previous topics no longer used.
        Every atom is in exactly one leaf besides the topics it is pinned to. Deterministic.

    Raises:
        InvalidInput: see :func:`atom_table`.
    """
    params = params or TreeParams()
    table = atom_table(ids, vectors, texts)
    return _rebuild(table, previous, params, _Keys(taken=previous.by_id if previous else ()))


def _rebuild(table: AtomTable, previous: TreeState | None, params: TreeParams, keys: _Keys, *,
             origin: str = "cold", name_root: bool = False) -> TreePlan:
    """:func:`build_tree` over ``table`` (all of it) in place of ``previous``, new topics keyed by ``keys``."""
    live = set(table.ids)
    held: dict[str, list[str]] = defaultdict(list)  # topic id → its pinned atoms still alive
    for topic in previous.topics if previous else ():
        for atom in sorted(topic.pinned_atoms & live):
            held[topic.id].append(atom)
    held_atoms = {atom for atoms in held.values() for atom in atoms}
    free = np.array([row for row, atom in enumerate(table.ids) if atom not in held_atoms], dtype=np.int64)
    root = _fresh_tree(table.vectors, free, params)
    nodes = list(root.walk())
    matched = _match(nodes, table.ids, previous) if previous else {}
    for index, node in enumerate(nodes):
        node.ident = matched.get(index) or keys()
    by_ident = {node.ident: node for node in nodes}
    if previous:
        _place_pins(root, by_ident, held, previous, table)
    return _cold_plan(root, table, previous, params, origin=origin, name_root=name_root)


def _place_pins(root: _Node, by_ident: dict[str, _Node], held: Mapping[str, list[str]], previous: TreeState,
                table: AtomTable) -> None:
    """Put pinned atoms in their topics, keep pinned topics that matched nothing, honour pinned parents."""
    for topic_id, atoms in held.items():
        node = by_ident.get(topic_id)
        if node is None:
            parent = by_ident.get(previous.by_id[topic_id].parent_id or "", root)
            node = by_ident[topic_id] = _Node(ident=topic_id, parent=parent)
            parent.children.append(node)
        node.rows.extend(int(row) for row in table.rows(atoms))
    for topic in previous.topics:
        node = by_ident.get(topic.id)
        target = by_ident.get(topic.parent_id or "")
        if "parent" not in topic.pinned or node is None or target is None or node.parent is target \
                or any(n is target for n in node.walk()):
            continue
        node.parent.children.remove(node)
        target.children.append(node)
        node.parent = target
    # A level whose every atom was pinned elsewhere is left empty: drop it.
    for node in reversed(list(root.walk())):
        if node is not root and not node.subtree_rows():
            node.parent.children.remove(node)


def _cold_plan(root: _Node, table: AtomTable, previous: TreeState | None, params: TreeParams, *,
               origin: str = "cold", name_root: bool = False) -> TreePlan:
    """The operations writing the built tree ``root`` over ``previous`` (see :func:`build_tree`); the root's
    label is left to the upkeep (the scope's name) unless ``name_root`` (a split leaf on top of its subtree)."""
    nodes = list(root.walk())
    old = previous.by_id if previous else {}
    with_atoms = [node for node in nodes if node.rows and not node.children]
    leaf_words = dict(zip((id(n) for n in with_atoms),
                          _class_words([[table.texts[r] for r in n.rows] for n in with_atoms], params.surface_terms),
                          strict=True))
    surfaces: dict[int, tuple[str, ...]] = {}
    plan = TreePlan()
    for node in reversed(nodes):  # children first: a parent's words come from its children's
        before = old.get(node.ident)
        if before is not None and "surface" in before.pinned:
            surfaces[id(node)] = before.surface
        elif node.children:
            surfaces[id(node)] = combine_surfaces(
                [(surfaces[id(c)], len(c.subtree_rows())) for c in node.children], params.surface_terms)
        else:
            surfaces[id(node)] = leaf_words.get(id(node), ())
    for node in nodes:
        rows = node.subtree_rows()
        centroid = _centroid(table.vectors[rows]) if rows else None
        texts = [table.texts[r] for r in rows]
        summary = _summary(texts, table.vectors[rows], centroid) if rows else ""
        surface = surfaces[id(node)]
        worded = None if node.children else len(node.rows)
        before = old.get(node.ident)
        parent = node.parent.ident if node.parent else None
        if before is None:
            plan.operations.append(CreateTopic(node.ident, parent, _label(surface, texts) if node.parent or name_root
                                               else "", surface, summary, centroid, origin, worded))
            continue
        plan.operations.append(UpdateTopic(
            node.ident,
            label=None if (node is root and not name_root) or "label" in before.pinned else _label(surface, texts),
            surface=None if "surface" in before.pinned else surface,
            summary=summary, centroid=centroid,
            parent=parent if parent != before.parent_id else None, worded=worded))
    plan.operations.extend(_membership_moves(nodes, table, previous))
    used = {node.ident for node in nodes}
    for topic in reversed(previous.topics if previous else ()):
        if topic.id not in used:
            plan.operations.append(DeleteTopic(topic.id))
    return plan


def _membership_moves(nodes: Sequence[_Node], table: AtomTable, previous: TreeState | None) -> list[MoveAtom]:
    """MoveAtom operations taking every atom from its previous topics to its new ones."""
    new: dict[str, list[str]] = defaultdict(list)
    for node in nodes:
        for row in node.rows:
            new[table.ids[row]].append(node.ident)
    old: dict[str, list[str]] = defaultdict(list)
    for topic in previous.topics if previous else ():
        for atom in topic.atoms:
            old[atom].append(topic.id)
    moves = []
    for atom in table.ids:
        leaving = [t for t in old[atom] if t not in new[atom]]
        joining = [t for t in new[atom] if t not in old[atom]]
        for index, topic in enumerate(joining):
            moves.append(MoveAtom(atom, topic, leaving[index] if index < len(leaving) else None))
        for topic in leaving[len(joining):]:
            moves.append(MoveAtom(atom, new[atom][0], topic))
    return moves


# -- revisions ------------------------------------------------------------------------------------


def attach(ids: Sequence[str], vectors: np.ndarray, state: TreeState) -> TreePlan:
    """Put each new atom in the leaf whose centroid is nearest (cosine), and move the centroids of that leaf
    and its ancestors by a running mean.

    The nearest leaf overall, not a descent from the root with a small beam: it costs one ``new × leaves``
    product (1,000 new atoms against the 25,000 leaves of a million atoms: 10 GFLOP, about a second), and
    a descent with a beam of 3 ended on another leaf for 3% of held-out SciFact sentences, and on a leaf holding
    another sentence of their abstract for 73.1% against 74.9% (beam of 1: 66.8%; bench_topic_clusters.py).
    A leaf without a centroid (no atom yet) takes none. Ties go to the first leaf in the tree's order.

    The running mean: a topic of ``size`` atoms with unit centroid ``c`` that gains vectors ``v₁…vₖ`` gets
    ``unit(size × c + Σ vᵢ)``; the stored centroid is unit length, so the old atoms weigh ``1 / |mean|``
    a little more than exactly, corrected whenever the topic is split or rebuilt.

    Args:
        ids, vectors: the new atoms (``n × d`` float32 unit vectors), not yet in the tree.
        state: the tree.

    Returns:
        MoveAtom per atom (``source`` None), then an UpdateTopic of the centroid of every topic that gained atoms
        (parents first). A tree without any centroid takes every atom on its root.

    Raises:
        InvalidInput: shapes that do not match, a vector whose length differs from the centroids'.
    """
    table = atom_table(ids, vectors, [""] * len(ids))
    plan = TreePlan()
    if not table.ids:
        return plan
    leaves = [t for t in state.leaves() if t.centroid is not None]
    if leaves and leaves[0].centroid.shape[0] != table.vectors.shape[1]:
        raise InvalidInput(f"atom vectors have {table.vectors.shape[1]} dimensions, the tree's centroids "
                           f"{leaves[0].centroid.shape[0]}")
    if leaves:
        best = np.argmax(table.vectors @ np.vstack([t.centroid for t in leaves]).T, axis=1)
        targets = [leaves[int(i)].id for i in best]
    else:
        targets = [state.root.id] * len(table.ids)
    gained: dict[str, list[int]] = defaultdict(list)
    for row, (atom, target) in enumerate(zip(table.ids, targets, strict=True)):
        plan.operations.append(MoveAtom(atom, target))
        for topic in [target, *state.ancestors(target)]:
            gained[topic].append(row)
    for topic in state.topics:
        if topic.id in gained:
            total = table.vectors[gained[topic.id]].astype(np.float64).sum(axis=0)
            if topic.centroid is not None:
                total += topic.centroid * max(topic.size, 0)
            plan.operations.append(UpdateTopic(topic.id, centroid=_unit(total)))
    return plan


def splits(state: TreeState, atoms: AtomTable, params: TreeParams | None = None, *,
           regroup: bool = False) -> TreePlan:
    """Split every leaf holding more than ``params.leaf_max`` atoms.

    With ``regroup``, a leaf whose parent holds only leaves is not cut alone: the parent's leaves are rebuilt
    together as a cold build of that subtree (Ward over all their atoms, ids kept by overlap, pins kept,
    :func:`build_tree`'s rules), so atoms that an early, coarse leaf drew to itself can join a sibling. Measured
    (bench_topic_clusters.py, 5,245 SciFact sentences, a tree built cold on the first 300 or 1,000 and revised
    in days of 100): the revised tree then routes claims as well as a rebuild on all (96.2 / 98.8 / 99.7% of
    their abstracts reached at 5 / 10 / 25% of the atoms, against 89.1 / 93.5 / 96.2% cutting leaves alone
    from 300), at 8-9 s instead of 3-4 s per 1,000 new atoms, and depth 6 instead of 3. The atoms needed:
    :func:`split_atoms`.

    Otherwise (no ``regroup``, or a parent with inner children) a leaf's atoms pinned to it stay; the others are
    cut by :func:`split_members` into parts of at most ``leaf_max``. When its parent has room
    (``max_children``), the leaf keeps its biggest part and the others become its new siblings; otherwise the
    leaf becomes a topic over a subtree built as in a cold build (a big leaf gets levels of its own). New
    topics' surfaces are c-TF-IDF keywords against the other parts; the leaf's label and surface are renewed
    unless pinned, and its parent is relabelled (:func:`relabel`). New topics are keyed ``<topic id>/<n>``,
    skipping ids the tree holds already.

    Args:
        state: the tree. atoms: at least :func:`split_atoms` (vectors and texts).
        params: the tree's shape.
        regroup: rebuild an oversized leaf's sibling leaves with it (see above).

    Returns:
        Per split leaf or regrouped parent: SplitTopic, CreateTopic (``origin`` "split"), UpdateTopic, MoveAtom
        and (regroup) DeleteTopic operations. Empty when no leaf is too big.

    Raises:
        InvalidInput: an atom :func:`split_atoms` names missing from ``atoms``.
    """
    params = params or TreeParams()
    plan = TreePlan()
    children: dict[str, int] = {}  # parent → its children once this plan's splits beside a leaf are done
    regrouped = _regrouped_parents(state, params) if regroup else {}
    needed = split_atoms(state, params, regroup=regroup)
    missing = sorted(a for a in needed if a not in atoms)
    if missing:
        raise InvalidInput(f"{len(missing)} atoms of the topics to split are not given, e.g. {missing[0]}")
    for parent, kids in regrouped.items():
        plan.extend(_regroup(state, parent, kids, atoms, params))
    for leaf in state.leaves():
        if len(leaf.atoms) <= params.leaf_max or leaf.parent_id in regrouped:
            continue
        movable = atoms.rows(a for a in leaf.atoms if a not in leaf.pinned_atoms)
        if len(movable) < 2:
            continue  # all but one of its atoms are a person's: nothing may move
        groups = [movable[g] for part in split_members(atoms.vectors[movable], max(2, math.ceil(
            len(movable) / params.leaf_max))) for g in _bounded(atoms.vectors[movable], part, params.leaf_max)]
        # Counted as this plan leaves them: two leaves of one parent may split in one call.
        siblings = children.get(leaf.parent_id, len(state.children[leaf.parent_id])) if leaf.parent_id \
            else params.max_children
        if siblings - 1 + len(groups) <= params.max_children:
            plan.extend(_split_beside(leaf, groups, atoms, params, _Keys(f"{leaf.id}/", state.by_id)))
            children[leaf.parent_id] = siblings - 1 + len(groups)
        else:
            plan.extend(_split_below(leaf, movable, atoms, params, _Keys(f"{leaf.id}/", state.by_id)))
    if not children:
        return plan
    after = apply_plan(state, plan)
    for parent in children:
        update = relabel(after.by_id[parent], [(after.by_id[c].surface, after.by_id[c].size)
                                               for c in after.children[parent]], params)
        if update is not None:
            plan.operations.append(update)
    return plan


def _split_beside(leaf: TopicState, groups: list[np.ndarray], atoms: AtomTable, params: TreeParams,
                  new_key: _Keys) -> TreePlan:
    """The leaf keeps its biggest group (and its pinned atoms); the other groups become its siblings."""
    keep = max(range(len(groups)), key=lambda i: (len(groups[i]), -i))
    pinned = [int(r) for r in atoms.rows(a for a in leaf.atoms if a in leaf.pinned_atoms)]
    classes = [[*groups[i], *(pinned if i == keep else [])] for i in range(len(groups))]
    words = _class_words([[atoms.texts[r] for r in rows] for rows in classes], params.surface_terms)
    keys = [leaf.id if i == keep else new_key() for i in range(len(groups))]
    plan = TreePlan([SplitTopic(leaf.id, tuple(keys))])
    for i, rows in enumerate(classes):
        centroid = _centroid(atoms.vectors[rows])
        texts = [atoms.texts[r] for r in rows]
        summary = _summary(texts, atoms.vectors[rows], centroid)
        if i == keep:
            plan.operations.append(UpdateTopic(
                leaf.id, label=None if "label" in leaf.pinned else _label(words[i], texts),
                surface=None if "surface" in leaf.pinned else words[i], summary=summary, centroid=centroid,
                worded=len(rows)))
        else:
            plan.operations.append(CreateTopic(keys[i], leaf.parent_id, _label(words[i], texts), words[i], summary,
                                               centroid, "split", len(rows)))
    for i, rows in enumerate(groups):
        if i != keep:
            plan.operations.extend(MoveAtom(atoms.ids[r], keys[i], leaf.id) for r in rows)
    return plan


def _split_below(leaf: TopicState, movable: np.ndarray, atoms: AtomTable, params: TreeParams,
                 new_key: _Keys) -> TreePlan:
    """The leaf becomes the top of a subtree built over its movable atoms as in a cold build."""
    root = _fresh_tree(atoms.vectors, movable, params)
    root.ident = leaf.id
    root.rows = [int(r) for r in atoms.rows(a for a in leaf.atoms if a in leaf.pinned_atoms)]
    for node in list(root.walk())[1:]:
        node.ident = new_key()
    alone = TreeState((TopicState(leaf.id, None, leaf.label, leaf.surface, leaf.summary, leaf.centroid,
                                  leaf.atoms, leaf.size, leaf.pinned, leaf.pinned_atoms),))
    built = _cold_plan(root, atoms, alone, params, origin="split", name_root=leaf.parent_id is not None)
    parts = tuple(op.key for op in built.of(CreateTopic) if op.parent == leaf.id)
    return TreePlan([SplitTopic(leaf.id, parts), *built.operations])


def _regrouped_parents(state: TreeState, params: TreeParams) -> dict[str, list[TopicState]]:
    """Parents of oversized leaves whose children are all leaves → those children (see :func:`splits`)."""
    out: dict[str, list[TopicState]] = {}
    for leaf in state.leaves():
        parent = leaf.parent_id
        if len(leaf.atoms) <= params.leaf_max or parent is None or parent in out:
            continue
        kids = [state.by_id[c] for c in state.children[parent]]
        if not any(state.children[kid.id] for kid in kids):
            out[parent] = kids
    return out


def split_atoms(state: TreeState, params: TreeParams | None = None, *, regroup: bool = False) -> set[str]:
    """The atoms :func:`splits` needs in its table: those of every leaf over ``leaf_max`` and, with
    ``regroup``, those of its sibling leaves too (empty when no leaf is too big)."""
    params = params or TreeParams()
    regrouped = _regrouped_parents(state, params) if regroup else {}
    needed = {a for kids in regrouped.values() for kid in kids for a in kid.atoms}
    needed.update(a for leaf in state.leaves() if len(leaf.atoms) > params.leaf_max for a in leaf.atoms)
    return needed


def _regroup(state: TreeState, parent: str, kids: list[TopicState], atoms: AtomTable,
             params: TreeParams) -> TreePlan:
    """The leaves ``kids`` of ``parent`` rebuilt together as a cold build of that subtree."""
    ids = list(dict.fromkeys(a for kid in kids for a in kid.atoms))
    rows = atoms.rows(ids)
    table = AtomTable(tuple(ids), atoms.vectors[rows], tuple(atoms.texts[r] for r in rows))
    top = state.by_id[parent]
    subtree = TreeState((TopicState(**{**top.__dict__, "parent_id": None}), *kids))
    built = _rebuild(table, subtree, params, _Keys(f"{parent}/", state.by_id), origin="split",
                     name_root=top.parent_id is not None)
    parts = tuple(op.key for op in built.of(CreateTopic) if op.parent == parent)
    kept = tuple(op.topic for op in built.of(UpdateTopic) if op.topic != parent)
    return TreePlan([SplitTopic(parent, kept + parts), *built.operations])


def _stale_leaves(state: TreeState, share: float) -> list[TopicState]:
    """Leaves (not the root: its label is the scope's) whose own atoms number more than ``(1 + share) ×`` those
    their words were made from, with a word a person did not pin."""
    return [leaf for leaf in state.leaves() if leaf.parent_id is not None and leaf.worded
            and len(leaf.atoms) > leaf.worded * (1 + share) and not {"label", "surface"} <= leaf.pinned]


def reword_atoms(state: TreeState, share: float = REWORD_SHARE) -> set[str]:
    """The atoms whose texts :func:`rewords` needs: those of each stale leaf and of its sibling leaves (empty when
    no leaf is stale)."""
    needed: set[str] = set()
    for leaf in _stale_leaves(state, share):
        siblings = state.children[leaf.parent_id] if leaf.parent_id else [leaf.id]
        needed.update(a for kid in siblings if not state.children[kid] for a in state.by_id[kid].atoms)
    return needed


def rewords(state: TreeState, texts: Mapping[str, str], params: TreeParams | None = None, *,
            share: float = REWORD_SHARE) -> TreePlan:
    """Renew the words of the leaves that grew since their words were made: attach moves a leaf's centroid but
    not its surface, so without this a leaf is routed by the words of its first members until it splits.

    A leaf is stale when it holds more than ``(1 + share) ×`` its ``worded`` atoms (None: not known, left
    alone). Its surface becomes its c-TF-IDF keywords against its sibling leaves (the cold build's words,
    :func:`_class_words`, over a smaller set of classes), its label follows, each unless pinned, and its parent is
    relabelled (:func:`relabel`).

    Args:
        state: the tree (after this digest's attach and splits). texts: atom id → statement, for at least
            :func:`reword_atoms`. params: for ``surface_terms``. share: see :data:`REWORD_SHARE`.

    Returns:
        An UpdateTopic per stale leaf (``worded`` its atoms now), then one per parent whose words change.

    Raises:
        InvalidInput: an atom :func:`reword_atoms` names missing from ``texts``.
    """
    params = params or TreeParams()
    stale = _stale_leaves(state, share)
    missing = sorted(a for a in reword_atoms(state, share) if a not in texts)
    if missing:
        raise InvalidInput(f"{len(missing)} atoms of the topics to reword are not given, e.g. {missing[0]}")
    plan = TreePlan()
    surfaces: dict[str, tuple[str, ...]] = {}
    for leaf in stale:
        siblings = [kid for kid in (state.children[leaf.parent_id] if leaf.parent_id else [leaf.id])
                    if not state.children[kid] and state.by_id[kid].atoms]
        classes = [[texts[a] for a in state.by_id[kid].atoms] for kid in siblings]
        words = _class_words(classes, params.surface_terms)[siblings.index(leaf.id)]
        surfaces[leaf.id] = leaf.surface if "surface" in leaf.pinned else words
        plan.operations.append(UpdateTopic(
            leaf.id, label=None if "label" in leaf.pinned else _label(words, classes[siblings.index(leaf.id)]),
            surface=None if "surface" in leaf.pinned else words, worded=len(leaf.atoms)))
    for parent in dict.fromkeys(leaf.parent_id for leaf in stale if leaf.parent_id is not None):
        update = relabel(state.by_id[parent], [(surfaces.get(c, state.by_id[c].surface), state.by_id[c].size)
                                               for c in state.children[parent]], params)
        if update is not None:
            plan.operations.append(update)
    return plan


def relabel(topic: TopicState, children: Sequence[tuple[Sequence[str], int]],
            params: TreeParams | None = None) -> UpdateTopic | None:
    """A parent's surface and label renewed from its children's (:func:`combine_surfaces`), its pinned fields
    left alone.

    Args:
        topic: the parent. children: ``(surface, atoms)`` of each child, as they will be.
        params: for ``surface_terms``.

    Returns:
        The UpdateTopic, or None when nothing changes (pinned, or the same words).
    """
    params = params or TreeParams()
    surface = combine_surfaces(children, params.surface_terms)
    label = None if "label" in topic.pinned or topic.parent_id is None or _label(surface) == topic.label \
        else _label(surface)
    surface_out = None if "surface" in topic.pinned or surface == tuple(topic.surface) else surface
    if label is None and surface_out is None:
        return None
    return UpdateTopic(topic.id, label=label, surface=surface_out)


def merges(state: TreeState, threshold: float = 0.9, params: TreeParams | None = None) -> TreePlan:
    """Merge near-identical sibling leaves: centroid cosine at least ``threshold`` and lexical surfaces that
    share at least :data:`MERGE_OVERLAP` of the shorter one's terms (by stem), as long as the merged leaf
    stays within ``leaf_max``.

    The smaller of the two goes into the bigger (ties: the later in the tree's order goes). A topic holding
    pins (a pinned field or atom) is never the one merged away, and two pinned topics are not merged. Each
    topic takes part in one merge per call, the most similar pairs first. Deterministic.

    Args:
        state: the tree. threshold: the least centroid cosine. 0.9 (bench_topic_clusters.py): the two random
            halves of one leaf reach it 29% (SciFact) to 71% (LoCoMo) of the time, distinct sibling leaves 0-0.6%
            (their 99th percentile: 0.74-0.89); 0.85 caught more halves but merged 3% of LoCoMo's distinct
            siblings. A missed merge leaves two close leaves; a wrong one mixes topics. params: for ``leaf_max`` and
            ``surface_terms``.

    Returns:
        Per merge: MergeTopics, then an UpdateTopic of the target (running-mean centroid, words combined from
        both unless pinned); then the parents' relabelling.
    """
    params = params or TreeParams()
    order = {t.id: i for i, t in enumerate(state.topics)}
    pairs = []
    for parent, children in state.children.items():
        leaves = [state.by_id[c] for c in children if not state.children[c] and state.by_id[c].centroid is not None]
        for i, a in enumerate(leaves):
            for b in leaves[i + 1:]:
                similarity = float(a.centroid @ b.centroid)
                if similarity >= threshold and len(a.atoms) + len(b.atoms) <= params.leaf_max \
                        and _surface_overlap(a.surface, b.surface) >= MERGE_OVERLAP:
                    pairs.append((-similarity, order[a.id], order[b.id], parent, a, b))
    plan = TreePlan()
    used: set[str] = set()
    changed: dict[str, dict[str, tuple[tuple[str, ...], int] | None]] = defaultdict(dict)
    for _, _, _, parent, a, b in sorted(pairs, key=lambda p: p[:3]):
        if a.id in used or b.id in used or (a.has_pins and b.has_pins):
            continue
        if a.has_pins or (not b.has_pins and (len(a.atoms), -order[a.id]) >= (len(b.atoms), -order[b.id])):
            source, target = b, a  # the pinned one stays; else the bigger one, then the earlier one
        else:
            source, target = a, b
        used.update((a.id, b.id))
        surface = combine_surfaces([(target.surface, len(target.atoms)), (source.surface, len(source.atoms))],
                                   params.surface_terms)
        centroid = _unit(target.centroid * max(target.size, 1) + source.centroid * max(source.size, 1))
        plan.operations.append(MergeTopics(source.id, target.id))
        plan.operations.append(UpdateTopic(
            target.id, label=None if "label" in target.pinned else _label(surface),
            surface=None if "surface" in target.pinned else surface, centroid=centroid,
            worded=len(target.atoms) + len(source.atoms)))
        kept = target.surface if "surface" in target.pinned else surface
        changed[parent][source.id] = None
        changed[parent][target.id] = (kept, target.size + source.size)
    for parent, updates in changed.items():
        children = [updates.get(c, (state.by_id[c].surface, state.by_id[c].size)) for c in state.children[parent]]
        update = relabel(state.by_id[parent], [c for c in children if c is not None], params)
        if update is not None:
            plan.operations.append(update)
    return plan


def _surface_overlap(a: Sequence[str], b: Sequence[str]) -> float:
    """The share of the shorter surface's stem keys the other holds too (0 when either is empty)."""
    keys_a, keys_b = {_stem_key(t) for t in a}, {_stem_key(t) for t in b}
    if not keys_a or not keys_b:
        return 0.0
    return len(keys_a & keys_b) / min(len(keys_a), len(keys_b))


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
    subtree = _subtree_atoms(draft)
    return TreeState(tuple(TopicState(**{**t.__dict__, "size": len(subtree[t.id])}) for t in draft.topics))
