"""The topic tree's cold build and revisions (issue 14, ``index/topic_build.py``, ``topic_revise.py``) on real atoms.

Run: ``.venv/bin/python tests/benchmarks/bench_topic_clusters.py [--docs 600] [--part build,attach,merge,consolidate]``

Atoms: (a) SciFact: each abstract's sentences (``generation.sentences.split_sentences``) of the ``--docs`` first
abstracts that test claims cite, then others in corpus order; the test claims citing them are the queries.
(b) LoCoMo: every turn of each conversation ("speaker: text"), one tree per conversation; its questions with
evidence are the queries. Vectors from the product's embedder (the bundled model), cached under ``$TMPDIR``.

* ``build``: the leaves made by Ward (shipped), by top-down k-means (``branching`` parts, recursively) and by
  HDBSCAN (noise to the nearest cluster, oversized clusters cut), the levels above them alike. Printed: seconds,
  leaves, leaf size mean / CV / largest, depth; **pair precision** (pairs of atoms in one leaf that come from
  the same abstract or session) and **pair recall** (pairs of one abstract or session that share a leaf);
  **routing recall@L**: of each query's evidence (a cited abstract, an evidence turn), the share with an atom
  in the L leaves whose centroids are nearest the query, and the atoms those leaves hold (share scored).
* ``attach``: the nearest leaf overall against a descent from the root with a beam of 3, for held-out atoms:
  how often the leaf holds another atom of the same abstract/session, and seconds.
* ``merge``: centroid cosines of distinct sibling leaves against those of the two halves of one leaf (what a
  merge should catch), with their surfaces' overlap: the merge threshold.
* ``consolidate``: a tree built cold on the first N₀ atoms then revised day by day (attach, splits, merges,
  batches of 100) up to all atoms, against a rebuild on all of them: the atom count from which local revision
  stays as good as a rebuild (``Settings.topic_consolidate_at``).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import math
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from _common import SCIFACT, SHARED, need, table

from vancetope_desktop.core.settings import BUNDLED_MODEL
from vancetope_desktop.generation.sentences import split_sentences
from vancetope_desktop.index import topic_build, topic_groups, topic_labels, topic_revise
from vancetope_desktop.index import topic_plans as tp
from vancetope_desktop.index.embedder import Embedder
from vancetope_desktop.index.models import resolve_model

CACHE = Path(os.environ.get("TMPDIR", "/tmp")) / "vancetope-bench-topic-clusters"
LOCOMO = SHARED / "eval" / "locomo" / "locomo-dev.json"


@dataclass
class Dataset:
    """Atoms with the group each comes from (abstract, session), queries with the atoms answering them."""

    name: str
    ids: list[str]
    texts: list[str]
    group: np.ndarray
    vectors: np.ndarray
    queries: list[tuple[str, set[str]]]  # query text, evidence groups (str)
    query_vectors: np.ndarray | None = None


_EMBEDDER: Embedder | None = None


def _embed(texts: list[str], query: bool = False) -> np.ndarray:
    global _EMBEDDER
    key = hashlib.sha1(("q" if query else "d").encode() + "\n".join(texts).encode()).hexdigest()[:16]
    path = CACHE / f"{key}.npy"
    if path.exists():
        return np.load(path)
    if _EMBEDDER is None:
        _EMBEDDER = Embedder(resolve_model(BUNDLED_MODEL))
    start = time.perf_counter()
    vectors = _EMBEDDER.encode_queries(texts) if query else _EMBEDDER.encode_documents(texts)
    print(f"  embedded {len(texts)} texts in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def scifact(docs: int) -> Dataset:
    corpus = {}
    with gzip.open(need(SCIFACT / "corpus.jsonl.gz", "SciFact corpus"), "rt") as handle:
        for line in handle:
            row = json.loads(line)
            corpus[row["_id"]] = row["text"]
    claims = [json.loads(line) for line in need(SCIFACT / "evidence-test.jsonl", "SciFact claims").open()]
    cited = list(dict.fromkeys(d for c in claims for d in c["cited_doc_ids"] if d in corpus))
    chosen = (cited + [d for d in corpus if d not in set(cited)])[:docs]
    ids, texts, group = [], [], []
    for number, doc in enumerate(chosen):
        for index, sentence in enumerate(split_sentences(corpus[doc])):
            ids.append(f"{doc}:{index}")
            texts.append(sentence.text)
            group.append(number)
    kept = set(chosen)
    number_of = {d: str(i) for i, d in enumerate(chosen)}
    queries = [(c["claim"], {number_of[d] for d in c["cited_doc_ids"] if d in kept}) for c in claims]
    queries = [q for q in queries if q[1]]
    data = Dataset(f"SciFact {docs} abstracts", ids, texts, np.array(group), _embed(texts), queries)
    data.query_vectors = _embed([q for q, _ in queries], query=True)
    return data


def locomo(conversation: int) -> Dataset:
    sample = json.loads(need(LOCOMO, "LoCoMo").read_text())[conversation]
    talk = sample["conversation"]
    ids, texts, group = [], [], []
    sessions = sorted((k for k in talk if k.startswith("session_") and not k.endswith("date_time")),
                      key=lambda k: int(k.split("_")[1]))
    for number, session in enumerate(sessions):
        for turn in talk[session]:
            ids.append(turn["dia_id"])
            texts.append(f"{turn['speaker']}: {turn['text']}")
            group.append(number)
    turn_ids = set(ids)
    queries = [(str(q["question"]), {e for e in q.get("evidence", []) if e in turn_ids})
               for q in sample["qa"] if q.get("category") in (1, 2, 3, 4)]
    queries = [q for q in queries if q[1]]
    data = Dataset(f"LoCoMo conv {conversation}", ids, texts, np.array(group), _embed(texts), queries)
    data.query_vectors = _embed([q for q, _ in queries], query=True)
    return data


# -- leaf makers compared with the shipped Ward ------------------------------------------------------


def kmeans_leaves(vectors: np.ndarray, params: tp.TreeParams) -> list[np.ndarray]:
    """Top-down: k-means into ``branching`` parts, recursively, until a part fits ``leaf_target``."""
    from sklearn.cluster import KMeans

    out, pending = [], [np.arange(len(vectors))]
    while pending:
        rows = pending.pop()
        if len(rows) <= params.leaf_target or len(rows) < 2:
            out.append(rows)
            continue
        parts = min(params.branching, math.ceil(len(rows) / params.leaf_target), len(rows))
        labels = KMeans(parts, n_init=2, random_state=0).fit_predict(vectors[rows])
        groups = [rows[labels == label] for label in np.unique(labels)]
        if len(groups) == 1:
            out.append(rows)
            continue
        pending.extend(groups)
    return out


def hdbscan_leaves(vectors: np.ndarray, params: tp.TreeParams) -> list[np.ndarray]:
    """HDBSCAN clusters (min size 5), noise to the nearest cluster's centroid, oversized clusters cut."""
    from sklearn.cluster import HDBSCAN

    labels = HDBSCAN(min_cluster_size=5, copy=True).fit_predict(vectors)
    clusters = [np.flatnonzero(labels == label) for label in np.unique(labels) if label >= 0]
    if not clusters:
        clusters = [np.arange(len(vectors))]
    noise = np.flatnonzero(labels < 0)
    if len(noise) and len(clusters) > 0 and labels.max() >= 0:
        centroids = np.vstack([topic_groups.unit_centroid(vectors[c]) for c in clusters])
        nearest = np.argmax(vectors[noise] @ centroids.T, axis=1)
        clusters = [np.concatenate([c, noise[nearest == i]]) for i, c in enumerate(clusters)]
    return [g for c in clusters for g in topic_groups.bounded_groups(vectors, np.sort(c), params.leaf_max)]


