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


EARLY_CUTS = (0.05, 0.3)
"""Cut before the page tree or the first pages' objects: every paper of the corpus is cut here (the cheap cuts:
mostly damaged files, refused before any page is read)."""
LATE_CUTS = (0.6, 0.9, 0.999)
"""Cut after most pages: MuPDF repairs the file and reads what is left, as slow as reading the whole paper."""
ONE_OF_EACH_KIND = (
    "apparent-average-accelerations-universe-jcap2008.pdf",  # Acrobat Distiller (Mac), linearised
    "black-hole-singularities-collision-arxiv1805.05865.pdf",  # macOS Quartz, PDF 1.3
    "energy-efficient-routing-zone-mobile-sensor-networks.pdf",  # doPDF from Word, PDF 1.6
    "explanations-molecular-prediction-models-perspective.pdf",  # pdfTeX, linearised, xref and object streams
    "iron-deficiency-anaemia-helicobacter-pylori-meta-analysis.pdf",  # Acrobat Distiller (Windows), Elsevier
    "phytochemical-investigations-phoenix-paludosa.pdf",  # PScript5 + Distiller 6, linearised
    "s2orc-open-research-corpus-acl2020.pdf",  # pdfTeX, classic xref table
    "size-distribution-near-earth-objects-arxiv1707.04066.pdf",  # dvips + Ghostscript
    "vespa-evolutionary-selective-pressure-peerj.pdf",  # pdfTeX, xref stream, not linearised
)
"""The papers also cut late: one per way of writing a PDF in the corpus (producer, xref table or stream, object
streams, linearisation), which decides how a cut file breaks and how MuPDF repairs it."""


@pytest.mark.slow
def test_every_cut_of_every_paper_gives_an_extraction_or_an_import_error(corpus: Path, tmp_path: Path) -> None:
    """Every paper cut early, one paper of each kind (:data:`ONE_OF_EACH_KIND`) cut late too, and the fuzzed file.

    The claim is a mechanism (a file cut short is repaired or refused with a typed error, never a crash), not one
    about each paper's content: the late cuts of the other papers, each as costly as reading the whole paper, repeated
    the kinds above (all late cuts were 20 of this test's 21 CPU s; the technology-acceptance review's cipher font
    alone 10 s). Every whole paper is read by ``paper_extractions`` (tests/ingest/test_pdf.py, test_roles.py).
    """
    papers = sorted((corpus / "papers").glob("*.pdf"))
    assert set(ONE_OF_EACH_KIND) <= {p.name for p in papers}
    outcomes: dict[str, int] = {}
    cuts = 0
    for paper in [*papers, corpus / "pdf-edge/unopenable-fuzzed.pdf"]:
        late = LATE_CUTS if paper.name in ONE_OF_EACH_KIND or paper.parent.name == "pdf-edge" else ()
        for copy in cut_copies(paper, tmp_path / paper.stem, fractions=(*EARLY_CUTS, *late)):
            cuts += 1
            try:
                extraction = extract_file(copy)
            except ImportFailed as error:
                outcomes[type(error).__name__] = outcomes.get(type(error).__name__, 0) + 1
            else:
                outcomes["extracted"] = outcomes.get("extracted", 0) + 1
                assert extraction.metadata["page_count"] >= 1
    assert cuts == (len(papers) + 1) * len(EARLY_CUTS) + (len(ONE_OF_EACH_KIND) + 1) * len(LATE_CUTS)
    assert sum(outcomes.values()) == cuts
    assert outcomes["extracted"] and outcomes["DamagedFile"]
