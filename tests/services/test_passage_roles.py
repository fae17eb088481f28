"""A word found only in a paper's reference list still finds the paper, and every face says where it matched."""

from __future__ import annotations

from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.core.documents import ChunkRole
from vancetope_desktop.services import documents, imports, search


def test_a_match_in_the_references_is_reported_as_such(library, corpus):
    paper = corpus / "papers" / "stressful-life-events-dementia-psychogeriatrics.pdf"
    doc_id = imports.upload(library, [paper]).outcomes[0].document_id
    roles = {c.role for c in documents.list_chunks(library, doc_id)}
    assert {ChunkRole.BODY, ChunkRole.REFERENCES, ChunkRole.AUTHORS, ChunkRole.ACKNOWLEDGEMENTS} <= roles

    # "Baumeister" appears only in the reference list: keyword search finds it (no vectors needed).
    hit = search.search(library, "Baumeister").hits[0]
    assert hit.document.id == doc_id
    assert hit.passages[0].role is ChunkRole.REFERENCES and hit.passages[0].page == 7
    assert search.search(library, "Baumeister").model_dump(mode="json")["hits"][0]["passages"][0]["role"] == (
        "references")  # what `memory search --json` prints
    (tool_hit,) = MemoryTools(library, hit.document.scope).memory_query("Baumeister").hits
    assert tool_hit.role == "references"
    body = search.search(library, "stressful life events dementia").hits[0]
    assert body.passages[0].role is ChunkRole.BODY
