"""PDF extraction on the real corpus: titles, pages, ligatures, and every awkward file in pdf-edge/."""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import DamagedFile, EmptyFile, EncryptedPdf
from vancetope_desktop.ingest.base import Extraction
from vancetope_desktop.ingest.pdf import extract_pdf, saslprep
from vancetope_desktop.ingest.pdfmeta import sane_title, split_authors, title_from_layout
from vancetope_desktop.ingest.quality import measure_text
from vancetope_desktop.ingest.registry import extract_file

pytestmark = pytest.mark.corpus

# file in papers/ → the real title (case-insensitive, whitespace-insensitive comparison).
KNOWN_TITLES = {
    "trace-based-jit-type-specialization-pldi2009.pdf": (
        "Trace-based Just-in-Time Type Specialization for Dynamic Languages"
    ),
    "s2orc-open-research-corpus-acl2020.pdf": "S2ORC: The Semantic Scholar Open Research Corpus",
    "multi-lexsum-civil-rights-summaries-arxiv2206.10883.pdf": (
        "Multi-LexSum: Real-World Summaries of Civil Rights Lawsuits at Multiple Granularities"
    ),
    "timp-r-package-spectroscopy-jss2007.pdf": "TIMP: An R Package for Modeling Multi-way Spectroscopic Measurements",
    "explanations-molecular-prediction-models-perspective.pdf": (
        "A Perspective on Explanations of Molecular Prediction Models"
    ),
    "apparent-average-accelerations-universe-jcap2008.pdf": "Apparent and average accelerations of the Universe",
    "size-distribution-near-earth-objects-arxiv1707.04066.pdf": (
        "The size distribution of Near Earth Objects larger than 10 meters"
    ),
    "healthcare-quality-improvement-barriers-bmc.pdf": (
        "Understanding the barriers to setting up a healthcare quality improvement process in "
        "resource-limited settings: a situational analysis at the Medical Department of Kamuzu Central "
        "Hospital in Lilongwe, Malawi"
    ),
    "vespa-evolutionary-selective-pressure-peerj.pdf": (
        "VESPA: Very large-scale Evolutionary and Selective Pressure Analyses"
    ),
    "iron-deficiency-anaemia-helicobacter-pylori-meta-analysis.pdf": (
        "Iron deficiency anaemia can be improved after eradication of Helicobacter pylori"
    ),
    "phytochemical-investigations-phoenix-paludosa.pdf": (
        "Phytochemical and Biological investigations of Phoenix paludosa Roxb."
    ),
    "stressful-life-events-dementia-psychogeriatrics.pdf": (
        "Stressful life events are not associated with the development of dementia"
    ),
    "sepsis-multi-output-gaussian-process-rnn-mlhc2017.pdf": (
        "An Improved Multi-Output Gaussian Process RNN with Real-Time Validation for Early Sepsis Detection"
    ),
    "energy-efficient-routing-zone-mobile-sensor-networks.pdf": (
        "Energy Efficient Routing Protocol for Zone Based Mobile Sensor Networks"
    ),
    "isolated-nuclear-recoils-neutron-capture-arxiv2110.02751.pdf": (
        "First observation of isolated nuclear recoils following neutron capture"
    ),
    "black-hole-singularities-collision-arxiv1805.05865.pdf": "Lets Talk About Black Hole Singularities",
    "technology-acceptance-model-review.pdf": (
        "Overview of the Technology Acceptance Model: Origins, Developments and Future Directions"
    ),
}


def _same(a: str | None, b: str) -> bool:
    def key(s: str) -> str:
        return " ".join(s.split()).casefold()

    return a is not None and key(a) == key(b)


@pytest.mark.slow
def test_titles_of_papers(paper_extractions: dict) -> None:
    results = {name: extraction.title for name, extraction in paper_extractions.items()}
    for name, title in results.items():
        print(f"{name:62} → {title}")
    assert len(results) == 18
    assert all(results.values()), "every paper gets some title"
    right = [name for name, expected in KNOWN_TITLES.items() if _same(results[name], expected)]
    assert len(right) >= 16, sorted(set(KNOWN_TITLES) - set(right))
    # The junk /Title metadata of these files must not leak through.
    assert not _same(results["healthcare-quality-improvement-barriers-bmc.pdf"], "6489122611071476 1..10")
    assert "Microsoft" not in (results["phytochemical-investigations-phoenix-paludosa.pdf"] or "")
    assert "docx" not in (results["black-hole-singularities-collision-arxiv1805.05865.pdf"] or "")
    # JSS prints its masthead in a larger font than the title.
    assert results["timp-r-package-spectroscopy-jss2007.pdf"] != "Journal of Statistical Software"


