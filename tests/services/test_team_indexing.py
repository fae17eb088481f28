"""Several writer processes drain one team library's index queue (issue 17): PostgreSQL holds the queue, the Chroma
server the vectors; every chunk's vector is written exactly once, and a writer killed mid-batch (after its vectors,
before its jobs' delete) has its jobs taken over once its lease runs out. The embedded library's one writer takes a
dead process's claims at once."""

import json
import os
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sqlalchemy import func, update
from sqlmodel import select

from vancetope_desktop.core.documents import EMBEDDED_ROLES, DocumentType
from vancetope_desktop.index.job_claims import SharedWriters
from vancetope_desktop.services import documents, indexing
from vancetope_desktop.services.library import DEFAULT_PROJECT, Library
from vancetope_desktop.store import tables
from vancetope_desktop.store.db import read_session, write_session

REPO = Path(__file__).resolve().parents[2]
NOTES = Path(os.environ.get("VANCETOPE_SHARED", "/work/shared")) / "corpus" / "notes"
LEASE_SECONDS = 5.0
"""The writers' lease here: a dead writer's jobs wait this long (60 s in use)."""
QUEUED_NOTES = 8
"""Corpus notes queued, the smallest (``_queue_notes``)."""
BATCH_CHUNKS = 4
"""The writers' batch: a few chunks, so that the queue holds many batches to share out (256 in use)."""

_WRITER = textwrap.dedent("""
    import json, os, signal, sys
    from pathlib import Path
    from vancetope_desktop.index.job_claims import SharedWriters
    from vancetope_desktop.services import indexing
    from vancetope_desktop.services.library import Library

    root, lease, batch, fate = sys.argv[1:]
    lib = Library.open(Path(root))  # the team library's descriptor
    lib.writer_lock = SharedWriters(lib.engine, lease_seconds=float(lease))
    if fate == "killed":
        upsert = lib.vectors.upsert

        def upsert_then_die(*args, **kwargs):
            upsert(*args, **kwargs)
            os.kill(os.getpid(), signal.SIGKILL)  # kill -9 between the vector write and the jobs' delete

        lib.vectors.upsert = upsert_then_die
    writer = indexing.writer_for(lib)
    writer.batch_chunks = int(batch)  # many batches: the writers share the queue out
    report = writer.drain()
    print(json.dumps({"indexed": report.indexed, "failed": report.failed}))
    lib.close()
""")


def _queue_notes(lib: Library) -> dict[str, int]:
    """The :data:`QUEUED_NOTES` smallest corpus notes stored as documents (``documents.add_text``: each with its embed
    job); returns each document's chunks that get vectors. The claim is about the queue's mechanism, not the corpus:
    eight small notes (50 chunks in 1-11 a note) make seven batches of :data:`BATCH_CHUNKS`, more than the writers,
    for a sixth of the embedding that the first ten notes by name (293 chunks, 15 CPU s) cost."""
    notes = [path for path in sorted(NOTES.glob("*.md"), key=lambda path: path.stat().st_size)
             if path.read_text(errors="replace").strip()][:QUEUED_NOTES]
    ids = [documents.add_text(lib, path.read_text(errors="replace"), doc_type=DocumentType.NOTE, title=path.stem).id
           for path in notes]
    with read_session(lib.engine) as session:
        counts = dict(session.exec(select(tables.ChunkRow.document_id, func.count()).where(
            tables.ChunkRow.role.in_([role.value for role in EMBEDDED_ROLES]))  # type: ignore[attr-defined]
            .group_by(tables.ChunkRow.document_id)).all())
    return {doc_id: counts.get(doc_id, 0) for doc_id in ids}


def _start_writer(lib: Library, fate: str = "drains") -> subprocess.Popen:
    """A writer process on the team library ``lib`` (its descriptor; XDG_STATE_HOME, set by the fixture, passed on):
    it drains the queue, or (``fate`` "killed") dies by SIGKILL right after its first vector write."""
    return subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(lib.paths.root), str(LEASE_SECONDS), str(BATCH_CHUNKS), fate],
        cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)), stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _reports(writers: list[subprocess.Popen]) -> list[dict]:
    """Each writer's report, once all have ended (each must succeed)."""
    ended = [writer.communicate(timeout=900) for writer in writers]
    assert [writer.returncode for writer in writers] == [0] * len(writers), [err.decode() for _, err in ended]
    return [json.loads(out.decode().strip().splitlines()[-1]) for out, _ in ended]


