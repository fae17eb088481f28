"""Issue 17's load at full size: eight processes × 1,000 mixed operations on one team library (the driver of
tests/e2e/test_team_load.py, tests/e2e/team_load.py, which runs 8 × 20), its figures and its checks.

Run, with the servers of ``python3 packaging/dev.py servers`` (or packaging/servers.py) exported:
``.venv/bin/python tests/benchmarks/bench_team_load.py [--ops 1000]``

Prints ops/s, p50/p95 latency per kind of operation, errors and conflicts, the created documents found, the chunks
against the Chroma server's vectors, the audit entries, and each process's CPU seconds; exits 1 if a check fails.
The library is a team library in a new database and Chroma tenant of its own, its folder a temporary one.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

from _common import percentile, table

from tests.e2e import team_load
from tests.servers import harness, open_on_servers


def _team_library(folder: Path):
    """A team library in a new PostgreSQL database and Chroma tenant + database, on the servers the environment
    names; its local state (XDG_STATE_HOME) under ``folder``."""
    import chromadb
    import psycopg
    from chromadb.config import Settings

    postgres, chroma = os.environ.get(harness.POSTGRES_URL_VARIABLE), os.environ.get(harness.CHROMA_URL_VARIABLE)
    if not postgres or not chroma:
        sys.exit(f"{harness.POSTGRES_URL_VARIABLE} and {harness.CHROMA_URL_VARIABLE} must name the servers: export "
                 "the lines `python3 packaging/dev.py servers` prints")
    name = f"vt_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(postgres, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    address = urlsplit(chroma)
    admin = chromadb.AdminClient(Settings(chroma_api_impl="chromadb.api.fastapi.FastAPI",
                                          chroma_server_host=address.hostname, chroma_server_http_port=address.port,
                                          anonymized_telemetry=False))
    admin.create_tenant(name)
    admin.create_database(name, tenant=name)
    os.environ["XDG_STATE_HOME"] = str(folder / "state")
    return open_on_servers(folder / "team-library", urlsplit(postgres)._replace(path=f"/{name}").geturl(),
                           (chroma, name, name))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", type=int, default=1000, help="operations per process (default 1,000)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-team-load-") as tmp:
        folder = Path(tmp)
        lib = _team_library(folder)
        try:
            wall = team_load.run_load(lib, folder / "run", args.ops)
            load = os.getloadavg()[0]
            report = team_load.check(lib, folder / "run")
        finally:
            lib.close()
    total = sum(report.ops.values())
    print(table(f"Team library load: 8 processes × {args.ops} operations, {wall:.0f} s wall (load average "
                f"{load:.1f}, {os.cpu_count()} cores)", ["operation", "count", "p50 ms", "p95 ms"],
                [[op, report.ops[op], f"{percentile(report.latencies[op], 50):.0f}",
                  f"{percentile(report.latencies[op], 95):.0f}"] for op in sorted(report.ops)]))
    problems = {
        "errors": report.errors[:20], "created documents missing": report.missing[:20],
        "documents no operation created": report.unlogged[:20], "not indexed": report.not_indexed[:20],
        "jobs left": report.jobs_left if report.jobs_left else [],
        "chunks ≠ vectors": [] if report.chunks == report.vectors else [report.chunks, report.vectors],
        "audit ≠ writes": [] if report.audit_found == report.audit_expected
        else [dict(report.audit_expected), dict(report.audit_found)]}
    print(table("Figures", ["what", "value"], [
        ["operations", total], ["ops/s (all processes)", f"{total / wall:.1f}"],
        ["errors", len(report.errors)], ["edit conflicts (expected)", report.conflicts],
        ["chunks = vectors (scopes)", f"{sum(report.chunks.values())} = {sum(report.vectors.values())} "
                                      f"({len(report.chunks)})"],
        ["audit entries", sum(report.audit_found.values())],
        ["CPU s by process", ", ".join(f"{name} {cpu:.0f}" for name, cpu in sorted(report.cpu_s.items()))],
        ["CPU s per operation", f"{sum(report.cpu_s.values()) / total:.3f}"]]))
    failed = {what: value for what, value in problems.items() if value}
    if failed:
        print(failed)
        sys.exit(1)


if __name__ == "__main__":
    started = time.monotonic()
    main()
    print(f"({time.monotonic() - started:.0f} s in all)")
