"""Running headers, footers, margin stamps and page numbers are left out of PDF chunks; body text is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from vancetope_desktop.ingest.base import Extraction
from vancetope_desktop.ingest.furniture import Block, find_furniture, signature
from vancetope_desktop.ingest.pdf import extract_pdf


def _header(text: str, y: float = 0.05) -> Block:
    return Block(text, 0.1, y, 0.9, y + 0.015)


def _body(text: str, y: float = 0.4) -> Block:
    return Block(text, 0.1, y, 0.9, y + 0.3)


def test_signature_ignores_page_numbers_case_and_spacing() -> None:
    assert signature("Journal of  Statistical\nSoftware 13") == signature("journal of statistical software 2")
    assert signature("xiv") == signature("7") == "#"
    assert signature("Page 3 of 10") == "page # of #"


def test_repeated_margin_lines_are_furniture() -> None:
    pages = [
        [_header(f"{n} Trilling et al." if n % 2 == 0 else f"Size distribution of NEOs {n}"),
         _body(f"Body text of page {n}."), Block(str(n), 0.48, 0.95, 0.52, 0.96)]
        for n in range(1, 9)
    ]
    found = find_furniture(pages)
    # Alternating even/odd headers (4 pages each) and the page number go; the body stays.
    assert found == [{0, 2}] * 8


def test_body_text_and_short_documents_are_left_alone() -> None:
    # The same answer repeated mid-page (a datasheet's "None.") is body text.
    datasheet = [[_body("None.", y=0.5), _body(f"Question {n}?", y=0.2)] for n in range(6)]
    assert find_furniture(datasheet) == [set()] * 6
    # Two pages are not enough to tell a running header from a coincidence.
    assert find_furniture([[_header("Draft")], [_header("Draft")]]) == [set(), set()]
    # Same text, but at different places on each page: not a running header.
    moving = [[_header("Results", y=0.02 + 0.03 * n)] for n in range(4)]
    assert find_furniture(moving) == [set()] * 4
    # A tall block touching the bottom band (a rotated table header) is not a footer.
    tables = [[Block("Model Tree Model", 0.1, 0.86, 0.2, 1.16)] for _ in range(4)]
    assert find_furniture(tables) == [set()] * 4
    # Long blocks are paragraphs even in a margin.
    long = " ".join(["word"] * 40)
    assert find_furniture([[_header(long)] for _ in range(4)]) == [set()] * 4


def test_vertical_margin_stamp_is_furniture() -> None:
    stamp = Block("JCAP10(2008)003", 0.888, 0.32, 0.931, 0.59)
    pages = [[stamp, _body(f"page {n}")] for n in range(5)]
    assert find_furniture(pages) == [{0}] * 5


@pytest.mark.corpus
@pytest.mark.parametrize(
    ("name", "furniture", "kept"),
    [
        # JCAP: vertical stamp, running title and journal footer on every page.
        ("apparent-average-accelerations-universe-jcap2008.pdf", ["JCAP10(2008)003", "stacks.iop.org"],
         "volume deceleration parameter"),
        ("healthcare-quality-improvement-barriers-bmc.pdf", ["Page 3 of 10", "Agyeman-Duah et al. BMC"],
         "Human resource shortages"),
        ("timp-r-package-spectroscopy-jss2007.pdf", ["TIMP: Modeling Multi-way Spectroscopic Measurements in R"],
         "partitioned variable projection"),
        ("vespa-evolutionary-selective-pressure-peerj.pdf", ["PeerJ Comput. Sci., DOI"], "codeML"),
        # AASTeX: alternating even/odd running heads.
        ("size-distribution-near-earth-objects-arxiv1707.04066.pdf", ["DECam: Size distribution of NEOs"],
         "Dark Energy Camera"),
    ],
)
def test_running_headers_leave_the_chunks(corpus: Path, name: str, furniture: list[str], kept: str) -> None:
    extraction = extract_pdf(corpus / "papers" / name)
    # Page 1 has its own masthead (kept: it is printed once); every later page repeats the furniture.
    later = [c.text for c in extraction.chunks if c.page and c.page > 1]
    assert later
    for text in furniture:
        assert not any(text in chunk for chunk in later), text
    assert kept in extraction.text
    # Facts read from the first pages still see the furniture (journal footers carry DOIs).
    if name.startswith("apparent"):
        assert extraction.metadata["doi"] == "10.1088/1475-7516/2008/10/003"


@pytest.mark.corpus
def test_page_numbers_leave_the_chunks(corpus: Path, long_book: Extraction) -> None:
    extraction = extract_pdf(corpus / "papers/s2orc-open-research-corpus-acl2020.pdf")
    # Every page of the ACL paper ends with its bare number; chunks no longer end with one.
    endings = [c.text.rsplit(maxsplit=1)[-1] for c in extraction.chunks]
    assert not any(e.isdigit() and 1 <= int(e) <= 15 for e in endings), endings
    assert not any("free-culture.org/get-it" in c.text for c in long_book.chunks)
    assert "FREE CULTURE" in long_book.text  # the title page and the text itself keep the words
