"""Warm hybrid search latency (``services.search.search``) at 10,000 and 100,000 chunks.

Run: ``.venv/bin/python tests/benchmarks/bench_search.py [--sizes 10000 100000] [--queries 200] [--rebuild]
[--backend embedded|team]``

``--backend team`` (issue 17): the same library as a team library, its database on PostgreSQL and its vectors on
a Chroma server, both started for the run on this machine (the tests' servers, ``_team.py``) and built each run.

The synthetic library: chunk texts are real SciFact sentences and windows of 2 and 3 consecutive
sentences of one abstract; a document holds up to 10 chunks of one abstract (title = paper title).
Documents are spread over the four visible scopes of a think process (group 10 %, project 70 %,
session 10 %, think process 10 %), so a search queries four Chroma collections.

Bulk build, through the store helpers the services use: rows are written with ``services/records``
(``replace_chunks`` fills the FTS index, ``enqueue`` queues the embed jobs) inside one
``write_session``; the 5,183 abstracts are embedded with ``encode_documents`` in one call (or
their chunk vectors are read from ``bench_scifact.py``'s cached library, the same model's), each
sentence vector is its abstract's plus noise (see :func:`sentence_vectors`) and a window's vector
is the normalised mean of its sentences'; then the queue is drained by the product's
``IndexWriter`` whose embedder returns those vectors. Libraries and abstract vectors are cached
under ``$TMPDIR``.

Measured, warm (model loaded, 20 warm-up queries), on SciFact test claims searched from the think
process: the whole ``search`` call, and inside it (timed by wrapping the functions it calls)
the lexical part (``search_chunks``), the vector part (query encoding + Chroma queries per scope,
in a worker thread beside the lexical part, so only the longer of the two counts), the fusion,
the materialisation of hits and the rest (scope resolution, the check of the documents found
against the filter, the relevance cut-off).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import hashlib
import os
import pstats
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path

import numpy as np
from _common import SCIFACT, PhaseTimer, need, percentile, scifact_corpus, scifact_queries, table
from _team import new_team_library, team_servers

from vancetope_desktop.core.documents import DocumentType, IndexState
from vancetope_desktop.core.ids import new_document_id
from vancetope_desktop.core.settings import Settings
from vancetope_desktop.index.writer import IndexWriter
from vancetope_desktop.ingest.base import ChunkDraft
from vancetope_desktop.services import records, scopes, tagging
from vancetope_desktop.services import search as search_service
from vancetope_desktop.services.library import DEFAULT_GROUP, DEFAULT_PROJECT, Library
from vancetope_desktop.store import tables
from vancetope_desktop.store.blobs import hash_text
from vancetope_desktop.store.db import write_session
from vancetope_desktop.store.tables import utcnow

ACTING = "think-process/tp_bench"
SESSION = "session/s_bench"
SCOPE_SHARES = ((DEFAULT_GROUP, 0.1), (DEFAULT_PROJECT, 0.7), (SESSION, 0.1), (ACTING, 0.1))
CHUNKS_PER_DOCUMENT = 10
RECIPE = "windows-1-2-3-abstract-noise-v2"
SENTENCE_COSINE = 0.6
TARGET_P95_MS = 100.0
PARTS = ("search", "lexical", "vector", "  query encoding", "  Chroma queries", "fusion", "materialise", "rest")


# -- the synthetic corpus ---------------------------------------------------------------------------

def synthetic_documents(size: int) -> list[tuple[str, list[tuple[int, ...]]]]:
    """``(title, chunks)`` documents totalling ``size`` chunks; a chunk is a tuple of global sentence ids."""
    out: list[tuple[str, list[tuple[int, ...]]]] = []
    total, sentence_base = 0, 0
    for doc in scifact_corpus():
        count = len(doc["metadata"]["sentences"])
        ids = range(sentence_base, sentence_base + count)
        sentence_base += count
        windows = [tuple(ids[i : i + w]) for w in (1, 2, 3) for i in range(count - w + 1)]
        for start in range(0, len(windows), CHUNKS_PER_DOCUMENT):
            part = windows[start : start + CHUNKS_PER_DOCUMENT][: size - total]
            if part:
                out.append((doc["title"] or "Untitled", part))
                total += len(part)
        if total >= size:
            return out
    raise SystemExit(f"SciFact yields only {total} chunks, fewer than {size}")


def all_sentences() -> list[str]:
    """Every sentence of the SciFact corpus, in corpus order (global sentence ids index this list)."""
    return [" ".join(s.split()) or "." for doc in scifact_corpus() for s in doc["metadata"]["sentences"]]


def abstract_vectors(lib: Library) -> np.ndarray:
    """One ``encode_documents`` vector per SciFact abstract (title + abstract), cached under ``$TMPDIR``."""
    corpus = scifact_corpus()
    texts = [f"{doc['title']}. {doc['text']}" for doc in corpus]
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:12]
    path = Path(tempfile.gettempdir()) / f"vancetope-bench-abstracts-{lib.index_model().replace(':', '_')}-{digest}.npy"
    if path.exists():
        return np.load(path)
    vectors = _vectors_from_scifact_library(corpus)
    if vectors is None:
        print(f"embedding {len(texts)} abstracts (cached afterwards in {path}) …", file=sys.stderr)
        start = time.perf_counter()
        vectors = lib.embedder().encode_documents(texts)
        print(f"  {time.perf_counter() - start:.0f} s", file=sys.stderr)
    np.save(path, vectors)
    return vectors


def _vectors_from_scifact_library(corpus: list[dict]) -> np.ndarray | None:
    """The abstracts' vectors (mean of their chunks') from ``bench_scifact.py``'s cached library, if built."""
    import json

    from bench_scifact import cache_folder

    folder = cache_folder(Settings().embedding_model)
    if not (folder / "ids.json").exists():
        return None
    print(f"reading the abstract vectors from {folder}", file=sys.stderr)
    by_scifact = {v: k for k, v in json.loads((folder / "ids.json").read_text(encoding="utf-8")).items()}
    rows = []
    with Library.open(folder / "library", settings=Settings()) as lib:
        for doc in corpus:
            _, vectors, _ = lib.vectors.document_vectors(DEFAULT_PROJECT, by_scifact[str(doc["_id"])])
            mean = vectors.mean(axis=0)
            rows.append(mean / np.linalg.norm(mean))
    return np.stack(rows).astype(np.float32)


