"""The test run's real servers (issue 17): PostgreSQL has what the team library will use (full-text search with a GIN
index, unaccent, LISTEN/NOTIFY), the Chroma server stores and finds vectors, and the harness (packaging/servers.py)
stops both whatever happens to the command that started them."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest

from tests.servers import REPO, harness, require

pytestmark = pytest.mark.servers


def test_postgres_full_text_search_on_a_gin_index(postgres_url):
    with psycopg.connect(postgres_url) as connection:
        connection.execute(
            "CREATE TABLE chunk (id serial PRIMARY KEY, body text NOT NULL,"
            " words tsvector GENERATED ALWAYS AS (to_tsvector('english', body)) STORED)")
        connection.execute("CREATE INDEX chunk_words ON chunk USING gin (words)")
        connection.cursor().executemany("INSERT INTO chunk (body) VALUES (%s)", [
            ("Protein folding is predicted from the amino-acid sequence.",),
            ("The telescope measured the galaxies' redshifts.",),
            ("Folded proteins aggregate when heated.",),
        ])
        found = connection.execute(
            "SELECT body FROM chunk WHERE words @@ to_tsquery('english', 'proteins & fold') ORDER BY id").fetchall()
        assert [row[0] for row in found] == ["Protein folding is predicted from the amino-acid sequence.",
                                             "Folded proteins aggregate when heated."]
        # The GIN index answers the match (sequential scans forbidden, as a large table would choose).
        connection.execute("SET enable_seqscan = off")
        plan = "\n".join(row[0] for row in connection.execute(
            "EXPLAIN SELECT id FROM chunk WHERE words @@ to_tsquery('english', 'galaxy')"))
        assert "chunk_words" in plan, plan


def test_postgres_has_unaccent(postgres_url):
    """Debian's postgresql-15 ships the contrib extensions: unaccent is there to fold accents in lexical search."""
    with psycopg.connect(postgres_url) as connection:
        available = connection.execute(
            "SELECT default_version FROM pg_available_extensions WHERE name = 'unaccent'").fetchone()
        assert available is not None, "the unaccent extension is not installed on this PostgreSQL"
        connection.execute("CREATE EXTENSION IF NOT EXISTS unaccent")
        assert connection.execute("SELECT unaccent('Gödel, Schrödinger, Poincaré')").fetchone()[0] == (
            "Godel, Schrodinger, Poincare")
        assert connection.execute(
            "SELECT to_tsvector('simple', unaccent('Erdős–Rényi graphs')) @@ to_tsquery('simple', 'renyi')"
        ).fetchone()[0]


def test_postgres_notify_reaches_a_listening_connection(postgres_url):
    """Other users' changes reach an open app through LISTEN/NOTIFY: one connection's NOTIFY arrives at another's
    LISTEN (waited for up to 30 s, for a loaded machine; tests/benchmarks/bench_servers.py measures the delay)."""
    with psycopg.connect(postgres_url, autocommit=True) as listener, \
            psycopg.connect(postgres_url, autocommit=True) as writer:
        listener.execute("LISTEN library_changed")
        writer.execute("SELECT pg_notify('library_changed', %s)", ("document 42",))
        received = list(listener.notifies(timeout=30, stop_after=1))
    assert [(note.channel, note.payload) for note in received] == [("library_changed", "document 42")]


def test_each_module_has_a_database_of_its_own(postgres_url, postgres_server_url):
    name = urlsplit(postgres_url).path.lstrip("/")
    assert name.startswith("vt_")
    with psycopg.connect(postgres_url) as connection:
        assert connection.execute("SELECT current_database()").fetchone()[0] == name
    with psycopg.connect(postgres_server_url) as admin:
        assert admin.execute("SELECT count(*) FROM pg_database WHERE datname = %s", (name,)).fetchone()[0] == 1


