"""A probe of the work the UI thread does between two returns to the event loop, in CPU time."""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer

TICK_MS = 20
"""How often the probe asks the event loop to run it: a work stretch longer than this shows as a gap."""


class UiThreadProbe(QObject):
    """Samples the UI thread's own CPU time (``time.thread_time``) on a ``TICK_MS`` timer.

    The largest CPU time the thread spent between two ticks is its longest stretch of work without
    serving the event loop: a slot that parses, queries or embeds on the UI thread shows there in
    full, while a busy host does not inflate it (another process's time is not this thread's, which is
    why a wall-clock gap test failed on a loaded CI machine for reasons outside the product). Waiting
    on a lock or the GIL is not counted: the wall-clock figure of that is ``bench_responsiveness.py``'s.

    Attributes:
        largest: the largest CPU time between two ticks so far, in seconds.
        ticks: how many ticks ran.
    """

    def __init__(self) -> None:
        super().__init__()
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)
        self._last = 0.0
        self.largest = 0.0
        self.ticks = 0

    def start(self) -> None:
        """Start sampling (call on the UI thread)."""
        self._last = time.thread_time()
        self._timer.start()

    def stop(self) -> None:
        """Stop sampling; ``largest`` keeps its value."""
        self._timer.stop()

    def _tick(self) -> None:
        now = time.thread_time()
        self.largest = max(self.largest, now - self._last)
        self._last = now
        self.ticks += 1
