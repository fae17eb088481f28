"""Kill the CLI in the middle of an upload, start again: everything indexed exactly once."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

from vancetope_desktop.services import indexing
from vancetope_desktop.services.library import Library

CLI = [sys.executable, "-m", "vancetope_desktop.cli.main"]


def _indexed(db):
    try:
        with sqlite3.connect(db, timeout=30) as con:
            return con.execute("SELECT count(*) FROM document WHERE index_state='indexed'").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


PAPERS = [  # ~20 pages: batches enough to be killed in the middle of (after the first paper is indexed)
    "iron-deficiency-anaemia-helicobacter-pylori-meta-analysis.pdf",
    "phytochemical-investigations-phoenix-paludosa.pdf",
    "stressful-life-events-dementia-psychogeriatrics.pdf",
]


def test_kill_mid_upload_then_resume(tmp_path, corpus):
    library = tmp_path / "lib"
    papers = tmp_path / "papers"
    papers.mkdir()
    for name in PAPERS:
        (papers / name).symlink_to(corpus / "papers" / name)
    env = dict(os.environ, VANCETOPE_LIBRARY=str(library))
    process = subprocess.Popen([*CLI, "memory", "upload", str(papers)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 240
    while _indexed(library / "library.sqlite") < 1 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.2)
    assert process.poll() is None, "the upload finished before it could be killed"
    process.send_signal(signal.SIGKILL)
    process.wait()

    # Start again: the same upload resumes (imported files are duplicates), the queue drains.
    again = subprocess.run([*CLI, "memory", "upload", str(papers), "--json"], env=env,
                           capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    with Library.open(library) as lib:
        assert indexing.try_drain(lib).chunks == 0
        with sqlite3.connect(library / "library.sqlite") as con:
            rows = con.execute(
                "SELECT d.id, d.scope_path, count(c.id) FROM document d JOIN chunk c ON c.document_id = d.id "
                "WHERE d.index_state = 'indexed' AND c.role = 'body' GROUP BY d.id"
            ).fetchall()
            assert con.execute("SELECT count(*) FROM document WHERE index_state='pending'").fetchone()[0] == 0
            imported = con.execute("SELECT count(*) FROM document WHERE type='file'").fetchone()[0]
        assert imported == len(PAPERS)
        total = 0
        for doc_id, scope, chunks in rows:
            ids, _, _ = lib.vectors.document_vectors(scope, doc_id)
            assert len(ids) == chunks == len(set(ids)), doc_id
            total += chunks
        assert sum(info.count for info in lib.vectors.collections()) == total
