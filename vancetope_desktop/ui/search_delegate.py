"""Paints a search result as a small card: bold title, a highlighted snippet, then page, scope badge and score.

The snippet is rich text laid out by a ``QTextDocument`` and cut after :data:`SNIPPET_LINES` lines;
colours come from the view's palette, so cards read in light and dark themes alike.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QAbstractTextDocumentLayout, QColor, QFont, QFontMetrics, QPainter, QPalette, QTextDocument
from PySide6.QtWidgets import QAbstractScrollArea, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from . import themes
from .scope_text import ScopeRelation, badge_text
from .search_model import CRUMB_CLASS, HIGHLIGHT_CLASS, ResultRole

MARGIN = 3
"""Space around each card (between neighbours)."""
PAD_X, PAD_Y, GAP = 10, 7, 4
SNIPPET_LINES = 3
RADIUS = 6.0
BADGE_PAD_X = 7


def is_dark(palette: QPalette) -> bool:
    """True when the palette's base colour is dark (a dark theme)."""
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


def _highlight_css(dark: bool) -> str:
    background, text = ("#7a5d00", "#fff3c4") if dark else ("#ffe27a", "#2b2200")
    crumb = "#9fb7d9" if dark else "#3b5f8f"
    return (f".{HIGHLIGHT_CLASS} {{ background-color: {background}; color: {text}; }} "
            f".{CRUMB_CLASS} {{ color: {crumb}; }}")


def _badge_colours(dark: bool, relation: ScopeRelation) -> tuple[QColor, QColor]:
    """(fill, text) of a scope badge: blue for the acting scope, violet for an inherited one, teal for a
    sibling think process's, amber for the memory of the agent that runs the acting scope."""
    if relation is ScopeRelation.SIBLING:
        return (QColor("#1d4a47"), QColor("#c8f2ec")) if dark else (QColor("#d9f3ef"), QColor("#125a52"))
    if relation is ScopeRelation.AGENT:
        return (QColor("#5a4214"), QColor("#ffe9bf")) if dark else (QColor("#fcefd2"), QColor("#7a5200"))
    if relation is ScopeRelation.INHERITED:
        return (QColor("#463a66"), QColor("#e4dbff")) if dark else (QColor("#ebe3ff"), QColor("#4a2d85"))
    return (QColor("#1f3b5e"), QColor("#d3e6ff")) if dark else (QColor("#dcebff"), QColor("#1c4a87"))


