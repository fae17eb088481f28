"""A one-line label that elides its text to the room it gets instead of widening its window.

A plain ``QLabel``'s minimum width is its whole text: a 300-character PDF title in the viewer's header
raised the main window's minimum width to 1935 px on a 1600 px screen (new-user trial, issue 11).
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class ElidedLabel(QLabel):
    """A ``QLabel`` showing ``text`` on one line, cut with "…" when narrower than it; the whole text is in
    :meth:`full_text` (and the tooltip, unless one is set)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def setText(self, text: str) -> None:
        self._full = text
        self._elide()

    def full_text(self) -> str:
        """The text before eliding."""
        return self._full

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        margins = self.contentsMargins()
        room = max(self.width() - margins.left() - margins.right(), 0)
        shown = self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, room)
        super().setText(shown)
