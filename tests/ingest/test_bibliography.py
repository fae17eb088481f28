"""BibTeX, RIS and CSL-JSON read into one entry each: names and LaTeX by bibtexparser's middlewares,
keywords merged, attachments parsed; a bibliography file is a file whose entries become references."""

from __future__ import annotations

from pathlib import Path

import pytest

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.ingest.bibentry import BibEntry, kind_family, normalize_doi, title_key
from vancetope_desktop.ingest.bibliography import is_csl_json
from vancetope_desktop.ingest.bibtex import latex_to_unicode, parse_bibtex, parse_file_field
from vancetope_desktop.ingest.registry import extract_file, extract_text

CORPORATE = r"""@techreport{nrc2009,
  author = {{National Research Council Committee on Science, Technology, and Law} and M{\"u}ller, J{\'e}r{\^o}me},
  title = {Strengthening {Forensic} Science},
  year = {2009},
  keywords = {forensics, DNA; law},
  keywords = {policy},
  institution = {National Academies Press},
}
"""


def test_braced_corporate_author_stays_one_author() -> None:
    entry = parse_bibtex(CORPORATE).entries[0]
    assert entry.authors == ("National Research Council Committee on Science, Technology, and Law", "Jérôme Müller")
    assert entry.title == "Strengthening Forensic Science" and entry.year == 2009
    assert entry.kind == "techreport" and entry.key == "nrc2009" and entry.publisher == "National Academies Press"


def test_keywords_are_read_and_repeated_fields_merged() -> None:
    entry = parse_bibtex(CORPORATE).entries[0]
    assert entry.keywords == ("forensics", "DNA", "law", "policy")
    assert entry.metadata()["keywords"] == ["forensics", "DNA", "law", "policy"]
    # A key differing only in case is the same field (NormalizeFieldKeys alone would keep the last one).
    mixed = parse_bibtex("@misc{k, title={T}, Keywords={a, b}, keywords={c}, mendeley-tags={d}}").entries[0]
    assert mixed.keywords == ("a", "b", "c", "d")


def test_names_from_the_middlewares() -> None:
    bib = parse_bibtex(r"""@article{a, author={van der Berg, Jr, Hans and Knuth, Donald E. and others}, title={x}}
@book{b, editor={Halle, M., Bresnan, J.,}, title={y}}
@article{c, author={M. Halle, J. Bresnan,}, title={z}}""")
    by_key = {e.key: e for e in bib.entries}
    assert by_key["a"].authors == ("Hans van der Berg Jr", "Donald E. Knuth")  # "others" is BibTeX's et al.
    assert by_key["b"].authors == ("M. Halle", "J. Bresnan")  # commas instead of "and": still two people
    assert by_key["c"].authors == ("M. Halle", "J. Bresnan")


def test_file_fields_in_reference_manager_forms() -> None:
    assert parse_file_field("Full Text PDF:files/12/paper.pdf:application/pdf;Snapshot:files/12/s.html:text/html") \
        == ("files/12/paper.pdf", "files/12/s.html")  # Zotero
    assert parse_file_field(r":C\:\\Users\\me\\paper.pdf:PDF") == ("C:\\Users\\me\\paper.pdf",)  # JabRef
    assert parse_file_field(r":C$\backslash$:/Users/me/Smith{\_}2010.pdf:pdf") == ("C:/Users/me/Smith_2010.pdf",)
    assert parse_file_field("paper.pdf") == ("paper.pdf",)
    entry = parse_bibtex(r"@article{k, title={T}, file={:papers/a\_b.pdf:PDF}, file={b.pdf}}").entries[0]
    assert entry.files == ("papers/a_b.pdf", "b.pdf")  # not LaTeX-decoded, both fields kept


def test_identity_keys() -> None:
    assert normalize_doi("https://doi.org/10.1021/BI049798F.") == "10.1021/bi049798f"
    assert normalize_doi("doi:10.1021/bi049798f") == "10.1021/bi049798f"
    assert normalize_doi("10/fqd6hj") == "10/fqd6hj" and normalize_doi("none") is None
    assert title_key("Über {GaN}: a Study.") == title_key("uber GaN - A study") == "uber gan a study"


def test_entry_round_trips_through_metadata() -> None:
    entry = parse_bibtex(CORPORATE).entries[0]
    again = BibEntry.from_metadata(entry.metadata(), title=entry.title)
    assert again.text() == entry.text()


CORPUS = pytest.mark.corpus


@CORPUS
@pytest.mark.parametrize(
    ("name", "count"),
    [
        ("nanowire-physics-library-latex-accents.bib", 506),
        ("ai-classic-paren-delimited.bib", 988),
        ("mendeley-export-social-science.bib", 512),
        ("web-of-science-export.ris", 2),
        ("better-csl-json-export.csl.json", 26),
        ("gbk-encoded-chinese.bib", 1),
    ],
)
def test_every_entry_is_read(corpus: Path, name: str, count: int) -> None:
    """Entries in the file (counted with grep) = entries read; the file itself has no chunks."""
    extraction = extract_file(corpus / "refs" / name)
    assert extraction.doc_type is DocumentType.FILE and not extraction.chunks
    assert extraction.references is not None and len(extraction.references) == count
    assert extraction.metadata["entry_count"] == count
    assert all(e.text() for e in extraction.references)


