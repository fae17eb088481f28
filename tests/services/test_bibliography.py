"""Bibliographies as items: one reference per entry, linked to its file, de-duplicated within the file and
against the library, keywords as tags, the entry's PDF attached, re-imports updating in place."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pymupdf
import pytest

from vancetope_desktop.core.documents import DocumentStatus, DocumentType, IndexState
from vancetope_desktop.ingest.process_pool import ProcessExtractor
from vancetope_desktop.services import documents, imports, indexing, relations, search, tags
from vancetope_desktop.services.bibliography import add_references

BIB = r"""@article{smith2020,
  author = {{National Research Council Committee on Science, Technology, and Law} and Smith, Jane},
  title = {Glacier {Melt} and Sea Level},
  journal = {Journal of Ice},
  year = {2020},
  doi = {10.1000/ICE.1},
  keywords = {glaciology, sea level; climate},
  keywords = {Remote sensing},
  file = {:papers/smith2020.pdf:PDF},
}
@article{smith2020b,
  author = {Smith, Jane},
  title = {Glacier melt and sea level},
  year = {2020},
  abstract = {Ice sheets lose mass faster than models predicted.},
}
@book{doe1999,
  author = {Doe, John},
  title = {Permafrost},
  year = {1999},
  publisher = {Polar Press},
  file = {Full Text PDF:/nowhere/on/this/machine/permafrost.pdf:application/pdf},
}
"""


def _pdf(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), text)
    doc.save(path)
    doc.close()
    return path


@pytest.fixture
def refs(tmp_path: Path) -> Path:
    folder = tmp_path / "refs"
    _pdf(folder / "papers" / "smith2020.pdf", "Glacier melt measured by satellites over ten years.")
    _pdf(folder / "permafrost.pdf", "Permafrost thaws in the Arctic.")
    (folder / "library.bib").write_text(BIB, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def upload() -> Iterator[Callable[..., imports.ImportReport]]:
    """``imports.upload`` with one extraction worker process for the module, as the app keeps one for its session
    (its ``extractor``): a worker per upload started a process for each of the module's 19 uploads."""
    worker = ProcessExtractor(nice=0)
    yield functools.partial(imports.upload, extractor=worker)
    worker.close()


def _references(lib) -> list:
    return documents.list_documents(lib, types=[DocumentType.REFERENCE])


def test_one_reference_per_entry_linked_to_its_file(library, refs, upload):
    report = upload(library, [refs / "library.bib"], tags=["thesis"])
    outcome = report.outcomes[0]
    assert outcome.status == "imported"
    assert outcome.reason == outcome.references.summary
    assert outcome.reason == ("2 references from library.bib into folder “library” (1 duplicates merged into "
                              "existing references, 2 files attached)")
    bib = documents.get_document(library, outcome.document_id)
    # As Zotero: the file, its references and the PDFs it brought go into a new folder named after it
    [folder] = documents.list_documents(library, types=[DocumentType.FOLDER])
    assert folder.title == "library" and bib.folder_id == folder.id
    assert {d.folder_id for d in documents.list_documents(library, types=[DocumentType.REFERENCE,
                                                                          DocumentType.FILE])} == {folder.id}
    assert bib.type is DocumentType.FILE and bib.mime_type == "application/x-bibtex"
    assert bib.metadata["entry_count"] == 3 and not documents.list_chunks(library, bib.id)
    assert bib.index_state is IndexState.NOT_INDEXED  # its entries are indexed, as themselves

    refs_ = {d.metadata["citation_key"]: d for d in _references(library)}
    assert set(refs_) == {"smith2020", "doe1999"}
    smith = refs_["smith2020"]
    assert smith.title == "Glacier Melt and Sea Level"
    assert smith.metadata["authors"] == ["National Research Council Committee on Science, Technology, and Law",
                                         "Jane Smith"]
    assert smith.metadata["year"] == 2020 and smith.metadata["doi"] == "10.1000/ice.1"
    assert smith.metadata["journal"] == "Journal of Ice" and smith.metadata["entry_type"] == "article"
    assert smith.metadata[relations.LISTED_IN] == [bib.id]
    # keywords → tags under keyword/ (both fields), besides the upload's tag
    assert set(smith.tags) == {"thesis", "keyword/glaciology", "keyword/sea-level", "keyword/climate",
                               "keyword/remote-sensing"}
    # the duplicate within the file (same title and year, no DOI) gave its abstract to the first
    assert smith.metadata["abstract"] == "Ice sheets lose mass faster than models predicted."
    chunks = documents.list_chunks(library, smith.id)
    assert len(chunks) == 1 and chunks[0].section == "smith2020"
    assert chunks[0].text.startswith("Glacier Melt and Sea Level. National Research Council Committee")
    assert chunks[0].text.endswith("Ice sheets lose mass faster than models predicted.")
    assert set(report.document_ids) >= {bib.id, smith.id, refs_["doe1999"].id}


