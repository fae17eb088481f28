"""What the library schema costs on PostgreSQL (issue 17) beside SQLite: creating a library database (every revision,
``store.db.ensure_schema`` on an empty database) and the check of a database already at head (what every opening
pays), in wall seconds and in this process's CPU seconds (the server's own CPU is not counted).

Run: ``.venv/bin/python tests/benchmarks/bench_pg_schema.py --url postgresql://USER@HOST:PORT/postgres [--rounds 5]``
(the URL of a maintenance database on a server where USER may create databases: ``python3 packaging/dev.py servers``
prints one as ``VANCETOPE_TEST_POSTGRES_URL``, the default). Each round creates a database ``vt_bench_…`` and drops it.
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

import psycopg
from _common import median, table

from vancetope_desktop.store.db import create_database_engine, ensure_schema


def _timed(action) -> tuple[float, float]:
    """Wall and CPU seconds of ``action()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    action()
    return time.perf_counter() - wall, time.process_time() - cpu


def _round(location: Path | str, backups: Path) -> tuple[tuple[float, float], tuple[float, float]]:
    """(create, check at head) timings on the database at ``location``."""
    engine = create_database_engine(location)
    try:
        created = _timed(lambda: ensure_schema(engine, backups))
        checked = _timed(lambda: ensure_schema(engine, backups))
    finally:
        engine.dispose()
    return created, checked


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("VANCETOPE_TEST_POSTGRES_URL"))
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if not args.url:
        sys.exit("no server: pass --url or set VANCETOPE_TEST_POSTGRES_URL (`python3 packaging/dev.py servers`)")
    results: dict[str, list] = {"sqlite": [], "postgresql": []}
    with tempfile.TemporaryDirectory(prefix="bench-pg-schema-") as folder:
        for number in range(args.rounds):
            results["sqlite"].append(_round(Path(folder) / f"library-{number}.sqlite", Path(folder) / "backups"))
            name = f"vt_bench_{uuid.uuid4().hex[:12]}"
            with psycopg.connect(args.url, autocommit=True) as admin:
                admin.execute(f'CREATE DATABASE "{name}"')
            try:
                url = urlsplit(args.url)._replace(scheme="postgresql+psycopg", path=f"/{name}").geturl()
                results["postgresql"].append(_round(url, Path(folder) / "backups"))
            finally:
                with psycopg.connect(args.url, autocommit=True) as admin:
                    admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    rows = []
    for database, rounds in results.items():
        for label, index in (("create (8 revisions)", 0), ("check at head", 1)):
            walls = [timings[index][0] for timings in rounds[1:]]  # the first round imports Alembic: apart
            cpus = [timings[index][1] for timings in rounds[1:]]
            rows.append([database, label, f"{rounds[0][index][0] * 1000:.1f}", f"{median(walls) * 1000:.1f}",
                         f"{median(cpus) * 1000:.1f}"])
    print(table(f"Schema on SQLite and PostgreSQL, {args.rounds} rounds (load average {load})",
                ["database", "what", "first wall ms", "median wall ms (next)", "median CPU ms (next)"], rows))


if __name__ == "__main__":
    main()
