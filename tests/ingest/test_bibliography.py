"""BibTeX, RIS and CSL-JSON files: one chunk per entry, LaTeX converted to Unicode."""

from __future__ import annotations

from pathlib import Path

import pytest

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.ingest.bibliography import is_csl_json, latex_to_unicode
from vancetope_desktop.ingest.registry import extract_file, extract_text

pytestmark = pytest.mark.corpus


@pytest.mark.parametrize(
    ("name", "low", "high"),
    [
        ("nanowire-physics-library-latex-accents.bib", 500, 506),
        ("ai-classic-paren-delimited.bib", 950, 1010),
        ("mendeley-export-social-science.bib", 500, 512),
        ("web-of-science-export.ris", 2, 2),
        ("better-csl-json-export.csl.json", 26, 26),
        ("gbk-encoded-chinese.bib", 1, 1),
    ],
)
def test_entry_counts(corpus: Path, name: str, low: int, high: int) -> None:
    extraction = extract_file(corpus / "refs" / name)
    assert extraction.doc_type is DocumentType.REFERENCE
    assert low <= extraction.metadata["entry_count"] <= high
    assert low <= len(extraction.chunks) <= high
    assert all(c.section and c.text.strip() for c in extraction.chunks)


def test_latex_accents_and_braces(corpus: Path) -> None:
    extraction = extract_file(corpus / "refs/nanowire-physics-library-latex-accents.bib")
    text = extraction.text
    # Protective braces ({{GaN}}) and commands are gone; escaped \{x\} in one title stays literal.
    assert "{{" not in text and "\\" not in text
    assert text.count("{") <= 5
    first = next(c for c in extraction.chunks if c.section == "Ajay_2017a")
    assert first.text.startswith("Intersubband Absorption in Si- and Ge-Doped GaN/AlN Heterostructures")
    assert "Akhil Ajay" in first.text and "2017" in first.text and "doi:10.1002/pssb.201600734" in first.text
    assert "Caractérisation" in text
    assert latex_to_unicode(r"M{\"u}ller and {\'E}mile") == "Müller and Émile"


def test_abstracts_and_odd_entry_types(corpus: Path) -> None:
    extraction = extract_file(corpus / "refs/mendeley-export-social-science.bib")
    black = next(c for c in extraction.chunks if c.section == "Black2020")
    assert "The purpose of this research" in black.text  # abstract follows the citation line
    assert extraction.metadata["entry_types"].get("web_page") == 25


def test_web_of_science_ris(corpus: Path) -> None:
    extraction = extract_file(corpus / "refs/web-of-science-export.ris")
    first = extraction.chunks[0]
    assert first.text.startswith("Interactions stabilizing the structure of the core light-harvesting complex")
    assert "PS Parkes-Loach" in first.text and "2004" in first.text and "BIOCHEMISTRY" in first.text


def test_csl_json(corpus: Path) -> None:
    extraction = extract_file(corpus / "refs/better-csl-json-export.csl.json")
    assert extraction.mime_type == "application/vnd.citationstyles.csl+json"
    assert extraction.metadata["entry_types"]["article-journal"] == 15
    assert any("Ian Brittain. 2004. Journal of Sport and Social Issues" in c.text for c in extraction.chunks)


def test_gbk_bibtex(corpus: Path) -> None:
    extraction = extract_file(corpus / "refs/gbk-encoded-chinese.bib")
    assert extraction.chunks[0].text == "Test Title. 凯撒. 2013. 测试期刊."
    assert any("GB18030" in w for w in extraction.warnings)


def test_reference_typed_as_text() -> None:
    bib = extract_text("@article{k1, title={A {\\'E}tude}, author={Doe, Jane}, year={2020}}", DocumentType.REFERENCE)
    assert bib.chunks[0].text == "A Étude. Jane Doe. 2020." and bib.chunks[0].section == "k1"
    free = extract_text("Doe J. (2020) A free-text citation. Journal X.", DocumentType.REFERENCE)
    assert len(free.chunks) == 1 and free.doc_type is DocumentType.REFERENCE
    assert not is_csl_json([{"type": "Feature", "geometry": {}}])
