"""The bar a note's editor shows when its document changed meanwhile (undo, redo, another process).

The draft is never replaced silently: the user picks Reload (drop the draft, show the new text) or Keep
mine (go on editing; Save then replaces the new text, as the user chose).
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget


class ChangeBar(QWidget):
    """"This document changed since you started editing", with Reload and Keep mine.

    Signals:
        reload_requested(): drop the draft and show the document as it is now.
        keep_requested(): keep the draft (the bar hides itself).
    """

    reload_requested = Signal()
    keep_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel("This document changed since you started editing.")
        self.label.setWordWrap(True)
        self.reload_button = QPushButton("Reload")
        self.reload_button.setToolTip("Drop your draft and show the document as it is now")
        self.keep_button = QPushButton("Keep mine")
        self.keep_button.setToolTip("Go on editing; saving replaces the other change")
        self.setStyleSheet("ChangeBar { background: palette(alternate-base); }")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 2, 4, 2)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.reload_button)
        layout.addWidget(self.keep_button)
        self.reload_button.clicked.connect(self.reload_requested)
        self.keep_button.clicked.connect(self._keep)
        self.hide()

    def _keep(self) -> None:
        self.hide()
        self.keep_requested.emit()
