"""Annotating in the PDF viewer: select text by dragging, highlight it, put notes on pages, see the
highlights drawn over the pages, and an Annotations list that jumps to each.

QPdfView (Qt 6.11) has no text selection, so the selection is the PDF's words (PyMuPDF, through
``services.annotation_pdf``) between the word under the press and the word under the cursor, found with
the page layout of :mod:`.pdf_geometry`. Words are read once per page and kept while the file is open.

This widget stores nothing: it asks for each change with :attr:`PdfAnnotator.requested` (an
:class:`AnnotationRequest`); the owner runs the service (``services.annotations``) and hands the new list
back with :meth:`PdfAnnotator.set_annotations`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QMouseEvent, QPainter, QPaintEvent, QPixmap
from PySide6.QtPdfWidgets import QPdfView
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ...core.errors import VancetopeError
from ...services import annotation_pdf
from ...services.annotations import COLORS, DEFAULT_COLOR, Annotation
from . import keys, pdf_geometry

log = logging.getLogger(__name__)

HIGHLIGHT_ALPHA = 90
"""Opacity (of 255) of a drawn highlight: the text stays readable through it."""
SELECTION_COLOR = QColor(66, 133, 244, 80)
"""The live selection: a translucent blue, told apart from the highlights' colours."""
JUMP_MARGIN = 48
"""Pixels left above an annotation the list jumps to, so that the line before it shows."""
LIST_TEXT = 90
"""Characters of a quote or comment shown in the list."""


@dataclass(frozen=True)
class AnnotationRequest:
    """A change the user asked for: ``highlight`` (page, quote, rects), ``note`` (page, comment, position),
    ``edit`` (annotation_id, comment) or ``delete`` (annotation_id)."""

    action: Literal["highlight", "note", "edit", "delete"]
    page: int = 0
    quote: str = ""
    rects: list[list[float]] = field(default_factory=list)
    comment: str = ""
    position: tuple[float, float] | None = None
    annotation_id: str | None = None
    color: str = DEFAULT_COLOR


class _Overlay(QWidget):
    """Paints the highlights, note markers and the live selection over the viewport (mouse goes through)."""

    def __init__(self, annotator: PdfAnnotator, viewport: QWidget) -> None:
        super().__init__(viewport)
        self._annotator = annotator
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        self.resize(viewport.size())

    def paintEvent(self, event: QPaintEvent) -> None:
        """Draw each live annotation's boxes in its colour, then the selection."""
        view = self._annotator.view
        geometries = pdf_geometry.page_geometries(view)
        if not geometries:
            return
        painter = QPainter(self)
        for item in [*self._annotator.annotations, *self._annotator.pending]:
            if item.anchor == "lost":
                continue
            color = QColor(item.color)
            color.setAlpha(HIGHLIGHT_ALPHA if item.kind == "highlight" else 200)
            for box in item.rects:
                rect = pdf_geometry.to_viewport(view, item.page, box, geometries)
                if rect is not None and rect.intersects(QRectF(event.rect())):
                    painter.fillRect(rect, color)
                    if item.kind == "note":
                        painter.setPen(color.darker(160))
                        painter.drawRect(rect)
        selection = self._annotator.selection
        if selection is not None:
            for box in selection.rects:
                rect = pdf_geometry.to_viewport(view, selection.page, box, geometries)
                if rect is not None:
                    painter.fillRect(rect, SELECTION_COLOR)
        painter.end()


