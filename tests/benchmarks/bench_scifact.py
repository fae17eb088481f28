"""SciFact retrieval quality: dense-only, BM25-only and the product's hybrid ranking, plus tuning.

Run: ``.venv/bin/python tests/benchmarks/bench_scifact.py [--rebuild] [--tune] [--split test]``

* Index: the 5,183 SciFact abstracts, each one ``note`` through ``documents.add_text`` (title = paper
  title, content = abstract), then ``indexing.try_drain``. The library is cached under
  ``$TMPDIR/vancetope-bench-scifact-<hash>`` (hash of the corpus file, the model and the build
  recipe) so later runs only evaluate; ``--rebuild`` builds it again.
* Rankings, all through the product's own components:
  dense-only = ``VectorStore.query`` chunk hits aggregated to documents (best chunk);
  BM25-only = ``index/lexical.search_chunks`` hits aggregated to documents (best chunk);
  hybrid = ``services.search.search`` (the shipped fusion and settings).
* Metrics: nDCG@10 and Recall@100 (binary relevance, BEIR's definitions) on the test split.
* ``--tune``: grid search of fusion parameters on the TRAIN split only (the test split is then
  evaluated once with the chosen parameters, for the record). The grid calls ``index/fusion.fuse``
  on rankings fetched once per query, so it is the product's arithmetic, not a re-implementation.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from _common import SCIFACT, need, scifact_corpus, scifact_qrels, scifact_queries, table

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.settings import Settings
from vancetope_desktop.index import fusion
from vancetope_desktop.index.fusion import RankedChunk, fuse
from vancetope_desktop.index.lexical import search_chunks
from vancetope_desktop.services import documents, indexing
from vancetope_desktop.services import search as search_service
from vancetope_desktop.services.library import DEFAULT_PROJECT, Library
from vancetope_desktop.store.db import read_session
from vancetope_desktop.store.filters import SqlFilter

BUILD_RECIPE = "note-title-abstract-v1"
"""Bump when the way the index is built changes (document type, content), to invalidate caches."""
DOC_TYPE = DocumentType.NOTE
DEPTH = 300
"""Chunks fetched per ranking and query for tuning (deeper than any candidates depth tried)."""


# -- metrics ---------------------------------------------------------------------------------------

def ndcg_at(ranked: Sequence[str], relevant: dict[str, int], k: int = 10) -> float:
    """nDCG@k with graded gains ``rel / log2(rank + 1)`` (binary here), BEIR/pytrec_eval style."""
    dcg = sum(relevant.get(doc, 0) / math.log2(rank + 2) for rank, doc in enumerate(ranked[:k]))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum(gain / math.log2(rank + 2) for rank, gain in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked: Sequence[str], relevant: dict[str, int], k: int = 100) -> float:
    """Share of the relevant documents found in the first ``k``."""
    wanted = {doc for doc, gain in relevant.items() if gain > 0}
    return len(wanted & set(ranked[:k])) / len(wanted) if wanted else 0.0


def evaluate(runs: dict[str, list[str]], qrels: dict[str, dict[str, int]]) -> tuple[float, float]:
    """Mean nDCG@10 and Recall@100 over the judged queries (a query without a run scores 0)."""
    queries = [q for q in qrels if qrels[q]]
    ndcg = sum(ndcg_at(runs.get(q, []), qrels[q]) for q in queries) / len(queries)
    recall = sum(recall_at(runs.get(q, []), qrels[q]) for q in queries) / len(queries)
    return ndcg, recall


# -- the index ------------------------------------------------------------------------------------

def cache_folder(model: str) -> Path:
    """Where the built library of this corpus, model and recipe is kept between runs."""
    digest = hashlib.sha256()
    digest.update((SCIFACT / "corpus.jsonl.gz").read_bytes())
    digest.update(f"{model}|{BUILD_RECIPE}|{DOC_TYPE.value}".encode())
    return Path(tempfile.gettempdir()) / f"vancetope-bench-scifact-{digest.hexdigest()[:12]}"


def build(folder: Path) -> None:
    """Index every abstract through ``documents.add_text`` and drain, into ``folder`` (atomically)."""
    corpus = scifact_corpus()
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    lib = Library.open(partial / "library")
    mapping: dict[str, str] = {}
    try:
        start = time.perf_counter()
        for number, doc in enumerate(corpus, start=1):
            content = doc["text"].strip() or doc["title"]
            info = documents.add_text(lib, content, doc_type=DOC_TYPE, title=doc["title"] or None,
                                      metadata={"scifact_id": str(doc["_id"])})
            mapping[info.id] = str(doc["_id"])
            if number % 1000 == 0:
                print(f"  added {number}/{len(corpus)} ({time.perf_counter() - start:.0f} s)", file=sys.stderr)
        added = time.perf_counter() - start
        report = indexing.try_drain(lib)
        assert report is not None and not report.failed, report
        drained = time.perf_counter() - start - added
        (partial / "ids.json").write_text(json.dumps(mapping), encoding="utf-8")
        (partial / "build.json").write_text(json.dumps({"documents": len(mapping), "chunks": report.chunks,
                                                        "add_seconds": added, "drain_seconds": drained}))
    finally:
        lib.close()
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(partial, folder)


def open_index(rebuild: bool) -> tuple[Library, dict[str, str], dict]:
    """The cached library (built first if missing or ``rebuild``), its id map and build figures.

    The library is opened with the settings of the code (``Settings()``), not the cached file's, so
    tuning the defaults takes effect without a rebuild.
    """
    model = Settings().embedding_model
    folder = cache_folder(model)
    if rebuild or not (folder / "ids.json").exists():
        print(f"building the SciFact library in {folder} …", file=sys.stderr)
        build(folder)
    lib = Library.open(folder / "library", settings=Settings())
    mapping = json.loads((folder / "ids.json").read_text(encoding="utf-8"))
    return lib, mapping, json.loads((folder / "build.json").read_text(encoding="utf-8"))


# -- rankings through the product's components ----------------------------------------------------

class Rankings:
    """Per query, the dense and lexical chunk rankings (fetched once, ``DEPTH`` deep)."""

    def __init__(self, lib: Library, queries: dict[str, str]) -> None:
        self.lib = lib
        self.queries = queries
        self._dense: dict[str, list[RankedChunk]] | None = None
        self._lexical: dict[tuple[float, int | None, bool], dict[str, list[RankedChunk]]] = {}

    def dense(self) -> dict[str, list[RankedChunk]]:
        """Query id → chunks by cosine similarity (``VectorStore.query`` on the library's scope)."""
        if self._dense is None:
            ids = list(self.queries)
            vectors = self.lib.embedder().encode_queries([self.queries[q] for q in ids])
            self._dense = {
                q: [RankedChunk(h.chunk_id, h.document_id, h.similarity)
                    for h in self.lib.vectors.query(DEFAULT_PROJECT, vectors[i], DEPTH)]
                for i, q in enumerate(ids)
            }
        return self._dense

    def lexical(self, title_weight: float, max_postings: int | None,
                stemming: bool = True) -> dict[str, list[RankedChunk]]:
        """Query id → chunks by BM25 (``lexical.search_chunks`` with this title weight, budget, stemming)."""
        key = (title_weight, max_postings, stemming)
        if key not in self._lexical:
            where = SqlFilter().and_in("scope_path", [DEFAULT_PROJECT]).and_in("status", ["active"])
            with read_session(self.lib.engine) as session:
                self._lexical[key] = {
                    q: [RankedChunk(h.chunk_id, h.document_id, h.score)
                        for h in search_chunks(session, text, where, DEPTH, title_weight=title_weight,
                                               max_postings=max_postings, stemming=stemming)]
                    for q, text in self.queries.items()
                }
        return self._lexical[key]


def documents_of(chunks: list[RankedChunk]) -> list[str]:
    """Documents in the order of their best chunk (the single-ranking aggregation)."""
    return list(dict.fromkeys(c.document_id for c in sorted(chunks, key=lambda c: -c.score)))


def run_single(rankings: dict[str, list[RankedChunk]], mapping: dict[str, str]) -> dict[str, list[str]]:
    """A single ranking as a run of SciFact ids."""
    return {q: [mapping[d] for d in documents_of(chunks)] for q, chunks in rankings.items()}


def run_fused(dense: dict[str, list[RankedChunk]], lexical: dict[str, list[RankedChunk]], mapping: dict[str, str],
              depth: int, **options) -> dict[str, list[str]]:
    """``fusion.fuse`` over both rankings cut at ``depth`` chunks, as a run of SciFact ids."""
    out = {}
    for q in dense:
        fused = fuse(dense[q][:depth], lexical.get(q, [])[:depth], {}, **options)
        out[q] = [mapping[d.document_id] for d in fused]
    return out


def run_product(lib: Library, queries: dict[str, str], mapping: dict[str, str]) -> tuple[dict[str, list[str]], float]:
    """``services.search.search`` for every query (100 hits each) and the mean seconds per query."""
    out = {}
    start = time.perf_counter()
    for q, text in queries.items():
        response = search_service.search(lib, text, scope=DEFAULT_PROJECT, limit=100)
        out[q] = [mapping[h.document.id] for h in response.hits]
    return out, (time.perf_counter() - start) / max(len(queries), 1)


# -- tuning ---------------------------------------------------------------------------------------

def tune(lib: Library, mapping: dict[str, str]) -> dict[str, list[tuple[str, float, float]]]:
    """Grid search on the TRAIN split; tables of (configuration, nDCG@10, Recall@100), best first.

    Stage A: BM25 alone over title weight x postings budget x stemming. Stage B: both fusion methods
    over their grids, title weights and candidate depths (with the shipped budget and stemming).
    Stage C: chunk aggregation for the best of B, the shipped settings and the previous default.
    """
    queries, qrels = scifact_queries("train"), scifact_qrels("train")
    rankings = Rankings(lib, queries)
    dense = rankings.dense()
    stages: dict[str, list[tuple[str, float, float]]] = {"A": [], "B": [], "C": []}
    best_options: dict[str, tuple[float, int, dict]] = {}

    def record(stage: str, label: str, run: dict[str, list[str]]) -> float:
        ndcg, recall = evaluate(run, qrels)
        stages[stage].append((label, ndcg, recall))
        return ndcg

    record("A", "dense only", run_single(dense, mapping))
    for title_weight, budget, stemming in itertools.product(TITLE_WEIGHTS, BUDGETS, (False, True)):
        record("A", f"bm25 title_weight={title_weight} max_postings={budget} stemming={stemming}",
               run_single(rankings.lexical(title_weight, budget, stemming), mapping))
    budget, stemming = lib.settings.lexical_max_postings, lib.settings.lexical_stemming
    best_score = -1.0
    for title_weight, depth, grid in itertools.product(TITLE_WEIGHTS, DEPTHS, GRIDS.values()):
        lexical = rankings.lexical(title_weight, budget, stemming)
        for options in grid():
            label = f"tw={title_weight} depth={depth} " + " ".join(f"{k}={v}" for k, v in options.items())
            score = record("B", label, run_fused(dense, lexical, mapping, depth, **options))
            if score > best_score:
                best_score, best_options["best"] = score, (title_weight, depth, options)
    title_weight, depth, options = best_options["best"]
    for top_chunks in (1, 2, 3):
        label = f"best of B, top_chunks={top_chunks}"
        record("C", label, run_fused(dense, rankings.lexical(title_weight, budget, stemming), mapping, depth,
                                     **options, top_chunks=top_chunks))
    s = lib.settings
    shipped = dict(method=s.fusion, k=s.rrf_k, dense_weight=s.dense_weight, lexical_weight=s.lexical_weight,
                   normalization=s.fusion_normalization, top_chunks=s.top_chunks)
    record("C", "shipped settings", run_fused(dense, rankings.lexical(s.title_weight, budget, stemming), mapping,
                                              s.candidates, **shipped))
    record("C", "previous default (RRF k=60, title 2, no stemming)",
           run_fused(dense, rankings.lexical(2.0, None, False), mapping, 100, method="rrf", k=60,
                     dense_weight=1.0, lexical_weight=1.0))
    for rows in stages.values():
        rows.sort(key=lambda r: (-r[1], -r[2]))
    return stages


TITLE_WEIGHTS = (1.0, 2.0, 3.0, 5.0)
BUDGETS: tuple[int | None, ...] = (None, 20_000)
DEPTHS = (100, 200)


def _rrf_grid() -> list[dict]:
    return [dict(method="rrf", k=k, dense_weight=1.0, lexical_weight=lw)
            for k in (10, 20, 40, 60, 100) for lw in (0.6, 0.8, 1.0, 1.25, 1.5)]


def _convex_grid() -> list[dict]:
    return [dict(method="convex", normalization=norm, dense_weight=round(alpha, 2), lexical_weight=round(1 - alpha, 2))
            for norm in fusion.NORMALIZATIONS for alpha in (0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7)]


GRIDS: dict[str, Callable[[], list[dict]]] = {"rrf": _rrf_grid, "convex": _convex_grid}


# -- main -----------------------------------------------------------------------------------------

def main() -> None:
    """Build or open the index, evaluate the three rankings (and tune with ``--tune``), print tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rebuild", action="store_true", help="build the cached library again")
    parser.add_argument("--tune", action="store_true", help="grid-search fusion parameters on the train split")
    parser.add_argument("--split", default="test", choices=["train", "test"], help="split to report (default test)")
    parser.add_argument("--top", type=int, default=15, help="tuning configurations to print")
    args = parser.parse_args()
    need(SCIFACT, "the SciFact benchmark")
    lib, mapping, built = open_index(args.rebuild)
    try:
        if args.tune:
            start = time.perf_counter()
            stages = tune(lib, mapping)
            seconds = time.perf_counter() - start
            for stage, rows in stages.items():
                print(table(f"tuning on TRAIN, stage {stage} ({len(rows)} configurations, {seconds:.0f} s in all)",
                            ["configuration", "nDCG@10", "R@100"],
                            [[c, f"{n:.4f}", f"{r:.4f}"] for c, n, r in rows[: args.top]]))
                if stage == "B":
                    for method in GRIDS:
                        label, n, r = next(row for row in rows if f"method={method}" in row[0])
                        print(f"best {method}: {label}  nDCG@10 {n:.4f}  R@100 {r:.4f}")
                print()
        report(lib, mapping, built, args.split)
    finally:
        lib.close()


def report(lib: Library, mapping: dict[str, str], built: dict, split: str) -> None:
    """Evaluate dense-only, BM25-only and the shipped hybrid on ``split`` and print the table."""
    settings = lib.settings
    queries, qrels = scifact_queries(split), scifact_qrels(split)
    rankings = Rankings(lib, queries)
    rows = []
    dense_run = run_single(rankings.dense(), mapping)
    rows.append(["dense-only (VectorStore.query, best chunk)", *_fmt(evaluate(dense_run, qrels)), "0.648"])
    bm25_run = run_single(rankings.lexical(settings.title_weight, settings.lexical_max_postings,
                                           settings.lexical_stemming), mapping)
    rows.append(["BM25-only (lexical.search_chunks, best chunk)", *_fmt(evaluate(bm25_run, qrels)), "0.682"])
    product_run, seconds = run_product(lib, queries, mapping)
    rows.append(["hybrid (services.search.search)", *_fmt(evaluate(product_run, qrels)),
                 "0.720 naive RRF; target 0.75"])
    fusion_settings = {k: v for k, v in settings.model_dump().items()
                       if k not in ("embedding_model", "embedding_batch_size", "scope_weights", "max_import_mb")}
    print(table(
        f"bench_scifact: {split} split, {len(qrels)} queries, "
        f"{built['documents']} documents / {built['chunks']} chunks "
        f"(build: add_text {built['add_seconds']:.0f} s, drain {built['drain_seconds']:.0f} s); "
        f"hybrid {1000 * seconds:.0f} ms/query; settings {fusion_settings}",
        ["ranking", "nDCG@10", "Recall@100", "reference nDCG@10"], rows))


def _fmt(pair: tuple[float, float]) -> list[str]:
    return [f"{pair[0]:.3f}", f"{pair[1]:.3f}"]


if __name__ == "__main__":
    main()
