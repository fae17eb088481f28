"""A scope's topic tree built from scratch (issue 14's cold start, :func:`build_tree`): leaves first, then the
levels above them, then their words. Returns a :class:`.topic_plans.TreePlan`.

1. Leaves: Ward agglomerative clustering of the atoms' unit vectors into ``ceil(n / leaf_target)`` groups,
   groups over ``leaf_max`` cut again (:mod:`.topic_groups`). Above ``WARD_MAX`` atoms (Ward keeps an ``n × n``
   distance matrix: 5,000 atoms are 100 MB), k-means first cuts the atoms into chunks of at most that many and
   Ward runs in each. A leaf is cut again where its atoms are clearly distinct (the centroids of its Ward halves
   under ``DISTINCT_COSINE``), so a small library on three unrelated themes gets three topics.
2. Levels: while a level has more than ``max_children`` nodes, its nodes' centroids are grouped the same way
   into ``ceil(count / branching)`` parents. The root takes the last level.
3. Words: c-TF-IDF surfaces and labels (:mod:`.topic_labels`).

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
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .topic_groups import (
    bounded_groups,
    distinct_parts,
    like_groups,
    unit_centroid,
)
from .topic_labels import (
    class_words,
    combine_surfaces,
    label_of,
    summary_of,
)
from .topic_plans import (
    AtomTable,
    CreateTopic,
    DeleteTopic,
    Keys,
    MoveAtom,
    TreeParams,
    TreePlan,
    TreeState,
    UpdateTopic,
    atom_table,
)

MATCH_OVERLAP = 0.5
"""A rebuilt topic takes a previous topic's id when their atoms' Jaccard overlap is at least this (a choice:
then most of their atoms are the same): the same topic, updated rather than deleted and made anew, so its
history and undo stay with it (a pinned topic takes its best overlap above 0, to keep the person's edit)."""


@dataclass
class Node:
    """A topic of a tree being built: ``rows`` its own atoms (table rows), ``ident`` its id or plan key."""

    rows: list[int] = field(default_factory=list)
    children: list[Node] = field(default_factory=list)
    ident: str = ""
    parent: Node | None = None

    def walk(self) -> Iterable[Node]:
        """This node, then its subtree depth-first (parents before children)."""
        yield self
        for child in self.children:
            yield from child.walk()

    def subtree_rows(self) -> list[int]:
        return [row for node in self.walk() for row in node.rows]


def leaf_groups(vectors: np.ndarray, params: TreeParams) -> list[np.ndarray]:
    """Rows of ``vectors`` in leaves of at most ``leaf_max``, about ``leaf_target`` each, each cut again where
    its atoms are clearly distinct (:func:`distinct_parts`; see the module doc)."""
    count = math.ceil(len(vectors) / params.leaf_target)
    return [distinct for part in like_groups(vectors, count) for group in bounded_groups(vectors, part, params.leaf_max)
            for distinct in distinct_parts(vectors, group)]


def fresh_tree(vectors: np.ndarray, rows: np.ndarray, params: TreeParams) -> Node:
    """Root → levels → leaves over ``rows`` (table rows; ``vectors`` the whole table's), no words yet."""
    root = Node()
    if len(rows) == 0:
        return root
    nodes = [Node(rows=sorted(int(rows[i]) for i in leaf)) for leaf in leaf_groups(vectors[rows], params)]
    while len(nodes) > params.max_children:
        centroids = np.vstack([unit_centroid(vectors[node.subtree_rows()]) for node in nodes])
        groups = [bounded for group in like_groups(centroids, math.ceil(len(nodes) / params.branching))
                  for bounded in bounded_groups(centroids, group, params.max_children)]
        nodes = [Node(children=[nodes[i] for i in group]) for group in groups]
    root.children = nodes
    for node in root.walk():
        for child in node.children:
            child.parent = node
    return root


def _match(nodes: list[Node], ids: tuple[str, ...], previous: TreeState) -> dict[int, str]:
    """Fresh node index → the previous topic whose id it takes (one-to-one, the root to the root; see
    :data:`MATCH_OVERLAP`)."""
    old = _likeness_atoms(previous)
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


def _likeness_atoms(previous: TreeState) -> dict[str, set[str]]:
    """Each previous topic's atoms, its subtree's included but for the subtrees a person hung under it (a child
    with a pinned parent, and what is below it): those sit there by hand, not by likeness, so they do not tell
    which fresh node the topic is. (Counted in, a topic a person moved under an unrelated one lent its atoms to
    it, which then matched a fresh node of the moved topic's theme, inside the moved topic's own: the pinned
    parent could not be restored, and the parent took the moved topic's words.)"""
    out: dict[str, set[str]] = {t.id: set(t.atoms) for t in previous.topics}
    for topic in previous.topics:
        below = topic
        for ancestor in previous.ancestors(topic.id):
            if "parent" in below.pinned:
                break
            out[ancestor].update(topic.atoms)
            below = previous.by_id[ancestor]
    return out


def build_tree(ids: Sequence[str], vectors: np.ndarray, texts: Sequence[str], *, previous: TreeState | None = None,
               params: TreeParams | None = None) -> TreePlan:
    """A whole tree for a scope's atoms, from scratch (the cold start; see the module doc).

    Args:
        ids, vectors, texts: the scope's live atoms (``n × d`` float32 unit vectors; checked by :func:`atom_table`).
        previous: the tree stored now, if any. Its pins hold: atoms pinned to a topic stay there (and out of the
            clustering), a pinned label, surface or parent is kept. A rebuilt topic takes the id of the previous
            topic with the most overlapping atoms (:data:`MATCH_OVERLAP`; a pinned topic its best overlap), so
            an unchanged topic is updated, not deleted and made anew. No topic a person's edit holds is deleted: a
            pinned topic that matches no new one stays under its previous parent (kept for it, as is each
            ancestor it needs), empty if it holds no pinned atom, its words as they were; a pinned parent is
            restored (:func:`_place_pins`).
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
    return rebuild_over(table, previous, params, Keys(taken=previous.by_id if previous else ()))


def rebuild_over(table: AtomTable, previous: TreeState | None, params: TreeParams, keys: Keys, *,
             origin: str = "cold", name_root: bool = False) -> TreePlan:
    """:func:`build_tree` over ``table`` (all of it) in place of ``previous``, new topics keyed by ``keys``."""
    live = set(table.ids)
    held: dict[str, list[str]] = defaultdict(list)  # topic id → its pinned atoms still alive
    for topic in previous.topics if previous else ():
        for atom in sorted(topic.pinned_atoms & live):
            held[topic.id].append(atom)
    held_atoms = {atom for atoms in held.values() for atom in atoms}
    free = np.array([row for row, atom in enumerate(table.ids) if atom not in held_atoms], dtype=np.int64)
    root = fresh_tree(table.vectors, free, params)
    nodes = list(root.walk())
    matched = _match(nodes, table.ids, previous) if previous else {}
    for index, node in enumerate(nodes):
        node.ident = matched.get(index) or keys()
    by_ident = {node.ident: node for node in nodes}
    if previous:
        _place_pins(root, by_ident, held, previous, table)
    return cold_plan(root, table, previous, params, origin=origin, name_root=name_root)


def _place_pins(root: Node, by_ident: dict[str, Node], held: Mapping[str, list[str]], previous: TreeState,
                table: AtomTable) -> None:
    """Put pinned atoms in their topics, keep every topic a person's edit holds, honour pinned parents.

    A topic with a pin (:attr:`TopicState.has_pins`) that matched no fresh node is kept all the same, under its
    previous parent, and so is every previous ancestor of it that matched nothing (so a split's parent stays above
    its pinned parts, a topic moved by hand stays under the topic it was moved to); then a pinned parent is
    restored where the clustering put the topic elsewhere. Nodes left with no atoms in their subtree are dropped,
    unless a person's edit holds them (an empty topic made by hand stays, empty)."""
    pinned = {topic.id for topic in previous.topics if topic.has_pins}
    wanted: set[str] = set()
    for topic_id in pinned:  # the pinned topics and their ancestors, as the person left them
        while topic_id in previous.by_id and topic_id not in wanted:
            wanted.add(topic_id)
            topic_id = previous.by_id[topic_id].parent_id or ""
    made = [topic for topic in previous.topics if topic.id in wanted and topic.id not in by_ident]
    for topic in made:
        by_ident[topic.id] = Node(ident=topic.id)
    for topic in made:  # hung once all exist: a topic may be older than the parent a person gave it
        node = by_ident[topic.id]
        node.parent = by_ident.get(topic.parent_id or "", root)
        node.parent.children.append(node)
    for topic_id, atoms in held.items():
        by_ident[topic_id].rows.extend(int(row) for row in table.rows(atoms))
    for topic in previous.topics:
        node = by_ident.get(topic.id)
        target = by_ident.get(topic.parent_id or "")
        if "parent" not in topic.pinned or node is None or target is None or node.parent is target \
                or any(n is target for n in node.walk()):
            continue
        node.parent.children.remove(node)
        target.children.append(node)
        node.parent = target
    # A node left with no atoms (every one pinned elsewhere) and no pinned topic below it goes (children first).
    for node in reversed(list(root.walk())):
        if node is not root and not node.rows and not node.children and node.ident not in pinned:
            node.parent.children.remove(node)


def cold_plan(root: Node, table: AtomTable, previous: TreeState | None, params: TreeParams, *,
               origin: str = "cold", name_root: bool = False) -> TreePlan:
    """The operations writing the built tree ``root`` over ``previous`` (see :func:`build_tree`); the root's
    label is left to the upkeep (the scope's name) unless ``name_root`` (a split leaf on top of its subtree)."""
    nodes = list(root.walk())
    old = previous.by_id if previous else {}
    with_atoms = [node for node in nodes if node.rows and not node.children]
    leaf_words = dict(zip((id(n) for n in with_atoms),
                          class_words([[table.texts[r] for r in n.rows] for n in with_atoms], params.surface_terms),
                          strict=True))
    surfaces: dict[int, tuple[str, ...]] = {}
    plan = TreePlan()
    for node in reversed(nodes):  # children first: a parent's words come from its children's
        before = old.get(node.ident)
        if before is not None and ("surface" in before.pinned or not node.subtree_rows()):
            surfaces[id(node)] = before.surface
        elif node.children:
            surfaces[id(node)] = combine_surfaces(
                [(surfaces[id(c)], len(c.subtree_rows())) for c in node.children], params.surface_terms)
        else:
            surfaces[id(node)] = leaf_words.get(id(node), ())
    for node in nodes:
        rows = node.subtree_rows()
        centroid = unit_centroid(table.vectors[rows]) if rows else None
        texts = [table.texts[r] for r in rows]
        summary = summary_of(texts, table.vectors[rows], centroid) if rows else ""
        surface = surfaces[id(node)]
        worded = None if node.children else len(node.rows)
        before = old.get(node.ident)
        parent = node.parent.ident if node.parent else None
        if before is not None and not rows and node is not root:  # kept for a person's edit, empty: as it is
            if parent != before.parent_id:
                plan.operations.append(UpdateTopic(node.ident, parent=parent))
            continue
        if before is None:
            plan.operations.append(CreateTopic(node.ident, parent, label_of(surface, texts) if node.parent or name_root
                                               else "", surface, summary, centroid, origin, worded))
            continue
        plan.operations.append(UpdateTopic(
            node.ident,
            label=None if (node is root and not name_root) or "label" in before.pinned else label_of(surface, texts),
            surface=None if "surface" in before.pinned else surface,
            summary=summary, centroid=centroid,
            parent=parent if parent != before.parent_id else None, worded=worded))
    plan.operations.extend(_membership_moves(nodes, table, previous))
    used = {node.ident for node in nodes}
    for topic in reversed(previous.topics if previous else ()):
        if topic.id not in used:
            plan.operations.append(DeleteTopic(topic.id))
    return plan


def _membership_moves(nodes: Sequence[Node], table: AtomTable, previous: TreeState | None) -> list[MoveAtom]:
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