class SearchResultsDelegate(QStyledItemDelegate):
    """Draws :class:`~.search_model.SearchResultsModel` rows as cards; sizes them from the same layout."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        """Draw the card for ``index`` inside ``option.rect``."""
        palette = option.palette
        dark = is_dark(palette)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        card = QRectF(option.rect.adjusted(MARGIN, MARGIN, -MARGIN, -MARGIN))
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        fill = palette.color(QPalette.ColorRole.Highlight if selected else QPalette.ColorRole.Base)
        painter.setPen(palette.color(QPalette.ColorRole.Mid))
        painter.setBrush(fill)
        painter.drawRoundedRect(card.adjusted(0.5, 0.5, -0.5, -0.5), RADIUS, RADIUS)
        text_colour = palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        inner = card.toRect().adjusted(PAD_X, PAD_Y, -PAD_X, -PAD_Y)

        title_font = QFont(option.font)
        title_font.setBold(True)
        title_metrics = QFontMetrics(title_font)
        painter.setFont(title_font)
        painter.setPen(text_colour)
        title = title_metrics.elidedText(str(index.data(ResultRole.TITLE) or ""), Qt.TextElideMode.ElideRight,
                                         inner.width())
        painter.drawText(QRect(inner.left(), inner.top(), inner.width(), title_metrics.height()),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, title)
        y = inner.top() + title_metrics.height() + GAP

        document = self._snippet_document(index, option.font, inner.width(), dark)
        snippet_height = _snippet_height(document)
        if snippet_height:
            painter.save()
            painter.translate(inner.left(), y)
            clip = QRectF(0, 0, inner.width(), snippet_height)
            painter.setClipRect(clip)
            context = QAbstractTextDocumentLayout.PaintContext()
            context.palette.setColor(QPalette.ColorRole.Text, text_colour)
            context.clip = clip
            document.documentLayout().draw(painter, context)
            painter.restore()
            y += snippet_height + GAP

        self._paint_meta_line(painter, option, index, QRect(inner.left(), y, inner.width(), 0), selected, dark)
        painter.restore()

    def _paint_meta_line(self, painter: QPainter, option: QStyleOptionViewItem,
                         index: QModelIndex | QPersistentModelIndex, line: QRect, selected: bool, dark: bool) -> None:
        font = themes.small_font(option.font)
        metrics = QFontMetrics(font)
        height = metrics.height() + 4
        line.setHeight(height)
        painter.setFont(font)
        palette = option.palette
        dim = palette.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.PlaceholderText)

        score = index.data(ResultRole.SCORE)
        score_text = f"{score:.2f}" if isinstance(score, float) else ""
        score_width = metrics.horizontalAdvance(score_text)
        painter.setPen(dim)
        painter.drawText(line, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, score_text)

        x = line.left()
        page = index.data(ResultRole.PAGE)
        if page is not None:
            page_text = f"p. {page}"
            painter.drawText(QRect(x, line.top(), metrics.horizontalAdvance(page_text), height),
                             Qt.AlignmentFlag.AlignVCenter, page_text)
            x += metrics.horizontalAdvance(page_text) + 8

        relation = ScopeRelation(index.data(ResultRole.RELATION) or ScopeRelation.OWN)  # Qt may hand back a str
        name = str(index.data(ResultRole.SCOPE_NAME) or "")
        label = badge_text(name, relation)
        room = line.right() - x - score_width - 8 - 2 * BADGE_PAD_X
        label = metrics.elidedText(label, Qt.TextElideMode.ElideRight, max(room, 0))
        if label:
            fill, ink = _badge_colours(dark, relation)
            badge = QRectF(x, line.top(), metrics.horizontalAdvance(label) + 2 * BADGE_PAD_X, height)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(fill)
            painter.drawRoundedRect(badge, height / 2, height / 2)
            painter.setPen(ink)
            painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, label)

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        """Height of the laid-out card at the view's current width."""
        width = _available_width(option)
        inner_width = max(width - 2 * (MARGIN + PAD_X), 40)
        title_font = QFont(option.font)
        title_font.setBold(True)
        height = 2 * (MARGIN + PAD_Y) + QFontMetrics(title_font).height() + GAP
        snippet_height = _snippet_height(self._snippet_document(index, option.font, inner_width, False))
        if snippet_height:
            height += snippet_height + GAP
        height += QFontMetrics(themes.small_font(option.font)).height() + 4
        return QSize(width, height)

    @staticmethod
    def _snippet_document(index: QModelIndex | QPersistentModelIndex, font: QFont, width: int,
                          dark: bool) -> QTextDocument:
        document = QTextDocument()
        document.setDocumentMargin(0)
        document.setDefaultFont(font)
        # The style sheet must be in place before setHtml: it is applied while parsing.
        document.setDefaultStyleSheet(_highlight_css(dark))
        document.setHtml(str(index.data(ResultRole.SNIPPET_HTML) or ""))
        document.setTextWidth(width)
        return document


def _available_width(option: QStyleOptionViewItem) -> int:
    """The view's viewport width: QListView asks for size hints before it has given the item a rect."""
    view = option.widget
    if isinstance(view, QAbstractScrollArea):
        return max(view.viewport().width(), 120)
    return max(option.rect.width(), 320)


def _snippet_height(document: QTextDocument) -> int:
    """Height of the first :data:`SNIPPET_LINES` laid-out lines of ``document`` (0 when it is empty)."""
    if document.isEmpty():
        return 0
    document.documentLayout()  # makes sure the blocks are laid out
    lines, bottom = 0, 0.0
    block = document.begin()
    while block.isValid():
        layout = block.layout()
        origin = layout.position().y()
        for i in range(layout.lineCount()):
            line = layout.lineAt(i)
            bottom = origin + line.y() + line.height()
            lines += 1
            if lines == SNIPPET_LINES:
                return math.ceil(bottom)
        block = block.next()
    return math.ceil(bottom)
