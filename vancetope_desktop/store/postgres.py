"""The PostgreSQL database of a team library (issue 17): engine set-up, and the embedded library's transaction
semantics mapped onto the server.

The services were written for SQLite, where a write transaction (``BEGIN IMMEDIATE``) holds the database's one
write lock from its first statement, and a read transaction sees one snapshot (WAL). On PostgreSQL:

- a **write transaction** takes a transaction-level advisory lock, :data:`WRITE_LOCK_KEY`, as its first statement
  (READ COMMITTED): writers queue on it exactly as on SQLite's write lock, so a service's read-then-write (the next
  version number, a conversation's next ``seq``, "is it at head?" before migrating) stays atomic without a retry
  loop. The lock waits at most :data:`LOCK_TIMEOUT_MS` (SQLite's busy timeout), then the statement fails.
- a **queue transaction** (``store.db.queue_session``: the index writers' claims, ``index.job_claims``) takes
  :data:`QUEUE_LOCK_KEY` instead: claims queue on each other (each sees the claims committed before it) but never
  on a service's write, nor a write on them; the rows are taken with ``SELECT … FOR UPDATE SKIP LOCKED``.
- a **read transaction** is REPEATABLE READ: one snapshot for all its statements, as a deferred SQLite
  transaction in WAL mode; a read-only transaction at that level never fails with a serialization error.
- **JSON columns** are JSONB (``json_columns.JSON_VALUE``): validated on the way in (nothing to repair, unlike
  schema 3's SQLite step), indexable (schema 4's expression indexes), with ``->>``, ``?``, ``@>`` and
  ``jsonb_array_elements`` for SQLite's ``json_extract``, ``instr`` and ``json_each``.
- times are ``timestamp with time zone``; the session's time zone is UTC, so values come back as UTC.

psycopg 3 (the ``team`` extra) is imported by SQLAlchemy only when such an engine is created; an installation
without it (or, for psycopg's pure-Python package, as in the Linux package, without the system's libpq) gets a
:class:`LibraryError` saying what is missing and how to get it (:data:`DRIVER_ADVICE`).
"""

from __future__ import annotations

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from ..core.errors import LibraryError
from .json_columns import dump_json, load_json
from .nul_guard import guard_engine

WRITE_OPTION = "library_write"
"""The execution option that makes a transaction a write transaction (``store.db.write_session``): SQLite begins it
IMMEDIATE, PostgreSQL takes :data:`WRITE_LOCK_KEY`."""
WRITE_LOCK_KEY = 0x76616E6365  # "vance" in ASCII: a fixed key, one library per database
"""The advisory lock (``pg_advisory_xact_lock``) every write transaction holds: the database's write lock."""
QUEUE_OPTION = "library_queue"
"""The execution option of a transaction on the index queue's claims (``store.db.queue_session``): SQLite begins it
IMMEDIATE, PostgreSQL takes :data:`QUEUE_LOCK_KEY`."""
QUEUE_LOCK_KEY = WRITE_LOCK_KEY + 1
"""The advisory lock (``pg_advisory_xact_lock``) a claim on the index queue holds: claims one after the other, each a
few milliseconds, never behind the database's write lock (a large import's transaction)."""
READ_ISOLATION = 3  # psycopg.IsolationLevel.REPEATABLE_READ (psycopg is imported only with a team library's engine)
"""The isolation level of a read transaction: psycopg begins it ``BEGIN ISOLATION LEVEL REPEATABLE READ``. A write or
queue transaction has none of its own (the server's default, READ COMMITTED): it must see what the writer it queued
behind committed, which a snapshot taken at its lock statement would not."""
LOCK_TIMEOUT_MS = 60_000
"""How long a statement waits for a lock before failing: SQLite's busy timeout (``store.db.BUSY_TIMEOUT_MS``)."""
CONNECT_TIMEOUT_S = 10
"""How long opening a connection waits for the server before failing (libpq's ``connect_timeout``)."""
SCHEMES = ("postgresql", "postgres", "postgresql+psycopg")
"""The URL schemes of a PostgreSQL library: libpq's two (``postgresql://``, ``postgres://``) and SQLAlchemy's with
the driver named; psycopg 3 is the driver whichever is given."""
DRIVER_ADVICE = ("install the team extra (`pip install 'vancetope-desktop[team]'`: psycopg with its own libpq); "
                 "the Linux package uses the system's PostgreSQL client library (Debian/Ubuntu: `sudo apt install "
                 "libpq5`)")
