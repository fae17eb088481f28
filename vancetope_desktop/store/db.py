"""The library database: engine set-up (SQLite: WAL, foreign keys, busy timeout; PostgreSQL: ``store.postgres``),
schema creation, sessions.

Several processes share one library (the app, the CLI, an agent server). SQLite in WAL mode lets
readers run beside one writer; write transactions start with ``BEGIN IMMEDIATE`` so that two writers
queue on the busy timeout instead of failing with "database is locked" when a read transaction is
upgraded (SQLite cannot wait in that case, see https://www.sqlite.org/lang_transaction.html).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.exc import OperationalError
from sqlmodel import Session

from ..core.errors import LibraryError
from . import change_feed, reconnect, tables
from .json_columns import dump_json, load_json
from .migrations import HEAD_REVISION
from .nul_guard import guard_engine
from .postgres import QUEUE_OPTION, WRITE_OPTION, create_postgres_engine

BUSY_TIMEOUT_MS = 60_000
"""How long a writer waits for another process's write transaction (a large import commits in batches)."""


def create_database_engine(location: Path | str, *, password: str | None = None) -> Engine:
    """Open the library database at ``location`` with the library's connection settings: a path is the embedded
    library's SQLite file (created if needed), a ``postgresql://`` or ``postgresql+psycopg://`` URL a team library's
    server database (``store.postgres.create_postgres_engine``, ``password`` passed to it: it must exist; its tables
    are made by :func:`ensure_schema`).

    Raises:
        LibraryError: when the file cannot be opened as a database, the URL is not PostgreSQL's, or the server
            cannot be reached.
    """
    if isinstance(location, str):
        return create_postgres_engine(location, password=password)
    path = location
    engine = create_engine(
        f"sqlite:///{path}",
        connect_args={"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False},
        json_serializer=dump_json,  # NaN, dates… converted: every JSON column stays valid JSON
        json_deserializer=load_json,
    )

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection, _record) -> None:
        # The driver must not open transactions itself; "begin" below does it (IMMEDIATE for writes).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        # NORMAL is crash-safe in WAL mode (a process crash loses nothing committed).
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    guard_engine(engine)  # a NUL stored as U+FFFD, as on PostgreSQL (store.nul_guard)

    @event.listens_for(engine, "begin")
    def _begin(connection) -> None:
        options = connection.get_execution_options()
        write = options.get(WRITE_OPTION, False) or options.get(QUEUE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN DEFERRED")

    try:
        with engine.connect() as connection:
            connection.exec_driver_sql("SELECT 1")
    except Exception as error:  # sqlite3.DatabaseError and friends: the file is not a database
        raise LibraryError(f"cannot open the library database {path}: {error}") from error
    return engine


@dataclass(frozen=True)
class SchemaState:
    """What the library records of its schema: its Alembic ``revision`` (None before Alembic or for a new
    database) and, before Alembic, ``meta.schema_version`` (``legacy_version``; None for a new database)."""

    revision: str | None
    legacy_version: int | None


_TABLES_NAMED = {
    "sqlite": "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('meta', 'alembic_version')",
    "postgresql": "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
                  "AND table_name IN ('meta', 'alembic_version')",
}
"""Per database, the query that says which of the two tables :func:`schema_state` reads exist."""


def schema_state(connection: Connection) -> SchemaState:
    """Read the library's schema revision with two small queries and no Alembic import (every start-up does this)."""
    found = set(connection.execute(text(_TABLES_NAMED[connection.dialect.name])).scalars())
    if "alembic_version" in found:
        revisions = connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
        # One row on a linear history; anything else is left to Alembic (upgrade_schema) to judge.
        return SchemaState(revisions[0] if len(revisions) == 1 else None, None)
    value = connection.execute(text("SELECT value FROM meta WHERE key = 'schema_version'")).scalar() \
        if "meta" in found else None
    return SchemaState(None, None if value is None else int(value))


@dataclass(frozen=True)
class SchemaUpgrade:
    """A migration :func:`ensure_schema` made: from which schema version, to which, and the copy made first (None on
    a server database: its copy is the operator's, made before asking for the upgrade)."""

    from_version: int
    to_version: int
    backup: Path | None


def ensure_schema(engine: Engine, backups: Path, *, upgrade_server: bool = False) -> SchemaUpgrade | None:
    """Create the schema of a new library, bring an older one to this program's (``store/migrations``), or refuse a
    newer one.

    Before migrating an embedded library of an older schema, the database is copied to ``backups`` (SQLite's
    online backup API, see ``store/backups.py``): a migration that goes wrong, or a newer program
    the user wants to leave, costs nothing. A server (PostgreSQL) database is not copied: a team's database is
    backed up by its operator (``pg_dump``), and one program of the team must not upgrade it under the others'
    feet on opening it, so an older server schema is upgraded only when ``upgrade_server`` is True (an explicit
    upgrade step), refused otherwise; an empty server database is created without asking. A library already at
    the head revision costs one read and no Alembic import (a cold CLI command's start-up).

    Returns:
        The :class:`SchemaUpgrade` made, or None (a new library, or one at the current version).

    Raises:
        LibraryTooNew: the library's schema is newer than this program's (a revision it does not know).
        LibraryNeedsUpgrade: a server database of an older schema, without ``upgrade_server``; nothing changed.
        LibraryError: the copy cannot be made, or a migration step fails; nothing was migrated.
    """
    with engine.connect() as connection:
        found = schema_state(connection)
    if found.revision == HEAD_REVISION:
        return None
    from .migrations.upgrade import upgrade_schema  # Alembic (0.12 s of CPU to import) only to create or upgrade

    return upgrade_schema(engine, backups, found, upgrade_server=upgrade_server)


LOCK_NOT_AVAILABLE = "55P03"
"""PostgreSQL's SQLSTATE for a lock wait that ran out (``lock_timeout``): its "database is locked"."""


def is_busy(error: OperationalError) -> bool:
    """Whether ``error`` is a write transaction that waited for another's lock past the busy timeout (SQLite's
    "database is locked", PostgreSQL's ``lock_timeout``), rather than a real failure."""
    return "locked" in str(error) or getattr(error.orig, "sqlstate", None) == LOCK_NOT_AVAILABLE


@contextmanager
def write_session(engine: Engine) -> Iterator[Session]:
    """A session whose transaction takes the write lock at once (SQLite's ``BEGIN IMMEDIATE``, PostgreSQL's advisory
    write lock: ``store.postgres``) and commits on success, rolls back on error.

    Raises:
        ConnectionLost, DatabaseUnreachable: a team library's server dropped the connection in the block, or did not
            answer at its start within the reconnect budget (``store.reconnect``); nothing of the block is written.
    """
    with reconnect.session_on(engine, engine.execution_options(**{WRITE_OPTION: True})) as session:
        yield session


@contextmanager
def queue_session(engine: Engine) -> Iterator[Session]:
    """A write session for the index writers' claims on the queue (``index.job_claims``): on SQLite a write
    transaction like :func:`write_session`'s, on PostgreSQL one that holds the queue's own lock
    (``store.postgres.QUEUE_LOCK_KEY``) rather than the database's write lock; commits on success. The server
    away: as :func:`write_session` (``store.reconnect``)."""
    with reconnect.session_on(engine, engine.execution_options(**{QUEUE_OPTION: True})) as session:
        yield session


@contextmanager
def read_session(engine: Engine) -> Iterator[Session]:
    """A session for reads: one snapshot that never blocks writers (SQLite: a deferred transaction in WAL mode;
    PostgreSQL: REPEATABLE READ). A team library's server that drops its connections between sessions costs nothing
    (a new connection at the start: ``store.reconnect``); one lost in the block raises ConnectionLost."""
    with reconnect.session_on(engine, engine) as session:
        yield session


def get_meta(session: Session, key: str, default: str | None = None) -> str | None:
    """Read one ``meta`` value."""
    row = session.get(tables.MetaRow, key)
    return default if row is None else row.value


def set_meta(session: Session, key: str, value: str) -> None:
    """Write one ``meta`` value (inside the caller's write transaction); a counter open windows watch is announced
    to them on a team library (``store.change_feed.announce``)."""
    row = session.get(tables.MetaRow, key)
    if row is None:
        session.add(tables.MetaRow(key=key, value=value))
    else:
        row.value = value
        session.add(row)
    change_feed.announce(session, key)
