"""The document viewer: PDFs, markdown notes (editable), text and code, data tables and trees, images.

:class:`DocumentViewer` is the pane the main window embeds; the sub-viewers are exported for reuse.
"""

from __future__ import annotations

from .data_viewer import DataViewer
from .document_viewer import DocumentViewer
from .image_viewer import ImageViewer
from .markdown_viewer import MarkdownViewer
from .pdf_viewer import PdfViewer
from .text_viewer import TextViewer

__all__ = ["DataViewer", "DocumentViewer", "ImageViewer", "MarkdownViewer", "PdfViewer", "TextViewer"]
