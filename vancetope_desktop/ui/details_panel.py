"""The details panel (like Zotero's item pane): everything about the selected document, editable in place.

A pure widget: :meth:`DetailsPanel.show_document` and :meth:`DetailsPanel.set_versions` feed it
plain values; edits leave as signals carrying the document id, and the main window calls
``services.documents`` and shows the refreshed document again. Documents inherited from an ancestor
scope, or shared by a sibling think process, are shown read-only: their fields lose their box
(:data:`READ_ONLY_STYLE`), so they read as text rather than as inputs.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..core.documents import DocumentInfo, DocumentType, IndexState, SourceType, VersionInfo
from ..core.memories import WRITTEN_BY_LIBRARY
from ..core.promotion import AuditEntry, PromotionRequest
from ..core.units import format_size
from ..services.relations import DocumentLinks, LinkedDocument
from .archived_view import ArchivedNotice
from .backlinks_view import BacklinksView
from .history_text import request_rows, trail_rows, version_origins
from .memory_type_picker import MemoryTypePicker
from .relations_view import RelationsView
from .review_model import actor_label
from .scope_text import ScopeRelation, read_only_note
from .source_atoms_view import SourceAtomsView
from .source_profile_view import ProfileSection
from .tag_chips import TagChipsEditor

STANDARD_FIELDS = ("authors", "year", "doi", "journal")
"""Bibliographic fields offered on files and references even when empty, in this order."""

HIDDEN_KEYS = frozenset({"title", "title_from_content", "file_suffix", "ocr_pages", "keys", "derived_from",
                         "listed_in", "attachments", "abstract", "entry_types", "links_to", "link_problems",
                         "link_titles", "reading_status", "superseded_by", "profile"})
"""Metadata the form does not show as fields: ``title`` is the extracted one (the document title is above);
``derived_from``, ``listed_in`` and ``attachments`` show as links (:data:`LINK_ROWS`); a reference's
``abstract`` is its text, shown in the viewer; ``entry_types`` is a count per type, not a value to edit;
``links_to`` shows as links, ``link_problems`` in the viewer (``link_titles`` is bookkeeping),
``reading_status`` in the list's row menu; ``superseded_by`` (``services.lifecycle``) in the archived notice
at the top (and in the history); a source's ``profile`` in the Summary section (``ui.source_profile_view``)."""

LINK_ROWS = {"listed_in": "Listed in", "attachments": "Attachments", "entries": "Entries",
             "attached_to": "Reference", "links_to": "Links to"}
"""Rows of links to related documents (``services.relations.DocumentLinks``), by field, with their labels."""
MAX_ENTRY_LINKS = 5
"""A bibliography's entries shown as links; the rest are counted ("… 494 more")."""

DERIVED_KEYS = frozenset({"page_count", "item_count", "file_size", "source_path", "import_warnings", "node_type",
                          "entry_count"})
"""Facts measured from the file or its import: shown, not editable."""

LIST_SEPARATOR = "; "


def display_value(key: str, value: object) -> str:
    """A metadata value as a field shows it: sizes in KB/MB (:func:`~..core.units.format_size`), the rest
    by :func:`format_value`."""
    if key == "file_size" and isinstance(value, int | float) and not isinstance(value, bool):
        return format_size(value)
    return format_value(value)


_TYPE_NAMES = {
    DocumentType.NOTE: "Note", DocumentType.FILE: "File", DocumentType.RESULT: "Result",
    DocumentType.FACT: "Fact", DocumentType.EVENT: "Event", DocumentType.PLAN: "Plan",
    DocumentType.REFERENCE: "Reference", DocumentType.STRUCTURED: "Structured data",
    DocumentType.FOLDER: "Folder", DocumentType.ANNOTATION: "Annotation", DocumentType.TOPIC: "Topic",
}
_STATE_TEXT = {
    IndexState.PENDING: "Waiting to be indexed",
    IndexState.INDEXED: "Indexed",
    IndexState.FAILED: "Indexing failed",
    IndexState.NEEDS_OCR: "Needs OCR: some pages have no text layer",
    IndexState.NOT_INDEXED: "Not indexed",
}
_SOURCE_TEXT = {
    SourceType.USER_UPLOAD: "Uploaded by the user",
    SourceType.TOOL_OUTPUT: "Tool output",
    SourceType.MANUAL: "Written in the app",
    SourceType.THINK_PROCESS_RESULT: "Think process result",
}
_INTEGER = re.compile(r"[+-]?\d+")