def test_titles_from_layout_alone(corpus: Path) -> None:
    # The first-page heuristic must work without help from /Title metadata.
    right = []
    for name, expected in KNOWN_TITLES.items():
        with pymupdf.open(corpus / "papers" / name) as doc:
            title, _ = title_from_layout(doc[0])
        if _same(title, expected):
            right.append(name)
    assert len(right) >= 16, sorted(set(KNOWN_TITLES) - set(right))


def test_metadata_of_papers(paper_extractions: dict) -> None:
    jcap = paper_extractions["apparent-average-accelerations-universe-jcap2008.pdf"]
    assert jcap.metadata["page_count"] == 15
    assert jcap.metadata["year"] == 2008
    assert jcap.metadata["doi"] == "10.1088/1475-7516/2008/10/003"
    assert jcap.metadata["authors"] == ["Krzysztof Bolejko", "Lars Andersson"]
    higgs = paper_extractions["higgs-boson-mass-atlas-cms-arxiv1503.07589.pdf"]
    assert higgs.metadata["year"] == 2015 and higgs.metadata["page_count"] == 47
    iron = paper_extractions["iron-deficiency-anaemia-helicobacter-pylori-meta-analysis.pdf"]
    assert iron.metadata["doi"] == "10.1136/pgmj.2009.089987"
    assert iron.metadata["authors"][:2] == ["Xiaolu Huang", "Xinhua Qu"]
    tam = paper_extractions["technology-acceptance-model-review.pdf"]
    assert tam.metadata.get("authors") == ["Mohammad Chuttur"]  # /Author is "ARRAY(0x2c7cf020)"


def test_chunks_carry_pages_and_stay_on_one_page(corpus: Path) -> None:
    extraction = extract_pdf(corpus / "papers/s2orc-open-research-corpus-acl2020.pdf")
    assert extraction.doc_type is DocumentType.FILE and extraction.mime_type == "application/pdf"
    pages = [c.page for c in extraction.chunks]
    assert all(isinstance(p, int) for p in pages)
    assert pages == sorted(pages) and set(pages) == set(range(1, 16))
    assert max(len(c.text.split()) for c in extraction.chunks) < 600
    # Page 1 is text-heavy: it is split into several paragraph groups.
    assert pages.count(1) >= 2
    assert any("Semantic Scholar" in c.text for c in extraction.chunks if c.page == 1)


def test_ligatures_are_expanded(corpus: Path) -> None:
    text = extract_pdf(corpus / "pdf-edge/ligature-fl-text.pdf").text
    assert text.count("flag") == 2, text
    assert not re.search("[\ufb00-\ufb06]", text)
    paper = extract_pdf(corpus / "papers/iron-deficiency-anaemia-helicobacter-pylori-meta-analysis.pdf").text
    assert not re.search("[\ufb00-\ufb06]", paper)
    for word in ("deficiency", "significant", "efficacy", "identified", "specific"):
        assert word in paper


def test_tex_accents_are_joined_to_their_letters(corpus: Path) -> None:
    # "Lemaˆıtre–Tolman", "R¨as¨anen" in the text layer: a search for the names must find them.
    text = extract_pdf(corpus / "papers/apparent-average-accelerations-universe-jcap2008.pdf").text
    assert "Lemaître–Tolman" in text and "Räsänen" in text
    assert "ˆı" not in text and "¨a" not in text
    assert "naïve" in extract_pdf(corpus / "papers/trace-based-jit-type-specialization-pldi2009.pdf").text


def test_rules_drawn_with_characters_are_dropped(corpus: Path) -> None:
    # International Psychogeriatrics draws its rules with hundreds of "." (one word piece each): they
    # made seven chunks of nothing but dots. Math ellipses stay.
    extraction = extract_pdf(corpus / "papers/stressful-life-events-dementia-psychogeriatrics.pdf")
    assert not any(c.text.count(".") > len(c.text) / 2 for c in extraction.chunks)
    assert "........" not in extraction.text
    assert "Anna Sundström" in extraction.text
    timp = extract_pdf(corpus / "papers/timp-r-package-spectroscopy-jss2007.pdf").text
    assert ". . ." in timp


