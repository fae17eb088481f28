"""Global beam search over a topic tree (issue 14; seed 002 "Topic Tree Search"): pure, in memory, numpy only.

A query is routed from the topics down to the atoms: each topic it meets is scored against the query by its
lexical surface (BM25, the product's analyser) and its centroid (cosine on the product's meaning scale), and
only the atoms under the few best paths reach the next stage (``services/topic_search`` ranks them with the
product's hybrid search). The work per query depends on the beam, the branching factor and the tree's depth,
not on the number of atoms.

**A topic's relevance** is the product's fusion (``index/fusion.py``) applied to a topic instead of a chunk:

* keywords: the topic's surface terms are one short document; its BM25 uses FTS5's formula and constants
  (``lexical.BM25_K1``, ``BM25_B``, ``bm25_idf`` over the tree's topics) on the tokens FTS5 would index
  (``store.fulltext.text_tokens``: folded case and accents, CJK bigrams), the query read by
  ``parse_query`` with free words matched by their stem as a prefix (``lexical.stem_prefix``), quoted words as
  written and phrases word after word. It is put on 0-1 like ``LexicalHit.keyword``: over ``Σ idf × (k1 + 1)``;
* meaning: ``fusion.meaning_score`` of the cosine between the query vector and the topic's unit centroid;
* ``relevance = dense_weight · meaning + lexical_weight · keywords`` (``Settings`` 0.3 / 0.7, measured on
  SciFact for chunks). A side that cannot judge the topic is left out and the other weighs alone: the
  centroid of a topic without one (it routes by its words), the words of a query none of whose words occur in
  any surface of the tree (it routes by vectors), the vector of a query searched by words only.

**A path's score** is a running blend down the path, ``s(child) = w · relevance(child) + (1 - w) · s(parent)``
with ``w = BeamParams.depth_weight``, starting at the first scored topic's relevance. It is a weighted mean of
the relevances along the path, so a path of constant relevance r scores r at any depth: depth neither rewards
(a sum would favour long paths) nor punishes (a product would favour short ones), and a path of mixed depth
can be compared with another, which a global beam needs. The newest, most specific topic weighs most; its
ancestors keep a share, so one noisy level does not decide alone. A lone root is not scored: every path goes
through it, so its score would rank nothing.

**The global beam.** The *pool* holds every path scored and not yet expanded; the *beam* is the pool's
``width`` best paths, whatever their depth. Each round expands every inner topic of the beam at once (one
matrix product for all their children): each such path leaves the pool and its children's paths join it;
paths under ``prune_ratio`` × the best path's score (or not above ``min_score``) are dropped for good. The
search ends when the beam holds only leaves, or after ``max_expansions`` topics (a cost bound). Because the
pool keeps the paths that fell out of the beam, a branch whose children disappoint gives its place back to a
sibling branch scored earlier: a per-layer top-k keeps k topics per level and never returns to one it passed
over, so it loses the best atom when that atom's branch looked only third-best one level up
(``tests/index/test_topic_beam.py`` shows both).

**Overlaps.** Expanding a path removes it from the pool, so no path returned is a prefix of another; the tree
is checked when the index is built (one parent per topic, no cycle, unique ids), so no topic is reached twice.
An atom reached through several paths (shared membership) is returned once, with the best path holding it.
"""

from __future__ import annotations

import bisect
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np

from ..core.errors import EmptyQuery, InvalidInput
from ..core.settings import Settings
from ..store.fulltext import ParsedQuery, fold, parse_query, text_tokens
from .fusion import meaning_score
from .lexical import BM25_B, BM25_K1, bm25_idf, stem_prefix

_DEFAULTS = Settings()