def test_chroma_server_round_trip(chroma_server):
    collection = chroma_server.create_collection("papers", metadata={"hnsw:space": "cosine"})
    collection.add(ids=["a", "b", "c"], embeddings=[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
                   documents=["alpha", "beta", "gamma"], metadatas=[{"n": 1}, {"n": 2}, {"n": 3}])
    assert collection.count() == 3
    found = collection.query(query_embeddings=[[0.1, 0.9, 0.0]], n_results=2)
    assert found["ids"] == [["b", "a"]]
    assert found["documents"] == [["beta", "alpha"]]
    collection.delete(ids=["b"])
    assert collection.count() == 2
    assert collection.query(query_embeddings=[[0.1, 0.9, 0.0]], n_results=1)["ids"] == [["a"]]
    chroma_server.delete_collection("papers")
    assert chroma_server.list_collections() == []


def test_chroma_tests_do_not_see_each_other(chroma_server, chroma_server_url):
    """The fixture's tenant and database are this test's own: another client on the server's default database
    does not see its collection."""
    import chromadb
    from chromadb.config import Settings

    from vancetope_desktop.index.chroma_server import close_client

    chroma_server.create_collection("mine")
    address = urlsplit(chroma_server_url)
    default = chromadb.HttpClient(host=address.hostname, port=address.port,
                                  settings=Settings(anonymized_telemetry=False))
    try:
        assert "mine" not in [collection.name for collection in default.list_collections()]
    finally:
        close_client(default)  # its sockets, which would outlive the test
    assert [collection.name for collection in chroma_server.list_collections()] == ["mine"]


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended but not yet reaped by its new parent, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in {"Z", "X"}


def _wait_until(condition, what: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"still waiting after {seconds:.0f} s for {what}"
        time.sleep(0.1)


def _start_harness() -> tuple[subprocess.Popen, dict[str, str], dict[str, tuple[int, Path]]]:
    """``python packaging/servers.py`` (what ``dev.py servers`` runs): the process, its exports, and each server's
    pid and folder from its comment lines."""
    process = subprocess.Popen([sys.executable, str(REPO / "packaging" / "servers.py")], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    exports: dict[str, str] = {}
    started: dict[str, tuple[int, Path]] = {}
    for line in process.stdout:
        if line.startswith("export "):
            name, _, value = line.removeprefix("export ").strip().partition("=")
            exports[name] = value
        elif line.startswith("# server "):  # "# server NAME: pid N, folder PATH"
            name, _, rest = line.removeprefix("# server ").partition(": pid ")
            pid, _, folder = rest.strip().partition(", folder ")
            started[name] = (int(pid), Path(folder))
        elif line.startswith("# the servers run"):
            break
    assert process.poll() is None, "packaging/servers.py ended before its servers ran"
    return process, exports, started


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL], ids=lambda s: s.name)
def test_the_harness_leaves_no_server_behind(stop):
    """Stopped by SIGTERM (Ctrl-C takes the same ``finally``), the harness stops both servers and removes their
    folders; killed outright (SIGKILL), it still takes the servers with it (the kernel's parent-death signal)."""
    if harness.postgres_bin_dir() is None:
        require(harness.POSTGRES_MISSING)
    process, exports, started = _start_harness()
    try:
        assert set(exports) == {"VANCETOPE_TEST_POSTGRES_URL", "VANCETOPE_TEST_CHROMA_URL"}
        assert set(started) == {"postgres", "chroma"}
        with psycopg.connect(exports["VANCETOPE_TEST_POSTGRES_URL"]) as connection:
            assert connection.execute("SELECT 1").fetchone()[0] == 1
        assert all(_alive(pid) and folder.is_dir() for pid, folder in started.values())
        process.send_signal(stop)
        process.wait(60)
        _wait_until(lambda: not any(_alive(pid) for pid, _folder in started.values()), "the servers to stop")
        if stop != signal.SIGKILL:
            assert not any(folder.exists() for _pid, folder in started.values())
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        for pid, folder in started.values():
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
            shutil.rmtree(folder, ignore_errors=True)  # what only a clean stop removes (SIGKILL leaves it)
