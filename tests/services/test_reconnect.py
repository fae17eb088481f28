"""A team library survives its database connection dropping (issue 17's fault test, ``store/reconnect``): connections
ended by ``pg_terminate_backend`` between two calls and in the middle of an import's transaction, and a PostgreSQL
server of the test's own stopped past the reconnect budget, then restarted in the middle of an import. Each import is
of real notes; afterwards every file is in the library once, whole: its chunks, their keyword postings, its index job.
"""

from __future__ import annotations

import functools
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import Engine, event, text

from tests.conftest import SHARED
from tests.servers import harness, open_on_servers, require, run_own_server, stop_server
from vancetope_desktop.core.errors import DatabaseUnreachable
from vancetope_desktop.ingest.process_pool import ProcessExtractor
from vancetope_desktop.services import documents, imports, indexing
from vancetope_desktop.store import reconnect
from vancetope_desktop.store.db import read_session

pytestmark = pytest.mark.servers

NOTES = [SHARED / "corpus" / "notes" / name for name in (
    "foam-nested-tags.md", "graph-partitioning-survey-reading-note.md", "math-ode-existence-uniqueness.md",
    "paper-summary-homomorphic-encryption-engine.md", "paper-summary-morphy-charge-storage.md")]
"""Five real notes of the corpus, in the order upload takes them (sorted by name)."""


@pytest.fixture(scope="module")
def upload() -> Iterator[Callable[..., imports.ImportReport]]:
    """``imports.upload`` with one extraction worker process for the module, as the app keeps one for its session
    (its ``extractor``); the CLI's upload below starts its own, as every ``memory upload`` does."""
    worker = ProcessExtractor(nice=0)
    yield functools.partial(imports.upload, extractor=worker)
    worker.close()


def _terminate_all(database_url: str) -> int:
    """End every server process connected to the database of ``database_url`` (the library's pool): how many."""
    name = database_url.rsplit("/", 1)[1]
    with psycopg.connect(database_url, autocommit=True) as admin:
        return admin.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                             "WHERE datname = %s AND pid != pg_backend_pid()", (name,)).fetchone()[0]


def _whole(lib) -> dict[str, int]:
    """Per file imported, how many documents came of it; and asserts that none is half-written: each has chunks, each
    chunk its keyword postings and tsvector, and each document one embedding job."""
    with read_session(lib.engine) as session:
        rows = session.execute(text(
            "SELECT d.metadata->>'source_path', "
            "(SELECT count(*) FROM chunk c WHERE c.document_id = d.id), "
            "(SELECT count(*) FROM chunk c WHERE c.document_id = d.id AND NOT EXISTS "
            "  (SELECT 1 FROM chunk_term t WHERE t.chunk_id = c.id)), "
            "(SELECT count(*) FROM chunk c WHERE c.document_id = d.id AND NOT EXISTS "
            "  (SELECT 1 FROM chunk_lexical x WHERE x.chunk_id = c.id)), "
            "(SELECT count(*) FROM index_job j WHERE j.document_id = d.id AND j.kind = 'embed') "
            "FROM document d WHERE d.metadata ? 'source_path'")).all()  # the files (a team library has more)
    copies: dict[str, int] = {}
    for source, chunks, without_postings, without_vector, jobs in rows:
        assert chunks > 0 and without_postings == 0 and without_vector == 0 and jobs == 1, (source, rows)
        copies[Path(source).name] = copies.get(Path(source).name, 0) + 1
    return copies


def test_connections_dropped_between_two_calls_cost_nothing(pg_library, postgres_database, upload):
    first = upload(pg_library, NOTES[:1])
    assert [o.status for o in first.outcomes] == ["imported"]
    assert _terminate_all(postgres_database) >= 1  # the pool's connection, idle

    # The next calls, a write and a read, go on as if nothing happened: no error surfaced, nothing waited for.
    second = upload(pg_library, NOTES[1:2])
    assert [o.status for o in second.outcomes] == ["imported"]
    _terminate_all(postgres_database)
    assert documents.get_document(pg_library, first.outcomes[0].document_id).title == first.outcomes[0].title
    _terminate_all(postgres_database)
    assert documents.count_documents(pg_library) == 2
    assert _whole(pg_library) == {path.name: 1 for path in NOTES[:2]}


