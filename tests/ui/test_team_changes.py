"""A team library's open window hears other members' changes from the database (LISTEN/NOTIFY, issue 17) and says
when its connection is lost ("reconnecting…") and back."""

from __future__ import annotations

import subprocess
import sys

import psycopg
import pytest

from tests.store.test_change_feed import _BUMP, _wait_listening

pytestmark = pytest.mark.servers

WAIT_MS = 30_000


def test_another_member_s_change_and_a_lost_connection_show_in_the_window(qtbot, make_window, pg_library):
    window = make_window(pg_library)
    indexer = window.workbench.indexer
    indexer.listen()
    url = pg_library.engine.url.render_as_string(hide_password=False)
    plain = url.replace("postgresql+psycopg://", "postgresql://")
    _wait_listening(url)
    indexer.note_counter(pg_library.change_counter() + pg_library.index_generation())
    indexer._timer.stop()  # the timer's poll would find the change too: the announcement must
    with qtbot.waitSignal(indexer.outside_change, timeout=WAIT_MS):
        subprocess.run([sys.executable, "-c", _BUMP, url], check=True, timeout=120)

    lost = qtbot.waitSignal(indexer.connection_changed, timeout=WAIT_MS,
                            check_params_cb=lambda part, state: part == "database" and state is not None)
    with lost, psycopg.connect(plain, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                      "AND pid <> pg_backend_pid()")
    label = window.connection_label
    qtbot.waitUntil(lambda: not label.isHidden() or "answers again" in window.statusBar().currentMessage(),
                    timeout=WAIT_MS)
    qtbot.waitUntil(lambda: label.isHidden(), timeout=WAIT_MS)
    assert "database answers again" in window.statusBar().currentMessage()
