"""Chunk roles: only body chunks get vectors; every chunk stays keyword-searchable; old libraries gain the column."""

import sqlite3

from tests.store.schemas import as_written_before_alembic, downgrade_to_schema_2
from vancetope_desktop.core.documents import ChunkRole
from vancetope_desktop.index.lexical import search_chunks
from vancetope_desktop.ingest.base import ChunkDraft
from vancetope_desktop.services import documents, indexing, records
from vancetope_desktop.services.library import Library
from vancetope_desktop.store import tables
from vancetope_desktop.store.db import read_session, write_session
from vancetope_desktop.store.filters import SqlFilter


def test_only_body_chunks_are_embedded_and_all_are_keyword_searchable(library):
    doc = documents.add_text(library, "placeholder", title="A paper")
    drafts = [
        ChunkDraft("Chronic stress raises the risk of dementia in old age.", page=1),
        ChunkDraft("[1] Smith J. Stress and dementia. Lancet 2001. [2] Doe A. Ageing. BMJ 2003.", page=7,
                   role=ChunkRole.REFERENCES),
        ChunkDraft("Alice Smith¹, Bob Jones², ¹University of Oslo, ²ETH Zürich", page=1, role=ChunkRole.AUTHORS),
    ]
    with write_session(library.engine) as session:
        row = records.document_row(session, doc.id)
        records.replace_chunks(session, row, drafts, [10, 20, 12])
        records.enqueue(session, doc.id, "embed")
    assert indexing.pending_work(library) == (1, 1)  # the queued work counts only what gets vectors
    report = indexing.try_drain(library)
    assert report.indexed == [doc.id] and report.chunks == 1
    ids, _, _ = library.vectors.document_vectors(doc.scope, doc.id)
    assert ids == [f"{doc.id}:0"]
    roles = [c.role for c in documents.list_chunks(library, doc.id)]
    assert roles == [ChunkRole.BODY, ChunkRole.REFERENCES, ChunkRole.AUTHORS]
    with read_session(library.engine) as session:
        hits = search_chunks(session, "Lancet", SqlFilter(), 10)
    assert [h.chunk_id for h in hits] == [f"{doc.id}:1"]


def test_a_schema_2_library_gains_chunk_roles(tmp_path):
    path = tmp_path / "lib"
    with Library.open(path) as lib:
        documents.add_text(lib, "An old note", title="Old")
    downgrade_to_schema_2(path / "library.sqlite")
    with Library.open(path) as lib:
        (chunk,) = documents.list_chunks(lib, documents.list_documents(lib)[0].id)
        assert chunk.role == ChunkRole.BODY
    with sqlite3.connect(path / "library.sqlite") as con:
        assert con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] == str(
            tables.SCHEMA_VERSION)
        indexes = {row[1] for table in ("index_job", "chunk") for row in con.execute(f"PRAGMA index_list({table})")}
        assert {"ix_index_job_kind", "ix_chunk_document_role"} <= indexes


def test_a_schema_2_library_finds_its_vowelled_arabic_after_the_upgrade(tmp_path):
    path = tmp_path / "lib"
    with Library.open(path) as lib:
        doc = documents.add_text(lib, "قال مُحَمَّد إن النتائج جيدة", title="ملاحظة")
    with sqlite3.connect(path / "library.sqlite") as con:
        # As schema 2 analysed it: the vowel marks kept, so the word was split at each of them.
        con.execute("UPDATE chunk_fts SET body = (SELECT text FROM chunk WHERE chunk.id = chunk_fts.rowid)")
        as_written_before_alembic(con, 2)
    with Library.open(path) as lib, read_session(lib.engine) as session:
        hits = search_chunks(session, "محمد", SqlFilter(), 10)
    assert [h.document_id for h in hits] == [doc.id]
