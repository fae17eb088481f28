"""Topic-tree search at scale (issue 14): the global beam (``index/topic_beam.py``) against a flat scan.

Run: ``.venv/bin/python tests/benchmarks/bench_topic_scale.py [--sizes 10000 100000 1000000] [--queries 200]
[--sweep 100000] [--seed 14]``

For each size a synthetic tree is grown the way the product's cold build shapes one
(``index/topic_build.py``: leaves of 20-40 atoms, ``leaf_max`` 40; about 10 children per inner topic,
at most 20 at the top), with clustered random unit vectors (384-d float32, the bundled model's size):

* each topic's centre is its parent's plus Gaussian noise of the same length (cosine to the parent ~0.7),
  each atom its leaf's centre plus noise 1.2 times as long (cosine ~0.64), normalised; 3 % of the atoms also
  belong to a sibling leaf (shared membership);
* a topic's stored centroid is the normalised mean of its subtree's atoms, as the product stores it;
* words: a vocabulary of random letter strings, 8 per topic; each topic owns 12 words drawn from it, its
  surface is those 12, 3 of its parent's (c-TF-IDF keeps a parent's distinctive words in its children), then
  shared words up to ``TreeParams.surface_terms`` (150: a leaf keeps nearly every content word of its atoms):
  drawn by Zipf's law (exponent 1.1) from a common vocabulary of 50,000 words, so that the long tail of a
  surface is words many topics hold, as in real text; a query word from there matches thousands of topics.

A query targets a random atom: its vector is the atom's plus noise as long (cosine ~0.7), its text three
words each drawn from the target's leaf (half the time), from one of its ancestors (a quarter) or from the
whole vocabulary (a quarter), and a fourth from the leaf's shared words, after "what about the". Both
searches run with numpy's BLAS on one thread, as the product's query side does (``index/numpy_encoder``):

* **tree**: ``beam_search`` (words and vector), then a numpy dot over the vectors of the atoms under the
  surviving paths and their top 10 (the next stage, here without the product's hybrid ranking);
* **flat**: a numpy dot over every atom's vector and its top 10, which are the truth for recall@10.

Printed per size: topics and depth, tree p50/p95 (beam alone, and beam + the atoms' dot), flat p50/p95,
the share of atoms scored, recall@10 of tree against flat, topics scored per query, how often the expansion
bound stopped a search, and RSS (the process's, and what the vectors and the topic index each added).
``--sweep N`` varies the beam's parameters one at a time around the defaults on a tree of N atoms.
"""

from __future__ import annotations

import argparse
import gc
import string
import time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from _common import percentile, table
from threadpoolctl import threadpool_limits

from vancetope_desktop.index.topic_beam import BeamParams, TopicIndex, TopicNode, beam_search
from vancetope_desktop.index.topic_plans import TreeParams
from vancetope_desktop.store.fulltext import parse_query

DIM = 384
LEAF_SIZES = (20, 40)
"""A leaf's atoms, uniform: a cold build aims at 20 (``leaf_max`` 40 × ``leaf_fill`` 0.5), splits past 40."""
BRANCHING = (5, 15)
"""Children per inner topic, uniform (mean 10, the cold build's ``branching``)."""
MAX_TOP = 20
"""Levels are grouped until at most this many topics hang below the root (``max_children``)."""
TOPIC_SPREAD = 0.75
ATOM_SPREAD = 1.2
QUERY_SPREAD = 1.0
SHARED_ATOMS = 0.03
MISPLACED = 0.05
OWN_WORDS, PARENT_WORDS, WORDS_PER_TOPIC = 12, 3, 8
COMMON_VOCABULARY, ZIPF = 50_000, 1.1
SURFACE_TERMS = TreeParams().surface_terms


@dataclass
class SyntheticTree:
    """A tree and its atoms: ``vectors`` (atoms × DIM, row i is atom ``a{i}``), ``leaf_of`` (row → leaf node
    index), ``parent`` (node → parent node, -1 under the root), ``words`` (node → its own words), ``depth``."""

    nodes: list[TopicNode]
    vectors: np.ndarray
    leaf_of: np.ndarray
    parent: list[int]
    words: list[list[str]]
    vocabulary: list[str]
    depth: int


