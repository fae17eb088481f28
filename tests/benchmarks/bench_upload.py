"""Upload throughput: ``imports.upload`` + ``indexing.try_drain`` of corpus/papers vs the bare model.

Run: ``.venv/bin/python tests/benchmarks/bench_upload.py [--profile FILE.prof]``

1. Loads the model once (timed apart: every process pays it once, it is not throughput).
2. End to end, wall time: upload every PDF of ``corpus/papers`` into a fresh temporary library,
   then drain the index queue. Phases are timed from the outside by wrapping the functions the
   services call: PDF extraction, chunk preparation (token counting), the model's
   ``encode_documents``, the vector store's ``delete_documents``/``upsert``; the rest of the upload
   is SQLite storage, the rest of the drain is queue bookkeeping.
3. Raw: the same model encoding the same chunk texts (read back from the library) in one call,
   once after the upload and once after the drain; the mean of the two is the baseline.
4. Prints pages/s and chunks/s for both and the ratio end-to-end / raw (target >= 0.8), in wall
   time and in process CPU time (less sensitive to other processes on a shared machine).
"""

from __future__ import annotations

import argparse
import cProfile
import resource
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from _common import CORPUS, PhaseTimer, need, table
from sqlmodel import select

from vancetope_desktop.core.documents import ChunkRole
from vancetope_desktop.ingest.registry import extract_file
from vancetope_desktop.services import imports, indexing
from vancetope_desktop.services.library import Library
from vancetope_desktop.store import tables
from vancetope_desktop.store.db import read_session

TARGET_RATIO = 0.8


