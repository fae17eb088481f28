"""The app's import hands each stored file's documents over as it commits (``Workbench.file_stored``), which
wakes the indexing process at once, so it embeds a file while the next one is extracted instead of finding
the work at its next poll (issue 16: keep both cores busy). Real papers, the real extraction worker."""

from __future__ import annotations

import pytest

from vancetope_desktop.core.documents import IndexState
from vancetope_desktop.services import documents


@pytest.mark.slow  # imports three papers (10-20 s)
def test_each_stored_file_is_announced_to_the_indexer_as_it_commits(qtbot, library, make_window, corpus):
    window = make_window(library)
    wb = window.workbench
    papers = sorted((corpus / "papers").glob("*.pdf"), key=lambda p: p.stat().st_size)[:3]
    announced: list[tuple[list[str], int]] = []  # each file's ids, with the files the import had done then
    importing = None
    wb.file_stored.connect(lambda ids: announced.append((ids, importing.done if importing is not None else 0)))
    finished: list[list[str]] = []
    wb.documents_imported.connect(finished.append)

    importing = wb.import_paths(papers)

    qtbot.waitUntil(lambda: bool(finished), timeout=120_000)
    assert [ids for ids, _ in announced] == [[i] for i in finished[0]]  # one hand-over per file, in order
    assert announced[0][1] < len(papers)  # the first came while the import still ran
    states = {documents.get_document(library, i).index_state for i in finished[0]}
    assert states == {IndexState.PENDING}  # no indexing process in this window: the jobs wait queued
