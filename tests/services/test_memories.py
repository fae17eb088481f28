"""Agent memories: the memory type on a note, validated with a typed error naming the allowed values."""

import pytest

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import InvalidInput, UndoRefused, UnknownMemoryType
from vancetope_desktop.core.memories import MemoryType, parse_memory_types
from vancetope_desktop.core.undo import UserAction
from vancetope_desktop.services import audit, documents, episodes, memories, undo


def test_a_note_keeps_its_memory_type(library):
    doc = documents.add_text(library, "Alice prefers short answers", doc_type=DocumentType.NOTE, memory_type="User")
    assert doc.memory_type is MemoryType.USER
    assert doc.model_dump(mode="json")["memory_type"] == "user"
    assert documents.add_text(library, "A plain fact").memory_type is None


def test_an_unknown_memory_type_names_the_allowed_ones_and_stores_nothing(library):
    with pytest.raises(UnknownMemoryType, match="feedback, project, reference, user, episode"):
        documents.add_text(library, "x", doc_type=DocumentType.NOTE, memory_type="decision")
    with pytest.raises(InvalidInput, match="a memory is a note"):
        documents.add_text(library, "x", doc_type=DocumentType.FACT, memory_type="project")
    assert documents.list_documents(library, types=documents.CONTENT_TYPES) == []
    assert parse_memory_types(["user", "USER ", MemoryType.PROJECT]) == [MemoryType.USER, MemoryType.PROJECT]


def test_lists_counts_saved_searches_and_search_filter_by_memory_type(library):
    from vancetope_desktop.services import saved_searches
    from vancetope_desktop.services.search import search

    lesson = documents.add_text(library, "Deploy the heron schema first", doc_type=DocumentType.NOTE,
                                memory_type="feedback")
    decision = documents.add_text(library, "We store heron sightings in SQLite", doc_type=DocumentType.NOTE,
                                  memory_type=MemoryType.PROJECT)
    documents.add_text(library, "Herons nest in colonies")  # a plain fact
    assert [d.id for d in documents.list_documents(library, memory_types=["feedback"])] == [lesson.id]
    assert documents.count_documents(library, memory_types=[MemoryType.FEEDBACK, MemoryType.PROJECT]) == 2
    assert [h.document.id for h in search(library, "heron", memory_types=[MemoryType.PROJECT]).hits] == [decision.id]
    saved = saved_searches.save_search(library, saved_searches.SavedSearch(name="Lessons", memory_types=["feedback"]))
    assert [d.id for d in saved_searches.run_saved(library, saved.name)] == [lesson.id]
    with pytest.raises(UnknownMemoryType):
        documents.list_documents(library, memory_types=["lesson"])


def test_a_person_s_memory_type_change_is_undone_and_redone_and_an_undo_over_a_later_change_is_refused(library):
    note = documents.add_text(library, "Deploy on Fridays is forbidden", doc_type=DocumentType.NOTE, title="Fridays")
    me = audit.current_user()
    memories.set_memory_type(library, note.id, "feedback", user_action=UserAction(label="Type “Fridays”", actor=me))
    assert undo.history(library)[0][0].label == "Type “Fridays”"
    undo.undo(library)
    assert documents.get_document(library, note.id).memory_type is None
    undo.redo(library)
    assert documents.get_document(library, note.id).memory_type is MemoryType.FEEDBACK
    memories.set_memory_type(library, note.id, "project", actor="agent/tau")  # an agent's change: not undoable
    assert [s.label for s in undo.history(library)[0]] == ["Type “Fridays”"]
    with pytest.raises(UndoRefused, match="memory type changed to project"):
        undo.undo(library)
    assert documents.get_document(library, note.id).memory_type is MemoryType.PROJECT


def test_set_memory_type_changes_a_note_s_type_with_an_audit_entry_and_never_makes_or_unmakes_an_episode(library):
    note = documents.add_text(library, "Deploy on Fridays is forbidden", doc_type=DocumentType.NOTE)
    assert memories.set_memory_type(library, note.id, "FEEDBACK").memory_type is MemoryType.FEEDBACK
    assert audit.document_history(library, note.id)[-1].reason == "memory type none → feedback"
    assert memories.set_memory_type(library, note.id, None).memory_type is None
    with pytest.raises(InvalidInput, match="recorded with its fields"):
        memories.set_memory_type(library, note.id, "episode")
    stored = episodes.store_episode(library, "project/inbox", "c", "g", "a", "o", "i", "minor", "me")
    with pytest.raises(InvalidInput, match="it stays one"):
        memories.set_memory_type(library, stored.id, "user")
