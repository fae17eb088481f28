"""Plain text (paragraph chunks) and source code (one chunk per file; the splitter cuts it by tokens)."""

from __future__ import annotations

import re

from ..core.documents import DocumentType
from .base import ChunkDraft, Extraction
from .chunking import pack_paragraphs
from .normalize import normalize_text

PLAIN_TEXT_TYPES: dict[str, str] = {
    ".txt": "text/plain",
    ".text": "text/plain",
    ".log": "text/plain",
    ".rst": "text/x-rst",
    ".org": "text/x-org",
    ".adoc": "text/asciidoc",
}
"""Suffix → MIME type of prose files chunked by paragraph."""

CODE_LANGUAGES: dict[str, tuple[str, str]] = {
    ".py": ("python", "text/x-python"),
    ".js": ("javascript", "text/javascript"),
    ".mjs": ("javascript", "text/javascript"),
    ".ts": ("typescript", "text/x-typescript"),
    ".java": ("java", "text/x-java"),
    ".c": ("c", "text/x-c"),
    ".h": ("c", "text/x-c"),
    ".cpp": ("cpp", "text/x-c++"),
    ".cc": ("cpp", "text/x-c++"),
    ".cxx": ("cpp", "text/x-c++"),
    ".hpp": ("cpp", "text/x-c++"),
    ".rs": ("rust", "text/x-rust"),
    ".go": ("go", "text/x-go"),
    ".r": ("r", "text/x-r"),
    ".jl": ("julia", "text/x-julia"),
    ".m": ("matlab", "text/x-matlab"),
    ".sh": ("shell", "text/x-shellscript"),
    ".bash": ("shell", "text/x-shellscript"),
    ".sql": ("sql", "text/x-sql"),
    ".tex": ("latex", "text/x-tex"),
}
"""Suffix → (language, MIME type) of source files kept whole. JSON is structured data, not code."""

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def extract_plain_text(text: str, *, title: str | None, mime_type: str = "text/plain") -> Extraction:
    """Plain prose: normalised, split at blank lines, paragraphs packed to ≈200 words per chunk.

    Args:
        text: decoded text.
        title: the document title to report (the registry passes the file stem).
        mime_type: e.g. ``text/plain`` or ``text/x-rst``.

    Returns:
        An :class:`Extraction` with doc_type FILE; chunks have no page or section.
    """
    clean = normalize_text(text)
    chunks = [ChunkDraft(chunk) for chunk in pack_paragraphs(_PARAGRAPH_BREAK.split(clean))]
    return Extraction(doc_type=DocumentType.FILE, mime_type=mime_type, title=title, text=clean, chunks=chunks)


def extract_code(text: str, *, title: str | None, language: str, mime_type: str) -> Extraction:
    """Source code as one chunk (functions stay together; the token splitter cuts at blank lines).

    Hyphen joining is off: a line ending in ``-`` is an operator in code.

    Returns:
        An :class:`Extraction` with doc_type FILE and metadata ``language`` and ``line_count``.
    """
    clean = normalize_text(text, join_hyphens=False)
    return Extraction(
        doc_type=DocumentType.FILE,
        mime_type=mime_type,
        title=title,
        text=clean,
        chunks=[ChunkDraft(clean)] if clean else [],
        metadata={"language": language, "line_count": clean.count("\n") + 1 if clean else 0},
    )
