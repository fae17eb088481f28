"""The UI-thread probe sees work done on the UI thread, and not a busy host."""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer

from tests.ui.probe import UiThreadProbe


def _burn(seconds: float) -> None:
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def test_a_slot_that_works_on_the_ui_thread_shows_in_full(qtbot):
    probe = UiThreadProbe()
    probe.start()
    qtbot.wait(100)
    assert probe.largest < 0.05  # an idle loop: a few microseconds per tick
    QTimer.singleShot(0, lambda: _burn(0.3))
    qtbot.wait(200)
    probe.stop()
    assert probe.largest >= 0.29, probe.largest
