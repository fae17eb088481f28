"""The atom extraction tools (issue 13): memory_store reads a note's atoms and lists them; atoms_extract reads one's
own documents (a document of an ancestor is skipped with the write rule's words, a second run adds nothing);
atoms_files_setting tells and sets the scope's setting; the MCP server runs the same calls."""

import pytest

from vancetope_desktop.agents.mcp_server import ScopedMemory
from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import InvalidInput
from vancetope_desktop.services import atom_extraction, atoms, documents, scopes

TP = "think-process/tp_1"
NOTE = "## Site\n\nHerons nest in alder carr.\n\n## Plan\n\nWe will submit the survey report by 15 December 2026."


@pytest.fixture
def agent(library):
    scopes.create_scope(library, "session", "s1", parent="project/inbox")
    scopes.create_scope(library, "think-process", "tp_1", parent="session/s1")
    return MemoryTools(library, TP)


def test_stored_notes_get_atoms_and_atoms_extract_reads_ones_own(agent, library):
    stored = agent.memory_store(NOTE)
    assert len(stored.atoms) == 2 and {a.source_id for a in agent.atoms_list().atoms} == {stored.doc_id}
    theirs = documents.add_text(library, "Egrets roost in the willows. Herons nest in the alder carr.",
                                doc_type=DocumentType.NOTE,
                                scope="project/inbox")
    report = agent.atoms_extract([stored.doc_id, theirs.id])
    assert [o.status for o in report.outcomes] == ["extracted", "skipped"]
    assert report.outcomes[0].added == [] and report.outcomes[0].known == 2
    assert "cannot store atoms read from" in report.outcomes[1].reason
    assert atoms.atoms_of_source(library, theirs.id) == []
    mcp = ScopedMemory(library, TP)
    assert mcp.call("atoms_extract", {"ids": [stored.doc_id]}).added == []
    with pytest.raises(InvalidInput):
        mcp.call("atoms_extract", {"ids": []})


def test_the_files_setting_through_the_tools(agent, library):
    atom_extraction.set_files_setting(library, "project/inbox", True)
    shown = agent.atoms_files_setting()
    assert (shown.enabled, shown.own, shown.set_in) == (True, None, "project/inbox")
    assert ScopedMemory(library, TP).call("atoms_files_setting", {"enabled": False}).enabled is False
    assert agent.atoms_files_setting(inherit=True).enabled is True
    with pytest.raises(InvalidInput):
        agent.atoms_files_setting(enabled=True, inherit=True)
