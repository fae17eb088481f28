"""Requesting the promotion of one document or topic (issue 4): what it would ask for, and the dialog.

"Request Promotion…" files a promotion request for one document (a topic: with its subtree and atoms, as
``services.moves`` carries it once approved) in the review queue (``review.request_promotion``, as ``vancetope
memory request`` and the agents' ``memory_request_promotion``); nothing moves until the request is approved. The
dialog picks the target among the scopes above the document (the move menu's promotions,
:func:`.move_dialog.move_targets`), says who would see it once approved (worded as the move confirmation words
it) and takes an optional reason for the reviewer. :class:`~.scope_move_flow.ScopeMoveFlow` runs the sequence.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from ..core.documents import DocumentStatus, DocumentType
from ..core.errors import InvalidInput
from ..core.promotion import PromotionRequest
from ..core.scope_info import ScopeInfo
from ..core.scopes import ScopeKind
from ..services import documents, moves, review, scopes
from ..services.library import Library
from .move_dialog import move_targets, scope_label, visibility_labels, visibility_texts


@dataclass(frozen=True)
class RequestPreview:
    """What the dialog offers, loaded on a worker thread by :func:`load_request_preview`.

    Attributes:
        document_id / title: the document (or topic) to promote. topic: whether it is a topic; ``subtopics`` /
            ``atoms``: what it carries along (``moves.topic_carries``).
        source: the scope it is in. targets: the scopes above it (top of the tree first); ``default``: the one
            picked at first (its project, the service's default, else the scope just above).
        gains / loses: per target path, the scopes that would newly see / stop seeing it once approved.
    """

    document_id: str
    title: str
    source: ScopeInfo
    targets: tuple[ScopeInfo, ...]
    default: str
    gains: dict[str, tuple[ScopeInfo, ...]]
    loses: dict[str, tuple[ScopeInfo, ...]]
    topic: bool = False
    subtopics: int = 0
    atoms: int = 0


def load_request_preview(lib: Library, doc_id: str) -> RequestPreview:
    """Load what requesting the promotion of ``doc_id`` may ask for (runs on a worker thread).

    Refuses before any dialog what the service would refuse whatever the target, in its words.

    Raises:
        DocumentNotFound. InvalidInput: a folder, a document in the trash, a scope with none above it, or a request
        already waiting for review. InvalidTopic: a tree's root (it stays with its scope).
    """
    doc = documents.get_document(lib, doc_id)
    if doc.type == DocumentType.FOLDER:
        raise InvalidInput(f"“{doc.title}” is a folder: request the promotion of the documents inside it")
    if doc.status == DocumentStatus.DELETED:
        raise InvalidInput(f"“{doc.title}” is in the trash: restore it before asking for its promotion")
    every = scopes.list_scopes(lib, include_archived=True)
    by_path = {s.path: s for s in every}
    targets = tuple(move_targets(every, [doc.scope]).promote)
    pending = review.list_requests(lib, document_id=doc.id)
    if pending:
        raise InvalidInput(already_waiting_text(doc.title, pending[0], by_path))
    if not targets:
        raise InvalidInput(f"“{doc.title}” is in {scope_label(by_path[doc.scope])}, at the top of its branch: "
                           "there is no scope above it to promote it to")
    gains: dict[str, tuple[ScopeInfo, ...]] = {}
    loses: dict[str, tuple[ScopeInfo, ...]] = {}
    for target in targets:  # a few ancestors; a tree's root is refused here (InvalidTopic)
        change = moves.visibility_change(lib, [doc.id], target.path)
        gains[target.path] = tuple(by_path[p] for p in change.gains if p in by_path)
        loses[target.path] = tuple(by_path[p] for p in change.loses if p in by_path)
    project = next((t.path for t in targets if t.kind == ScopeKind.PROJECT), None)
    subtopics = atoms = 0
    if doc.type == DocumentType.TOPIC:
        subtopics, atoms = moves.topic_carries(lib, doc.id)
    return RequestPreview(doc.id, doc.title, by_path[doc.scope], targets, project or targets[-1].path, gains, loses,
                          topic=doc.type == DocumentType.TOPIC, subtopics=subtopics, atoms=atoms)


def already_waiting_text(title: str, request: PromotionRequest, by_path: dict[str, ScopeInfo]) -> str:
    """ "“Notes” already waits for review to Project: X (req_…): decide it in the Review queue"."""
    target = by_path.get(request.target_scope)
    where = scope_label(target) if target is not None else request.target_scope
    return f"“{title}” already waits for review to {where} ({request.id}): decide it in the Review queue"


def what_text(preview: RequestPreview) -> str:
    """ "“Title”" or "the topic “Herons” with 1 subtopic and 4 atoms"."""
    if not preview.topic:
        return f"“{preview.title}”"
    parts = [f"{n} {noun}{'s' if n != 1 else ''}" for n, noun in ((preview.subtopics, "subtopic"),
                                                                  (preview.atoms, "atom")) if n]
    return f"the topic “{preview.title}”" + (f" with {' and '.join(parts)}" if parts else "")


def requested_text(preview: RequestPreview, request: PromotionRequest, target: ScopeInfo, *, new: bool = True) -> str:
    """What a window says once the request is filed ("Requested the promotion of “X” to Project: Y: it waits in the
    review queue"), or that one was waiting already (``new`` False: asked twice, the service keeps the first)."""
    if not new:
        return f"“{preview.title}” already waited for review to {scope_label(target)} ({request.id})"
    return f"Requested the promotion of {what_text(preview)} to {scope_label(target)}: it waits in the review queue"


class RequestPromotionDialog(QDialog):
    """Where to ask for ``preview``'s document to go (the scopes above it), who would see it once approved, a reason.

    Accepting it means "file the request"; :meth:`target` is the scope path picked, :meth:`reason` the text shown
    to the reviewer.
    """

    def __init__(self, preview: RequestPreview, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.preview = preview
        self.setWindowTitle("Request promotion")
        self.setMinimumWidth(520)
        self.heading = QLabel(f"<b>{html.escape(f'Request the promotion of {what_text(preview)}?')}</b>")
        self.heading.setWordWrap(True)
        hint = QLabel("It goes to the review queue: nothing moves until the request is approved.")
        hint.setProperty("role", "hint")
        hint.setWordWrap(True)
        self.from_label = QLabel(scope_label(preview.source))
        self.target_box = QComboBox()
        for scope in preview.targets:
            self.target_box.addItem(f"↑ {scope_label(scope)}", scope.path)
            self.target_box.setItemData(self.target_box.count() - 1, scope.path, Qt.ItemDataRole.ToolTipRole)
        self.target_box.setCurrentIndex(max(0, self.target_box.findData(preview.default)))
        self.gains_label, self.loses_label = QLabel(), QLabel()
        for label in (self.from_label, self.gains_label, self.loses_label):
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.PlainText)  # scope names are the user's text
        self.reason_edit = QLineEdit()
        self.reason_edit.setPlaceholderText("Optional: why, shown to the reviewer")
        form = QFormLayout()
        form.addRow("From:", self.from_label)
        form.addRow("To:", self.target_box)
        count = 1 + preview.subtopics + preview.atoms
        gains_label, loses_label = visibility_labels(count)
        form.addRow(f"Once approved, {gains_label[0].lower()}{gains_label[1:]}", self.gains_label)
        form.addRow(loses_label, self.loses_label)
        form.addRow("Reason:", self.reason_edit)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.request_button = self.buttons.addButton("Request promotion", QDialogButtonBox.ButtonRole.AcceptRole)
        self.request_button.setDefault(True)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(hint)
        layout.addLayout(form)
        layout.addWidget(self.buttons)
        self.target_box.currentIndexChanged.connect(lambda _i: self._show_visibility())
        self._show_visibility()
        self.reason_edit.setFocus()

    def target(self) -> str:
        """The scope path picked."""
        return self.target_box.currentData()

    def target_scope(self) -> ScopeInfo:
        """The scope picked."""
        return next(s for s in self.preview.targets if s.path == self.target())

    def reason(self) -> str:
        """The reason typed (stripped; may be empty)."""
        return self.reason_edit.text().strip()

    def _show_visibility(self) -> None:
        path, preview = self.target(), self.preview
        gains, loses = visibility_texts(preview.gains[path], preview.loses[path],
                                        1 + preview.subtopics + preview.atoms)
        self.gains_label.setText(gains)
        self.loses_label.setText(loses)
        self.loses_label.setProperty("role", "warning" if preview.loses[path] else "")
        self.loses_label.style().unpolish(self.loses_label)
        self.loses_label.style().polish(self.loses_label)
