"""Changes announced by PostgreSQL (store/change_feed.py): a write's NOTIFY reaches a listener in another process's
library, not a rolled-back one; a dropped connection is said ("reconnecting…") and listening resumes."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import psycopg
import pytest

from vancetope_desktop.services.records import bump_change_counter
from vancetope_desktop.store import change_feed
from vancetope_desktop.store.db import read_session, write_session

pytestmark = pytest.mark.servers

WAIT = 30.0  # a bound for "never came", not a speed requirement (latencies are printed)

_BUMP = """
import sys
from vancetope_desktop.services.records import bump_change_counter
from vancetope_desktop.store.db import create_database_engine, write_session
engine = create_database_engine(sys.argv[1])
with write_session(engine) as session:
    bump_change_counter(session)
engine.dispose()
"""


class Seen:
    """What a listener reported: each change as an event, each state in order."""

    def __init__(self) -> None:
        self.changed = threading.Event()
        self.states: list[str | None] = []
        self.back = threading.Event()

    def change(self) -> None:
        self.changed.set()

    def state(self, value: str | None) -> None:
        self.states.append(value)
        if value is None:
            self.back.set()


@pytest.fixture
def listening(pg_library):
    seen = Seen()
    listener = change_feed.ChangeListener(pg_library.engine, seen.change, seen.state)
    listener.start()
    _wait_listening(pg_library.engine.url.render_as_string(hide_password=False))
    try:
        yield pg_library, listener, seen
    finally:
        listener.stop()


def _wait_listening(url: str) -> None:
    """Until a session of the database LISTENs on the channel (the listener's thread connects on its own)."""
    deadline = time.monotonic() + WAIT
    plain = url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as admin:
        while time.monotonic() < deadline:
            found = admin.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                                  "AND query LIKE 'LISTEN%'").fetchone()[0]
            if found:
                return
            time.sleep(0.05)
    pytest.fail("the listener never listened")


def test_another_process_s_change_reaches_the_listener(listening):
    library, _listener, seen = listening
    url = library.engine.url.render_as_string(hide_password=False)
    started = time.monotonic()
    subprocess.run([sys.executable, "-c", _BUMP, url], check=True, timeout=120)
    committed = time.monotonic()
    assert seen.changed.wait(WAIT), "the other process's change was never announced"
    print(f"announced {time.monotonic() - committed:.3f} s after the writer exited "
          f"({committed - started:.2f} s for the writer process)")


def test_a_rolled_back_change_is_not_announced(listening):
    library, _listener, seen = listening

    class Abandon(Exception):
        pass

    with pytest.raises(Abandon), write_session(library.engine) as session:
        bump_change_counter(session)
        raise Abandon
    assert not seen.changed.wait(2.0)  # the rolled-back write is not announced (2 s: many times a delivery)
    with write_session(library.engine) as session:
        bump_change_counter(session)
    assert seen.changed.wait(WAIT)


def test_a_dropped_connection_is_said_and_listening_resumes(listening):
    library, listener, seen = listening
    url = library.engine.url.render_as_string(hide_password=False).replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(url, autocommit=True) as admin:  # the server drops every other session of the database
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                      "AND pid <> pg_backend_pid()")
    assert seen.back.wait(WAIT), f"never listening again: {seen.states}"
    assert seen.states[0] == f"reconnecting to the database at {listener.where}…"
    assert "@" not in listener.where  # no user or password in what the app shows
    seen.changed.clear()
    _wait_listening(url)
    with write_session(library.engine) as session:  # the pool's connections were dropped too: it reconnects
        bump_change_counter(session)
    assert seen.changed.wait(WAIT)


def test_sqlite_announces_nothing_and_keeps_working(library):
    with write_session(library.engine) as session:
        bump_change_counter(session)
    with read_session(library.engine) as session:
        assert library.index_counters(session)[1] == 1