def sentence_vectors(lib: Library, needed: int) -> np.ndarray:
    """A vector per sentence: its abstract's vector plus seeded Gaussian noise, normalised.

    Embedding the ~40,000 sentences of a 100,000-chunk library takes the better part of an hour on
    2 busy cores; the latency of an HNSW query depends on how the vectors cluster, not on what
    they mean, so each sentence is placed around its abstract at cosine ~``SENTENCE_COSINE`` (real
    all-MiniLM-L6-v2 vectors of 3,787 SciFact sentences show 0.66 on average against their abstract's).
    """
    abstracts = abstract_vectors(lib)
    owner = np.concatenate([np.full(len(doc["metadata"]["sentences"]), i)
                            for i, doc in enumerate(scifact_corpus())])[:needed]
    dimension = abstracts.shape[1]
    sigma = np.sqrt((1 / SENTENCE_COSINE**2 - 1) / dimension)
    noise = np.random.default_rng(7).standard_normal((needed, dimension)).astype(np.float32)
    vectors = abstracts[owner] + np.float32(sigma) * noise
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


class PrecomputedEmbedder:
    """The library's embedder, except that ``encode_documents`` returns vectors computed beforehand."""

    def __init__(self, real, vectors: dict[str, np.ndarray]) -> None:
        self._real = real
        self._vectors = vectors
        self.name = real.name

    def __getattr__(self, name: str):
        """Everything but ``encode_documents`` is the real embedder's (``vector_identity``, ``dimension``…)."""
        return getattr(self._real, name)

    def encode_documents(self, texts: Sequence[str]) -> np.ndarray:
        """The precomputed vectors of ``texts`` (every text must be known)."""
        return np.stack([self._vectors[t] for t in texts]) if texts else np.zeros((0, self._real.dimension))


def build(folder: Path, size: int) -> None:
    """Write the synthetic library of ``size`` chunks into ``folder`` (atomically: built aside, renamed)."""
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    with Library.open(partial) as lib:
        fill(lib, size)
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(partial, folder)