def field_label(key: str) -> str:
    """Form label of a metadata key: ``doi`` → ``DOI``, ``page_count`` → ``Page count``."""
    return {"doi": "DOI", "isbn": "ISBN", "url": "URL"}.get(key, key.replace("_", " ").capitalize())


def format_value(value: Any) -> str:
    """Metadata value as form text: lists joined with ``"; "``, None as empty."""
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return LIST_SEPARATOR.join(str(v) for v in value)
    return str(value)


def parse_value(text: str, original: Any, key: str) -> Any:
    """Form text back to a metadata value shaped like ``original``.

    Lists (and ``authors``) split on ``;``; integers (and ``year``) become int when the text is one,
    floats become float when they parse; empty text is None (the field was cleared).
    """
    text = text.strip()
    if not text:
        return None
    if isinstance(original, list | tuple) or (original is None and key == "authors"):
        return [part.strip() for part in text.split(";") if part.strip()]
    if (isinstance(original, int) and not isinstance(original, bool)) or (original is None and key == "year"):
        return int(text) if _INTEGER.fullmatch(text) else text
    if isinstance(original, float):
        try:
            return float(text)
        except ValueError:
            return text
    return text


def _is_shown(value: Any) -> bool:
    scalar = (str, int, float, bool)
    return value is None or isinstance(value, scalar) or (
        isinstance(value, list | tuple) and all(isinstance(v, scalar) for v in value))


def _date(value: datetime) -> str:
    local = value.astimezone() if value.tzinfo is not None else value
    return local.strftime("%Y-%m-%d %H:%M")


def _value_label() -> QLabel:
    label = QLabel()
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    return label


def _link_label(activated: Any) -> QLabel:
    """A value label showing rich-text links to documents; a click emits ``activated(doc_id)``."""
    label = _value_label()
    label.setTextFormat(Qt.TextFormat.RichText)
    label.linkActivated.connect(activated)
    return label


def _typing(field: QLineEdit) -> bool:
    """True while the user has unsent changes in ``field`` (a refresh must not overwrite them)."""
    return field.hasFocus() and field.isModified()


READ_ONLY_STYLE = "QLineEdit:read-only { background: transparent; border: none; }"
"""The panel's own style rule: a read-only field has no box, so it reads as text, not as an input. A
style sheet rather than a palette: under the application's style sheet Qt paints line edits white
whatever their palette says."""


def set_read_only(field: QLineEdit, read_only: bool) -> None:
    """``field.setReadOnly(read_only)``, and its look (:data:`READ_ONLY_STYLE`) follows."""
    if field.isReadOnly() == read_only:
        return
    field.setReadOnly(read_only)
    # The style sheet left its transparent palette on the field: polish again for the editable look.
    field.style().unpolish(field)
    field.style().polish(field)
    field.update()


def _heading(text: str) -> QLabel:
    label = QLabel(text)
    font = QFont(label.font())
    font.setBold(True)
    label.setFont(font)
    label.setContentsMargins(0, 8, 0, 0)
    return label


def _form() -> QFormLayout:
    form = QFormLayout()
    form.setContentsMargins(0, 0, 0, 0)
    form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
    form.setLabelAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
    return form


