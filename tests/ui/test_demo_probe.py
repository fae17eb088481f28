"""``vancetope-desktop --demo-probe`` (issue 16): the check the frozen bundle is put through, run here from the
source checkout: the window installs the demo, its index worker process embeds it, a search in the window answers."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.services import documents
from vancetope_desktop.ui.demo_probe import DemoProbe


@pytest.mark.slow
def test_the_demo_probe_installs_indexes_and_searches_the_demo(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "VANCETOPE_CONFIG_DIR": str(tmp_path / "config")}
    done = subprocess.run([sys.executable, "-m", "vancetope_desktop.app", "--library", str(tmp_path / "library"),
                           "--demo-probe"], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("demo installed: 7 documents")
    assert lines[1].startswith("indexed by the index worker: ") and "worker: 0 documents" not in lines[1]
    assert lines[2].startswith("search answered: ")


def test_the_demo_probe_refuses_a_library_holding_work(qtbot, library, make_window, capsys):
    documents.add_text(library, "Someone's own note", doc_type=DocumentType.NOTE)
    window = make_window(library)
    statuses: list[int] = []
    DemoProbe(window, statuses.append, timeout_ms=10_000).start()
    qtbot.waitUntil(lambda: bool(statuses), timeout=10_000)
    assert statuses == [1] and "needs an empty library" in capsys.readouterr().err
    assert [d.title for d in documents.list_documents(library)] == ["Someone's own note"]
