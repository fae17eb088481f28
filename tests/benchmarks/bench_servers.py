"""What the test run's real servers cost (issue 17): start to answering, and stop, of the PostgreSQL cluster and the
Chroma server ``packaging/dev.py test`` starts (packaging/servers.py), in wall and CPU seconds; and the delay of a
PostgreSQL NOTIFY to a listening connection.

Run: ``.venv/bin/python tests/benchmarks/bench_servers.py [--rounds 5] [--notifies 200]``

CPU seconds are those of the harness and of the processes it waited for (initdb, pg_isready, both servers and, through
the postmaster, its backends), from ``getrusage``; ``dev.py test`` overlaps the start with ruff and the import
contracts, so the suite waits only for what is left after them.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

import psycopg
from _common import median, percentile, table

from tests.servers import harness  # packaging/servers.py, as the tests' fixtures load it


def _cpu() -> float:
    """CPU seconds of this process and of its children waited for so far."""
    return sum(resource.getrusage(who).ru_utime + resource.getrusage(who).ru_stime
               for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))


def _notify_delays(url: str, count: int) -> list[float]:
    """Seconds from one connection's NOTIFY (committed) to another's receiving it, ``count`` times."""
    delays = []
    with psycopg.connect(url, autocommit=True) as listener, psycopg.connect(url, autocommit=True) as writer:
        listener.execute("LISTEN bench")
        for number in range(count):
            start = time.perf_counter()
            writer.execute("SELECT pg_notify('bench', %s)", (str(number),))
            received = next(listener.notifies(timeout=30, stop_after=1))
            delays.append(time.perf_counter() - start)
            assert received.payload == str(number)
    return delays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--notifies", type=int, default=200)
    args = parser.parse_args()
    if harness.postgres_bin_dir() is None:
        sys.exit(harness.POSTGRES_MISSING)
    chroma = Path(sys.executable).parent / "chroma"
    ready, ready_cpu, stopping, delays = [], [], [], []
    for _round in range(args.rounds):
        servers = harness.TestServers(chroma)
        cpu, start = _cpu(), time.perf_counter()
        try:
            servers.start()
            servers.wait_ready()
            ready.append(time.perf_counter() - start)
            if not delays:  # this process's CPU for the round trips is left out of the servers' below
                before = _cpu()
                delays = _notify_delays(servers.postgres_url, args.notifies)
                cpu += _cpu() - before
        finally:
            stop = time.perf_counter()
            servers.stop()
            stopping.append(time.perf_counter() - stop)
        ready_cpu.append(_cpu() - cpu)
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(table(f"Test servers, {args.rounds} rounds (load average {load})", ["what", "median", "max"], [
        ["start → both answer (wall s)", f"{median(ready):.2f}", f"{max(ready):.2f}"],
        ["stop (wall s)", f"{median(stopping):.2f}", f"{max(stopping):.2f}"],
        ["start + stop, CPU s (harness, initdb, servers)", f"{median(ready_cpu):.2f}", f"{max(ready_cpu):.2f}"],
    ]))
    print(table(f"NOTIFY → LISTEN delay, {len(delays)} round trips", ["p50 ms", "p95 ms", "max ms"], [
        [f"{percentile(delays, 50) * 1000:.2f}", f"{percentile(delays, 95) * 1000:.2f}", f"{max(delays) * 1000:.2f}"],
    ]))


if __name__ == "__main__":
    main()
