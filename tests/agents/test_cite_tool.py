"""``memory_cite``: an agent cites what it may read, formatted or as BibTeX, with the library's stable keys."""

from __future__ import annotations

import pytest

from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import InvalidInput, ScopeNotVisible
from vancetope_desktop.ingest.bibtex import parse_bibtex
from vancetope_desktop.services import documents, scopes
from vancetope_desktop.services.bibliography import add_references

BIB = "@article{ruiz2019,\n  author = {Ruiz, Ana},\n  title = {Glacier melt},\n  journal = {The Cryosphere},\n" \
      "  year = {2019},\n}\n"


def test_an_agent_cites_readable_documents_with_their_keys(library):
    scopes.create_scope(library, "session", "s1", parent="project/inbox")
    scopes.create_scope(library, "think-process", "tp_12", parent="session/s1")
    scopes.create_scope(library, "project", "other", parent="group/default")
    ref_id = add_references(library, BIB, scope="project/inbox").entries[0].document_id
    hidden = documents.add_text(library, "Elsewhere.", doc_type=DocumentType.NOTE, scope="project/other")
    tools = MemoryTools(library, "think-process/tp_12")

    apa = tools.call("memory_cite", {"doc_ids": [ref_id]})
    assert apa.format == "apa" and apa.text == "Ruiz, A. (2019). Glacier melt. The Cryosphere."
    assert apa.keys == {ref_id: "ruiz2019"}
    bibtex = tools.memory_cite([ref_id], format="bibtex")
    assert [e.key for e in parse_bibtex(bibtex.text).entries] == ["ruiz2019"]

    with pytest.raises(ScopeNotVisible):
        tools.memory_cite([hidden.id])
    with pytest.raises(InvalidInput, match="format"):
        tools.call("memory_cite", {"doc_ids": [ref_id], "format": "mla"})
    with pytest.raises(InvalidInput):
        tools.call("memory_cite", {"doc_ids": []})
