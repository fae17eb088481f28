"""Deleting for good: a trashed folder with its contents, and emptying a scope's trash, each all or none."""

from __future__ import annotations

import pytest
from sqlmodel import select

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.errors import DocumentNotFound, InvalidInput
from vancetope_desktop.services import documents, folders, scopes
from vancetope_desktop.store import tables
from vancetope_desktop.store.db import read_session


def _tree(library):
    """Papers/ (a note) and Papers/2024/ (a note), all trashed with the folder."""
    papers = folders.create_folder(library, "Papers")
    year = folders.create_folder(library, "2024", parent_id=papers.id)
    top = documents.add_text(library, "Attention notes", doc_type=DocumentType.NOTE, folder_id=papers.id)
    inner = documents.add_text(library, "Flash notes", doc_type=DocumentType.NOTE, folder_id=year.id)
    documents.set_status(library, papers.id, DocumentStatus.DELETED)
    return papers, year, top, inner


def _drop_jobs(library) -> set[str]:
    with read_session(library.engine) as session:
        return set(session.exec(select(tables.JobRow.document_id).where(tables.JobRow.kind == "drop")).all())


def test_purging_a_trashed_folder_takes_its_contents_in_one_go(library):
    papers, year, top, inner = _tree(library)
    purged = documents.purge_document(library, papers.id)
    assert set(purged) == {papers.id, year.id, top.id, inner.id}
    for doc in (papers, year, top, inner):
        with pytest.raises(DocumentNotFound):
            documents.get_document(library, doc.id)
    assert {top.id, inner.id} <= _drop_jobs(library)  # their vectors go through the writer


def test_a_folder_holding_a_document_not_in_the_trash_is_refused_whole(library):
    papers, year, top, inner = _tree(library)
    documents.set_status(library, inner.id, DocumentStatus.ACTIVE)  # restored on its own
    with pytest.raises(InvalidInput, match="not in the trash: Flash notes"):
        documents.purge_documents(library, [papers.id])
    for doc in (papers, year, top, inner):  # nothing was deleted
        assert documents.get_document(library, doc.id).id == doc.id
    assert _drop_jobs(library) == set()


def test_empty_trash_deletes_the_scopes_trash_only_and_all_at_once(library):
    papers, year, top, inner = _tree(library)
    loose = documents.add_text(library, "Loose", doc_type=DocumentType.NOTE)
    documents.set_status(library, loose.id, DocumentStatus.DELETED)
    kept = documents.add_text(library, "Kept", doc_type=DocumentType.NOTE)
    scopes.create_scope(library, "session", "s1", parent="project/inbox", name="Review")
    elsewhere = documents.add_text(library, "Elsewhere", doc_type=DocumentType.NOTE, scope="session/s1")
    documents.set_status(library, elsewhere.id, DocumentStatus.DELETED)
    scope = documents.get_document(library, loose.id).scope
    assert set(documents.empty_trash(library, scope)) == {papers.id, year.id, top.id, inner.id, loose.id}
    assert documents.get_document(library, kept.id).status is DocumentStatus.ACTIVE
    assert documents.get_document(library, elsewhere.id).status is DocumentStatus.DELETED
    assert documents.empty_trash(library, scope) == []