@dataclass(frozen=True, eq=False)
class TopicNode:
    """One topic as the beam needs it (plain values, no database).

    Attributes:
        id: the topic's id (its document id in the product); unique in a tree.
        parent_id: its parent's id, None for a root.
        surface: the terms that route a query to it (keywords, its label if it should route).
        centroid: its vector (any length, normalised here), or None when it has none: it is then routed by
            its words only.
        atoms: the ids of the atoms it holds itself (not those of its subtree), best first if that matters.
    """

    id: str
    parent_id: str | None = None
    surface: Sequence[str] = ()
    centroid: Any = None
    atoms: Sequence[str] = ()


@dataclass(frozen=True)
class BeamParams:
    """How wide and how far the beam looks. Defaults: see each field; ``from_settings`` takes the ranking's.

    Width, pruning and depth weight were chosen on the product's own trees (``tests/benchmarks/
    bench_topic_search.py``: SciFact, 1,000 abstracts as 9,638 sentence atoms, one tree of ~570 topics, depth 3;
    LoCoMo, part 1's built-in atoms of each conversation, ~1,130 atoms and ~70 topics a tree), with 150-term surfaces
    (``index.topic_plans.TreeParams.surface_terms``), against the flat search over every atom; the expansion bound
    on synthetic trees of up to 1,000,000 atoms (``bench_topic_scale.py``). The fusion's weights are the product's:
    0.7 / 0.3 for meaning / words routed SciFact 1.9 points worse (width 12, 15-term surfaces).

    Attributes:
        width: paths in the beam (k). 13, measured through the whole search (``services.topic_search``, the
            bench above, 2 Dec 2026): SciFact nDCG@10 0.822 (flat 0.828) at 2.9 % of the atoms, LoCoMo dialog R@10
            0.666 (flat 0.676) at 24 %; 12 gave 0.815 / 0.663 at 2.7 / 22 %, 14 0.820 / 0.667 at 3.2 / 26 %, 16
            0.820 / 0.668 at 3.6 / 29 %. 13 is the width where both meet the issue's aim (at most 25 % of the
            atoms, at most 1 point below flat): a choice made on these two benches, with a thin margin on LoCoMo
            (0.95 points). On larger trees the same width is a smaller share (0.04 % at 1,000,000 atoms).
        prune_ratio: paths scoring under this share of the best path's are dropped. 0.3: at width 12, 0.45 costs
            SciFact 0.1 and LoCoMo 0.7 points for 10-15 % fewer atoms, 0.6 costs 2 points (this and the depth
            weight's figures offline: the flat ranking of the same benches restricted to the beam's atoms, which
            reads 0.2-0.4 points above the whole search).
        min_score: paths must score above this (0-1). 0: only paths matching neither a word nor a meaning
            above the floor are dropped; no absolute scale for topics has been measured.
        max_expansions: topics expanded per query at most, the cost bound (each costs one child batch). 128:
            width × depth is 13 × 3-5 on trees of 10,000 to 1,000,000 atoms, and a path stopped at an inner topic
            passes its whole subtree on; at 64, 0.5 % of the searches on 1,000,000 atoms stopped so (one
            passing ~10,000 atoms), at 128 none; 32 stops 2.5 % at 100,000.
        depth_weight: the newest topic's weight in a path's score (see the module's note). 0.7: SciFact at width
            16 0.825 against 0.817 at 0.5; LoCoMo at width 12 0.666 against 0.658; 1.0 (the last topic alone
            decides) lost 1 point on SciFact at width 32.
        dense_weight / lexical_weight / meaning_floor / meaning_ceiling: the product's fusion (``Settings``).
        stemming: free words match by stem prefix, as the keyword search (``Settings.lexical_stemming``).

    Raises:
        InvalidInput: a width or expansion bound under 1, a ratio, score or weight outside its range, a
            meaning ceiling not above its floor, or both weights 0.
    """

    width: int = 13
    prune_ratio: float = 0.3
    min_score: float = 0.0
    max_expansions: int = 128
    depth_weight: float = 0.7
    dense_weight: float = _DEFAULTS.dense_weight
    lexical_weight: float = _DEFAULTS.lexical_weight
    meaning_floor: float = _DEFAULTS.meaning_floor
    meaning_ceiling: float = _DEFAULTS.meaning_ceiling
    stemming: bool = _DEFAULTS.lexical_stemming

    def __post_init__(self) -> None:
        problems = [
            *(["width must be at least 1"] if self.width < 1 else []),
            *(["max_expansions must be at least 1"] if self.max_expansions < 1 else []),
            *(["prune_ratio must lie in [0, 1]"] if not 0.0 <= self.prune_ratio <= 1.0 else []),
            *(["min_score must lie in [0, 1)"] if not 0.0 <= self.min_score < 1.0 else []),
            *(["depth_weight must lie in (0, 1]"] if not 0.0 < self.depth_weight <= 1.0 else []),
            *(["dense_weight and lexical_weight must be non-negative, not both 0"]
              if min(self.dense_weight, self.lexical_weight) < 0 or self.dense_weight + self.lexical_weight <= 0
              else []),
            *(["meaning_ceiling must be above meaning_floor"] if self.meaning_ceiling <= self.meaning_floor else []),
        ]
        if problems:
            raise InvalidInput("bad beam parameters: " + "; ".join(problems))

    @classmethod
    def from_settings(cls, settings: Settings, **changes: Any) -> BeamParams:
        """The defaults with the ranking's weights, meaning scale and stemming taken from ``settings``."""
        return replace(cls(dense_weight=settings.dense_weight, lexical_weight=settings.lexical_weight,
                           meaning_floor=settings.meaning_floor, meaning_ceiling=settings.meaning_ceiling,
                           stemming=settings.lexical_stemming), **changes)


