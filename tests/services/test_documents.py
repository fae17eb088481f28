"""Documents end to end through the services: add, list, tags, versions, trash, folders."""

import pytest

from vancetope_desktop.core.documents import DocumentStatus, DocumentType, IndexState
from vancetope_desktop.core.errors import DocumentNotFound, EditConflict, FolderCycle, InvalidInput
from vancetope_desktop.core.tags import combine, parse_tag_expression
from vancetope_desktop.services import documents, folders, indexing
from vancetope_desktop.services.library import DEFAULT_PROJECT


def test_fresh_library_has_an_inbox_project_as_current_scope(library):
    fact = documents.add_text(library, "Deadline is June 15th")
    assert fact.scope == DEFAULT_PROJECT
    assert fact.id.startswith("doc_") and fact.type is DocumentType.FACT
    assert fact.title == "Deadline is June 15th"
    assert fact.index_state is IndexState.PENDING


def test_indexing_marks_documents_indexed(library):
    fact = documents.add_text(library, "Supervisor is Prof. Müller", tags=["people"])
    report = indexing.try_drain(library)
    assert report is not None and report.indexed == [fact.id]
    assert documents.get_document(library, fact.id).index_state is IndexState.INDEXED
    ids, vectors, metas = library.vectors.document_vectors(DEFAULT_PROJECT, fact.id)
    assert len(ids) == 1 and vectors.shape == (1, 384)
    assert metas[0]["tags"] == ["people"] and metas[0]["project"] == DEFAULT_PROJECT


def test_tag_filters_and_hierarchy(library):
    a = documents.add_text(library, "Flash attention paper", tags=["attention", "efficiency"])
    b = documents.add_text(library, "Sparse attention survey", tags=["attention", "topic/sparse"])
    c = documents.add_text(library, "Unrelated note", tags=["unread"])

    def ids(tag_filter):
        return {d.id for d in documents.list_documents(library, tag_filter=tag_filter)}

    assert ids(combine(required=["attention", "efficiency"])) == {a.id}
    assert ids(combine(any_tags=["efficiency", "unread"])) == {a.id, c.id}
    assert ids(combine(required=["attention"], excluded=["efficiency"])) == {b.id}
    assert ids(combine(required=["topic"])) == {b.id}
    assert ids(parse_tag_expression("#ATTENTION and not #topic/sparse")) == {a.id}


def test_tag_changes_keep_versions(library):
    doc = documents.add_text(library, "Hypothesis 1 holds under restriction X", doc_type=DocumentType.NOTE,
                             tags=["unread"])
    doc = documents.tag_document(library, doc.id, add=["important"], remove=["unread"])
    assert doc.tags == ["important"] and doc.version == 2
    doc = documents.update_document(library, doc.id, title="Hypothesis 1", reason="shorter title")
    doc = documents.update_document(library, doc.id, content="Hypothesis 1 fails under restriction Y",
                                    reason="re-run")
    versions = documents.list_versions(library, doc.id)
    assert [v.number for v in versions] == [1, 2, 3]
    assert versions[0].tags == ["unread"] and versions[0].reason == "tags +#important -#unread"
    assert versions[1].title == "Hypothesis 1 holds under restriction X"
    assert versions[2].content == "Hypothesis 1 holds under restriction X" and versions[2].reason == "re-run"
    assert documents.read_version(library, doc.id, 3).title == "Hypothesis 1"
    assert doc.content == "Hypothesis 1 fails under restriction Y" and doc.version == 4


def test_trash_restore_and_purge(library):
    doc = documents.add_text(library, "Temporary fact")
    documents.set_status(library, doc.id, DocumentStatus.DELETED)
    assert documents.list_documents(library) == []
    assert [d.id for d in documents.list_documents(library, statuses=[DocumentStatus.DELETED])] == [doc.id]
    documents.set_status(library, doc.id, DocumentStatus.ACTIVE)
    assert [d.id for d in documents.list_documents(library)] == [doc.id]
    with pytest.raises(InvalidInput):
        documents.purge_document(library, doc.id)
    documents.set_status(library, doc.id, DocumentStatus.DELETED)
    documents.purge_document(library, doc.id)
    with pytest.raises(DocumentNotFound):
        documents.get_document(library, doc.id)