def test_an_import_whose_transaction_loses_its_connection_runs_that_file_again(pg_library, postgres_database, upload):
    """The third file's transaction is cut off in the middle (its backend ended while it writes chunks); all the
    connections are dropped between files too. Every file is imported once, whole, and the progress said so."""
    cut: list[int] = []
    seen: list[imports.ImportProgress] = []

    @event.listens_for(pg_library.engine, "before_cursor_execute")
    def _cut_once(connection, _cursor, statement, _parameters, _context, _many) -> None:
        if not cut and statement.startswith("INSERT INTO chunk ") and seen and seen[-1].done == 2:
            cut.append(connection.connection.dbapi_connection.info.backend_pid)
            with psycopg.connect(postgres_database, autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", (cut[0],))

    def progress(step: imports.ImportProgress) -> None:
        seen.append(step)
        if step.done == 1 and not step.reconnecting:
            _terminate_all(postgres_database)

    report = upload(pg_library, NOTES, progress=progress)
    assert cut, "the third file's transaction was not cut off: the test tested nothing"
    assert [o.status for o in report.outcomes] == ["imported"] * 5, [o.reason for o in report.outcomes]
    assert _whole(pg_library) == {path.name: 1 for path in NOTES}
    waits = [step for step in seen if step.reconnecting]
    assert waits and all(step.current.startswith("reconnecting to the database at 127.0.0.1:") for step in waits)
    assert waits[0].done == 2  # said while the third file waited
    assert not seen[-1].reconnecting and seen[-1].done == 5


class _OwnPostgres:
    """A PostgreSQL cluster of the test's own (packaging/servers.py's settings), stopped and started again at will."""

    def __init__(self, folder: Path) -> None:
        self.bin = harness.postgres_bin_dir()
        if self.bin is None:
            require(harness.POSTGRES_MISSING)
        self.folder, self.port = folder, harness.free_port()
        self.account: dict = {}
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root: as packaging/servers.py, as `postgres`
            user = pwd.getpwnam("postgres")
            os.chown(folder, user.pw_uid, user.pw_gid)
            self.account = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
        subprocess.run([self.bin / "initdb", "-D", folder / "data", "-U", harness.SUPERUSER, "--auth=trust",
                        "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync", "--no-instructions"],
                       check=True, capture_output=True, **self.account)
        self.process: subprocess.Popen | None = None
        self.url = f"postgresql://{harness.SUPERUSER}@127.0.0.1:{self.port}/postgres"

    def start(self) -> None:
        log = (self.folder / "postgres.log").open("ab")
        self.process = subprocess.Popen(
            [self.bin / "postgres", "-D", self.folder / "data", "-h", "127.0.0.1", "-p", str(self.port), "-k",
             self.folder, "-c", "fsync=off", "-c", "synchronous_commit=off"], stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, preexec_fn=harness.die_with_parent, **self.account)
        log.close()

    def wait_ready(self) -> None:
        deadline = time.monotonic() + harness.READY_SECONDS
        while subprocess.call([self.bin / "pg_isready", "-q", "-h", "127.0.0.1", "-p", str(self.port)]) != 0:
            assert self.process.poll() is None, (self.folder / "postgres.log").read_text()[-2000:]
            assert time.monotonic() < deadline, f"PostgreSQL did not answer within {harness.READY_SECONDS} s"
            time.sleep(0.1)

    def stop(self) -> None:
        stop_server(self.process, signal.SIGINT)  # a fast shutdown: sessions ended, as an operator's restart does


@pytest.fixture
def own_postgres():
    # Not under tmp_path: pytest makes its folders private to this user, and the server may run as `postgres`.
    folder = Path(tempfile.mkdtemp(prefix="vancetope-pg-"))
    try:
        yield from run_own_server(_OwnPostgres(folder))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.slow
def test_a_server_away_past_the_budget_is_named_and_a_restart_mid_import_is_waited_for(own_postgres, tmp_path,
                                                                                       monkeypatch, upload):
    name = f"vt_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(own_postgres.url, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    lib = open_on_servers(tmp_path / "library", own_postgres.url.rsplit("/", 1)[0] + f"/{name}")
    try:
        # Stopped after the second file, for longer than the budget: the import ends with the server named.
        monkeypatch.setattr(reconnect, "RETRY_SECONDS", 2.0)

        def stop_after_two(step: imports.ImportProgress) -> None:
            if step.done == 2 and not step.reconnecting:
                own_postgres.stop()

        with pytest.raises(DatabaseUnreachable, match=f"cannot reach the library database at 127.0.0.1:"
                                                      f"{own_postgres.port}/{name}"):
            upload(lib, NOTES, progress=stop_after_two)

        own_postgres.start()
        own_postgres.wait_ready()
        assert _whole(lib) == {path.name: 1 for path in NOTES[:2]}  # the files before, whole; nothing of the third

        # A re-run, with the server restarted while it imports the fourth file: waited for, then the rest.
        monkeypatch.setattr(reconnect, "RETRY_SECONDS", harness.READY_SECONDS)
        seen: list[imports.ImportProgress] = []

        def restart_during_the_fourth(step: imports.ImportProgress) -> None:
            seen.append(step)
            if step.done == 3 and not step.reconnecting and own_postgres.process.poll() is None:
                own_postgres.stop()
            elif step.reconnecting and own_postgres.process.poll() is not None:
                own_postgres.start()

        report = upload(lib, NOTES, progress=restart_during_the_fourth)
        assert [o.status for o in report.outcomes] == ["duplicate"] * 2 + ["imported"] * 3
        assert any(step.reconnecting for step in seen) and not seen[-1].reconnecting
        assert _whole(lib) == {path.name: 1 for path in NOTES}
    finally:
        lib.close()


@pytest.mark.slow
def test_the_writer_keeps_its_jobs_when_the_connection_drops_and_redoes_the_batch(pg_library, postgres_database,
                                                                                  upload):
    """The drain's write transaction (its jobs deleted with the documents marked indexed) is cut off: the batch is
    read from the queue again and redone once the server answers; every chunk gets one vector."""
    report = upload(pg_library, NOTES[:3])
    ids = report.document_ids
    cut: list[int] = []

    @event.listens_for(pg_library.engine, "before_cursor_execute")
    def _cut_once(connection, _cursor, statement, _parameters, _context, _many) -> None:
        if not cut and statement.startswith("DELETE FROM index_job"):
            cut.append(connection.connection.dbapi_connection.info.backend_pid)
            with psycopg.connect(postgres_database, autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", (cut[0],))

    said: list[str] = []

    def heard(step) -> None:
        if step.reconnecting:
            said.append(step.current)

    drained = indexing.try_drain(pg_library, progress=heard, documents=ids)
    assert cut, "the drain's write transaction was not cut off: the test tested nothing"
    assert sorted(drained.indexed) == sorted(ids) and not drained.failed  # each once, though its batch ran twice
    assert said and all(text.startswith("reconnecting to the database at 127.0.0.1:") for text in said)
    with read_session(pg_library.engine) as session:
        states = session.execute(text("SELECT index_state, count(*) FROM document WHERE type != 'folder' "
                                      "GROUP BY index_state")).all()
        jobs = session.execute(text("SELECT count(*) FROM index_job")).scalar()
        scopes = session.execute(text("SELECT DISTINCT scope_path FROM document")).scalars().all()
    assert states == [("indexed", 3)] and jobs == 0
    assert sum(pg_library.vectors.counts(scopes).values()) == drained.chunks


def test_the_cli_upload_says_it_is_reconnecting(team_library, postgres_database):
    """`vancetope memory upload` on a team library whose third file's transaction is cut off: the progress (plain
    lines: stderr is not a terminal) says "reconnecting to the database at …", and every file comes in."""
    from typer.testing import CliRunner

    from vancetope_desktop.cli.main import app

    inserts: list[int] = []

    def cut_third(connection, _cursor, statement, _parameters, _context, _many) -> None:
        if statement.startswith("INSERT INTO chunk "):
            inserts.append(1)
            if len(inserts) == 3:  # one statement per file: the third file's
                with psycopg.connect(postgres_database, autocommit=True) as admin:
                    admin.execute("SELECT pg_terminate_backend(%s)",
                                  (connection.connection.dbapi_connection.info.backend_pid,))

    event.listen(Engine, "before_cursor_execute", cut_third)  # the CLI opens its own engine
    try:
        result = CliRunner().invoke(app, ["memory", "upload", *map(str, NOTES), "--no-wait", "--library",
                                          str(team_library.paths.root)])
    finally:
        event.remove(Engine, "before_cursor_execute", cut_third)
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("importing ")]
    assert any(line.startswith("importing 2/5: reconnecting to the database at 127.0.0.1:") for line in lines), lines
    assert lines[-1] == f"importing 5/5: {NOTES[-1].name}"
    assert _whole(team_library) == {path.name: 1 for path in NOTES}


def test_a_server_that_accepts_but_never_answers_is_a_server_out_of_reach(tmp_path):
    # A frozen PostgreSQL (SIGSTOP, a hung host) lets the connection open and then says nothing: psycopg raises its
    # ConnectionTimeout, a subclass of OperationalError, which was taken for a bad statement and shown as a
    # traceback (a tester, 3 Dec 2026) instead of being waited for as a server out of reach.
    import socket

    from sqlalchemy import create_engine
    from sqlalchemy.exc import DBAPIError

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()  # the kernel completes the handshake; nothing ever answers
    try:
        engine = create_engine(f"postgresql+psycopg://nobody@127.0.0.1:{silent.getsockname()[1]}/none",
                               connect_args={"connect_timeout": 1})
        with pytest.raises(DBAPIError) as caught:
            engine.connect()
        assert type(caught.value.orig).__name__ == "ConnectionTimeout"
        assert reconnect.is_disconnect(caught.value)
    finally:
        silent.close()
