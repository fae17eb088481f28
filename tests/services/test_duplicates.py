"""Likely duplicates (same content, DOI, or title and year) and merging them: what the survivor keeps."""

from __future__ import annotations

from pathlib import Path

import pytest

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.ingest.registry import extract_file
from vancetope_desktop.services import audit, documents, duplicates, folders, imports, relations, scopes, sharing
from vancetope_desktop.store.db import write_session


@pytest.fixture
def library(any_library):
    """Each test on the embedded library and on one whose database is PostgreSQL (issue 17)."""
    return any_library


def _note(lib, text: str, *, title: str | None = None, metadata=None, tags=(), folder_id=None, scope=None,
          derived_from=()):
    return documents.add_text(lib, text, doc_type=DocumentType.NOTE, title=title, metadata=metadata, tags=tags,
                              folder_id=folder_id, scope=scope, derived_from=derived_from)


def _set_meta(lib, doc_id: str, **fields) -> None:
    with write_session(lib.engine) as session:
        from vancetope_desktop.services import records

        row = records.document_row(session, doc_id)
        row.meta = {**row.meta, **fields}
        session.add(row)


def test_duplicates_are_paired_by_content_doi_and_title_with_year_and_say_why(library):
    same_a = _note(library, "Sea level rose 3 mm a year.", title="Sea level")
    same_b = _note(library, "Sea level rose 3 mm a year.", title="Sea level copy")
    doi_a = _note(library, "first text", title="One", metadata={"doi": "https://doi.org/10.1000/ABC"})
    doi_b = _note(library, "second text", title="Two", metadata={"doi": "10.1000/abc"})
    title_a = _note(library, "a", title="Über {GaN}: a Study.", metadata={"year": 2020})
    title_b = _note(library, "b", title="uber GaN - A study", metadata={"year": "2020"})
    _note(library, "c", title="uber GaN - A study", metadata={"year": 2021})  # another year: another work

    groups = duplicates.find_duplicates(library)

    by_ids = {frozenset(d.id for d in g.documents): g for g in groups}
    assert set(by_ids) == {frozenset({same_a.id, same_b.id}), frozenset({doi_a.id, doi_b.id}),
                           frozenset({title_a.id, title_b.id})}
    assert by_ids[frozenset({same_a.id, same_b.id})].reason == "same text"
    assert by_ids[frozenset({doi_a.id, doi_b.id})].reason == "same DOI 10.1000/abc"
    assert by_ids[frozenset({title_a.id, title_b.id})].reason == "same title and year (2020)"
    assert by_ids[frozenset({doi_a.id, doi_b.id})].keep_id == doi_a.id  # no file on either side: the oldest


def test_the_view_covers_what_the_scope_sees_and_a_file_is_the_default_survivor(library, tmp_path):
    project = scopes.create_scope(library, "project", "p1").path
    text = tmp_path / "finding.md"
    text.write_text("# Finding\n\nThe coral bleached at 31 degrees.\n", encoding="utf-8")
    note = _note(library, "# Finding\n\nThe coral bleached.\n", title="Finding", scope=project,
                 metadata={"year": 2024})
    upload = imports.upload(library, [text], scope=project, extractor=extract_file).outcomes[0]
    _set_meta(library, upload.document_id, year=2024)
    other = scopes.create_scope(library, "project", "p2").path

    [group] = duplicates.find_duplicates(library, scope=project)

    assert group.keep_id == upload.document_id  # the one with a file, though the note is older
    assert {d.id for d in group.documents} == {note.id, upload.document_id}
    assert duplicates.find_duplicates(library, scope=other) == []


def test_a_reference_and_its_attached_file_are_not_duplicates(library):
    pdf = _note(library, "the paper's text", title="Coral heat", metadata={"year": 2019, "doi": "10.5/x"})
    ref = _note(library, "citation", title="Coral heat", metadata={"year": 2019, "doi": "10.5/x",
                                                                   "attachments": [pdf.id]})
    assert duplicates.find_duplicates(library) == []
    twin = _note(library, "again", title="Coral heat", metadata={"year": 2019})
    [group] = duplicates.find_duplicates(library)
    assert twin.id in {d.id for d in group.documents} and len(group.documents) == 2
    assert not {pdf.id, ref.id} <= {d.id for d in group.documents}


