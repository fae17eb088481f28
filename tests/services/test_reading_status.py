"""Reading status (unread / reading / read): kept in metadata, references start unread, opening marks a
file being read, a list filter and the "unread" smart view."""

import pytest

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import InvalidInput
from vancetope_desktop.core.reading import ReadingStatus, reading_status_of
from vancetope_desktop.services import documents, folders, reading

REF = "@article{lee2020,\n  title={Bees and mites},\n  author={Lee, Ann},\n  year={2020}\n}\n"


def _status(lib, doc_id):
    doc = documents.get_document(lib, doc_id)
    return reading_status_of(doc.type, doc.metadata)


def test_references_start_unread_notes_have_none_and_a_status_can_be_set(library):
    ref = documents.add_text(library, REF, doc_type=DocumentType.REFERENCE)
    note = documents.add_text(library, "My own note", doc_type=DocumentType.NOTE)
    assert _status(library, ref.id) is ReadingStatus.UNREAD and _status(library, note.id) is None
    done = reading.set_reading_status(library, [ref.id, note.id], ReadingStatus.READ)
    assert [d.id for d in done] == [ref.id, note.id]
    assert _status(library, ref.id) is ReadingStatus.READ and _status(library, note.id) is ReadingStatus.READ
    assert documents.list_versions(library, ref.id) == []  # not a content change: no version
    assert documents.get_document(library, ref.id).status.value == "active"  # the lifecycle status is another thing


def test_opening_marks_an_unread_reference_as_being_read_once(library):
    ref = documents.add_text(library, REF, doc_type=DocumentType.REFERENCE)
    assert reading.mark_opened(library, ref.id).id == ref.id
    assert _status(library, ref.id) is ReadingStatus.READING
    assert reading.mark_opened(library, ref.id) is None
    reading.set_reading_status(library, [ref.id], ReadingStatus.READ)
    assert reading.mark_opened(library, ref.id) is None and _status(library, ref.id) is ReadingStatus.READ


def test_lists_filter_by_reading_status_and_the_unread_view_counts_them(library):
    unread = documents.add_text(library, REF, doc_type=DocumentType.REFERENCE)
    read = documents.add_text(library, REF.replace("lee2020", "kim2021").replace("Bees", "Wasps"),
                              doc_type=DocumentType.REFERENCE)
    documents.add_text(library, "A note")
    reading.set_reading_status(library, [read.id], ReadingStatus.READ)
    listed = documents.list_documents(library, reading_statuses=[ReadingStatus.UNREAD])
    assert [d.id for d in listed] == [unread.id]
    assert {d.id for d in documents.list_documents(library, reading_statuses=[ReadingStatus.READ])} == {read.id}
    assert documents.smart_counts(library)["unread"] == 1


def test_a_folder_has_no_reading_status(library):
    folder = folders.create_folder(library, "Papers")
    with pytest.raises(InvalidInput, match="folder"):
        reading.set_reading_status(library, [folder.id], ReadingStatus.READ)


def test_restoring_a_version_keeps_the_reading_status(library):
    note = documents.add_text(library, "First text", doc_type=DocumentType.NOTE)
    reading.set_reading_status(library, [note.id], ReadingStatus.READING)
    documents.update_document(library, note.id, content="Second text")
    reading.set_reading_status(library, [note.id], ReadingStatus.READ)
    documents.restore_version(library, note.id, 1)
    restored = documents.get_document(library, note.id)
    assert restored.content == "First text" and _status(library, note.id) is ReadingStatus.READ
