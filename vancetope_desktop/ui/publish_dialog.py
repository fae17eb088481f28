"""Publishing a think process to its project (issue 4): what it would ask for, and the confirmation.

"Publish to Project" files one promotion request per live result of a think process
(``review.publish_think_process``); nothing moves until the requests are approved. The confirmation
says how many results, which scopes would see them once approved (worded as the move confirmation
words it, :func:`.move_dialog.visibility_texts`), and takes an optional reason for the requests.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from ..core.documents import DocumentStatus, DocumentType
from ..core.scope_info import ScopeInfo
from ..services import documents, moves, scopes
from ..services.library import Library
from .move_dialog import visibility_labels, visibility_texts


@dataclass(frozen=True)
class PublishPreview:
    """What "publish to project" would ask for: the think process, its live results, the project.

    Attributes:
        think_process / target: the scopes (the target is the think process's project).
        results: how many live results would be requested.
        gains / loses: the scopes that would newly see / stop seeing the results once approved.
    """

    think_process: ScopeInfo
    results: int
    target: ScopeInfo
    gains: tuple[ScopeInfo, ...] = ()
    loses: tuple[ScopeInfo, ...] = ()


def load_publish_preview(lib: Library, think_process: str) -> PublishPreview:
    """Count a think process's live results, find its project and who would see them (worker thread).

    Raises:
        ScopeNotFound. ScopeError: it has no project above it.
    """
    target = moves.check_move(lib, think_process, "project", "up")
    results = documents.list_documents(lib, scope=think_process, include_ancestors=False,
                                       types=(DocumentType.RESULT,),
                                       statuses=(DocumentStatus.ACTIVE, DocumentStatus.STALE))
    gains: tuple[ScopeInfo, ...] = ()
    loses: tuple[ScopeInfo, ...] = ()
    if results:
        change = moves.visibility_change(lib, [d.id for d in results], target)
        by_path = {s.path: s for s in scopes.list_scopes(lib, include_archived=True)}
        gains = tuple(by_path[p] for p in change.gains if p in by_path)
        loses = tuple(by_path[p] for p in change.loses if p in by_path)
    return PublishPreview(scopes.get_scope(lib, think_process), len(results), scopes.get_scope(lib, target),
                          gains, loses)


def publish_question(preview: PublishPreview) -> str:
    """The confirmation's sentence ("Request promotion of 4 results of Paper Analysis to project …?")."""
    noun = "result" if preview.results == 1 else "results"
    return (f"Request promotion of {preview.results} {noun} of {preview.think_process.name} to project "
            f"{preview.target.name}? They go to the review queue.")


class PublishDialog(QDialog):
    """The confirmation of "publish to project": the question, who would see the results, an optional reason.

    Accepting it means "file the requests"; :meth:`reason` is the text they carry (empty: the service's
    default reason).
    """

    def __init__(self, preview: PublishPreview, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.preview = preview
        self.setWindowTitle("Publish to project")
        self.setMinimumWidth(520)
        self.question_label = QLabel(publish_question(preview))
        self.question_label.setWordWrap(True)
        self.question_label.setTextFormat(Qt.TextFormat.PlainText)
        gains, loses = visibility_texts(preview.gains, preview.loses, preview.results)
        self.gains_label, self.loses_label = QLabel(gains), QLabel(loses)
        for label in (self.gains_label, self.loses_label):
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.PlainText)
        self.loses_label.setProperty("role", "warning" if preview.loses else "")
        self.reason_edit = QLineEdit()
        self.reason_edit.setPlaceholderText("Optional: why the project needs them")
        form = QFormLayout()
        gains_label, loses_label = visibility_labels(preview.results)
        form.addRow(gains_label, self.gains_label)
        form.addRow(loses_label, self.loses_label)
        form.addRow("Reason:", self.reason_edit)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.publish_button = self.buttons.addButton("Request promotion", QDialogButtonBox.ButtonRole.AcceptRole)
        self.publish_button.setDefault(True)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.question_label)
        once = QLabel("Once the requests are approved:")
        once.setProperty("role", "hint")
        layout.addWidget(once)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        self.reason_edit.setFocus()

    def reason(self) -> str:
        """The reason typed (stripped; may be empty)."""
        return self.reason_edit.text().strip()