def _noisy(centres: np.ndarray, spread: float, rng: np.random.Generator) -> np.ndarray:
    out = centres + rng.standard_normal(centres.shape, dtype=np.float32) * np.float32(spread / np.sqrt(DIM))
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out


def _vocabulary(size: int, rng: np.random.Generator) -> list[str]:
    letters = np.array(list(string.ascii_lowercase))
    words: set[str] = set()
    while len(words) < size:
        length = int(rng.integers(5, 10))
        words.add("".join(rng.choice(letters, length)))
    return sorted(words)


def grow(atoms: int, rng: np.random.Generator) -> SyntheticTree:
    """A synthetic tree of ``atoms`` atoms (see the module's note)."""
    sizes = []
    while sum(sizes) < atoms:
        sizes.append(int(rng.integers(LEAF_SIZES[0], LEAF_SIZES[1] + 1)))
    sizes[-1] -= sum(sizes) - atoms
    # Levels bottom-up: level[0] the leaves; each next level groups the one below.
    levels = [len(sizes)]
    groups: list[list[int]] = []  # per level above the leaves: group sizes
    while levels[-1] > MAX_TOP:
        below, cut = levels[-1], []
        while sum(cut) < below:
            cut.append(int(rng.integers(BRANCHING[0], BRANCHING[1] + 1)))
        cut[-1] -= sum(cut) - below
        groups.append([c for c in cut if c > 0])
        levels.append(len(groups[-1]))
    # Node numbering: root 0, then top-down level by level.
    parent: list[int] = [-1]
    first_of_level: list[int] = []
    top = levels[-1]
    first_of_level.append(1)
    parent += [0] * top
    for level in range(len(levels) - 2, -1, -1):
        start = len(parent)
        first_of_level.append(start)
        above = first_of_level[-2]
        for group, size in enumerate(groups[level]):
            parent += [above + group] * size
        assert len(parent) - start == levels[level]
    total = len(parent)
    leaves_start = first_of_level[-1]
    centres = np.zeros((total, DIM), dtype=np.float32)
    centres[1 : 1 + top] = _noisy(np.zeros((top, DIM), dtype=np.float32), 1.0, rng) * np.float32(1.0)
    for start, end in zip(first_of_level[1:], [*first_of_level[2:], total], strict=True):
        centres[start:end] = _noisy(centres[np.array(parent[start:end])], TOPIC_SPREAD, rng)
    leaf_of = np.repeat(np.arange(leaves_start, total), sizes)
    # A clustering's mistakes: some atoms are drawn around a cousin leaf's centre (same grandparent) but filed
    # under their own leaf.
    grandparent = np.array([parent[parent[leaf]] for leaf in range(leaves_start, total)])
    drawn_from = leaf_of.copy()
    for row in rng.choice(atoms, int(atoms * MISPLACED), replace=False):
        cousins = np.flatnonzero(grandparent == grandparent[leaf_of[row] - leaves_start]) + leaves_start
        drawn_from[row] = int(rng.choice(cousins))
    vectors = np.empty((atoms, DIM), dtype=np.float32)
    for start in range(0, atoms, 100_000):
        vectors[start : start + 100_000] = _noisy(centres[drawn_from[start : start + 100_000]], ATOM_SPREAD, rng)
    # Centroids: the normalised mean of the subtree's atoms (sums, children before parents).
    sums = np.zeros((total, DIM), dtype=np.float64)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    sums[leaves_start:] = np.add.reduceat(vectors, offsets, axis=0, dtype=np.float64)
    for node in range(total - 1, 0, -1):
        sums[parent[node]] += sums[node]
    centroids = (sums / np.linalg.norm(sums, axis=1, keepdims=True)).astype(np.float32)
    vocabulary = _vocabulary(WORDS_PER_TOPIC * total, rng)
    words = [[vocabulary[i] for i in rng.integers(0, len(vocabulary), OWN_WORDS)] for _ in range(total)]
    members: list[list[str]] = [[] for _ in range(total)]
    for leaf, (offset, size) in enumerate(zip(offsets, sizes, strict=True)):
        members[leaves_start + leaf] = [f"a{row}" for row in range(offset, offset + size)]
    children: dict[int, list[int]] = {}
    for node in range(leaves_start, total):
        children.setdefault(parent[node], []).append(node)
    for row in rng.choice(atoms, int(atoms * SHARED_ATOMS), replace=False):
        siblings = children[parent[leaf_of[row]]]
        members[int(rng.choice(siblings))].append(f"a{row}")
    common = _vocabulary(COMMON_VOCABULARY, rng)
    weights = 1.0 / np.arange(1, COMMON_VOCABULARY + 1) ** ZIPF
    draws = rng.choice(COMMON_VOCABULARY, (total, SURFACE_TERMS), p=weights / weights.sum())
    nodes = []
    for i in range(total):
        own = words[i] + ([] if parent[i] <= 0 else words[parent[i]][:PARENT_WORDS])
        shared = [common[j] for j in dict.fromkeys(draws[i].tolist())][: SURFACE_TERMS - len(own)]
        nodes.append(TopicNode(f"t{i}", None if i == 0 else f"t{parent[i]}", own + shared,
                               None if i == 0 else centroids[i], members[i]))
    return SyntheticTree(nodes, vectors, leaf_of, parent, words, vocabulary, len(levels))


