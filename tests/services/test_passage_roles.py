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

    # "Bratslavsky" (a co-author of Baumeister et al., 2001) appears only in the reference list: keyword
    # search finds it (no vectors needed). "Baumeister" itself is also cited in the body, whose passage is shown
    # first because reference lists weigh less.
    hit = search.search(library, "Bratslavsky").hits[0]
    assert hit.document.id == doc_id
    assert hit.passages[0].role is ChunkRole.REFERENCES and hit.passages[0].page == 7
    assert search.search(library, "Bratslavsky").model_dump(mode="json")["hits"][0]["passages"][0]["role"] == (
        "references")  # what `memory search --json` prints
    (tool_hit,) = MemoryTools(library, hit.document.scope).memory_query("Bratslavsky").hits
    assert tool_hit.role == "references"
    assert search.search(library, "Baumeister").hits[0].passages[0].role is ChunkRole.BODY
    body = search.search(library, "stressful life events dementia").hits[0]
    assert body.passages[0].role is ChunkRole.BODY
