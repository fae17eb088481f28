"""Citations out: stable citation keys, BibTeX / RIS / CSL-JSON that read back to the same fields, and
formatted citations in the shipped CSL styles.

Files are imported with the extractor in this process (``extract_file``, what the worker process runs):
a worker process per upload would add seconds to each test for nothing these tests check."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pymupdf
import pytest

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.errors import InvalidInput
from vancetope_desktop.ingest.bibentry import kind_family
from vancetope_desktop.ingest.bibliography import parse_csl_json, parse_ris
from vancetope_desktop.ingest.bibtex import parse_bibtex
from vancetope_desktop.ingest.registry import extract_file
from vancetope_desktop.services import citation_keys, citations, documents, folders, imports
from vancetope_desktop.services.bibliography import add_references
from vancetope_desktop.services.citation_keys import base_key, ensure_keys, set_citation_key

BIB = r"""@article{nrc2009,
  author = {{National Research Council Committee on Science, Technology, and Law}},
  title = {Strengthening Forensic Science in the United States},
  journal = {National Academies Press Reports},
  year = {2009},
}
@article{mueller-folding,
  author = {M{\"u}ller, J{\'e}r{\^o}me and van Beethoven, Ludwig},
  title = {On the Folding of Proteins: 50\% Faster},
  journal = {Journal of Folds},
  year = {2021},
  volume = {12},
  number = {3},
  pages = {101--110},
  doi = {10.1000/fold.12},
  url = {https://example.org/fold},
  keywords = {proteins, folding},
}
"""


def _refs(lib) -> dict[str, object]:
    docs = documents.list_documents(lib, types=[DocumentType.REFERENCE])
    return {d.title: d for d in docs}


def _note(lib, title: str, **metadata):
    doc = documents.add_text(lib, f"# {title}\n\nSome text.", doc_type=DocumentType.NOTE, title=title)
    return documents.update_document(lib, doc.id, metadata=metadata) if metadata else doc


# --- keys ---------------------------------------------------------------------------------------------------


def test_a_key_is_family_name_year_and_first_significant_title_word_in_ascii():
    assert base_key(["Jérôme Müller"], 2021, "On the Folding of Proteins") == "muller2021folding"
    assert base_key(["Ludwig van Beethoven"], 1810, "Für Elise") == "beethoven1810fur"
    assert base_key(["Søren Ørsted Łukasz"], 2000, "The Æther") == "lukasz2000aether"
    # a body: its first significant words; no author: the title word leads
    assert base_key(["National Research Council Committee on Science, Technology, and Law"], 2009,
                    "Strengthening Forensic Science") == "nationalresearchcouncil2009strengthening"
    assert base_key([], 2024, "Meeting notes") == "meeting2024"
    assert base_key([], None, "") == "ref"


def test_keys_are_unique_in_the_library_and_never_change_afterwards(library):
    first = _note(library, "Glacier melt", authors=["Jane Smith"], year=2020)
    second = _note(library, "Glacier melt again", authors=["Jane Smith"], year=2020)
    keys = ensure_keys(library, [second.id, first.id])
    # the document created first wins the plain key, whichever is cited first
    assert keys == {first.id: "smith2020glacier", second.id: "smith2020glaciera"}
    assert documents.get_document(library, first.id).metadata["citation_key"] == "smith2020glacier"

    third = _note(library, "Glacier melt, a third look", authors=["Jane Smith"], year=2020)
    documents.set_status(library, first.id, DocumentStatus.DELETED)  # a trashed document keeps its key
    assert ensure_keys(library, [third.id]) == {third.id: "smith2020glacierb"}
    documents.purge_document(library, first.id)
    documents.set_status(library, third.id, DocumentStatus.DELETED)
    # others come and go: a key, once assigned, stays
    assert ensure_keys(library, [second.id, third.id]) == {second.id: "smith2020glaciera",
                                                            third.id: "smith2020glacierb"}


def test_an_imported_key_is_kept_and_a_clash_is_suffixed(library):
    add_references(library, BIB)
    refs = _refs(library)
    folding = refs["On the Folding of Proteins: 50% Faster"]
    nrc = refs["Strengthening Forensic Science in the United States"]
    assert ensure_keys(library, [folding.id, nrc.id]) == {folding.id: "mueller-folding", nrc.id: "nrc2009"}
    # another file with the same key for another work, imported later: the earlier keeps it
    add_references(library, "@book{nrc2009,\n  author = {Doe, John},\n  title = {Other},\n  year = {2001},\n}\n")
    other = _refs(library)["Other"]
    assert ensure_keys(library, [other.id, nrc.id]) == {other.id: "nrc2009a", nrc.id: "nrc2009"}


def test_a_placeholder_ris_id_is_not_a_key(library):
    add_references(library, "TY  - JOUR\nAU  - Müller, Jérôme\nTI  - Folding at speed\nPY  - 2021\nER  - \n")
    ref = next(iter(_refs(library).values()))
    assert ref.metadata["citation_key"] == "entry 1"  # what the import stores when the RIS record has no ID
    assert ensure_keys(library, [ref.id]) == {ref.id: "muller2021folding"}


def test_a_key_is_edited_checked_and_kept_through_a_reimport(library):
    add_references(library, BIB)
    refs = _refs(library)
    folding = refs["On the Folding of Proteins: 50% Faster"]
    nrc = refs["Strengthening Forensic Science in the United States"]
    assert set_citation_key(library, folding.id, " Mueller2021 ") == "Mueller2021"
    with pytest.raises(InvalidInput, match="cannot be a citation key"):
        set_citation_key(library, folding.id, "two words")
    with pytest.raises(InvalidInput, match="already the key of"):
        set_citation_key(library, folding.id, "NRC2009")  # keys compare without case, as biber does
    # the Details panel's path (a metadata edit) is checked the same way
    with pytest.raises(InvalidInput, match="already the key of"):
        documents.update_document(library, nrc.id, metadata={"citation_key": "mueller2021"})
    # the previous key is kept as a version (undo builds on versions)
    versions = documents.list_versions(library, folding.id)
    assert versions[0].reason == "citation key changed"
    # the same entries pasted again are merged into these references, keys untouched
    add_references(library, BIB.replace("Journal of Folds", "Journal of Folding"))
    again = documents.get_document(library, folding.id)
    assert again.metadata["citation_key"] == "Mueller2021"


def test_a_reimport_of_its_file_keeps_an_edited_key(library, tmp_path):
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB, encoding="utf-8")
    imports.upload(library, [bib], extractor=extract_file)
    folding = _refs(library)["On the Folding of Proteins: 50% Faster"]
    set_citation_key(library, folding.id, "folding21")
    bib.write_text(BIB.replace("Journal of Folds", "Journal of Folding"), encoding="utf-8")
    imports.upload(library, [bib], extractor=extract_file)
    again = documents.get_document(library, folding.id)
    assert again.metadata["journal"] == "Journal of Folding"  # the file's change is taken
    assert again.metadata["citation_key"] == "folding21"  # the key is not


# --- formats ----------------------------------------------------------------------------------------------


def _comparable(entry, *, kind: bool = True) -> dict:
    """The fields an export must keep, as the importers read them."""
    fields = {"title": entry.title, "authors": entry.authors, "editors": entry.editors, "year": entry.year,
              "container": entry.container, "publisher": entry.publisher, "doi": entry.doi,
              "abstract": entry.abstract, "keywords": entry.keywords, "extra": dict(entry.extra),
              "family": kind_family(entry.kind)}
    if kind:
        fields["kind"] = entry.kind
    return fields


def test_the_corpus_bib_round_trips_through_every_format(library, corpus):
    # The first 60 entries of a real user library (LaTeX accents, braced capitals, "den Hertog" particles),
    # imported as the app does, exported, and read back by the importers: the same fields.
    text = (corpus / "refs" / "nanowire-physics-library-latex-accents.bib").read_text(encoding="utf-8")
    starts = [m.start() for m in re.finditer(r"^@", text, re.MULTILINE)]
    text = text[: starts[60]]
    original = {e.key: e for e in parse_bibtex(text).entries}
    report = add_references(library, text)
    docs = citations.select_documents(library, ids=[e.document_id for e in report.entries])
    by_key = {}
    for fmt, parse in (("bibtex", lambda t: parse_bibtex(t)), ("ris", parse_ris),
                       ("csl-json", lambda t: parse_csl_json(json.loads(t)))):
        export = citations.export_documents(library, docs, fmt)
        back = {e.key: e for e in parse(export.text).entries}
        assert set(back) == set(export.keys.values()), fmt
        by_key[fmt] = back
        for outcome in report.entries:
            if outcome.status != "imported":
                continue
            key = export.keys[outcome.document_id]
            want = _comparable(original[outcome.key], kind=fmt == "bibtex")
            got = _comparable(back[key], kind=fmt == "bibtex")
            if fmt == "ris":
                # RIS has no edition or series tag (nor has Zotero's), and a page range is split into SP and EP,
                # read back joined by an en dash: "1198--1201" is the range "1198–1201".
                want["extra"] = {k: v for k, v in want["extra"].items() if k not in ("edition", "series", "isbn")}
                for fields in (want, got):
                    if "pages" in fields["extra"]:
                        fields["extra"]["pages"] = re.sub(r"-+|–", "–", fields["extra"]["pages"])
            assert got == want, (fmt, key)
    assert len(by_key["bibtex"]) >= 55


def test_special_characters_bodies_and_particles_round_trip(library):
    add_references(library, BIB)
    refs = _refs(library)
    # a URL with a percent-escape (a LaTeX comment sign: written \%, read back as %)
    documents.update_document(library, refs["On the Folding of Proteins: 50% Faster"].id,
                              metadata={"url": "https://example.org/fold%2012"})
    docs = [documents.get_document(library, d.id) for d in refs.values()]
    export = citations.export_documents(library, docs, "bibtex")
    assert "{National Research Council Committee on Science, Technology, and Law}" in export.text
    assert "van Beethoven, Ludwig" in export.text and "50\\% Faster" in export.text
    back = {e.title: e for e in parse_bibtex(export.text).entries}
    folding = back["On the Folding of Proteins: 50% Faster"]
    assert folding.authors == ("Jérôme Müller", "Ludwig van Beethoven")
    assert dict(folding.extra)["url"] == "https://example.org/fold%2012"
    assert dict(folding.extra)["pages"] == "101--110"  # as the file gave it (no LaTeX in it to decode)
    assert back["Strengthening Forensic Science in the United States"].authors == (
        "National Research Council Committee on Science, Technology, and Law",)
    csl = json.loads(citations.export_documents(library, docs, "csl-json").text)
    names = {item["title"]: item["author"] for item in csl}
    assert names["Strengthening Forensic Science in the United States"] == [
        {"literal": "National Research Council Committee on Science, Technology, and Law"}]
    assert names["On the Folding of Proteins: 50% Faster"][1] == {
        "family": "Beethoven", "given": "Ludwig", "non-dropping-particle": "van"}


def test_notes_export_as_undated_misc_and_generic_entries_cited_as_n_d(library):
    # A note cited with the year it was written (or imported) read as a publication year (found by a new user).
    note = _note(library, "Meeting notes on glaciers")
    bibtex = citations.export_documents(library, [note], "bibtex").text
    assert bibtex.startswith("@misc{meeting,") and "title = {Meeting notes on glaciers}" in bibtex
    assert "year" not in bibtex
    ris = parse_ris(citations.export_documents(library, [note], "ris").text).entries[0]
    assert (ris.kind, ris.title, ris.year, ris.key) == ("GEN", "Meeting notes on glaciers", None, "meeting")
    item = json.loads(citations.export_documents(library, [note], "csl-json").text)[0]
    assert item["type"] == "document" and "issued" not in item
    assert "(n.d.)" in citations.cite(library, [note], "apa").text
    assert str(note.created_at.year) not in citations.cite(library, [note], "ieee").text  # IEEE prints no n.d.
    dated = _note(library, "Field season report", year=2019)
    assert "(2019)" in citations.cite(library, [dated], "apa").text


def test_a_pdf_exports_its_document_metadata(library, tmp_path):
    path = tmp_path / "paper.pdf"
    pdf = pymupdf.open()
    pdf.new_page().insert_text((72, 72), "Glacier melt measured by satellites over ten years.")
    pdf.save(path)
    pdf.close()
    doc_id = imports.upload(library, [path], extractor=extract_file).outcomes[0].document_id
    # what Details writes when the user fills in the table's columns
    documents.update_document(library, doc_id, title="Satellite Glaciology", metadata={
        "authors": ["Ana Ruiz-Pérez", "World Glacier Monitoring Service"], "year": 2019,
        "doi": "10.5555/glacier.7", "journal": "The Cryosphere"})
    doc = documents.get_document(library, doc_id)
    entry = parse_bibtex(citations.export_documents(library, [doc], "bibtex").text).entries[0]
    assert (entry.kind, entry.key, entry.title, entry.year, entry.doi, entry.container) == (
        "article", "ruizperez2019satellite", "Satellite Glaciology", 2019, "10.5555/glacier.7", "The Cryosphere")
    assert entry.authors == ("Ana Ruiz-Pérez", "World Glacier Monitoring Service")


def test_an_exported_search_leaves_out_its_notes_and_annotations_and_counts_them(library):
    # Found by a new user: `export --query sepsis` wrote @misc entries for the notes and annotations it found.
    ids = [e.document_id for e in add_references(library, BIB.replace("Proteins", "Proteins in Sepsis")).entries]
    note = documents.add_text(library, "Sepsis and protein folding, my reading.", doc_type=DocumentType.NOTE,
                              title="Sepsis notes")
    found = citations.select_documents(library, query="sepsis")
    export = citations.export_documents(library, found, "bibtex")
    assert list(export.keys) == [ids[1]] and "@misc" not in export.text
    assert export.left_out == [note.id]
    assert export.summary() == "2 found, 1 exported; 1 notes and annotations left out"
    # The same hits exported from the app's results list (ids_found), and the note chosen by itself.
    assert citations.select_documents(library, ids=[note.id, ids[1]], ids_found=True).left_out == [note]
    assert "@misc{" in citations.export_documents(library, citations.select_documents(library, ids=[note.id]),
                                                  "bibtex").text


def test_a_folder_exports_its_contents_and_a_bibliography_file_is_left_out(library, tmp_path):
    folder = folders.create_folder(library, "Chapter 2")
    inside = documents.add_text(library, "Ice.", doc_type=DocumentType.NOTE, title="Ice", folder_id=folder.id)
    _note(library, "Elsewhere")
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB, encoding="utf-8")
    bib_id = imports.upload(library, [bib], extractor=extract_file).outcomes[0].document_id
    # A folder's note is not a work: left out (counted); chosen by id it is exported.
    for selection in (citations.select_documents(library, folder_id=folder.id),
                      citations.select_documents(library, ids=[folder.id])):
        assert selection == [] and [d.id for d in selection.left_out] == [inside.id]
    export = citations.export_documents(library, citations.select_documents(library, ids=[bib_id, inside.id]),
                                        "ris")
    assert export.skipped == [bib_id] and list(export.keys) == [inside.id]
    with pytest.raises(InvalidInput, match="format"):
        citations.export_documents(library, [inside], "endnote")
    assert citations.format_for_path("/tmp/x.BIB") == "bibtex"
    assert citations.format_for_path("refs.json") == "csl-json"


# --- formatted citations --------------------------------------------------------------------------------


@pytest.mark.parametrize("style", list(citations.STYLES))
def test_every_shipped_style_formats_author_and_year(library, style):
    add_references(library, BIB)
    docs = list(_refs(library).values())
    cited = citations.cite(library, docs, style)
    assert "Müller" in cited.text and "2021" in cited.text
    assert "National Research Council" in cited.text and "2009" in cited.text
    assert cited.html.count('<div class="csl-entry">') == 2 and "Müller" in cited.html
    assert set(cited.keys.values()) == {"mueller-folding", "nrc2009"}


TWO_AUTHORS = r"""@article{vaswani2017,
  author = {Vaswani, Ashish and Shazeer, Noam},
  title = {Attention is all you need},
  journal = {Advances in Neural Information Processing Systems},
  year = {2017}, volume = {30}, number = {2}, pages = {5998--6008},
  doi = {10.5555/3295222.3295349},
}
"""
EXPECTED = {  # as citeproc-js (Zotero) writes them with these styles
    "apa": "Vaswani, A., & Shazeer, N. (2017). Attention is all you need. Advances in Neural Information "
           "Processing Systems, 30(2), 5998–6008. https://doi.org/10.5555/3295222.3295349",
    "chicago": "Vaswani, Ashish, and Noam Shazeer. 2017. “Attention Is All You Need.” Advances in Neural "
               "Information Processing Systems 30 (2): 5998–6008. https://doi.org/10.5555/3295222.3295349.",
    "nature": "1. Vaswani, A. & Shazeer, N. Attention is all you need. Advances in Neural Information Processing "
              "Systems 30, 5998–6008 (2017).",
    "ieee": "[1] A. Vaswani and N. Shazeer, “Attention is all you need,” Advances in Neural Information Processing "
            "Systems, vol. 30, no. 2, pp. 5998–6008, 2017, doi: 10.5555/3295222.3295349.",
}


@pytest.mark.parametrize("style", list(citations.STYLES))
def test_a_two_author_article_is_formatted_as_zotero_formats_it(library, style):
    # A new user found "[1]A. Vaswani" and "1.Vaswani" (citeproc-py ignores second-field-align), and Chicago
    # without volume, issue or pages (it read a CSL 1.0.2 type condition otherwise): see services.citations.
    doc = documents.get_document(library, add_references(library, TWO_AUTHORS).entries[0].document_id)
    cited = citations.cite(library, [doc], style)
    assert cited.text == EXPECTED[style]
    assert "Advances in Neural Information Processing Systems</i>" in cited.html


def test_a_real_reference_gets_its_spaces_in_the_numbered_styles(library, corpus):
    text = (corpus / "refs" / "nanowire-physics-library-latex-accents.bib").read_text(encoding="utf-8")
    first = text[: [m.start() for m in re.finditer(r"^@", text, re.MULTILINE)][1]]
    doc = documents.get_document(library, add_references(library, first).entries[0].document_id)
    assert citations.cite(library, [doc], "ieee").text.startswith("[1] A. Ajay et al., “Intersubband Absorption")
    assert citations.cite(library, [doc], "nature").text.startswith("1. Ajay, A. et al. Intersubband Absorption")
    assert "Phys. Status Solidi B." in citations.cite(library, [doc], "chicago").text  # not "B.."


def test_unknown_styles_and_nothing_citable_are_refused(library):
    note = _note(library, "A note")
    with pytest.raises(InvalidInput, match="unknown citation style"):
        citations.cite(library, [note], "mla")
    folder = folders.create_folder(library, "Empty")
    with pytest.raises(InvalidInput, match="nothing to cite"):
        citations.cite(library, [documents.get_document(library, folder.id)], "apa")


def test_the_styles_ship_with_their_licence():
    folder = Path(citation_keys.__file__).parent / "data" / "csl"
    for file_name, _label in citations.STYLES.values():
        text = (folder / file_name).read_text(encoding="utf-8")
        assert "http://creativecommons.org/licenses/by-sa/3.0/" in text
    assert "citation-style-language/styles" in (folder / "README.md").read_text(encoding="utf-8")


def test_too_many_documents_for_a_style_are_refused_with_the_way_out(library):
    note = _note(library, "A note")
    with pytest.raises(InvalidInput, match="export them as BibTeX"):
        citations.cite(library, [note] * (citations.MAX_FORMATTED + 1), "ieee")
    cited = citations.cite(library, [note] * citations.MAX_FORMATTED, "ieee")
    assert cited.keys == {note.id: "note"}