@CORPUS
def test_latex_accents_and_braces(corpus: Path) -> None:
    entries = {e.key: e for e in extract_file(corpus / "refs/nanowire-physics-library-latex-accents.bib").references}
    first = entries["Ajay_2017a"]
    assert first.title == "Intersubband Absorption in Si- and Ge-Doped GaN/AlN Heterostructures in Self-Assembled " \
                          "Nanowire and 2D Layers"
    assert first.authors[0] == "Akhil Ajay" and first.year == 2017 and first.doi == "10.1002/pssb.201600734"
    assert first.text().startswith("Intersubband Absorption in Si- and Ge-Doped GaN/AlN Heterostructures")
    text = "\n".join(e.text() for e in entries.values())
    assert "{{" not in text and "\\" not in text and "Caractérisation" in text
    assert latex_to_unicode(r"M{\"u}ller and {\'E}mile") == "Müller and Émile"


@CORPUS
def test_mendeley_oddities(corpus: Path) -> None:
    extraction = extract_file(corpus / "refs/mendeley-export-social-science.bib")
    entries = [e for e in extraction.references if e.key == "Black2020"]
    assert entries and "The purpose of this research" in (entries[0].abstract or "")
    assert extraction.metadata["entry_types"].get("web_page") == 25
    tagged = [e for e in extraction.references if e.keywords]
    assert len(tagged) >= 100  # 109 entries have keywords; none were read before
    assert any("Electronic books" in e.keywords for e in tagged)


@CORPUS
def test_web_of_science_ris(corpus: Path) -> None:
    first = extract_file(corpus / "refs/web-of-science-export.ris").references[0]
    assert first.title.startswith("Interactions stabilizing the structure of the core light-harvesting complex")
    assert first.authors[0] == "PS Parkes-Loach" and first.year == 2004 and first.container == "BIOCHEMISTRY"
    assert first.doi == "10.1021/bi049798f" and "RHODOSPIRILLUM-RUBRUM" in first.keywords
    assert dict(first.extra)["pages"] == "7003–7016"


@CORPUS
def test_csl_json(corpus: Path) -> None:
    extraction = extract_file(corpus / "refs/better-csl-json-export.csl.json")
    assert extraction.mime_type == "application/vnd.citationstyles.csl+json"
    assert extraction.metadata["entry_types"]["article-journal"] == 15
    brittain = next(e for e in extraction.references if e.key == "brittain2004")
    assert brittain.text().startswith("Perceptions of disability") and "Ian Brittain. 2004." in brittain.text()
    assert brittain.doi == "10.1177/0193723504268729"  # the shortDOI 10/fqd6hj gives way to the URL's DOI


@CORPUS
def test_gbk_bibtex(corpus: Path) -> None:
    extraction = extract_file(corpus / "refs/gbk-encoded-chinese.bib")
    assert extraction.references[0].text() == "Test Title. 凯撒. 2013. 测试期刊."
    assert any("GB18030" in w for w in extraction.warnings)


def test_reference_typed_as_text() -> None:
    bib = extract_text("@article{k1, title={A {\\'E}tude}, author={Doe, Jane}, year={2020}}", DocumentType.REFERENCE)
    assert bib.chunks[0].text == "A Étude. Jane Doe. 2020." and bib.chunks[0].section == "k1"
    assert bib.metadata["authors"] == ["Jane Doe"] and bib.title == "A Étude"
    free = extract_text("Doe J. (2020) A free-text citation. Journal X.", DocumentType.REFERENCE)
    assert len(free.chunks) == 1 and free.doc_type is DocumentType.REFERENCE and free.references is None
    assert not is_csl_json([{"type": "Feature", "geometry": {}}])


def test_crossref_fills_what_the_entry_lacks() -> None:
    bib = parse_bibtex("@inproceedings{p, title={Paper}, author={Roe, Ann}, crossref={conf99}}\n"
                       "@proceedings{conf99, title={Proceedings of X}, year=1999, editor={Poe, Bo},"
                       " publisher={ACM}}\n"
                       "@article{alias, crossref={real}}\n@article{real, title={Real}, author={Doe, J.}, year=2012}\n"
                       "@inproceedings{lost, title={Lost}, crossref={IJCAI85}}\n")
    by_key = {e.key: e for e in bib.entries}
    paper = by_key["p"]
    assert paper.title == "Paper" and paper.container == "Proceedings of X" and paper.year == 1999
    assert paper.editors == ("Bo Poe",) and paper.publisher == "ACM" and paper.authors == ("Ann Roe",)
    assert by_key["alias"].title == "Real" and by_key["alias"].year == 2012  # an alias of another entry
    assert by_key["lost"].title == "Lost" and by_key["lost"].year is None  # named but never defined


def test_kinds_of_work_across_formats() -> None:
    assert kind_family("JOUR") == kind_family("article-journal") == kind_family("article") == "article"
    assert kind_family("techreport") == kind_family("RPRT") == "report"
    assert kind_family("misc") is None and kind_family(None) is None
