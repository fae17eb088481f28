"""Without PostgreSQL's driver (issue 17: psycopg is the ``team`` extra; the Linux package ships its pure-Python
package on the system's libpq), creating or opening a team library says what is missing and how to get it, through
the real command line, and writes nothing: no traceback.

The command line runs in a child process whose ``psycopg`` is made unimportable (``sys.modules['psycopg'] = None``,
what Python does for a package that is not installed), on the real PostgreSQL and Chroma servers.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from vancetope_desktop.store.postgres import DRIVER_ADVICE

pytestmark = pytest.mark.servers

WITHOUT_PSYCOPG = ("import sys; sys.modules['psycopg'] = None; sys.argv[0] = 'vancetope'; "
                   "from vancetope_desktop.cli.main import run; run()")
"""The real CLI entry (pyproject's ``vancetope`` script) in a Python that cannot import psycopg."""


def _cli_without_psycopg(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", WITHOUT_PSYCOPG, *args], capture_output=True, text=True,
                          timeout=600)


def _says_what_is_missing(result: subprocess.CompletedProcess) -> None:
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert "needs psycopg 3" in result.stderr and "import of psycopg halted" in result.stderr
    assert " ".join(DRIVER_ADVICE.split()) in " ".join(result.stderr.split())  # the console may wrap the line
    assert "vancetope-desktop[team]" in DRIVER_ADVICE and "libpq5" in DRIVER_ADVICE


def test_creating_a_team_library_without_psycopg_says_how_to_get_it_and_writes_nothing(
        tmp_path, postgres_database, chroma_server_url):
    root, files = tmp_path / "team", tmp_path / "files"
    result = _cli_without_psycopg("library", "create", str(root), "--team", "--db", postgres_database,
                                  "--vectors", chroma_server_url, "--files", str(files))
    _says_what_is_missing(result)
    assert not root.exists() and not files.exists()


def test_opening_a_team_library_without_psycopg_says_how_to_get_it(team_library):
    root = Path(team_library.paths.root)  # its descriptor, written by the fixture
    _says_what_is_missing(_cli_without_psycopg("--library", str(root), "library", "info"))