def main() -> None:
    """Run the benchmark and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=Path, default=CORPUS / "papers")
    parser.add_argument("--profile", type=Path, help="write a cProfile of the end-to-end part here")
    args = parser.parse_args()
    papers = need(args.papers, "the corpus papers")

    with tempfile.TemporaryDirectory(prefix="vancetope-bench-upload-") as folder:
        lib = Library.open(Path(folder) / "library")
        try:
            run(lib, papers, args.profile)
        finally:
            lib.close()


def run(lib: Library, papers: Path, profile_path: Path | None) -> None:
    """Measure one library (see the module docstring)."""
    timer = PhaseTimer()
    embedder = lib.embedder()
    start = time.perf_counter()
    embedder.warm_up()
    embedder.encode_documents(["warm up the forward pass once"])
    load_seconds = time.perf_counter() - start

    # Instrument from the outside: the functions the services call, wrapped with timers.
    # Extraction in this process (uploads use a worker process): its own cost, without the hand-over.
    extract = timer.wrap("extract", extract_file)
    imports.fit_to_model = timer.wrap("chunk prep", imports.fit_to_model)  # type: ignore[assignment]
    embedder.encode_documents = timer.wrap("embed", embedder.encode_documents)  # type: ignore[method-assign]
    lib.vectors.upsert = timer.wrap("vector upsert", lib.vectors.upsert)  # type: ignore[method-assign]
    lib.vectors.delete_documents = timer.wrap("vector delete", lib.vectors.delete_documents)  # type: ignore[method-assign]

    profiler = cProfile.Profile() if profile_path else None
    clock = Clock()
    if profiler:
        profiler.enable()
    with timer.phase("upload"), clock.measure("upload"):
        report = imports.upload(lib, [papers], tags=["papers"], extractor=extract)
    if profiler:
        profiler.disable()

    # The raw baseline, on the chunk texts as stored that get vectors (body chunks), once before and
    # once after the drain: the mean of the two is compared, so a load change on the machine during
    # the run shows as a spread.
    documents = [o.document_id for o in report.outcomes if o.status == "imported"]
    with read_session(lib.engine) as session:
        texts = list(session.exec(
            select(tables.ChunkRow.text).where(tables.ChunkRow.document_id.in_(documents))  # type: ignore[attr-defined]
            .where(tables.ChunkRow.role == ChunkRole.BODY.value)
            .order_by(tables.ChunkRow.document_id, tables.ChunkRow.ordinal)  # type: ignore[arg-type]
        ).all())
    bare_encode = type(embedder).encode_documents
    with clock.measure("raw 1"):
        bare_encode(embedder, texts)

    if profiler:
        profiler.enable()
    with timer.phase("drain"), clock.measure("drain"):
        drained = indexing.try_drain(lib)
    if profiler:
        profiler.disable()
        profiler.dump_stats(str(profile_path))
    assert drained is not None and not drained.failed, drained
    with clock.measure("raw 2"):
        bare_encode(embedder, texts)

    pages = sum(o.pages or 0 for o in report.outcomes if o.status == "imported")
    chunks = len(texts)
    assert chunks == drained.chunks, (chunks, drained.chunks)
    e2e_wall = clock.wall["upload"] + clock.wall["drain"]
    e2e_cpu = clock.cpu["upload"] + clock.cpu["drain"]
    raw_wall = (clock.wall["raw 1"] + clock.wall["raw 2"]) / 2
    raw_cpu = (clock.cpu["raw 1"] + clock.cpu["raw 2"]) / 2

    s = timer.seconds
    upload_rest = s["upload"] - s.get("extract", 0) - s.get("chunk prep", 0)
    vector = s.get("vector upsert", 0) + s.get("vector delete", 0)
    drain_rest = s["drain"] - s.get("embed", 0) - vector
    e2e_rate, raw_rate = chunks / e2e_wall, chunks / raw_wall
    rows = [
        ["files imported / pages / chunks", f"{len(documents)} / {pages} / {chunks}", "", "", ""],
        ["model load (once per process, not counted)", "", f"{load_seconds:.2f}", "", ""],
        ["end-to-end (upload + drain)", "", f"{e2e_wall:.2f}", f"{e2e_cpu:.1f}", "100.0"],
        ["  extraction (extract_file)", "", f"{s.get('extract', 0):.2f}", "", _pct(s.get("extract", 0), e2e_wall)],
        ["  chunk preparation (token counts)", "", f"{s.get('chunk prep', 0):.2f}", "",
         _pct(s.get("chunk prep", 0), e2e_wall)],
        ["  storage (SQLite rows, FTS, blobs)", "", f"{upload_rest:.2f}", "", _pct(upload_rest, e2e_wall)],
        [f"  embedding ({timer.calls.get('embed', 0)} encode_documents calls)", "", f"{s.get('embed', 0):.2f}", "",
         _pct(s.get("embed", 0), e2e_wall)],
        [f"  vector-store writes ({timer.calls.get('vector upsert', 0)} upserts, "
         f"{timer.calls.get('vector delete', 0)} deletes)", "", f"{vector:.2f}", "", _pct(vector, e2e_wall)],
        ["  queue bookkeeping (rest of the drain)", "", f"{drain_rest:.2f}", "", _pct(drain_rest, e2e_wall)],
        ["raw encode_documents(same texts), before / after", "",
         f"{clock.wall['raw 1']:.2f} / {clock.wall['raw 2']:.2f}",
         f"{clock.cpu['raw 1']:.1f} / {clock.cpu['raw 2']:.1f}", ""],
        ["end-to-end pages/s | chunks/s", f"{pages / e2e_wall:.2f} | {e2e_rate:.1f}", "", "", ""],
        ["raw pages/s | chunks/s (mean of the two runs)", f"{pages / raw_wall:.2f} | {raw_rate:.1f}", "", "", ""],
        [f"ratio end-to-end / raw, wall time (target >= {TARGET_RATIO})", f"{e2e_rate / raw_rate:.3f}", "", "", ""],
        ["ratio end-to-end / raw, CPU time", f"{raw_cpu / e2e_cpu:.3f}", "", "", ""],
    ]
    print(table(f"bench_upload: {lib.embedder().name}, batch_size={lib.settings.embedding_batch_size}",
                ["measure", "value", "wall s", "CPU s", "% of e2e wall"], rows))
    sys.stdout.flush()


class Clock:
    """Wall and process CPU seconds (all threads) of named blocks."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    @contextmanager
    def measure(self, name: str) -> Iterator[None]:
        """Time the ``with`` block into ``name``."""
        wall, cpu = time.perf_counter(), _cpu()
        try:
            yield
        finally:
            self.wall[name] = time.perf_counter() - wall
            self.cpu[name] = _cpu() - cpu


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}"


if __name__ == "__main__":
    main()
