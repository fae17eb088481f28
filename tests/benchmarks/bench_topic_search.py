"""Tree search against flat search on LoCoMo and SciFact (issue 14, "Figures"): recall and the share of atoms scored.

Run: ``.venv/bin/python tests/benchmarks/bench_topic_search.py [--bench locomo,locomo-builtin,scifact] [--abstracts N]
[--grid] [--rebuild]``

* Libraries (cached in ``$TMPDIR/topic-search-bench``, built through the product's own writes):
  - ``locomo``: the dataset's ``observation`` facts (``bench_locomo_atoms.observations``: written per session by the
    dataset's authors, each naming its evidence turns; the stand-in for a strong extractor of issue 13) stored as
    fact atoms of their conversation's scope ``project/conv-N`` (``documents.session_add_text`` with
    ``atoms.atom_metadata``, 500 a transaction), embedded, then each scope's tree built by the product's upkeep
    (``services.topic_upkeep.update_topics``: the cold build of ``index/topic_build.build_tree``). Only atoms: the
    turns are not stored, so both modes rank the same atoms.
  - ``locomo-builtin``: part 1's atoms instead: what the built-in generator (``generation.builtin``) reads from every
    turn written as ``bench_locomo`` writes it, dated by its session (~1,130 atoms a conversation, the restatements a
    one-chunk turn would drop included), each keyed to its turn.
  - A cached library whose trees were built with another ``TreeParams`` gets them rebuilt from scratch first.
  - ``scifact``: each abstract's sentences (``generation.sentences.split_sentences``; the title as one more) as fact
    atoms of one scope, embedded, the tree built the same way. ``--abstracts N`` keeps every abstract judged for a
    test claim and fills up to N with others in corpus order (0: the whole corpus, ~45k sentences: hours of
    embedding on 2 busy cores).
* Rankings, the same pieces in both modes: ``services.topic_search.topic_search`` with ``mode="flat"`` (the hybrid
  search over every atom) and ``mode="tree"`` (the global beam, then the same hybrid search restricted to the atoms
  under the paths kept), the shipped settings, :data:`HITS` hits.
* Metrics: LoCoMo dialog recall@5/@10 of the evidence turns (each atom hit stands for its evidence turns, repeats
  dropped; questions of categories 1-4, ``bench_locomo.load``); SciFact nDCG@10 and recall@100 on the test claims
  (an abstract scores by its best sentence: its first hit). Both: the mean share of the scope's atoms the ranking
  scored (``atoms_scored / atoms``; flat 100%), topics scored, p50 / p95 ms per search.
* ``--grid [W:P,…]``: the tree also with other beam widths and prune ratios (``index/topic_beam.BeamParams``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from _common import need, scifact_corpus, scifact_qrels, scifact_queries, table
from bench_locomo import DEFAULT_RECIPE, LOCOMO, RECIPES, load, scope_of
from bench_locomo_atoms import observations
from bench_scifact import ndcg_at, recall_at
from sqlalchemy import text

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.settings import Settings
from vancetope_desktop.generation.builtin import BuiltinGenerator
from vancetope_desktop.generation.sentences import split_sentences
from vancetope_desktop.index.topic_beam import BeamParams
from vancetope_desktop.services import atoms, documents, indexing, scopes, topic_upkeep
from vancetope_desktop.services.library import Library
from vancetope_desktop.services.topic_search import ATOM_TYPES, TopicSearchResponse, topic_search
from vancetope_desktop.store.db import read_session, write_session

ROOT = Path(tempfile.gettempdir()) / "topic-search-bench"
HITS = {"locomo": 40, "scifact": 100}
"""Atoms asked per search: LoCoMo folds atoms into turns (40 give ten distinct turns, as bench_locomo_atoms), SciFact
into abstracts (100 for recall@100 of abstracts with ~9 sentences each)."""
BATCH = 500
"""Atoms written per transaction while building a bench library."""
SCIFACT_SCOPE = "project/scifact"
GRID = "4:0.5,16:0.5,8:0.3,8:0.7"
"""(width:prune_ratio, …) tried besides the defaults with ``--grid`` (``--grid-spec`` replaces it)."""


# -- building -------------------------------------------------------------------------------------


def store_facts(lib: Library, facts: Sequence[tuple[str, str]]) -> list[str]:
    """Store ``(scope, text)`` as fact atoms written directly, :data:`BATCH` a transaction; their ids in order."""
    ids: list[str] = []
    for start in range(0, len(facts), BATCH):
        prepared = [(scope, documents.prepare_text(lib, text, DocumentType.FACT)) for scope, text in
                    facts[start:start + BATCH]]
        with write_session(lib.engine) as session:
            for (scope, ready), (_, text) in zip(prepared, facts[start:start + BATCH], strict=True):
                ids.append(documents.session_add_text(session, ready, scope_path=scope,
                                                      metadata=atoms.atom_metadata(DocumentType.FACT, text)).id)
    return ids


def build(folder: Path, facts: Sequence[tuple[str, str]], keys: Sequence[object], new_scopes: Sequence[str]) -> None:
    """A library in ``folder`` holding ``facts`` as atoms, embedded, each scope's tree built by the upkeep;
    ``atoms.json`` maps each atom id to its key in ``keys``; ``build.json`` the times."""
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    lib = Library.open(partial / "library", settings=Settings())
    times: dict[str, float] = {}
    try:
        for path in new_scopes:
            kind, key = path.split("/", 1)
            scopes.create_scope(lib, kind, key, name=key)
        start = time.perf_counter()
        ids = store_facts(lib, facts)
        times["store_s"] = time.perf_counter() - start
        start = time.perf_counter()
        report = indexing.try_drain(lib)
        assert report is not None and not report.failed, report
        times["embed_s"] = time.perf_counter() - start
        start = time.perf_counter()
        for path in new_scopes:
            print(f"  {topic_upkeep.update_topics(lib, path).message}", file=sys.stderr)
        times["tree_s"] = time.perf_counter() - start
        (partial / "atoms.json").write_text(json.dumps(dict(zip(ids, keys, strict=True))), encoding="utf-8")
        (partial / "build.json").write_text(json.dumps({**times, "atoms": len(ids), "load": os.getloadavg()[0],
                                                        "tree_params": repr(topic_upkeep.TREE)}), encoding="utf-8")
    finally:
        lib.close()
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(partial, folder)


def open_bench(name: str, make: Callable[[], tuple[list, list, list[str]]], rebuild: bool) -> tuple[Library, dict,
                                                                                                     dict]:
    """The cached library ``name`` (built with ``make()`` → facts, keys, scopes when missing), its atom → key map and
    its build figures."""
    folder = ROOT / f"{name}-{hashlib.sha256(Settings().embedding_model.encode()).hexdigest()[:8]}"
    if rebuild or not (folder / "atoms.json").exists():
        print(f"building {folder} …", file=sys.stderr)
        build(folder, *make())
    lib = Library.open(folder / "library", settings=Settings())
    figures = json.loads((folder / "build.json").read_text(encoding="utf-8"))
    shape = repr(topic_upkeep.TREE)
    if figures.get("tree_params") != shape:
        # Built with another tree shape (``index.topic_plans.TreeParams``): the trees again, from scratch, as a
        # person's "rebuild now" does; the atoms and their vectors stay.
        print(f"rebuilding the trees of {folder.name} for {shape} …", file=sys.stderr)
        start = time.perf_counter()
        for scope in sorted(tree_scopes(lib)):
            print(f"  {topic_upkeep.update_topics(lib, scope, from_scratch=True).message}", file=sys.stderr)
        figures |= {"tree_s": time.perf_counter() - start, "tree_params": shape, "load": os.getloadavg()[0]}
        (folder / "build.json").write_text(json.dumps(figures), encoding="utf-8")
    return lib, json.loads((folder / "atoms.json").read_text(encoding="utf-8")), figures


def tree_scopes(lib: Library) -> list[str]:
    """The scopes of ``lib`` that hold atoms (each has a tree once the upkeep ran)."""
    with read_session(lib.engine) as session:
        return [row[0] for row in session.exec(text(
            "SELECT DISTINCT scope_path FROM document WHERE type IN (SELECT value FROM json_each(:types))"),
            params={"types": json.dumps([t.value for t in ATOM_TYPES])}).all()]


# -- measuring ------------------------------------------------------------------------------------


class Run:
    """One ranking's figures over a question set."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.scores: dict[str, list[float]] = {}
        self.shares: list[float] = []
        self.topics: list[int] = []
        self.seconds: list[float] = []

    def add(self, response: TopicSearchResponse, seconds: float, **scores: float) -> None:
        """Count one search."""
        for name, value in scores.items():
            self.scores.setdefault(name, []).append(value)
        self.shares.append(response.share if response.mode == "tree" else 1.0)
        self.topics.append(response.topics_scored)
        self.seconds.append(seconds)

    def row(self, names: Sequence[str]) -> list[str]:
        """Mean scores, mean and p95 share, topics, p50 / p95 ms."""
        ms = sorted(1000 * s for s in self.seconds)
        shares = sorted(self.shares)
        return [self.label, *(f"{statistics.fmean(self.scores[n]):.4f}" for n in names),
                f"{100 * statistics.fmean(shares):.1f}%", f"{100 * shares[int(0.95 * (len(shares) - 1))]:.1f}%",
                f"{statistics.fmean(self.topics):.0f}", f"{ms[len(ms) // 2]:.0f} / {ms[int(0.95 * (len(ms) - 1))]:.0f}"]


