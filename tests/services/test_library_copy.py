"""``services.library_copy``: a real embedded library (papers and notes of the corpus, tags, a relation, versions, a
promotion request, indexed by the real model) copied to a team library on the real servers and back, and what a
failure half-way leaves."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from tests.library_copies import build_template, copied_library
from tests.servers import open_on_servers
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import InvalidInput, LibraryBusy, LibraryError
from vancetope_desktop.index import lexical, pg_lexical
from vancetope_desktop.index.locks import WriterLock
from vancetope_desktop.services import (
    documents,
    graph,
    imports,
    indexing,
    library_copy,
    library_settings,
    review,
    scopes,
    search,
)
from vancetope_desktop.services.library import Library
from vancetope_desktop.store.db import get_meta, read_session, write_session
from vancetope_desktop.store.filters import SqlFilter

PAPERS = ("black-hole-singularities-collision-arxiv1805.05865.pdf", "phytochemical-investigations-phoenix-paludosa.pdf")
NOTES = ("foam-nested-tags.md", "stats-svm-mixed-chinese-english.md")
"""Two short notes (20 chunks: the two longest held 112, embedded for every template), one mixing Chinese and English
(the team library's words in CJK)."""
KEYWORDS = "phytochemical constituents of Phoenix paludosa"
MEANING = "what happens when two black holes collide"
REQUIRED = ("document", "document_tag", "document_version", "chunk", "relation", "promotion_request", "audit_entry")
"""Tables the template must fill, so that "counts equal" says something about each."""


def _fill(lib: Library, corpus: Path) -> dict[str, str]:
    """Upload the papers and notes, write a tagged note, edit it twice (versions), relate it, ask for a promotion
    from a session; index everything. Returns the ids the tests look for."""
    uploaded = imports.upload(lib, [corpus / "papers" / name for name in PAPERS]
                              + [corpus / "notes" / name for name in NOTES], tags=["corpus"])
    assert not uploaded.failed
    ids = {Path(o.path).name: o.document_id for o in uploaded.outcomes}
    note = documents.add_text(lib, "Palm leaves hold flavonoids; compare with the Phoenix paludosa paper.",
                              doc_type=DocumentType.NOTE, title="Palm chemistry", tags=["botany", "to-read"])
    documents.update_document(lib, note.id, content="Palm leaves hold flavonoids and tannins; compare with the paper.")
    documents.rename_document(lib, note.id, "Palm chemistry, revised")
    graph.relate(lib, note.id, ids[PAPERS[1]], "derived_from")
    scopes.create_scope(lib, "session", "s1", parent="project/inbox")
    draft = documents.add_text(lib, "Event horizons merge within milliseconds.", scope="session/s1", tags=["physics"])
    review.request_promotion(lib, draft.id, "project", reason="useful to the project")
    library_settings.set_setting(lib, "max_import_mb", "300")  # a setting of the library's own, to carry over
    indexing.try_drain(lib)
    assert indexing.pending_documents(lib) == []
    return {"paper": ids[PAPERS[1]], "black_hole": ids[PAPERS[0]], "note": note.id}


@pytest.fixture(scope="module")
def template(tmp_path_factory, corpus) -> tuple[Path, dict[str, str]]:
    """The filled embedded library, built once for the module (closed; each test copies it)."""
    return build_template(tmp_path_factory, lambda lib: _fill(lib, corpus))


def _keyword_top(lib: Library, module) -> list[str]:
    with read_session(lib.engine) as session:
        hits = module.search_chunks(session, KEYWORDS, SqlFilter().and_in("status", ["active"]), 5)
    return list(dict.fromkeys(hit.document_id for hit in hits))


def _meaning_top(lib: Library, vector) -> list[str]:
    """The documents of the nearest chunks in every collection, best first (the store itself: no search service)."""
    found = [hit for info in lib.vectors.collections() for hit in lib.vectors.query(info.scope, vector, 5)]
    return list(dict.fromkeys(hit.document_id for hit in sorted(found, key=lambda hit: -hit.similarity)))


def _assert_complete(report: library_copy.CopyReport) -> None:
    assert report.ok, [check for check in report.checks if not check.equal]
    counts = {check.what: check.source for check in report.checks}
    assert all(counts[table] > 0 for table in REQUIRED), counts
    assert any(what.startswith("vectors ") and count > 0 for what, count in counts.items())


def _files(lib: Library) -> list[str]:
    """The library's original files, by their names in its store (a team library's are in its shared folder)."""
    return sorted(str(path.relative_to(lib.paths.files)) for path in lib.paths.files.rglob("*") if path.is_file())


@pytest.mark.servers
@pytest.mark.slow
@pytest.mark.corpus
def test_embedded_to_team_and_back_keeps_everything_and_finds_the_same(template, tmp_path, team_library, capsys):
    folder, ids = template
    with copied_library(folder, tmp_path / "source") as source:
        started, cpu = time.perf_counter(), time.process_time()
        stages: set[str] = set()
        report = library_copy.copy_library(source, team_library, progress=lambda step: stages.add(step.stage))
        with capsys.disabled():
            print(f"\nmigrate embedded → team: {time.perf_counter() - started:.2f} s, "
                  f"{time.process_time() - cpu:.2f} s CPU, {report.files} files")
        _assert_complete(report)
        assert stages == {"files", "vectors", "rows", "words"}
        assert _files(team_library) == _files(source)
        assert team_library.index_identity() == source.index_identity()
        with read_session(team_library.engine) as session:
            assert get_meta(session, library_copy.COPIED_FROM_KEY).startswith("sqlite:///")
        assert _keyword_top(team_library, pg_lexical)[0] == _keyword_top(source, lexical)[0] == ids["paper"]
        vector = source.embedder().encode_query(MEANING)
        assert _meaning_top(team_library, vector)[:2] == _meaning_top(source, vector)[:2]
        assert _meaning_top(source, vector)[0] == ids["black_hole"]

        # A row added now gets an id past the copied ones (the sequences were moved), not a copied row's id.
        with team_library.engine.begin() as connection:
            largest = connection.execute(text("SELECT MAX(id) FROM audit_entry")).scalar()
            added = connection.execute(text(
                "INSERT INTO audit_entry (document_id, title, action, actor, reason, at, payload) VALUES "
                "(:doc, 'Palm chemistry', 'tag', 'user:team', '', now(), '{}') RETURNING id"), {"doc": ids["note"]}
            ).scalar()
        assert added == largest + 1

        with Library.open(team_library.paths.root) as team_again:  # the settings are in the team's database
            assert team_again.settings.max_import_mb == 300

        back = Library.open(tmp_path / "back")
        try:
            again = library_copy.copy_library(team_library, back)
            assert again.ok, [check for check in again.checks if not check.equal]
            assert _files(back) == _files(source)
        finally:
            back.close()
    with Library.open(tmp_path / "back") as reopened:
        hits = search.search(reopened, KEYWORDS).hits
        assert hits[0].document.id == ids["paper"]
        assert search.search(reopened, MEANING).hits[0].document.id == ids["black_hole"]
        assert [v.number for v in documents.list_versions(reopened, ids["note"])] == [1, 2]
        assert reopened.settings.max_import_mb == 300


def test_embedded_copy_opens_searches_and_adds(template, tmp_path):
    folder, ids = template
    with copied_library(folder, tmp_path / "source") as source, Library.open(tmp_path / "copy") as target:
        report = library_copy.copy_library(source, target)
        _assert_complete(report)
        assert report.files == len(PAPERS) + len(NOTES)
        added = documents.add_text(target, "Written after the copy.", title="Later")
    with Library.open(tmp_path / "copy") as reopened:
        assert search.search(reopened, KEYWORDS).hits[0].document.id == ids["paper"]
        assert documents.get_document(reopened, added.id).title == "Later"
        assert indexing.pending_documents(reopened) == [added.id]  # only the new note waits for its vectors


def test_refuses_a_target_that_is_not_empty_and_writes_nothing(template, tmp_path):
    folder, _ids = template
    with copied_library(folder, tmp_path / "source") as source, Library.open(tmp_path / "copy") as target:
        documents.add_text(target, "Already here.")
        with pytest.raises(LibraryError, match=r"not empty \(.*1 document\b"):
            library_copy.copy_library(source, target)
        with read_session(target.engine) as session:
            assert session.execute(text("SELECT COUNT(*) FROM document")).scalar() == 1
            assert get_meta(session, library_copy.COPIED_FROM_KEY) is None
        assert target.vectors.collections() == []
        with pytest.raises(InvalidInput, match="same library"):
            library_copy.copy_library(source, source)


def _write_behind_the_engine(lib: Library, statement: str, parameters: tuple) -> None:
    """Write to an embedded library's SQLite file with Python's driver, as a program before this one's rules (foreign
    keys off, a NUL kept: ``store.nul_guard``) did, so that the row the tests copy is really in the file."""
    connection = sqlite3.connect(lib.paths.database)
    try:
        with connection:
            connection.execute(statement, parameters)
    finally:
        connection.close()


@pytest.mark.servers
@pytest.mark.slow
def test_a_failure_half_way_leaves_an_empty_target_and_a_second_try_completes(template, tmp_path, postgres_database,
                                                                             chroma_server_url, chroma_server,
                                                                             monkeypatch):
    """A real bad row: a tag of a document that is not there, which SQLite kept (foreign keys were not enforced by
    the driver writing it) and PostgreSQL refuses, after the files and vectors and the documents are in. The target
    stays as new (no documents, no ``copied_from``, no vectors); once the row is gone the copy into the same target
    completes."""
    folder, _ids = template
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # the team library's locks: this test's
    chroma = (chroma_server_url, chroma_server.tenant, chroma_server.database)
    with copied_library(folder, tmp_path / "source") as source:
        _write_behind_the_engine(source, "INSERT INTO document_tag (document_id, tag) VALUES (?, ?)",
                                 ("doc_000000000000", "orphan"))
        target = open_on_servers(tmp_path / "team", postgres_database, chroma)
        try:
            with pytest.raises(IntegrityError, match="document_tag"):
                library_copy.copy_library(source, target)
            with read_session(target.engine) as session:
                assert session.execute(text("SELECT COUNT(*) FROM document")).scalar() == 0
                assert session.execute(text("SELECT COUNT(*) FROM chunk")).scalar() == 0
                assert get_meta(session, library_copy.COPIED_FROM_KEY) is None
            assert target.vectors.collections() == []  # the first try's vectors dropped

            _write_behind_the_engine(source, "DELETE FROM document_tag WHERE tag = ?", ("orphan",))
            _assert_complete(library_copy.copy_library(source, target))
        finally:
            target.close()


@pytest.mark.servers
@pytest.mark.slow
def test_nul_characters_an_embedded_library_holds_are_copied_as_replacement_characters(template, tmp_path,
                                                                                    postgres_database):
    """SQLite kept NULs written before the rule (``core.text.without_nul``) in a title, a JSON metadata value and a
    chunk's text; PostgreSQL refuses them. The copy writes U+FFFD in their place, says how many values it changed,
    and the title's words are found on the team library as on the source."""
    folder, ids = template
    with copied_library(folder, tmp_path / "source") as source:
        note = ids["note"]
        _write_behind_the_engine(source, "UPDATE document SET title = ?, metadata = json_set(metadata, '$.origin', ?) "
                                 "WHERE id = ?", ("Palm\x00chemistry", "pasted\x00text", note))
        _write_behind_the_engine(source, "UPDATE chunk SET text = ? WHERE document_id = ?",
                                 ("Palm leaves\x00hold flavonoids.", note))
        held = documents.get_document(source, note)  # really in the source, read through the library's engine
        assert (held.title, held.metadata["origin"]) == ("Palm\x00chemistry", "pasted\x00text")
        target = open_on_servers(tmp_path / "team", postgres_database)
        try:
            report = library_copy.copy_library(source, target)
            _assert_complete(report)
            assert report.nul_replaced == 3
            copied = documents.get_document(target, note)
            assert copied.title == "Palm\ufffdchemistry"
            assert copied.metadata["origin"] == "pasted\ufffdtext"
            with read_session(target.engine) as session:
                assert session.execute(text("SELECT text FROM chunk WHERE document_id = :id"), {"id": note}
                                       ).scalar() == "Palm leaves\ufffdhold flavonoids."
                found = pg_lexical.search_chunks(session, "palm chemistry", SqlFilter().and_in("status", ["active"]), 5)
            assert note in {hit.document_id for hit in found}
        finally:
            target.close()


def test_refuses_a_source_another_process_indexes(template, tmp_path):
    """The app (or ``index run``) holding the source's writer lock would write vectors during the copy: refused,
    nothing written, the lock left to its holder."""
    folder, _ids = template
    with copied_library(folder, tmp_path / "source") as source, Library.open(tmp_path / "copy") as target:
        other = WriterLock(source.writer_lock.path)  # a second handle: flock treats it as another process's
        assert other.try_acquire()
        try:
            with pytest.raises(LibraryBusy, match=f"pid {os.getpid()}.* is indexing"):
                library_copy.copy_library(source, target)
            assert other.held and not source.writer_lock.held
        finally:
            other.release()
        with read_session(target.engine) as session:
            assert session.execute(text("SELECT COUNT(*) FROM document")).scalar() == 0
        assert target.vectors.collections() == []


@pytest.mark.servers
def test_refuses_a_team_source_another_writer_is_indexing(team_library, tmp_path):
    """A team library elects no single writer: a live claim of another process (here: another machine's) on its
    queue means vectors are being written, so the copy is refused and writes nothing."""
    from vancetope_desktop.services import documents

    documents.add_text(team_library, "Sea ice retreat measured by the Cryosat mission", scope="project/inbox")
    with write_session(team_library.engine) as session:
        session.execute(text("UPDATE index_job SET claimed_by = 'lab-pc-7:4242:0a1b2c3d', claimed_at = now()"))
    with Library.open(tmp_path / "copy") as target:
        with pytest.raises(LibraryBusy, match=r"pid 4242\) is indexing"):
            library_copy.copy_library(team_library, target)
        with read_session(target.engine) as session:
            assert session.execute(text("SELECT COUNT(*) FROM document")).scalar() == 0
