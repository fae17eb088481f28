"""Nothing in the product touches the network: an upload of a PDF and a search, run as real CLI
processes in a network namespace that records every packet sent (see ``offline_sandbox.py``).

PyMuPDF 2.0's layout add-on used to load ONNX Runtime, whose telemetry looked up
``mobile.events.data.microsoft.com`` during every PDF import (issue 10); ``ingest/mupdf.py`` keeps
it out. Needs ``unshare`` (util-linux) and unprivileged user namespaces, or root: missing, the test
fails under CI=true and is skipped elsewhere.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SANDBOX = Path(__file__).with_name("offline_sandbox.py")
REPO = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "vancetope_desktop.cli.main"]


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.mark.slow
def test_upload_and_search_make_no_network_attempt(tmp_path, corpus):
    unshare = shutil.which("unshare")
    if unshare is None:
        _unavailable("`unshare` (util-linux) is needed to run commands in a network namespace")
    paper = corpus / "papers" / "black-hole-singularities-collision-arxiv1805.05865.pdf"
    commands = [
        [*CLI, "memory", "upload", str(paper), "--json"],
        [*CLI, "memory", "search", "what happens to singularities when black holes collide", "--json"],
    ]
    commands_file = tmp_path / "commands.json"
    commands_file.write_text(json.dumps(commands), encoding="utf-8")
    env = dict(os.environ, VANCETOPE_LIBRARY=str(tmp_path / "lib"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    env.pop("ORT_DISABLE_TELEMETRY", None)  # the product must set what it needs itself
    done = subprocess.run([unshare, "--user", "--map-root-user", "--net", sys.executable, str(SANDBOX),
                           str(commands_file)], capture_output=True, text=True, env=env, timeout=1200)
    if done.returncode == 3 or "unshare failed" in done.stderr:  # offline_sandbox.py's "cannot set up"
        _unavailable(f"the network sandbox could not start (user namespaces disabled?): {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    upload, search = result["commands"]
    assert upload["returncode"] == 0, upload["stderr"]
    outcome = json.loads(upload["stdout"])["outcomes"][0]
    assert outcome["status"] == "imported", outcome
    assert search["returncode"] == 0, search["stderr"]
    response = json.loads(search["stdout"])
    assert response["vector_search"]  # the query was embedded too, not only matched by words
    assert response["hits"][0]["document"]["id"] == outcome["document_id"]
    assert result["packets"] == [], f"network attempts: {result['packets']}"
