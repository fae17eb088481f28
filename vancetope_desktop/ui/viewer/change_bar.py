"""The bar a note's editor shows when its document changed meanwhile (undo, redo, another process).

The draft is never replaced or saved over silently: Compare… opens the conflict dialog (theirs and yours side by
side: keep mine, keep theirs or merge), and Reload shows the document as it is now once the user agreed to drop
a draft that has changes.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget


class ChangeBar(QWidget):
    """"This document changed since you started editing", with Compare… and Reload.

    Signals:
        compare_requested(): show both versions and settle them (the owner opens the conflict dialog).
        reload_requested(): show the document as it is now (the owner asks before dropping a draft).
    """

    compare_requested = Signal()
    reload_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel("This document changed since you started editing.")
        self.label.setWordWrap(True)
        self.compare_button = QPushButton("Compare…")
        self.compare_button.setToolTip("Show the other version beside your draft: keep mine, keep theirs or merge")
        self.reload_button = QPushButton("Reload")
        self.reload_button.setToolTip("Show the document as it is now (asks before dropping your draft)")
        self.setStyleSheet("ChangeBar { background: palette(alternate-base); }")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 2, 4, 2)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.compare_button)
        layout.addWidget(self.reload_button)
        self.compare_button.clicked.connect(self.compare_requested)
        self.reload_button.clicked.connect(self.reload_requested)
        self.hide()