@dataclass(frozen=True)
class BeamPath:
    """A path the beam kept.

    Attributes:
        topics: topic ids from the root down to the path's end (a leaf unless ``complete`` is False).
        score: the path's score in [0, 1] (see the module's note).
        words: the query's words and phrases (as the query wrote them, in its order) that the surfaces of the
            path's scored topics matched: why the path was taken, besides meaning.
        atoms: the atoms the path reaches: its end topic's own, then its ancestors' own (deepest first); the
            whole subtree's when it ends at an inner topic. Shared with other paths possibly.
        complete: False when the expansion bound stopped the path at an inner topic.
    """

    topics: tuple[str, ...]
    score: float
    words: tuple[str, ...]
    atoms: tuple[str, ...]
    complete: bool = True


@dataclass(frozen=True)
class BeamResult:
    """What the beam found.

    Attributes:
        paths: the kept paths, best first (at most ``width``).
        atoms: every atom of the paths once, in path order (the best path's first): what the next stage scores.
        atom_paths: atom id → index in ``paths`` of the best path holding it (its breadcrumb).
        topics_scored: topic relevances computed (the beam's own work).
        expansions: topics expanded (a lone root counts).
        exhausted: ``max_expansions`` stopped the search with inner topics left in the beam.
    """

    paths: tuple[BeamPath, ...] = ()
    atoms: tuple[str, ...] = ()
    atom_paths: Mapping[str, int] = field(default_factory=dict)
    topics_scored: int = 0
    expansions: int = 0
    exhausted: bool = False


@dataclass(frozen=True)
class _Query:
    """A query read against one index: its units (query words/phrases), the tokens each matches, their idf."""

    labels: tuple[str, ...]  # each unit as the query wrote it
    tokens: tuple[tuple[dict[int, int], tuple[int, ...]], ...]  # per indexed token matched: its postings, its units
    phrases: tuple[tuple[int, tuple[str, ...]], ...]  # (unit, its folded tokens in order)
    idf: tuple[float, ...]
    ceiling: float  # Σ idf × (k1 + 1): the keyword score's 1
    active: bool  # some unit occurs in some surface: the keyword side can judge topics


class _Path(NamedTuple):
    nodes: tuple[int, ...]
    score: float
    words: int  # bit u set: unit u matched a surface on the path


