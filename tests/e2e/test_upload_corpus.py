"""Real files through `memory upload`: every edge PDF, notes, data, and re-import without re-embedding."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from vancetope_desktop.core.documents import IndexState
from vancetope_desktop.services import documents, imports, indexing
from vancetope_desktop.services.library import Library

CLI = [sys.executable, "-m", "vancetope_desktop.cli.main"]


def run_cli(library: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = dict(os.environ, VANCETOPE_LIBRARY=str(library))
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=env, timeout=timeout)


def test_every_edge_pdf_is_reported_and_nothing_is_half_written(tmp_path, corpus):
    library = tmp_path / "lib"
    # --no-wait: this test is about import outcomes; indexing the 352-page book is benchmark material.
    result = run_cli(library, "memory", "upload", str(corpus / "pdf-edge"), "--json", "--no-wait")
    assert result.returncode == 1, result.stderr  # some files cannot be imported: non-zero exit
    report = json.loads(result.stdout)
    by_name = {Path(o["path"]).name: o for o in report["outcomes"]}
    assert len(by_name) == len(list((corpus / "pdf-edge").glob("*.pdf")))
    assert by_name["encrypted-aes256-user-password.pdf"]["status"] == "failed"
    assert "password" in by_name["encrypted-aes256-user-password.pdf"]["reason"]
    assert by_name["encrypted-owner-password-only.pdf"]["status"] == "imported"
    assert by_name["unopenable-fuzzed.pdf"]["status"] == "failed"
    assert by_name["zero-pages.pdf"]["status"] == "failed" and by_name["zero-pages.pdf"]["document_id"] is None
    for scan in ("scanned-image-only-ocr-sample.pdf", "scanned-german-form-8-pages.pdf",
                 "arabic-font-without-tounicode.pdf"):
        assert by_name[scan]["status"] == "needs_ocr"
    assert by_name["long-book-352-pages.pdf"]["status"] == "imported"
    assert by_name["long-book-352-pages.pdf"]["pages"] == 352
    for name in ("broken-xref-keyword-missing.pdf", "junk-before-pdf-header.pdf", "chinese-financial-tables.pdf",
                 "ligature-fl-text.pdf", "jbig2-decompression-bomb.pdf", "poster-a1-huge-page.pdf"):
        assert by_name[name]["status"] == "imported", by_name[name]
    # Every failure is reported with a reason on stderr.
    for outcome in report["outcomes"]:
        if outcome["status"] == "failed":
            assert outcome["reason"] and Path(outcome["path"]).name in result.stderr
    # What the upload wrote, read here through the services (a `memory list` and an `index status` process cost
    # 5 CPU s to say the same). Sources with text got their summary at import (the 352-page book's read in bounded
    # parts); scans have none.
    with Library.open(library) as lib:
        listed = {d.id: d.metadata for d in documents.list_documents(lib)}
        status = indexing.index_status(lib)
    book = listed[by_name["long-book-352-pages.pdf"]["document_id"]]["profile"]
    assert "Free Culture" in book["summary"] and "Copyright" in book["keywords"] and 3 <= len(book["topics"]) <= 5
    assert "profile" not in listed[by_name["scanned-image-only-ocr-sample.pdf"]["document_id"]]
    # Scans and the font without a usable text layer need OCR; two encrypted files and the fuzzed one failed.
    assert status.states["needs_ocr"] == 3 and status.states["failed"] == 3
    assert status.states["pending"] == status.queued_jobs == len(report["outcomes"]) - 7

    # The password-protected file, retried with its password, imports with its text.
    retry = run_cli(library, "memory", "upload", str(corpus / "pdf-edge" / "encrypted-aes256-user-password.pdf"),
                    "--password", "asdfzxcv", "--json", "--no-wait")
    outcome = json.loads(retry.stdout)["outcomes"][0]
    assert retry.returncode == 0, retry.stderr
    assert outcome["status"] in ("imported", "updated")


def test_reimport_of_unchanged_files_embeds_nothing(library, corpus, tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    for name in ("foam-nested-tags.md", "math-convolutions.md", "utf8-bom-frontmatter.md"):
        (notes / name).write_bytes((corpus / "notes" / name).read_bytes())
    first = imports.upload(library, [notes])
    indexing.try_drain(library)
    generation = library.index_generation()
    second = imports.upload(library, [notes])
    assert {o.status for o in second.outcomes} == {"duplicate"}
    assert indexing.try_drain(library).chunks == 0
    assert library.index_generation() == generation
    # A changed file at the same path becomes a new version of the same document.
    target = notes / "math-convolutions.md"
    target.write_text(target.read_text(encoding="utf-8") + "\n\n## Added\nA brand new paragraph.\n", encoding="utf-8")
    third = imports.upload(library, [target])
    assert third.outcomes[0].status == "updated"
    original = next(o for o in first.outcomes if o.path.endswith("math-convolutions.md"))
    assert third.outcomes[0].document_id == original.document_id
    assert documents.get_document(library, original.document_id).version == 2
    indexing.try_drain(library)
    assert documents.get_document(library, original.document_id).index_state is IndexState.INDEXED


def test_folder_upload_mirrors_folders_and_reports_each_file(library, corpus):
    report = imports.upload(library, [corpus / "notes", corpus / "data"], tags=["corpus"])
    statuses = {Path(o.path).name: o.status for o in report.outcomes}
    assert statuses["empty-note.md"] == "failed"
    assert statuses["latin1-encoded-table.md"] == "imported"
    assert statuses["semicolon-delimited.csv"] == "imported"
    top = [d for d in documents.list_documents(library) if d.type.value == "folder"]
    assert {d.title for d in top} == {"notes", "data"}
    inside = documents.list_documents(library, folder_id=next(d.id for d in top if d.title == "notes"))
    assert len(inside) == len([o for o in report.outcomes if "/notes/" in o.path and o.document_id])
    tagged = documents.list_documents(library, tag_filter=None)
    assert all("corpus" in d.tags for d in tagged if d.type.value != "folder")


@pytest.mark.parametrize("form", ["NFC", "NFD"])
def test_odd_file_names(library, corpus, tmp_path, form):
    import unicodedata

    name = unicodedata.normalize(form, "Über die Rückkehr 日本語 notes.md")
    path = tmp_path / name
    path.write_bytes((corpus / "notes" / "foam-nested-tags.md").read_bytes())
    report = imports.upload(library, [path])
    assert report.outcomes[0].status == "imported"
    doc = documents.get_document(library, report.outcomes[0].document_id)
    assert doc.metadata["original_name"] == unicodedata.normalize("NFC", name)
