"""The tool API's faces of note links and reading status: memory_links and memory_set_reading_status."""

import pytest

from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import AccessDenied
from vancetope_desktop.services import documents, scopes
from vancetope_desktop.services.library import DEFAULT_PROJECT

TP = "think-process/tp_1"


@pytest.fixture
def tools(library):
    scopes.create_scope(library, "session", "s_1", parent=DEFAULT_PROJECT)
    scopes.create_scope(library, "think-process", "tp_1", parent="session/s_1")
    return MemoryTools(library, TP)


def test_an_agent_follows_links_and_sees_backlinks(library, tools):
    plan = documents.add_text(library, "The project's plan.", doc_type=DocumentType.NOTE, title="Project plan")
    mine = tools.memory_store("Following [[project plan|the plan]] and [[Ghost]].", title="My notes")
    tools.memory_store("The project plan says June.", title="Other notes", type="fact")
    out = tools.call("memory_links", {"doc_id": mine.doc_id})
    assert [(link.state, link.doc_id, link.shown) for link in out.links] == [
        ("resolved", plan.id, "the plan"), ("missing", None, "Ghost")]
    back = tools.memory_links(plan.id)
    assert [m.doc_id for m in back.linked_mentions] == [mine.doc_id]
    assert [m.title for m in back.unlinked_mentions] == ["Other notes"]


def test_an_agent_marks_its_own_documents_read_but_not_its_ancestors(library, tools):
    paper = documents.add_text(library, "Lee A. Bees. 2020.", doc_type=DocumentType.REFERENCE)
    own = tools.memory_store("Lee A. Bees. 2020.", type="reference", title="Lee 2020")
    assert tools.memory_read(own.doc_id).reading_status == "unread"
    marked = tools.call("memory_set_reading_status", {"doc_ids": [own.doc_id], "status": "read"})
    assert [d.reading_status for d in marked.documents] == ["read"]
    with pytest.raises(AccessDenied):
        tools.memory_set_reading_status([paper.id], "read")
