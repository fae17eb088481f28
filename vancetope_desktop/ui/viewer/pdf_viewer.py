"""PDFs in QtPdf's QPdfView: page navigation, zoom, fit width/page, find with highlights, and annotations
(select, highlight, notes, the Annotations list: :mod:`.pdf_annotations`).

The page stays white whatever the theme (pdfium renders on white); the area around the pages is a
fixed mid grey so pages stand out on light and dark themes alike.
"""

from __future__ import annotations

from pathlib import Path

import shiboken6
from PySide6.QtCore import QEvent, QObject, QPointF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QKeySequence, QPalette, QShortcut
from PySide6.QtPdf import QPdfDocument
from PySide6.QtPdfWidgets import QPdfView
from PySide6.QtWidgets import QSpinBox, QSplitter, QToolBar, QVBoxLayout, QWidget

from ...core.errors import DamagedFile, EmptyFile, EncryptedPdf, UnsupportedFile
from ...ingest.passwords import saslprep
from . import keys
from .pdf_annotations import PdfAnnotator
from .pdf_find import PdfFindBar
from .phrases import pick_search_phrase

MAX_PAGE_POINTS = 100_000.0
"""A page side beyond this (35 m) is a corrupt size; pdfium would try to allocate a gigantic bitmap."""
ZOOM_STEP = 1.25
ZOOM_RANGE = (0.1, 8.0)
_BACKDROP = QColor("#5f6368")
_Error = QPdfDocument.Error