def fill(lib: Library, size: int) -> tuple[float, float]:
    """Write the synthetic library of ``size`` chunks into the new library ``lib`` and index it; returns the wall
    seconds of storing the rows and of draining the queue (vectors written)."""
    start = time.perf_counter()
    vectors = store_synthetic(lib, size)
    stored = time.perf_counter() - start
    writer = IndexWriter(lib.engine, lib.vectors, lambda: PrecomputedEmbedder(lib.embedder(), vectors),
                         lib.index_model(), batch_chunks=2000)
    lib.writer_lock.try_acquire()
    report = writer.drain()
    assert not report.failed and report.chunks == size, (report.failed[:3], report.chunks)
    drained = time.perf_counter() - start - stored
    print(f"  built {size} chunks: rows {stored:.0f} s, drain {drained:.0f} s", file=sys.stderr)
    return stored, drained


def store_synthetic(lib: Library, size: int) -> dict[str, np.ndarray]:
    """Store the synthetic documents of ``size`` chunks in the new library ``lib`` (two scopes below the project; the
    rows, tags, chunks, keyword index and one embed job per document, in one transaction); returns each chunk
    text's precomputed vector. The queue is left for a writer to drain."""
    scopes.create_scope(lib, "session", SESSION.split("/", 1)[1], parent=DEFAULT_PROJECT)
    scopes.create_scope(lib, "think-process", ACTING.split("/", 1)[1], parent=SESSION)
    docs = synthetic_documents(size)
    sentences = all_sentences()
    needed = 1 + max(i for _, chunks in docs for chunk in chunks for i in chunk)
    base = sentence_vectors(lib, needed)
    vectors: dict[str, np.ndarray] = {}
    plan = _scope_plan(len(docs))
    embedder = lib.embedder()
    with write_session(lib.engine) as session:
        for number, (title, chunks) in enumerate(docs):
            drafts, counts = [], []
            for chunk in chunks:
                text = " ".join(sentences[i] for i in chunk)
                mean = base[list(chunk)].mean(axis=0)
                vectors[text] = (mean / np.linalg.norm(mean)).astype(np.float32)
                drafts.append(ChunkDraft(text=text))
                counts.append(embedder.count_tokens(text))
            content = "\n\n".join(d.text for d in drafts)
            now = utcnow()
            row = tables.DocumentRow(
                id=new_document_id(), scope_path=plan[number], type=DocumentType.NOTE.value, title=title,
                content=content, content_hash=hash_text(content), created_at=now, updated_at=now,
                index_state=IndexState.PENDING.value,
            )
            session.add(row)
            session.flush()
            tagging.set_tags(session, row.id, ["bench", f"bench/{number % 7}"])
            records.replace_chunks(session, row, drafts, counts)
            records.enqueue(session, row.id, "embed")
        records.bump_change_counter(session)
    return vectors


def _scope_plan(count: int) -> list[str]:
    plan: list[str] = []
    for scope, share in SCOPE_SHARES:
        plan += [scope] * round(count * share)
    plan = (plan + [DEFAULT_PROJECT] * count)[:count]
    # Interleave deterministically so every scope holds documents of every part of the corpus.
    return [plan[(i * 7919) % count] for i in range(count)] if count % 7919 else plan


def library_for(size: int, rebuild: bool) -> Path:
    """The cached library folder of ``size`` chunks, built if needed."""
    digest = hashlib.sha256((SCIFACT / "corpus.jsonl.gz").read_bytes() + f"{size}|{RECIPE}".encode()).hexdigest()
    folder = Path(tempfile.gettempdir()) / f"vancetope-bench-search-{size}-{digest[:12]}"
    if rebuild or not (folder / "library.sqlite").exists():
        print(f"building the {size}-chunk library in {folder} …", file=sys.stderr)
        build(folder, size)
    return folder


# -- measuring ------------------------------------------------------------------------------------

