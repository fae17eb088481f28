"""A team library's sessions outlive their database connection dropping (issue 17's fault test): a server restart,
``pg_terminate_backend``, the network gone for a while.

Three layers, each where re-running is safe:

- **checkout**: the engine's ``pool_pre_ping`` (``store.postgres``) replaces a pooled connection the server has
  dropped since it was last used, before any statement runs: one round trip per checkout (a ``SELECT 1``).
- **the start of a session** (:func:`session_on`, under ``store.db.read_session`` and ``write_session``): its
  connection is taken, and its transaction begun, before the caller's block runs; a server that does not answer
  then is waited for, with backoff, for up to :data:`RETRY_SECONDS`, and the session begins once it answers:
  transparent to every caller, reads and writes alike, since nothing of the block has run.
- **a transaction cut off mid-way** rolls back on the server; the block (a ``with`` body, which cannot be run
  again from here) ends with :class:`~..core.errors.ConnectionLost`. A loop whose unit of work is re-runnable as a
  whole (an import's file, the index writer's batch) runs it through :func:`resuming`, which runs it again once
  the server answers.

Past the budget, :class:`~..core.errors.DatabaseUnreachable` names the server. While waiting, the callback set by
:func:`reporting` (an import's or a drain's progress) hears "reconnecting to the database at host:port/db…", then
None once reached again. The embedded SQLite library is left exactly as it was: none of this applies to a file.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from sqlalchemy import Engine
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session

from ..core.errors import ConnectionLost, DatabaseUnreachable

_log = logging.getLogger(__name__)

RETRY_SECONDS = 30.0
"""How long a lost database is waited for before :class:`DatabaseUnreachable`: as the Chroma server's
(``index.chroma_server.RETRY_SECONDS``); a restarted PostgreSQL answers within 1-2 s (packaging/servers.py)."""
FIRST_DELAY, MAX_DELAY = 0.25, 4.0
"""Backoff between tries, in seconds: doubled after each failed try, from the first up to the largest."""
DISCONNECT_STATES = ("57P01", "57P02", "57P03")
"""SQLSTATEs of a server going away (admin_shutdown: ``pg_terminate_backend`` or a fast shutdown; crash_shutdown;
cannot_connect_now: still starting); class ``08`` (connection exceptions) too."""

_listener: ContextVar[Callable[[str | None], None] | None] = ContextVar("reconnect_listener", default=None)

_Result = TypeVar("_Result")


def is_disconnect(error: BaseException) -> bool:
    """Whether ``error`` (a SQLAlchemy ``DBAPIError``) means the server is out of reach, not that the statement was
    wrong: SQLAlchemy invalidated the connection, or the driver could not connect (psycopg's OperationalError
    without a SQLSTATE, or a subclass of it: refused, reset, timed out) or the server said it is shutting down or
    starting. A lock timeout, a refused password or a missing database are not (each has its own SQLSTATE)."""
    if not isinstance(error, DBAPIError):
        return False
    if error.connection_invalidated:
        return True
    state = getattr(error.orig, "sqlstate", None)
    if state is None:  # psycopg's OperationalError or a subclass (ConnectionTimeout: a frozen server, a tester)
        return any(kind.__name__ == "OperationalError" for kind in type(error.orig).__mro__)
    return state.startswith("08") or state in DISCONNECT_STATES


def server_name(engine: Engine) -> str:
    """``host:port/database`` of ``engine``'s server, for messages (no user, no password)."""
    url = engine.url
    return f"{url.host or 'localhost'}:{url.port or 5432}/{url.database}"


@contextmanager
def reporting(listener: Callable[[str | None], None]) -> Iterator[None]:
    """Within the block (this thread), waits for the database are told to ``listener``: "reconnecting to the
    database at host:port/db…" before each pause, None once it answers again."""
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)