def ward_by_size(vectors: np.ndarray, params: tp.TreeParams) -> list[np.ndarray]:
    """Ward leaves by size only, without the cut of clearly distinct halves (``topic_groups.DISTINCT_COSINE``)."""
    count = math.ceil(len(vectors) / params.leaf_target)
    return [group for part in topic_groups.like_groups(vectors, count)
            for group in topic_groups.bounded_groups(vectors, part, params.leaf_max)]


LEAF_MAKERS: dict[str, Callable[[np.ndarray, tp.TreeParams], list[np.ndarray]]] = {
    "ward (shipped)": topic_build.leaf_groups, "ward by size only": ward_by_size, "k-means top-down": kmeans_leaves,
    "hdbscan": hdbscan_leaves}


# -- trees as plain structures ----------------------------------------------------------------------


def state_of(data: Dataset, ids: Sequence[str], plan: tp.TreePlan) -> tp.TreeState:
    root = plan.of(tp.CreateTopic)[0]
    state = tp.TreeState((tp.TopicState(root.key, None),))
    return tp.apply_plan(state, tp.TreePlan(plan.operations[1:]))


def leaves_of(state: tp.TreeState) -> list[tp.TopicState]:
    return [t for t in state.leaves() if t.atoms]


def pair_scores(data: Dataset, state: tp.TreeState, rows_of: dict[str, int]) -> tuple[float, float]:
    """Pair precision (same group | same leaf) and pair recall (same leaf | same group)."""
    same_leaf = same_both = 0
    for leaf in leaves_of(state):
        groups = Counter(int(data.group[rows_of[a]]) for a in leaf.atoms)
        n = len(leaf.atoms)
        same_leaf += n * (n - 1) // 2
        same_both += sum(c * (c - 1) // 2 for c in groups.values())
    sizes = Counter(int(data.group[rows_of[a]]) for leaf in leaves_of(state) for a in leaf.atoms)
    same_group = sum(c * (c - 1) // 2 for c in sizes.values())
    return same_both / max(1, same_leaf), same_both / max(1, same_group)


BUDGETS = (0.05, 0.10, 0.25)
"""Shares of the atoms the routing may score: leaves are taken nearest first until they hold this many."""


def routing(data: Dataset, state: tp.TreeState, rows_of: dict[str, int]) -> list[float]:
    """Per budget of :data:`BUDGETS`: the share of query evidence with an atom in the leaves nearest the query
    (by centroid cosine) that together hold that share of the atoms."""
    leaves = leaves_of(state)
    centroids = np.vstack([leaf.centroid for leaf in leaves])
    total = sum(len(leaf.atoms) for leaf in leaves)
    found = [0] * len(BUDGETS)
    wanted = 0
    by_evidence = data.name.startswith("LoCoMo")
    for (_, evidence), vector in zip(data.queries, data.query_vectors, strict=True):
        order = np.argsort(-(centroids @ vector), kind="stable")
        wanted += len(evidence)
        for b, budget in enumerate(BUDGETS):
            atoms: list[str] = []
            for i in order:
                if len(atoms) >= budget * total:
                    break
                atoms.extend(leaves[i].atoms)
            held = set(atoms) if by_evidence else {str(int(data.group[rows_of[a]])) for a in atoms}
            found[b] += len(evidence & held)
    return [f / max(1, wanted) for f in found]


def depth_of(state: tp.TreeState) -> int:
    return max(len(state.ancestors(t.id)) for t in state.topics)


def run_build(datasets: list[Dataset], params: tp.TreeParams) -> None:
    rows = []
    for data in datasets:
        rows_of = {a: i for i, a in enumerate(data.ids)}
        for name, maker in LEAF_MAKERS.items():
            original = topic_build.leaf_groups
            topic_build.leaf_groups = maker
            try:
                start = time.perf_counter()
                plan = topic_build.build_tree(data.ids, data.vectors, data.texts, params=params)
                seconds = time.perf_counter() - start
            finally:
                topic_build.leaf_groups = original
            state = state_of(data, data.ids, plan)
            sizes = np.array([len(leaf.atoms) for leaf in leaves_of(state)])
            precision, recall = pair_scores(data, state, rows_of)
            routed = routing(data, state, rows_of)
            fan = max(len(c) for c in state.children.values())
            rows.append([data.name, name, f"{len(data.ids)}", f"{seconds:.1f}", f"{len(sizes)}",
                         f"{sizes.mean():.1f}", f"{sizes.std() / sizes.mean():.2f}", f"{sizes.max()}",
                         f"{depth_of(state)}/{fan}", f"{precision:.3f}", f"{recall:.3f}",
                         *(f"{r:.3f}" for r in routed)])
            print(" | ".join(rows[-1]), file=sys.stderr)
    print(table("Cold build: leaves by each method, the same levels above", [
        "atoms of", "leaves by", "atoms", "s", "leaves", "mean", "CV", "max", "depth/fan", "pair P", "pair R",
        *(f"route@{b:.0%}" for b in BUDGETS)], rows))


def descend(state: tp.TreeState, vector: np.ndarray, beam: int) -> str:
    """The leaf a top-down beam (width ``beam``, by centroid cosine) ends on."""
    frontier = [state.root.id]
    best_leaf, best_score = None, -2.0
    while frontier:
        children = [c for t in frontier for c in state.children[t] if state.by_id[c].centroid is not None]
        for t in frontier:
            if not state.children[t] and state.by_id[t].centroid is not None:
                score = float(state.by_id[t].centroid @ vector)
                if score > best_score:
                    best_leaf, best_score = t, score
        children.sort(key=lambda c: -float(state.by_id[c].centroid @ vector))
        frontier = children[:beam]
    return best_leaf


def run_attach(data: Dataset, params: tp.TreeParams) -> None:
    rng = np.random.default_rng(0)
    held = np.sort(rng.choice(len(data.ids), size=len(data.ids) // 10, replace=False))
    kept = np.setdiff1d(np.arange(len(data.ids)), held)
    ids = [data.ids[i] for i in kept]
    state = state_of(data, ids, topic_build.build_tree(ids, data.vectors[kept], [data.texts[i] for i in kept],
                                                       params=params))
    rows_of = {a: i for i, a in enumerate(data.ids)}
    start = time.perf_counter()
    plan = topic_revise.attach([data.ids[i] for i in held], data.vectors[held], state)
    flat_seconds = time.perf_counter() - start
    flat = {m.atom: m.to for m in plan.of(tp.MoveAtom)}
    rows = []
    for name, chooser, seconds in [("nearest leaf (shipped)", lambda a, v: flat[a], flat_seconds),
                                   ("beam 3 descent", lambda a, v: descend(state, v, 3), None),
                                   ("beam 1 descent", lambda a, v: descend(state, v, 1), None)]:
        start = time.perf_counter()
        hits = same = 0
        for i in held:
            leaf = chooser(data.ids[i], data.vectors[i])
            same += leaf == flat[data.ids[i]]
            hits += any(data.group[rows_of[a]] == data.group[i] for a in state.by_id[leaf].atoms)
        seconds = seconds if seconds is not None else time.perf_counter() - start
        rows.append([data.name, name, f"{len(held)}", f"{hits / len(held):.3f}", f"{same / len(held):.3f}",
                     f"{seconds * 1000:.0f}"])
    print(table("Attach: held-out tenth of the atoms", [
        "atoms of", "attach by", "new atoms", "leaf holds its group", "= nearest leaf", "ms"], rows))


def run_merge(datasets: list[Dataset], params: tp.TreeParams) -> None:
    rows = []
    for data in datasets:
        state = state_of(data, data.ids, topic_build.build_tree(data.ids, data.vectors, data.texts, params=params))
        rows_of = {a: i for i, a in enumerate(data.ids)}
        siblings, overlaps_s = [], []
        for children in state.children.values():
            leaves = [state.by_id[c] for c in children if not state.children[c]]
            for i, a in enumerate(leaves):
                for b in leaves[i + 1:]:
                    siblings.append(float(a.centroid @ b.centroid))
                    overlaps_s.append(topic_labels.surface_overlap(a.surface, b.surface))
        halves, overlaps_h = [], []
        rng = np.random.default_rng(0)
        for leaf in leaves_of(state):
            if len(leaf.atoms) < 6:
                continue
            order = rng.permutation(len(leaf.atoms))
            parts = [[rows_of[leaf.atoms[j]] for j in order[: len(order) // 2]],
                     [rows_of[leaf.atoms[j]] for j in order[len(order) // 2:]]]
            halves.append(float(topic_groups.unit_centroid(data.vectors[parts[0]])
                                @ topic_groups.unit_centroid(data.vectors[parts[1]])))
            words = topic_labels.class_words([[data.texts[r] for r in p] for p in parts], params.surface_terms)
            overlaps_h.append(topic_labels.surface_overlap(*words))
        q = [5, 25, 50, 75, 95, 99]
        rows.append([data.name, "distinct siblings", f"{len(siblings)}",
                     " ".join(f"{np.percentile(siblings, p):.2f}" for p in q),
                     " ".join(f"{np.percentile(overlaps_s, p):.2f}" for p in q)])
        rows.append([data.name, "halves of one leaf", f"{len(halves)}",
                     " ".join(f"{np.percentile(halves, p):.2f}" for p in q),
                     " ".join(f"{np.percentile(overlaps_h, p):.2f}" for p in q)])
        for t in (0.8, 0.85, 0.9, 0.95):
            for o in (0.0, topic_revise.MERGE_OVERLAP):
                wrong = np.mean([(s >= t) and (w >= o) for s, w in zip(siblings, overlaps_s, strict=True)])
                right = np.mean([(s >= t) and (w >= o) for s, w in zip(halves, overlaps_h, strict=True)])
                rows.append([data.name, f"t={t} overlap≥{o}", "", f"halves caught {right:.1%}",
                             f"distinct siblings caught {wrong:.2%}"])
    print(table("Merge: centroid cosine and surface overlap of sibling leaves", [
        "atoms of", "pairs", "n", "cosine p5 p25 p50 p75 p95 p99", "surface overlap p5…p99"], rows))


def revise(state: tp.TreeState, data: Dataset, new: np.ndarray, known: np.ndarray, params: tp.TreeParams,
           threshold: float, regroup: bool) -> tp.TreeState:
    """One digest's local revision: attach ``new`` rows, split what grew, merge near-identical siblings."""
    state = tp.apply_plan(state, topic_revise.attach([data.ids[i] for i in new], data.vectors[new], state))
    rows = np.concatenate([known, new])
    table_ = tp.atom_table([data.ids[i] for i in rows], data.vectors[rows], [data.texts[i] for i in rows])
    state = tp.apply_plan(state, topic_revise.splits(state, table_, params, regroup=regroup))
    return tp.apply_plan(state, topic_revise.merges(state, threshold, params))


def run_consolidate(data: Dataset, params: tp.TreeParams, starts: Sequence[int], batch: int,
                    threshold: float, regroup: bool) -> None:
    rng = np.random.default_rng(1)
    order = rng.permutation(len(data.ids))  # atoms arrive in random order (a library grows over all its topics)
    rows_of = {a: i for i, a in enumerate(data.ids)}
    full = state_of(data, data.ids, topic_build.build_tree(data.ids, data.vectors, data.texts, params=params))
    precision, recall = pair_scores(data, full, rows_of)
    routed = routing(data, full, rows_of)
    rows = [[data.name, "rebuild on all", f"{precision:.3f}", f"{recall:.3f}", *(f"{r:.3f}" for r in routed),
             f"{len(leaves_of(full))}", f"{depth_of(full)}", "", ""]]
    for start in starts:
        first = order[:start]
        state = state_of(data, [data.ids[i] for i in first], topic_build.build_tree(
            [data.ids[i] for i in first], data.vectors[first], [data.texts[i] for i in first], params=params))
        began = time.perf_counter()
        days = 0
        for at in range(start, len(order), batch):
            state = revise(state, data, order[at:at + batch], order[:at], params, threshold, regroup)
            days += 1
        seconds = time.perf_counter() - began
        precision, recall = pair_scores(data, state, rows_of)
        routed = routing(data, state, rows_of)
        per_thousand = seconds / max(1, len(order) - start) * 1000
        label = f"cold on {start}, then {days} days" + (" (regroup)" if regroup else "")
        rows.append([data.name, label, f"{precision:.3f}", f"{recall:.3f}",
                     *(f"{r:.3f}" for r in routed), f"{len(leaves_of(state))}",
                     f"{depth_of(state)}", f"{per_thousand:.2f}",
                     f"{max(len(c) for c in state.children.values())}"])
        print(" | ".join(rows[-1]), file=sys.stderr)
    print(table("Consolidation: cold build on the first atoms, then local revisions, against a rebuild", [
        "atoms of", "tree", "pair P", "pair R", *(f"route@{b:.0%}" for b in BUDGETS), "leaves", "depth",
        "s / 1000 new", "max fan"], rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=600)
    parser.add_argument("--conversations", type=int, default=2)
    parser.add_argument("--part", default="build,attach,merge,consolidate")
    parser.add_argument("--leaf-max", type=int, default=tp.TreeParams().leaf_max)
    parser.add_argument("--leaf-fill", type=float, default=tp.TreeParams().leaf_fill)
    parser.add_argument("--threshold", type=float, default=0.9)
    parser.add_argument("--starts", default="50,100,200,300,500,1000")
    parser.add_argument("--regroup", choices=["no", "yes", "both"], default="both",
                        help="splits(regroup=…) in the consolidation part")
    args = parser.parse_args()
    params = tp.TreeParams(leaf_max=args.leaf_max, leaf_fill=args.leaf_fill)
    parts = set(args.part.split(","))
    datasets = [scifact(args.docs)] + [locomo(i) for i in range(args.conversations)]
    if "build" in parts:
        run_build(datasets, params)
    if "attach" in parts:
        for data in datasets:
            run_attach(data, params)
    if "merge" in parts:
        run_merge(datasets, params)
    if "consolidate" in parts:
        starts = [int(s) for s in args.starts.split(",")]
        for data in datasets:
            for regroup in (False, True) if args.regroup == "both" else (args.regroup == "yes",):
                run_consolidate(data, params, [s for s in starts if s < len(data.ids)], 100, args.threshold,
                                regroup)


if __name__ == "__main__":
    main()
