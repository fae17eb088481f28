"""Each test's CPU seconds, for finding what makes the suite long (loaded by tests/conftest.py).

With ``VANCETOPE_TEST_CPU=FILE`` set, every test process appends one line per test to FILE: the CPU seconds (user +
system) its setup, call and teardown took in the test process and in the child processes it waited for (the CLI, the
MCP server, the indexing process, PyInstaller), then the test's id, tab-separated. pytest's ``--durations`` gives wall
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
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Time the whole protocol of one test (setup, call, teardown) and append its line to the report."""
    target = os.environ.get(REPORT_VARIABLE)
    started = _cpu_seconds() if target else 0.0
    yield
    if target:
        with open(target, "a", encoding="utf-8") as report:
            report.write(f"{_cpu_seconds() - started:.2f}\t{item.nodeid}\n")