def _strings(values: Any, topic_id: str, what: str) -> tuple[str, ...]:
    """``values`` (a list of strings, or None for none) as a tuple; InvalidInput for anything else."""
    if values is None:
        return ()
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise InvalidInput(f"topic {topic_id!r}: its {what} must be a list of strings, not {type(values).__name__}")
    found = tuple(values)
    if not all(isinstance(value, str) for value in found):
        raise InvalidInput(f"topic {topic_id!r}: its {what} must be a list of strings")
    return found


class TopicIndex:
    """A topic tree prepared for :func:`beam_search`: children lists, an inverted index of the surfaces, a
    centroid matrix. Built once per tree (O(topics + surface tokens + atoms)); read-only afterwards, so one
    index may serve searches in several threads.

    Args:
        nodes: every topic of the tree (or forest: several roots are allowed), in any order; children keep
            the order the nodes came in.
        dim: the vector length queries and centroids must have (the embedder's, e.g. 384); None: the
            centroids' (no check when no topic has one).

    Raises:
        InvalidInput: a repeated topic id, a parent that is not among the nodes, a cycle, a centroid that is not
            a 1-d finite vector of the tree's length, or a surface or member list that is not a list of strings
            (None counts as empty).
    """

    def __init__(self, nodes: Iterable[TopicNode], dim: int | None = None) -> None:
        nodes = list(nodes)
        self._ids = [node.id for node in nodes]
        self._position: dict[str, int] = {}
        for i, topic_id in enumerate(self._ids):
            if topic_id in self._position:
                raise InvalidInput(f"topic {topic_id!r} appears twice in the tree")
            self._position[topic_id] = i
        self._parent = [-1] * len(nodes)
        self._children: list[list[int]] = [[] for _ in nodes]
        for i, node in enumerate(nodes):
            if node.parent_id is not None:
                parent = self._position.get(node.parent_id)
                if parent is None:
                    raise InvalidInput(f"topic {node.id!r} names a parent {node.parent_id!r} that is not in the tree")
                self._parent[i] = parent
                self._children[parent].append(i)
        self._roots = [i for i, parent in enumerate(self._parent) if parent < 0]
        self._check_acyclic()
        self._atoms = [_strings(node.atoms, node.id, "member atoms") for node in nodes]
        self._dim, self._centroids, self._has_centroid = self._read_centroids(nodes, dim)
        self._read_surfaces(nodes)

    @property
    def size(self) -> int:
        """The number of topics."""
        return len(self._ids)

    @property
    def dim(self) -> int | None:
        """The vector length queries must have (None: no topic has a centroid and none was given)."""
        return self._dim

    def _check_acyclic(self) -> None:
        reached, stack = 0, list(self._roots)
        while stack:
            reached += 1
            stack.extend(self._children[stack.pop()])
        if reached != len(self._ids):
            raise InvalidInput(f"{len(self._ids) - reached} topic(s) of the tree form a cycle (no root above them)")

    @staticmethod
    def _read_centroids(nodes: list[TopicNode], dim: int | None) -> tuple[int | None, np.ndarray, np.ndarray]:
        vectors: dict[int, np.ndarray] = {}
        for i, node in enumerate(nodes):
            if node.centroid is None:
                continue
            vector = np.asarray(node.centroid, dtype=np.float32)
            if vector.ndim != 1 or vector.size == 0:
                raise InvalidInput(f"topic {node.id!r}: a centroid is a 1-d vector, not shape {vector.shape}")
            if dim is None:
                dim = vector.size
            if vector.size != dim:
                raise InvalidInput(f"topic {node.id!r}: its centroid has {vector.size} dimensions, the tree's {dim}")
            if not np.isfinite(vector).all():
                raise InvalidInput(f"topic {node.id!r}: its centroid holds NaN or infinite values")
            norm = float(np.linalg.norm(vector))
            if norm > 0:  # a zero vector points nowhere: the topic routes by its words
                vectors[i] = vector / norm
        matrix = np.zeros((len(nodes), dim or 0), dtype=np.float32)
        has = np.zeros(len(nodes), dtype=bool)
        for i, vector in vectors.items():
            matrix[i], has[i] = vector, True
        return dim, matrix, has

    def _read_surfaces(self, nodes: list[TopicNode]) -> None:
        """Tokens per topic (counts, and per surface term in order for phrases), postings, length norms."""
        self._sequences: list[tuple[tuple[str, ...], ...]] = []
        self._postings: dict[str, dict[int, int]] = {}  # token → {topic: occurrences in its surface}
        lengths = np.zeros(len(nodes), dtype=np.float64)
        for i, node in enumerate(nodes):
            # Each term apart, so a phrase does not run from one keyword into the next.
            sequences = tuple(tuple(token for token, _, _ in text_tokens(unicodedata.normalize("NFC", term)))
                              for term in _strings(node.surface, node.id, "surface"))
            for token in (token for sequence in sequences for token in sequence):
                held = self._postings.setdefault(token, {})
                held[i] = held.get(i, 0) + 1
                lengths[i] += 1
            # Only a term of several tokens can hold a phrase: single words need no sequence (at 1M atoms the
            # 37,000 topics' sequences cost more memory than the postings).
            self._sequences.append(tuple(sequence for sequence in sequences if len(sequence) > 1))
        self._vocabulary = sorted(self._postings)
        average = max(float(lengths.mean()), 1.0) if len(lengths) else 1.0
        # BM25's denominator part that depends on the topic only: k1 · (1 - b + b · length / average).
        self._length_norm = (BM25_K1 * (1 - BM25_B + BM25_B * lengths / average)).tolist()

    def _query_vector(self, vector: Any) -> np.ndarray | None:
        """The query vector as a unit float32 row, or None; raises InvalidInput on a wrong one."""
        if vector is None:
            return None
        array = np.asarray(vector, dtype=np.float32)
        if array.ndim != 1 or array.size == 0:
            raise InvalidInput(f"the query vector must be a 1-d vector, not shape {array.shape}")
        if self._dim is not None and array.size != self._dim:
            raise InvalidInput(f"the query vector has {array.size} dimensions; "
                               f"the topic tree's vectors have {self._dim}")
        if not np.isfinite(array).all():
            raise InvalidInput("the query vector holds NaN or infinite values")
        norm = float(np.linalg.norm(array))
        if norm == 0:
            raise InvalidInput("the query vector is zero: it points nowhere")
        return array / norm

    def _prefixed(self, stem: str) -> list[str]:
        start = bisect.bisect_left(self._vocabulary, stem)
        end = start
        while end < len(self._vocabulary) and self._vocabulary[end].startswith(stem):
            end += 1
        return self._vocabulary[start:end]

    def _read_query(self, parsed: ParsedQuery, stemming: bool) -> _Query:
        """``parsed`` matched against this tree's vocabulary the way ``lexical.QueryMatcher`` matches a text."""
        labels: list[str] = []
        token_units: dict[str, list[int]] = {}  # indexed token → the single-token units it matches
        phrases: list[tuple[int, tuple[str, ...]]] = []
        held: dict[int, int] = {}  # unit → topics holding it
        for word, free in [*((w, True) for w in parsed.words), *((w, False) for w in parsed.exact)]:
            unit = len(labels)
            labels.append(word)
            if "_" in word:  # FTS5 (and text_tokens) read snake_case as the phrase "snake case"
                phrases.append((unit, tuple(fold(part) for part in word.split("_") if part)))
                continue
            form = stem_prefix(word) if stemming and free else word
            tokens = self._prefixed(fold(form[:-1])) if form.endswith("*") else [fold(form)]
            found = [token for token in tokens if token in self._postings]
            for token in found:
                token_units.setdefault(token, []).append(unit)
            # One token (most words): its postings' length; a stem matching several: the union. A long surface's
            # common words sit in thousands of topics, and a set of them per query cost milliseconds at 1M atoms.
            held[unit] = len(self._postings[found[0]]) if len(found) == 1 else \
                len(set().union(*(self._postings[token] for token in found)))
        for phrase in parsed.phrases:
            phrases.append((len(labels), tuple(fold(term) for term in phrase)))
            labels.append(" ".join(phrase))
        for unit, tokens in phrases:
            candidates = set.intersection(*(set(self._postings.get(t, ())) for t in tokens)) if tokens else set()
            held[unit] = sum(1 for node in candidates if self._phrase_count(node, tokens))
        total = len(self._ids)
        # A unit no surface holds counts as held by one topic, as lexical.keyword_ceiling counts it.
        idf = tuple(bm25_idf(total, max(held[u], 1)) for u in range(len(labels)))
        tokens = tuple((self._postings[t], tuple(u)) for t, u in token_units.items())
        return _Query(tuple(labels), tokens, tuple(phrases), idf, sum(idf) * (BM25_K1 + 1), any(held.values()))

    def _phrase_count(self, node: int, tokens: tuple[str, ...]) -> int:
        n = len(tokens)
        return sum(1 for sequence in self._sequences[node] for i in range(len(sequence) - n + 1)
                   if sequence[i : i + n] == tokens)

    def _keywords(self, node: int, query: _Query) -> tuple[float, int]:
        """The topic's keyword score in [0, 1] and the bit mask of the units its surface matched."""
        frequencies: dict[int, int] = {}
        for postings, units in query.tokens:  # a few tokens per query: fewer lookups than the topic's tokens
            count = postings.get(node)
            if count:
                for unit in units:
                    frequencies[unit] = frequencies.get(unit, 0) + count
        for unit, tokens in query.phrases:
            if tokens and all(node in self._postings.get(token, ()) for token in tokens):
                found = self._phrase_count(node, tokens)
                if found:
                    frequencies[unit] = found
        if not frequencies:
            return 0.0, 0
        norm = self._length_norm[node]
        score = sum(query.idf[u] * tf * (BM25_K1 + 1) / (tf + norm) for u, tf in frequencies.items())
        return min(score / query.ceiling, 1.0), sum(1 << u for u in frequencies)

    def _score(self, nodes: list[int], query: _Query, vector: np.ndarray | None,
               params: BeamParams) -> tuple[list[float], list[int]]:
        """Each topic's relevance in [0, 1] and matched-unit mask (see the module's note), in ``nodes`` order."""
        total = np.zeros(len(nodes))
        weight = np.zeros(len(nodes))
        words = [0] * len(nodes)
        if query.active:
            found = [self._keywords(node, query) for node in nodes]
            words = [matched for _, matched in found]
            total += params.lexical_weight * np.array([keyword for keyword, _ in found])
            weight += params.lexical_weight
        if vector is not None and self._dim:
            rows = np.array(nodes)
            judged = self._has_centroid[rows]
            meaning = meaning_score(self._centroids[rows] @ vector, params.meaning_floor, params.meaning_ceiling)
            total += params.dense_weight * np.where(judged, meaning, 0.0)
            weight += params.dense_weight * judged
        relevance = np.divide(total, weight, out=np.zeros(len(nodes)), where=weight > 0)
        return relevance.tolist(), words

    def _subtree_atoms(self, node: int) -> list[str]:
        found: list[str] = []
        stack = [node]
        while stack:
            current = stack.pop()
            found.extend(self._atoms[current])
            stack.extend(reversed(self._children[current]))
        return found


