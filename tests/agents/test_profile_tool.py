"""A source's profile in the tools (issue 13): memory_store profiles a note, memory_read shows it with its suggested
topics, memory_profile makes the missing ones of the agent's own sources, over MCP alike."""

import pytest

from vancetope_desktop.agents.mcp_server import ScopedMemory
from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import AccessDenied, InvalidInput
from vancetope_desktop.core.profiles import PROFILE_KEY
from vancetope_desktop.services import documents, scopes
from vancetope_desktop.store import tables
from vancetope_desktop.store.db import write_session

TP = "think-process/tp_1"
NOTE = ("Heron survey. We counted herons at the reserve on three mornings. The heron survey found 14 grey herons "
        "and two egrets; the heron survey repeats in spring.")


def test_profiles_through_the_tools(library):
    scopes.create_scope(library, "session", "s1", parent="project/inbox")
    scopes.create_scope(library, "think-process", "tp_1", parent="session/s1")
    agent = MemoryTools(library, TP)
    stored = agent.memory_store(NOTE, title="Heron survey", on_duplicate="store")
    read = agent.memory_read(stored.doc_id)
    assert read.profile is not None and read.profile.current and "heron-survey" in read.profile.suggested_topics
    assert "heron survey found 14 grey herons" in read.profile.summary and PROFILE_KEY not in read.metadata
    agent.memory_tag(stored.doc_id, tags=["heron-survey"])
    assert "heron-survey" not in agent.memory_read(stored.doc_id).profile.suggested_topics  # a tag now

    with write_session(library.engine) as session:  # as a note stored before profiles existed
        row = session.get(tables.DocumentRow, stored.doc_id)
        row.meta = {k: v for k, v in row.meta.items() if k != PROFILE_KEY}
        session.add(row)
    assert agent.memory_read(stored.doc_id).profile is None
    made = ScopedMemory(library, TP).call("memory_profile", {"missing": True})
    assert [o.status for o in made.outcomes] == ["made"] and made.summary == "1 profile made"
    assert agent.memory_read(stored.doc_id).profile.from_version == 2  # the tag made version 2

    project_note = documents.add_text(library, NOTE, doc_type=DocumentType.NOTE, scope="project/inbox")
    with pytest.raises(AccessDenied):  # a profile is stored on the document: only the agent's own
        agent.memory_profile(doc_ids=[project_note.id])
    with pytest.raises(InvalidInput, match="not both"):
        agent.memory_profile()
