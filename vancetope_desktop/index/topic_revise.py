"""A consolidated topic tree revised locally (issue 14), never rebuilt whole: :func:`attach` (each new atom to
its nearest leaf by centroid, running-mean centroids), :func:`splits` (leaves past ``leaf_max``),
:func:`rewords` (a leaf's words renewed once it has grown), :func:`merges` (near-identical sibling leaves),
:func:`relabel` (a parent's words from its children's). Each returns a :class:`.topic_plans.TreePlan`.

A person's edits are pins (``core.topics``): a pinned label, parent or surface is never rewritten, an atom
pinned to a topic never leaves it, a topic holding pins is never merged away.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np

from ..core.errors import InvalidInput
from .topic_build import (
    cold_plan,
    fresh_tree,
    rebuild_over,
)
from .topic_groups import (
    bounded_groups,
    split_members,
    unit_centroid,
    unit_vector,
)
from .topic_labels import (
    class_words,
    combine_surfaces,
    label_of,
    summary_of,
    surface_overlap,
)
from .topic_plans import (
    AtomTable,
    CreateTopic,
    Keys,
    MergeTopics,
    MoveAtom,
    SplitTopic,
    TopicState,
    TreeParams,
    TreePlan,
    TreeState,
    UpdateTopic,
    apply_plan,
    atom_table,
)

REWORD_SHARE = 0.5
"""A leaf's words are renewed once it holds half as many atoms again as they were made from (:func:`rewords`).
A choice: a cold build's leaf is made at about ``leaf_target`` (20) atoms and splits past ``leaf_max`` (40), so
its words are renewed once in between (at 30), and a leaf grown from 2 to 4 atoms at once; each renewal costs
one c-TF-IDF over the leaf and its sibling leaves."""


MERGE_OVERLAP = 0.2
"""Sibling leaves merge only when the shorter surface shares at least this share of its terms with the other
(see :func:`merges`): two leaves close in meaning without a word in common say different things.
Measured: the two halves of one leaf share 27-33% (median), distinct sibling leaves 0-7%."""


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
            plan.operations.append(UpdateTopic(topic.id, centroid=unit_vector(total)))
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
            len(movable) / params.leaf_max))) for g in bounded_groups(atoms.vectors[movable], part, params.leaf_max)]
        # Counted as this plan leaves them: two leaves of one parent may split in one call.
        siblings = children.get(leaf.parent_id, len(state.children[leaf.parent_id])) if leaf.parent_id \
            else params.max_children
        if siblings - 1 + len(groups) <= params.max_children:
            plan.extend(_split_beside(leaf, groups, atoms, params, Keys(f"{leaf.id}/", state.by_id)))
            children[leaf.parent_id] = siblings - 1 + len(groups)
        else:
            plan.extend(_split_below(leaf, movable, atoms, params, Keys(f"{leaf.id}/", state.by_id)))
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
                  new_key: Keys) -> TreePlan:
    """The leaf keeps its biggest group (and its pinned atoms); the other groups become its siblings."""
    keep = max(range(len(groups)), key=lambda i: (len(groups[i]), -i))
    pinned = [int(r) for r in atoms.rows(a for a in leaf.atoms if a in leaf.pinned_atoms)]
    classes = [[*groups[i], *(pinned if i == keep else [])] for i in range(len(groups))]
    words = class_words([[atoms.texts[r] for r in rows] for rows in classes], params.surface_terms)
    keys = [leaf.id if i == keep else new_key() for i in range(len(groups))]
    plan = TreePlan([SplitTopic(leaf.id, tuple(keys))])
    for i, rows in enumerate(classes):
        centroid = unit_centroid(atoms.vectors[rows])
        texts = [atoms.texts[r] for r in rows]
        summary = summary_of(texts, atoms.vectors[rows], centroid)
        if i == keep:
            plan.operations.append(UpdateTopic(
                leaf.id, label=None if "label" in leaf.pinned else label_of(words[i], texts),
                surface=None if "surface" in leaf.pinned else words[i], summary=summary, centroid=centroid,
                worded=len(rows)))
        else:
            plan.operations.append(CreateTopic(keys[i], leaf.parent_id, label_of(words[i], texts), words[i], summary,
                                               centroid, "split", len(rows)))
    for i, rows in enumerate(groups):
        if i != keep:
            plan.operations.extend(MoveAtom(atoms.ids[r], keys[i], leaf.id) for r in rows)
    return plan


def _split_below(leaf: TopicState, movable: np.ndarray, atoms: AtomTable, params: TreeParams,
                 new_key: Keys) -> TreePlan:
    """The leaf becomes the top of a subtree built over its movable atoms as in a cold build."""
    root = fresh_tree(atoms.vectors, movable, params)
    root.ident = leaf.id
    root.rows = [int(r) for r in atoms.rows(a for a in leaf.atoms if a in leaf.pinned_atoms)]
    for node in list(root.walk())[1:]:
        node.ident = new_key()
    alone = TreeState((TopicState(leaf.id, None, leaf.label, leaf.surface, leaf.summary, leaf.centroid,
                                  leaf.atoms, leaf.size, leaf.pinned, leaf.pinned_atoms),))
    built = cold_plan(root, atoms, alone, params, origin="split", name_root=leaf.parent_id is not None)
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
    built = rebuild_over(table, subtree, params, Keys(f"{parent}/", state.by_id), origin="split",
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
    :func:`class_words`, over a smaller set of classes), its label follows, each unless pinned, and its parent is
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
        words = class_words(classes, params.surface_terms)[siblings.index(leaf.id)]
        surfaces[leaf.id] = leaf.surface if "surface" in leaf.pinned else words
        plan.operations.append(UpdateTopic(
            leaf.id, label=None if "label" in leaf.pinned else label_of(words, classes[siblings.index(leaf.id)]),
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
    label = None if "label" in topic.pinned or topic.parent_id is None or label_of(surface) == topic.label \
        else label_of(surface)
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
                        and surface_overlap(a.surface, b.surface) >= MERGE_OVERLAP:
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
        centroid = unit_vector(target.centroid * max(target.size, 1) + source.centroid * max(source.size, 1))
        plan.operations.append(MergeTopics(source.id, target.id))
        plan.operations.append(UpdateTopic(
            target.id, label=None if "label" in target.pinned else label_of(surface),
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
