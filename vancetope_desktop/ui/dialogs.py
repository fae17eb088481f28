"""Small dialogs of the window: a new note, a new scope, and one-line questions."""

from __future__ import annotations

import re
import unicodedata

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from ..core.errors import InvalidInput
from ..core.scopes import ScopeKind, validate_scope_key
from .memory_type_picker import MemoryTypePicker


class NewNoteDialog(QDialog):
    """Asks for a note's title and Markdown text; OK only when the text is not blank."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New note")
        self.resize(560, 420)
        self.title_edit = QLineEdit()
        self.title_edit.setPlaceholderText("Title (default: the first line)")
        self.body_edit = QPlainTextEdit()
        self.body_edit.setPlaceholderText("Markdown text; #tags in the text become tags")
        self.memory_type = MemoryTypePicker("Not an agent memory", "A note like any other")
        kind_row = QHBoxLayout()
        kind_row.addWidget(QLabel("Memory type:"))
        kind_row.addWidget(self.memory_type)
        kind_row.addStretch(1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.body_edit.textChanged.connect(self._validate)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title_edit)
        layout.addWidget(self.body_edit, 1)
        layout.addLayout(kind_row)
        layout.addWidget(self.buttons)
        self._validate()

    def _validate(self) -> None:
        ok = bool(self.body_edit.toPlainText().strip())
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)

    def values(self) -> tuple[str, str]:
        """``(title, text)`` as typed."""
        return self.title_edit.text().strip(), self.body_edit.toPlainText()


class NewScopeDialog(QDialog):
    """Asks for a new scope's name and id; the kind follows from the parent (a group has none).

    The id (the scope's key in paths such as ``session/literature-2026``) is derived from the name as it
    is typed, until the user edits it.
    """

    def __init__(self, parent_kind: ScopeKind | None, parent_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        kind = parent_kind.child_kind if parent_kind is not None else ScopeKind.GROUP
        assert kind is not None, f"a {parent_kind} has no scopes inside it"  # the window checks before asking
        self.kind = kind
        self.setWindowTitle(f"New {self.kind.label}")
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("e.g. Literature review 2026")
        self.key_edit = QLineEdit()
        self.key_edit.setPlaceholderText("derived from the name")
        self._key_edited = False
        self.name_edit.textEdited.connect(self._name_typed)
        self.key_edit.textEdited.connect(lambda _text: setattr(self, "_key_edited", True))
        self.error = QLabel()
        self.error.setProperty("role", "error")
        form = QFormLayout()
        form.addRow("Kind:", QLabel(self.kind.label))
        if parent_kind is not None:
            form.addRow("Inside:", QLabel(parent_name))
        form.addRow("Name:", self.name_edit)
        form.addRow("Id:", self.key_edit)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)

    def _name_typed(self, name: str) -> None:
        if not self._key_edited:
            self.key_edit.setText(scope_slug(name))

    def _accept(self) -> None:
        try:
            validate_scope_key(self.key_edit.text().strip())
        except InvalidInput as error:
            self.error.setText(str(error))
            return
        self.accept()

    def values(self) -> tuple[str, str, str]:
        """``(kind, key, name)``."""
        key = self.key_edit.text().strip()
        return self.kind.value, key, self.name_edit.text().strip() or key


def scope_slug(name: str) -> str:
    """A path-friendly id from a scope name: ``"Literature review 2026"`` → ``literature-review-2026``."""
    words = re.findall(r"\w+", unicodedata.normalize("NFC", name).casefold())
    return "-".join(words)[:60]


def ask_text(parent: QWidget, title: str, label: str, default: str = "") -> str | None:
    """One line of text from the user, stripped; None when cancelled or blank."""
    text, ok = QInputDialog.getText(parent, title, label, QLineEdit.EchoMode.Normal, default)
    return text.strip() if ok and text.strip() else None


def ask_password(parent: QWidget, name: str) -> str | None:
    """The password of an encrypted PDF ``name``; None when cancelled."""
    text, ok = QInputDialog.getText(parent, "Password", f"Password of {name}:", QLineEdit.EchoMode.Password)
    return text if ok and text else None


def confirm(parent: QWidget, title: str, text: str) -> bool:
    """A Yes/No question, No by default."""
    answer = QMessageBox.question(parent, title, text, QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                  QMessageBox.StandardButton.No)
    return answer == QMessageBox.StandardButton.Yes