def modes(grid: str | None) -> list[tuple[str, str, BeamParams | None]]:
    """(label, mode, beam parameters) to compare: flat, the tree with the defaults, and ``grid`` (``width:prune,…``)."""
    out: list[tuple[str, str, BeamParams | None]] = [("flat", "flat", None), ("tree (defaults)", "tree", None)]
    for item in grid.split(",") if grid else ():
        width, prune = item.split(":")
        out.append((f"tree width {width} prune {prune}", "tree",
                    BeamParams.from_settings(Settings(), width=int(width), prune_ratio=float(prune))))
    return out


def locomo_atoms(arm: str, turns: Sequence) -> list[tuple[str, str, list[str]]]:
    """``(conversation, statement, evidence turn ids)`` for the LoCoMo arm ``observations`` (the dataset's facts)
    or ``builtin`` (part 1's built-in generator over every turn, written as ``bench_locomo`` writes a turn, dated
    by its session; every atom it reads, the restatements a one-chunk turn would drop included, so that each
    conversation's tree holds ~500 atoms rather than ~120)."""
    if arm == "observations":
        return observations({t.conversation for t in turns})
    generator = BuiltinGenerator()
    return [(turn.conversation, " ".join(draft.text.split()), [turn.dia_id]) for turn in turns
            for draft in generator.extract_atoms(RECIPES[DEFAULT_RECIPE](turn)[1], reference_time=turn.date)
            if draft.text.strip()]


