"""``memory upload`` embeds each file's chunks while the next file is extracted (``indexing.drain_alongside``),
and ends with everything searchable and the damaged file reported (real PDFs, worker process, model, Chroma)."""

from __future__ import annotations

import json
import re
import shutil

import pytest

pytestmark = pytest.mark.slow


def test_a_cli_upload_indexes_each_file_alongside_and_reports_a_damaged_one(cli, corpus, tmp_path):
    folder = tmp_path / "papers"
    folder.mkdir()
    for name in ("black-hole-singularities-collision-arxiv1805.05865.pdf",
                 "phytochemical-investigations-phoenix-paludosa.pdf"):
        shutil.copy(corpus / "papers" / name, folder / name)
    (folder / "c-damaged.pdf").write_bytes(b"%PDF-1.7\nnot a PDF body\n")

    result = cli("memory", "upload", str(folder), "--json", ok=False)

    assert result.exit_code == 1, result.output  # the damaged PDF
    report = json.loads(result.stdout)
    assert sorted(o["status"] for o in report["outcomes"]) == ["failed", "imported", "imported"]
    status = json.loads(cli("index", "status", "--json").stdout)
    assert status["queued_jobs"] == 0 and "pending" not in status["states"]  # (the folder is "not_indexed")
    assert status["states"]["indexed"] == 2 and status["states"]["failed"] == 1
    assert status["problems"] == []


def test_the_upload_counts_the_chunks_embedded_and_those_found_by_words_only(cli, corpus):
    """Each file's chunks and the summary say which get vectors, so they agree with "indexed … N chunks" (a paper's
    references and author lists are found by their words only)."""
    result = cli("memory", "upload", str(corpus / "papers" / "black-hole-singularities-collision-arxiv1805.05865.pdf"))
    indexed = re.search(r"indexed 1 document\(s\), (\d+) chunks", result.stderr)
    line = re.search(r"\((\d+) chunks \+ (\d+) by words only\)", result.stdout)
    summary = re.search(r"(\d+) chunks embedded for search by meaning; (\d+) found by words only", result.stdout)
    assert indexed and line and summary, result.output
    assert indexed[1] == line[1] == summary[1] and line[2] == summary[2] != "0"