class AnnotationsPanel(QWidget):
    """The list of a PDF's annotations in reading order; activating one jumps to it."""

    def __init__(self, annotator: PdfAnnotator) -> None:
        super().__init__()
        self._annotator = annotator
        self.heading = QLabel("Annotations")
        self.list = QListWidget()
        self.list.setWordWrap(True)
        self.list.setAlternatingRowColors(True)
        self.edit_button = QPushButton("Edit note…")
        self.delete_button = QPushButton("Delete")
        self.export_button = QPushButton("Export…")  # the owner asks for the file (``services.annotations``)
        self.export_button.setToolTip("Export Annotations: Markdown, or a copy of the PDF with them in it")
        buttons = QHBoxLayout()
        buttons.addWidget(self.edit_button)
        buttons.addWidget(self.delete_button)
        buttons.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.heading)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)
        self.list.itemActivated.connect(lambda item: annotator.jump_to(item.data(Qt.ItemDataRole.UserRole)))
        self.list.currentItemChanged.connect(lambda *_: self._sync_buttons())
        self._read_only = False
        self.edit_button.clicked.connect(lambda: annotator.edit(self.current_id()))
        self.delete_button.clicked.connect(lambda: annotator.delete(self.current_id()))
        self._sync_buttons()

    def current_id(self) -> str | None:
        """The id of the selected annotation, or None."""
        item = self.list.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else None

    def show_annotations(self, items: list[Annotation]) -> None:
        """List ``items`` (kept selection when the same annotation is still there)."""
        current = self.current_id()
        self.list.clear()
        for item in items:
            row = QListWidgetItem(_describe(item))
            row.setData(Qt.ItemDataRole.UserRole, item.id)
            row.setToolTip(item.quote + ("\n\n" + item.comment if item.comment else ""))
            color = QColor(item.color)
            color.setAlpha(HIGHLIGHT_ALPHA)
            row.setData(Qt.ItemDataRole.DecorationRole, color)
            self.list.addItem(row)
            if item.id == current:
                self.list.setCurrentItem(row)
        self.heading.setText(f"Annotations ({len(items)})" if items else "No annotations: drag over text to select "
                             "it, then Highlight (Ctrl+Shift+H)")
        self.heading.setWordWrap(True)
        self._sync_buttons()

    def set_read_only(self, read_only: bool) -> None:
        """Hide Edit and Delete for a PDF that is read-only from here."""
        self._read_only = read_only
        self._sync_buttons()

    def _sync_buttons(self) -> None:
        chosen = self.current_id() is not None and not self._read_only
        self.edit_button.setEnabled(chosen)
        self.delete_button.setEnabled(chosen)


def _swatch(color: str) -> QIcon:
    pixmap = QPixmap(14, 14)
    pixmap.fill(QColor(color))
    return QIcon(pixmap)


def _place(item: Annotation) -> tuple[int, str]:
    """A highlight's page and text: how a highlight drawn before its write finds the stored one (the
    service strips the quote and may move boxes, so boxes are not compared)."""
    return item.page, item.quote.strip()


def _describe(item: Annotation) -> str:
    text = " ".join((item.quote or item.comment).split())
    text = text if len(text) <= LIST_TEXT else text[: LIST_TEXT - 1] + "…"
    line = f"p. {item.page} · " + (f"“{text}”" if item.kind == "highlight" else f"Note: {text}")
    if item.kind == "highlight" and item.comment:
        line += "\n" + " ".join(item.comment.split())[:LIST_TEXT]
    if item.anchor == "lost":
        line = f"⚠ Not in this version of the file (was p. {item.original_page})\n" + line
    elif item.anchor == "moved":
        line += f"\n(moved from p. {item.original_page})"
    return line


