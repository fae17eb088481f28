"""The keys of a document tab, in one place: the viewers bind them and the shortcut sheet lists them.

A viewer exists only while a document is open, so the sheet cannot read them from live actions as it
does for the window's: both read this table instead.
"""

from __future__ import annotations

from PySide6.QtGui import QKeySequence

# Names and standard keys, not QKeySequence values: a standard key sequence made before the
# QApplication exists crashes Qt, and this module is imported first.
HIGHLIGHT = "Ctrl+Shift+H"
NOTE = "Ctrl+Shift+N"
SAVE = QKeySequence.StandardKey.Save
FIND = QKeySequence.StandardKey.Find
ZOOM_IN = QKeySequence.StandardKey.ZoomIn
ZOOM_OUT = QKeySequence.StandardKey.ZoomOut
FIND_PREVIOUS = "Shift+Return"


def bindings() -> list[tuple[str, QKeySequence]]:
    """``(what, keys)`` for the shortcut sheet's "Document tab" section, in reading order."""
    named = [("Highlight the selected text (PDF)", HIGHLIGHT), ("Put a note on the page (PDF)", NOTE),
             ("Save the note being edited", SAVE), ("Find in the document", FIND),
             ("Previous match (in the find box)", FIND_PREVIOUS), ("Zoom in", ZOOM_IN), ("Zoom out", ZOOM_OUT)]
    return [(what, QKeySequence(keys)) for what, keys in named]
