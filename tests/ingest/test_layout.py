"""Reading order of two-column pages and paragraphs that run on across columns and pages."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from vancetope_desktop.ingest.base import ChunkDraft
from vancetope_desktop.ingest.pdf import extract_pdf

TITLE = "Wind Speed Over Alpine Lakes"
LEFT = (
    "Lake breezes have been studied for a century, yet the small lakes of high valleys are rarely measured. "
    "Our station stood on the northern shore of a lake at two thousand metres, and it recorded wind speed, "
    "direction and temperature every ten seconds during two summers. The instruments were cleaned every "
    "week and compared against a reference anemometer at the end of each season. Most of the measurements "
    "were taken at"
)
RIGHT = (
    "dawn when the air was still, because the breeze that starts after sunrise is the signal we wanted to "
    "isolate. On calm mornings the speed rose from nothing to four metres per second within forty minutes, "
    "and the direction turned from the valley axis to the lake axis. On cloudy mornings the onset was "
    "delayed by up to two hours, which agrees with the heating of the slopes being its cause."
)
CAPTION = "Figure 1. Mean wind speed after sunrise on calm and cloudy mornings, both summers together."
SENTENCE = "Most of the measurements were taken at dawn when the air was still"


def paragraphs(chunks: list[ChunkDraft]) -> list[str]:
    """Every paragraph of the chunks (chunks join paragraphs with a blank line), whitespace collapsed."""
    return [" ".join(p.split()) for c in chunks for p in c.text.split("\n\n")]


def _two_column_pdf(path: Path, *, right_first: bool) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()  # A4 portrait, 595 x 842 pt
    page.insert_textbox(pymupdf.Rect(60, 50, 535, 90), TITLE, fontsize=18, align=pymupdf.TEXT_ALIGN_CENTER)
    boxes = [(pymupdf.Rect(60, 110, 290, 560), LEFT), (pymupdf.Rect(305, 110, 535, 560), RIGHT)]
    for rect, text in reversed(boxes) if right_first else boxes:
        assert page.insert_textbox(rect, text, fontsize=10) >= 0, "the text must fit its column"
    page.insert_textbox(pymupdf.Rect(60, 600, 535, 640), CAPTION, fontsize=9)
    doc.save(path)
    doc.close()
    return path


@pytest.mark.parametrize("right_first", [False, True])
def test_two_columns_read_in_order_and_joined(tmp_path: Path, right_first: bool) -> None:
    extraction = extract_pdf(_two_column_pdf(tmp_path / "columns.pdf", right_first=right_first))
    text = " ".join(extraction.text.split())
    # Title, left column, right column, then the full-width caption below them.
    positions = [text.index(part) for part in (TITLE, "Lake breezes", "isolate. On calm", "Figure 1.")]
    assert positions == sorted(positions), text
    # The sentence cut by the column break is one paragraph again.
    assert any(SENTENCE in p for p in paragraphs(extraction.chunks)), [c.text for c in extraction.chunks]


def test_paragraph_continued_on_the_next_page(tmp_path: Path) -> None:
    doc = pymupdf.open()
    doc.new_page().insert_textbox(pymupdf.Rect(60, 60, 535, 780), LEFT, fontsize=11)
    doc.new_page().insert_textbox(pymupdf.Rect(60, 60, 535, 780), RIGHT, fontsize=11)
    doc.save(tmp_path / "pages.pdf")
    doc.close()
    extraction = extract_pdf(tmp_path / "pages.pdf")
    whole = [c for c in extraction.chunks if any(SENTENCE in p for p in paragraphs([c]))]
    assert len(whole) == 1 and whole[0].page == 1  # the paragraph stays on the page where it starts
    # A paragraph that ends its sentence is not joined to the next page's first one.
    doc = pymupdf.open()
    doc.new_page().insert_textbox(pymupdf.Rect(60, 60, 535, 780), LEFT + " dawn.", fontsize=11)
    doc.new_page().insert_textbox(pymupdf.Rect(60, 60, 535, 780), RIGHT, fontsize=11)
    doc.save(tmp_path / "ended.pdf")
    doc.close()
    assert {c.page for c in extract_pdf(tmp_path / "ended.pdf").chunks} == {1, 2}


# Sentences that wrap from the bottom of the left column (or a page) to the top of the next column, in the
# corpus's two-column papers: on today's main each was cut between two paragraphs (often two chunks), or
# its halves were read in the wrong order.
COLUMN_BREAKS = {
    "trace-based-jit-type-specialization-pldi2009.pdf": [
        # Across the ACM copyright box at the bottom of the left column.
        "standard for client-side web programming and is used for the application logic",
        # Across two figures at the top of the right column.
        "we evaluate our dynamic compiler based on a set of industry benchmarks",
    ],
    "s2orc-open-research-corpus-acl2020.pdf": ["The resulting S2ORC pretraining corpus contains 16.4B tokens"],
    "energy-efficient-routing-zone-mobile-sensor-networks.pdf": [
        "Mobility brings many advance concepts to perception entirely shifting the paradigm",
    ],
    "isolated-nuclear-recoils-neutron-capture-arxiv2110.02751.pdf": [
        "between the average sample value in two consecutive windows",
        "that survive the cut. The cut efficiency is shown in Fig. 1",
    ],
}


@pytest.mark.corpus
@pytest.mark.parametrize("name", sorted(COLUMN_BREAKS))
def test_sentences_across_column_breaks_in_real_papers(corpus: Path, name: str) -> None:
    found = paragraphs(extract_pdf(corpus / "papers" / name).chunks)
    for sentence in COLUMN_BREAKS[name]:
        assert any(sentence in paragraph for paragraph in found), sentence