class _Waiting:
    """Backoff on one server, from the first failure on, until :data:`RETRY_SECONDS` have passed."""

    def __init__(self, engine: Engine) -> None:
        self.server = server_name(engine)
        self.deadline = time.monotonic() + RETRY_SECONDS
        self.delay = FIRST_DELAY

    def pause(self, error: BaseException) -> None:
        """Wait before the next try, telling the listener; or raise DatabaseUnreachable past the budget."""
        cause = getattr(error, "orig", None) or error.__cause__ or error
        detail = (str(getattr(cause, "orig", None) or cause).strip().splitlines() or [type(cause).__name__])[0]
        if time.monotonic() + self.delay > self.deadline:
            raise DatabaseUnreachable(
                f"cannot reach the library database at {self.server} ({detail}) for {RETRY_SECONDS:.0f} s: is the "
                "server running and reachable from this machine? What was cut off is not written; run it again "
                "once the server answers") from error
        _log.warning("lost the database at %s (%s); reconnecting in %.2g s", self.server, detail, self.delay)
        _tell(f"reconnecting to the database at {self.server}…")
        time.sleep(self.delay)
        self.delay = min(self.delay * 2, MAX_DELAY)

    @staticmethod
    def reached() -> None:
        """Tell the listener the server answers again."""
        _tell(None)


def _tell(message: str | None) -> None:
    """Call the listener of :func:`reporting`, if any, with none set meanwhile: a listener that reads the database
    (a count for its progress) while it is away must not wait inside itself, told of its own wait."""
    listener = _listener.get()
    if listener is None:
        return
    token = _listener.set(None)
    try:
        listener(message)
    finally:
        _listener.reset(token)


class _NotReached(Exception):
    """The session's connection could not be made or its transaction begun (the block has not run)."""


@contextmanager
def session_on(engine: Engine, bind: Engine) -> Iterator[Session]:
    """A session on ``bind`` (``engine`` or ``engine`` with execution options) in a transaction begun before the
    block runs, committed after it, rolled back on an error. On a server database, a server out of reach at the
    start is waited for (see the module); a connection lost in the block raises ConnectionLost.

    Raises:
        ConnectionLost: the connection dropped while the block ran or committed; nothing of it is written.
        DatabaseUnreachable: the server did not answer within :data:`RETRY_SECONDS`.
    """
    if engine.dialect.name == "sqlite":
        with Session(bind, expire_on_commit=False) as session, session.begin():
            yield session
        return
    waiting: _Waiting | None = None
    while True:
        try:
            with Session(bind, expire_on_commit=False) as session, session.begin():
                try:
                    # checkout and pre-ping (a write's BEGIN and lock too; a read's BEGIN rides on its first
                    # statement, store.postgres): before the block
                    session.connection()
                except DBAPIError as error:
                    if is_disconnect(error):
                        raise _NotReached from error
                    raise
                if waiting is not None:
                    waiting.reached()
                yield session
            return
        except _NotReached as not_reached:
            waiting = waiting or _Waiting(engine)
            waiting.pause(not_reached.__cause__ or not_reached)
        except DBAPIError as error:
            if is_disconnect(error):
                raise ConnectionLost(f"lost the connection to the library database at {server_name(engine)} "
                                     "mid-transaction; nothing of it was written") from error
            raise


def resuming(engine: Engine, attempt: Callable[[], _Result]) -> _Result:
    """Run ``attempt`` (a unit of work that may run again from its start: its transactions roll back whole) and
    run it again, after a backoff, each time it ends with ConnectionLost, until :data:`RETRY_SECONDS` from the
    first loss; the listener of :func:`reporting` hears each wait.

    Raises:
        DatabaseUnreachable: the budget ran out (the last ConnectionLost is its cause); what ``attempt`` raises.
    """
    waiting: _Waiting | None = None
    while True:
        try:
            result = attempt()
        except ConnectionLost as error:
            waiting = waiting or _Waiting(engine)
            waiting.pause(error)
            continue
        if waiting is not None:
            waiting.reached()
        return result