def locomo(arm: str, grid: str | None, rebuild: bool) -> str:
    """LoCoMo: dialog recall of tree vs flat over the atoms of ``arm`` (:func:`locomo_atoms`)."""
    turns, questions = load()
    conversations = list(dict.fromkeys(t.conversation for t in turns))

    def make() -> tuple[list, list, list[str]]:
        found = locomo_atoms(arm, turns)
        return ([(scope_of(c), text) for c, text, _ in found], [[c, ids] for c, _, ids in found],
                [scope_of(c) for c in conversations])

    need(LOCOMO, "the LoCoMo file")
    lib, keys, built = open_bench(f"locomo-{arm}", make, rebuild)
    try:
        runs = []
        for label, mode, beam in modes(grid):
            run = Run(label)
            topic_search(lib, questions[0].text, scope=scope_of(questions[0].conversation), mode=mode)  # warm-up
            for question in questions:
                scope = scope_of(question.conversation)
                start = time.perf_counter()
                response = topic_search(lib, question.text, scope=scope, scopes=[scope], mode=mode, beam=beam,
                                        limit=HITS["locomo"])
                seconds = time.perf_counter() - start
                ranked = list(dict.fromkeys(turn for h in response.hits for turn in keys[h.document.id][1]))
                wanted = set(question.evidence)
                run.add(response, seconds,
                        **{f"R@{k}": len(wanted & set(ranked[:k])) / len(wanted) for k in (5, 10)})
            runs.append(run)
    finally:
        lib.close()
    return table(f"LoCoMo: {len(questions)} questions, {built['atoms']} {arm} atoms in {len(conversations)} "
                 f"scopes (store {built['store_s']:.0f} s, embed {built['embed_s']:.0f} s, trees "
                 f"{built['tree_s']:.0f} s at load {built['load']:.1f}); load now {os.getloadavg()[0]:.1f}",
                 ["ranking", "dialog R@5", "R@10", "atoms scored", "p95", "topics scored", "p50 / p95 ms"],
                 [r.row(["R@5", "R@10"]) for r in runs])