def test_the_entrys_pdf_is_imported_and_linked(library, refs, upload):
    report = upload(library, [refs / "library.bib"])
    attachments = {Path(a.path).name: a for a in report.outcomes[0].references.attachments}
    assert attachments["smith2020.pdf"].status == "imported"  # relative to the .bib's folder
    assert attachments["permafrost.pdf"].status == "imported"  # an absolute path elsewhere: found by name beside
    refs_ = {d.metadata["citation_key"]: d for d in _references(library)}
    pdf = documents.get_document(library, attachments["smith2020.pdf"].document_id)
    assert pdf.type is DocumentType.FILE and pdf.mime_type == "application/pdf"
    assert refs_["smith2020"].metadata[relations.ATTACHMENTS] == [pdf.id]
    assert pdf.metadata["year"] == 2020 and pdf.metadata["doi"] == "10.1000/ice.1"  # the table's columns
    assert pdf.metadata["authors"] == refs_["smith2020"].metadata["authors"]

    links = relations.document_links(library, pdf.id)
    assert [d.id for d in links.attached_to] == [refs_["smith2020"].id]
    bib_links = relations.document_links(library, report.outcomes[0].document_id)
    assert bib_links.entry_count == 2 and {d.id for d in bib_links.entries} == {d.id for d in refs_.values()}
    ref_links = relations.document_links(library, refs_["smith2020"].id)
    assert [d.title for d in ref_links.listed_in] == ["library"] and [d.id for d in ref_links.attachments] == [pdf.id]


def test_a_pdf_already_in_the_library_is_linked_not_imported_twice(library, refs, upload):
    first = upload(library, [refs / "papers" / "smith2020.pdf"])
    report = upload(library, [refs / "library.bib"])
    attached = {Path(a.path).name: a for a in report.outcomes[0].references.attachments}["smith2020.pdf"]
    assert attached.status == "duplicate" and attached.document_id == first.outcomes[0].document_id
    assert len(documents.list_documents(library, types=[DocumentType.FILE])) == 3  # two PDFs and the .bib


def test_a_folder_upload_imports_the_pdfs_first_and_links_them(library, refs, upload):
    report = upload(library, [refs])
    names = [Path(o.path).name for o in report.outcomes]
    assert names[-1] == "library.bib"  # bibliographies last
    smith = next(d for d in _references(library) if d.metadata["citation_key"] == "smith2020")
    pdf = documents.get_document(library, smith.metadata[relations.ATTACHMENTS][0])
    assert pdf.metadata["original_name"] == "smith2020.pdf" and pdf.folder_id is not None  # in refs/papers


def test_duplicates_across_files_are_merged_without_losing_data(library, refs, tmp_path, upload):
    upload(library, [refs / "library.bib"])
    ris = tmp_path / "export.ris"
    ris.write_text("TY  - JOUR\nTI  - Glacier melt and sea-level rise (preprint title)\nAU  - Smith, Jane\n"
                   "PY  - 2020\nDO  - https://doi.org/10.1000/ice.1\nVL  - 12\nKW  - Arctic\nER  - \n"
                   "TY  - BOOK\nTI  - PERMAFROST\nAU  - Doe, J.\nPY  - 1999\nER  - \n"
                   "TY  - JOUR\nTI  - A new paper\nAU  - Roe, R.\nPY  - 2021\nER  - \n", encoding="utf-8")
    report = upload(library, [ris])
    listing = report.outcomes[0].references
    assert [e.status for e in listing.entries] == ["merged", "merged", "imported"]
    assert listing.summary.startswith("1 reference from export.ris into folder “export” (2 duplicates merged")
    refs_ = {d.metadata.get("citation_key"): d for d in _references(library)}
    assert len(refs_) == 3
    smith = refs_["smith2020"]
    assert smith.title == "Glacier Melt and Sea Level"  # nothing overwritten
    assert smith.metadata["volume"] == "12" and "keyword/arctic" in smith.tags  # missing field and keyword added
    assert smith.metadata[relations.LISTED_IN] == [report_bib_id(library), report.outcomes[0].document_id]
    assert documents.list_versions(library, smith.id)[-1].reason == "merged a duplicate bibliography entry"


def report_bib_id(library) -> str:
    return next(d.id for d in documents.list_documents(library, types=[DocumentType.FILE])
                if d.metadata.get("original_name") == "library.bib")


def test_two_dois_are_two_works_even_with_one_title(library, tmp_path, upload):
    bib = tmp_path / "two.bib"
    bib.write_text("@article{a, title={Results}, year=2020, doi={10.1000/a}}\n"
                   "@article{b, title={Results}, year=2020, doi={10.1000/b}}\n"
                   "@article{c, title={Results}, year=2021}\n", encoding="utf-8")
    report = upload(library, [bib])
    assert [e.status for e in report.outcomes[0].references.entries] == ["imported"] * 3


