"""Shared fixtures: where the real corpus lives, temporary libraries, the real bundled model."""

from __future__ import annotations

import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from tests.cli_commands import build_cli_commands_once

# The real PostgreSQL and Chroma servers' fixtures (postgres_url, chroma_server; issue 17).
pytest_plugins = ("tests.servers", "tests.cpu_report")

# Qt must never try to reach a display in tests, whether pytest runs from dev.py or by hand.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# No test writes to the developer's keyring, and every machine runs the same no-keyring paths: keyring's "fail"
# backend, unless a test chooses a real one (keyrings.alt's file backend: tests/services/test_team_library.py).
# Inherited by subprocesses (the CLI).
os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"

# Under pytest-xdist the workers already fill the cores: torch's default of one thread per core ran 2 x 2
# threads on 2 cores, and embedding 200 chunks cost 11.3 s of CPU against 7.8 s on one thread (and more
# wall time on a busy machine). Set before torch loads; subprocesses (the CLI, the indexing process) inherit it.
if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
    os.environ.setdefault(
        "OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // int(os.environ["PYTEST_XDIST_WORKER_COUNT"]))))


build_cli_commands_once()  # in every test process (tests/cli_commands.py says why)

REPO = Path(__file__).resolve().parent.parent
T = TypeVar("T")
SHARED = Path(os.environ.get("VANCETOPE_SHARED", REPO.parent / "shared"))


def _need(path: Path, what: str) -> Path:
    """Return ``path`` if it exists; otherwise fail under CI (CI=true) and skip elsewhere."""
    if path.exists():
        return path
    reason = f"{what} not found at {path} (set VANCETOPE_SHARED to the folder holding corpus/ and eval/)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.hookimpl(trylast=True)  # after tests/e2e/conftest.py marks its tests slow
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the modules holding slow tests first, each group in its usual order; a module stays whole.

    pytest-xdist's ``worksteal`` hands each worker a contiguous share of this order and lets an idle worker
    take the second half of another's queue. In file order the end-to-end tests (30-110 s each) came near
    the end of the first worker's share: one started late kept that worker busy while the other idled.
    Slow first, the queues end with short tests, which even out. The ``longest`` (the bundle's build and check,
    3-7 minutes) go before every other: started last they would end the run alone on one core. A module goes
    by its slowest test: sorted test by test, a module's quick tests ran after the other modules' slow ones, and
    its module-scoped fixtures were built twice (test_library_copy's template: 8 CPU s again).
    """
    module_rank: dict[Path, tuple[bool, bool]] = {}
    for item in items:
        rank = (item.get_closest_marker("longest") is None, item.get_closest_marker("slow") is None)
        module_rank[item.path] = min(module_rank.get(item.path, rank), rank)
    items.sort(key=lambda item: module_rank[item.path])


WRITTEN_TABLES = ("document", "document_version", "relation", "promotion_request", "audit_entry", "index_job",
                  "chat_message")
"""What a write leaves behind: a refused call must change none of them (``stored_counts``)."""


def stored_counts(root: Path) -> dict[str, int]:
    """Rows per table of :data:`WRITTEN_TABLES` in the library at ``root``, to show a refused call wrote nothing: read
    apart from any open ``Library`` (a test of the CLI has its library as a path), with plain sqlite3 from an embedded
    library's ``library.sqlite``, on a team library's database from its descriptor."""
    import sqlite3

    from vancetope_desktop.services.team_library import open_engine, read_descriptor

    descriptor = read_descriptor(root)
    if descriptor is None:
        with sqlite3.connect(root / "library.sqlite") as connection:
            return {t: connection.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in WRITTEN_TABLES}
    from sqlalchemy import text

    engine = open_engine(descriptor)
    try:
        with engine.connect() as connection:
            return {t: connection.execute(text(f"SELECT COUNT(*) FROM {t}")).scalar_one() for t in WRITTEN_TABLES}
    finally:
        engine.dispose()


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The real input files: ``../shared/corpus`` (papers/, pdf-edge/, notes/, refs/, data/)."""
    return _need(SHARED / "corpus", "the shared corpus")


@pytest.fixture(scope="session")
def scifact() -> Path:
    """The SciFact benchmark in BEIR format: ``../shared/eval/scifact``."""
    return _need(SHARED / "eval" / "scifact", "the SciFact benchmark")


@pytest.fixture(scope="session")
def locomo() -> Path:
    """The LoCoMo conversations: ``../shared/eval/locomo/locomo-dev.json`` (sessions dated, turns, observations)."""
    return _need(SHARED / "eval" / "locomo" / "locomo-dev.json", "the LoCoMo benchmark")


def _embedded_library(tmp_path: Path, new_library_folder: Path):
    """A copy of the new library ``new_library_folder`` in ``tmp_path``, opened (the caller closes it)."""
    from vancetope_desktop.services.library import Library

    shutil.copytree(new_library_folder, tmp_path / "library")
    return Library.open(tmp_path / "library")


@pytest.fixture
def library(tmp_path, new_library_folder):
    """A fresh library in a temporary folder (real SQLite, real Chroma, the bundled model)."""
    lib = _embedded_library(tmp_path, new_library_folder)
    yield lib
    lib.close()


@pytest.fixture(params=["embedded", pytest.param("postgres", marks=pytest.mark.servers)])
def any_library(request, tmp_path):
    """A fresh library of each kind in turn: embedded (as ``library``), then with its database on PostgreSQL
    (``tests/servers.py``'s ``pg_library``). A module runs its tests on both by naming it ``library``:
    ``@pytest.fixture def library(any_library): return any_library`` (issue 17: the services on either backend)."""
    if request.param == "postgres":
        yield request.getfixturevalue("pg_library")
        return
    lib = _embedded_library(tmp_path, request.getfixturevalue("new_library_folder"))
    yield lib
    lib.close()


def embedded_only(reason: str) -> pytest.MarkDecorator:
    """Mark a test or module that ``library_at`` (and the fixtures built on it) runs on the embedded library alone:
    it reopens the library by its files, reads ``library.sqlite`` with sqlite3, or checks the embedded layout. The
    team run is skipped with ``reason``."""
    return pytest.mark.embedded_only(reason=reason)


@pytest.fixture(params=["embedded", pytest.param("team", marks=pytest.mark.servers)])
def library_at(request) -> Callable[[Path], Path]:
    """``make(root)`` → ``root``: where the test's library lives, of each kind in turn (ids ``embedded``, ``team``).
    Embedded: nothing is made (``Library.open``, ``--library root`` and ``vancetope mcp --library root`` create it);
    team: a REAL team library's descriptor is written at ``root`` (``tests/servers.py``'s ``team_folder``: PostgreSQL,
    the Chroma server, a files folder), which each face opens as it opens any library (issue 17: the CLI and agent
    suites on both backends); the team side's ``make(root, template)`` makes a copy of a team library built once
    (``team_template``). A test marked :func:`embedded_only` skips the team run with the mark's reason."""
    if request.param == "embedded":
        return lambda root: root
    marker = request.node.get_closest_marker("embedded_only")
    if marker is not None:
        pytest.skip(f"embedded library only: {marker.kwargs['reason']}")
    return request.getfixturevalue("team_folder")


@pytest.fixture
def each_library(library_at, tmp_path, new_library_folder):
    """A fresh open library of each kind in turn (``library_at``): embedded (a copy of ``new_library_folder``, as
    ``library``), then a team library opened by ``Library.open`` on its descriptor. A module runs its tests on both
    by naming it ``library``: ``@pytest.fixture def library(each_library): return each_library``."""
    from vancetope_desktop.services.library import Library

    root = library_at(tmp_path / "library")
    if not root.exists():  # embedded: library_at made nothing
        shutil.copytree(new_library_folder, root)
    lib = Library.open(root)
    yield lib
    lib.close()


@pytest.fixture(scope="session")
def new_library_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A library as ``Library.open`` creates it, made once per test process and closed; ``library`` copies it.

    Creating the schema costs ~0.28 s (0.05 s of CPU, the rest waiting on SQLite's syncs), a copy ~0.15 s:
    measured on the shared 2-core machine at load ~10, where several hundred tests take ``library``.
    """
    from vancetope_desktop.services.library import Library

    root = tmp_path_factory.mktemp("new-library") / "library"
    Library.open(root).close()
    return root


@pytest.fixture(scope="session")
def paper_extractions(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Every paper of ``corpus/papers`` read once per test run: file name → ``Extraction`` (``extract_pdf``).

    Reading the 18 papers costs ~15 s of a core and three test modules check them. Under pytest-xdist
    the workers of one run share a pickle in the run's temporary root, written under a file lock; a
    run without workers reads them itself (its temporary root is shared with earlier runs).
    """
    from vancetope_desktop.ingest.pdf import extract_pdf

    def read() -> dict:
        return {p.name: extract_pdf(p) for p in sorted((corpus / "papers").glob("*.pdf"))}

    return once_per_run(tmp_path_factory, "paper-extractions", read)


def once_per_run(tmp_path_factory: pytest.TempPathFactory, name: str, compute: Callable[[], T]) -> T:
    """``compute()``'s value, computed once per test run: under pytest-xdist the workers share a pickle ``name``
    in the run's temporary root, written under a file lock; a run without workers computes it itself."""
    from filelock import FileLock

    if "PYTEST_XDIST_WORKER" not in os.environ:
        return compute()
    cache = tmp_path_factory.getbasetemp().parent / f"{name}.pickle"
    with FileLock(f"{cache}.lock"):
        if cache.exists():
            return pickle.loads(cache.read_bytes())
        value = compute()
        cache.write_bytes(pickle.dumps(value))
        return value