"""How to get the PostgreSQL driver when it cannot be loaded: pyproject's ``team`` extra, or for the .deb (which
ships psycopg's pure-Python package, packaging/build_bundle.py ``CTYPES_DEPENDS``) the system's libpq."""


def server_url(location: str) -> URL:
    """The SQLAlchemy URL for ``location``, driver psycopg 3.

    Raises:
        LibraryError: ``location`` is not a PostgreSQL URL this program opens (another driver, a malformed URL).
    """
    try:
        url = make_url(location)
    except ArgumentError as error:
        raise LibraryError(f"not a database URL ({error})") from error  # the text may hold a password: not shown
    if url.drivername not in SCHEMES:
        raise LibraryError(f"a team library's database URL starts with postgresql:// (or postgres://), not "
                           f"{url.drivername}:// ({url.render_as_string(hide_password=True)})")
    return url.set(drivername="postgresql+psycopg")


def create_postgres_engine(location: str, *, password: str | None = None) -> Engine:
    """An engine on the PostgreSQL database at ``location`` (a URL: credentials from it, ``password``, ``PGPASSFILE``
    or the environment, as libpq reads them), with the transaction semantics described above; one connection is
    tried. ``password`` (a team library's, from the keyring) goes to psycopg as a connection argument, never into
    the URL, so no string that is logged or shown holds it.

    Raises:
        LibraryError: the URL is not PostgreSQL's, or the server cannot be reached or refuses the connection
            (the message names the server without its password).
    """
    url = server_url(location)
    try:
        engine = create_engine(
            url,
            connect_args={"options": f"-c lock_timeout={LOCK_TIMEOUT_MS} -c timezone=UTC",
                          "connect_timeout": CONNECT_TIMEOUT_S, **({"password": password} if password else {})},
            json_serializer=dump_json,  # NaN, dates… converted, as on SQLite: JSONB would refuse them
            json_deserializer=load_json,
            pool_pre_ping=True,  # a server restarted between two commands: a new connection, not an error
        )
    except (ImportError, NoSuchModuleError) as error:  # SQLAlchemy imports the dialect, then psycopg, here
        # psycopg's own message lists each implementation it tried (C, binary, pure Python: "libpq library not
        # found"), one a line.
        found = " ".join(str(error).split())
        raise LibraryError(f"a team library's database needs psycopg 3, PostgreSQL's driver, which cannot be loaded "
                           f"here ({found}): {DRIVER_ADVICE}") from error

    guard_engine(engine)  # PostgreSQL refuses NUL in text: stored as U+FFFD (store.nul_guard)

    @event.listens_for(engine, "begin")
    def _begin(connection) -> None:
        options = connection.get_execution_options()
        lock = QUEUE_LOCK_KEY if options.get(QUEUE_OPTION) else WRITE_LOCK_KEY if options.get(WRITE_OPTION) else None
        # psycopg opens the transaction itself, with the connection's level, at the first statement: set here, before
        # it (client-side only), the level rides on that ``BEGIN`` instead of costing a ``SET TRANSACTION`` round trip
        # per read session. Set on every transaction: a pooled connection's last one may have been of the other kind.
        driver = connection.connection.driver_connection
        level = None if lock is not None else READ_ISOLATION
        if driver.isolation_level != level:
            driver.isolation_level = level
        if lock is not None:
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({lock})")

    try:
        with engine.connect() as connection:
            connection.exec_driver_sql("SELECT 1")
    except Exception as error:  # psycopg.OperationalError and friends: unreachable, refused, no such database
        engine.dispose()
        cause = getattr(error, "orig", None) or error
        shown = url.set(drivername="postgresql").render_as_string(hide_password=True)
        advice = ""
        # libpq reports a refused connection as text only (psycopg's sqlstate is None then): the server's words.
        if f'database "{url.database}" does not exist' in str(cause):
            advice = (f"; the server's administrator creates it (e.g. `createdb --owner {url.username or 'ROLE'} "
                      f"{url.database}`), one database per team library")
        raise LibraryError(f"cannot open the library database {shown}: {str(cause).strip()}{advice}") from error
    return engine
