"""Plain text and source code, read-only, coloured by pygments (lexer guessed from the file name)."""

from __future__ import annotations

from PySide6.QtGui import QColor, QFontDatabase, QPalette
from PySide6.QtWidgets import QPlainTextEdit, QVBoxLayout, QWidget

from .highlighter import MAX_HIGHLIGHT_CHARS, PygmentsHighlighter, lexer_for
from .rendering import pygments_style_name, style_colors
from .text_marks import mark_passage

_PROSE_LEXERS = frozenset({"Text only", "reStructuredText", "Org Mode"})  # wrap these; code stays unwrapped


class TextViewer(QWidget):
    """A read-only monospace text view with syntax colours matching the theme."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.editor = QPlainTextEdit()
        self.editor.setReadOnly(True)
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.editor.setTabStopDistance(4 * self.editor.fontMetrics().horizontalAdvance(" "))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.editor)
        self._dark = False
        self._highlighter = PygmentsHighlighter(pygments_style_name(False), self)
        self._apply_colors()

    def show_text(self, text: str, *, file_name: str = "", language: str | None = None,
                  highlight: str | None = None) -> list[str]:
        """Show ``text``, coloured by the lexer for ``file_name`` / ``language``, marking ``highlight``.

        Returns:
            Notes for a banner (colours switched off for very long text).
        """
        self._highlighter.detach()
        lexer = lexer_for(file_name, text, language=language)
        wrap = lexer.name in _PROSE_LEXERS
        self.editor.setLineWrapMode(
            QPlainTextEdit.LineWrapMode.WidgetWidth if wrap else QPlainTextEdit.LineWrapMode.NoWrap)
        self.editor.setPlainText(text.replace("\r\n", "\n"))
        notes = []
        coloured = self._highlighter.attach(self.editor.document(), lexer)
        if not coloured and lexer.name != "Text only" and len(text) > MAX_HIGHLIGHT_CHARS:
            notes.append("Syntax colours are off for a file this long.")
        if highlight and highlight.strip():
            mark_passage(self.editor, highlight)
        return notes

    def text(self) -> str:
        """The text shown."""
        return self.editor.toPlainText()

    def set_dark(self, dark: bool) -> None:
        """Use the dark (or light) pygments style and matching background."""
        self._dark = dark
        self._apply_colors()
        self._highlighter.set_style(pygments_style_name(dark))

    def _apply_colors(self) -> None:
        # The pane takes the style's own background so token colours keep the contrast they were designed for.
        background, foreground = style_colors(self._dark)
        palette = self.editor.palette()
        palette.setColor(QPalette.ColorRole.Base, QColor(background))
        palette.setColor(QPalette.ColorRole.Text, QColor(foreground))
        self.editor.setPalette(palette)
