"""A readable message in place of a document: errors, folders, documents without a renderer."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

_MAX_BODY_CHARS = 200_000


class MessageView(QWidget):
    """A centred title and explanation, optionally followed by text (e.g. a document's extracted text)
    or a password field (encrypted PDFs).

    Signals:
        password_entered(str): the user submitted a password.
    """

    password_entered = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title_label = QLabel()
        self.title_label.setObjectName("viewerMessageTitle")
        font = self.title_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.title_label.setFont(font)
        self.detail_label = QLabel()
        self.detail_label.setWordWrap(True)
        self.detail_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        for label in (self.title_label, self.detail_label):
            label.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        self.password_edit = QLineEdit()
        self.password_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.password_edit.setPlaceholderText("Password")
        self.password_edit.setMaximumWidth(260)
        self.unlock_button = QPushButton("Open")
        self.password_row = QWidget()
        row = QHBoxLayout(self.password_row)
        row.addStretch()
        row.addWidget(self.password_edit)
        row.addWidget(self.unlock_button)
        row.addStretch()
        self.body = QPlainTextEdit()
        self.body.setReadOnly(True)
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        layout.addWidget(self.title_label)
        layout.addWidget(self.detail_label)
        layout.addWidget(self.password_row)
        layout.addWidget(self.body, 6)
        layout.addStretch(1)
        self.password_edit.returnPressed.connect(self._submit_password)
        self.unlock_button.clicked.connect(self._submit_password)
        self.show_message("")

    def show_message(self, title: str, detail: str = "", *, body: str | None = None,
                     ask_password: bool = False) -> None:
        """Show ``title`` and ``detail``; ``body`` (cut to 200 000 characters) below them in a text box;
        ``ask_password`` adds a password field that emits :attr:`password_entered`."""
        self.title_label.setText(title)
        self.detail_label.setText(detail)
        self.detail_label.setVisible(bool(detail))
        self.password_row.setVisible(ask_password)
        self.password_edit.clear()
        if body:
            cut = len(body) > _MAX_BODY_CHARS
            self.body.setPlainText(body[:_MAX_BODY_CHARS] + ("\n…" if cut else ""))
        else:
            self.body.clear()
        self.body.setVisible(bool(body))

    def text(self) -> str:
        """Title and detail as one string (what the user reads)."""
        return "\n".join(t for t in (self.title_label.text(), self.detail_label.text()) if t)

    def _submit_password(self) -> None:
        if self.password_edit.text():
            self.password_entered.emit(self.password_edit.text())