class DetailsPanel(QWidget):
    """The selected document: title, type, scope, folder, source, dates, metadata, tags, indexing, versions.

    Signals (all carry the document id first, except ``tag_clicked``):
        title_edited(str, str): new title (stripped, never blank).
        metadata_edited(str, dict): only the changed keys; a cleared field is None.
        tag_added(str, str), tag_removed(str, str): one tag each.
        tag_clicked(str): a chip was clicked (e.g. to filter by it).
        retry_requested(str): re-run indexing of a failed document.
        version_open_requested(str, int), version_restore_requested(str, int): a version number.
        document_link_activated(str): a "Derived from" link (a document id).
        request_link_activated(str): a pending request's "review" link in History (a request id).
        document_shown(str): a document was shown (again): its versions and history may be loaded.
        memory_type_edited(str, object): a note's memory type was picked (``feedback``…, None: none).
    """

    title_edited = Signal(str, str)
    metadata_edited = Signal(str, dict)
    tag_added = Signal(str, str)
    tag_removed = Signal(str, str)
    tag_clicked = Signal(str)
    retry_requested = Signal(str)
    version_open_requested = Signal(str, int)
    version_restore_requested = Signal(str, int)
    document_link_activated = Signal(str)
    request_link_activated = Signal(str)
    document_shown = Signal(str)
    memory_type_edited = Signal(str, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._doc: DocumentInfo | None = None
        self._derived_for: str | None = None
        self._links_for: str | None = None
        self._version_origins: dict[int, str] = {}
        self._read_only = False
        self.metadata_fields: dict[str, QLineEdit | QLabel] = {}
        self._metadata_values: dict[str, Any] = {}
        self._title_value = ""  # last title shown or sent: editingFinished repeats on focus-out

        self.empty_label = QLabel("No document selected")
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)

        body = QWidget()
        column = QVBoxLayout(body)
        column.setContentsMargins(8, 8, 8, 8)
        column.setSpacing(4)
        self._build_header(column)
        self.archived = ArchivedNotice()  # fed by the window (``ui.archived_view.ArchivedFlow``)
        self.archived.document_link_activated.connect(self.document_link_activated)
        column.addWidget(self.archived)
        self._build_info(column)
        # What a source is about, first: read before its fields; a topic clicked is a tag added.
        self.profile = ProfileSection()
        self.profile.topic_added.connect(lambda tag: self._emit_for_doc(self.tag_added, tag))
        column.addWidget(self.profile)
        self._build_metadata(column)
        self._build_tags(column)
        self._build_indexing(column)
        self._build_versions(column)
        self.relations = RelationsView()  # fed by the window (``ui.relations_view.RelationsFlow``)
        self.relations.document_link_activated.connect(self.document_link_activated)
        column.addWidget(self.relations)
        self.atoms = SourceAtomsView()  # fed by the window (``ui.source_atoms_view.SourceAtomsFlow``)
        self.atoms.document_link_activated.connect(self.document_link_activated)
        column.addWidget(self.atoms)
        self.backlinks = BacklinksView()  # fed by the window (``ui.notes_flow``)
        self.backlinks.document_link_activated.connect(self.document_link_activated)
        column.addWidget(self.backlinks)
        self._build_history(column)
        column.addStretch(1)

        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.scroll.setWidget(body)
        self._stack = QStackedWidget()
        self._stack.addWidget(self.empty_label)
        self._stack.addWidget(self.scroll)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._stack)
        self.setMinimumWidth(220)
        self.setStyleSheet(READ_ONLY_STYLE)
        self.show_document(None)

    # --- building ---

    def _build_header(self, column: QVBoxLayout) -> None:
        self.title_edit = QLineEdit()
        self.title_edit.setFrame(False)
        self.title_edit.setPlaceholderText("Title")
        self.title_edit.setAccessibleName("Title")
        font = QFont(self.title_edit.font())
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.title_edit.setFont(font)
        self.title_edit.editingFinished.connect(self._title_finished)
        self.inherited_label = QLabel()
        self.inherited_label.setWordWrap(True)
        self.inherited_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        italic = QFont(self.inherited_label.font())
        italic.setItalic(True)
        self.inherited_label.setFont(italic)
        column.addWidget(self.title_edit)
        column.addWidget(self.inherited_label)

    def _build_info(self, column: QVBoxLayout) -> None:
        form = _form()
        self.type_label = _value_label()
        self.scope_label = _value_label()
        self.folder_label = _value_label()
        self.file_label = _value_label()
        self.source_label = _value_label()
        self.created_label = _value_label()
        self.updated_label = _value_label()
        self.derived_label = _link_label(self.document_link_activated)
        self.memory_type = MemoryTypePicker()  # notes only: what the note is for as an agent memory
        self.memory_type.activated.connect(
            lambda _i: self._emit_for_doc(self.memory_type_edited, self.memory_type.memory_type()))
        # A reference's bibliography files and attachments, a bibliography's entries, a file's reference.
        self.link_labels = {key: _link_label(self.document_link_activated) for key in LINK_ROWS}
        self._info_form = form
        for name, label in (("Type", self.type_label), ("Memory type", self.memory_type),
                            ("Scope", self.scope_label), ("Folder", self.folder_label),
                            ("File", self.file_label), ("Source", self.source_label),
                            ("Derived from", self.derived_label),
                            *((LINK_ROWS[key], label) for key, label in self.link_labels.items()),
                            ("Created", self.created_label), ("Modified", self.updated_label)):
            form.addRow(name, label)
        column.addLayout(form)

    def _build_metadata(self, column: QVBoxLayout) -> None:
        self.metadata_heading = _heading("Metadata")
        self._metadata_form = _form()
        column.addWidget(self.metadata_heading)
        column.addLayout(self._metadata_form)

    def _build_tags(self, column: QVBoxLayout) -> None:
        self.tags_editor = TagChipsEditor()
        self.tags_editor.tag_added.connect(lambda tag: self._emit_for_doc(self.tag_added, tag))
        self.tags_editor.tag_removed.connect(lambda tag: self._emit_for_doc(self.tag_removed, tag))
        self.tags_editor.tag_clicked.connect(self.tag_clicked)
        column.addWidget(_heading("Tags"))
        column.addWidget(self.tags_editor)

    def _build_indexing(self, column: QVBoxLayout) -> None:
        self.index_label = _value_label()
        self.index_error_label = _value_label()
        self.retry_button = QPushButton("Retry import")
        self.retry_button.clicked.connect(lambda: self._emit_for_doc(self.retry_requested))
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.retry_button)
        row.addStretch(1)
        column.addWidget(_heading("Indexing"))
        column.addWidget(self.index_label)
        column.addWidget(self.index_error_label)
        column.addLayout(row)

    def _build_versions(self, column: QVBoxLayout) -> None:
        self.versions_heading = _heading("Versions")
        self.versions_list = QTreeWidget()
        self.versions_list.setColumnCount(4)
        self.versions_list.setHeaderLabels(["#", "Date", "Reason", "By"])
        self.versions_list.setRootIsDecorated(False)
        self.versions_list.setUniformRowHeights(True)
        self.versions_list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.versions_list.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.versions_empty = QLabel("No earlier versions")
        self.versions_empty.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.open_version_button = QPushButton("Open")
        self.restore_version_button = QPushButton("Restore")
        self.restore_version_button.setToolTip("Make this version current (the present state is kept as a version)")
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.open_version_button)
        row.addWidget(self.restore_version_button)
        row.addStretch(1)
        column.addWidget(self.versions_heading)
        column.addWidget(self.versions_empty)
        column.addWidget(self.versions_list)
        column.addLayout(row)
        self.versions_list.itemSelectionChanged.connect(self._update_version_buttons)
        self.versions_list.itemDoubleClicked.connect(lambda _item, _col: self._open_version())
        self.open_version_button.clicked.connect(self._open_version)
        self.restore_version_button.clicked.connect(self._restore_version)

    def _build_history(self, column: QVBoxLayout) -> None:
        self.history_heading = _heading("History")
        self.requests_label = _value_label()
        self.requests_label.setTextFormat(Qt.TextFormat.RichText)
        self.requests_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.requests_label.linkActivated.connect(
            lambda link: self.request_link_activated.emit(link.removeprefix("request:")))
        self.audit_label = _value_label()
        self.audit_label.setTextFormat(Qt.TextFormat.RichText)
        self.history_empty = QLabel("Not moved or reviewed yet")
        self.history_empty.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        for widget in (self.history_heading, self.history_empty, self.requests_label, self.audit_label):
            column.addWidget(widget)

    # --- public API ---

    def document(self) -> DocumentInfo | None:
        """The document shown, or None."""
        return self._doc

    def document_id(self) -> str | None:
        """Id of the document shown, or None."""
        return self._doc.id if self._doc is not None else None

    def is_read_only(self) -> bool:
        """True while a document of another scope is shown (no edits leave the panel)."""
        return self._read_only

    def show_document(self, doc: DocumentInfo | None, *, scope_label: str = "", inherited: bool = False,
                      folder_path: list[str] | None = None, relation: ScopeRelation | None = None) -> None:
        """Show a document, or the empty state for None.

        Args:
            doc: the document (from ``services.documents``).
            scope_label: how to name its scope (e.g. ``"Hypothesis Check (think-process/tp_12)"``);
                defaults to ``doc.scope``.
            inherited: the document lives in an ancestor of the current scope: shown read-only.
            folder_path: names of its folders from the top (``["Papers", "2024"]``); empty at top level.
            relation: how the document relates to the current scope (:func:`.scope_text.scope_relation`);
                when given it wins over ``inherited``. Any but OWN is shown read-only.
        """
        if relation is None:
            relation = ScopeRelation.INHERITED if inherited else ScopeRelation.OWN
        same_doc = doc is not None and self._doc is not None and doc.id == self._doc.id
        self._doc = doc
        self._read_only = doc is not None and relation.read_only
        if doc is None:
            self._stack.setCurrentWidget(self.empty_label)
            self.profile.show_document(None)
            self.tags_editor.set_tags([])
            self.set_versions([])
            self.set_history([], [])
            return
        self._stack.setCurrentWidget(self.scroll)
        if not same_doc:
            self.scroll.verticalScrollBar().setValue(0)
            self.tags_editor.reset_input()
        if not (same_doc and _typing(self.title_edit)):
            self.title_edit.setText(doc.title)
            self.title_edit.setCursorPosition(0)
        self._title_value = doc.title
        set_read_only(self.title_edit, self._read_only)
        self.title_edit.setToolTip(doc.title)
        scope = scope_label or doc.scope
        self.inherited_label.setText(read_only_note(scope, relation))
        self.inherited_label.setVisible(relation.read_only)
        self._show_info(doc, scope, folder_path or [])
        self._show_metadata(doc, same_doc)
        self.tags_editor.set_tags(list(doc.tags))
        self.tags_editor.set_read_only(self._read_only)
        self.profile.show_document(doc, read_only=self._read_only)
        self._show_indexing(doc)
        if not same_doc:
            self.set_versions([])
            self.set_history([], [])
            self.backlinks.set_backlinks(None)
        self._update_version_buttons()
        self.document_shown.emit(doc.id)

    def set_versions(self, versions: list[VersionInfo], scope_names: Mapping[str, str] | None = None,
                     me: str = "") -> None:
        """List the shown document's earlier versions (newest first), each with who made it; others' versions are
        ignored. ``scope_names`` name think processes, ``me`` is the current person's actor string ("… (you)")."""
        self.versions_list.clear()
        doc_id = self._doc.id if self._doc is not None else None
        mine = sorted((v for v in versions if v.document_id == doc_id), key=lambda v: v.number, reverse=True)
        self._version_origins = version_origins(mine, self._doc) if self._doc is not None else {}
        for version in mine:
            origin = self._version_origins[version.number]
            by = actor_label(version.created_by, scope_names or {}, me) or "—"
            item = QTreeWidgetItem([str(version.number), _date(version.created_at), origin, by])
            item.setToolTip(3, version.created_by or "not recorded (made before authors were kept)")
            item.setData(0, Qt.ItemDataRole.UserRole, version.number)
            item.setToolTip(2, f"{origin}, then {version.reason}")
            item.setTextAlignment(0, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.versions_list.addTopLevelItem(item)
        self._fit_versions_height(len(mine))
        self.versions_list.setVisible(bool(mine))
        self.versions_empty.setVisible(not mine)
        self.open_version_button.setVisible(bool(mine))
        self.restore_version_button.setVisible(bool(mine))
        self._update_version_buttons()

    def version_origin(self, number: int) -> str:
        """How version ``number`` of the shown document came about ("imported", "edited"…), as listed;
        "" when it is not listed."""
        return self._version_origins.get(number, "")

    def set_history(self, entries: list[AuditEntry], requests: list[PromotionRequest],
                    scope_names: Mapping[str, str] | None = None, me: str = "") -> None:
        """Show the shown document's audit trail, and its requests where they add to it (others' are ignored).

        Args:
            entries: its audit entries, oldest first (``services.audit.document_history``): listed once,
                newest first (:func:`.history_text.trail_rows`).
            requests: its requests (``services.review.list_requests(status=None, …)``): only a pending one
                (linking to the review queue) or a rejection whose reason the trail lacks is listed.
            scope_names: ``{path: name}`` to name scopes and think processes; me: the current user's
                actor string ("… (you)").
        """
        doc_id = self.document_id()
        names = scope_names or {}
        trail = [e for e in entries if e.document_id == doc_id]
        lines = request_rows([r for r in requests if r.document_id == doc_id], trail, names, me)
        self.requests_label.setText("<br>".join(lines))
        self.requests_label.setVisible(bool(lines))
        rows = trail_rows(trail, names, me)
        # One short paragraph per entry: wrapped entries stay apart from each other.
        self.audit_label.setText("".join(f'<p style="margin: 0 0 4px 0">{row}</p>' for row in rows))
        self.audit_label.setVisible(bool(rows))
        self.history_empty.setVisible(not lines and not rows)

    def _fit_versions_height(self, rows: int) -> None:
        # As tall as its rows (up to 6, then it scrolls): a fixed tall list wastes a narrow dock.
        row_height = self.versions_list.sizeHintForRow(0) if rows else 0
        header = self.versions_list.header().sizeHint().height()
        frame = 2 * self.versions_list.frameWidth()
        self.versions_list.setFixedHeight(header + frame + min(max(rows, 1), 6) * max(row_height, 1) + 2)

    def set_tag_colors(self, colors: Mapping[str, str]) -> None:
        """Configured tag colours ``{tag: "#rrggbb"}`` for the chips."""
        self.tags_editor.set_colors(colors)

    def set_tag_completions(self, tags: list[str]) -> None:
        """Known tags offered while typing a new tag."""
        self.tags_editor.set_completions(tags)

    def changeEvent(self, event: QEvent) -> None:
        """Re-pick the state colours when the palette switches between light and dark."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self._doc is not None:
            self._show_indexing(self._doc)

    # --- showing ---

    def _show_info(self, doc: DocumentInfo, scope: str, folder_path: list[str]) -> None:
        self.type_label.setText(_TYPE_NAMES.get(doc.type, doc.type.value) + self._type_suffix(doc))
        self.scope_label.setText(scope)
        self.scope_label.setToolTip(doc.scope)
        self.memory_type.set_memory_type(doc.memory_type)
        self.memory_type.setEnabled(not self._read_only and doc.memory_type not in WRITTEN_BY_LIBRARY)
        self._info_form.setRowVisible(self.memory_type, doc.type is DocumentType.NOTE)
        self.folder_label.setText(" / ".join(folder_path) if folder_path else "(top level)")
        # The stored copy is named by its hash: show the name the user knows, the stored path on hover.
        file_name = (doc.metadata.get("original_name") or Path(doc.file_path).name) if doc.file_path else ""
        self.file_label.setText(file_name)
        self.file_label.setToolTip(doc.file_path or "")
        self._info_form.setRowVisible(self.file_label, bool(file_name))
        self.source_label.setText(self._source_text(doc))
        if doc.id != self._derived_for:
            self.set_derived_from([])
        if doc.id != self._links_for:
            self.set_links(None)
        self.created_label.setText(_date(doc.created_at))
        self.updated_label.setText(_date(doc.updated_at) + (f" (version {doc.version})" if doc.version > 1 else ""))

    def set_derived_from(self, inputs: list[tuple[str, str]]) -> None:
        """Show the documents the current one was derived from as links (``(doc_id, title)`` pairs);
        clicking one emits ``document_link_activated(doc_id)``."""
        self._derived_for = self.document_id() if inputs else None
        links = "<br>".join(f'<a href="{html.escape(doc_id)}">{html.escape(title)}</a>' for doc_id, title in inputs)
        self.derived_label.setText(links)
        self._info_form.setRowVisible(self.derived_label, bool(inputs))

    def set_links(self, links: DocumentLinks | None) -> None:
        """Show the current document's bibliography links (``services.relations.document_links``) as links:
        the files listing a reference and its attachments, a bibliography's entries (the first
        :data:`MAX_ENTRY_LINKS`, then how many more), the references a file is attached to. None hides them."""
        self._links_for = self.document_id() if links is not None else None
        rows: dict[str, tuple[list[LinkedDocument], int]] = {
            "listed_in": (links.listed_in, 0) if links else ([], 0),
            "attachments": (links.attachments, 0) if links else ([], 0),
            "entries": (links.entries[:MAX_ENTRY_LINKS], links.entry_count) if links else ([], 0),
            "attached_to": (links.attached_to, 0) if links else ([], 0),
            "links_to": (links.links_to, 0) if links else ([], 0),
        }
        for key, (linked, total) in rows.items():
            text = "<br>".join(f'<a href="{html.escape(d.id)}">{html.escape(d.title)}</a>' for d in linked)
            if total > len(linked):
                text += f"<br>… {total - len(linked)} more ({total} references)"
            self.link_labels[key].setText(text)
            self._info_form.setRowVisible(self.link_labels[key], bool(linked))

    @staticmethod
    def _type_suffix(doc: DocumentInfo) -> str:
        if doc.type is DocumentType.FILE and doc.mime_type and doc.mime_type != "text/plain":
            return f" · {doc.mime_type}"
        return ""

    @staticmethod
    def _source_text(doc: DocumentInfo) -> str:
        source = doc.source
        text = _SOURCE_TEXT.get(source.type, source.type.value)
        details = []
        if source.think_process_id:
            details.append(f"think process {source.think_process_id}")
        if source.node_id:
            details.append(f"node {source.node_id}")
        return f"{text}: {', '.join(details)}" if details else text

    def _show_metadata(self, doc: DocumentInfo, same_doc: bool) -> None:
        metadata = doc.metadata
        keys: list[str] = []
        # A bibliography file has no authors or year of its own: its entries have (shown as links).
        bibliographic = doc.type is DocumentType.REFERENCE or (doc.type is DocumentType.FILE
                                                               and "entry_count" not in metadata)
        if bibliographic or any(k in metadata for k in STANDARD_FIELDS):
            keys.extend(STANDARD_FIELDS)
        keys.extend(k for k in sorted(metadata) if k not in STANDARD_FIELDS and k not in HIDDEN_KEYS
                    and _is_shown(metadata[k]))
        self._metadata_values = {k: metadata.get(k) for k in keys}
        if same_doc and keys == list(self.metadata_fields):
            # A refresh of the same document: update in place, so a field being typed in survives.
            for key, field in self.metadata_fields.items():
                text = display_value(key, metadata.get(key))
                if field.text() != text and not (isinstance(field, QLineEdit) and _typing(field)):
                    field.setText(text)
                    if isinstance(field, QLineEdit):
                        field.setCursorPosition(0)  # a long author list shows its start, as when first shown
                if isinstance(field, QLineEdit):
                    set_read_only(field, self._read_only)
            return
        old, self.metadata_fields = self.metadata_fields, {}
        for field in old.values():
            field.blockSignals(True)  # removal moves focus; a dying field must not report an edit
        while self._metadata_form.rowCount():
            self._metadata_form.removeRow(0)
        for key in keys:
            text = display_value(key, metadata.get(key))
            if key in DERIVED_KEYS:
                field: QLineEdit | QLabel = _value_label()
                field.setText(text)
            else:
                field = QLineEdit(text)
                field.setCursorPosition(0)
                set_read_only(field, self._read_only)
                field.setToolTip(text)
                if key == "authors":
                    field.setPlaceholderText("Last, First; Last, First")
                field.editingFinished.connect(lambda key=key: self._metadata_finished(key))
            self._metadata_form.addRow(field_label(key), field)
            self.metadata_fields[key] = field
        self.metadata_heading.setVisible(bool(keys))

    def _show_indexing(self, doc: DocumentInfo) -> None:
        state = doc.index_state
        self.index_label.setText(_STATE_TEXT.get(state, state.value))
        problem = state in (IndexState.FAILED, IndexState.NEEDS_OCR)
        error = doc.index_error or ""
        self.index_error_label.setText(error)
        self.index_error_label.setVisible(bool(error))
        # A state colour, chosen per palette so it stays readable on light and dark windows.
        dark = self.palette().color(QPalette.ColorRole.Window).lightnessF() < 0.5
        red = "#ff7b72" if dark else "#c62828"
        self.index_error_label.setStyleSheet(f"color: {red};" if problem else "")
        self.index_label.setStyleSheet(f"color: {red}; font-weight: bold;" if state is IndexState.FAILED else "")
        self.retry_button.setVisible(state is IndexState.FAILED)

    # --- edits ---

    def _emit_for_doc(self, signal: Any, *args: Any) -> None:
        if self._doc is not None and not self._read_only:
            signal.emit(self._doc.id, *args)

    def _title_finished(self) -> None:
        if self._doc is None or self._read_only:
            return
        new = self.title_edit.text().strip()
        if not new:  # a document always has a title: put the old one back
            self.title_edit.setText(self._title_value)
            return
        self.title_edit.setModified(False)
        if new != self._title_value:
            self._title_value = new
            self.title_edited.emit(self._doc.id, new)

    def _metadata_finished(self, key: str) -> None:
        field = self.metadata_fields.get(key)
        if self._doc is None or self._read_only or not isinstance(field, QLineEdit):
            return
        field.setModified(False)
        original = self._metadata_values.get(key)
        if field.text().strip() == format_value(original).strip():
            return
        value = parse_value(field.text(), original, key)
        self._metadata_values[key] = value  # editingFinished fires again on focus-out: emit once
        self.metadata_edited.emit(self._doc.id, {key: value})

    def _selected_version(self) -> int | None:
        items = self.versions_list.selectedItems()
        return int(items[0].data(0, Qt.ItemDataRole.UserRole)) if items else None

    def _update_version_buttons(self) -> None:
        selected = self._selected_version() is not None
        self.open_version_button.setEnabled(selected)
        self.restore_version_button.setEnabled(selected and not self._read_only)

    def _open_version(self) -> None:
        number = self._selected_version()
        if self._doc is not None and number is not None:
            self.version_open_requested.emit(self._doc.id, number)

    def _restore_version(self) -> None:
        number = self._selected_version()
        if number is not None:
            self._emit_for_doc(self.version_restore_requested, number)
