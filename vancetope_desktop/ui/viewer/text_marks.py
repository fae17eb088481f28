"""Marking a passage in a text widget: find a short phrase of it, highlight every occurrence, scroll."""

from __future__ import annotations

from PySide6.QtGui import QColor, QTextCursor, QTextDocument
from PySide6.QtWidgets import QPlainTextEdit, QTextEdit

from .phrases import pick_search_phrase

MAX_MARKS = 500
MARK_BACKGROUND = QColor("#ffd54f")  # amber with black text reads on light and dark themes
MARK_FOREGROUND = QColor("#000000")


def mark_passage(edit: QPlainTextEdit | QTextEdit, passage: str) -> str:
    """Highlight a distinctive phrase of ``passage`` in ``edit`` and scroll to its first occurrence.

    The marks are extra selections, so the document (and an editor's undo stack) is untouched.

    Args:
        edit: a plain-text or rich-text view.
        passage: a chunk's text or query words (see :func:`.phrases.pick_search_phrase`).

    Returns:
        The phrase marked, or ``""`` when nothing of the passage occurs in the text.
    """
    document: QTextDocument = edit.document()
    phrase = pick_search_phrase(passage, document.toPlainText())
    if not phrase:
        edit.setExtraSelections([])
        return ""
    selections = []
    cursor = document.find(phrase)
    first = QTextCursor(cursor)
    while not cursor.isNull() and len(selections) < MAX_MARKS:
        selection = QTextEdit.ExtraSelection()
        selection.cursor = cursor
        selection.format.setBackground(MARK_BACKGROUND)
        selection.format.setForeground(MARK_FOREGROUND)
        selections.append(selection)
        cursor = document.find(phrase, cursor)
    edit.setExtraSelections(selections)
    if not first.isNull():
        first.clearSelection()
        edit.setTextCursor(first)
        edit.ensureCursorVisible()
    return phrase
