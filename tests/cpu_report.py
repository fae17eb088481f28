"""Each test's CPU seconds, for finding what makes the suite long (loaded by tests/conftest.py).

With ``VANCETOPE_TEST_CPU=FILE`` set, every test process appends one line per test to FILE: the CPU seconds (user +
system) its setup, call and teardown took in the test process and in the child processes it waited for (the CLI, the
MCP server, the indexing process, PyInstaller) or that its multiprocessing fork server reaped (the extraction workers:
``ingest/process_pool.worker_context``), then the test's id, tab-separated. pytest's ``--durations`` gives wall
time, which on a loaded machine (the suite runs more workers than cores) says more about the neighbours than about
the test; the servers' own CPU (PostgreSQL, Chroma) is not attributed. Sum by file with, e.g.,
``sort -rn FILE | head -40``. Without the variable this plugin does nothing.
"""

from __future__ import annotations

import os
import resource
from collections.abc import Iterator

import pytest

REPORT_VARIABLE = "VANCETOPE_TEST_CPU"


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + _fork_server_seconds()


def _fork_server_seconds() -> float:
    """CPU seconds of this process's multiprocessing fork server and the workers it reaped, while it runs (Linux).

    The server is this process's child but lives as long as the process, so ``RUSAGE_CHILDREN`` never sees it or
    the extraction workers forked from it; its ``/proc`` line does (utime, stime, cutime, cstime: fields 14-17).
    The pid is multiprocessing's private attribute: this is a measuring tool, and 0 is returned without it.
    """
    from multiprocessing import forkserver

    pid = getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None)
    if not pid:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Time the whole protocol of one test (setup, call, teardown) and append its line to the report."""
    target = os.environ.get(REPORT_VARIABLE)
    started = _cpu_seconds() if target else 0.0
    yield
    if target:
        with open(target, "a", encoding="utf-8") as report:
            report.write(f"{_cpu_seconds() - started:.2f}\t{item.nodeid}\n")