def measure(folder: Path, queries: list[str], warmup: int, profile: Path | None,
            settings: Settings, freeze_gc: bool = False) -> dict[str, list[float]]:
    """Per-query milliseconds of the whole search and of its parts, over ``queries``.

    The library is opened with ``settings`` (the code's defaults), not the cached library's file.
    """
    lib = Library.open(folder, settings=settings)
    timer = PhaseTimer()
    samples: dict[str, list[float]] = {k: [] for k in PARTS}
    originals = {name: getattr(search_service, name) for name in ("search_chunks", "_dense", "fuse", "_materialise")}
    try:
        lib.embedder().encode_query("warm up")
        for query in queries[:warmup]:
            search_service.search(lib, query, scope=ACTING)
        if freeze_gc:  # what a long-running app can do after start-up: old objects leave the GC's scans
            gc.collect()
            gc.freeze()
        search_service.search_chunks = timer.wrap("lexical", originals["search_chunks"])
        search_service._dense = timer.wrap("vector", originals["_dense"])
        search_service.fuse = timer.wrap("fusion", originals["fuse"])
        search_service._materialise = timer.wrap("materialise", originals["_materialise"])
        embedder = lib.embedder()
        embedder.encode_query = timer.wrap("  query encoding", embedder.encode_query)  # type: ignore[method-assign]
        lib.vectors.query_scopes = timer.wrap("  Chroma queries", lib.vectors.query_scopes)  # type: ignore[method-assign]
        profiler = cProfile.Profile() if profile else None
        for query in queries[warmup:]:
            timer.seconds.clear()
            if profiler:
                profiler.enable()
            start = time.perf_counter()
            response = search_service.search(lib, query, scope=ACTING)
            total = time.perf_counter() - start
            if profiler:
                profiler.disable()
            assert response.vector_search and len(response.scopes) == 4
            parts = {k: timer.seconds.get(k, 0.0) for k in ("lexical", "vector", "fusion", "materialise")}
            samples["search"].append(1000 * total)
            for name in PARTS[1:-1]:
                samples[name].append(1000 * timer.seconds.get(name, 0.0))
            # The keyword and the vector side run side by side: the longer of the two is on the clock.
            side_by_side = max(parts["lexical"], parts["vector"])
            samples["rest"].append(1000 * (total - side_by_side - parts["fusion"] - parts["materialise"]))
        if profiler and profile:
            profiler.dump_stats(str(profile))
            pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(25)
    finally:
        for name, function in originals.items():
            setattr(search_service, name, function)
        del lib.embedder().encode_query  # the instance's timing wrapper: the embedder is shared
        lib.close()
    return samples


def main() -> None:
    """Build (or reuse) the libraries, measure each and print the latency table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200, help="measured queries (after 20 warm-up ones)")
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--profile", type=Path, help="cProfile the measured queries of the largest size here")
    parser.add_argument("--max-postings", type=int, help="override Settings.lexical_max_postings")
    parser.add_argument("--backend", choices=["embedded", "team"], default="embedded",
                        help="team: a team library on servers started for the run (built each run, not cached)")
    parser.add_argument("--freeze-gc", action="store_true", help="gc.freeze() after the warm-up queries")
    args = parser.parse_args()
    need(SCIFACT, "the SciFact benchmark")
    warmup = 20
    queries = list(scifact_queries("test").values())[: args.queries + warmup]
    settings = Settings()
    if args.max_postings:
        settings.lexical_max_postings = args.max_postings
    rows, built = [], []
    with ExitStack() as stack:
        servers = stack.enter_context(team_servers()) if args.backend == "team" else None
        for size in args.sizes:
            if servers is None:
                folder = library_for(size, args.rebuild)
            else:  # the servers live for this run only: the library is built each time
                folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="vancetope-bench-team-")))
                folder = new_team_library(servers, folder / "library")
                print(f"building the {size}-chunk team library …", file=sys.stderr)
                with Library.open(folder) as lib:
                    stored, drained = fill(lib, size)
                built.append(f"{size:,}: rows {stored:.0f} s + vectors {drained:.0f} s")
            profile = args.profile if size == max(args.sizes) else None
            samples = measure(folder, queries, warmup, profile, settings, args.freeze_gc)
            for part in PARTS:
                values = samples[part]
                rows.append([f"{size:,}", part, f"{percentile(values, 50):.1f}", f"{percentile(values, 95):.1f}",
                             f"{max(values):.1f}"])
    backend = ("team library (PostgreSQL + Chroma server on this machine; built " + "; ".join(built) + ")"
               if built else "embedded library")
    print(table(f"bench_search: warm services.search.search from {ACTING} (4 scopes), {backend}, load average "
                f"{os.getloadavg()[0]:.1f}, "
                f"max_postings {settings.lexical_max_postings}{', GC frozen' if args.freeze_gc else ''}, "
                f"{len(queries) - warmup} SciFact test claims, milliseconds (target p95 < {TARGET_P95_MS:.0f} ms "
                "at 100,000 chunks)", ["chunks", "part", "p50", "p95", "max"], rows))


if __name__ == "__main__":
    main()