def test_end_of_line_hyphens_are_joined(corpus: Path) -> None:
    text = extract_pdf(corpus / "papers/trace-based-jit-type-specialization-pldi2009.pdf").text
    # "com-\npile", "al-\nternative", "ac-\ntual" in the abstract's layout lines.
    assert "difficult to compile" in text
    assert "an alternative compilation technique" in text
    assert "com- pile" not in text and "com-\npile" not in text


def test_encrypted_user_password(corpus: Path) -> None:
    path = corpus / "pdf-edge/encrypted-aes256-user-password.pdf"
    with pytest.raises(EncryptedPdf, match="needs a password"):
        extract_file(path)
    with pytest.raises(EncryptedPdf):
        extract_file(path, password="wrong")
    opened = extract_file(path, password="asdfzxcv")
    assert "asdfzxcv" in opened.text and opened.chunks


def test_saslprep_password(corpus: Path) -> None:
    assert saslprep("S\u00aaSL\u00adprep") == "SaSLprep"
    path = corpus / "pdf-edge/encrypted-r6-saslprep-unicode-password.pdf"
    with pytest.raises(EncryptedPdf):
        extract_file(path)
    extract_file(path, password="S\u00aaSL\u00adprep")  # as typed: authenticates after SASLprep


def test_owner_password_only_opens_without_prompt(corpus: Path) -> None:
    extraction = extract_file(corpus / "pdf-edge/encrypted-owner-password-only.pdf")
    assert "pdf encryption test" in extraction.text


def test_damaged_files(corpus: Path) -> None:
    with pytest.raises(DamagedFile, match=re.escape("unopenable-fuzzed.pdf")):
        extract_file(corpus / "pdf-edge/unopenable-fuzzed.pdf")
    repaired = extract_file(corpus / "pdf-edge/broken-xref-keyword-missing.pdf")
    assert "Reduced test-case" in repaired.text
    assert any("repaired" in w for w in repaired.warnings)


def test_zero_pages(corpus: Path) -> None:
    with pytest.raises(EmptyFile, match="no pages"):
        extract_file(corpus / "pdf-edge/zero-pages.pdf")


@pytest.mark.parametrize(
    "name",
    ["scanned-image-only-ocr-sample.pdf", "scanned-german-form-8-pages.pdf", "arabic-font-without-tounicode.pdf"],
)
def test_needs_ocr(corpus: Path, name: str) -> None:
    extraction = extract_file(corpus / "pdf-edge" / name)
    assert extraction.needs_ocr
    assert extraction.chunks == []
    assert extraction.metadata["page_count"] >= 1


def test_garbage_detector_explains_itself(corpus: Path) -> None:
    with pymupdf.open(corpus / "pdf-edge/arabic-font-without-tounicode.pdf") as doc:
        quality = measure_text(doc[0].get_text())
    assert not quality.usable
    assert quality.mixed_word_ratio > 0.25 or quality.bad_char_ratio > 0.1
    assert measure_text("An ordinary English sentence with CEνNS and µCi inside it.").usable


def test_pages_in_a_font_without_unicode_map_are_deciphered(corpus: Path) -> None:
    # The Sprouts working paper: pages 2–22 are set in a Cambria subset without any Unicode mapping
    # (MuPDF gives U+FFFD); its glyphs are a substitution cipher that English text gives away.
    extraction = extract_pdf(corpus / "papers/technology-acceptance-model-review.pdf")
    assert not extraction.needs_ocr and "ocr_pages" not in extraction.metadata
    # (A page whose text only continues the paragraph of the page before starts no chunk of its own.)
    assert len({c.page for c in extraction.chunks}) >= 18
    text = " ".join(extraction.text.split())
    for sentence in (
        "the Technology Acceptance Model has been the only one which has captured the most attention of the "
        "Information Systems community",
        "Fred Davis proposed the Technology Acceptance Model",
        "perceived usefulness and perceived ease of use",
    ):
        assert sentence in text, sentence
    assert "\ufffd" not in text
    assert any("deciphering" in w for w in extraction.warnings)


@pytest.mark.timeout(120)  # a hang guard with room for a loaded machine (0.1 s when idle), not a speed target
def test_bomb_returns_quickly(corpus: Path) -> None:
    extraction = extract_file(corpus / "pdf-edge/jbig2-decompression-bomb.pdf")
    assert "GIANT JBIG2 BOMB" in extraction.text


