"""Which sub-viewer shows a document: a pure decision on its type, MIME type and file suffix.

Kept free of Qt so the choice is testable on its own and the widgets stay thin.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from ...core.documents import DocumentInfo, DocumentType
from ...ingest.registry import MARKDOWN_EXTENSIONS
from ...ingest.text import CODE_LANGUAGES, PLAIN_TEXT_TYPES


class ViewKind(StrEnum):
    """The sub-viewer for a document."""

    PDF = "pdf"
    MARKDOWN = "markdown"
    TEXT = "text"
    DATA = "data"
    IMAGE = "image"
    FOLDER = "folder"
    CONTENT = "content"  # no renderer for the file: show the extracted text or a message


DATA_EXTENSIONS = frozenset({".json", ".geojson", ".yaml", ".yml", ".cff", ".csv", ".tsv", ".tab"})
IMAGE_EXTENSIONS = frozenset({".png", ".jpg", ".jpeg", ".gif", ".svg", ".svgz", ".webp", ".bmp", ".tif", ".tiff"})
TEXT_EXTENSIONS = frozenset({*PLAIN_TEXT_TYPES, *CODE_LANGUAGES, ".bib", ".bibtex", ".ris", ".toml", ".ini", ".cfg",
                             ".xml", ".html", ".htm", ".css", ".csl"})
EDITABLE_TYPES = frozenset({DocumentType.NOTE, DocumentType.FACT, DocumentType.EVENT, DocumentType.PLAN,
                            DocumentType.RESULT, DocumentType.REFERENCE})
_DATA_MIME = frozenset({"application/json", "application/geo+json", "application/yaml", "text/csv",
                        "text/tab-separated-values"})


def file_name(doc: DocumentInfo) -> str:
    """The name the user knows the file by (``metadata.original_name``), else the stored file's name.

    Stored blobs are named by hash; the original name lets pygments pick a lexer (``Makefile``, ``x.py``).
    """
    original = doc.metadata.get("original_name")
    if isinstance(original, str) and original:
        return original
    return Path(doc.file_path).name if doc.file_path else doc.title


def file_suffix(doc: DocumentInfo) -> str:
    """Lowercase suffix of the stored file (``.pdf``), or of the original name when the blob has none."""
    if doc.file_path and (suffix := Path(doc.file_path).suffix.lower()):
        return suffix
    return Path(file_name(doc)).suffix.lower()


def is_editable(doc: DocumentInfo) -> bool:
    """Whether the user may edit the text in place: typed notes, facts, results and references (no file)."""
    return doc.type in EDITABLE_TYPES and doc.file_path is None and doc.content is not None


def choose_view(doc: DocumentInfo) -> ViewKind:
    """Pick the sub-viewer for ``doc``.

    Folders get a placeholder; documents without a file show their ``content`` as markdown (notes,
    facts, results, references) or text; files go by suffix first and MIME type second, falling back
    to the extracted text (:attr:`ViewKind.CONTENT`).
    """
    if doc.type is DocumentType.FOLDER:
        return ViewKind.FOLDER
    if not doc.file_path:
        if doc.type in EDITABLE_TYPES or doc.mime_type == "text/markdown":
            return ViewKind.MARKDOWN
        return ViewKind.TEXT if doc.content is not None else ViewKind.CONTENT
    suffix, mime = file_suffix(doc), doc.mime_type.lower()
    if suffix == ".pdf" or mime == "application/pdf":
        return ViewKind.PDF
    if suffix in MARKDOWN_EXTENSIONS or mime == "text/markdown":
        return ViewKind.MARKDOWN
    if suffix in DATA_EXTENSIONS or mime in _DATA_MIME:
        return ViewKind.DATA
    if suffix in IMAGE_EXTENSIONS or mime.startswith("image/"):
        return ViewKind.IMAGE
    if suffix in TEXT_EXTENSIONS or mime.startswith("text/"):
        return ViewKind.TEXT
    return ViewKind.CONTENT
