"""Pygments colours in a QTextDocument, computed once per document and applied block by block.

QSyntaxHighlighter works line by line, but pygments lexers need the whole text (multi-line strings,
comments). So the whole text is lexed once (``get_tokens_unprocessed`` keeps offsets exact) and the
spans are stored per line; ``highlightBlock`` only looks them up.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict

from pygments.lexer import Lexer
from pygments.lexers import TextLexer, get_lexer_by_name, get_lexer_for_filename, guess_lexer_for_filename
from pygments.styles import get_style_by_name
from pygments.token import _TokenType
from pygments.util import ClassNotFound
from PySide6.QtCore import QObject
from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

MAX_HIGHLIGHT_CHARS = 250_000
"""Longer text is shown uncoloured: lexing megabytes would stall the UI thread for seconds."""


def lexer_for(file_name: str, text: str = "", *, language: str | None = None) -> Lexer:
    """A pygments lexer by language name, else by file name (content breaks ties), else plain text.

    Args:
        file_name: e.g. ``"analysis.py"`` or ``"Makefile"``.
        text: the start of the content, used when several lexers claim the name.
        language: a pygments alias such as ``"python"`` (the importer's ``metadata.language``).
    """
    for attempt in (
        lambda: get_lexer_by_name(language) if language else None,
        lambda: get_lexer_for_filename(file_name, stripnl=False, ensurenl=False),
        lambda: guess_lexer_for_filename(file_name, text[:4096], stripnl=False, ensurenl=False),
    ):
        try:
            lexer = attempt()
        except ClassNotFound:
            continue
        if lexer is not None:
            return lexer
    return TextLexer()


class PygmentsHighlighter(QSyntaxHighlighter):
    """Colours a document with a pygments lexer and style.

    Use :meth:`attach` after the document's text is set (lexing happens once, there), :meth:`detach`
    before replacing the text, and :meth:`set_style` to recolour in place for another theme.
    """

    def __init__(self, style_name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._lexer: Lexer = TextLexer()
        self._formats: dict[_TokenType, QTextCharFormat | None] = {}
        self._shared: dict[tuple[object, ...], QTextCharFormat] = {}
        self._spans: dict[int, list[tuple[int, int, _TokenType]]] = {}
        self._style_name = style_name
        self._style = get_style_by_name(style_name)

    def attach(self, document: QTextDocument, lexer: Lexer) -> bool:
        """Lex ``document``'s text with ``lexer`` and colour it.

        Returns:
            False (and nothing attached) when the text is longer than ``MAX_HIGHLIGHT_CHARS`` or the
            lexer is plain text.
        """
        self.detach()
        text = document.toPlainText()
        if len(text) > MAX_HIGHLIGHT_CHARS or isinstance(lexer, TextLexer):
            return False
        self._lexer = lexer
        self._spans = self._lex(text)
        self.setDocument(document)  # rehighlights every block
        return True

    def detach(self) -> None:
        """Remove the colours from the current document, if any."""
        if self.document() is not None:
            self.setDocument(None)
        self._spans = {}

    def set_style(self, style_name: str) -> None:
        """Switch to another pygments style (e.g. for a dark theme) and recolour."""
        if style_name == self._style_name:
            return
        self._style_name = style_name
        self._style = get_style_by_name(style_name)
        self._formats.clear()
        self._shared.clear()
        if self.document() is not None:
            self.rehighlight()

    def _lex(self, text: str) -> dict[int, list[tuple[int, int, _TokenType]]]:
        """Token spans per line: ``{line: [(column, length, token type), ...]}``."""
        starts = [0]
        starts.extend(i + 1 for i, ch in enumerate(text) if ch == "\n")
        spans: dict[int, list[tuple[int, int, _TokenType]]] = defaultdict(list)
        for position, token, value in self._lexer.get_tokens_unprocessed(text):
            end = position + len(value)
            line = bisect_right(starts, position) - 1
            while position < end and line < len(starts):
                line_end = starts[line + 1] - 1 if line + 1 < len(starts) else len(text)
                piece_end = min(end, line_end)
                if piece_end > position:
                    spans[line].append((position - starts[line], piece_end - position, token))
                position = line_end + 1
                line += 1
        return dict(spans)

    def _format(self, token: _TokenType) -> QTextCharFormat | None:
        """The format for a token type, shared by every type styled alike; None for unstyled tokens."""
        if token in self._formats:
            return self._formats[token]
        style = self._style.style_for_token(token)
        key = (style.get("color"), style.get("bgcolor"), bool(style.get("bold")), bool(style.get("italic")),
               bool(style.get("underline")))
        fmt = self._shared.get(key)
        if fmt is None and any(key):
            fmt = QTextCharFormat()
            if key[0]:
                fmt.setForeground(QColor(f"#{key[0]}"))
            if key[1]:
                fmt.setBackground(QColor(f"#{key[1]}"))
            if key[2]:
                fmt.setFontWeight(QFont.Weight.Bold)
            if key[3]:
                fmt.setFontItalic(True)
            if key[4]:
                fmt.setFontUnderline(True)
            self._shared[key] = fmt
        self._formats[token] = fmt
        return fmt

    def highlightBlock(self, text: str) -> None:
        # Adjacent tokens styled alike become one setFormat call, unstyled ones none: fewer calls
        # into Qt per line keeps colouring fast on long files.
        start, length, current = 0, 0, None
        for column, size, token in self._spans.get(self.currentBlock().blockNumber(), ()):
            fmt = self._format(token)
            if fmt is current and column == start + length:
                length += size
                continue
            if current is not None:
                self.setFormat(start, length, current)
            start, length, current = column, size, fmt
        if current is not None:
            self.setFormat(start, length, current)