def beam_search(index: TopicIndex, query: str | ParsedQuery, query_vector: Any = None,
                params: BeamParams | None = None) -> BeamResult:
    """Route a query down ``index`` with a global beam and return the best paths and the atoms under them.

    Args:
        index: the tree (:class:`TopicIndex`).
        query: the user's text (read by ``store.fulltext.parse_query``) or a query parsed already; may be empty
            when ``query_vector`` is given.
        query_vector: the query's embedding (any scale: normalised here), length ``index.dim``; None routes by
            words only.
        params: the beam's settings (:class:`BeamParams`; its defaults when None).

    Returns:
        A :class:`BeamResult`; empty for an empty tree or when no topic scores above ``params.min_score`` (a tree
        of only a root returns the root, whatever it scores).

    Raises:
        EmptyQuery: neither a word nor a vector to look for.
        InvalidInput: a query vector of the wrong length, not finite, or zero.
    """
    params = params or BeamParams()
    parsed = query if isinstance(query, ParsedQuery) else parse_query(query or "")
    vector = index._query_vector(query_vector)
    if not parsed and vector is None:
        raise EmptyQuery("nothing to search for: the query has no words and no vector")
    if not index.size:
        return BeamResult()
    read = index._read_query(parsed, params.stemming)
    scored = 0
    expansions = 0

    def extend(parents: list[_Path | None], children: list[list[int]]) -> list[_Path]:
        nonlocal scored
        flat = [(parent, child) for parent, kids in zip(parents, children, strict=True) for child in kids]
        relevances, words = index._score([child for _, child in flat], read, vector, params)
        scored += len(flat)
        weight = params.depth_weight
        return [
            _Path((child,), relevance, matched) if parent is None else
            _Path((*parent.nodes, child), weight * relevance + (1 - weight) * parent.score, parent.words | matched)
            for (parent, child), relevance, matched in zip(flat, relevances, words, strict=True)
        ]

    roots = index._roots
    if len(roots) == 1 and not index._children[roots[0]]:
        # A tree that is only its root: nothing to choose between, its atoms are the answer whatever it scores.
        return _result(index, read, extend([None], [roots]), scored, expansions, False)
    if len(roots) == 1:
        # A lone root: every path goes through it, so it is expanded without being scored.
        expansions = 1
        pool = [p._replace(nodes=(roots[0], *p.nodes)) for p in extend([None], [index._children[roots[0]]])]
    else:
        pool = extend([None], [roots])
    exhausted = False
    while True:
        best = max((p.score for p in pool), default=0.0)
        pool = [p for p in pool if p.score > params.min_score and p.score >= params.prune_ratio * best]
        pool.sort(key=lambda p: (-p.score, p.nodes))
        inner = [p for p in pool[: params.width] if index._children[p.nodes[-1]]]
        if not inner:
            break
        budget = params.max_expansions - expansions
        if budget <= 0:
            exhausted = True
            break
        inner = inner[:budget]
        expansions += len(inner)
        expanded = {p.nodes[-1] for p in inner}  # a topic ends one path at most (the tree was checked)
        pool = [p for p in pool if p.nodes[-1] not in expanded]
        pool += extend(list(inner), [index._children[p.nodes[-1]] for p in inner])
    return _result(index, read, pool[: params.width], scored, expansions, exhausted)


def _result(index: TopicIndex, query: _Query, beam: list[_Path], scored: int, expansions: int,
            exhausted: bool) -> BeamResult:
    paths: list[BeamPath] = []
    atom_paths: dict[str, int] = {}
    for rank, path in enumerate(beam):
        end = path.nodes[-1]
        complete = not index._children[end]
        atoms = list(index._atoms[end] if complete else index._subtree_atoms(end))
        for ancestor in reversed(path.nodes[:-1]):
            atoms.extend(index._atoms[ancestor])
        atoms = list(dict.fromkeys(atoms))
        for atom in atoms:
            atom_paths.setdefault(atom, rank)
        words = tuple(label for u, label in enumerate(query.labels) if path.words >> u & 1)
        paths.append(BeamPath(tuple(index._ids[n] for n in path.nodes), path.score, words, tuple(atoms), complete))
    return BeamResult(tuple(paths), tuple(atom_paths), atom_paths, scored, expansions, exhausted)