def test_merging_keeps_tags_folder_metadata_relations_and_trashes_the_other_with_an_audit_entry(library):
    folder = folders.create_folder(library, "Reading")
    keep = _note(library, "kept text", title="Paper", tags=["coral"],
                 metadata={"doi": "10.9/p", "citation_key": "smith2020coral", "reading_status": "unread"})
    gone = _note(library, "other text", title="Paper (copy)", tags=["heat", "to-read"], folder_id=folder.id,
                 metadata={"doi": "10.9/P", "citation_key": "smith2020", "journal": "Reef Science",
                           "reading_status": "read"})
    result = _note(library, "derived", title="Summary", derived_from=[gone.id])
    elsewhere = scopes.create_scope(library, "project", "elsewhere").path
    sharing.share_document(library, gone.id, elsewhere)

    report = duplicates.merge_groups(library, [(keep.id, [gone.id])])

    assert report.failed == [] and report.outcomes[0].merged_ids == [gone.id]
    kept = documents.get_document(library, keep.id)
    assert set(kept.tags) >= {"coral", "heat", "to-read"}
    assert kept.folder_id == folder.id
    assert kept.metadata["journal"] == "Reef Science"
    assert kept.metadata["citation_key"] == "smith2020coral"
    assert kept.metadata["citation_key_aliases"] == ["smith2020"]
    assert kept.metadata["reading_status"] == "read"
    assert kept.metadata["merged_from"] == [gone.id]
    assert [v.reason for v in documents.list_versions(library, keep.id)] == [f"merged with {gone.id} (Paper (copy))"]
    assert relations.derived_from(library, result.id) == [keep.id]
    assert sharing.shared_with(library, keep.id) == [elsewhere]
    trashed = documents.get_document(library, gone.id)
    assert trashed.status is DocumentStatus.DELETED
    assert [e.reason for e in audit.document_history(library, gone.id)] == [f"merged into {keep.id} (Paper)"]
    assert duplicates.find_duplicates(library) == []
    documents.set_status(library, gone.id, DocumentStatus.ACTIVE)  # recoverable from the trash
    assert documents.get_document(library, gone.id).status is DocumentStatus.ACTIVE


def test_a_failing_group_does_not_block_the_others_and_says_why(library):
    a1 = _note(library, "same one", title="A")
    a2 = _note(library, "same one", title="A again")
    b1 = _note(library, "same two", title="B")
    b2 = _note(library, "same two", title="B again")
    c1 = _note(library, "same three", title="C")
    c2 = _note(library, "same three", title="C again")
    documents.set_status(library, b2.id, DocumentStatus.DELETED)  # trashed since the view was read

    report = duplicates.merge_groups(library, [(a1.id, [a2.id]), (b1.id, [b2.id]), (c1.id, [c2.id]),
                                               ("doc_missing", [c1.id])])

    assert [o.ok for o in report.outcomes] == [True, False, True, False]
    assert "in the trash" in report.outcomes[1].error
    assert "doc_missing" in report.outcomes[3].error
    assert documents.get_document(library, b1.id).metadata.get("merged_from") is None
    assert report.summary == "2 groups merged (2 to the trash), 2 failed"


def test_group_choices_take_the_users_survivor_else_the_default(library):
    a1 = _note(library, "same", title="A")
    a2 = _note(library, "same", title="A2")
    b1 = _note(library, "other", title="B")
    b2 = _note(library, "other", title="B2")
    groups = duplicates.find_duplicates(library)
    assert duplicates.group_choices(groups, keep=[a2.id]) == [(a2.id, [a1.id]), (b1.id, [b2.id])]


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_re_importing_a_file_says_it_is_already_in_the_library_and_names_it(library, tmp_path):
    path = _write(tmp_path / "finding.md", "# Finding\n\nThe coral bleached at 31 degrees.\n")
    first = imports.upload(library, [path], extractor=extract_file).outcomes[0]
    again = imports.upload(library, [_write(tmp_path / "copy" / "same.md", path.read_text())],
                           extractor=extract_file).outcomes[0]
    assert again.status == "duplicate" and again.document_id == first.document_id
    assert again.reason == f"already in your library: Finding ({first.document_id})"


