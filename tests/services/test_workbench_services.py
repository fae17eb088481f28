"""Services behind the workbench panes: folder tree, folder and scope renames, archives, smart views, restore."""

from datetime import timedelta

import pytest
from sqlalchemy import text
from sqlmodel import select

from vancetope_desktop.core.documents import DocumentStatus, DocumentType, IndexState
from vancetope_desktop.core.errors import InvalidInput, NotFound, ScopeError
from vancetope_desktop.services import documents, folders, imports, scopes
from vancetope_desktop.services.library import DEFAULT_GROUP, DEFAULT_PROJECT
from vancetope_desktop.store import tables
from vancetope_desktop.store.db import read_session, write_session
from vancetope_desktop.store.tables import utcnow


def jobs(library, document_id: str) -> list[str]:
    with read_session(library.engine) as session:
        return list(session.exec(select(tables.JobRow.kind).where(tables.JobRow.document_id == document_id)
                                 .order_by(tables.JobRow.id)).all())


# -- folders ------------------------------------------------------------------------------------


def test_folder_tree_counts_nested_documents_in_visible_scopes(library):
    scopes.create_scope(library, "project", "other", parent=DEFAULT_GROUP)
    papers = folders.create_folder(library, "papers")
    drafts = folders.create_folder(library, "Drafts")
    classics = folders.create_folder(library, "Classics", parent_id=papers.id)
    old = folders.create_folder(library, "Old", parent_id=classics.id)
    shared = folders.create_folder(library, "Shared", scope=DEFAULT_GROUP)
    hidden = folders.create_folder(library, "Sibling", scope="project/other")
    for folder_id, count in [(papers.id, 2), (classics.id, 1), (old.id, 3), (shared.id, 1), (hidden.id, 4)]:
        scope = documents.get_document(library, folder_id).scope
        for i in range(count):
            documents.add_text(library, f"doc {i}", folder_id=folder_id, scope=scope)
    trashed = documents.add_text(library, "trashed", folder_id=old.id)
    documents.set_status(library, trashed.id, DocumentStatus.DELETED)
    documents.add_text(library, "unfiled")

    tree = folders.folder_tree(library)
    assert [(n.title, n.parent_id, n.own_count, n.total_count) for n in tree] == [
        ("Drafts", None, 0, 0),
        ("papers", None, 2, 6),
        ("Classics", papers.id, 1, 4),
        ("Old", classics.id, 3, 3),
        ("Shared", None, 1, 1),  # the group's folder, after the project's own
    ]
    assert tree[-1].scope == DEFAULT_GROUP and drafts.id == tree[0].id
    assert [n.title for n in folders.folder_tree(library, include_ancestors=False)] == [
        "Drafts", "papers", "Classics", "Old"
    ]
    assert [(n.title, n.total_count) for n in folders.folder_tree(library, scope="project/other")] == [
        ("Sibling", 4), ("Shared", 1)
    ]
    documents.set_status(library, classics.id, DocumentStatus.ARCHIVED)  # takes Old and its documents along
    assert [(n.title, n.total_count) for n in folders.folder_tree(library, include_ancestors=False)] == [
        ("Drafts", 0), ("papers", 2)
    ]


def test_rename_folder_keeps_a_version_and_refuses_duplicates(library):
    papers = folders.create_folder(library, "Papers")
    notes = folders.create_folder(library, "Notes")
    inner = folders.create_folder(library, "Notes", parent_id=papers.id)  # same name, other parent: fine

    renamed = folders.rename_folder(library, papers.id, "  Reading  ")
    assert renamed.title == "Reading" and renamed.version == 2
    assert documents.list_versions(library, papers.id)[-1].title == "Papers"
    assert folders.rename_folder(library, papers.id, "Reading").version == 2  # unchanged: no version

    with pytest.raises(InvalidInput) as duplicate:
        folders.rename_folder(library, notes.id, "Reading")
    with pytest.raises(InvalidInput) as created:
        folders.create_folder(library, "Reading")
    assert str(duplicate.value) == str(created.value)
    with pytest.raises(InvalidInput):
        folders.rename_folder(library, inner.id, " ")
    note = documents.add_text(library, "not a folder")
    with pytest.raises(InvalidInput):
        folders.rename_folder(library, note.id, "X")
    assert folders.rename_folder(library, inner.id, "Reading").title == "Reading"  # its siblings differ


