"""The detail of one promotion request in the Review pane: the document rendered, where it comes from, its tags and
inputs, who asked and why, and the side-by-side diff when approving would update an earlier copy."""

from __future__ import annotations

import html
from collections.abc import Mapping

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ..core.documents import DocumentType
from ..core.promotion import PromotionRequest
from .diff_view import DiffView
from .review_model import (
    ReviewDetails,
    age_text,
    local_time,
    requester_text,
    scope_name,
)
from .scope_text import name_scope_paths
from .tag_chips import TagChipsEditor
from .viewer.rendering import MAX_RENDER_CHARS, document_css, plain_text_html, render_markdown

_TEXT_TYPES = {DocumentType.NOTE, DocumentType.RESULT, DocumentType.FACT, DocumentType.EVENT, DocumentType.PLAN}


def kind_label(path: str) -> str:
    """``think-process/tp_12`` → ``think process``."""
    return path.split("/", 1)[0].replace("-", " ")


def hint(text: str = "") -> QLabel:
    """A word-wrapped label styled as a hint (``role=hint`` in the style sheets)."""
    label = QLabel(text)
    label.setProperty("role", "hint")
    label.setWordWrap(True)
    return label



class RequestDetailView(QWidget):
    """The selected request: header, provenance form, tags, inputs, and Content / Changes tabs.

    Signals:
        document_open_requested(str): a document id to open (the request's or an input's).
    """

    document_open_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.details: ReviewDetails | None = None
        self._names: dict[str, str] = {}
        self._rendered_names: dict[str, str] = {}  # the names the content and diff shown were made with
        self._me = ""
        self.title_label = QLabel()
        font = QFont(self.title_label.font())
        font.setPointSizeF(font.pointSizeF() * 1.2)
        font.setBold(True)
        self.title_label.setFont(font)
        self.title_label.setWordWrap(True)
        self.title_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_button = QPushButton("Open")
        self.open_button.setToolTip("Open the document in a tab")
        self.open_button.clicked.connect(self._open)
        self.update_label = QLabel()
        self.update_label.setProperty("role", "warning")
        self.update_label.setWordWrap(True)
        self.requested_label, self.route_label, self.source_label = QLabel(), QLabel(), QLabel()
        self.derived_label = QLabel()
        self.derived_label.linkActivated.connect(self.document_open_requested)
        for label in (self.requested_label, self.route_label, self.source_label, self.derived_label):
            label.setTextFormat(Qt.TextFormat.RichText)  # escaped text: "AutoText" would show the entities
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.tags_editor = TagChipsEditor()
        self.tags_editor.set_read_only(True)
        self.content_browser = QTextBrowser()
        self.content_browser.setOpenExternalLinks(True)
        self.diff_view = DiffView()
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.diff_view, "Changes")
        self.tabs.addTab(self.content_browser, "Content")
        self._build_layout()

    def _build_layout(self) -> None:
        header = QHBoxLayout()
        header.addWidget(self.title_label, 1)
        header.addWidget(self.open_button, 0, Qt.AlignmentFlag.AlignTop)
        self.form = QFormLayout()
        self.form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        for name, widget in (("Requested by", self.requested_label), ("Move", self.route_label),
                             ("Source", self.source_label), ("Tags", self.tags_editor),
                             ("Derived from", self.derived_label)):
            self.form.addRow(name, widget)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 4)
        layout.addLayout(header)
        layout.addWidget(self.update_label)
        layout.addLayout(self.form)
        layout.addWidget(self.tabs, 1)

    def set_context(self, scope_names: Mapping[str, str], me: str) -> None:
        """Scope names and the current user, to name actors and scopes."""
        self._names, self._me = dict(scope_names), me

    def show_request(self, request: PromotionRequest) -> None:
        """Show what the request itself says, at once (the document follows with :meth:`show_details`)."""
        names = self._names
        self.title_label.setText(request.title)
        asked, age = html.escape(requester_text(request, names, self._me)), age_text(request.created_at)
        reason = name_scope_paths(request.reason, names)
        why = f"“{html.escape(reason)}”" if reason else "<i>no reason given</i>"
        self.requested_label.setText(f"{asked}, {age if age == 'just now' else age + ' ago'}: {why}")
        self.requested_label.setToolTip(f"{request.requested_by}, {local_time(request.created_at)}")
        self.route_label.setText(f"{html.escape(scope_name(request.source_scope, names))} → "
                                 f"<b>{html.escape(scope_name(request.target_scope, names))}</b>")
        self.route_label.setToolTip(f"{request.source_scope} → {request.target_scope}")
        self.update_label.setVisible(False)
        if self.details is None or self.details.request.id != request.id:
            self.details = None
            self.source_label.setText(self._source_text(request, None))
            self.tags_editor.set_tags([])
            self._set_derived([])
            self.content_browser.setHtml("<p><i>Loading…</i></p>")
            self.tabs.setTabVisible(0, False)

    def show_details(self, details: ReviewDetails) -> None:
        """Show the loaded document: tags, inputs, content, and the diff for an update."""
        # The same details again (after most refreshes of the window): the rendered content and diff stand.
        same = details == self.details and self._names == self._rendered_names
        self.details, self._rendered_names = details, dict(self._names)
        request, doc = details.request, details.document
        self.show_request(request)
        self.source_label.setText(self._source_text(request, details))
        self.tags_editor.set_tags(list(doc.tags) if doc else [])
        self._set_derived(details.derived_from)
        if not same:
            self._render_content()
        target = details.updates
        updating = target is not None and doc is not None
        self.tabs.setTabVisible(0, updating)
        if updating:
            where = html.escape(scope_name(target.scope, self._names))
            retitled = f" (now titled “{html.escape(target.title)}”)" if target.title != doc.title else ""
            self.update_label.setText(f"Updates the copy already in {where}{retitled}: approving makes it "
                                      f"version {target.version + 1} and trashes this copy.")
            self.update_label.setVisible(True)
            if not same:
                self.diff_view.set_texts(target.content or "", doc.content or "", rows=details.diff_rows,
                                         old_label=f"Now in {scope_name(target.scope, self._names)} "
                                                   f"(v{target.version})",
                                         new_label=f"Proposed from {scope_name(doc.scope, self._names)}")
            self.tabs.setCurrentIndex(0)
        else:
            self.tabs.setCurrentIndex(1)

    def _source_text(self, request: PromotionRequest, details: ReviewDetails | None) -> str:
        doc = details.document if details else None
        if doc is None and details is not None:
            return "<i>The document no longer exists.</i>"
        tp = request.think_process
        parts = []
        if tp:
            parts.append(f"{html.escape(scope_name(tp, self._names))} <span>({html.escape(tp)})</span>")
        else:
            parts.append(html.escape(scope_name(request.source_scope, self._names)))
        if doc is not None and doc.source.node_id:
            parts.append(f"node <code>{html.escape(doc.source.node_id)}</code>")
        if doc is not None and doc.metadata.get("node_type"):
            parts.append(html.escape(str(doc.metadata["node_type"])))
        return " · ".join(parts)

    def _set_derived(self, inputs: list[tuple[str, str]]) -> None:
        links = "<br>".join(f'<a href="{html.escape(i)}">{html.escape(t)}</a>' for i, t in inputs)
        self.derived_label.setText(links)
        self.form.setRowVisible(self.derived_label, bool(inputs))

    def _render_content(self) -> None:
        doc = self.details.document if self.details else None
        browser = self.content_browser
        dark = self.palette().color(QPalette.ColorRole.Window).lightnessF() < 0.5
        browser.document().setDefaultStyleSheet(document_css(dark))
        if doc is None:
            browser.setHtml("<p><i>The document was deleted: approve is not possible, reject it.</i></p>")
        elif doc.content is None:
            browser.setHtml(f"<p><i>A file ({html.escape(doc.mime_type)}): open it to read it.</i></p>")
        elif doc.type in _TEXT_TYPES and len(doc.content) <= MAX_RENDER_CHARS:
            browser.setHtml(render_markdown(doc.content, dark=dark).html)
        else:
            browser.setHtml(plain_text_html(doc.content))

    def _open(self) -> None:
        if self.details is not None and self.details.document is not None:
            self.document_open_requested.emit(self.details.document.id)

    def changeEvent(self, event: QEvent) -> None:
        """Re-render the content with the new theme's colours."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.details is not None:
            self._render_content()