def test_a_folder_named_like_one_there_up_to_case_merges_by_default_or_is_kept_apart(library, tmp_path):
    demo = folders.create_folder(library, "Papers")
    _write(tmp_path / "a" / "papers" / "one.md", "# One\n\nfirst")
    _write(tmp_path / "b" / "PAPERS" / "two.md", "# Two\n\nsecond")
    assert [(n.name, n.existing_id) for n in imports.folder_namesakes(library, [tmp_path / "a" / "papers"])] == [
        ("papers", demo.id)]
    assert imports.folder_namesakes(library, [tmp_path / "a" / "papers"], folder_id=demo.id) == []

    merged = imports.upload(library, [tmp_path / "a" / "papers"], extractor=extract_file)
    kept = imports.upload(library, [tmp_path / "b" / "PAPERS"], extractor=extract_file, namesakes="keep_both")

    assert merged.notices == [f"papers: merged into the existing folder Papers ({demo.id})"]
    assert documents.get_document(library, merged.outcomes[0].document_id).folder_id == demo.id
    assert kept.notices == []
    other = documents.get_document(library, kept.outcomes[0].document_id).folder_id
    assert other != demo.id and documents.get_document(library, other).title == "PAPERS"


def test_re_importing_a_file_merged_away_names_the_survivor_and_leaves_the_copy_in_the_trash(library, tmp_path):
    first = _write(tmp_path / "a" / "finding.md", "# Finding\n\nThe coral bleached.\n")
    second = _write(tmp_path / "b" / "finding-v2.md", "# Finding\n\nThe coral bleached at 31 degrees.\n")
    report = imports.upload(library, [first, second], extractor=extract_file)
    gone, kept = (o.document_id for o in report.outcomes)
    for doc_id in (gone, kept):
        _set_meta(library, doc_id, year=2024)
    [group] = duplicates.find_duplicates(library)
    assert group.reason == "same title and year (2024)"

    duplicates.merge(library, kept, [gone])

    assert documents.get_document(library, kept).metadata["source_path"] == str(second.resolve())
    again = imports.upload(library, [first], extractor=extract_file).outcomes[0]
    assert (again.status, again.document_id) == ("duplicate", kept)
    assert again.reason == f"already in your library: Finding ({kept})"
    assert documents.get_document(library, gone).status is DocumentStatus.DELETED


BIB = """@article{ruiz2019glacier,
  author = {Ruiz, Ana and Berg, Lars}, title = {Glacier melt measured from space},
  journal = {The Cryosphere}, year = {2019}, volume = {13}, pages = {1--20}, doi = {10.5194/tc-13-1-2019},
}
"""


def _paper_and_its_reference(library, tmp_path):
    """A PDF paper (its DOI read or typed in Details) and the bibliography entry of the same work, imported
    apart (not attached): the case a new user met."""
    from vancetope_desktop.ingest.mupdf import pymupdf
    from vancetope_desktop.services.bibliography import add_references

    path = tmp_path / "glacier-paper.pdf"
    pdf = pymupdf.open()
    pdf.new_page().insert_text((72, 72), "Glacier melt measured from space, over ten years.")
    pdf.save(path)
    pdf.close()
    folder = folders.create_folder(library, "Thesis")
    paper = imports.upload(library, [path], folder_id=folder.id, tags=["pdf"], extractor=extract_file).outcomes[0]
    documents.update_document(library, paper.document_id, metadata={"doi": "https://doi.org/10.5194/TC-13-1-2019"})
    ref = add_references(library, BIB, tags=["cryosphere"]).entries[0].document_id
    return folder, paper.document_id, ref


