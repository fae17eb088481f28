"""`vancetope memory annotate / annotations / edit-annotation / export-annotations` on a small PDF."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tests.services.test_annotations import PAGE_ONE, PAGE_TWO, make_pdf
from vancetope_desktop.cli.main import app
from vancetope_desktop.ingest.mupdf import pymupdf
from vancetope_desktop.ingest.registry import extract_file
from vancetope_desktop.services import imports
from vancetope_desktop.services.library import Library


@pytest.fixture
def pdf_library(tmp_path, library_at):
    """A library holding one two-page PDF (imported in-process: no extraction worker to start): embedded, then a
    team library (``library_at``)."""
    lib = Library.open(library_at(tmp_path / "lib"))
    try:
        report = imports.upload(lib, [make_pdf(tmp_path / "paper.pdf", [PAGE_ONE, PAGE_TWO])], extractor=extract_file)
    finally:
        lib.close()
    return str(tmp_path / "lib"), report.outcomes[0].document_id


def run(library, *args, code=0):
    result = CliRunner().invoke(app, [*args, "--library", library])
    assert result.exit_code == code, result.output + str(result.exception)
    return result


def test_annotate_list_edit_and_export(pdf_library, tmp_path):
    library, doc_id = pdf_library
    made = json.loads(run(library, "memory", "annotate", doc_id, "--text", "Flash kernels fuse", "--note",
                          "fast path", "--color", "blue", "--no-wait", "--json").stdout)
    assert (made["page"], made["kind"], made["color"]) == (2, "highlight", "#90caf9")
    run(library, "memory", "annotate", doc_id, "--page", "1", "--note", "read first", "--no-wait")
    listed = json.loads(run(library, "memory", "annotations", doc_id, "--json").stdout)
    assert [(a["page"], a["kind"]) for a in listed] == [(1, "note"), (2, "highlight")]
    text = run(library, "memory", "annotations", doc_id).stdout
    assert f"{made['id']}  p. 2  highlight" in text and '"Flash kernels fuse"' in text
    run(library, "memory", "edit-annotation", made["id"], "--note", "fused softmax", "--no-wait")
    markdown = run(library, "memory", "export-annotations", doc_id).stdout
    assert "> Flash kernels fuse\n\nfused softmax" in markdown and "**Note:** read first" in markdown
    target = tmp_path / "annotated.pdf"
    written = run(library, "memory", "export-annotations", doc_id, "-o", str(target)).stdout  # format from .pdf
    assert "2 annotations" in written
    with pymupdf.open(str(target)) as copy:
        pages = [copy[0], copy[1]]  # kept referenced: an annotation outliving its page crashes MuPDF
        assert all(page.first_annot is not None for page in pages)


def test_annotate_says_what_is_wrong(pdf_library):
    library, doc_id = pdf_library
    assert "say what to annotate" in run(library, "memory", "annotate", doc_id, code=2).output
    assert "not in" in run(library, "memory", "annotate", doc_id, "--text", "absent words", code=2).output
    assert "-o FILE.pdf" in run(library, "memory", "export-annotations", doc_id, "-f", "pdf", code=2).output
