"""PDFs cut short or fuzzed: every one gives an extraction or a typed import error, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hostile_pdfs import cut_copies
from vancetope_desktop.core.errors import DamagedFile, ImportFailed
from vancetope_desktop.ingest.registry import extract_file


def test_a_page_tree_mupdf_cannot_count_is_a_damaged_file(corpus: Path, tmp_path: Path) -> None:
    # Cut after its page tree, the fuzzed file's /Count 213804087 makes page_count raise
    # "RuntimeError: code=7: Invalid number of pages": the traceback that stopped a folder upload.
    for copy in cut_copies(corpus / "pdf-edge/unopenable-fuzzed.pdf", tmp_path, lengths=(124, 140, 238)):
        with pytest.raises(DamagedFile, match="pages cannot be counted"):
            extract_file(copy)


def test_a_paper_cut_short_is_damaged_not_empty(corpus: Path, tmp_path: Path) -> None:
    # MuPDF "repairs" a paper cut at 30 % into a PDF without pages: damaged (kept for a retry with
    # the whole file), not an empty PDF (refused).
    copy, = cut_copies(corpus / "papers/stressful-life-events-dementia-psychogeriatrics.pdf", tmp_path,
                       fractions=(0.3,))
    with pytest.raises(DamagedFile, match="cut short"):
        extract_file(copy)


@pytest.mark.slow
def test_every_cut_of_every_paper_gives_an_extraction_or_an_import_error(corpus: Path, tmp_path: Path) -> None:
    fractions = (0.05, 0.3, 0.6, 0.9, 0.999)
    papers = sorted((corpus / "papers").glob("*.pdf"))
    outcomes: dict[str, int] = {}
    for paper in [*papers, corpus / "pdf-edge/unopenable-fuzzed.pdf"]:
        for copy in cut_copies(paper, tmp_path / paper.stem, fractions=fractions):
            try:
                extraction = extract_file(copy)
            except ImportFailed as error:
                outcomes[type(error).__name__] = outcomes.get(type(error).__name__, 0) + 1
            else:
                outcomes["extracted"] = outcomes.get("extracted", 0) + 1
                assert extraction.metadata["page_count"] >= 1
    assert sum(outcomes.values()) == (len(papers) + 1) * len(fractions)
    assert outcomes["extracted"] and outcomes["DamagedFile"]