def queries(tree: SyntheticTree, count: int, rng: np.random.Generator) -> list[tuple[int, str, np.ndarray]]:
    """``count`` queries near random atoms (see the module's note): (the atom's row, text, unit vector)."""
    out = []
    for row in rng.integers(0, len(tree.vectors), count):
        leaf = int(tree.leaf_of[row])
        ancestors = []
        node = tree.parent[leaf]
        while node > 0:
            ancestors.append(node)
            node = tree.parent[node]
        picked = []
        for draw in rng.random(3):
            if draw < 0.5 or not ancestors:
                picked.append(str(rng.choice(tree.words[leaf])))
            elif draw < 0.75:
                picked.append(str(rng.choice(tree.words[int(rng.choice(ancestors))])))
            else:
                picked.append(tree.vocabulary[int(rng.integers(0, len(tree.vocabulary)))])
        tail = list(tree.nodes[leaf].surface[OWN_WORDS + PARENT_WORDS:])
        if tail:  # and one word the leaf shares with many topics, as real questions hold
            picked.append(str(rng.choice(tail)))
        vector = _noisy(tree.vectors[row : row + 1], QUERY_SPREAD, rng)[0]
        out.append((int(row), "what about the " + " ".join(picked), vector))
    return out


def rss_mb() -> float:
    """The process's resident memory now (VmRSS), in MB."""
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def top10(scores: np.ndarray) -> np.ndarray:
    """Indices of the 10 highest scores, best first."""
    if len(scores) <= 10:
        return np.argsort(-scores)
    best = np.argpartition(-scores, 10)[:10]
    return best[np.argsort(-scores[best])]


def _clocks() -> tuple[float, float]:
    return time.perf_counter(), time.thread_time()


def _spread(samples: list[tuple[float, float]]) -> str:
    """p50 / p95 of wall milliseconds, then of CPU milliseconds in brackets (other processes disturb it less)."""
    wall, cpu = [w for w, _ in samples], [c for _, c in samples]
    return (f"{percentile(wall, 50):.2f} / {percentile(wall, 95):.2f} "
            f"({percentile(cpu, 50):.2f} / {percentile(cpu, 95):.2f})")


