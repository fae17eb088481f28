"""The topic tree's pure algorithms (index/topic_groups, topic_build, topic_revise, topic_labels, topic_plans):
split, cold build, labels, attach, splits, rewords, merges, pins."""

from __future__ import annotations

import numpy as np
import pytest

from vancetope_desktop.core.errors import InvalidInput
from vancetope_desktop.core.topics import KEYWORDS_SHOWN, Topic
from vancetope_desktop.index import topic_groups
from vancetope_desktop.index.embedder import Embedder
from vancetope_desktop.index.models import ModelSpec
from vancetope_desktop.index.topic_build import build_tree
from vancetope_desktop.index.topic_groups import split_members
from vancetope_desktop.index.topic_labels import class_words, label_of, surface_overlap
from vancetope_desktop.index.topic_plans import (
    AtomTable,
    CreateTopic,
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
from vancetope_desktop.index.topic_revise import (
    attach,
    merges,
    relabel,
    reword_atoms,
    rewords,
    split_atoms,
    splits,
)


def _blobs(sizes: list[int], dim: int = 16, spread: float = 0.05, seed: int = 1) -> np.ndarray:
    """Unit vectors in tight groups of ``sizes`` around random directions (group after group, in order)."""
    rng = np.random.default_rng(seed)
    rows = []
    for size in sizes:
        centre = rng.normal(size=dim)
        rows.append(centre / np.linalg.norm(centre) + rng.normal(scale=spread, size=(size, dim)))
    matrix = np.vstack(rows).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def test_split_members_separates_two_groups_deterministically() -> None:
    vectors = _blobs([7, 5])[[0, 7, 1, 8, 2, 9, 3, 10, 4, 11, 5, 6]]  # the two groups interleaved
    parts = split_members(vectors)
    assert [p.tolist() for p in parts] == [[0, 2, 4, 6, 8, 10, 11], [1, 3, 5, 7, 9]]
    assert [p.tolist() for p in split_members(vectors)] == [p.tolist() for p in parts]


def test_split_members_into_three_covers_every_row_once() -> None:
    parts = split_members(_blobs([4, 6, 5]), parts=3)
    assert sorted(int(i) for p in parts for i in p) == list(range(15))
    assert sorted(len(p) for p in parts) == [4, 5, 6]


def test_split_members_of_duplicate_vectors_leaves_no_part_empty() -> None:
    vectors = np.tile(_blobs([1]), (5, 1))
    parts = split_members(vectors, 3)
    assert len(parts) == 3 and all(len(p) for p in parts)
    assert sorted(int(i) for p in parts for i in p) == list(range(5))


@pytest.mark.parametrize(("rows", "parts", "message"), [
    (1, 2, "cannot split 1 atom into 2 parts"),
    (0, 2, "cannot split 0 atoms into 2 parts"),
    (3, 1, "at least 2 parts"),
])
def test_split_members_refuses_too_few_rows_or_parts(rows: int, parts: int, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        split_members(np.ones((rows, 4), dtype=np.float32), parts)


def test_split_members_refuses_a_flat_or_broken_array() -> None:
    with pytest.raises(InvalidInput, match="2-d"):
        split_members(np.ones(4, dtype=np.float32))
    with pytest.raises(InvalidInput, match="NaN"):
        split_members(np.array([[1.0, 0.0], [np.nan, 1.0]]))


# -- trees over synthetic topics ----------------------------------------------------------------------

TOPIC_WORDS = [
    ["insulin", "glucose", "pancreas", "diabetes", "islets"],
    ["tumour", "chemotherapy", "metastasis", "oncology", "carcinoma"],
    ["neuron", "synapse", "cortex", "dendrite", "hippocampus"],
    ["rainfall", "drought", "monsoon", "irrigation", "aquifer"],
]


def _atoms(sizes: list[int], seed: int = 3) -> tuple[list[str], np.ndarray, list[str], list[int]]:
    """Atoms in groups of ``sizes``: ids ``g<group>-<n>``, clustered vectors, statements in the group's words."""
    rng = np.random.default_rng(seed)
    vectors = _blobs(sizes, dim=24, spread=0.08, seed=seed)
    ids, texts, groups = [], [], []
    for group, size in enumerate(sizes):
        for n in range(size):
            words = rng.choice(TOPIC_WORDS[group % len(TOPIC_WORDS)], size=3, replace=False)
            ids.append(f"g{group}-{n}")
            texts.append(f"The {words[0]} measured with {words[1]} and {words[2]} in patients.")
            groups.append(group)
    return ids, vectors, texts, groups


def _state(plan: TreePlan) -> TreeState:
    """The tree a cold plan builds from nothing."""
    root = plan.operations[0]
    assert isinstance(root, CreateTopic) and root.parent is None
    return apply_plan(TreeState((TopicState(root.key, None),)), TreePlan(plan.operations[1:]))


def _leaf_of(state: TreeState) -> dict[str, str]:
    return {atom: leaf.id for leaf in state.leaves() for atom in leaf.atoms}


PARAMS = TreeParams(leaf_max=10)


def test_build_tree_puts_every_atom_in_one_leaf_within_the_bound() -> None:
    ids, vectors, texts, groups = _atoms([18, 14, 16, 12])
    state = _state(build_tree(ids, vectors, texts, params=PARAMS))
    placed = [atom for t in state.topics for atom in t.atoms]
    assert sorted(placed) == sorted(ids)  # each atom once
    assert all(not state.children[t.id] for t in state.topics if t.atoms)  # on leaves only
    assert all(len(leaf.atoms) <= PARAMS.leaf_max for leaf in state.leaves())
    assert state.root.size == len(ids)
    # Leaves do not mix the four topics.
    of = dict(zip(ids, groups, strict=True))
    assert all(len({of[a] for a in leaf.atoms}) == 1 for leaf in state.leaves())


def test_build_tree_is_deterministic() -> None:
    ids, vectors, texts, _ = _atoms([15, 15, 15])
    first, second = (build_tree(ids, vectors, texts, params=PARAMS) for _ in range(2))
    assert [(type(op).__name__, getattr(op, "key", ""), getattr(op, "label", ""), getattr(op, "atom", ""),
             getattr(op, "to", "")) for op in first.operations] == \
        [(type(op).__name__, getattr(op, "key", ""), getattr(op, "label", ""), getattr(op, "atom", ""),
          getattr(op, "to", "")) for op in second.operations]


def test_build_tree_levels_keep_the_fan_out_bounded() -> None:
    ids, vectors, texts, _ = _atoms([40, 40, 40, 40], seed=5)
    params = TreeParams(leaf_max=4, branching=3, max_children=5)
    state = _state(build_tree(ids, vectors, texts, params=params))
    assert max(len(children) for children in state.children.values()) <= 5
    assert max(len(state.ancestors(t.id)) for t in state.topics) >= 3  # levels between the root and the leaves
    assert all(len(leaf.atoms) <= 4 for leaf in state.leaves())


def test_labels_and_surfaces_are_words_of_the_members() -> None:
    ids, vectors, texts, _groups = _atoms([12, 12, 12])
    state = _state(build_tree(ids, vectors, texts, params=PARAMS))
    of = dict(zip(ids, texts, strict=True))
    for leaf in state.leaves():
        members = " ".join(of[a] for a in leaf.atoms)
        assert leaf.label and leaf.surface
        assert leaf.label.casefold() == " · ".join(leaf.surface[:3]).casefold()
        assert all(word in members for term in leaf.surface for word in term.split())
        assert leaf.summary in {of[a] for a in leaf.atoms}
    # A leaf's first keyword holds one of its topic's words, not only words every statement has ("measured").
    for leaf in state.leaves():
        group = int(leaf.atoms[0][1:].split("-")[0])
        assert set(leaf.surface[0].split()) & set(TOPIC_WORDS[group])
    # A parent's surface comes from its children's.
    for topic in state.topics:
        if state.children[topic.id] and topic.parent_id is not None:
            below = {term for c in state.children[topic.id] for term in state.by_id[c].surface}
            assert set(topic.surface) <= below


@pytest.mark.parametrize("count", [0, 1, 2])
def test_build_tree_of_tiny_inputs(count: int) -> None:
    ids, vectors, texts, _ = _atoms([2])
    state = _state(build_tree(ids[:count], vectors[:count], texts[:count], params=PARAMS))
    assert sorted(a for t in state.topics for a in t.atoms) == sorted(ids[:count])
    assert len(state.topics) == (1 if count == 0 else 2)  # the root, and one leaf under it once there is an atom
    assert state.root.atoms == ()


def test_build_tree_of_duplicate_vectors() -> None:
    _ids, vectors, texts, _ = _atoms([1])
    many = [f"a{i}" for i in range(25)]
    state = _state(build_tree(many, np.repeat(vectors, 25, axis=0), texts * 25, params=PARAMS))
    assert sorted(a for t in state.topics for a in t.atoms) == sorted(many)
    assert all(len(leaf.atoms) <= PARAMS.leaf_max for leaf in state.leaves())


def test_build_tree_refuses_mismatched_input() -> None:
    ids, vectors, texts, _ = _atoms([3])
    with pytest.raises(InvalidInput, match="must match"):
        build_tree(ids, vectors[:2], texts)
    with pytest.raises(InvalidInput, match="twice"):
        build_tree([ids[0]] * 3, vectors, texts)


# -- revisions --------------------------------------------------------------------------------------


def test_attach_puts_an_atom_in_its_nearest_leaf_and_moves_the_centroids() -> None:
    ids, vectors, texts, _groups = _atoms([12, 12, 12])
    state = _state(build_tree(ids, vectors, texts, params=PARAMS))
    leaf_of = _leaf_of(state)
    new = vectors[[5, 20]] + 0.01  # beside an atom of group 0 and one of group 1
    new /= np.linalg.norm(new, axis=1, keepdims=True)
    plan = attach(["n0", "n1"], new, state)
    moves = {m.atom: m.to for m in plan.of(MoveAtom)}
    leaves = [t for t in state.leaves() if t.centroid is not None]
    nearest = [leaves[int(np.argmax([float(t.centroid @ v) for t in leaves]))].id for v in new]
    assert moves == {"n0": nearest[0], "n1": nearest[1]}
    assert {moves["n0"], moves["n1"]} <= {leaf_of[a] for a in ids}
    assert all(m.source is None for m in plan.of(MoveAtom))
    updated = {u.topic: u.centroid for u in plan.of(UpdateTopic)}
    assert set(updated) == {nearest[0], nearest[1], *state.ancestors(nearest[0]), *state.ancestors(nearest[1])}
    after = apply_plan(state, plan)
    assert after.by_id[nearest[0]].size == state.by_id[nearest[0]].size + (1 if nearest[0] != nearest[1] else 2)
    # The running mean: the leaf's centroid moved towards the new atom.
    before = state.by_id[nearest[0]].centroid
    assert float(updated[nearest[0]] @ new[0]) > float(before @ new[0])


def test_attach_to_a_tree_without_centroids_uses_the_root() -> None:
    plan = attach(["n0"], _blobs([1]), TreeState((TopicState("root", None),)))
    assert plan.of(MoveAtom) == [MoveAtom("n0", "root")]


def _grown(sizes: list[int], extra: int) -> tuple[TreeState, AtomTable, str]:
    """A tree whose first leaf received ``extra`` atoms of its own topic through attach."""
    ids, vectors, texts, _ = _atoms(sizes)
    state = _state(build_tree(ids, vectors, texts, params=PARAMS))
    leaf = next(t for t in state.leaves() if t.atoms)
    rows = [ids.index(a) for a in leaf.atoms]
    rng = np.random.default_rng(7)
    new = vectors[rng.choice(rows, size=extra)] + rng.normal(scale=0.01, size=(extra, vectors.shape[1]))
    new = (new / np.linalg.norm(new, axis=1, keepdims=True)).astype(np.float32)
    new_ids = [f"new-{i}" for i in range(extra)]
    state = apply_plan(state, TreePlan([MoveAtom(a, leaf.id) for a in new_ids]))
    table = atom_table(ids + new_ids, np.vstack([vectors, new]), texts + [texts[rows[0]]] * extra)
    return state, table, leaf.id


def test_rewords_renews_a_leaf_grown_by_half_since_its_words_were_made() -> None:
    ids, vectors, texts, _ = _atoms([8, 8, 8])
    state = _state(build_tree(ids, vectors, texts, params=PARAMS))
    leaf = next(t for t in state.leaves() if t.atoms)
    assert leaf.worded == len(leaf.atoms) and "telescope" not in leaf.surface
    of = dict(zip(ids, texts, strict=True))
    telescope = "The telescope imaged the insulin crystals with a telescope."
    new = {f"new-{i}": telescope for i in range(len(leaf.atoms) // 2)}
    grown = apply_plan(state, TreePlan([MoveAtom(a, leaf.id) for a in new]))
    assert not rewords(grown, of | new, PARAMS)  # half as many again: not yet
    new["new-last"] = "A telescope again."
    grown = apply_plan(state, TreePlan([MoveAtom(a, leaf.id) for a in new]))
    assert reword_atoms(grown) >= set(grown.by_id[leaf.id].atoms)
    plan = rewords(grown, of | new, PARAMS)
    update = plan.of(UpdateTopic)[0]
    assert update.topic == leaf.id and update.surface[0] == "telescope" and update.label.startswith("Telescope")
    assert update.worded == len(grown.by_id[leaf.id].atoms)
    after = apply_plan(grown, plan)
    assert not rewords(after, of | new, PARAMS)  # renewed: fresh until it grows again
    assert "telescope" in after.by_id[leaf.parent_id].surface  # the parent's words follow
    # A pinned label stays; words not known (a tree stored before ``worded``) are left alone.
    pinned = TreeState(tuple(TopicState(**{**t.__dict__, "pinned": frozenset({"label"})}) if t.id == leaf.id else t
                             for t in grown.topics))
    assert rewords(pinned, of | new, PARAMS).of(UpdateTopic)[0].label is None
    unknown = TreeState(tuple(TopicState(**{**t.__dict__, "worded": None}) for t in grown.topics))
    assert not rewords(unknown, of | new, PARAMS)
    with pytest.raises(InvalidInput, match="not given"):
        rewords(grown, new, PARAMS)


def test_splits_cuts_an_oversized_leaf_beside_itself() -> None:
    state, table, leaf = _grown([10, 10, 10], extra=8)
    assert len(state.by_id[leaf].atoms) > PARAMS.leaf_max
    plan = splits(state, table, PARAMS)
    split = plan.of(SplitTopic)
    assert [s.topic for s in split] == [leaf] and leaf in split[0].parts
    created = plan.of(CreateTopic)
    assert created and all(c.parent == state.by_id[leaf].parent_id and c.origin == "split" for c in created)
    assert all(m.source == leaf for m in plan.of(MoveAtom))
    after = apply_plan(state, plan)
    assert all(len(t.atoms) <= PARAMS.leaf_max for t in after.topics)
    assert sorted(a for t in after.topics for a in t.atoms) == sorted(table.ids)
    assert splits(after, table, PARAMS).operations == []


def test_splits_pushes_down_when_the_parent_is_full() -> None:
    state, table, leaf = _grown([10, 10, 10], extra=8)
    full = TreeParams(leaf_max=10, branching=2, max_children=len(state.children[state.root.id]))
    plan = splits(state, table, full)
    assert all(c.parent == leaf or c.parent.startswith(leaf + "/") for c in plan.of(CreateTopic))
    after = apply_plan(state, plan)
    assert after.by_id[leaf].atoms == () and after.children[leaf]
    assert all(len(t.atoms) <= 10 for t in after.topics)


def test_merges_near_identical_siblings_not_different_ones() -> None:
    ids, vectors, _texts, _groups = _atoms([8, 8])
    half = [TopicState("root", None, centroid=_unit_mean(vectors), size=16)]
    leaves = {"a": ids[:4], "b": ids[4:8], "c": ids[8:]}
    for name, members in leaves.items():
        rows = [ids.index(m) for m in members]
        words = ("insulin", "glucose", "pancreas") if name != "c" else ("tumour", "oncology", "metastasis")
        half.append(TopicState(name, "root", ", ".join(words), words, centroid=_unit_mean(vectors[rows]),
                               atoms=tuple(members), size=len(members)))
    state = TreeState(tuple(half))
    plan = merges(state, threshold=0.9, params=TreeParams(leaf_max=10))
    assert plan.of(MergeTopics) == [MergeTopics("b", "a")]  # equal sizes: the later one goes into the earlier
    after = apply_plan(state, plan)
    assert set(after.by_id["a"].atoms) == set(ids[:8]) and "b" not in after.by_id
    # Too big once merged: left apart.
    assert merges(state, threshold=0.9, params=TreeParams(leaf_max=7)).operations == []
    # Same meaning, no shared word: left apart.
    apart = TreeState(tuple(t if t.id != "b" else TopicState(**{**t.__dict__, "surface": ("rainfall",)})
                            for t in state.topics))
    assert merges(apart, threshold=0.9, params=TreeParams(leaf_max=10)).of(MergeTopics) == []


def _unit_mean(vectors: np.ndarray) -> np.ndarray:
    mean = vectors.mean(axis=0)
    return (mean / np.linalg.norm(mean)).astype(np.float32)


def test_relabel_renews_a_parent_from_its_children_unless_pinned() -> None:
    parent = TopicState("p", "root", "old", ("old",))
    children = [(("insulin", "glucose"), 10), (("insulin", "pancreas"), 5)]
    update = relabel(parent, children)
    assert update is not None and update.surface[0] == "insulin" and update.label == "Insulin · glucose · pancreas"
    pinned = TopicState("p", "root", "Diabetes", ("old",), pinned=frozenset({"label", "surface"}))
    assert relabel(pinned, children) is None


# -- pins ---------------------------------------------------------------------------------------------


def test_a_rebuild_keeps_pinned_labels_surfaces_and_atoms() -> None:
    ids, vectors, texts, _groups = _atoms([12, 12, 12])
    state = _state(build_tree(ids, vectors, texts, params=PARAMS))
    leaf_of = _leaf_of(state)
    renamed = leaf_of[ids[0]]
    elsewhere = leaf_of[ids[30]]  # a leaf of another topic
    edited = []
    for t in state.topics:
        if t.id == renamed:
            t = TopicState(**{**t.__dict__, "label": "My diabetes", "surface": ("mine",),
                              "pinned": frozenset({"label", "surface"})})
        if t.id == elsewhere:  # a person put an atom of group 0 here
            t = TopicState(**{**t.__dict__, "atoms": (*t.atoms, ids[1]), "pinned_atoms": frozenset({ids[1]})})
        if t.id == leaf_of[ids[1]] and t.id != elsewhere:
            t = TopicState(**{**t.__dict__, "atoms": tuple(a for a in t.atoms if a != ids[1])})
        edited.append(t)
    previous = TreeState(tuple(edited))
    plan = build_tree(ids, vectors, texts, previous=previous, params=PARAMS)
    assert not plan.of(CreateTopic)  # the same atoms: every topic is the previous one, updated
    after = apply_plan(previous, plan)
    assert after.by_id[renamed].label == "My diabetes" and after.by_id[renamed].surface == ("mine",)
    assert ids[1] in after.by_id[elsewhere].atoms
    assert all(op.label is None and op.surface is None for op in plan.of(UpdateTopic) if op.topic == renamed)
    assert sorted(a for t in after.topics for a in t.atoms) == sorted(ids)


def test_splits_and_merges_leave_pinned_atoms_and_topics_alone() -> None:
    state, table, leaf = _grown([10, 10, 10], extra=8)
    kept = state.by_id[leaf].atoms[:3]
    state = TreeState(tuple(TopicState(**{**t.__dict__, "pinned_atoms": frozenset(kept)}) if t.id == leaf else t
                            for t in state.topics))
    plan = splits(state, table, PARAMS)
    assert not {m.atom for m in plan.of(MoveAtom)} & set(kept)
    assert set(kept) <= set(apply_plan(state, plan).by_id[leaf].atoms)
    # A pinned topic is never merged away, even into its twin.
    ids, vectors, _texts, _ = _atoms([8])
    centroid = _unit_mean(vectors)
    twins = TreeState((TopicState("root", None, centroid=centroid, size=8),
                       TopicState("a", "root", "x", ("insulin",), centroid=centroid, atoms=tuple(ids[:2]), size=2),
                       TopicState("b", "root", "x", ("insulin",), centroid=centroid, atoms=tuple(ids[2:]), size=6,
                                  pinned=frozenset({"label"}))))
    assert merges(twins, 0.9, PARAMS).of(MergeTopics) == [MergeTopics("a", "b")]  # into the pinned one
    both = TreeState(tuple(TopicState(**{**t.__dict__, "pinned": frozenset({"label"})}) for t in twins.topics))
    assert merges(both, 0.9, PARAMS).operations == []


def test_past_ward_max_k_means_cuts_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(topic_groups, "WARD_MAX", 20)
    ids, vectors, texts, groups = _atoms([25, 25, 20])
    state = _state(build_tree(ids, vectors, texts, params=PARAMS))
    assert sorted(a for t in state.topics for a in t.atoms) == sorted(ids)
    assert all(len(leaf.atoms) <= PARAMS.leaf_max for leaf in state.leaves())
    of = dict(zip(ids, groups, strict=True))
    assert all(len({of[a] for a in leaf.atoms}) == 1 for leaf in state.leaves())
    parts = split_members(vectors, 3)  # k-means now
    assert sorted(len(p) for p in parts) == [20, 25, 25]
    duplicates = split_members(np.tile(vectors[:1], (30, 1)), 2)
    assert [len(p) for p in duplicates] == [15, 15]


REAL_STATEMENTS = {
    "diabetes": [
        "Insulin resistance in skeletal muscle precedes type 2 diabetes.",
        "Pancreatic beta cells secrete insulin when blood glucose rises.",
        "Metformin lowers hepatic glucose production in diabetic patients.",
        "Glycated haemoglobin tracks average blood glucose over three months.",
        "Obesity raises the risk of type 2 diabetes through insulin resistance.",
    ],
    "astronomy": [
        "The telescope resolved two exoplanets orbiting the red dwarf star.",
        "Supernova remnants scatter heavy elements across the galaxy.",
        "Dark matter halos shape the rotation curves of spiral galaxies.",
        "The star's light dimmed as the planet transited its disc.",
        "Neutron stars form when massive stars collapse after a supernova.",
    ],
    "cooking": [
        "Knead the bread dough for ten minutes until it turns elastic.",
        "Sear the steak in a hot cast iron pan before roasting it.",
        "Let the sourdough rise overnight in a cool kitchen.",
        "Deglaze the pan with wine to make a sauce for the roast.",
        "Bake the loaf at a high oven temperature for a crisp crust.",
    ],
}


@pytest.mark.usefixtures("offline")
def test_a_tree_over_the_bundled_models_vectors_keeps_topics_apart(spec: ModelSpec) -> None:
    texts = [t for statements in REAL_STATEMENTS.values() for t in statements]
    topics = [name for name, statements in REAL_STATEMENTS.items() for _ in statements]
    ids = [f"atom-{i}" for i in range(len(texts))]
    embedder = Embedder(spec)
    vectors = embedder.encode_documents(texts)
    state = _state(build_tree(ids, vectors, texts, params=TreeParams(leaf_max=6)))
    of = dict(zip(ids, topics, strict=True))
    assert all(len({of[a] for a in leaf.atoms}) == 1 for leaf in state.leaves())
    # A new statement joins its own topic's leaf.
    new = embedder.encode_documents(["Type 1 diabetes patients inject insulin before meals."])
    target = attach(["new"], new, state).of(MoveAtom)[0].to
    assert {of[a] for a in state.by_id[target].atoms} == {"diabetes"}


THEMES = {
    "sleep": [
        "Sleep consolidates memory by replaying the day's experiences.",
        "REM sleep supports the consolidation of emotional memories.",
        "Sleep deprivation impairs the formation of new memories in the hippocampus.",
        "Slow-wave sleep strengthens declarative memory traces.",
    ],
    "transformers": [
        "FlashAttention makes transformer attention faster by tiling it in GPU memory.",
        "Sparse attention reduces the quadratic cost of transformers on long sequences.",
        "Quantizing transformer weights to 8 bits cuts inference cost with little accuracy loss.",
        "Distillation trains a small transformer to mimic a large one efficiently.",
    ],
    "coffee": [
        "Caffeine blocks adenosine receptors and keeps people awake.",
        "Coffee contains about 95 mg of caffeine per cup.",
        "Caffeine tolerance builds up with daily coffee drinking.",
        "Drinking coffee late in the day delays falling asleep.",
    ],
}


@pytest.mark.usefixtures("offline")
def test_a_small_library_on_three_themes_gets_a_topic_per_theme(spec: ModelSpec) -> None:
    # 12 atoms are under one leaf's target (20): by size alone they made one topic, "sleep, memory, Caffeine".
    texts = [t for statements in THEMES.values() for t in statements]
    ids = [f"atom-{i}" for i in range(len(texts))]
    of = {atom: theme for atom, theme in zip(ids, (n for n, s in THEMES.items() for _ in s), strict=True)}
    state = _state(build_tree(ids, Embedder(spec).encode_documents(texts), texts))
    assert sorted(sorted(of[a] for a in leaf.atoms) for leaf in state.leaves()) == [[n] * 4 for n in sorted(THEMES)]
    assert all(state.by_id[leaf.id].parent_id == state.root.id for leaf in state.leaves())
    # Labels are nouns first ("consolidates", "blocks" are the members' verbs), lower-case after the first letter.
    assert sorted(leaf.label for leaf in state.leaves()) == [
        "Caffeine · coffee · drinking", "Sleep · memory · experiences", "Transformer · attention · cost"]


def test_labels_keep_acronyms_and_proper_nouns_and_put_verbs_last() -> None:
    texts = ["FlashAttention improves GPU kernels.", "The GPU kernels of FlashAttention run on Nvidia cards.",
             "Tiling improves the GPU kernels.", "Nvidia cards run FlashAttention kernels.",
             "Kernels of Nvidia cards improve with tiling."]
    plan = build_tree([f"a{i}" for i in range(5)], _blobs([5]), texts)
    leaf = next(op for op in plan.of(CreateTopic) if op.parent is not None)
    assert "GPU" in leaf.surface and "FlashAttention" in leaf.surface and "Nvidia" in leaf.surface
    assert "kernels" in leaf.surface and "Kernels" not in leaf.surface  # capitalised only to start a sentence
    assert "improves" not in leaf.label and leaf.label.count(" · ") == 2 and leaf.label[0].isupper()
    # An acronym's plural is said once in a label; an auxiliary verb comes last.
    assert label_of(("HSCs", "HSC", "did", "BrdU", "division"), ["The HSCs did take up BrdU before division."]) \
        == "HSCs · BrdU · division"


def test_splits_of_two_leaves_of_one_parent_keep_its_fan_out() -> None:
    ids, vectors, texts, _ = _atoms([12, 12, 12])
    topics = [TopicState("root", None, centroid=_unit_mean(vectors), size=36)]
    for group in range(3):
        rows = list(range(group * 12, group * 12 + 12))
        topics.append(TopicState(f"leaf{group}", "root", "x", ("x",), centroid=_unit_mean(vectors[rows]),
                                 atoms=tuple(ids[r] for r in rows), size=12))
    state = TreeState(tuple(topics))
    params = TreeParams(leaf_max=10, branching=2, max_children=4)
    after = apply_plan(state, splits(state, atom_table(ids, vectors, texts), params))
    assert max(len(c) for c in after.children.values()) <= 4
    assert all(len(t.atoms) <= 10 for t in after.topics)
    assert sorted(a for t in after.topics for a in t.atoms) == sorted(ids)
    assert after.by_id["root"].surface  # relabelled from its new children


def test_new_keys_never_reuse_an_id_of_the_previous_tree() -> None:
    ids, vectors, texts, _ = _atoms([12, 12, 12, 12])
    previous = _state(build_tree(ids[:24], vectors[:24], texts[:24], params=PARAMS))  # its ids are plan keys
    plan = build_tree(ids, vectors, texts, previous=previous, params=PARAMS)
    created = {op.key for op in plan.of(CreateTopic)}
    assert created and not created & set(previous.by_id)
    after = apply_plan(previous, plan)
    assert sorted(a for t in after.topics for a in t.atoms) == sorted(ids)


def test_splits_with_regroup_rebuilds_the_parents_leaves_together() -> None:
    ids, vectors, texts, groups = _atoms([12, 12, 12])
    # Leaves made badly on purpose: "mixed" holds group 0 and most of group 1, "rest" the others.
    mixed, rest = ids[:20], ids[20:]
    topics = [TopicState("root", None, centroid=_unit_mean(vectors), size=36),
              TopicState("mixed", "root", "m", ("m",), centroid=_unit_mean(vectors[:20]), atoms=tuple(mixed),
                         size=20, pinned_atoms=frozenset({ids[0]})),
              TopicState("rest", "root", "r", ("r",), centroid=_unit_mean(vectors[20:]), atoms=tuple(rest),
                         size=16, pinned=frozenset({"label"}))]
    state = TreeState(tuple(topics))
    params = TreeParams(leaf_max=17)
    table = atom_table(ids, vectors, texts)
    assert split_atoms(state, params) == set(mixed)
    assert split_atoms(state, params, regroup=True) == set(ids)
    with pytest.raises(InvalidInput, match="not given"):
        splits(state, atom_table(mixed, vectors[:20], texts[:20]), params, regroup=True)
    plan = splits(state, table, params, regroup=True)
    assert plan.of(SplitTopic)[0].topic == "root"
    after = apply_plan(state, plan)
    of = dict(zip(ids, groups, strict=True))
    assert all(len({of[a] for a in leaf.atoms if a != ids[0]}) == 1 for leaf in after.leaves())  # topics apart
    assert ids[0] in after.by_id["mixed"].atoms and after.by_id["rest"].label == "r"  # pins kept
    assert sorted(a for t in after.topics for a in t.atoms) == sorted(ids)
    assert all(len(leaf.atoms) <= 17 for leaf in after.leaves())
    # Without regroup only the oversized leaf is cut, and "rest" keeps group 1's other half beside group 2.
    alone = apply_plan(state, splits(state, table, params))
    assert set(alone.by_id["rest"].atoms) == set(rest)


def test_labels_leave_out_filler_words_contractions_and_particles() -> None:
    # Labels from a new user's trial on the corpus notes, each followed by the leaf's next surface words.
    assert label_of(("Given", "forces", "exists", "gravity")) == "Forces · gravity"
    assert label_of(("Sums", "partial", "true", "series")) == "Sums · partial · series"
    assert label_of(("Origin", "functions", "doesn't", "domain")) == "Origin · functions · domain"
    assert label_of(("や", "で囲み", "例えば", "括弧")) == "括弧"
    assert label_of(("は", "リンク先に", "複数の", "ページ")) == "ページ"
    assert label_of(("methylation", "epigenetic", "DNA")) == "Methylation · epigenetic · DNA"


JAPANESE = ["東京の桜は三月の終わりに咲きます。", "桜の花見は東京の公園で人気があります。",
            "京都の桜は東京より少し遅く咲きます。", "桜の季節には公園に多くの人が集まります。"]
CHINESE = ["深度学习模型需要大量的训练数据。", "训练数据的质量决定模型的效果。",
           "模型在训练数据上过拟合是常见问题。", "深度学习模型的训练需要图形处理器。"]


def test_cjk_leaves_get_words_of_their_own_and_a_label_is_never_empty() -> None:
    japanese, chinese = class_words([JAPANESE, CHINESE], 15)
    assert label_of(japanese, JAPANESE) == "桜 · 東京 · 公園"  # no particle, no verb stem ("咲")
    assert label_of(chinese, CHINESE) == "模型 · 深度 · 学习"  # bigrams of one word said once ("度学" left out)
    plan = build_tree([f"a{i}" for i in range(8)], _blobs([4, 4]), JAPANESE + CHINESE)
    assert all(op.label for op in plan.of(CreateTopic) if op.parent is not None)
    # No words at all: the first words of a statement, else a plain name; never "".
    assert label_of((), ["42 + 17 = 59 ..."]) == "42 + 17 = 59 ..."
    assert label_of(()) == "Topic"


def test_a_leaf_surface_keeps_every_content_word_its_json_shows_the_head() -> None:
    # Twelve statements, each with three words of its own: 36 words beyond the group's, more than the head shows.
    ids, vectors, texts, _ = _atoms([12])
    texts = [f"{text[:-1]} near {a}ville, {b}ton and {c}field." for text, (a, b, c)
             in zip(texts, [(f"north{n}", f"south{n}", f"east{n}") for n in range(12)], strict=True)]
    state = _state(build_tree(ids, vectors, texts, params=TreeParams()))
    words = {w.casefold() for leaf in state.leaves() for term in leaf.surface for w in term.split()}
    assert {f"north{n}ville" for n in range(12)} <= words  # a word one atom holds still routes to its leaf
    longest = max(state.leaves(), key=lambda leaf: len(leaf.surface))
    assert len(longest.surface) > KEYWORDS_SHOWN
    shown = Topic(id="t", scope="project/p", label=longest.label, surface=list(longest.surface))
    dumped = shown.model_dump(mode="json")
    assert "surface" not in dumped and dumped["keywords"] == list(longest.surface[:KEYWORDS_SHOWN])


def test_surface_overlap_compares_the_heads_only() -> None:
    head_a = [f"alpha{n}" for n in range(KEYWORDS_SHOWN)]
    head_b = [f"beta{n}" for n in range(KEYWORDS_SHOWN)]
    shared_tail = [f"common{n}" for n in range(100)]  # words two leaves share by chance past their heads
    assert surface_overlap(head_a + shared_tail, head_b + shared_tail) == 0.0
    assert surface_overlap(head_a + shared_tail, head_a[:5] + head_b) == pytest.approx(5 / KEYWORDS_SHOWN)
