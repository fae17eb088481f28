"""The agents' face of annotations: ``memory_annotations`` reads a paper's highlights and notes."""

from __future__ import annotations

import pytest

from tests.services.test_annotations import PAGE_ONE, PAGE_TWO, make_pdf
from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.core.errors import InvalidInput
from vancetope_desktop.ingest.registry import extract_file
from vancetope_desktop.services import annotations, documents, imports


def test_an_agent_reads_a_papers_annotations_in_reading_order(library, tmp_path):
    path = make_pdf(tmp_path / "paper.pdf", [PAGE_ONE, PAGE_TWO])
    doc = documents.get_document(library, imports.upload(library, [path], extractor=extract_file)
                                 .outcomes[0].document_id)
    annotations.highlight_text(library, doc.id, "loss scale dynamic", comment="why dynamic?")
    annotations.add_note(library, doc.id, page=1, comment="baseline section")
    tools = MemoryTools(library, doc.scope)
    result = tools.call("memory_annotations", {"doc_id": doc.id})
    assert result.doc_id == doc.id
    assert [(a.page, a.kind, a.quote, a.comment) for a in result.annotations] == [
        (1, "note", "", "baseline section"), (2, "highlight", "loss scale dynamic", "why dynamic?")]
    note = documents.add_text(library, "a plain note", scope=doc.scope)
    with pytest.raises(InvalidInput, match="not a PDF"):
        tools.memory_annotations(note.id)
