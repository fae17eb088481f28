"""Changes announced by the database itself (issue 17): PostgreSQL's LISTEN/NOTIFY for a team library.

An embedded library's open windows poll its ``meta`` counters (``change_counter``, ``index_generation``) every
1.5 s (``ui/indexer.POLL_MS``); a team library's members are on other machines, and the issue wants their changes
in an open app within a second. So on PostgreSQL every write of those counters also sends ``NOTIFY`` on
:data:`CHANNEL` (:func:`announce`, called by ``store.db.set_meta``, inside the writer's transaction: the server
delivers it at commit, never for a rolled-back change, and folds repeats within one transaction), and an open app
holds one listening connection (:class:`ChangeListener`). The notification says only *which* counter moved: the
listener's owner reads the library as its poll did (one code path for what changed), so a lost or folded
notification costs nothing but latency, and a reconnection ends with a catch-up read.

SQLite has no such mechanism across processes: there, :func:`announce` does nothing and the poll stays.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from sqlalchemy import Engine, text
from sqlmodel import Session

logger = logging.getLogger(__name__)

CHANNEL = "vancetope_changes"
"""The NOTIFY channel of a library's database (one library per database, as ``store.postgres.WRITE_LOCK_KEY``)."""
ANNOUNCED_KEYS = frozenset({"change_counter", "index_generation"})
"""The ``meta`` counters whose writes are announced: what the window's poll watches (``ui/indexer.Indexer.poll``)."""
WAIT_SECONDS = 0.5
"""How long one wait for notifications lasts before the listener looks whether it was stopped."""
KEEPALIVE_SECONDS = 5.0
"""How often a quiet listener checks that its connection still answers (a server gone quietly sends nothing)."""
RETRY_SECONDS = (0.25, 0.5, 1.0, 2.0, 4.0)
"""Pauses between reconnection attempts (then 4 s each): quick after a blip, gentle on a server that is down."""


def announce(session: Session, key: str) -> None:
    """Send ``NOTIFY`` :data:`CHANNEL` with ``key`` as payload when ``key`` is one of :data:`ANNOUNCED_KEYS` and the
    session's database is PostgreSQL; nothing otherwise. Delivered when the caller's transaction commits."""
    if key in ANNOUNCED_KEYS and session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_notify(:channel, :key)"), {"channel": CHANNEL, "key": key})


class ChangeListener:
    """A thread holding one connection that LISTENs on :data:`CHANNEL` of a PostgreSQL library's database.

    Args:
        engine: the library's engine (PostgreSQL); its connection settings and credentials are reused (a raw
            connection taken from it and detached from its pool), so nothing here sees a password.
        on_change: called (on the listener's thread) after notifications arrive — at most once per wait, however
            many came — and after each reconnection (changes may have been missed meanwhile).
        on_state: called (on the listener's thread) with a sentence when the connection is lost ("reconnecting to
            the database at host:port…"), and with None once listening again.

    :meth:`start` begins; :meth:`stop` ends within :data:`WAIT_SECONDS` and closes the connection.
    """

    def __init__(self, engine: Engine, on_change: Callable[[], None],
                 on_state: Callable[[str | None], None] | None = None) -> None:
        self._engine = engine
        self._on_change = on_change
        self._on_state = on_state or (lambda _state: None)
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="change-listener", daemon=True)
        self._connection = None

    def start(self) -> None:
        """Connect and listen on a thread of its own (returns at once)."""
        self._thread.start()

    def stop(self, *, wait: bool = True) -> None:
        """Stop listening; the thread closes the connection within :data:`WAIT_SECONDS` and calls nothing more.
        With ``wait``, return once it has (a window closing passes False: nothing waits on the GUI thread)."""
        self._stopped.set()
        if wait and self._thread.is_alive():
            self._thread.join(timeout=WAIT_SECONDS * 4)

    @property
    def where(self) -> str:
        """The database's host, port and name, for messages (no user, no password)."""
        url = self._engine.url
        return f"{url.host or 'localhost'}:{url.port or 5432}/{url.database}"

    def _run(self) -> None:
        attempt = 0
        lost = False
        while not self._stopped.is_set():
            try:
                self._connect()
                if lost:
                    self._on_change()  # what changed while the connection was down
                    self._on_state(None)
                lost, attempt = False, 0
                self._listen()
            except Exception as error:  # a dropped connection, a server restarting: retried
                self._close()
                if self._stopped.is_set():
                    break
                pause = RETRY_SECONDS[min(attempt, len(RETRY_SECONDS) - 1)]
                attempt += 1
                lost = True
                logger.info("change listener: %s; retrying in %.2f s", error, pause)
                self._on_state(f"reconnecting to the database at {self.where}…")
                self._stopped.wait(pause)
        self._close()

    def _connect(self) -> None:
        raw = self._engine.raw_connection()
        connection = raw.driver_connection
        raw.detach()  # ours alone: the pool must not hand a LISTENing connection to a query
        connection.autocommit = True
        connection.execute(f"LISTEN {CHANNEL}")
        self._connection = connection

    def _listen(self) -> None:
        connection = self._connection
        quiet = 0.0
        while not self._stopped.is_set():
            if list(connection.notifies(timeout=WAIT_SECONDS)):
                quiet = 0.0
                if not self._stopped.is_set():  # a stopped listener's owner may be gone
                    self._on_change()
                continue
            if connection.closed or connection.broken:
                raise ConnectionError("the connection was closed")
            quiet += WAIT_SECONDS
            if quiet >= KEEPALIVE_SECONDS:  # a server gone quietly is found here, not at the next change
                quiet = 0.0
                connection.execute("SELECT 1")

    def _close(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            try:
                connection.close()
            except Exception:  # closing a broken connection: nothing to save
                logger.debug("closing the change listener's connection failed", exc_info=True)
