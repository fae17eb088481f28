"""Fixtures on the real PostgreSQL and Chroma servers of the test run (issue 17), loaded by tests/conftest.py.

``packaging/dev.py test`` starts both servers (packaging/servers.py) and names them in VANCETOPE_TEST_POSTGRES_URL and
VANCETOPE_TEST_CHROMA_URL; for pytest run by hand, export the lines ``python3 packaging/dev.py servers`` prints. A
missing variable fails the test under CI=true and skips it elsewhere, with that explanation. ``dev.py test`` does not
wait for the servers before starting pytest: the session fixtures wait until each answers (1-2 s after the start,
which collection mostly covers), and fail if one does not within packaging/servers.py's ``READY_SECONDS``.
psycopg and chromadb are imported in the fixtures: test processes that use neither do not load them.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

REPO = Path(__file__).resolve().parent.parent


def _load_harness():
    """packaging/servers.py, by path: the repository's packaging/ folder is not a package (``packaging`` on
    sys.path is PyPI's)."""
    spec = importlib.util.spec_from_file_location("vancetope_test_servers", REPO / "packaging" / "servers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


harness = _load_harness()


def _unique_name() -> str:
    """A database or tenant name no other test, worker or run uses: ``vt_`` and 16 hex digits."""
    return f"vt_{uuid.uuid4().hex[:16]}"


def server_url(variable: str) -> str:
    """The URL in the environment ``variable``; without it, fail under CI=true and skip elsewhere, saying how to
    get the server."""
    url = os.environ.get(variable)
    if url:
        return url
    reason = (f"{variable} is not set: `python3 packaging/dev.py test` starts the real servers; for pytest by hand, "
              "export the lines `python3 packaging/dev.py servers` prints")
    if variable == harness.POSTGRES_URL_VARIABLE and harness.postgres_bin_dir() is None:
        reason += f" ({harness.POSTGRES_MISSING})"
    require(reason)


def require(reason: str) -> None:
    """A server the test needs is missing: fail under CI=true (the run must have it), skip elsewhere."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason)
    pytest.skip(reason)


def wait_until_answering(what: str, url: str, answers, errors: tuple[type[Exception], ...]) -> None:
    """Call ``answers()`` until it returns without raising one of ``errors``; fail the test with the last after
    ``READY_SECONDS`` (the server was named, so not answering is an error, not a reason to skip)."""
    deadline = time.monotonic() + harness.READY_SECONDS
    while True:
        try:
            answers()
            return
        except errors as error:  # refused, reset, starting up
            if time.monotonic() > deadline:
                pytest.fail(f"the {what} server at {url} did not answer within {harness.READY_SECONDS:.0f} s "
                            f"(the test command's output shows its log): {error}")
            time.sleep(0.1)


@pytest.fixture(scope="session")
def postgres_server_url() -> str:
    """The test cluster's superuser URL on its maintenance database (``postgresql://vancetope@127.0.0.1:P/postgres``),
    once it answers."""
    import psycopg

    url = server_url(harness.POSTGRES_URL_VARIABLE)

    def answers() -> None:
        with psycopg.connect(url, connect_timeout=5) as connection:
            connection.execute("SELECT 1")

    wait_until_answering("PostgreSQL", url, answers, (psycopg.OperationalError,))
    return url


@contextlib.contextmanager
def fresh_database(postgres_server_url: str) -> Iterator[str]:
    """A new empty database ``vt_…`` on the test server (same role): its URL; dropped on leaving, open connections
    included."""
    import psycopg
    from psycopg import sql

    name = _unique_name()
    with psycopg.connect(postgres_server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield urlsplit(postgres_server_url)._replace(path=f"/{name}").geturl()
    finally:
        with psycopg.connect(postgres_server_url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture(scope="module")
def postgres_url(postgres_server_url: str) -> Iterator[str]:
    """A fresh, empty database for the test module: its URL (same server and role, database ``vt_…``). Dropped
    after the module's last test, connections still open on it included."""
    with fresh_database(postgres_server_url) as url:
        yield url


@pytest.fixture(scope="session")
def chroma_server_url() -> str:
    """The test Chroma server's base URL (``http://127.0.0.1:P``), once it answers."""
    url = server_url(harness.CHROMA_URL_VARIABLE)

    def answers() -> None:
        if not harness.chroma_answers(url):
            raise ConnectionError(f"no heartbeat from {url}")

    wait_until_answering("Chroma", url, answers, (OSError,))
    return url


def _chroma_settings(chroma_server_url: str):
    """chromadb ``Settings`` for the test server (a client takes its Settings over: one each). TLS verification off:
    the server is plain http, and with it on each client's ``httpx.Client`` loads the CA bundle for nothing (31 ms of
    CPU, see ``index.chroma_server.ChromaServer.settings``)."""
    from chromadb.config import Settings

    address = urlsplit(chroma_server_url)
    return Settings(chroma_api_impl="chromadb.api.fastapi.FastAPI", chroma_server_host=address.hostname,
                    chroma_server_http_port=address.port, chroma_server_ssl_verify=False, anonymized_telemetry=False)


def _chroma_client(chroma_server_url: str, tenant: str, database: str):
    """A ``chromadb.HttpClient`` on the test server's ``tenant`` and ``database`` (the caller closes it with
    ``index.chroma_server.close_client``)."""
    import chromadb

    address = urlsplit(chroma_server_url)
    return chromadb.HttpClient(host=address.hostname, port=address.port, settings=_chroma_settings(chroma_server_url),
                               tenant=tenant, database=database)


@pytest.fixture(scope="session")
def chroma_tenant(chroma_server_url: str) -> Iterator[tuple[object, str]]:
    """(an ``AdminClient`` on the test server, a tenant of this test process's own): made once per process, as a
    new client costs some 10 ms of CPU and Chroma has no call to delete a tenant (the server's data goes with the
    run). Each test's database is made in it (``chroma_database``)."""
    import chromadb

    from vancetope_desktop.index.chroma_server import close_client

    admin = chromadb.AdminClient(_chroma_settings(chroma_server_url))
    name = _unique_name()
    try:
        _while_busy(lambda: admin.create_tenant(name))
        yield admin, name
    finally:
        close_client(admin)


@dataclass(frozen=True)
class ChromaDatabase:
    """A database of one test's own on the test Chroma server: where a team library of the test keeps its vectors."""

    tenant: str
    database: str


@pytest.fixture
def chroma_database(chroma_tenant: tuple[object, str]) -> Iterator[ChromaDatabase]:
    """A new database of this test's own, in this process's tenant (``chroma_tenant``), deleted after the test with
    every collection the test made in it: two requests to the server, no client of the test's own."""
    admin, tenant = chroma_tenant
    name = _unique_name()
    _while_busy(lambda: admin.create_database(name, tenant=tenant))
    try:
        yield ChromaDatabase(tenant, name)
    finally:
        _while_busy(lambda: admin.delete_database(name, tenant=tenant))


@pytest.fixture
def chroma_server(chroma_server_url: str, chroma_database: ChromaDatabase):
    """A ``chromadb`` HTTP client on the test server, in a database of this test's own (``chroma_database``: its
    ``tenant`` and ``database`` are the client's)."""
    from vancetope_desktop.index.chroma_server import close_client

    client = _chroma_client(chroma_server_url, chroma_database.tenant, chroma_database.database)
    try:
        yield client
    finally:
        close_client(client)  # its connections too (see close_client)


def _while_busy(call: Callable[[], object], budget_s: float = 60.0) -> None:
    """``call()``, again every 0.2 s while the test Chroma server answers "database is locked" (its SQLite busy with
    the other test processes' writes: seen at a fixture's teardown under load, CI 3 Dec 2026), for ``budget_s``
    seconds at most; the product retries the same answer (``index.chroma_server.SERVER_BUSY``)."""
    from chromadb.errors import InternalError

    from vancetope_desktop.index.chroma_server import SERVER_BUSY

    deadline = time.monotonic() + budget_s
    while True:
        try:
            call()
            return
        except InternalError as error:
            if SERVER_BUSY not in str(error) or time.monotonic() > deadline:
                raise
        time.sleep(0.2)


@pytest.fixture
def postgres_database(postgres_server_url: str) -> Iterator[str]:
    """A fresh, empty database for this test alone: its URL. Dropped after the test, open connections included."""
    with fresh_database(postgres_server_url) as url:
        yield url


def stop_server(process, shutdown: int) -> None:
    """Stop a server a test started itself (a ``subprocess.Popen``): its ``shutdown`` signal (Chroma's SIGTERM,
    PostgreSQL's SIGINT: a fast shutdown), SIGKILL after packaging/servers.py's ``STOP_SECONDS``; nothing if it is
    not running."""
    import subprocess

    if process is None or process.poll() is not None:
        return
    process.send_signal(shutdown)
    try:
        process.wait(harness.STOP_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def run_own_server(server):
    """For a fixture, ``yield from`` it: a server of the test's own (an object with ``start``, ``wait_ready`` and
    ``stop``) started, waited for, yielded, and stopped whatever happens."""
    server.start()
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


def open_on_servers(root: Path, database_url: str, chroma: tuple[str, str, str] | None = None):
    """A library whose database is on PostgreSQL (``database_url``) and its vectors on the Chroma server ``chroma`` =
    (URL, tenant, database): a team library, its descriptor written at ``root`` and opened by ``Library.open``, its
    files in ``root``'s sibling ``<name>-files``. With ``chroma`` None, a library no descriptor describes: the
    database on PostgreSQL, the vectors, files and settings embedded under ``root`` (composed from its parts).
    """
    from vancetope_desktop.core.settings import Settings
    from vancetope_desktop.services.library import Library, LibraryPaths
    from vancetope_desktop.services.team_library import DatabasePart, TeamDescriptor, VectorsPart, write_descriptor
    from vancetope_desktop.store.db import create_database_engine, ensure_schema

    root.mkdir(parents=True, exist_ok=True)
    if chroma is not None:
        url, tenant, database = chroma
        write_descriptor(root, TeamDescriptor(
            library_id=uuid.uuid4().hex, name=root.name, database=DatabasePart(url=database_url),
            vectors=VectorsPart(url=url, tenant=tenant, database=database),
            files=str(root.parent / f"{root.name}-files")))
        return Library.open(root)
    paths = LibraryPaths(root)
    engine = create_database_engine(database_url)
    ensure_schema(engine, paths.backups)
    library = Library(paths, Settings(), engine)
    library._bootstrap()
    return library


@pytest.fixture
def pg_library(tmp_path: Path, postgres_database: str):
    """An open library on PostgreSQL (a database of this test's own), vectors embedded under ``tmp_path``."""
    library = open_on_servers(tmp_path / "pg-library", postgres_database)
    try:
        yield library
    finally:
        library.close()


@pytest.fixture
def team_library(tmp_path: Path, postgres_database: str, chroma_server_url: str, chroma_database: ChromaDatabase,
                 monkeypatch):
    """An open team library (``Library.open`` on its descriptor): its database on PostgreSQL, its vectors on the Chroma
    server (a database and tenant of this test's own), its files, and this machine's locks (XDG_STATE_HOME), under
    ``tmp_path``."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    library = open_on_servers(tmp_path / "team-library", postgres_database,
                              (chroma_server_url, chroma_database.tenant, chroma_database.database))
    try:
        yield library
    finally:
        library.close()


@dataclass(frozen=True)
class DatabaseContents:
    """What a team library's database holds, apart from its schema: every row of every table but Alembic's, as JSON
    (``row_to_json``: every column type, JSONB's included, round trips through ``json_populate_record``), and where
    each sequence stands (its next value, and whether that value was handed out)."""

    rows: tuple[tuple[str, str], ...]
    """(table, one row as JSON) for every row."""
    sequences: tuple[tuple[str, int, bool], ...]
    """(sequence, value, called) as ``setval`` takes them: called False for a sequence not used yet."""


class ReusedDatabase:
    """One PostgreSQL database that each test of this process in turn gets as a new team library's
    (``team_folder``): made and migrated once, then emptied after each test instead of dropped and made again.

    Emptying (:meth:`restore` of the contents the migrations left, ``meta``'s ``schema_version``: read once from the
    new database) deletes every row of every table but Alembic's (the schema stays), sets the sequences back and puts
    the rows back, in one request on one connection. Any session still connected (a test's CLI or MCP server
    subprocess) is ended first: the next test starts from the same state as on a new database. Measured on the
    shared 2-core machine (20 cycles, the server's CPU read from /proc): 15-22 ms of the server's CPU, against
    111-130 ms for the ``TRUNCATE … RESTART IDENTITY CASCADE`` it replaces (which gives every table and index a new
    file), 0.2-2 s of wall time for a ``CREATE DATABASE`` and ~1.2 s (0.4 s of CPU) for migrating an empty one. The
    test role is the cluster's superuser: ``session_replication_role = replica`` lets the deletes and inserts skip
    the foreign keys' checks, in any order. Tests never change the schema of a library of this fixture (``library
    upgrade`` is tested on databases of their own)."""

    def __init__(self, server_url: str, name: str) -> None:
        import psycopg

        self.server_url, self.name = server_url, name
        self.url = urlsplit(server_url)._replace(path=f"/{name}").geturl()
        with psycopg.connect(self.url) as connection:
            self.tables = [row[0] for row in connection.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
                "AND tablename <> 'alembic_version'")]
        self.new = self.contents()

    def contents(self) -> DatabaseContents:
        """The database's rows and sequences now."""
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.url) as connection:
            rows = tuple((table, row[0]) for table in self.tables for row in connection.execute(
                sql.SQL("SELECT row_to_json(t)::text FROM {} t").format(sql.Identifier(table))))
            sequences = tuple(connection.execute(
                "SELECT format('%I.%I', schemaname, sequencename), coalesce(last_value, start_value), "
                "last_value IS NOT NULL FROM pg_sequences WHERE schemaname = current_schema()"))
        return DatabaseContents(rows, sequences)

    def restore(self, contents: DatabaseContents) -> None:
        """End the other sessions on the database, then make its rows and sequences ``contents``."""
        import psycopg
        from psycopg import sql

        statements = [
            sql.SQL("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"),
            sql.SQL("SET LOCAL session_replication_role = replica"),
            *(sql.SQL("DELETE FROM {}").format(sql.Identifier(table)) for table in self.tables),
            *(sql.SQL("SELECT setval({}, {}, {})").format(sql.Literal(name), sql.Literal(value), sql.Literal(called))
              for name, value, called in contents.sequences),
            *(sql.SQL("INSERT INTO {0} SELECT * FROM json_populate_record(NULL::{0}, {1})").format(
                sql.Identifier(table), sql.Literal(row)) for table, row in contents.rows)]
        with psycopg.connect(self.url) as connection:  # one transaction, committed on leaving
            connection.execute(sql.SQL("; ").join(statements))

    def empty(self) -> None:
        """End the other sessions on the database, then bring it back to a new library's rows."""
        self.restore(self.new)


@pytest.fixture(scope="session")
def reused_team_database(postgres_server_url: str,
                         tmp_path_factory: pytest.TempPathFactory) -> Iterator[ReusedDatabase]:
    """This test process's :class:`ReusedDatabase`: made and migrated at its first use, dropped at the end."""
    from vancetope_desktop.store.db import create_database_engine, ensure_schema

    with fresh_database(postgres_server_url) as url:
        # The schema only, as `library create --team` leaves a database: each test's first Library.open adds the
        # default scopes, as it does on a new team library.
        engine = create_database_engine(url)
        try:
            ensure_schema(engine, tmp_path_factory.mktemp("team-database-backups"))
        finally:
            engine.dispose()
        yield ReusedDatabase(postgres_server_url, urlsplit(url).path.lstrip("/"))


@dataclass(frozen=True)
class TeamTemplate:
    """A team library built once (``team_template``), for tests to start from copies of: its database's contents,
    its Chroma collections (name, metadata, and every record with its vector: nothing is embedded again) and its
    files folder. ``team_folder``'s ``make(root, template)`` copies it into the test's new team library."""

    contents: DatabaseContents
    collections: tuple[tuple[str, dict, dict], ...]
    """(name, metadata, records: ``Collection.get``'s ids, embeddings, metadatas and documents) per collection."""
    files: Path
    """The files folder (it may not exist: nothing was stored as a file)."""


@pytest.fixture(scope="session")
def team_template(reused_team_database: ReusedDatabase, chroma_tenant: tuple[object, str], chroma_server_url: str,
                  tmp_path_factory: pytest.TempPathFactory) -> Callable[[Callable[[object], object]], tuple]:
    """``build(fill)`` → (:class:`TeamTemplate`, what ``fill`` returned): a new team library (this process's
    :class:`ReusedDatabase`, a Chroma database made for the build), opened, ``fill(library)``-ed (adding and indexing
    what the tests share), closed and read back; then its Chroma database is deleted and the reused database emptied.
    For a module-scoped fixture (tests/library_copies.py's ``build_template`` is the embedded library's): it is set
    up between two tests, when no team library of this process is open. Built once instead of in every test, a
    module's shared library costs its team runs a copy each: tests/agents/test_tools.py's tree (nine facts, embedded
    and indexed) took 0.7 s of CPU and 0.4 s of the servers' per test, its copy ~0.1 s."""
    from vancetope_desktop.index.chroma_server import close_client

    admin, tenant = chroma_tenant

    def build(fill):
        folder = tmp_path_factory.mktemp("team-template")
        database = _unique_name()
        _while_busy(lambda: admin.create_database(database, tenant=tenant))
        try:
            with pytest.MonkeyPatch.context() as patch:  # this machine's locks of the library
                patch.setenv("XDG_STATE_HOME", str(folder / "state"))
                with open_on_servers(folder / "library", reused_team_database.url,
                                     (chroma_server_url, tenant, database)) as library:
                    made = fill(library)
            contents = reused_team_database.contents()
            client = _chroma_client(chroma_server_url, tenant, database)
            try:
                collections = tuple(
                    (collection.name, dict(collection.metadata or {}),
                     collection.get(include=["embeddings", "metadatas", "documents"]))
                    for collection in client.list_collections())
            finally:
                close_client(client)
        finally:
            _while_busy(lambda: admin.delete_database(database, tenant=tenant))
            reused_team_database.empty()
        return TeamTemplate(contents, collections, folder / "library-files"), made

    return build


def _copy_collections(template: TeamTemplate, chroma_server_url: str, chroma_database: ChromaDatabase) -> None:
    """Make ``template``'s collections, with their records, in the test's ``chroma_database``."""
    from vancetope_desktop.index.chroma_server import close_client

    client = _chroma_client(chroma_server_url, chroma_database.tenant, chroma_database.database)
    try:
        for name, metadata, records in template.collections:
            collection = client.get_or_create_collection(name, metadata=metadata, embedding_function=None)
            if records["ids"]:  # an upsert, like the product's writes: tried again while the server is busy
                _while_busy(lambda c=collection, r=records: c.upsert(
                    ids=r["ids"], embeddings=r["embeddings"], metadatas=r["metadatas"], documents=r["documents"]))
    finally:
        close_client(client)


@pytest.fixture
def team_folder(tmp_path: Path, reused_team_database: ReusedDatabase, chroma_server_url: str,
                chroma_database: ChromaDatabase, monkeypatch) -> Iterator:
    """``make(root, template=None)`` writes a team library's descriptor at ``root`` and returns ``root``: a new team
    library (its database this process's :class:`ReusedDatabase`, emptied after the test; its vectors in
    ``chroma_database``; its files in ``root``'s sibling ``<name>-files``), or with ``template`` (a
    :class:`TeamTemplate`) a copy of that one, which ``Library.open(root)``, ``--library root`` and ``vancetope mcp
    --library root`` open. This machine's locks go under ``tmp_path`` (XDG_STATE_HOME, inherited by the CLI's and the
    MCP server's subprocesses). One library per test: a second ``make`` is refused."""
    from vancetope_desktop.services.team_library import DatabasePart, TeamDescriptor, VectorsPart, write_descriptor

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    made: list[Path] = []

    def make(root: Path, template: TeamTemplate | None = None) -> Path:
        assert not made, f"team_folder already made a library at {made[0]}"
        made.append(root)
        root.mkdir(parents=True, exist_ok=True)
        files = root.parent / f"{root.name}-files"
        write_descriptor(root, TeamDescriptor(
            library_id=uuid.uuid4().hex, name=root.name, database=DatabasePart(url=reused_team_database.url),
            vectors=VectorsPart(url=chroma_server_url, tenant=chroma_database.tenant,
                                database=chroma_database.database),
            files=str(files)))
        if template is not None:
            reused_team_database.restore(template.contents)
            _copy_collections(template, chroma_server_url, chroma_database)
            if template.files.exists():
                shutil.copytree(template.files, files)
        return root

    yield make
    if made:
        reused_team_database.empty()