def per_layer(index: TopicIndex, text: str, vector: np.ndarray, params: BeamParams) -> list[str]:
    """The contrast the seed names: a top-k per level (k = ``params.width``) by the beam's own topic and path
    scores and pruning, never returning to a topic passed over; the atoms of the leaves it ends on. It reads the
    index's internals (the beam's scoring); the synthetic trees have one root and their leaves at one depth."""
    query = index._read_query(parse_query(text), params.stemming)
    unit = index._query_vector(vector)
    frontier: list[tuple[float | None, int]] = [(None, index._roots[0])]
    while True:
        children = [(score, child) for score, node in frontier for child in index._children[node]]
        if not children:
            break
        relevances, _ = index._score([child for _, child in children], query, unit, params)
        w = params.depth_weight
        ranked = sorted(((r if score is None else w * r + (1 - w) * score, child)
                         for (score, child), r in zip(children, relevances, strict=True)), reverse=True)
        best = ranked[0][0]
        frontier = [(score, child) for score, child in ranked[: params.width]
                    if score > params.min_score and score >= params.prune_ratio * best]
    return list(dict.fromkeys(atom for _, node in frontier for atom in index._atoms[node]))


def measure(tree: SyntheticTree, index: TopicIndex, row_of: dict[str, int],
            asked: list[tuple[int, str, np.ndarray]], params: BeamParams, words: bool = True,
            contrast: bool = False) -> dict[str, Any]:
    """Tree and flat search over ``asked`` (after 5 warm-up queries): times (wall, CPU) in ms, share, recall,
    counters; with ``contrast``, the per-layer top-k's recall@10 (atoms, target found) too."""
    times: dict[str, list[tuple[float, float]]] = {"beam": [], "tree": [], "flat": []}
    share, recall, scored, exhausted, targets, flat_targets = [], [], [], 0, 0, 0
    layer_atoms, layer_recall, layer_targets = [], [], 0
    for i, (target, text, vector) in enumerate([*asked[:5], *asked]):
        start = _clocks()
        result = beam_search(index, text if words else "", vector, params)
        middle = _clocks()
        rows = np.fromiter((row_of[a] for a in result.atoms), dtype=np.int64, count=len(result.atoms))
        found = set(rows[top10(tree.vectors[rows] @ vector)].tolist())
        end = _clocks()
        truth = set(top10(tree.vectors @ vector).tolist())
        flat_end = _clocks()
        if i < 5:
            continue
        for name, (a, b) in {"beam": (start, middle), "tree": (start, end), "flat": (end, flat_end)}.items():
            times[name].append(((b[0] - a[0]) * 1000, (b[1] - a[1]) * 1000))
        share.append(len(rows) / len(tree.vectors))
        recall.append(len(found & truth) / 10)
        scored.append(result.topics_scored)
        exhausted += result.exhausted
        targets += target in found
        flat_targets += target in truth
        if contrast:
            layered = per_layer(index, text if words else "", vector, params)
            layer = np.array([row_of[a] for a in layered], dtype=np.int64)
            layer_found = set(layer[top10(tree.vectors[layer] @ vector)].tolist()) if len(layer) else set()
            layer_atoms.append(len(layer))
            layer_recall.append(len(layer_found & truth) / 10)
            layer_targets += target in layer_found
    return {"beam": _spread(times["beam"]), "tree": _spread(times["tree"]), "flat": _spread(times["flat"]),
            "tree95": percentile([w for w, _ in times["tree"]], 95),
            "share": float(np.mean(share)), "atoms": float(np.mean(share)) * len(tree.vectors),
            "recall": float(np.mean(recall)), "scored": float(np.mean(scored)), "exhausted": exhausted / len(asked),
            "target": targets / len(asked), "flat_target": flat_targets / len(asked),
            "layer": (f"{np.mean(layer_recall):.3f} ({np.mean(layer_atoms):.0f}, {layer_targets / len(asked):.0%})"
                      if contrast else "")}