def test_a_paper_and_its_reference_with_one_doi_are_one_work_merged_into_the_paper(library, tmp_path):
    # Found by a new user: they were not offered as duplicates (documents of one type only were paired).
    _folder, paper, ref = _paper_and_its_reference(library, tmp_path)
    note = _note(library, "My summary.", title="Summary")
    documents.update_document(library, note.id, derived_from=[ref])
    [group] = duplicates.find_duplicates(library)
    assert group.keep_id == paper and {d.id for d in group.documents} == {paper, ref}
    assert group.reason == "same DOI 10.5194/tc-13-1-2019"

    duplicates.merge_groups(library, duplicates.group_choices([group]))
    kept = documents.get_document(library, paper)
    assert kept.type is DocumentType.FILE and kept.file_path  # the paper with its file
    assert kept.title == "Glacier melt measured from space"  # the reference's record of the work
    assert (kept.metadata["journal"], kept.metadata["volume"], kept.metadata["authors"]) == (
        "The Cryosphere", "13", ["Ana Ruiz", "Lars Berg"])
    assert kept.metadata["citation_key"] == "ruiz2019glacier"  # the key a manuscript cites it by
    assert set(kept.tags) == {"pdf", "cryosphere"}
    assert relations.derived_from(library, note.id) == [paper]
    assert documents.get_document(library, ref).status is DocumentStatus.DELETED


def test_a_paper_without_a_doi_and_its_reference_pair_by_title_and_year(library, tmp_path):
    # Found by a new user: a .bib entry for a paper already in the library (no DOI on the PDF) was not offered.
    from vancetope_desktop.services.bibliography import add_references

    path = tmp_path / "glacier-paper.pdf"
    from vancetope_desktop.ingest.mupdf import pymupdf

    pdf = pymupdf.open()
    pdf.new_page().insert_text((72, 72), "Glacier melt measured from space, over ten years.")
    pdf.save(path)
    pdf.close()
    paper = imports.upload(library, [path], extractor=extract_file).outcomes[0].document_id
    documents.update_document(library, paper, title="Glacier Melt Measured From Space", metadata={"year": 2019})
    ref = add_references(library, BIB.replace(" doi = {10.5194/tc-13-1-2019},", "")).entries[0].document_id
    [group] = duplicates.find_duplicates(library)
    assert group.keep_id == paper and {d.id for d in group.documents} == {paper, ref}
    assert group.reason == "same title and year (2019)"


def test_a_folder_holding_a_paper_and_its_reference_exports_the_work_once(library, tmp_path):
    from vancetope_desktop.services import citations

    folder, paper, ref = _paper_and_its_reference(library, tmp_path)
    folders.move_to_folder(library, ref, folder.id)
    export = citations.export_documents(library, citations.select_documents(library, folder_id=folder.id),
                                        "bibtex")
    assert export.text.count("@article{") == 1 and "@article{ruiz2019glacier," in export.text
    assert list(export.keys) == [ref] and export.same_work == {paper: ref} and export.skipped == []


def test_a_file_another_process_stores_first_is_a_duplicate_not_an_update(library, tmp_path):
    # Two uploads of one file at once (a tester, 3 Dec 2026): each looked for the file before storing it, found
    # nothing, and the second took the first's document for an older version of its file ("updated"), so both read
    # its atoms. The other upload is run where this one waits for the write lock: after its look, before its write.
    note = tmp_path / "survey.md"
    note.write_text("# Survey\n\nHerons nest in alder carr.\n", encoding="utf-8")
    others = []

    def the_other_process_first() -> None:
        if not others:
            others.append(imports.upload(library, [note], extractor=extract_file))

    report = imports.upload(library, [note], extractor=extract_file, before_commit=the_other_process_first)

    (first,) = others[0].outcomes
    (outcome,) = report.outcomes
    assert first.status == "imported"
    assert (outcome.status, outcome.document_id) == ("duplicate", first.document_id)
    assert "already in your library" in outcome.reason and report.document_ids == []
    assert [d.id for d in documents.list_documents(library)] == [first.document_id]