class PdfAnnotator(QObject):
    """Selection, highlights, notes and the Annotations panel of one QPdfView.

    Args:
        view: the QPdfView (multi-page mode).
        toolbar: where the Highlight, Note and Annotations actions go.

    Signals:
        requested(AnnotationRequest): the user asked for a change.
        status_changed(str): messages for the status bar.
    """

    requested = Signal(object)
    status_changed = Signal(str)

    def __init__(self, view: QPdfView, toolbar: QToolBar) -> None:
        super().__init__(view)
        self.view = view
        self.annotations: list[Annotation] = []
        # Highlights asked for and drawn at once (the write can wait seconds behind others), until the
        # owner's new list holds them or the write fails (:meth:`drop_pending`).
        self.pending: list[Annotation] = []
        self.selection: annotation_pdf.Span | None = None
        self._path: Path | None = None
        self._words: dict[int, list[annotation_pdf.Word]] = {}
        self._press: tuple[int, QPointF] | None = None
        self._last_point: tuple[int, QPointF] | None = None
        self._read_only = False
        self.overlay = _Overlay(self, view.viewport())
        self.panel = AnnotationsPanel(self)
        self.panel.hide()
        toolbar.addSeparator()
        self.highlight_action = toolbar.addAction("Highlight", self.highlight_selection)
        self.highlight_action.setShortcut(keys.HIGHLIGHT)
        self.highlight_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.highlight_action.setToolTip("Highlight the selected text (Ctrl+Shift+H): drag over words to select; "
                                         "the arrow picks the colour")
        self.color = DEFAULT_COLOR
        self.color_menu = QMenu(toolbar)
        for name, value in COLORS.items():
            self.color_menu.addAction(_swatch(value), name.capitalize(), lambda v=value: self.set_color(v))
        button = toolbar.widgetForAction(self.highlight_action)
        if isinstance(button, QToolButton):
            button.setMenu(self.color_menu)
            button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)  # the word, not only the swatch
        self.highlight_action.setIcon(_swatch(self.color))
        self.note_action = toolbar.addAction("Note", lambda: self.add_note())
        self.note_action.setShortcut(keys.NOTE)
        self.note_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.note_action.setToolTip("Put a note on the page, where you last clicked (Ctrl+Shift+N)")
        self.panel_action = toolbar.addAction("Annotations")
        self.panel_action.setCheckable(True)
        self.panel_action.toggled.connect(self.panel.setVisible)
        self.panel_action.setToolTip("Show the list of this PDF's highlights and notes")
        self.panel_button = toolbar.widgetForAction(self.panel_action)
        view.parentWidget().addAction(self.highlight_action)
        view.parentWidget().addAction(self.note_action)
        view.viewport().installEventFilter(self)
        view.verticalScrollBar().valueChanged.connect(self.overlay.update)
        view.horizontalScrollBar().valueChanged.connect(self.overlay.update)
        view.zoomFactorChanged.connect(self.overlay.update)
        view.zoomModeChanged.connect(self.overlay.update)
        self._sync_actions()

    # -- the file and its annotations ------------------------------------------------------------

    def set_file(self, path: Path | None) -> None:
        """The PDF now shown (None: none); forgets the selection, the words read and the annotations."""
        self._path, self._words, self.selection, self._press, self._last_point = path, {}, None, None, None
        self.pending = []
        self.set_annotations([])

    def set_read_only(self, read_only: bool) -> None:
        """A PDF of another scope, read-only from here: its annotations are shown, not changed."""
        self._read_only = read_only
        self.panel.set_read_only(read_only)
        self._sync_actions()

    def set_annotations(self, items: list[Annotation]) -> None:
        """Show ``items`` (``services.annotations.list_annotations`` of the PDF shown)."""
        self.annotations = list(items)
        stored = {_place(item) for item in items}
        self.pending = [item for item in self.pending if _place(item) not in stored]
        self.panel.show_annotations(self.annotations)
        self.panel_action.setText(f"Annotations ({len(items)})" if items else "Annotations")
        if self.panel_button is not None:  # whole, or a narrow tab read "Annot…s (2)"; the find box gives way
            self.panel_button.setMinimumWidth(self.panel_button.sizeHint().width())
        self.overlay.update()
        self._sync_actions()

    # -- actions -----------------------------------------------------------------------------------

    def set_color(self, color: str) -> None:
        """Use ``color`` (``#rrggbb``) for the next highlights and notes; highlight the selection in it if any."""
        self.color = color
        self.highlight_action.setIcon(_swatch(color))
        if self.selection is not None and not self._read_only:
            self.highlight_selection()

    def highlight_selection(self, comment: str = "") -> None:
        """Ask for a highlight of the selected words (nothing without a selection)."""
        span = self.selection
        if span is None:
            self.status_changed.emit("Select text first: drag from the first word to the last")
            return
        now = datetime.now(UTC)
        self.pending.append(Annotation(id="", document_id="", kind="highlight", page=span.page, rects=span.rects,
                                       quote=span.text, comment=comment, color=self.color, created_at=now,
                                       updated_at=now, original_page=span.page))
        self.requested.emit(AnnotationRequest("highlight", page=span.page, quote=span.text, rects=span.rects,
                                              comment=comment, color=self.color))
        self.selection = None
        self.overlay.update()
        self._sync_actions()

    def drop_pending(self, reason: str) -> None:
        """The highlights drawn before their write failed: remove them and say why (``reason``)."""
        if self.pending:
            self.pending = []
            self.overlay.update()
            self.status_changed.emit(f"The highlight was not saved: {reason}")

    def add_note(self, text: str | None = None) -> None:
        """Ask for a note where the user last clicked (else at the top of the current page); ``text`` None
        asks the user for it."""
        if self._path is None:
            return
        page, point = self._last_point or (self.view.pageNavigator().currentPage() + 1, None)
        if text is None:
            text, ok = QInputDialog.getMultiLineText(self.view, "Note", f"Note on page {page}:")
            if not ok:
                return
        if not text.strip():
            return
        position = (point.x(), point.y()) if point is not None else None
        self.requested.emit(AnnotationRequest("note", page=page, comment=text.strip(), position=position,
                                              color=self.color))

    def edit(self, annotation_id: str | None, text: str | None = None) -> None:
        """Ask to change an annotation's comment; ``text`` None asks the user for it."""
        item = self._find(annotation_id)
        if item is None:
            return
        if text is None:
            text, ok = QInputDialog.getMultiLineText(self.view, "Edit note", "Note:", item.comment)
            if not ok:
                return
        self.requested.emit(AnnotationRequest("edit", annotation_id=item.id, comment=text))

    def delete(self, annotation_id: str | None) -> None:
        """Ask to move an annotation to the trash."""
        if self._find(annotation_id) is not None:
            self.requested.emit(AnnotationRequest("delete", annotation_id=annotation_id))

    def jump_to(self, annotation_id: str | None) -> None:
        """Scroll so that the annotation is near the top of the view."""
        item = self._find(annotation_id)
        if item is None or not item.rects:
            return
        navigator = self.view.pageNavigator()
        navigator.jump(item.page - 1, QPointF(), navigator.currentZoom())
        rect = pdf_geometry.to_viewport(self.view, item.page, item.rects[0])
        if rect is not None:
            bar = self.view.verticalScrollBar()
            bar.setValue(bar.value() + round(rect.top()) - JUMP_MARGIN)
        self.overlay.update()

    # -- selecting with the mouse ---------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Keep the overlay the viewport's size; turn left-button drags into a word selection."""
        kind = event.type()
        if kind == QEvent.Type.Resize:
            self.overlay.resize(self.view.viewport().size())
        elif self._path is not None and isinstance(event, QMouseEvent):
            if kind == QEvent.Type.MouseButtonPress and event.button() == Qt.MouseButton.LeftButton:
                self._press = pdf_geometry.page_at(self.view, event.position())
                self._last_point = self._press
                self._set_selection(None)
            elif kind == QEvent.Type.MouseMove and self._press is not None and (
                    event.buttons() & Qt.MouseButton.LeftButton):
                self._select_to(event.position())
            elif kind == QEvent.Type.MouseButtonRelease and self._press is not None:
                self._select_to(event.position())
                self._press = None
        return super().eventFilter(watched, event)

    def _select_to(self, pixel: QPointF) -> None:
        assert self._press is not None
        page, start = self._press
        here = pdf_geometry.page_at(self.view, pixel)
        if here is None or here[0] != page or (here[1] - start).manhattanLength() < 2:
            return  # a selection stays on the page it started on; a click selects nothing
        words = self._page_words(page)
        self._set_selection(annotation_pdf.span_between(words, page, (start.x(), start.y()),
                                                        (here[1].x(), here[1].y())))

    def _set_selection(self, span: annotation_pdf.Span | None) -> None:
        self.selection = span
        self.overlay.update()
        self._sync_actions()
        if span is not None:
            self.status_changed.emit(f"Selected {len(span.text.split())} words: Highlight (Ctrl+Shift+H)")

    def _page_words(self, page: int) -> list[annotation_pdf.Word]:
        words = self._words.get(page)
        if words is None and self._path is not None:
            try:
                with annotation_pdf.open_pdf(self._path) as doc:
                    words = annotation_pdf.page_words(doc, page)
            except (VancetopeError, OSError) as error:  # shown by the viewer already; no selection here
                log.info("no words on page %s of %s: %s", page, self._path, error)
                words = []
            self._words[page] = words
        return words or []

    def _find(self, annotation_id: str | None) -> Annotation | None:
        return next((a for a in self.annotations if a.id == annotation_id), None)

    def _sync_actions(self) -> None:
        self.highlight_action.setEnabled(self.selection is not None and not self._read_only)
        self.note_action.setEnabled(self._path is not None and not self._read_only)
