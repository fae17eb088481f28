"""A guided tour of the main screens that saves a screenshot of each (``vancetope-desktop --screenshots DIR``).

Used for the README and by a test. On an empty library it installs the demo library first, waits until
everything is indexed, then: the library with a paper open, search results, the tag pane filtering by
a tag, the review queue with a think process's request selected, and the Tasks panel. Each step waits
on the window's own signals, never on fixed sleeps, except a short settle time for QPdfView to paint
its pages.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from ..core.documents import DocumentType, IndexState
from .main_window import MainWindow

SHOTS = ("library-pdf.png", "search.png", "tags.png", "review.png", "tasks.png")
DEMO_QUERY = "What are the hardware requirements of Flash Attention?"
SETTLE_MS = 800
WINDOW_SIZE = (1440, 900)  # the same pictures whatever the screen and the saved layout


class ScreenshotTour(QObject):
    """Drives a :class:`MainWindow` through the main screens and saves PNGs into ``folder``.

    Signals:
        finished(): every screenshot is saved (or the tour gave up; see ``errors``).
    """

    finished = Signal()

    def __init__(self, window: MainWindow, folder: Path, *, timeout_ms: int = 600_000) -> None:
        super().__init__(window)
        self.window = window
        self.folder = Path(folder)
        self.saved: list[Path] = []
        self.errors: list[str] = []
        self._timeout_ms = timeout_ms
        self._waited = 0

    def start(self) -> None:
        """Begin the tour once the first snapshot has arrived."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self.window.resize(*WINDOW_SIZE)
        self.window.tasks_dock.hide()
        self._when(lambda: self.window.workbench.snapshot is not None, self._maybe_install_demo)

    # --- steps ------------------------------------------------------------------------------------
    def _maybe_install_demo(self) -> None:
        if self.window.workbench.snapshot.library_empty:
            self.window.workbench.install_demo()
            self._when(lambda: not self.window.workbench.snapshot.library_empty and self._idle(), self._open_paper)
        else:
            self._when(self._idle, self._open_paper)

    def _idle(self) -> bool:
        snapshot = self.window.workbench.snapshot
        return (not self.window.tasks.active() and not self.window.workbench.indexer.busy
                and all(d.index_state != IndexState.PENDING for d in snapshot.documents))

    def _open_paper(self) -> None:
        window = self.window
        docs = window.workbench.snapshot.documents
        paper = next((d for d in docs if d.type == DocumentType.FILE and (d.file_path or "").endswith(".pdf")), None)
        window.tabs.setCurrentIndex(0)
        if paper is not None:
            window.table.select_ids([paper.id])
            window.open_document(paper.id, page=1)
        self._when(lambda: paper is None or window.current_viewer() is not None, self._shot_library, settle=True)

    def _shot_library(self) -> None:
        self._save(SHOTS[0])
        window = self.window
        window.focus_search()
        window.search_pane.query_edit.setText(DEMO_QUERY)
        window.search_pane.search_now()
        self._when(lambda: window.search_pane.model.rowCount() > 0, self._shot_search, settle=True)

    def _shot_search(self) -> None:
        self._save(SHOTS[1])
        window = self.window
        window.tabs.setCurrentIndex(0)
        # The most used plain tag: the list then shows what the filter keeps.
        counts = sorted(window.workbench.snapshot.tags, key=lambda t: (-t.total, t.tag))
        tag = next((t.tag for t in counts if "/" not in t.tag and ":" not in t.tag), None)
        if tag is not None:
            window.tag_pane.select_tag(tag)
        self._when(lambda: tag is None or window.workbench.state.tags == (tag,), self._shot_tags, settle=True)

    def _shot_tags(self) -> None:
        self._save(SHOTS[2])
        window = self.window
        window.tag_pane.clear_filter()
        pending = window.workbench.snapshot.review.pending
        # A think process asking (the demo's Hypothesis Check) shows more than a rule's request.
        chosen = next((r for r in pending if r.requested_by.startswith("think-process/")), None) or \
            next(iter(pending), None)
        window.show_review([chosen.id] if chosen else None)
        detail = window.review_pane.detail
        self._when(lambda: chosen is None or (detail.details is not None and detail.details.request.id == chosen.id),
                   self._shot_review, settle=True)

    def _shot_review(self) -> None:
        self._save(SHOTS[3])
        self.window.search_dock.raise_()
        self.window.show_tasks()
        self._when(lambda: True, self._shot_tasks, settle=True)

    def _shot_tasks(self) -> None:
        self._save(SHOTS[4])
        self.finished.emit()

    # --- helpers ----------------------------------------------------------------------------------
    def _save(self, name: str) -> None:
        path = self.folder / name
        if self.window.grab().save(str(path)):
            self.saved.append(path)
        else:
            self.errors.append(f"could not save {path}")

    def _when(self, ready: Callable[[], bool], then: Callable[[], None], *, settle: bool = False) -> None:
        """Call ``then`` once ``ready()`` holds (checked every 200 ms), after a settle time if asked."""
        if ready():
            self._waited = 0
            QTimer.singleShot(SETTLE_MS if settle else 0, then)
            return
        self._waited += 200
        if self._waited > self._timeout_ms:
            self.errors.append(f"gave up waiting before {getattr(then, '__name__', then)}")
            self.finished.emit()
            return
        QTimer.singleShot(200, lambda: self._when(ready, then, settle=settle))
