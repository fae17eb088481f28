"""Importing, indexing and searching the bundled model's library never imports torch, in any process.

A fresh interpreter imports a note and a PDF (``imports.upload``: its PDF extraction process too), lets
the real indexing process (``workers/index_worker.py``) drain the queue, and searches. Every Python
process of that tree runs with ``PYTHONPROFILEIMPORTTIME=1`` (inherited through the environment), so
each one writes every module it imports to its stderr, which all of them share: no product code is
needed to see what a child process imported.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import json, subprocess, sys
from pathlib import Path
from vancetope_desktop.services import imports, indexing, search
from vancetope_desktop.services.library import Library
from vancetope_desktop.workers import index_worker

root, note, pdf = (Path(a) for a in sys.argv[1:4])
with Library.open(root) as lib:
    report = imports.upload(lib, [note, pdf])
    assert [o.status for o in report.outcomes] == ["imported", "imported"], report
worker = subprocess.Popen([sys.executable, "-m", index_worker.__name__, "--library", str(root)],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
worker.stdin.write("drain\n")
worker.stdin.flush()
indexed = []
for line in worker.stdout:
    event = json.loads(line)
    assert event["event"] not in ("error", "busy"), event
    if event["event"] == "drained":
        assert not event["failed"], event
        indexed.append(event["indexed"])
        if sum(indexed) == 2:
            break
worker.stdin.close()
assert worker.wait(timeout=60) == 0
with Library.open(root) as lib:
    hits = search.search(lib, "morphisms between objects of a category").hits
    assert hits and hits[0].meaning_basis == "passage" and "ategor" in hits[0].document.title, hits[:1]
    status = indexing.index_status(lib)
    assert status.index_model == "bundled:all-MiniLM-L6-v2" and not status.reindex_needed, status
    assert not status.problems and status.queued_jobs == 0, status
    assert {c.model for c in lib.vectors.collections() if c.count} == {"all-MiniLM-L6-v2 int8"}  # the default
print("ok")
"""

# One line per import: "import time: self [us] | cumulative | <indent>module.name".
PACKAGE = re.compile(r"^import time:.*\|\s*vancetope_desktop\s*$", re.MULTILINE)
HEAVY = re.compile(r"^import time:.*\|\s*(torch|sentence_transformers|transformers)(\.|\s*$)", re.MULTILINE)


@pytest.mark.slow  # three processes and a PDF: ~10 s
@pytest.mark.corpus
def test_import_index_and_search_never_import_torch(corpus: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONPROFILEIMPORTTIME": "1",
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    note = corpus / "notes" / "category-theory-overview.md"
    pdf = corpus / "pdf-edge" / "ligature-fl-text.pdf"
    result = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "library"), str(note), str(pdf)],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr[-3000:]
    # The log covers this script, the extraction process and the indexing process (each imports the package).
    assert len(PACKAGE.findall(result.stderr)) >= 3, result.stderr[-2000:]
    assert not HEAVY.findall(result.stderr), sorted({m.group(0)[-80:] for m in HEAVY.finditer(result.stderr)})