@pytest.mark.timeout(300)  # a hang guard with room for a loaded machine (~5 s when idle), not a speed target
def test_long_book(long_book: Extraction) -> None:
    extraction = long_book
    assert extraction.metadata["page_count"] == 352
    assert extraction.title == "Free Culture"
    assert len({c.page for c in extraction.chunks}) > 300
    assert extraction.metadata.get("ocr_pages") == [1]  # the image-only cover
    assert not any("❚❘❙" in c.text for c in extraction.chunks)


def test_arabic_and_cjk_come_through(corpus: Path) -> None:
    arabic = extract_file(corpus / "pdf-edge/arabic-rtl-text.pdf")
    assert "البرمجة" in arabic.text and not arabic.needs_ocr
    chinese = extract_file(corpus / "pdf-edge/chinese-financial-tables.pdf")
    assert "发行人历史信用评级情况" in chinese.text.replace(" ", "")
    rotated = extract_file(corpus / "pdf-edge/rotated-pages-arabic.pdf")
    assert "habibi" in rotated.text and "\ufffd" not in rotated.text


def test_every_edge_file_gives_extraction_or_typed_error(corpus: Path, long_book: Extraction) -> None:
    expected_errors = {
        "encrypted-aes256-user-password.pdf": EncryptedPdf,
        "encrypted-r6-saslprep-unicode-password.pdf": EncryptedPdf,
        "unopenable-fuzzed.pdf": DamagedFile,
        "zero-pages.pdf": EmptyFile,
    }
    files = sorted((corpus / "pdf-edge").glob("*.pdf"))
    assert len(files) == 20
    for path in files:
        error = expected_errors.get(path.name)
        if error:
            with pytest.raises(error):
                extract_file(path)
            continue
        extraction = long_book if path.name == "long-book-352-pages.pdf" else extract_file(path)
        assert extraction.needs_ocr or extraction.chunks, path.name
        assert all(c.page and c.text.strip() for c in extraction.chunks), path.name


def test_junk_before_header_is_sniffed_whatever_the_name(corpus: Path, tmp_path: Path) -> None:
    renamed = tmp_path / "download.bin"
    renamed.write_bytes((corpus / "pdf-edge/junk-before-pdf-header.pdf").read_bytes())
    extraction = extract_file(renamed)
    assert extraction.mime_type == "application/pdf"
    assert "Hello World" in extraction.text


def test_metadata_sanity_rules() -> None:
    assert sane_title("Microsoft Word - 02. 206.doc") is None
    assert sane_title("6489122611071476 1..10") is None
    assert sane_title("ipg1300180a") is None
    assert sane_title("doi:") is None
    assert sane_title("Loeb_Sing.docx") is None
    assert sane_title("Slide 1", page_text="An unrelated first page about proteins") is None
    assert sane_title("Free Culture\r\n") == "Free Culture"
    assert split_authors("ARRAY(0x2c7cf020)") == []
    assert split_authors("Cambridge Journals") == []
    assert split_authors("Kyle Lo ; Lucy Lu Wang") == ["Kyle Lo", "Lucy Lu Wang"]
    assert split_authors("ATLAS and CMS Collaborations") == ["ATLAS and CMS Collaborations"]


def test_junk_metadata_author_gives_way_to_the_names_on_the_first_page(long_book: Extraction, tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "Warming Planets and Their Moons", fontsize=20)
    page.insert_text((72, 130), "Ada Lovelace, Charles Babbage", fontsize=12)
    page.insert_text((72, 148), "Analytical Engine Society, London", fontsize=10)
    page.insert_textbox(pymupdf.Rect(72, 180, 520, 700), "Abstract. " + "Moons of warm planets are studied. " * 30)
    for junk in ("xyz", "John Doe"):  # a placeholder; a name printed nowhere in the paper
        doc.set_metadata({"author": junk, "title": "Warming Planets and Their Moons"})
        doc.save(tmp_path / "paper.pdf")
        extraction = extract_pdf(tmp_path / "paper.pdf")
        assert extraction.metadata["authors"] == ["Ada Lovelace", "Charles Babbage"], junk
    assert split_authors("xyz") == [] and split_authors("cheng") == []
    # A real /Author that the first pages do not print (a book with an image cover) is still kept.
    assert long_book.metadata["authors"] == ["Lawrence Lessig"]