# -- scopes -------------------------------------------------------------------------------------


def test_rename_scope_keeps_its_path(library):
    renamed = scopes.rename_scope(library, DEFAULT_PROJECT, "  My Inbox ")
    assert renamed.path == DEFAULT_PROJECT and renamed.name == "My Inbox"
    assert scopes.get_scope(library, DEFAULT_PROJECT).name == "My Inbox"
    for bad in ["", "  ", "a\nb", "x" * 201]:
        with pytest.raises(InvalidInput):
            scopes.rename_scope(library, DEFAULT_PROJECT, bad)


def test_archive_moves_the_current_scope_up_and_keeps_the_last_group(library):
    scopes.create_scope(library, "session", "s1", parent=DEFAULT_PROJECT)
    scopes.create_scope(library, "think-process", "tp1", parent="session/s1")
    scopes.use_scope(library, "think-process/tp1")

    archived = scopes.archive_scope(library, "session/s1")
    assert archived.archived and scopes.get_scope(library, "think-process/tp1").archived
    assert scopes.current_scope(library) == DEFAULT_PROJECT
    assert [s.path for s in scopes.list_scopes(library)] == [DEFAULT_GROUP, DEFAULT_PROJECT]

    with pytest.raises(ScopeError):
        scopes.archive_scope(library, DEFAULT_GROUP)
    scopes.create_scope(library, "group", "lab", name="Lab")
    scopes.archive_scope(library, DEFAULT_GROUP)
    assert scopes.current_scope(library) == "group/lab"
    assert [s.path for s in scopes.list_scopes(library)] == ["group/lab"]

    restored = scopes.archive_scope(library, "think-process/tp1", archived=False)
    assert not restored.archived
    assert [s.path for s in scopes.list_scopes(library)] == [
        "group/lab", DEFAULT_GROUP, DEFAULT_PROJECT, "session/s1", "think-process/tp1"
    ]
    scopes.archive_scope(library, "project/inbox")  # not current: the current scope stays
    assert scopes.current_scope(library) == "group/lab"


# -- smart views --------------------------------------------------------------------------------


def test_smart_views_list_and_count_the_same_documents(library, corpus):
    scopes.create_scope(library, "project", "other", parent=DEFAULT_GROUP)
    folder = folders.create_folder(library, "Filed")
    filed = documents.add_text(library, "filed fact", folder_id=folder.id)
    loose = documents.add_text(library, "loose fact")
    old = documents.add_text(library, "old fact")
    with write_session(library.engine) as session:  # an import from last month
        session.exec(text("UPDATE document SET created_at = :t WHERE id = :i"),
                     params={"t": (utcnow() - timedelta(days=30)).strftime("%Y-%m-%d %H:%M:%S.%f"), "i": old.id})
    report = imports.upload(library, [corpus / "pdf-edge/encrypted-aes256-user-password.pdf",
                                      corpus / "pdf-edge/scanned-image-only-ocr-sample.pdf"])
    failed, scanned = (o.document_id for o in report.outcomes)
    trashed = documents.add_text(library, "trashed fact")
    documents.set_status(library, trashed.id, DocumentStatus.DELETED)
    documents.add_text(library, "not visible", scope="project/other")

    def ids(view: str) -> set[str]:
        return {d.id for d in documents.list_documents(library, **documents.smart_view_filters(view))}

    assert ids("all") == {filed.id, loose.id, old.id, failed, scanned}
    assert ids("unfiled") == {loose.id, old.id, failed, scanned}
    assert ids("recent") == {filed.id, loose.id, failed, scanned}
    assert ids("problems") == {failed, scanned}
    assert ids("trash") == {trashed.id}
    assert ids("unread") == {failed, scanned}  # files start unread; facts have no reading status
    assert documents.smart_counts(library) == {"all": 5, "unfiled": 4, "recent": 4, "unread": 2, "problems": 2,
                                                "stale": 0, "archived": 0, "trash": 1}
    assert documents.smart_counts(library, "project/other") == {
        "all": 1, "unfiled": 1, "recent": 1, "unread": 0, "problems": 0, "stale": 0, "archived": 0, "trash": 0
    }
    with pytest.raises(InvalidInput):
        documents.smart_view_filters("favourites")

    assert {d.id for d in documents.list_documents(library, index_states=[IndexState.NEEDS_OCR])} == {scanned}
    assert documents.count_documents(library, unfiled=True) == 5  # the top-level folder counts without types
    later = utcnow() + timedelta(seconds=1)
    assert documents.list_documents(library, added_since=later) == []
    since = (utcnow() - timedelta(days=1)).replace(tzinfo=None)  # naive means UTC
    assert documents.count_documents(library, added_since=since, types=[DocumentType.FACT]) == 2


