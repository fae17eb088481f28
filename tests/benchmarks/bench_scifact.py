"""SciFact retrieval quality: dense-only, BM25-only and the product's hybrid ranking, plus tuning.

Run: ``.venv/bin/python tests/benchmarks/bench_scifact.py [--rebuild] [--tune] [--split test] [--precision int8]``

* Index: the 5,183 SciFact abstracts, each one ``note`` through ``documents.add_text`` (title = paper
  title, content = abstract), then ``indexing.try_drain``. The library is cached under
  ``$TMPDIR/vancetope-bench-scifact-<hash>`` (hash of the corpus file, the model and the build
  recipe, and the embedding precision when not fp32) so later runs only evaluate; ``--rebuild`` builds it
  again. ``--precision int8`` embeds documents and queries at int8 (``Settings.embedding_precision``): the
  fp32 library, when built, is copied and re-embedded (``indexing.rebuild_index``), not added again.
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
import random
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from _common import SCIFACT, need, scifact_corpus, scifact_qrels, scifact_queries, table

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.settings import Settings
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

def cache_folder(model: str, precision: str = "fp32") -> Path:
    """Where the built library of this corpus, model, precision and recipe is kept between runs."""
    digest = hashlib.sha256()
    digest.update((SCIFACT / "corpus.jsonl.gz").read_bytes())
    # fp32 keeps the key it had before precisions existed (its vectors are the same whatever runtime made them).
    digest.update(f"{model}|{BUILD_RECIPE}|{DOC_TYPE.value}{'' if precision == 'fp32' else '|' + precision}".encode())
    return Path(tempfile.gettempdir()) / f"vancetope-bench-scifact-{digest.hexdigest()[:12]}"


def build(folder: Path, settings: Settings) -> None:
    """Index every abstract through ``documents.add_text`` and drain, into ``folder`` (atomically)."""
    corpus = scifact_corpus()
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    lib = Library.open(partial / "library", settings=settings)
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


def reembed(source: Path, folder: Path, settings: Settings) -> None:
    """A copy of the built library at ``source`` re-embedded with ``settings`` (a precision change, as the app
    does it: ``indexing.rebuild_index`` then a drain), into ``folder`` (atomically): the same documents and
    chunks, without adding the 5,183 abstracts again."""
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(source, partial)
    lib = Library.open(partial / "library", settings=settings)
    try:
        start = time.perf_counter()
        queued = indexing.rebuild_index(lib).queued
        report = indexing.try_drain(lib)
        assert report is not None and not report.failed and len(report.indexed) == queued, report
        built = json.loads((partial / "build.json").read_text(encoding="utf-8"))
        built.update(chunks=report.chunks, drain_seconds=time.perf_counter() - start)
        (partial / "build.json").write_text(json.dumps(built))
    finally:
        lib.close()
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(partial, folder)


def open_index(rebuild: bool, precision: str = "fp32") -> tuple[Library, dict[str, str], dict]:
    """The cached library (built first if missing or ``rebuild``), its id map and build figures.

    The library is opened with the settings of the code (``Settings()``, at ``precision``), not the cached
    file's, so tuning the defaults takes effect without a rebuild.
    """
    settings = Settings(embedding_precision=precision)
    folder = cache_folder(settings.embedding_model, precision)
    fp32 = cache_folder(settings.embedding_model)
    if rebuild or not (folder / "ids.json").exists():
        if precision != "fp32" and not rebuild and (fp32 / "ids.json").exists():
            print(f"re-embedding the fp32 SciFact library at {precision} in {folder} …", file=sys.stderr)
            reembed(fp32, folder, settings)
        else:
            print(f"building the SciFact library in {folder} …", file=sys.stderr)
            build(folder, settings)
    lib = Library.open(folder / "library", settings=settings)
    assert lib.index_precision() == precision, (lib.index_precision(), precision)
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
        """Query id → chunks by keyword score (``lexical.search_chunks``'s BM25 over the query's ceiling)."""
        key = (title_weight, max_postings, stemming)
        if key not in self._lexical:
            where = SqlFilter().and_in("scope_path", [DEFAULT_PROJECT]).and_in("status", ["active"])
            with read_session(self.lib.engine) as session:
                self._lexical[key] = {
                    q: [RankedChunk(h.chunk_id, h.document_id, h.keyword, h.role, h.in_text)
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
              depth: int, no_vectors: frozenset[str] = frozenset(), **options) -> dict[str, list[str]]:
    """``fusion.fuse`` over both rankings cut at ``depth`` chunks, as a run of SciFact ids.

    ``no_vectors``: documents treated as not embedded yet (their dense chunks are dropped).
    """
    out = {}
    for q in dense:
        chunks = [c for c in dense[q][:depth] if c.document_id not in no_vectors]
        fused = fuse(chunks, lexical.get(q, [])[:depth], {}, no_vectors=no_vectors, lexical_depth=depth, **options)
        out[q] = [mapping[d.document_id] for d in fused]
    return out


def run_cut(dense: dict[str, list[RankedChunk]], lexical: dict[str, list[RankedChunk]], mapping: dict[str, str],
            depth: int, settings: Settings, **options) -> tuple[dict[str, list[str]], float]:
    """Like :func:`run_fused`, then ``services.search.relevant`` with ``settings``: the run and the mean
    number of documents kept per query."""
    out, kept = {}, 0
    for q in dense:
        fused = search_service.relevant(fuse(dense[q][:depth], lexical.get(q, [])[:depth], {}, lexical_depth=depth,
                                             **options), settings)
        out[q] = [mapping[d.document_id] for d in fused]
        kept += len(fused)
    return out, kept / max(len(dense), 1)


def run_product(lib: Library, queries: dict[str, str],
                mapping: dict[str, str]) -> tuple[dict[str, list[str]], float, float]:
    """``services.search.search`` for every query (up to 100 hits each), the mean seconds per query and
    the mean number of hits returned."""
    out = {}
    start = time.perf_counter()
    for q, text in queries.items():
        response = search_service.search(lib, text, scope=DEFAULT_PROJECT, limit=100)
        out[q] = [mapping[h.document.id] for h in response.hits]
    count = max(len(queries), 1)
    return out, (time.perf_counter() - start) / count, sum(map(len, out.values())) / count


# -- tuning ---------------------------------------------------------------------------------------

def tune(lib: Library, mapping: dict[str, str]) -> dict[str, list[tuple[str, float, float]]]:
    """Grid search on the TRAIN split; tables of (configuration, nDCG@10, Recall@100), best first.

    Stage A: BM25 alone over title weight x postings budget x stemming. Stage B: the fusion over its
    grid (title weight, meaning weight, meaning floor and ceiling) with the shipped budget and
    stemming. Stage C: candidate depths for the best of B, and the shipped settings. Stage D: the
    relevance cut-off on the shipped fusion (the label gives the mean number of documents kept of
    the ~130 fused). Stage E: a fifth of the documents without vectors (as if still pending), their
    meaning estimated (shipped), or treated as judged and far, or left out of the relevance.
    """
    queries, qrels = scifact_queries("train"), scifact_qrels("train")
    rankings = Rankings(lib, queries)
    dense = rankings.dense()
    stages: dict[str, list[tuple[str, float, float]]] = {"A": [], "B": [], "C": [], "D": [], "E": []}
    s = lib.settings
    budget, stemming = s.lexical_max_postings, s.lexical_stemming

    def record(stage: str, label: str, run: dict[str, list[str]]) -> float:
        ndcg, recall = evaluate(run, qrels)
        stages[stage].append((label, ndcg, recall))
        return ndcg

    record("A", "dense only", run_single(dense, mapping))
    for title_weight, postings, stem in itertools.product(TITLE_WEIGHTS, BUDGETS, (False, True)):
        record("A", f"bm25 title_weight={title_weight} max_postings={postings} stemming={stem}",
               run_single(rankings.lexical(title_weight, postings, stem), mapping))
    best_score, best = -1.0, (s.title_weight, {})
    for title_weight, alpha, floor, ceiling in itertools.product(TITLE_WEIGHTS, ALPHAS, FLOORS, CEILINGS):
        options = dict(dense_weight=alpha, lexical_weight=round(1 - alpha, 2), meaning_floor=floor,
                       meaning_ceiling=ceiling)
        label = f"title_weight={title_weight} " + " ".join(f"{k}={v}" for k, v in options.items())
        lexical = rankings.lexical(title_weight, budget, stemming)
        score = record("B", label, run_fused(dense, lexical, mapping, s.candidates, **options))
        if score > best_score:
            best_score, best = score, (title_weight, options)
    for depth in DEPTHS:
        record("C", f"best of B, depth={depth}",
               run_fused(dense, rankings.lexical(best[0], budget, stemming), mapping, depth, **best[1]))
    shipped = dict(dense_weight=s.dense_weight, lexical_weight=s.lexical_weight, meaning_floor=s.meaning_floor,
                   meaning_ceiling=s.meaning_ceiling)
    lexical = rankings.lexical(s.title_weight, budget, stemming)
    record("C", "shipped settings", run_fused(dense, lexical, mapping, s.candidates, **shipped))
    for floor, share in itertools.product(CUT_FLOORS, CUT_SHARES):
        cut = s.model_copy(update={"min_relevance": floor, "relative_relevance": share})
        run, kept = run_cut(dense, lexical, mapping, s.candidates, cut, **shipped)
        ndcg, recall = evaluate(run, qrels)
        stages["D"].append((f"min_relevance={floor} relative_relevance={share} (kept {kept:.1f})", ndcg, recall))
    pending = frozenset(random.Random(7).sample(sorted(mapping), len(mapping) // 5))
    record("E", "all documents with vectors", run_fused(dense, lexical, mapping, s.candidates, **shipped))
    record("E", "a fifth without vectors, meaning estimated (shipped)",
           run_fused(dense, lexical, mapping, s.candidates, pending, **shipped))
    record("E", "a fifth without vectors, treated as judged and far",
           run_fused({q: [c for c in chunks if c.document_id not in pending] for q, chunks in dense.items()},
                     lexical, mapping, s.candidates, **shipped))
    for stage in "ABC":
        stages[stage].sort(key=lambda r: (-r[1], -r[2]))
    return stages


TITLE_WEIGHTS = (1.0, 2.0, 3.0)
BUDGETS: tuple[int | None, ...] = (None, 10_000)
DEPTHS = (100, 200)
ALPHAS = (0.2, 0.3, 0.4, 0.5)
FLOORS = (0.0, 0.1, 0.2, 0.3)
CEILINGS = (0.6, 0.7, 0.8, 1.0)
CUT_FLOORS = (0.0, 0.1, 0.15, 0.2, 0.25)
CUT_SHARES = (0.0, 0.3, 0.4, 0.5)


# -- main -----------------------------------------------------------------------------------------

def main() -> None:
    """Build or open the index, evaluate the three rankings (and tune with ``--tune``), print tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rebuild", action="store_true", help="build the cached library again")
    parser.add_argument("--tune", action="store_true", help="grid-search fusion parameters on the train split")
    parser.add_argument("--split", default="test", choices=["train", "test"], help="split to report (default test)")
    parser.add_argument("--top", type=int, default=15, help="tuning configurations to print")
    parser.add_argument("--precision", default=Settings().embedding_precision, choices=["fp32", "int8"],
                        help="embedding precision (default: the settings' default)")
    args = parser.parse_args()
    need(SCIFACT, "the SciFact benchmark")
    lib, mapping, built = open_index(args.rebuild, args.precision)
    try:
        if args.tune:
            start = time.perf_counter()
            stages = tune(lib, mapping)
            seconds = time.perf_counter() - start
            for stage, rows in stages.items():
                print(table(f"tuning on TRAIN, stage {stage} ({len(rows)} configurations, {seconds:.0f} s in all)",
                            ["configuration", "nDCG@10", "R@100"],
                            [[c, f"{n:.4f}", f"{r:.4f}"] for c, n, r in (rows if stage in "DE" else rows[: args.top])]))
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
    uncut = settings.model_copy(update={"min_relevance": 0.0, "relative_relevance": 0.0})
    lib.settings, shipped = uncut, settings
    try:
        product_run, seconds, _ = run_product(lib, queries, mapping)
    finally:
        lib.settings = shipped
    rows.append(["hybrid ranking (services.search.search, no cut-off)", *_fmt(evaluate(product_run, qrels)),
                 "0.728 / 0.955 before; target 0.75"])
    cut_run, _, kept = run_product(lib, queries, mapping)
    rows.append([f"hybrid as shipped, relevance cut-off (mean {kept:.1f} hits kept)", *_fmt(evaluate(cut_run, qrels)),
                 ""])
    fusion_settings = {k: v for k, v in settings.model_dump().items()
                       if k not in ("embedding_model", "embedding_batch_size", "scope_weights", "max_import_mb",
                                    "embedding_precision", "embedding_runtime")}
    print(table(
        f"bench_scifact: {split} split, {len(qrels)} queries, precision {lib.index_precision()} "
        f"(documents {lib.embedder().backend}, queries {lib.embedder().query_backend}), "
        f"{built['documents']} documents / {built['chunks']} chunks "
        f"(build: add_text {built['add_seconds']:.0f} s, drain {built['drain_seconds']:.0f} s); "
        f"hybrid {1000 * seconds:.0f} ms/query; settings {fusion_settings}",
        ["ranking", "nDCG@10", "Recall@100", "reference nDCG@10"], rows))


def _fmt(pair: tuple[float, float]) -> list[str]:
    return [f"{pair[0]:.3f}", f"{pair[1]:.3f}"]


if __name__ == "__main__":
    main()
