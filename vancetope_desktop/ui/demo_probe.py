"""``vancetope-desktop --demo-probe``: install the demo, let the index worker embed it, search, report, quit.

A check of a whole installation (the frozen bundle's, ``packaging/build_bundle.py --check``), done the way a
user does it, through the window: the demo is installed by the workbench (its PDFs rendered and read with
PyMuPDF), embedded by the index worker process the window starts (``workers/launch.py``: in a bundle, the
bundle itself with ``--worker``), and a question typed into the search pane must return hits. Each step waits
on the window's state, polled every :data:`POLL_MS`, for at most ``timeout_ms`` in all. Prints one line per
step on standard output; the exit status is 0 when the search answered, 1 otherwise (the reason on stderr).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from ..core.documents import IndexState
from ..services import demo
from .main_window import MainWindow

DEMO_QUESTION = "What are the hardware requirements of Flash Attention?"
"""A question the demo papers answer (the same the screenshot tour asks)."""
POLL_MS = 200


class DemoProbe(QObject):
    """Drives ``window`` through demo → indexed → search; ``exit(status)`` is called once at the end.

    Args:
        window: the shown main window, over an empty library (the demo is refused on a library with documents).
        exit: called with the exit status (``QApplication.exit``).
        timeout_ms: the whole probe's time limit.
    """

    def __init__(self, window: MainWindow, exit: Callable[[int], None], *, timeout_ms: int = 600_000) -> None:
        super().__init__(window)
        self.window = window
        self._exit = exit
        self._deadline = time.monotonic() + timeout_ms / 1000
        self._started = time.monotonic()

    def start(self) -> None:
        """Begin once the window's first snapshot has arrived."""
        self._when(lambda: self.window.workbench.snapshot is not None, self._install)

    def _install(self) -> None:
        workbench = self.window.workbench
        if not workbench.snapshot.library_empty:
            self._fail("the demo probe needs an empty library (give an empty folder as --library)")
            return
        workbench.install_demo()
        project = demo.load_manifest().project
        self._when(lambda: workbench.snapshot.state.scope == project and not self.window.tasks.active(),
                   self._wait_for_index)

    def _wait_for_index(self) -> None:
        self._say(f"demo installed: {len(self.window.workbench.snapshot.documents)} documents")
        self._when(self._indexed, self._search)

    def _indexed(self) -> bool:
        snapshot = self.window.workbench.snapshot
        return (not self.window.tasks.active() and not self.window.workbench.indexer.busy
                and all(d.index_state != IndexState.PENDING for d in snapshot.documents))

    def _search(self) -> None:
        documents = self.window.workbench.snapshot.documents
        failed = [d for d in documents if d.index_state == IndexState.FAILED]
        if failed:
            self._fail(f"{len(failed)} documents failed to index: {failed[0].title}: {failed[0].index_error}")
            return
        indexed = sum(d.index_state == IndexState.INDEXED for d in documents)
        self._say(f"indexed by the index worker: {indexed} documents")
        pane = self.window.search_pane
        self.window.focus_search()
        pane.query_edit.setText(DEMO_QUESTION)
        pane.search_now()
        self._when(lambda: pane.model.rowCount() > 0, self._answered)

    def _answered(self) -> None:
        self._say(f"search answered: {self.window.search_pane.model.rowCount()} hits")
        self._exit(0)

    def _say(self, line: str) -> None:
        print(f"{line} ({time.monotonic() - self._started:.1f} s)", flush=True)

    def _fail(self, reason: str) -> None:
        print(f"demo probe: {reason}", file=sys.stderr, flush=True)
        self._exit(1)

    def _when(self, ready: Callable[[], bool], then: Callable[[], None]) -> None:
        if ready():
            then()
        elif time.monotonic() > self._deadline:
            self._fail(f"gave up waiting before {then.__name__}")
        else:
            QTimer.singleShot(POLL_MS, lambda: self._when(ready, then))