def test_reimporting_an_updated_file_updates_its_entries(library, refs, upload):
    first = upload(library, [refs / "library.bib"])
    bib_id = first.outcomes[0].document_id
    again = upload(library, [refs / "library.bib"])
    assert again.outcomes[0].status == "duplicate"  # the same file: nothing to do
    (refs / "library.bib").write_text(BIB.replace("{Permafrost}", "{Permafrost: a history}")
                                      .replace("Polar Press", "Arctic Books"), encoding="utf-8")
    updated = upload(library, [refs / "library.bib"])
    outcome = updated.outcomes[0]
    assert outcome.status == "updated" and outcome.document_id == bib_id
    statuses = {e.key: e.status for e in outcome.references.entries}
    assert statuses == {"smith2020": "unchanged", "smith2020b": "duplicate", "doe1999": "updated"}
    refs_ = {d.metadata["citation_key"]: d for d in _references(library)}
    assert len(refs_) == 2
    doe = refs_["doe1999"]
    assert doe.title == "Permafrost: a history" and doe.metadata["publisher"] == "Arctic Books"
    assert documents.list_chunks(library, doe.id)[0].text.startswith("Permafrost: a history. John Doe. 1999.")
    assert documents.list_versions(library, doe.id)[-1].title == "Permafrost"  # the previous state is kept


def test_a_trashed_duplicate_comes_back(library, refs, upload):
    upload(library, [refs / "library.bib"])
    doe = next(d for d in _references(library) if d.metadata["citation_key"] == "doe1999")
    documents.set_status(library, doe.id, DocumentStatus.DELETED)
    report = add_references(library, "@book{x, title={Permafrost}, author={Doe, John}, year=1999}")
    assert report.entries[0].document_id == doe.id and "restored from the trash" in report.entries[0].reason
    assert documents.get_document(library, doe.id).status is DocumentStatus.ACTIVE


def test_pasted_bibtex_of_several_entries_makes_one_reference_each(library):
    pasted = ("@article{p1, title={Alpha}, author={Roe, Ann}, year=2001, keywords={x; y}}\n"
              "@article{p2, title={Beta}, author={Roe, Ann}, year=2002}\n"
              "@article{p3, title={ALPHA}, author={Roe, A.}, year=2001, doi={10.9999/alpha}}\n")
    doc = documents.add_text(library, pasted, doc_type=DocumentType.REFERENCE, tags=["pasted"])
    assert doc.title == "Alpha" and doc.metadata["doi"] == "10.9999/alpha"
    assert set(doc.tags) == {"pasted", "keyword/x", "keyword/y"}
    assert sorted(d.title for d in _references(library)) == ["Alpha", "Beta"]
    report = add_references(library, pasted)  # the same text again: nothing new
    assert [e.status for e in report.entries] == ["duplicate", "duplicate", "duplicate"]
    assert report.summary == "0 references from pasted text (3 duplicates skipped (already there))"
    free = documents.add_text(library, "Roe A. (2003) Gamma. Journal Z.", doc_type=DocumentType.REFERENCE)
    assert free.title.startswith("Roe A.") and len(_references(library)) == 3


def test_a_legacy_opaque_bibliography_is_fanned_out_on_reimport(library, refs, upload):
    """Libraries from before this change hold a .bib as one reference with a chunk per entry."""
    first = upload(library, [refs / "library.bib"])
    bib_id = first.outcomes[0].document_id
    from vancetope_desktop.store import tables
    from vancetope_desktop.store.db import write_session

    for ref in _references(library):
        documents.set_status(library, ref.id, DocumentStatus.DELETED)
        documents.purge_document(library, ref.id)
    with write_session(library.engine) as session:  # make it look like the old import's document
        row = session.get(tables.DocumentRow, bib_id)
        row.type = DocumentType.REFERENCE.value
    report = upload(library, [refs / "library.bib"])
    assert report.outcomes[0].status == "updated" and report.outcomes[0].document_id == bib_id
    assert documents.get_document(library, bib_id).type is DocumentType.FILE
    assert len(_references(library)) == 2


