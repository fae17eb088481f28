"""Review dialogs: the reason for a rejection (required) and the title / tag / target edits before an approval."""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..core.promotion import PromotionRequest
from .review_model import Approval
from .tag_chips import TagChipsEditor

QUICK_REASONS = ("Not relevant to the project", "Duplicate of an existing document", "Needs more evidence",
                 "Contains errors")


LISTED_REQUESTS = 8
"""Titles the Reject dialog names before "and N more"."""


def listed_titles(titles: Sequence[str], limit: int = LISTED_REQUESTS) -> str:
    """``titles`` as an HTML list (escaped), the first ``limit`` of them, then "and N more"."""
    shown = "".join(f"<li>{html.escape(t)}</li>" for t in titles[:limit])
    more = f"<p>and {len(titles) - limit} more</p>" if len(titles) > limit else ""
    return f'<ul style="margin: 0 0 0 -16px">{shown}</ul>{more}'


class RejectDialog(QDialog):
    """Asks why requests are rejected, naming them; OK stays disabled until a reason is typed (it is required).

    Args:
        titles: the titles of the requests to reject (the first :data:`LISTED_REQUESTS` are listed).
    """

    def __init__(self, titles: Sequence[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        count = len(titles)
        self.setWindowTitle("Reject request" if count == 1 else f"Reject {count} requests")
        self.reason_edit = QPlainTextEdit()
        self.reason_edit.setPlaceholderText("Why? The think process and the history keep this reason.")
        self.reason_edit.setTabChangesFocus(True)
        quick = QHBoxLayout()
        quick.setSpacing(4)
        for text in QUICK_REASONS:
            button = QToolButton()
            button.setText(text)
            button.clicked.connect(lambda _c=False, t=text: self.reason_edit.setPlainText(t))
            quick.addWidget(button)
        quick.addStretch(1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Reject" if count == 1 else f"Reject {count}")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.reason_edit.textChanged.connect(self._validate)
        what = (f"<b>Reject “{html.escape(titles[0])}”?</b>" if count == 1
                else f"<b>Reject {count} requests?</b>{listed_titles(titles)}")
        stay = "The document stays where it is." if count == 1 else "The documents stay where they are."
        self.summary_label = QLabel(f"{what}<p>{stay}</p>")
        self.summary_label.setTextFormat(Qt.TextFormat.RichText)
        self.summary_label.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary_label)
        layout.addWidget(self.reason_edit, 1)
        layout.addLayout(quick)
        layout.addWidget(self.buttons)
        self.resize(560, 300 if count == 1 else 420)
        self._validate()

    def reason(self) -> str:
        """The reason typed, stripped."""
        return self.reason_edit.toPlainText().strip()

    def accept(self) -> None:
        """Close with OK only when a reason is given."""
        if self.reason():
            super().accept()

    def _validate(self) -> None:
        self.ok_button.setEnabled(bool(self.reason()))


def requested_label(label: str, requested: bool) -> str:
    """A target's label, marked when it is the one the request asked for ("Inbox (project) — requested")."""
    return f"{label} — requested" if requested else label


class EditApproveDialog(QDialog):
    """Edit the title (one request only) and the tags, pick the target, then approve.

    Args:
        requests: the requests to approve.
        tags: the document's current tags (one request), else empty (then the tags are added to all).
        targets: ``(path, label)`` of the scopes the documents may go to, nearest first.
    """

    def __init__(self, requests: Sequence[PromotionRequest], tags: Sequence[str],
                 targets: Sequence[tuple[str, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.requests = list(requests)
        self.initial_tags = list(tags)
        single = len(self.requests) == 1
        self.setWindowTitle("Edit and approve" if single else f"Edit and approve {len(self.requests)} requests")
        self.title_edit = QLineEdit(self.requests[0].title if single else "")
        self.title_edit.setEnabled(single)
        if not single:
            self.title_edit.setPlaceholderText("Titles are edited one request at a time")
        self.tags_editor = TagChipsEditor()
        self.tags_editor.set_tags(self.initial_tags)
        self.target_box = QComboBox()
        # The whole label shows (names are long; "— requested" must not be cut off).
        self.target_box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        requested = self.requests[0].target_scope
        for path, label in targets:
            self.target_box.addItem(requested_label(label, path == requested), path)
        self.target_box.setCurrentIndex(max(self.target_box.findData(requested), 0))
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Approve")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("Title:", self.title_edit)
        form.addRow("Tags:" if single else "Add tags:", self.tags_editor)
        form.addRow("Approve to:", self.target_box)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        self.resize(520, 260)

    def accept(self) -> None:
        """Approve, with the tag still typed in the tag field added first; text there that is no valid tag
        keeps the dialog open with the reason under the field (it would otherwise be lost silently)."""
        if self.tags_editor.commit_pending("fix it or clear the field to approve"):
            super().accept()

    def approval(self) -> Approval:
        """The approval the dialog describes (only what changed is sent)."""
        ids = tuple(r.id for r in self.requests)
        title = self.title_edit.text().strip() if len(ids) == 1 else ""
        tags = self.tags_editor.tags()
        target = self.target_box.currentData()
        return Approval(
            request_ids=ids,
            to=target if target and target != self.requests[0].target_scope else None,
            title=title if title and title != self.requests[0].title else None,
            add_tags=tuple(t for t in tags if t not in self.initial_tags),
            remove_tags=tuple(t for t in self.initial_tags if t not in tags),
        )
