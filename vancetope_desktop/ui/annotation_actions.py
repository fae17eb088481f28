"""The window's side of PDF annotations: runs what a viewer asks for (``services.annotations``) on the
workbench's lanes and hands each viewer its PDF's annotations; an annotation opened from search or a list
opens its PDF at its place instead."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QObject

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
