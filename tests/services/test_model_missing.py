"""A library whose embedding model cannot run here (a wheel installed without the model's package): documents are
stored and found by their words, every face says what is missing, and the model's return indexes what waited.

"Missing" is a model path that does not resolve, set in the library's settings; nothing is uninstalled.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import select

from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import EmbeddingModelMissing
from vancetope_desktop.core.settings import Settings
from vancetope_desktop.services import documents, folders, imports, indexing, memory_guard, records
from vancetope_desktop.services.library import Library, save_settings
from vancetope_desktop.services.search import search
from vancetope_desktop.store import tables
from vancetope_desktop.store.db import read_session

PAPER = "papers/black-hole-singularities-collision-arxiv1805.05865.pdf"
NOTE = "notes/category-theory-overview.md"


def _chunks(lib: Library, document_id: str) -> list[tuple[str, int]]:
    with read_session(lib.engine) as session:
        rows = session.exec(select(tables.ChunkRow).where(tables.ChunkRow.document_id == document_id)
                            .order_by(tables.ChunkRow.ordinal)).all()  # type: ignore[arg-type]
    return [(r.text, r.token_count) for r in rows]


@pytest.mark.slow
@pytest.mark.corpus
def test_stored_without_the_model_found_by_words_then_indexed_when_it_is_back(tmp_path: Path, corpus: Path) -> None:
    root = tmp_path / "library"
    note_text = (corpus / NOTE).read_text(encoding="utf-8")
    with Library.open(root, settings=Settings(embedding_model=str(tmp_path / "gone"))) as lib:
        problem = lib.model_problem()
        assert problem is not None and "does not exist" in problem and "settings set embedding_model" in problem
        note = documents.add_text(lib, note_text, doc_type=DocumentType.NOTE, title="Category theory")
        paper = imports.upload(lib, [corpus / PAPER]).outcomes[0]
        assert paper.status == "imported" and paper.document_id is not None
        folders.create_folder(lib, "Reading")
        # The duplicate guard still knows an identical text without the model.
        kept = memory_guard.remember(lib, note_text, scope="project/inbox", title="Category theory again")
        assert not kept.stored and kept.document.id == note.id
        assert {count for _, count in _chunks(lib, note.id)} == {records.UNFITTED}

        found = search(lib, "functors between categories")
        assert note.id in [h.document.id for h in found.hits] and not found.vector_search
        assert any(problem in w for w in found.warnings)

        # An agent's store (the MCP server indexes its writes at once) is stored, not an error to retry.
        agent = MemoryTools(lib, "project/inbox", index_now=True).memory_store("Herons nest in colonies.")
        assert agent.stored and agent.doc_id
        agent_found = MemoryTools(lib, "project/inbox").memory_query("heron colonies")
        assert agent.doc_id in [h.doc_id for h in agent_found.hits] and agent_found.warnings

        status = indexing.index_status(lib)
        assert status.model_problem == problem
        assert status.states == {"pending": 3}  # the folder holds no text: not counted
        with pytest.raises(EmbeddingModelMissing):
            indexing.try_drain(lib)
        assert indexing.index_status(lib).queued_jobs == 3

    save_settings(root / "settings.json", Settings())  # the model is back (here: the bundled one)
    with Library.open(root) as lib:
        assert lib.model_problem() is None and indexing.index_status(lib).model_problem is None
        report = indexing.try_drain(lib)
        assert report is not None and sorted(report.indexed) == sorted([note.id, paper.document_id, agent.doc_id])
        assert indexing.index_status(lib).states == {"indexed": 3}
        fitted = _chunks(lib, note.id)
        assert search(lib, "functors between categories").vector_search
    # The chunks fitted at indexing are those an install with the model makes at once.
    with Library.open(tmp_path / "with-model") as lib:
        assert _chunks(lib, documents.add_text(lib, note_text, doc_type=DocumentType.NOTE).id) == fitted
    assert all(0 < count <= 254 for _, count in fitted) and len(fitted) > 1
