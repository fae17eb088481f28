"""The document pane: picks a sub-viewer for a document and turns every failure into a message.

A bad file (missing, damaged, encrypted, binary) must never take the window down: each sub-viewer
raises the core's typed errors and this widget shows them as readable text in its own area.
Sub-viewers are created on first use, so opening the app costs nothing for viewers not needed yet.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QAbstractScrollArea, QLabel, QStackedWidget, QVBoxLayout, QWidget

from ...core.documents import DocumentInfo
from ...core.errors import DamagedFile, EmptyFile, EncryptedPdf, UnsupportedFile, VancetopeError
from ...core.reading import READING_STATUS_KEY
from ...services.notelinks import link_problem_text
from .. import dialogs
from ..elided_label import ElidedLabel
from .change_bar import ChangeBar
from .data_viewer import DataViewer
from .image_viewer import ImageViewer
from .kinds import ViewKind, choose_view, file_name, is_editable
from .markdown_viewer import MarkdownViewer
from .message import MessageView
from .pdf_viewer import PdfViewer
from .rendering import MAX_RENDER_CHARS
from .text_files import read_text_file
from .text_viewer import TextViewer

log = logging.getLogger(__name__)

_Viewer = PdfViewer | MarkdownViewer | TextViewer | DataViewer | ImageViewer


class DocumentViewer(QWidget):
    """Shows one document: PDF, markdown (editable for typed notes), text/code, data, image or a message.

    Signals:
        save_requested(str, str): ``(document id, new text)`` when the user saves an edited note.
            The owner saves it (``services.documents.update_document``) and calls
            :meth:`show_document` again with the updated document.
        status_changed(str): short messages for a status bar.
        annotations_wanted(str): a PDF was opened (its id): the owner hands its annotations to
            :meth:`set_annotations` (``services.annotations.list_annotations``).
        annotation_requested(str, AnnotationRequest): ``(PDF id, change)`` the user asked for in the PDF
            viewer; the owner runs it and hands the new list to :meth:`set_annotations`.
        wikilink_activated(str, str): ``(document id, link inside)``: a ``[[…]]`` link of a note was clicked.
        compare_requested(str, str, int): ``(document id, draft, version the draft was made on)``: the note
            changed elsewhere while edited and the user asked to compare; the owner opens the conflict dialog
            (``services.edit_merge.conflict_sides``) and saves what is chosen.
        pdf_opened(DocumentInfo): a PDF document was opened, e.g. to mark it as being read.
        annotations_export_requested(DocumentInfo): the user asked to export the shown PDF's annotations.
    """

    save_requested = Signal(str, str)
    compare_requested = Signal(str, str, int)
    status_changed = Signal(str)
    annotations_wanted = Signal(str)
    annotation_requested = Signal(str, object)
    wikilink_activated = Signal(str, str)
    pdf_opened = Signal(object)
    annotations_export_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title_label = ElidedLabel()  # a long title must not widen the window
        self.title_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self.title_label.font()
        font.setBold(True)
        self.title_label.setFont(font)
        self.title_label.setContentsMargins(6, 4, 6, 4)
        self.notice_label = QLabel()
        self.notice_label.setWordWrap(True)
        self.notice_label.setStyleSheet("QLabel { background: palette(alternate-base); padding: 4px 8px; }")
        self.change_bar = ChangeBar()
        self.stack = QStackedWidget()
        self.message = MessageView()
        self.stack.addWidget(self.message)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.title_label)
        layout.addWidget(self.notice_label)
        layout.addWidget(self.change_bar)
        layout.addWidget(self.stack, 1)
        self.message.password_entered.connect(self._unlock)
        self.change_bar.reload_requested.connect(self._ask_reload)
        self.change_bar.compare_requested.connect(self._compare_pending)
        self._pending: DocumentInfo | None = None  # a newer state of the document, waiting for the editor
        self._viewers: dict[type[QWidget], _Viewer] = {}
        self._doc: DocumentInfo | None = None
        self._kind: ViewKind | None = None
        self._request: tuple[int | None, str | None] = (None, None)
        self._read_only = False
        self._dark = False
        self.clear()

    # -- public API ----------------------------------------------------------------------------------

    def show_document(self, doc: DocumentInfo, *, page: int | None = None, highlight: str | None = None,
                      read_only: bool = False) -> None:
        """Show ``doc``, at ``page`` (1-based, PDFs) with ``highlight`` (a passage or query words) marked.

        ``read_only``: no Edit for a typed note (a document of another scope, read-only from here).

        Showing the same unchanged PDF again only moves to the page and highlight (no reload).
        A draft in the note editor is dropped: ask :meth:`has_unsaved_changes` first.
        """
        same_pdf = self._is_open_pdf(doc)
        self._pending = None
        self.change_bar.hide()
        self._doc, self._kind, self._request = doc, choose_view(doc), (page, highlight)
        self._read_only = read_only
        self._set_title(doc)
        self.title_label.show()
        if same_pdf:
            pdf = self._viewer(PdfViewer)
            if page is not None:
                pdf.go_to_page(page)
            if highlight and highlight.strip():
                pdf.highlight(highlight, page=page)
            return
        self._set_notes([])
        self._release()  # close the previous PDF / drop the previous table before reading the next file
        try:
            self._set_notes(self._show(doc, self._kind, page, highlight))
        except EncryptedPdf:
            self._show_message("This PDF is protected by a password",
                               f"{file_name(doc)}: enter the password to open it.", ask_password=True)
        except Exception as exc:  # the viewer must survive any file; unexpected errors are logged
            self._show_failure(doc, exc)

    def follow(self, doc: DocumentInfo) -> None:
        """Take ``doc``, the document shown as it is now in the library (after an undo, a redo, another
        process's change, a rename, a relink), and show it if what is shown changed.

        The view stays where it was where it can (the PDF page, the scroll position). While the note is
        being edited the draft is kept, the heading shows the new title, and :attr:`change_bar` offers Compare…
        (the conflict dialog) or Reload (after a confirmation when the draft has changes).
        A ``doc`` of another id, or with nothing shown changed, is ignored.
        """
        shown = self._doc
        if shown is None or shown.id != doc.id or _shown_state(shown) == _shown_state(doc):
            return
        if self.is_editing():
            self._pending = doc
            self._set_title(doc)  # the tab shows the new title at once: so does the heading
            self.change_bar.show()
            return
        if self._kind is ViewKind.PDF and choose_view(doc) is ViewKind.PDF and (
                shown.file_path, shown.content_hash) == (doc.file_path, doc.content_hash):
            # the pages show the file only (a metadata edit makes a version too): keep the view, its find, marks
            self._doc = doc
            self._set_title(doc)
            return
        self._reload(doc)

    def _set_title(self, doc: DocumentInfo) -> None:
        self.title_label.setText(doc.title)
        self.title_label.setToolTip(f"{doc.title}\n{doc.file_path}" if doc.file_path else doc.title)

    def is_editing(self) -> bool:
        """Whether the note editor is open."""
        markdown = self._viewers.get(MarkdownViewer)
        return (isinstance(markdown, MarkdownViewer) and self.stack.currentWidget() is markdown
                and markdown.is_editing())

    def _reload(self, doc: DocumentInfo) -> None:
        pdf = self._viewers.get(PdfViewer)
        if isinstance(pdf, PdfViewer) and self.stack.currentWidget() is pdf:
            self.show_document(doc, page=pdf.current_page() or None, read_only=self._read_only)
            return
        area = self.stack.currentWidget().findChild(QAbstractScrollArea)
        position = area.verticalScrollBar().value() if area is not None else 0
        self.show_document(doc, read_only=self._read_only)
        area = self.stack.currentWidget().findChild(QAbstractScrollArea)
        if area is not None:
            area.verticalScrollBar().setValue(position)

    def _ask_reload(self) -> None:
        """Reload asked from the bar: a draft with changes is dropped only once the user agreed."""
        if self.has_unsaved_changes() and not dialogs.confirm(
                self, "Drop your draft?", "Reload shows the document as it is now: your unsaved draft will be "
                "lost, and Undo cannot bring it back. Drop it? (Compare… keeps it and shows both.)"):
            return
        self._reload_pending()

    def _reload_pending(self) -> None:
        pending, self._pending = self._pending, None
        self.change_bar.hide()
        if pending is not None:
            self._reload(pending)  # leaves edit mode: the draft is dropped, as asked

    def _compare_pending(self) -> None:
        """Compare asked from the bar: the draft, and the version it was made on, go to the owner's dialog."""
        markdown = self._viewers.get(MarkdownViewer)
        if self._doc is None or not isinstance(markdown, MarkdownViewer) or not markdown.is_editing():
            return
        self.compare_requested.emit(self._doc.id, markdown.editor.toPlainText(), self._doc.version)

    def _editing_changed(self, editing: bool) -> None:
        if editing or self._pending is None:
            return
        markdown = self._viewers.get(MarkdownViewer)
        cancelled = (isinstance(markdown, MarkdownViewer) and self._doc is not None
                     and markdown.text() == (self._doc.content or ""))
        if cancelled:  # the draft was dropped: show what changed meanwhile
            self._reload_pending()
        else:  # saved: made on the older version, the save opens the conflict dialog; its answer is shown next
            self._pending = None
            self.change_bar.hide()

    def _is_open_pdf(self, doc: DocumentInfo) -> bool:
        """Whether ``doc`` is the PDF already open and unchanged (same id and modification time)."""
        shown = self._doc
        return (shown is not None and self._kind is ViewKind.PDF and shown.id == doc.id
                and shown.updated_at == doc.updated_at and shown.file_path == doc.file_path
                and self.stack.currentWidget() is self._viewers.get(PdfViewer))

    def clear(self) -> None:
        """Show nothing (no document selected) and release the sub-viewers' files."""
        self._doc, self._kind, self._request = None, None, (None, None)
        self._pending = None
        self.change_bar.hide()
        self._release()
        self.title_label.clear()
        self.title_label.hide()
        self._set_notes([])
        self._show_message("No document selected", "Choose a document to see it here.")

    def current_document_id(self) -> str | None:
        """The id of the document shown, or None."""
        return self._doc.id if self._doc is not None else None

    def current_document(self) -> DocumentInfo | None:
        """The document shown (as it was when shown), or None."""
        return self._doc

    def current_widget(self) -> QWidget:
        """The sub-viewer (or message view) currently visible."""
        return self.stack.currentWidget()

    def viewer(self, kind: type[_Viewer]) -> _Viewer | None:
        """The sub-viewer of that class if it has been created (for tests and the main window)."""
        return self._viewers.get(kind)

    def has_unsaved_changes(self) -> bool:
        """Whether the note editor holds unsaved text."""
        markdown = self._viewers.get(MarkdownViewer)
        return isinstance(markdown, MarkdownViewer) and markdown.has_unsaved_changes()

    def set_dark(self, dark: bool) -> None:
        """Re-render code and markdown colours for a dark (or light) theme; PDF pages stay white."""
        self._dark = dark
        for viewer in self._viewers.values():
            if isinstance(viewer, MarkdownViewer | TextViewer):
                viewer.set_dark(dark)

    def is_dark(self) -> bool:
        """Whether dark-theme colours are in use."""
        return self._dark

    # -- choosing and filling a sub-viewer -------------------------------------------------------------

    def _show(self, doc: DocumentInfo, kind: ViewKind, page: int | None, highlight: str | None) -> list[str]:
        if kind is ViewKind.FOLDER:
            self._show_message(f"📁 {doc.title}", "A folder: its documents are listed in the library tree.")
            return []
        path = Path(doc.file_path) if doc.file_path else None
        if path is not None and not path.is_file():
            raise FileNotFoundError(f"The stored file {path} is missing")
        if kind is ViewKind.PDF and path is not None:
            notes = self._activate(PdfViewer).open(path, page=page, highlight=highlight)
            self._pdf_opened(doc)
            return notes
        if kind is ViewKind.MARKDOWN:
            source = read_text_file(path) if path is not None else None
            text = source.text if source is not None else doc.content or ""
            notes = source.notes if source is not None else []
            if len(text) > MAX_RENDER_CHARS:
                return [*notes, "Too long to render: shown as markdown source.",
                        *self._activate(TextViewer).show_text(text, file_name="note.md", highlight=highlight)]
            editable = source is None and is_editable(doc) and not self._read_only
            problems = link_problem_text(doc.metadata) if source is None else None
            return notes + ([problems] if problems else []) + self._activate(MarkdownViewer).show_markdown(
                text, document_id=doc.id, editable=editable, highlight=highlight)
        if kind is ViewKind.DATA and path is not None:
            try:
                return self._activate(DataViewer).open(path)
            except DamagedFile as exc:  # not parseable: the text is still worth seeing
                return [str(exc), *self._show_text_file(doc, path, highlight)]
        if kind is ViewKind.IMAGE and path is not None:
            return self._activate(ImageViewer).open(path)
        if kind is ViewKind.TEXT:
            if path is not None:
                return self._show_text_file(doc, path, highlight)
            return self._activate(TextViewer).show_text(doc.content or "", highlight=highlight)
        if doc.content:
            return ["No preview for this kind of file: showing its extracted text.",
                    *self._activate(TextViewer).show_text(doc.content, highlight=highlight)]
        raise UnsupportedFile(f"No preview for {file_name(doc)} ({doc.mime_type})")

    def _show_text_file(self, doc: DocumentInfo, path: Path, highlight: str | None) -> list[str]:
        source = read_text_file(path)
        language = doc.metadata.get("language")
        notes = self._activate(TextViewer).show_text(source.text, file_name=file_name(doc),
                                                     language=language if isinstance(language, str) else None,
                                                     highlight=highlight)
        return source.notes + notes

    def _activate(self, kind: type[_Viewer]) -> _Viewer:
        viewer = self._viewer(kind)
        self.stack.setCurrentWidget(viewer)
        return viewer

    def _viewer(self, kind: type[_Viewer]) -> _Viewer:
        viewer = self._viewers.get(kind)
        if viewer is None:
            viewer = kind()
            if isinstance(viewer, MarkdownViewer | TextViewer):
                viewer.set_dark(self._dark)
            if isinstance(viewer, MarkdownViewer):
                viewer.save_requested.connect(self.save_requested)
                viewer.wikilink_activated.connect(self.wikilink_activated)
                viewer.editing_changed.connect(self._editing_changed)
            if isinstance(viewer, PdfViewer):
                viewer.status_changed.connect(self.status_changed)
                viewer.annotator.requested.connect(self._annotation_requested)
                viewer.annotator.panel.export_button.clicked.connect(self._export_annotations)
            self._viewers[kind] = viewer
            self.stack.addWidget(viewer)
        return viewer

    def _release(self) -> None:
        for viewer in self._viewers.values():
            if isinstance(viewer, PdfViewer):
                viewer.close_document()
            elif isinstance(viewer, DataViewer | ImageViewer):
                viewer.clear()

    # -- messages ---------------------------------------------------------------------------------------

    def _show_message(self, title: str, detail: str = "", *, body: str | None = None,
                      ask_password: bool = False) -> None:
        self.message.show_message(title, detail, body=body, ask_password=ask_password)
        self.stack.setCurrentWidget(self.message)

    def _show_failure(self, doc: DocumentInfo, exc: Exception) -> None:
        self._release()
        if isinstance(exc, FileNotFoundError):
            title = "The stored file is missing"
        elif isinstance(exc, EmptyFile):
            title = "This document is empty"
        elif isinstance(exc, UnsupportedFile):
            title = "No preview for this file"
        elif isinstance(exc, VancetopeError | OSError):
            title = "This file cannot be shown"
        else:
            log.exception("viewer failed on document %s", doc.id)
            title = "Something went wrong showing this document"
        detail = str(exc) or type(exc).__name__
        body = doc.content or None
        if body:
            detail += "\nIts extracted text is shown below."
        self._show_message(title, detail, body=body)
        self.status_changed.emit(f"{doc.title}: {title.lower()}")

    def set_annotations(self, doc_id: str, items: list) -> None:
        """Show ``items`` (``services.annotations.Annotation``) over the PDF ``doc_id`` if it is still shown."""
        pdf = self._viewers.get(PdfViewer)
        if isinstance(pdf, PdfViewer) and self._kind is ViewKind.PDF and self.current_document_id() == doc_id:
            pdf.annotator.set_annotations(items)

    def annotation_failed(self, doc_id: str, reason: str) -> None:
        """A change asked for on the PDF ``doc_id`` was not saved (``reason``): the highlight drawn at once
        goes, with a message."""
        pdf = self._viewers.get(PdfViewer)
        if isinstance(pdf, PdfViewer) and self._kind is ViewKind.PDF and self.current_document_id() == doc_id:
            pdf.annotator.drop_pending(reason)

    def _pdf_opened(self, doc: DocumentInfo) -> None:
        pdf = self._viewer(PdfViewer)
        assert isinstance(pdf, PdfViewer)
        pdf.annotator.set_read_only(self._read_only)
        self.annotations_wanted.emit(doc.id)
        self.pdf_opened.emit(doc)

    def _export_annotations(self) -> None:
        if self._doc is not None and self._kind is ViewKind.PDF:
            self.annotations_export_requested.emit(self._doc)

    def _annotation_requested(self, request: object) -> None:
        if self._doc is not None and self._kind is ViewKind.PDF and not self._read_only:
            self.annotation_requested.emit(self._doc.id, request)

    def _set_notes(self, notes: list[str]) -> None:
        self.notice_label.setText("\n".join(notes))
        self.notice_label.setVisible(bool(notes))

    def _unlock(self, password: str) -> None:
        doc = self._doc
        if doc is None or doc.file_path is None:
            return
        page, highlight = self._request
        try:
            self._activate(PdfViewer).open(doc.file_path, page=page, highlight=highlight, password=password)
            self._pdf_opened(doc)
        except EncryptedPdf:
            self._show_message("This PDF is protected by a password", "Wrong password. Try again.",
                               ask_password=True)
        except Exception as exc:
            self._show_failure(doc, exc)


def _shown_state(doc: DocumentInfo) -> tuple:
    """What of ``doc`` the viewer shows: a change to any of it reloads the tab. The reading status is left
    out: opening a PDF marks it as being read, which must not reload it."""
    metadata = {key: value for key, value in doc.metadata.items() if key != READING_STATUS_KEY}
    return doc.version, doc.title, doc.content, doc.file_path, doc.mime_type, metadata