def test_folders_nest_move_and_refuse_cycles(library):
    papers = folders.create_folder(library, "Papers")
    foundational = folders.create_folder(library, "Foundational", parent_id=papers.id)
    doc = documents.add_text(library, "Attention is all you need", doc_type=DocumentType.NOTE)
    folders.move_to_folder(library, doc.id, foundational.id)
    assert folders.folder_path(library, doc.id) == ["Papers", "Foundational"]
    with pytest.raises(FolderCycle):
        folders.move_to_folder(library, papers.id, foundational.id)
    inside = documents.list_documents(library, folder_id=papers.id, recursive=True)
    assert {d.id for d in inside} == {foundational.id, doc.id}
    # Trashing a folder trashes what it holds.
    trashed = documents.set_status(library, papers.id, DocumentStatus.DELETED)
    assert {d.id for d in trashed} == {papers.id, foundational.id, doc.id}


def test_blank_content_is_refused(library):
    with pytest.raises(InvalidInput):
        documents.add_text(library, "   ")


def test_a_fact_titled_by_its_text_follows_edits(library):
    fact = documents.add_text(library, "Deadline is June 15th")
    fact = documents.update_document(library, fact.id, content="Deadline moved to July 1st")
    assert fact.title == "Deadline moved to July 1st"
    fact = documents.update_document(library, fact.id, title="Deadline")
    fact = documents.update_document(library, fact.id, content="Deadline moved to July 8th")
    assert fact.title == "Deadline"


def test_editing_a_note_follows_its_inline_tags_and_keeps_tags_given_by_hand(library):
    note = documents.add_text(library, "# Plan\n\nStart with #alpha and #beta.", doc_type=DocumentType.NOTE,
                              tags=["by-hand"])
    assert sorted(note.tags) == ["alpha", "beta", "by-hand"]
    note = documents.tag_document(library, note.id, add=["also-by-hand"])
    edited = "# Plan\n\nStart with #alpha, then #gamma/one.\n\n```\n#not-a-tag\n```"
    note = documents.update_document(library, note.id, content=edited)
    assert sorted(note.tags) == ["alpha", "also-by-hand", "by-hand", "gamma/one"]  # beta edited out
    note = documents.update_document(library, note.id, content=edited + "\n\nMore.", remove_tags=["alpha"])
    assert "alpha" not in note.tags  # an explicit removal wins over the text
    assert documents.list_versions(library, note.id)[-1].tags == sorted(["alpha", "also-by-hand", "by-hand",
                                                                          "gamma/one"])


def test_a_note_titled_by_its_text_takes_its_setext_or_front_matter_title(library):
    note = documents.add_text(library, "Old title\n=========\n\nbody", doc_type=DocumentType.NOTE)
    assert note.title == "Old title"
    note = documents.update_document(library, note.id, content="---\ntitle: From properties\n---\nbody #t")
    assert note.title == "From properties" and note.tags == ["t"]
    note = documents.update_document(library, note.id, content="New title\n=========\n\nbody")
    assert note.title == "New title" and note.tags == []


def test_folder_names_are_unique_per_level(library):
    papers = folders.create_folder(library, "Papers")
    with pytest.raises(InvalidInput, match="already there"):
        folders.create_folder(library, "Papers")
    folders.create_folder(library, "Papers", parent_id=papers.id)  # another level: fine


def test_an_edit_checked_against_its_version_refuses_a_later_change_and_writes_nothing(library):
    note = documents.add_text(library, "Version one.", doc_type=DocumentType.NOTE, title="Plan")
    documents.update_document(library, note.id, content="Version two, by an agent.")
    with pytest.raises(EditConflict, match="changed since version 1") as refused:
        documents.update_document(library, note.id, content="My edit of version one.", expected_version=1)
    assert (refused.value.expected, refused.value.current) == (1, 2)
    now = documents.get_document(library, note.id)
    assert (now.content, now.version) == ("Version two, by an agent.", 2)
    # An edit that changes nothing is not a conflict; one made on the newest version is written.
    same = documents.update_document(library, note.id, content="Version two, by an agent.", expected_version=1)
    assert same.version == 2
    assert documents.rename_document(library, note.id, "Plan B", expected_version=2).document.version == 3
