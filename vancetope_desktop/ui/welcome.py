"""The first-start page of an empty library: load the demo library or import files."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget


class WelcomePage(QWidget):
    """Shown instead of the document list while the library holds no document at all.

    Signals:
        demo_requested(), import_files_requested(), import_folder_requested(), new_note_requested().
    """

    demo_requested = Signal()
    import_files_requested = Signal()
    import_folder_requested = Signal()
    new_note_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        title = QLabel("Welcome to Vancetope Desktop")
        font = title.font()
        font.setPointSize(font.pointSize() + 8)
        font.setBold(True)
        title.setFont(font)
        text = QLabel(
            "Your library is empty. Drop PDFs, notes or whole folders anywhere on this window, or start with\n"
            "the demo: the “Transformer Efficiency Review” project with three papers, facts, a reference\n"
            "and two Think Processes with their results."
        )
        text.setWordWrap(True)
        self.demo_button = QPushButton("Load the demo library")
        self.demo_button.setDefault(True)
        self.import_button = QPushButton("Import files…")
        self.folder_button = QPushButton("Import a folder…")
        self.note_button = QPushButton("New note")
        self.demo_button.clicked.connect(self.demo_requested)
        self.import_button.clicked.connect(self.import_files_requested)
        self.folder_button.clicked.connect(self.import_folder_requested)
        self.note_button.clicked.connect(self.new_note_requested)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for button in (self.demo_button, self.import_button, self.folder_button, self.note_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        for widget in (title, text):
            widget.setAlignment(Qt.AlignmentFlag.AlignCenter)
            layout.addWidget(widget)
        layout.addSpacing(16)
        layout.addLayout(buttons)
        layout.addStretch(2)
