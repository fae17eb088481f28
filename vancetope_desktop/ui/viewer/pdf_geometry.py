"""Where QPdfView draws each page: page points ↔ viewport pixels, which QPdfView (Qt 6.11) does not expose.

The layout is QPdfView's own (``QPdfViewPrivate::calculateDocumentLayout`` in qtwebengine's
``src/pdfwidgets/qpdfview.cpp``), for its multi-page mode: each page's pixel size is its point size ×
the primary screen's logical DPI / 72 × the zoom (in the fit modes, scaled to the viewport's width, or
into it), rounded as Qt rounds ``QSize``; pages are stacked from the top document margin with the page
spacing between them, each centred horizontally; the viewport shows that document from the scroll bars'
values. ``tests/ui/test_pdf_annotations.py`` checks the sum against the scroll range QPdfView sets.

Page points use PyMuPDF's space (origin at the top left, y down), as ``services.annotation_pdf`` does.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRect, QRectF, QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtPdf import QPdfDocument
from PySide6.QtPdfWidgets import QPdfView


def page_geometries(view: QPdfView) -> list[QRect]:
    """Each page's rectangle in ``view``'s viewport coordinates (pixels), index 0 = page 1; [] without a
    document or outside multi-page mode."""
    document: QPdfDocument | None = view.document()
    if document is None or not document.pageCount() or view.pageMode() != QPdfView.PageMode.MultiPage:
        return []
    screen = QGuiApplication.primaryScreen()
    resolution = (screen.logicalDotsPerInch() if screen is not None else 96.0) / 72.0
    margins, spacing = view.documentMargins(), view.pageSpacing()
    viewport = view.viewport().size()
    mode = view.zoomMode()
    sizes = []
    for index in range(document.pageCount()):
        points = document.pagePointSize(index)
        if mode == QPdfView.ZoomMode.Custom:
            size = (points * resolution * view.zoomFactor()).toSize()
        else:
            size = (points * resolution).toSize()
            if mode == QPdfView.ZoomMode.FitToWidth and size.width() > 0:
                size = size * ((viewport.width() - margins.left() - margins.right()) / size.width())
            elif mode == QPdfView.ZoomMode.FitInView:
                size = _scaled(size, QSize(viewport.width() - margins.left() - margins.right(),
                                           viewport.height() - spacing))
        sizes.append(size)
    total_width = max(s.width() for s in sizes) + margins.left() + margins.right()
    left, top = view.horizontalScrollBar().value(), view.verticalScrollBar().value()
    y = margins.top()
    geometries = []
    for size in sizes:
        x = (max(total_width, viewport.width()) - size.width()) // 2
        geometries.append(QRect(x - left, y - top, size.width(), size.height()))
        y += size.height() + spacing
    return geometries


def document_height(view: QPdfView) -> int:
    """The height of the laid-out document in pixels, as QPdfView sizes its scroll range (the spacing follows
    every page, the last one too, then the bottom margin)."""
    pages = page_geometries(view)
    if not pages:
        return 0
    return (pages[-1].bottom() + 1 + view.pageSpacing() + view.verticalScrollBar().value()
            + view.documentMargins().bottom())


def page_at(view: QPdfView, pixel: QPointF) -> tuple[int, QPointF] | None:
    """The page (1-based) under a viewport ``pixel`` and the point there in page points; None between pages."""
    document = view.document()
    for index, rect in enumerate(page_geometries(view)):
        if QRectF(rect).contains(pixel):
            points = document.pagePointSize(index)
            return index + 1, QPointF((pixel.x() - rect.x()) * points.width() / rect.width(),
                                      (pixel.y() - rect.y()) * points.height() / rect.height())
    return None


def to_viewport(view: QPdfView, page: int, box: list[float], geometries: list[QRect] | None = None) -> QRectF | None:
    """``box`` (``[x0, y0, x1, y1]`` points on ``page``, 1-based) in viewport pixels; None for a page not there.

    ``geometries``: :func:`page_geometries` when the caller has it already (painting many boxes).
    """
    pages = geometries if geometries is not None else page_geometries(view)
    if not 1 <= page <= len(pages):
        return None
    rect, points = pages[page - 1], view.document().pagePointSize(page - 1)
    sx, sy = rect.width() / points.width(), rect.height() / points.height()
    return QRectF(rect.x() + box[0] * sx, rect.y() + box[1] * sy, (box[2] - box[0]) * sx, (box[3] - box[1]) * sy)


def _scaled(size: QSize, bounds: QSize) -> QSize:
    """``QSize::scaled(bounds, Qt::KeepAspectRatio)`` with Qt's integer arithmetic."""
    if size.width() <= 0 or size.height() <= 0:
        return bounds
    width = bounds.height() * size.width() // size.height()
    if width <= bounds.width():
        return QSize(width, bounds.height())
    return QSize(bounds.width(), bounds.width() * size.height() // size.width())