class PdfViewer(QWidget):
    """A PDF with a toolbar: ◀ ▶, "3 / 12", zoom −/+, fit width, fit page and a find bar.

    Signals:
        status_changed(str): messages for the status bar.
    """

    status_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # The view is created before the document so it is destroyed first: while it goes, its navigator
        # still signals page changes, and the slots below read the document.
        self.view = QPdfView(self)
        self.document = QPdfDocument(self)
        self.view.setPageMode(QPdfView.PageMode.MultiPage)
        self.view.setZoomMode(QPdfView.ZoomMode.FitToWidth)
        self.view.setDocument(self.document)
        palette = self.view.palette()
        palette.setColor(QPalette.ColorRole.Dark, _BACKDROP)  # QPdfView paints the backdrop with Dark
        self.view.setPalette(palette)
        self.navigator = self.view.pageNavigator()
        # QPdfView keeps its scroll offset in pixels when a resize changes the fit zoom, so the reader
        # (or a search hit just opened) would land pages away: the place is carried over instead.
        self.view.installEventFilter(self)
        self.find_bar = PdfFindBar(self.view)
        self.page_spin = QSpinBox()
        self.page_spin.setKeyboardTracking(False)
        self.page_spin.setAccelerated(True)
        self.toolbar = QToolBar()
        self.toolbar.setIconSize(self.toolbar.iconSize() * 0.8)
        self.previous_action = self.toolbar.addAction("◀", lambda: self.go_to_page(self.current_page() - 1))
        self.previous_action.setToolTip("Previous page")
        self.toolbar.addWidget(self.page_spin)
        self.next_action = self.toolbar.addAction("▶", lambda: self.go_to_page(self.current_page() + 1))
        self.next_action.setToolTip("Next page")
        self.toolbar.addSeparator()
        self.zoom_out_action = self.toolbar.addAction("−", lambda: self.zoom_by(1 / ZOOM_STEP))
        self.zoom_out_action.setToolTip("Zoom out (Ctrl+-)")
        self.zoom_in_action = self.toolbar.addAction("+", lambda: self.zoom_by(ZOOM_STEP))
        self.zoom_in_action.setToolTip("Zoom in (Ctrl++)")
        self.fit_width_action = self.toolbar.addAction("Fit width", self.fit_width)
        self.fit_page_action = self.toolbar.addAction("Fit page", self.fit_page)
        for action in (self.fit_width_action, self.fit_page_action):
            action.setCheckable(True)
        self.splitter = QSplitter()
        self.splitter.addWidget(self.view)
        self.annotator = PdfAnnotator(self.view, self.toolbar)  # its actions before the find bar, which stretches
        self.splitter.addWidget(self.annotator.panel)
        self.splitter.setStretchFactor(0, 1)
        self.annotator.status_changed.connect(self.status_changed)
        self.toolbar.addSeparator()
        self.toolbar.addWidget(self.find_bar)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.toolbar)
        layout.addWidget(self.splitter, 1)
        self._shortcut(keys.FIND, self._focus_find)
        self._shortcut(keys.ZOOM_IN, lambda: self.zoom_by(ZOOM_STEP))
        self._shortcut(keys.ZOOM_OUT, lambda: self.zoom_by(1 / ZOOM_STEP))
        self.page_spin.valueChanged.connect(lambda value: self.go_to_page(value))
        self.navigator.currentPageChanged.connect(lambda _page: self._sync_page_controls())
        self.view.zoomModeChanged.connect(lambda _mode: self._sync_zoom_controls())
        self.find_bar.status_changed.connect(self.status_changed)
        self._path: Path | None = None
        self._sync_page_controls()
        self._sync_zoom_controls()

    def _shortcut(self, sequence: QKeySequence, slot: object) -> None:
        shortcut = QShortcut(sequence, self, context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        shortcut.activated.connect(slot)

    # -- opening -------------------------------------------------------------------------------------

    def open(self, path: str | Path, *, page: int | None = None, highlight: str | None = None,
             password: str | None = None) -> list[str]:
        """Load ``path``, go to ``page`` (1-based) and highlight ``highlight`` on it.

        Only a short phrase of a long passage is searched (see :func:`.phrases.pick_search_phrase`);
        the first result on the page becomes the current result once the search reaches it.

        Returns:
            Notes for a banner (none so far; kept for the common viewer interface).

        Raises:
            FileNotFoundError: the file is missing.
            EncryptedPdf: a password is needed, or the given one is wrong.
            UnsupportedFile: an encryption scheme pdfium does not support.
            EmptyFile: the PDF has no pages.
            DamagedFile: pdfium cannot read it, or a page has an impossible size.
        """
        self.close_document()
        path = Path(path)
        self.document.setPassword(saslprep(password) if password else "")
        error = self.document.load(str(path))
        if error != _Error.None_ or self.document.status() != QPdfDocument.Status.Ready:
            failure = self._load_error(error, path)
            self.close_document()
            raise failure
        try:
            self._check_page_sizes(path)
        except DamagedFile:
            self.close_document()
            raise
        self._path = path
        self.annotator.set_file(path)
        self._sync_page_controls()
        if page is not None:
            self.go_to_page(page)
        if highlight and highlight.strip():
            self.highlight(highlight, page=page)
        return []

    def _load_error(self, error: QPdfDocument.Error, path: Path) -> Exception:
        if error == _Error.FileNotFound:
            return FileNotFoundError(f"{path} is missing")
        if error == _Error.IncorrectPassword:
            return EncryptedPdf(f"{path.name} is protected by a password")
        if error == _Error.UnsupportedSecurityScheme:
            return UnsupportedFile(f"{path.name} uses an encryption scheme that cannot be opened here")
        if error == _Error.None_ and self.document.pageCount() == 0:
            return EmptyFile(f"{path.name} has no pages")
        if error == _Error.None_:
            return DamagedFile(f"{path.name} could not be opened")
        return DamagedFile(f"{path.name} is damaged or not a PDF ({error.name})")

    def _check_page_sizes(self, path: Path) -> None:
        for index in range(self.document.pageCount()):
            size = self.document.pagePointSize(index)
            if not (0 < size.width() <= MAX_PAGE_POINTS and 0 < size.height() <= MAX_PAGE_POINTS):
                raise DamagedFile(f"{path.name} is damaged: page {index + 1} has an impossible size "
                                  f"({size.width():.0f} × {size.height():.0f} pt)")

    def close_document(self) -> None:
        """Unload the current PDF (the view goes blank)."""
        self.find_bar.clear()
        self.document.close()
        self._path = None
        self.annotator.set_file(None)
        self._sync_page_controls()

    # -- navigation and zoom ---------------------------------------------------------------------------

    def page_count(self) -> int:
        """Pages of the open document (0 when none)."""
        return self.document.pageCount()

    def current_page(self) -> int:
        """The page shown, 1-based (0 when no document is open)."""
        return self.navigator.currentPage() + 1 if self.page_count() else 0

    def go_to_page(self, page: int) -> None:
        """Scroll to the top of ``page`` (1-based, clamped to the document)."""
        if not self.page_count():
            return
        page = max(1, min(page, self.page_count()))
        self.navigator.jump(page - 1, QPointF(), self.navigator.currentZoom())

    def zoom_by(self, factor: float) -> None:
        """Multiply the effective zoom by ``factor`` (leaving the fit modes)."""
        zoom = min(max(self._effective_zoom() * factor, ZOOM_RANGE[0]), ZOOM_RANGE[1])
        self.view.setZoomMode(QPdfView.ZoomMode.Custom)
        self.view.setZoomFactor(zoom)
        self._sync_zoom_controls()

    def fit_width(self) -> None:
        """Scale pages to the view's width."""
        self.view.setZoomMode(QPdfView.ZoomMode.FitToWidth)
        self._sync_zoom_controls()

    def fit_page(self) -> None:
        """Scale so a whole page is visible."""
        self.view.setZoomMode(QPdfView.ZoomMode.FitInView)
        self._sync_zoom_controls()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Before the view is resized, note the reading place, to put it back once the pages are laid out."""
        if watched is self.view and event.type() == QEvent.Type.Resize and self.page_count():
            place = (self.view.verticalScrollBar().value(), self._effective_zoom(), self.navigator.currentPage())
            QTimer.singleShot(0, self, lambda: self._restore_place(*place))
        return super().eventFilter(watched, event)

    def _restore_place(self, offset: int, zoom: float, page: int) -> None:
        """Scroll to where ``offset`` (pixels at ``zoom``, ``page`` 0-based at the top) lies at today's zoom.

        Pages scale with the zoom; the document margin and the spacing between pages do not, so the
        offset is scaled without the ``page`` gaps and the margin above it.
        """
        if not self.page_count() or zoom <= 0:
            return
        fixed = self.view.documentMargins().top() + page * self.view.pageSpacing()
        scaled = (offset - fixed) * self._effective_zoom() / zoom + fixed
        self.view.verticalScrollBar().setValue(round(max(0.0, scaled)))

    def _effective_zoom(self) -> float:
        """The zoom in effect: in fit modes QPdfView keeps the last custom factor, so derive it."""
        mode = self.view.zoomMode()
        if mode == QPdfView.ZoomMode.Custom or not self.page_count():
            return self.view.zoomFactor()
        size = self.document.pagePointSize(max(0, self.current_page() - 1))
        pixels_per_point = self.view.logicalDpiX() / 72.0
        margins = self.view.documentMargins()
        width = (self.view.viewport().width() - margins.left() - margins.right()) / (size.width() * pixels_per_point)
        if mode == QPdfView.ZoomMode.FitToWidth:
            return width
        height = (self.view.viewport().height() - margins.top() - margins.bottom()) / (
            size.height() * pixels_per_point)
        return min(width, height)

    def highlight(self, passage: str, *, page: int | None = None) -> None:
        """Search a distinctive phrase of ``passage`` and select its first result (on ``page`` if given)."""
        if not self.page_count():
            return
        page_index = None if page is None else max(0, min(page - 1, self.page_count() - 1))
        haystack = None if page_index is None else self.document.getAllText(page_index).text()
        phrase = pick_search_phrase(passage, haystack)
        if not phrase:
            self.status_changed.emit(f"The passage was not found on page {page}")
            return
        self.find_bar.search(phrase, select_on_page=page_index)

    def _focus_find(self) -> None:
        self.find_bar.edit.setFocus()
        self.find_bar.edit.selectAll()

    def _sync_page_controls(self) -> None:
        if not shiboken6.isValid(self.document) or not shiboken6.isValid(self.page_spin):
            return  # teardown: children go one by one
        count = self.page_count()
        self.page_spin.blockSignals(True)
        self.page_spin.setRange(1 if count else 0, max(count, 1) if count else 0)
        self.page_spin.setSuffix(f" / {count}" if count else "")
        self.page_spin.setValue(self.current_page())
        self.page_spin.blockSignals(False)
        self.page_spin.setEnabled(count > 0)
        self.previous_action.setEnabled(count > 0 and self.current_page() > 1)
        self.next_action.setEnabled(count > 0 and self.current_page() < count)

    def _sync_zoom_controls(self) -> None:
        mode = self.view.zoomMode()
        self.fit_width_action.setChecked(mode == QPdfView.ZoomMode.FitToWidth)
        self.fit_page_action.setChecked(mode == QPdfView.ZoomMode.FitInView)
