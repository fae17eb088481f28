"""The global beam over a topic tree (index/topic_beam.py): routing by words and vectors, the global k against a
per-layer top-k, pruning, overlaps, degenerate trees and bad input. Hand-built trees, plain numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vancetope_desktop.core.errors import EmptyQuery, InvalidInput
from vancetope_desktop.index.fusion import meaning_score
from vancetope_desktop.index.topic_beam import BeamParams, TopicIndex, TopicNode, beam_search

E0 = np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32)
"""The query vector of the vector-routed tests: a topic's cosine to it is its vector's first component."""


def at(cosine: float, side: int = 1) -> np.ndarray:
    """A unit 4-d vector whose cosine with :data:`E0` is ``cosine`` (the rest of its length on axis ``side``)."""
    vector = np.zeros(4, dtype=np.float32)
    vector[0], vector[side] = cosine, math.sqrt(1 - cosine**2)
    return vector


# Cosines to E0, so meanings on the default scale (floor 0.1, ceiling 0.7): A 0.92, B 0.83, C 0.67; A's and
# B's leaves are poor (0.17, 0.08), C's leaf is the query's (1.0). Looking one level ahead, C is third.
DECOY_TREE = [
    TopicNode("root"),
    TopicNode("A", "root", centroid=at(0.65)), TopicNode("B", "root", centroid=at(0.6, 2)),
    TopicNode("C", "root", centroid=at(0.5, 3)),
    TopicNode("A1", "A", centroid=at(0.2), atoms=["a1"]), TopicNode("A2", "A", centroid=at(0.2, 2), atoms=["a2"]),
    TopicNode("B1", "B", centroid=at(0.2), atoms=["b1"]), TopicNode("B2", "B", centroid=at(0.15, 3), atoms=["b2"]),
    TopicNode("C1", "C", centroid=at(0.99), atoms=["c1"]),
]
ATOM_VECTORS = {"a1": at(0.25), "a2": at(0.2, 2), "b1": at(0.2, 3), "b2": at(0.1), "c1": at(0.97)}


def per_layer_top_k(nodes: list[TopicNode], query: np.ndarray, k: int) -> list[str]:
    """The contrast: at each level keep the k best topics among the children of those kept one level up
    (by the same meaning scale), never returning to a topic passed over; the atoms of the last level kept."""
    children: dict[str | None, list[TopicNode]] = {}
    for node in nodes:
        children.setdefault(node.parent_id, []).append(node)
    level = children[None]
    while True:
        below = [child for node in level for child in children.get(node.id, [])]
        if not below:
            return [atom for node in level for atom in node.atoms]
        level = sorted(below, key=lambda n: -meaning_score(float(n.centroid @ query)))[:k]


def test_the_global_beam_finds_the_best_atom_a_per_layer_top_k_misses():
    best = max(ATOM_VECTORS, key=lambda atom: float(ATOM_VECTORS[atom] @ E0))
    assert best == "c1"
    assert best not in per_layer_top_k(DECOY_TREE, E0, 2)  # A and B kept, C passed over for good
    result = beam_search(TopicIndex(DECOY_TREE), "", E0, BeamParams(width=2))
    # A's and B's children disappoint, so C (scored in the first round, out of the beam) comes back.
    assert result.paths[0].topics == ("root", "C", "C1") and result.atoms[0] == "c1"
    assert len(result.paths) == 2 and all(p.complete for p in result.paths)
    # Scored: A, B, C, then their 4 + 1 children; the root is expanded unscored.
    assert result.topics_scored == 8 and result.expansions == 4 and not result.exhausted


def test_a_path_score_is_a_running_blend_so_depth_neither_rewards_nor_punishes():
    result = beam_search(TopicIndex(DECOY_TREE), "", E0, BeamParams(width=2, depth_weight=0.5))
    c, c1 = meaning_score(0.5), meaning_score(0.99)
    assert result.paths[0].score == pytest.approx(0.5 * c1 + 0.5 * c, abs=1e-6)
    # A chain of topics with one relevance scores that relevance at every depth.
    chain = [TopicNode("r"), TopicNode("t1", "r", centroid=at(0.4)), TopicNode("t2", "t1", centroid=at(0.4, 2)),
             TopicNode("t3", "t2", centroid=at(0.4, 3), atoms=["x"])]
    deep = beam_search(TopicIndex(chain), "", E0)
    assert deep.paths[0].topics == ("r", "t1", "t2", "t3") and deep.paths[0].score == pytest.approx(0.5, abs=1e-6)


def test_pruning_drops_a_path_far_below_the_best():
    nodes = [TopicNode("r"), TopicNode("strong", "r", centroid=at(0.7), atoms=["s"]),
             TopicNode("weak", "r", centroid=at(0.25, 2), atoms=["w"])]  # meaning 1.0 against 0.25
    kept = beam_search(TopicIndex(nodes), "", E0, BeamParams(prune_ratio=0.0))
    assert [p.topics[-1] for p in kept.paths] == ["strong", "weak"]
    pruned = beam_search(TopicIndex(nodes), "", E0, BeamParams(prune_ratio=0.5))
    assert [p.topics[-1] for p in pruned.paths] == ["strong"] and pruned.atoms == ("s",)
    # And the absolute floor: nothing scores above 0.9 but the strong path.
    assert [p.topics[-1] for p in beam_search(TopicIndex(nodes), "", E0, BeamParams(prune_ratio=0.0,
                                                                                    min_score=0.9)).paths] == ["strong"]


def test_overlapping_paths_and_shared_atoms_come_back_once():
    # "P" holds an atom itself and has two good children; "shared" belongs to both of them.
    nodes = [TopicNode("r"), TopicNode("P", "r", centroid=at(0.7), atoms=["own"]),
             TopicNode("P1", "P", centroid=at(0.69, 2), atoms=["shared", "p1"]),
             TopicNode("P2", "P", centroid=at(0.68, 3), atoms=["p2", "shared"])]
    result = beam_search(TopicIndex(nodes), "", E0, BeamParams(width=4))
    topics = [p.topics for p in result.paths]
    assert topics == [("r", "P", "P1"), ("r", "P", "P2")]  # P expanded: not kept beside its children
    assert not any(a != b and b[: len(a)] == a for a in topics for b in topics)
    assert result.atoms == ("shared", "p1", "own", "p2")  # each once, the best path's first
    assert result.atom_paths == {"shared": 0, "p1": 0, "own": 0, "p2": 1}
    assert set(result.paths[1].atoms) == {"p2", "shared", "own"}  # a path still lists all it reaches


def test_a_query_whose_words_no_surface_holds_routes_by_vectors():
    nodes = [TopicNode("r"), TopicNode("near", "r", ["cell biology"], at(0.6), ["n"]),
             TopicNode("far", "r", ["astronomy"], at(0.2, 2), ["f"])]
    by_words = beam_search(TopicIndex(nodes), "quantum chromodynamics", E0)
    by_vector = beam_search(TopicIndex(nodes), "", E0)
    assert by_words.paths[0].topics[-1] == "near" and by_words.paths[0].words == ()
    # The keyword side cannot judge any topic, so it does not weigh them down: the scores are the vector's.
    assert [p.score for p in by_words.paths] == pytest.approx([p.score for p in by_vector.paths])
    assert by_words.paths[0].score == pytest.approx(meaning_score(0.6), abs=1e-6)


def test_words_route_through_the_products_analyser_and_are_reported():
    nodes = [TopicNode("r"),
             TopicNode("salt", "r", ["Sodium reduction", "blood pressure"], atoms=["s"]),
             TopicNode("café", "r", ["Café culture"], atoms=["c"]),
             TopicNode("cjk", "r", ["日本語の文章"], atoms=["j"]),
             TopicNode("split", "r", ["gene", "expression"], atoms=["g1"]),
             TopicNode("phrase", "r", ["gene expression"], atoms=["g2"])]
    index = TopicIndex(nodes)
    reduced = beam_search(index, "how is blood pressure reduced?", None)  # stem prefix reduc* matches reduction
    assert reduced.paths[0].topics[-1] == "salt" and set(reduced.paths[0].words) == {"blood", "pressure", "reduced"}
    assert beam_search(index, "cafe", None).paths[0].topics[-1] == "café"  # accents folded as FTS5 does
    assert beam_search(index, "日本語", None).paths[0].topics[-1] == "cjk"  # CJK bigrams
    quoted = beam_search(index, '"gene expression"', None)  # a phrase: word after word within one term
    assert [p.topics[-1] for p in quoted.paths] == ["phrase"] and quoted.paths[0].words == ("gene expression",)


def test_a_topic_without_centroid_routes_by_its_words_only():
    nodes = [TopicNode("r"), TopicNode("worded", "r", ["zebra stripes"], None, ["z"]),
             TopicNode("vectored", "r", ["horses"], at(0.3, 2), ["h"])]
    index = TopicIndex(nodes)
    result = beam_search(index, "zebra", E0, BeamParams(prune_ratio=0.0))
    scores = {p.topics[-1]: p.score for p in result.paths}
    # worded: its keyword score alone; vectored: 0.3 × meaning + 0.7 × no keyword.
    assert scores["vectored"] == pytest.approx(0.3 * meaning_score(0.3), abs=1e-6)
    assert result.paths[0].topics[-1] == "worded" and scores["worded"] > scores["vectored"]
    assert scores["worded"] == pytest.approx(beam_search(index, "zebra", None).paths[0].score)  # no meaning of 0
    # With no words to match, a topic without a centroid has nothing to be judged by.
    assert [p.topics[-1] for p in beam_search(index, "", E0).paths] == ["vectored"]


def test_an_empty_tree_and_a_tree_of_only_a_root():
    assert beam_search(TopicIndex([]), "anything", E0).paths == ()
    alone = beam_search(TopicIndex([TopicNode("r", atoms=["x", "y"])]), "unrelated", E0)
    assert [p.topics for p in alone.paths] == [("r",)] and alone.atoms == ("x", "y")


def test_the_expansion_bound_stops_at_an_inner_topic_and_keeps_its_subtree():
    result = beam_search(TopicIndex(DECOY_TREE), "", E0, BeamParams(width=2, max_expansions=1))
    # Only the root was expanded: A and B stay inner paths holding all their subtree's atoms.
    assert result.exhausted and [p.topics for p in result.paths] == [("root", "A"), ("root", "B")]
    assert not result.paths[0].complete and set(result.atoms) == {"a1", "a2", "b1", "b2"}


def test_several_roots_are_scored_like_any_topic():
    nodes = [TopicNode("x", centroid=at(0.3), atoms=["1"]), TopicNode("y", centroid=at(0.7, 2), atoms=["2"])]
    result = beam_search(TopicIndex(nodes), "", E0, BeamParams(prune_ratio=0.0))
    assert [p.topics for p in result.paths] == [("y",), ("x",)] and result.expansions == 0


def test_bad_input_is_a_clear_error():
    index = TopicIndex(DECOY_TREE)
    with pytest.raises(InvalidInput, match="3 dimensions; the topic tree's vectors have 4"):
        beam_search(index, "words", np.ones(3))
    with pytest.raises(InvalidInput, match="NaN"):
        beam_search(index, "words", np.array([np.nan, 0, 0, 0]))
    with pytest.raises(InvalidInput, match="zero"):
        beam_search(index, "words", np.zeros(4))
    with pytest.raises(EmptyQuery):
        beam_search(index, "  ", None)
    with pytest.raises(InvalidInput, match="appears twice"):
        TopicIndex([TopicNode("a"), TopicNode("a")])
    with pytest.raises(InvalidInput, match="not in the tree"):
        TopicIndex([TopicNode("a", "ghost")])
    with pytest.raises(InvalidInput, match="cycle"):
        TopicIndex([TopicNode("r"), TopicNode("a", "b"), TopicNode("b", "a")])
    with pytest.raises(InvalidInput, match="dimensions, the tree's 4"):
        TopicIndex([TopicNode("a", centroid=np.ones(4)), TopicNode("b", centroid=np.ones(5))])
    with pytest.raises(InvalidInput, match="dimensions, the tree's 384"):
        TopicIndex([TopicNode("a", centroid=np.ones(4))], dim=384)
    with pytest.raises(InvalidInput, match="surface must be a list"):
        TopicIndex([TopicNode("a", surface="one string")])
    with pytest.raises(InvalidInput, match="member atoms must be a list"):
        TopicIndex([TopicNode("a", atoms=[1, 2])])
    assert TopicIndex([TopicNode("a", surface=None, atoms=None)]).size == 1  # None: nothing
    with pytest.raises(InvalidInput, match="width must be at least 1"):
        BeamParams(width=0)
    with pytest.raises(InvalidInput, match="meaning_ceiling"):
        BeamParams(meaning_floor=0.5, meaning_ceiling=0.5)
