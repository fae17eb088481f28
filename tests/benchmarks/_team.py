"""Team libraries for the benchmarks (issue 17): the test run's real servers, a fresh team library on them, the
servers' CPU seconds.

Not a test module (see ``_common``). The servers are those the tests use (packaging/servers.py through
tests/servers.py's ``harness``): a throwaway PostgreSQL cluster and a Chroma server on loopback ports, stopped when
the ``with`` block ends.
"""

from __future__ import annotations

import os
import sys
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
from psycopg import sql

from tests.servers import harness
from vancetope_desktop.services.team_library import create_team_library


@contextmanager
def team_servers() -> Iterator[harness.TestServers]:
    """PostgreSQL and a Chroma server started for the run, answering; stopped (data removed) on the way out. The
    team libraries' local state (locks, ``XDG_STATE_HOME``) goes to a temporary folder removed with them.

    Exits with the harness's reason when PostgreSQL's server is not installed.
    """
    if harness.postgres_bin_dir() is None:
        sys.exit(harness.POSTGRES_MISSING)
    with tempfile.TemporaryDirectory(prefix="vancetope-bench-state-") as state:
        os.environ["XDG_STATE_HOME"] = state  # the writer processes started later inherit it
        with harness.running(Path(sys.executable).parent / "chroma") as servers:
            yield servers


def new_team_library(servers: harness.TestServers, root: Path) -> Path:
    """A new team library's descriptor at ``root`` (``create_team_library``, as ``library create --team`` does): a
    database of its own on the PostgreSQL server, a Chroma database of the same name, files in ``root``'s sibling
    ``<name>-files``. Returns ``root``; ``Library.open(root)`` makes the tables."""
    name = f"bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(servers.postgres_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    database_url = urlsplit(servers.postgres_url)._replace(path=f"/{name}").geturl()
    create_team_library(root, database_url, servers.chroma_url, root.parent / f"{root.name}-files")
    return root


def _tree_cpu(pid: int) -> float:
    """CPU seconds of process ``pid`` (its own and its ended children's it waited for: a PostgreSQL backend that
    exits leaves its seconds to the postmaster) and of its live children (from /proc; Linux only)."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended meanwhile
            continue
        if int(entry.name) == pid:
            total += sum(int(value) for value in fields[11:15])
        elif int(fields[1]) == pid:
            total += sum(int(value) for value in fields[11:13])
    return total / os.sysconf("SC_CLK_TCK")


def servers_cpu(servers: harness.TestServers) -> float:
    """CPU seconds used so far by both servers: the postmaster and its backends, the ``chroma run`` process."""
    return sum(_tree_cpu(servers.processes[name][0].pid) for name in ("postgres", "chroma"))
