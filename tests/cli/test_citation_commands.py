"""`vancetope export`, `vancetope cite` and `vancetope memory citekey`, in-process (typer's runner)."""

import json

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.ingest.bibliography import parse_ris
from vancetope_desktop.ingest.bibtex import parse_bibtex
from vancetope_desktop.services import documents, folders
from vancetope_desktop.services.bibliography import add_references
from vancetope_desktop.services.library import Library

BIB = """@article{smith2020,
  author = {Smith, Jane and {World Glacier Monitoring Service}},
  title = {Glacier melt and sea level},
  journal = {Journal of Ice},
  year = {2020},
}
"""


def test_export_cite_and_edit_a_key(cli, tmp_path):
    # The library is filled through the services (each command run opens it: a second or so apiece).
    with Library.open(tmp_path / "lib") as lib:
        ref_id = add_references(lib, BIB).entries[0].document_id
        folder = folders.create_folder(lib, "Thesis").id
        made = documents.add_text(lib, "Ice shelves thin from below.", doc_type=DocumentType.NOTE,
                                  title="Shelf notes", folder_id=folder)
        note = {"id": made.id, "created_at": made.created_at.isoformat()}

    # the format follows the file's suffix; the summary goes to stderr
    target = tmp_path / "out" / "refs.ris"
    target.parent.mkdir()
    result = cli("export", ref_id, note["id"], "-o", str(target))
    assert "exported as RIS to" in result.stderr and "2 found, 2 exported" in result.stderr  # a note by id too
    entries = parse_ris(target.read_text(encoding="utf-8")).entries
    assert [e.key for e in entries] == ["smith2020", "shelf"]

    folder_export = cli("export", "--folder", folder, "--format", "bibtex")  # a folder's note is not a work
    assert folder_export.stdout == "" and "1 notes and annotations left out" in folder_export.stderr
    everything = json.loads(cli("export", "--format", "csl-json").stdout)
    assert {i["id"] for i in everything} == {"smith2020"}

    cited = cli("cite", ref_id, "--style", "ieee").stdout
    assert "J. Smith and World Glacier Monitoring Service" in cited and "2020" in cited
    assert "<i>Journal of Ice</i>" in cli("cite", ref_id, "--style", "ieee", "--html").stdout

    assert cli("memory", "citekey", ref_id, "glacier20").stdout.strip() == "glacier20"
    refused = cli("memory", "citekey", note["id"], "glacier20", ok=False)
    assert refused.exit_code == 2 and "already the key of" in refused.output
    assert cli("export", ref_id, "-o", str(tmp_path / "refs.docx"), ok=False).exit_code == 2
    assert cli("cite", ok=False).exit_code == 2


def test_export_writes_a_paper_and_its_reference_once(cli, tmp_path):
    # Found by a new user: a PDF and its bibliography entry with one DOI were written as two entries.
    with Library.open(tmp_path / "lib") as lib:
        folder = folders.create_folder(lib, "Thesis").id
        ref = add_references(lib, BIB.replace("year = {2020},", "year = {2020}, doi = {10.1000/ice},"),
                             folder_id=folder).entries[0].document_id
        paper = documents.add_text(lib, "Glacier melt text.", doc_type=DocumentType.NOTE, title="paper.pdf",
                                   folder_id=folder, metadata={"doi": "10.1000/ICE"})  # stands for the PDF's record
    written = tmp_path / "thesis.bib"
    result = cli("export", ref, paper.id, "-o", str(written))
    assert "2 found, 1 exported; 1 the same work as another" in result.stderr
    assert [e.key for e in parse_bibtex(written.read_text(encoding="utf-8")).entries] == ["smith2020"]
    listed = json.loads(cli("export", ref, paper.id, "--json").stdout)
    assert listed["same_work"] == {paper.id: ref}
