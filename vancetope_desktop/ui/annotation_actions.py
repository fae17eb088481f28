"""The window's side of PDF annotations: runs what a viewer asks for (``services.annotations``) on the
workbench's lanes and hands each viewer its PDF's annotations; an annotation opened from search or a list
opens its PDF at its place instead."""

from __future__ import annotations

from pathlib import Path

import shiboken6
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QWidget

from ..core.documents import ANNOTATES, DocumentInfo, DocumentType
from ..services import annotations
from .viewer import DocumentViewer
from .viewer.pdf_annotations import AnnotationRequest
from .workbench import Workbench


def annotation_target(doc: DocumentInfo) -> tuple[str, int, str | None] | None:
    """For an annotation: ``(PDF id, page, quote to find)`` to open instead of its text; None for other documents."""
    if doc.type is not DocumentType.ANNOTATION or not doc.metadata.get(ANNOTATES):
        return None
    quote = doc.metadata.get("quote") or None
    return str(doc.metadata[ANNOTATES]), int(doc.metadata.get("page") or 1), quote


EXPORT_FILTERS = "Markdown (*.md);;PDF with its annotations (*.pdf)"
"""The file types Export Annotations offers (``annotations.export_to_file`` picks by suffix)."""


def _file_stem(title: str) -> str:
    """A file name from a title: path separators and the like removed, at most 60 characters."""
    return "".join(c for c in title if c.isalnum() or c in " -_.,()")[:60].strip() or "annotations"


class AnnotationActions(QObject):
    """Connects document viewers to the annotation services.

    Args:
        workbench: runs writes on the serial lane and reads on the read lane.
    """

    def __init__(self, workbench: Workbench, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.workbench = workbench

    def attach(self, viewer: DocumentViewer) -> None:
        """Serve ``viewer``'s annotation signals."""
        viewer.annotations_wanted.connect(lambda doc_id: self.load(viewer, doc_id))
        viewer.annotation_requested.connect(lambda doc_id, request: self.annotate(viewer, doc_id, request))
        viewer.annotations_export_requested.connect(self.export)

    def export(self, doc: DocumentInfo) -> None:
        """Ask for a file and export ``doc``'s annotations to it (:meth:`Workbench.export_annotations`): the
        suffix chosen decides, Markdown or a copy of the PDF with its annotations in the PDF's own format."""
        parent = self.parent() if isinstance(self.parent(), QWidget) else None
        name, chosen = QFileDialog.getSaveFileName(parent, "Export Annotations", f"{_file_stem(doc.title)}.md",
                                                   EXPORT_FILTERS)
        if not name:
            return
        path = Path(name)
        if not path.suffix:  # no suffix typed: the file type chosen in the dialog says it
            path = path.with_suffix(".pdf" if chosen.startswith("PDF") else ".md")
        self.workbench.export_annotations(doc.id, path)

    def load(self, viewer: DocumentViewer, doc_id: str) -> None:
        """Read the annotations of ``doc_id`` and hand them to ``viewer`` (if it still exists)."""
        lib = self.workbench.lib

        def shown(items: list[annotations.Annotation]) -> None:
            if shiboken6.isValid(viewer):
                viewer.set_annotations(doc_id, items)

        self.workbench.read(lambda _c: annotations.list_annotations(lib, doc_id), shown)

    def annotate(self, viewer: DocumentViewer, doc_id: str, request: AnnotationRequest) -> None:
        """Do ``request`` on the PDF ``doc_id`` (:meth:`Workbench.annotate`), then show its annotations again;
        a highlight drawn before a write that failed is taken away."""

        def failed(error: BaseException) -> None:
            if shiboken6.isValid(viewer):
                viewer.annotation_failed(doc_id, str(error) or type(error).__name__)

        self.workbench.annotate(doc_id, request, on_done=lambda _result: self.load(viewer, doc_id), on_error=failed)
