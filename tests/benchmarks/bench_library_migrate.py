"""What ``vancetope library migrate`` costs (issue 17): the papers library copied to a team library and back.

Run: ``.venv/bin/python tests/benchmarks/bench_library_migrate.py`` (PostgreSQL's server installed).

* The library: bench_papers.py's cached one (``corpus/papers``, 18 PDFs uploaded and embedded; built first when
  missing), copied to a temporary folder.
* Servers: a PostgreSQL cluster and a Chroma server started for the run (packaging/servers.py, stopped at the end);
  the team library is composed as the tests' ``open_on_servers`` does (database on PostgreSQL, vectors on Chroma).
* Measured: ``services.library_copy.copy_library`` embedded → team, then team → a new embedded folder; wall time,
  this process's CPU seconds, and per stage the time from its first progress report to the next stage's (files,
  vectors, rows, words: the last one with the verification); the counts of the report (all equal, or the script fails).
"""

from __future__ import annotations

import itertools
import os
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

from _common import table
from bench_papers import library_folder

from tests.servers import harness, open_on_servers
from vancetope_desktop.core.settings import Settings
from vancetope_desktop.index.chroma_server import ChromaServer, ServerVectorStore
from vancetope_desktop.services import library_copy
from vancetope_desktop.services.library import Library


def timed_copy(source: Library, target: Library) -> tuple[library_copy.CopyReport, float, float, dict[str, float]]:
    """Copy ``source`` into ``target``: the report, wall and CPU seconds, and seconds per stage."""
    starts: dict[str, float] = {}

    def seen(step: library_copy.CopyProgress) -> None:
        starts.setdefault(step.stage, time.perf_counter())

    wall, cpu = time.perf_counter(), time.process_time()
    report = library_copy.copy_library(source, target, progress=seen)
    end = time.perf_counter()
    wall, cpu = end - wall, time.process_time() - cpu
    marks = [*sorted(starts.items(), key=lambda item: item[1]), ("end", end)]  # the last stage ends with the check
    stages = {stage: later - at for (stage, at), (_next, later) in itertools.pairwise(marks)}
    if not report.ok:
        sys.exit(f"counts differ: {[check for check in report.checks if not check.equal]}")
    return report, wall, cpu, stages


def main() -> None:
    """Build or reuse the papers library, start the servers, copy both ways, print the table."""
    if harness.postgres_bin_dir() is None:
        sys.exit(harness.POSTGRES_MISSING)
    folder = library_folder(False, Settings())
    work = Path(tempfile.mkdtemp(prefix="vancetope-bench-migrate-"))
    os.environ["XDG_STATE_HOME"] = str(work / "state")  # a team library's locks: this run's, not the user's
    rows = []
    try:
        shutil.copytree(folder, work / "source")
        with harness.running(Path(sys.executable).parent / "chroma") as servers:
            name = f"vt_{uuid.uuid4().hex[:12]}"
            import psycopg

            with psycopg.connect(servers.postgres_url, autocommit=True) as admin:
                admin.execute(f'CREATE DATABASE "{name}"')
            server = ChromaServer(servers.chroma_url, name)
            ServerVectorStore(server, lambda: 0).create_database()
            database_url = servers.postgres_url.rsplit("/", 1)[0] + f"/{name}"
            with Library.open(work / "source") as source, \
                    open_on_servers(work / "team", database_url, (servers.chroma_url, server.tenant, name)) as team:
                report, wall, cpu, stages = timed_copy(source, team)
                rows.append(("embedded → team", wall, cpu, stages, report))
                with Library.open(work / "back") as back:
                    report, wall, cpu, stages = timed_copy(team, back)
                    rows.append(("team → embedded", wall, cpu, stages, report))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    counts = {check.what: check.source for check in rows[0][4].checks}
    vectors = sum(count for what, count in counts.items() if what.startswith("vectors "))
    print(f"papers library: {counts['document']} documents, {counts['chunk']} chunks, {vectors} vectors, "
          f"{rows[0][4].files} files; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(table("library migrate", ["direction", "wall s", "CPU s", "files s", "vectors s", "rows s", "words s"],
                [(label, f"{wall:.2f}", f"{cpu:.2f}",
                  *(f"{stages.get(stage, 0.0):.2f}" for stage in ("files", "vectors", "rows", "words")))
                 for label, wall, cpu, stages, _report in rows]))


if __name__ == "__main__":
    main()
