"""Agent memories: the memory type on a note, validated with a typed error naming the allowed values."""

import pytest

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import InvalidInput, UnknownMemoryType
from vancetope_desktop.core.memories import MemoryType, parse_memory_types
from vancetope_desktop.services import documents


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
