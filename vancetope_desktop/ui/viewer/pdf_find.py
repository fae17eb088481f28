"""The PDF find bar: a debounced query box over QPdfSearchModel with a result count and next/previous.

QPdfSearchModel searches page by page on a timer and inserts results as it goes, so a result asked
for on a given page (a search hit's passage) is selected when it arrives, not when the search ends.
"""

from __future__ import annotations

from PySide6.QtCore import QElapsedTimer, QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QShortcut
from PySide6.QtPdf import QPdfSearchModel
from PySide6.QtPdfWidgets import QPdfView
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

from . import keys, pdf_geometry

DEBOUNCE_MS = 300
QUIET_MS = 1500
"""Without QPdfSearchModel.status (Qt < 6.12), a search counts as finished after this long without new results."""
WANTED_PAGE_WAIT_MS = 30_000
"""Without status, how long a result asked for on a page is awaited while the search has not passed that
page: pages before it may hold no result at all, and on a busy machine QPdfSearchModel's timer can take
longer than ``QUIET_MS`` to get through them."""
_HAS_STATUS = hasattr(QPdfSearchModel, "statusChanged")
_SCROLL_MARGIN_PT = 40.0  # show a little context above the hit instead of pinning it to the top edge


class PdfFindBar(QWidget):
    """A find box bound to a :class:`QPdfView` and its document.

    Signals:
        status_changed(str): a short message ("12 results", "not found on page 3").
    """

    status_changed = Signal(str)

    def __init__(self, view: QPdfView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = view
        self.model = QPdfSearchModel(self)
        self.model.setDocument(view.document())
        view.setSearchModel(self.model)
        self.edit = QLineEdit()
        self.edit.setPlaceholderText("Find in document")
        self.edit.setClearButtonEnabled(True)
        self.edit.setMinimumWidth(160)
        self.edit.setMaximumWidth(320)
        self.count_label = QLabel()
        self.count_label.setMinimumWidth(70)
        self.previous_button = QToolButton(text="▲", toolTip="Previous result (Shift+Enter)", autoRaise=True)
        self.next_button = QToolButton(text="▼", toolTip="Next result (Enter)", autoRaise=True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.edit, self.count_label, self.previous_button, self.next_button):
            layout.addWidget(widget)
        self._debounce = QTimer(self, singleShot=True, interval=DEBOUNCE_MS)
        self._debounce.timeout.connect(self._apply_query)
        self._quiet = QTimer(self, singleShot=True, interval=QUIET_MS)
        self._quiet.timeout.connect(self._quiet_elapsed)
        self._clock = QElapsedTimer()  # since the current search started
        self._searching = False
        self._wanted_page: int | None = None  # 0-based page whose first result to select; -1 = any page
        self.edit.textEdited.connect(lambda _text: self._debounce.start())
        self.edit.returnPressed.connect(self._enter)
        backwards = QShortcut(keys.FIND_PREVIOUS, self.edit, context=Qt.ShortcutContext.WidgetShortcut)
        backwards.activated.connect(lambda: self.step(-1))
        self.next_button.clicked.connect(lambda: self.step(1))
        self.previous_button.clicked.connect(lambda: self.step(-1))
        self.model.rowsInserted.connect(self._results_arrived)
        self.model.modelReset.connect(self._update_label)
        if _HAS_STATUS:
            self.model.statusChanged.connect(self._status_changed)
        view.currentSearchResultIndexChanged.connect(lambda _i: self._update_label())

    def search(self, text: str, *, select_on_page: int | None = None) -> None:
        """Search for ``text`` now and select the first result on ``select_on_page`` (0-based), or the
        first result anywhere when None."""
        self._debounce.stop()
        if self.edit.text() != text:
            self.edit.setText(text)
        self._wanted_page = -1 if select_on_page is None else select_on_page
        self._clock.start()
        self.view.setCurrentSearchResultIndex(-1)
        if text and text == self.model.searchString():  # the model will not search again: use what it has
            if count := self.result_count():
                self._results_arrived(QModelIndex(), 0, count - 1)
            return
        self._searching = bool(text)
        self.model.setSearchString(text)
        if self._searching and not _HAS_STATUS:
            self._quiet.start()
        self._update_label()

    def clear(self) -> None:
        """Forget the query and its highlights."""
        self._debounce.stop()
        self._quiet.stop()
        self._searching = False
        self._wanted_page = None
        self.edit.clear()
        self.model.setSearchString("")
        self.view.setCurrentSearchResultIndex(-1)
        self._update_label()

    def is_searching(self) -> bool:
        """Whether the search is still going through pages."""
        return self._searching

    def result_count(self) -> int:
        """Results found so far."""
        return self.model.rowCount(QModelIndex())

    def step(self, delta: int) -> None:
        """Select the next (``delta=1``) or previous (``-1``) result, wrapping around."""
        count = self.result_count()
        if not count:
            return
        current = self.view.currentSearchResultIndex()
        self.select(0 if current < 0 and delta > 0 else (current + delta) % count)

    def select(self, index: int) -> None:
        """Highlight result ``index`` as the current one and scroll so that it is in view (at any zoom)."""
        self.view.setCurrentSearchResultIndex(index)
        link = self.model.resultAtIndex(index)
        location = link.location()
        # setCurrentSearchResultIndex only repaints; the navigator makes the page current but scrolls to
        # its top (the location is ignored, and nothing moves when the page is current already), so the
        # scroll bars are set from where the view lays the hit out.
        self.view.pageNavigator().jump(link.page(), location, self.view.pageNavigator().currentZoom())
        pages = pdf_geometry.page_geometries(self.view)
        if 0 <= link.page() < len(pages):
            page = pages[link.page()]  # in viewport pixels, from the scroll bars' values
            scale = page.height() / self.view.document().pagePointSize(link.page()).height()
            vertical, horizontal = self.view.verticalScrollBar(), self.view.horizontalScrollBar()
            vertical.setValue(round(vertical.value() + page.y() + (location.y() - _SCROLL_MARGIN_PT) * scale))
            x = page.x() + location.x() * scale  # in the viewport now
            if not 0 <= x <= self.view.viewport().width() - _SCROLL_MARGIN_PT * scale:
                horizontal.setValue(round(horizontal.value() + x - _SCROLL_MARGIN_PT * scale))
        self._update_label()

    def _apply_query(self) -> None:
        text = self.edit.text().strip()
        if text != self.model.searchString():
            self.search(text)

    def _enter(self) -> None:
        if self._debounce.isActive() or self.edit.text().strip() != self.model.searchString():
            self._apply_query()
        else:
            self.step(1)

    def _results_arrived(self, _parent: QModelIndex, first: int, last: int) -> None:
        if self._wanted_page is not None:
            for index in range(first, last + 1):
                if self._wanted_page in (-1, self.model.resultAtIndex(index).page()):
                    self._wanted_page = None
                    self.select(index)
                    break
        if self._searching and not _HAS_STATUS:
            self._quiet.start()
        self._update_label()

    def _status_changed(self) -> None:
        if self.model.status() == QPdfSearchModel.Status.Finished:
            self._finished()

    def _quiet_elapsed(self) -> None:
        if self._before_wanted_page() and self._clock.elapsed() < WANTED_PAGE_WAIT_MS:
            self._quiet.start()  # still on the pages before the wanted one: the result may yet come
            return
        self._finished()

    def _before_wanted_page(self) -> bool:
        """Whether a result is wanted on a page the search (which goes page by page) has not passed."""
        if self._wanted_page is None or self._wanted_page < 0:
            return False
        count = self.result_count()
        return not count or self.model.resultAtIndex(count - 1).page() < self._wanted_page

    def _finished(self) -> None:
        self._searching = False
        if self._wanted_page is not None and self.model.searchString():
            where = "" if self._wanted_page < 0 else f" on page {self._wanted_page + 1}"
            self.status_changed.emit(f"“{self.model.searchString()}” not found{where}")
        self._wanted_page = None
        self._update_label()

    def _update_label(self) -> None:
        count = self.result_count()
        if not self.model.searchString():
            self.count_label.clear()
        elif count:
            current = self.view.currentSearchResultIndex()
            position = f"{current + 1} / " if 0 <= current < count else ""
            self.count_label.setText(f"{position}{count}")
        elif self._searching:
            self.count_label.setText("searching…")
        else:
            self.count_label.setText("no results")
        self.previous_button.setEnabled(count > 0)
        self.next_button.setEnabled(count > 0)