# -- restoring versions -------------------------------------------------------------------------


def test_restore_version_brings_back_a_note_and_rechunks_it(library):
    first = "# Plan\n\n## Method\n\nMeasure the latency of the cold start.\n"
    note = documents.add_text(library, first, doc_type=DocumentType.NOTE, title="Plan", tags=["draft"])
    documents.update_document(library, note.id, content="# Plan\n\n## Method\n\nSkip the measurement.\n",
                              title="Plan v2")
    documents.tag_document(library, note.id, add=["final"], remove=["draft"])
    assert "Skip the measurement." in documents.list_chunks(library, note.id)[0].text

    restored = documents.restore_version(library, note.id, 1)
    assert restored.title == "Plan" and restored.tags == ["draft"] and restored.version == 4
    assert "cold start" in restored.content and restored.index_state is IndexState.PENDING
    assert any("cold start" in c.text for c in documents.list_chunks(library, note.id))
    assert not any("Skip" in c.text for c in documents.list_chunks(library, note.id))
    last = documents.list_versions(library, note.id)[-1]
    assert last.reason == "restored version 1" and last.title == "Plan v2" and last.tags == ["final"]
    assert jobs(library, note.id)[-1] == "embed"
    assert documents.restore_version(library, note.id, 1).version == 4  # already that state: nothing to do
    with pytest.raises(NotFound):
        documents.restore_version(library, note.id, 9)


def test_restore_version_of_tags_only_queues_a_refresh(library):
    fact = documents.add_text(library, "The deadline is June 15th", tags=["deadline"])
    documents.tag_document(library, fact.id, add=["urgent"], remove=["deadline"])
    restored = documents.restore_version(library, fact.id, 1)
    assert restored.tags == ["deadline"] and restored.content == fact.content
    assert jobs(library, fact.id) == ["embed", "refresh", "refresh"]


def test_restore_version_of_a_file_keeps_the_stored_original(library, corpus):
    report = imports.upload(library, [corpus / "pdf-edge/ligature-fl-text.pdf"])
    doc = documents.get_document(library, report.outcomes[0].document_id)
    assert doc.type is DocumentType.FILE
    documents.update_document(library, doc.id, title="Ligatures", metadata={"rating": 5})
    documents.tag_document(library, doc.id, add=["math"])
    chunks = documents.list_chunks(library, doc.id)

    restored = documents.restore_version(library, doc.id, 1)
    assert restored.title == doc.title and restored.tags == doc.tags and "rating" not in restored.metadata
    assert restored.file_path == doc.file_path and restored.content_hash == doc.content_hash
    assert restored.content == doc.content and restored.metadata["file_suffix"] == ".pdf"
    assert documents.list_chunks(library, doc.id) == chunks
