"""`memory upload` of folders holding files cut short, fuzzed or made to hang the PDF reader: every
file gets its outcome, the folder goes on, and the JSON report stays valid."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hostile_pdfs import cut_copies, looping_pdf
from vancetope_desktop.core.documents import IndexState
from vancetope_desktop.core.settings import Settings
from vancetope_desktop.services import documents
from vancetope_desktop.services.library import Library

pytestmark = pytest.mark.slow
CLI = [sys.executable, "-m", "vancetope_desktop.cli.main"]
REPO = Path(__file__).resolve().parents[2]


def upload(library: Path, folder: Path, timeout: float) -> tuple[subprocess.CompletedProcess, dict[str, dict]]:
    env = dict(os.environ, VANCETOPE_LIBRARY=str(library),
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([*CLI, "memory", "upload", str(folder), "--json", "--no-wait"], capture_output=True,
                          text=True, env=env, timeout=timeout)
    report = json.loads(done.stdout)  # MuPDF's complaints used to land here and break the JSON
    return done, {Path(o["path"]).name: o for o in report["outcomes"]}


def test_files_cut_short_in_a_folder_are_reported_and_the_rest_imported(corpus, tmp_path):
    folder = tmp_path / "papers"
    folder.mkdir()
    papers = corpus / "papers"
    good = ["black-hole-singularities-collision-arxiv1805.05865.pdf", "vespa-evolutionary-selective-pressure-peerj.pdf"]
    for name in good:
        shutil.copy(papers / name, folder / name)
    cut = [*cut_copies(papers / "stressful-life-events-dementia-psychogeriatrics.pdf", folder,
                       fractions=(0.02, 0.3, 0.6, 0.9, 0.999)),
           *cut_copies(papers / "s2orc-open-research-corpus-acl2020.pdf", folder, fractions=(0.3, 0.999)),
           # Page trees MuPDF cannot count: "RuntimeError: code=7" stopped the whole folder here.
           *cut_copies(corpus / "pdf-edge/unopenable-fuzzed.pdf", folder, lengths=(124, 238))]
    library = tmp_path / "lib"
    done, outcomes = upload(library, folder, timeout=600)

    assert done.returncode == 1, done.stderr  # some files failed
    assert sorted(outcomes) == sorted([*good, *(c.name for c in cut)])
    for name in good:
        assert outcomes[name]["status"] == "imported"
    for name in ("unopenable-fuzzed-124b.pdf", "unopenable-fuzzed-238b.pdf"):
        assert outcomes[name]["status"] == "failed"
        assert "is damaged: its pages cannot be counted" in outcomes[name]["reason"]
    for copy in cut:
        outcome = outcomes[copy.name]
        assert outcome["status"] in ("imported", "failed"), outcome
        if outcome["status"] == "failed":
            assert copy.name in done.stderr and "damaged" in outcome["reason"]
    # Damaged files are kept, failed, for a retry with the whole file; the others are queued for indexing.
    with Library.open(library) as lib:
        for outcome in outcomes.values():
            doc = documents.get_document(lib, outcome["document_id"])
            failed = outcome["status"] == "failed"
            assert (doc.index_state == IndexState.FAILED) == failed
            assert bool(documents.list_chunks(lib, doc.id)) != failed


def test_a_pdf_that_makes_the_reader_loop_is_stopped_and_the_folder_goes_on(corpus, tmp_path):
    folder = tmp_path / "incoming"
    folder.mkdir()
    shutil.copy(corpus / "papers/black-hole-singularities-collision-arxiv1805.05865.pdf", folder / "a-paper.pdf")
    (folder / "b-never-ends.pdf").write_bytes(looping_pdf())
    shutil.copy(corpus / "notes" / "math-convolutions.md", folder / "c-note.md")
    library = tmp_path / "lib"
    # The looping file would take hours, and holds a core until the limit: 4 s, still 40 times the paper's and
    # the note's reads (0.1 s when idle; the worker's start-up is not counted: process_pool waits for "ready").
    Library.open(library, settings=Settings(extraction_timeout_s=4)).close()
    # Without a time limit the upload never ends: the subprocess timeout turns that into a failure.
    done, outcomes = upload(library, folder, timeout=300)

    assert done.returncode == 1, done.stderr
    for name in ("a-paper.pdf", "c-note.md"):
        assert outcomes[name]["status"] == "imported", outcomes[name]
    looping = outcomes["b-never-ends.pdf"]
    assert looping["status"] == "failed"
    assert "b-never-ends.pdf: reading it took longer than 4 s and was stopped" in looping["reason"]
    with Library.open(library) as lib:
        assert documents.get_document(lib, looping["document_id"]).index_state == IndexState.FAILED
