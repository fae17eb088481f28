"""Where QPdfView puts a page, in the view's scroll coordinates (QPdfView has no public mapping).

It lays pages out top to bottom: the document margin, then each page (its point size × the screen's
pixels per point × the zoom; in the fit modes each page gets its own zoom) followed by the page
spacing, every page centred horizontally (``QPdfViewPrivate::calculateDocumentLayout``, Qt 6.5–6.11).
"""

from __future__ import annotations

from PySide6.QtCore import QPointF
from PySide6.QtPdfWidgets import QPdfView


def pixels_per_point(view: QPdfView, page: int) -> float:
    """The scale of ``page`` (0-based) on screen, in pixels per PDF point, for the view's zoom mode."""
    size = view.document().pagePointSize(page)
    screen = view.logicalDpiX() / 72.0
    mode = view.zoomMode()
    if mode == QPdfView.ZoomMode.Custom or size.width() <= 0 or size.height() <= 0:
        return screen * view.zoomFactor()
    margins = view.documentMargins()
    width = (view.viewport().width() - margins.left() - margins.right()) / size.width()
    if mode == QPdfView.ZoomMode.FitToWidth:
        return width
    height = (view.viewport().height() - margins.top() - margins.bottom()) / size.height()
    return min(width, height)


def document_position(view: QPdfView, page: int, point: QPointF) -> QPointF:
    """Where ``point`` (PDF points from the top left of ``page``, 0-based) lies in the view's scroll
    area, in pixels from the top left of the whole laid-out document."""
    document = view.document()
    top = float(view.documentMargins().top())
    for index in range(page):
        top += document.pagePointSize(index).height() * pixels_per_point(view, index) + view.pageSpacing()
    scale = pixels_per_point(view, page)
    widest = max((document.pagePointSize(i).width() * pixels_per_point(view, i)
                  for i in range(document.pageCount())), default=0.0)
    width = document.pagePointSize(page).width() * scale
    left = (max(widest, float(view.viewport().width())) - width) / 2
    return QPointF(left + point.x() * scale, top + point.y() * scale)