def _assert_each_vector_once(lib: Library, expected: dict[str, int]) -> None:
    """The queue is empty, every document indexed, and the server holds exactly the chunks' vectors: one per chunk
    id, as many as SQL's embedded chunks."""
    with read_session(lib.engine) as session:
        assert session.exec(select(func.count()).select_from(tables.JobRow)).one() == 0
        states = dict(session.exec(select(tables.DocumentRow.id, tables.DocumentRow.index_state)).all())
        ordinals = session.exec(select(tables.ChunkRow.document_id, tables.ChunkRow.ordinal).where(
            tables.ChunkRow.role.in_([role.value for role in EMBEDDED_ROLES]))).all()  # type: ignore[attr-defined]
    assert states == dict.fromkeys(expected, "indexed")
    assert len(ordinals) == sum(expected.values())
    assert lib.vectors.counts([DEFAULT_PROJECT]) == {DEFAULT_PROJECT: len(ordinals)}
    stored = [chunk_id for doc_id in expected for chunk_id in lib.vectors.document_vectors(DEFAULT_PROJECT, doc_id)[0]]
    assert sorted(stored) == sorted(f"{doc_id}:{ordinal}" for doc_id, ordinal in ordinals)


@pytest.mark.slow
def test_a_killed_writers_jobs_are_taken_over_by_three_writers_draining_one_queue_each_vector_written_once(
        team_library):
    """Both of the issue's claims in one run (each writer process costs some 3 CPU s to start): a writer killed -9
    mid-batch leaves its jobs claimed; three writers then drain the queue at once, share it out, and take the dead
    writer's jobs over once its lease runs out; every document is indexed by one writer, every vector written once."""
    assert isinstance(team_library.writer_lock, SharedWriters)  # no lock file: every process may write
    expected = _queue_notes(team_library)
    assert sum(expected.values()) > 4 * BATCH_CHUNKS  # more batches than writers
    victim = _start_writer(team_library, fate="killed")
    victim.communicate(timeout=900)
    assert victim.returncode == -9
    with read_session(team_library.engine) as session:
        held = session.exec(select(tables.JobRow.document_id).where(tables.JobRow.claimed_by.is_not(None))).all()  # type: ignore[union-attr]
    assert held  # its batch: vectors written, jobs still queued and claimed
    # Who is indexing: not the dead writer, a process of this machine that has ended, though its claims are judged
    # live for an hour's lease (`index status` named such a process: a tester, 3 Dec 2026).
    assert SharedWriters(team_library.engine, lease_seconds=3600).holder_pid() is None
    reports = _reports([_start_writer(team_library) for _ in range(3)])
    indexed = [doc_id for report in reports for doc_id in report["indexed"]]
    assert sorted(indexed) == sorted(expected)  # each document indexed by one writer, once; the victim's too
    assert set(held) <= set(indexed)
    assert [report["failed"] for report in reports] == [[], [], []]
    _assert_each_vector_once(team_library, expected)
    assert SharedWriters(team_library.engine, lease_seconds=3600).holder_pid() is None


def test_the_embedded_librarys_writer_takes_a_dead_processs_claims_at_once(tmp_path):
    with Library.open(tmp_path / "lib") as lib:
        note = documents.add_text(lib, "Herons nest in colonies near lakes and rivers.", title="Herons")
        with write_session(lib.engine) as session:  # a writer that claimed the job, then died
            session.exec(update(tables.JobRow).values(claimed_by="elsewhere:1:dead", claimed_at=func.now()))
        report = indexing.try_drain(lib)
        assert report is not None and report.indexed == [note.id]
        assert indexing.index_status(lib).queued_jobs == 0 and indexing.check_vectors(lib).problems == []


def test_who_is_indexing_names_another_machines_claim_but_not_an_ended_process_of_this_one(team_library):
    documents.add_text(team_library, "Herons nest in colonies near lakes and rivers.", title="Herons")
    writers = SharedWriters(team_library.engine, lease_seconds=3600)
    with write_session(team_library.engine) as session:  # a writer of another machine holds the job, within its lease
        session.exec(update(tables.JobRow).values(claimed_by="elsewhere:4242:w", claimed_at=func.now()))
    assert writers.holder_pid() == 4242  # nothing here can tell whether it still runs
    ended = subprocess.Popen(["true"])  # a process of this machine that has ended: its pid runs nothing now
    ended.wait()
    with write_session(team_library.engine) as session:
        session.exec(update(tables.JobRow).values(claimed_by=f"{socket.gethostname()}:{ended.pid}:w"))
    assert writers.holder_pid() is None
