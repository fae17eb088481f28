"""An upload's pipeline (``imports.upload(stored=…)`` + ``indexing.drain_alongside``): each file's chunks are
embedded while the next file is extracted, every chunk ends up indexed exactly once, a bad file is reported
without holding up the rest, and an upload stopped midway leaves what it stored queued for the next drain.

Real PDFs of the corpus, the real extraction worker process, the real model, SQLite and Chroma."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from sqlmodel import select

from vancetope_desktop.core.documents import IndexState
from vancetope_desktop.index.writer import embedded_chunks
from vancetope_desktop.ingest.process_pool import ProcessExtractor
from vancetope_desktop.services import imports, indexing
from vancetope_desktop.store import tables
from vancetope_desktop.store.db import read_session

pytestmark = pytest.mark.slow

PAPERS = ("black-hole-singularities-collision-arxiv1805.05865.pdf", "phytochemical-investigations-phoenix-paludosa.pdf",
          "stressful-life-events-dementia-psychogeriatrics.pdf")
OVERLAP_WAIT_S = 300.0
"""How long the last file's extraction waits for an earlier file to be indexed: only a pipeline that does not
overlap (embedding after the last file) ever reaches it, and then fails the test."""


@pytest.fixture
def papers(corpus: Path, tmp_path: Path) -> Path:
    """Three small papers and a damaged PDF between them, in upload order a, b, c (damaged), d."""
    folder = tmp_path / "papers"
    folder.mkdir()
    for prefix, name in zip("abd", PAPERS, strict=True):
        shutil.copy(corpus / "papers" / name, folder / f"{prefix}-{name}")
    (folder / "c-damaged.pdf").write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >>\nnot a PDF body\n")
    return folder


def _states(lib, ids: list[str]) -> dict[str, str]:
    with read_session(lib.engine) as session:
        rows = session.exec(select(tables.DocumentRow.id, tables.DocumentRow.index_state)
                            .where(tables.DocumentRow.id.in_(ids))).all()  # type: ignore[attr-defined]
    return dict(rows)


def _assert_indexed_exactly_once(lib, ids: list[str]) -> None:
    """Every document indexed, no job left, and its collection holds one vector per body chunk, no more."""
    assert set(_states(lib, ids).values()) == {IndexState.INDEXED.value}
    assert not indexing.has_jobs(lib)
    with read_session(lib.engine) as session:
        rows = session.exec(select(tables.ChunkRow.document_id, tables.ChunkRow.ordinal, tables.DocumentRow.scope_path)
                            .join(tables.DocumentRow, tables.DocumentRow.id == tables.ChunkRow.document_id)  # type: ignore[arg-type]
                            .where(tables.ChunkRow.document_id.in_(ids), embedded_chunks())).all()  # type: ignore[attr-defined]
    expected = {f"{doc}:{ordinal}" for doc, ordinal, _ in rows}
    scope = {s for _, _, s in rows}.pop()
    assert len(expected) >= 20  # real papers: dozens of chunks
    assert set(lib.vectors.chunk_vectors(scope, sorted(expected))) == expected
    assert lib.vectors.counts([scope])[scope] == len(expected)
    assert not indexing.check_vectors(lib).problems


def test_each_file_is_embedded_while_the_next_is_extracted_and_indexed_exactly_once(library, papers):
    handed: list[list[str]] = []
    overlapped: list[bool] = []
    worker = ProcessExtractor()

    def extract(path: Path, **options):
        if path.name.startswith("d-"):  # the last file waits until an earlier one is searchable
            deadline = time.monotonic() + OVERLAP_WAIT_S
            while time.monotonic() < deadline and IndexState.INDEXED.value not in _states(library, handed[0]).values():
                time.sleep(0.05)
            overlapped.append(IndexState.INDEXED.value in _states(library, handed[0]).values())
        return worker(path, **options)

    try:
        drainer = indexing.drain_alongside(library)
        assert drainer is not None
        with drainer:
            report = imports.upload(library, [papers], extractor=extract,
                                    stored=lambda ids: (handed.append(ids), drainer.add(ids)))
    finally:
        worker.close()

    assert overlapped == [True]
    statuses = {Path(o.path).name[0]: o.status for o in report.outcomes}
    assert statuses == {"a": "imported", "b": "imported", "c": "failed", "d": "imported"}
    assert [i for ids in handed for i in ids] == report.document_ids  # one hand-over per stored file, in order
    assert sorted(drainer.report.indexed) == sorted(report.document_ids) and not drainer.report.failed
    _assert_indexed_exactly_once(library, report.document_ids)


class _Stop(Exception):
    """The user's cancel, raised before the third stored file's commit."""


def test_an_upload_stopped_midway_leaves_the_rest_queued_for_the_next_drain(library, papers):
    commits = []

    def gate() -> None:
        commits.append(1)
        if len(commits) == 3:
            raise _Stop

    drainer = indexing.drain_alongside(library)
    assert drainer is not None
    handed: list[str] = []
    with pytest.raises(_Stop), drainer:
        imports.upload(library, [papers], before_commit=gate,
                       stored=lambda ids: (handed.extend(ids), drainer.add(ids)))
    assert len(handed) == 2  # a and b stored and handed over; the stop came before c's commit, d never reached
    with pytest.raises(RuntimeError, match="finished"):
        drainer.add(["late"])

    again = indexing.try_drain(library)  # what the stopped drain left (perhaps nothing) is done now, once
    assert again is not None and not again.failed
    _assert_indexed_exactly_once(library, handed)
