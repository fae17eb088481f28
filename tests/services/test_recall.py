"""Recall: the memories of one namespace only, ranked by the product's hybrid search (issue 12, seed 001)."""

import pytest

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.errors import EmptyQuery, ScopeNotFound, ScopeNotVisible, UnknownMemoryType
from vancetope_desktop.core.memories import MemoryType
from vancetope_desktop.services import documents, scopes
from vancetope_desktop.services.memories import recall


@pytest.fixture
def namespaces(library):
    """group/global > project/foo and project/bar, each with memories about deploys."""
    scopes.create_scope(library, "group", "global")
    scopes.create_scope(library, "project", "foo", parent="group/global")
    scopes.create_scope(library, "project", "bar", parent="group/global")

    def remember(text, scope, memory_type):
        return documents.add_text(library, text, doc_type=DocumentType.NOTE, scope=scope, memory_type=memory_type).id

    return library, {
        "global": remember("Deploys go out on Tuesdays, never on Fridays", "group/global", "feedback"),
        "foo": remember("Foo deploys with a blue-green switch", "project/foo", "project"),
        "foo_ref": remember("Foo's deploy runbook is in the ops wiki", "project/foo", "reference"),
        "bar": remember("Bar deploys by hand", "project/bar", "project"),
    }


def test_a_namespace_returns_its_own_memories_only(namespaces):
    lib, ids = namespaces
    found = recall(lib, "deploys", "group/global")
    assert [m.id for m in found.memories] == [ids["global"]]  # not project/foo's, though global is their ancestor
    memory = found.memories[0]
    assert (memory.namespace, memory.memory_type, memory.content) == (
        "group/global", MemoryType.FEEDBACK, "Deploys go out on Tuesdays, never on Fridays")
    assert 0 < memory.score <= 1
    from_foo = recall(lib, "deploys", "project/foo", acting="project/foo")
    assert {m.id for m in from_foo.memories} == {ids["foo"], ids["foo_ref"]}
    assert [m.id for m in recall(lib, "deploys", "group/global", acting="project/foo").memories] == [ids["global"]]


def test_memory_types_filter_and_archived_memories_come_back_only_when_asked(namespaces):
    lib, ids = namespaces
    assert [m.id for m in recall(lib, "deploy", "project/foo", memory_types=["reference"]).memories] == [ids["foo_ref"]]
    documents.set_status(lib, ids["foo"], DocumentStatus.ARCHIVED)
    assert [m.id for m in recall(lib, "deploy", "project/foo").memories] == [ids["foo_ref"]]
    kept = recall(lib, "blue-green deploys", "project/foo", include_archived=True).memories
    assert kept[0].id == ids["foo"] and kept[0].status is DocumentStatus.ARCHIVED


def test_bad_recalls_are_typed_errors(namespaces):
    lib, _ = namespaces
    with pytest.raises(EmptyQuery):
        recall(lib, "  ", "project/foo")
    with pytest.raises(ScopeNotFound):
        recall(lib, "deploys", "project/nope")
    with pytest.raises(ScopeNotVisible, match="project/foo cannot recall project/bar"):
        recall(lib, "deploys", "project/bar", acting="project/foo")  # a sibling
    with pytest.raises(ScopeNotVisible):
        recall(lib, "deploys", "project/foo", acting="group/global")  # a descendant
    with pytest.raises(UnknownMemoryType):
        recall(lib, "deploys", "project/foo", memory_types=["lesson"])