def build(atoms: int, seed: int) -> tuple[SyntheticTree, TopicIndex, dict[str, int], dict[str, float]]:
    """Grow a tree, index it, and the RSS each step added (MB)."""
    gc.collect()
    before = rss_mb()
    start = time.perf_counter()
    tree = grow(atoms, np.random.default_rng(seed))
    grown = rss_mb()
    grow_s = time.perf_counter() - start
    start = time.perf_counter()
    index = TopicIndex(tree.nodes, dim=DIM)
    index_s = time.perf_counter() - start
    indexed = rss_mb()
    row_of = {f"a{row}": row for row in range(atoms)}
    return tree, index, row_of, {"data": grown - before, "index": indexed - grown, "rss": rss_mb(),
                                 "grow_s": grow_s, "index_s": index_s}


HEADER = ["atoms", "topics / depth", "beam p50/p95 ms (CPU)", "tree p50/p95 ms (CPU)", "flat p50/p95 ms (CPU)",
          "atoms scored", "recall@10", "per-layer recall@10 (atoms, target)", "target tree/flat", "topics scored",
          "bound hit", "RSS MB (data + index)", "grow / index s"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--sweep", type=int, default=0, help="atoms of the tree the beam's parameters are varied on")
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args()
    params = BeamParams()
    rows = []
    with threadpool_limits(1):
        for atoms in args.sizes:
            tree, index, row_of, memory = build(atoms, args.seed)
            got = measure(tree, index, row_of, queries(tree, args.queries, np.random.default_rng(args.seed + 1)),
                          params, contrast=True)
            rows.append([f"{atoms:,}", f"{index.size:,} / {tree.depth}",
                         got["beam"], got["tree"], got["flat"], f"{got['atoms']:.0f} ({got['share']:.2%})",
                         f"{got['recall']:.3f}", got["layer"], f"{got['target']:.0%} / {got['flat_target']:.0%}",
                         f"{got['scored']:.0f}", f"{got['exhausted']:.1%}",
                         f"{memory['rss']:.0f} ({memory['data']:.0f} + {memory['index']:.0f})",
                         f"{memory['grow_s']:.0f} / {memory['index_s']:.1f}"])
            print(table(f"{atoms:,} atoms", HEADER, rows[-1:]), flush=True)
            del tree, index, row_of
        if len(rows) > 1:
            print()
            print(table(f"Tree (global beam, {params}) vs flat, {args.queries} queries, BLAS on 1 thread",
                        HEADER, rows))
        if args.sweep:
            sweep(args.sweep, args.queries, args.seed, params)


def sweep(atoms: int, count: int, seed: int, params: BeamParams) -> None:
    """The beam's parameters varied one at a time around ``params`` on a tree of ``atoms`` atoms."""
    tree, index, row_of, _ = build(atoms, seed)
    asked = queries(tree, count, np.random.default_rng(seed + 1))
    variants: list[tuple[str, BeamParams, bool]] = [("defaults", params, True), ("vector only", params, False)]
    variants += [(f"width {w}", replace(params, width=w), True) for w in (4, 8, 16)]
    variants += [(f"prune_ratio {r}", replace(params, prune_ratio=r), True) for r in (0.0, 0.5, 0.7)]
    variants += [(f"depth_weight {d}", replace(params, depth_weight=d), True) for d in (0.3, 0.7, 1.0)]
    variants += [(f"dense/lexical {d}/{1 - d:.1f}", replace(params, dense_weight=d, lexical_weight=round(1 - d, 1)),
                  True) for d in (0.5, 0.7)]
    variants += [(f"max_expansions {m}", replace(params, max_expansions=m), True) for m in (32, 128)]
    rows = []
    for name, varied, words in variants:
        got = measure(tree, index, row_of, asked, varied, words)
        rows.append([name, got["tree"], f"{got['atoms']:.0f} ({got['share']:.2%})",
                     f"{got['recall']:.3f}", f"{got['target']:.0%}", f"{got['scored']:.0f}", f"{got['exhausted']:.1%}"])
    print()
    print(table(f"Beam parameters on {atoms:,} atoms ({count} queries)",
                ["variant", "tree p50/p95 ms (CPU)", "atoms scored", "recall@10", "target@10", "topics scored",
                 "bound hit"], rows))


if __name__ == "__main__":
    main()
