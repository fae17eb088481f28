"""Upload throughput: ``imports.upload`` with its drain alongside (as ``memory upload``) vs the bare model.

Run: ``.venv/bin/python tests/benchmarks/bench_upload.py [--profile FILE.prof]``

1. Loads the model once (timed apart: every process pays it once, it is not throughput).
2. End to end, wall time: upload every PDF of ``corpus/papers`` into a fresh temporary library, each
   file's chunks embedded on the drain thread while the next file is extracted
   (``indexing.drain_alongside``), until everything is indexed. Phases are timed from the outside by
   wrapping what the services call: extraction (the product's worker process, ``ProcessExtractor``,
   hand-over included: the upload thread waits for it), chunk preparation (token counting), the model's
   ``encode_documents``, the vector store's ``delete_documents``/``upsert``; the rest of the upload thread
   is SQLite storage. The upload thread's and the drain thread's phases overlap: their sum exceeds the
   wall time by what the overlap saved.
3. Raw: the same model encoding the same chunk texts (read back from the library) in one call,
   twice after the upload; the mean of the two is the baseline.
4. Prints pages/s and chunks/s for both and the ratio end-to-end / raw (target >= 0.8), in wall
   time and in CPU time (this process and the extraction worker), and the cores kept busy.

Until issue 16 this script passed ``extract_file`` itself, so extraction was timed in this process, a path
no upload takes (every face extracts in a worker process), and the upload and the drain ran one after the
other, as ``memory upload`` then did.
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
from vancetope_desktop.ingest.process_pool import ProcessExtractor
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

    # Instrument from the outside: the functions the services call, wrapped with timers. Extraction as every
    # upload does it, in a worker process (a call's time is the upload thread's wait for it).
    worker = ProcessExtractor(lib.settings.extraction_timeout_s, nice=0)  # as memory upload
    extract = timer.wrap("extract", worker)
    imports.fit_to_model = timer.wrap("chunk prep", imports.fit_to_model)  # type: ignore[assignment]
    embedder.encode_documents = timer.wrap("embed", embedder.encode_documents)  # type: ignore[method-assign]
    lib.vectors.upsert = timer.wrap("vector upsert", lib.vectors.upsert)  # type: ignore[method-assign]
    lib.vectors.delete_documents = timer.wrap("vector delete", lib.vectors.delete_documents)  # type: ignore[method-assign]

    profiler = cProfile.Profile() if profile_path else None
    clock = Clock()
    if profiler:
        profiler.enable()
    with timer.phase("upload"), clock.measure("upload"):
        alongside = indexing.drain_alongside(lib)
        assert alongside is not None, "another process holds the library's writer lock"
        with alongside:
            with timer.phase("upload thread"):
                report = imports.upload(lib, [papers], tags=["papers"], extractor=extract, stored=alongside.add)
            worker.close()  # its CPU time counts from here (RUSAGE_CHILDREN)
        drained = alongside.report
    if profiler:
        profiler.disable()
        profiler.dump_stats(str(profile_path))
    assert not drained.failed, drained

    # The raw baseline, on the chunk texts as stored that get vectors (body chunks), twice: the mean of the two
    # is compared, so a load change on the machine during the run shows as a spread.
    documents = [o.document_id for o in report.outcomes if o.status == "imported"]
    with read_session(lib.engine) as session:
        texts = list(session.exec(
            select(tables.ChunkRow.text).where(tables.ChunkRow.document_id.in_(documents))  # type: ignore[attr-defined]
            .where(tables.ChunkRow.role == ChunkRole.BODY.value)
            .order_by(tables.ChunkRow.document_id, tables.ChunkRow.ordinal)  # type: ignore[arg-type]
        ).all())
    bare_encode = type(embedder).encode_documents
    for name in ("raw 1", "raw 2"):
        with clock.measure(name):
            bare_encode(embedder, texts)

    pages = sum(o.pages or 0 for o in report.outcomes if o.status == "imported")
    chunks = len(texts)
    assert chunks == drained.chunks, (chunks, drained.chunks)
    assert not indexing.has_jobs(lib)
    e2e_wall, e2e_cpu = clock.wall["upload"], clock.cpu["upload"]
    raw_wall = (clock.wall["raw 1"] + clock.wall["raw 2"]) / 2
    raw_cpu = (clock.cpu["raw 1"] + clock.cpu["raw 2"]) / 2

    s = timer.seconds
    storage = s["upload thread"] - s.get("extract", 0) - s.get("chunk prep", 0)
    vector = s.get("vector upsert", 0) + s.get("vector delete", 0)
    e2e_rate, raw_rate = chunks / e2e_wall, chunks / raw_wall
    rows = [
        ["files imported / pages / chunks", f"{len(documents)} / {pages} / {chunks}", "", "", ""],
        ["model load (once per process, not counted)", "", f"{load_seconds:.2f}", "", ""],
        ["end-to-end (upload, drain alongside)", f"{e2e_cpu / e2e_wall:.2f} cores busy", f"{e2e_wall:.2f}",
         f"{e2e_cpu:.1f}", "100.0"],
        ["  upload thread: extraction (worker process)", "", f"{s.get('extract', 0):.2f}", "",
         _pct(s.get("extract", 0), e2e_wall)],
        ["  upload thread: chunk preparation (token counts)", "", f"{s.get('chunk prep', 0):.2f}", "",
         _pct(s.get("chunk prep", 0), e2e_wall)],
        ["  upload thread: storage (SQLite rows, FTS, blobs)", "", f"{storage:.2f}", "", _pct(storage, e2e_wall)],
        [f"  drain thread: embedding ({timer.calls.get('embed', 0)} encode_documents calls)", "",
         f"{s.get('embed', 0):.2f}", "", _pct(s.get("embed", 0), e2e_wall)],
        [f"  drain thread: vector-store writes ({timer.calls.get('vector upsert', 0)} upserts, "
         f"{timer.calls.get('vector delete', 0)} deletes)", "", f"{vector:.2f}", "", _pct(vector, e2e_wall)],
        ["  after the last file: the drain's tail", "", f"{e2e_wall - s['upload thread']:.2f}", "",
         _pct(e2e_wall - s["upload thread"], e2e_wall)],
        ["raw encode_documents(same texts), run 1 / run 2", "",
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
    """Wall and CPU seconds (all threads, and waited-for children) of named blocks."""

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
    """CPU seconds of this process and of its children it waited for (the extraction worker, once closed)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}"


if __name__ == "__main__":
    main()