def scifact(abstracts: int, grid: str | None, rebuild: bool) -> str:
    """SciFact test: nDCG@10 of tree vs flat, abstracts scored by their best sentence atom."""
    queries, qrels = scifact_queries("test"), scifact_qrels("test")
    judged = {doc for q in qrels.values() for doc in q}
    corpus = scifact_corpus()
    kept = [d for d in corpus if d["_id"] in judged]
    kept += [d for d in corpus if d["_id"] not in judged][: max(0, abstracts - len(kept))] if abstracts else \
        [d for d in corpus if d["_id"] not in judged]

    def make() -> tuple[list, list, list[str]]:
        facts, keys = [], []
        for doc in kept:
            for sentence in [doc.get("title") or "", *(s.text for s in split_sentences(doc["text"]))]:
                if sentence.strip():
                    facts.append((SCIFACT_SCOPE, " ".join(sentence.split())))
                    keys.append(doc["_id"])
        return facts, keys, [SCIFACT_SCOPE]

    lib, keys, built = open_bench(f"scifact-{abstracts or 'all'}", make, rebuild)
    try:
        runs = []
        for label, mode, beam in modes(grid):
            run = Run(label)
            for qid, claim in queries.items():
                if qid not in qrels:
                    continue
                start = time.perf_counter()
                response = topic_search(lib, claim, scope=SCIFACT_SCOPE, mode=mode, beam=beam, limit=HITS["scifact"])
                seconds = time.perf_counter() - start
                ranked = list(dict.fromkeys(keys[h.document.id] for h in response.hits))
                run.add(response, seconds, nDCG=ndcg_at(ranked, qrels[qid]), R100=recall_at(ranked, qrels[qid]))
            runs.append(run)
    finally:
        lib.close()
    return table(f"SciFact test: {sum(q in qrels for q in queries)} claims, {len(kept)} abstracts as "
                 f"{built['atoms']} sentence atoms (store {built['store_s']:.0f} s, embed {built['embed_s']:.0f} s, "
                 f"tree {built['tree_s']:.0f} s at load {built['load']:.1f}); load now {os.getloadavg()[0]:.1f}",
                 ["ranking", "nDCG@10", "R@100", "atoms scored", "p95", "topics scored", "p50 / p95 ms"],
                 [r.row(["nDCG", "R100"]) for r in runs])


def main() -> None:
    """Build or open each bench's library, compare the modes, print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", default="locomo,locomo-builtin,scifact",
                        help="comma-separated: locomo (the observation atoms), locomo-builtin, scifact")
    parser.add_argument("--abstracts", type=int, default=1000, help="SciFact abstracts kept (0: all)")
    parser.add_argument("--grid", nargs="?", const=GRID, default=None,
                        help=f"also other beam widths and prune ratios, width:prune,… (alone: {GRID})")
    parser.add_argument("--rebuild", action="store_true", help="build the libraries again")
    args = parser.parse_args()
    for bench in args.bench.split(","):
        found = scifact(args.abstracts, args.grid, args.rebuild) if bench == "scifact" else \
            locomo("builtin" if bench == "locomo-builtin" else "observations", args.grid, args.rebuild)
        print(found, flush=True)


if __name__ == "__main__":
    main()
