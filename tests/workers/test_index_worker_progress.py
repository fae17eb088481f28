"""The indexing process's progress counts what is queued now, so a drain never shows "105/105" while more waits."""

from __future__ import annotations

import json

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.index.writer import DrainProgress
from vancetope_desktop.services import documents
from vancetope_desktop.workers import index_worker


def test_progress_totals_include_work_queued_during_the_drain(library, capsys):
    documents.add_text(library, "First note.", doc_type=DocumentType.NOTE, title="one")
    report = index_worker._reporter(library)
    # The drain began with one document (totals 1/1) and embedded it; two more were queued meanwhile.
    documents.add_text(library, "Second note.", doc_type=DocumentType.NOTE, title="two")
    documents.add_text(library, "Third note.", doc_type=DocumentType.NOTE, title="three")
    report(DrainProgress(documents_done=1, documents_total=1, chunks_done=1, chunks_total=1, current="one"))
    line = json.loads(capsys.readouterr().out)
    # The first note's job is still queued here (nothing drained in this test), hence 3 waiting.
    assert line["documents_total"] == 1 + 3 and line["total"] == 1 + 3