def test_csl_json_and_ris_attachments(library, tmp_path, upload):
    _pdf(tmp_path / "a.pdf", "Paper A about tundra.")
    _pdf(tmp_path / "b.pdf", "Paper B about taiga.")
    csl = tmp_path / "items.csl.json"
    csl.write_text(json.dumps([{"id": "a", "type": "article-journal", "title": "Tundra", "file": "a.pdf",
                                "keyword": "tundra, ecology", "issued": {"date-parts": [[2010]]}}]), "utf-8")
    ris = tmp_path / "items.ris"
    ris.write_text("TY  - JOUR\nTI  - Taiga\nPY  - 2011\nL1  - b.pdf\nER  - \n", encoding="utf-8")
    report = upload(library, [csl, ris])
    for outcome in report.outcomes:
        [attachment] = outcome.references.attachments
        assert attachment.status == "imported", outcome
    by_title = {d.title: d for d in _references(library)}
    assert set(by_title["Tundra"].tags) == {"keyword/tundra", "keyword/ecology"}
    assert by_title["Tundra"].metadata["year"] == 2010
    assert all(relations.ATTACHMENTS in d.metadata for d in by_title.values())


@pytest.mark.slow
def test_search_finds_a_reference_by_topic_and_by_author(library, refs, upload):
    upload(library, [refs / "library.bib"])
    indexing.try_drain(library)
    smith = next(d for d in _references(library) if d.metadata["citation_key"] == "smith2020")
    for query in ("ice sheets losing mass", "National Research Council"):
        hits = search.search(library, query, types=[DocumentType.REFERENCE]).hits
        assert hits and hits[0].document.id == smith.id, query


@pytest.mark.corpus
@pytest.mark.slow
def test_real_bibliographies_entries_in_documents_out(library, corpus, upload):
    """Every entry of the corpus' files is a reference or a reported duplicate of one."""
    report = upload(library, [corpus / "refs"])
    entries = 0
    for outcome in report.outcomes:
        assert outcome.status == "imported", outcome
        listing = outcome.references
        entries += len(listing.entries)
        assert listing.count("imported") + listing.count("merged", "duplicate") == len(listing.entries)
    assert entries == 506 + 988 + 512 + 2 + 26 + 1
    distinct = {e.document_id for o in report.outcomes for e in o.references.entries}
    assert len(_references(library)) == len(distinct)
    nanowire = next(o for o in report.outcomes if o.path.endswith("latex-accents.bib")).references
    assert nanowire.count("imported") >= 500


def test_one_title_and_year_by_other_authors_is_another_work(library):
    """The Mendeley file holds a book and a journal's review of it, with one title and one year."""
    report = add_references(library, "@book{b, title={Teaching children's literature: it's critical!}, year=2013,"
                                     " author={Leland, Christine and Harste, Jerome}, publisher={Routledge}}\n"
                                     "@article{r, title={Teaching Children’s Literature. It’s Critical!}, year=2013,"
                                     " author={Mourão, Sandie}, journal={ELT Journal}}\n"
                                     "@misc{c, title={Teaching children's literature - it's critical}, year=2013,"
                                     " author={C. Leland}}\n"
                                     "@techreport{t, title={Teaching children's literature}, year=2013,"
                                     " author={Leland, C.}}\n"
                                     "@book{u, title={Teaching children's literature}, year=2013,"
                                     " author={Leland, C.}, isbn={978-0}}\n")
    assert [e.status for e in report.entries] == ["imported", "imported", "duplicate", "imported", "imported"]
    assert report.entries[2].document_id == report.entries[0].document_id  # a surname in common: the book


def test_only_pdfs_are_attached(library, tmp_path, upload):
    (tmp_path / "notes.txt").write_text("not a paper", encoding="utf-8")
    (tmp_path / "x.bib").write_text("@misc{k, title={T}, file={:notes.txt:text;:/etc/hostname:text}}", "utf-8")
    listing = upload(library, [tmp_path / "x.bib"]).outcomes[0].references
    assert {a.status for a in listing.attachments} <= {"skipped", "missing"}
    assert len(documents.list_documents(library, types=[DocumentType.FILE])) == 1  # the .bib alone


@pytest.mark.slow
def test_a_large_mendeley_bib_lands_in_its_own_folder_with_its_keywords_under_one_tag(library, corpus, upload):
    # Found by a new user: 512 entries flooded the Tags pane with flat keyword tags and landed in Unfiled.
    # One real import of 512 entries (about 6 s here): the point is the size of a real export.
    report = upload(library, [corpus / "refs/mendeley-export-social-science.bib"])
    listing = report.outcomes[0].references
    assert listing.folder == "mendeley-export-social-science"
    [folder] = documents.list_documents(library, types=[DocumentType.FOLDER])
    filed = documents.count_documents(library, folder_id=folder.id, types=[DocumentType.REFERENCE])
    assert filed == len(_references(library)) > 400
    assert documents.count_documents(library, unfiled=True, types=[DocumentType.REFERENCE, DocumentType.FILE]) == 0
    listed = tags.list_tags(library)
    assert {t.tag.split("/")[0] for t in listed} == {"keyword"}  # 757 keywords, one branch of the tag tree
    assert "keyword/1800-1999" in {t.tag for t in listed}
