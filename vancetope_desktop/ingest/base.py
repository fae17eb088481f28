"""The contract every extractor fulfils: a file in, an :class:`Extraction` out (or a typed error).

Extractors are pure functions of the file's bytes: they never touch the library, the database or
the index, so they can run in a worker process or thread and be tested alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.documents import ChunkRole, DocumentType
from .bibentry import BibEntry


@dataclass(frozen=True)
class ChunkDraft:
    """One piece of text to embed and index.

    Attributes:
        text: normalised text (NFC, ligatures expanded, end-of-line hyphens joined).
        page: 1-based page number for paged sources (PDF), else None.
        section: heading path for sectioned sources (``"Methods › Sampling"``), row/key for data.
        role: what part of the document it is; only ``body`` chunks are embedded (see ``ChunkRole``).
    """

    text: str
    page: int | None = None
    section: str | None = None
    role: ChunkRole = ChunkRole.BODY


@dataclass
class Extraction:
    """What an extractor found in a file.

    Attributes:
        doc_type: the document type the file becomes (file, note, structured, reference).
        mime_type: e.g. ``application/pdf``, ``text/markdown``.
        title: best title found (metadata, first heading, first-page heuristics), or None.
        text: the document's full text (for notes: the body; for PDFs: pages joined), may be "".
        chunks: chunks in reading order; may still exceed the token limit (the splitter runs after).
        metadata: free JSON-able facts: authors (list[str]), year (int), doi, page_count, front matter…
        tags: normalised tags found in the file (front matter ``tags``, inline ``#tags``).
        needs_ocr: True when the file is image-only (no usable text layer); then chunks is empty.
        warnings: human-readable notes (repaired file, undecodable bytes replaced…).
        references: for a bibliography file (or pasted BibTeX, RIS, CSL-JSON), its entries in order:
            each becomes a reference document of its own (``services.bibliography``); else None.
    """

    doc_type: DocumentType
    mime_type: str
    title: str | None = None
    text: str = ""
    chunks: list[ChunkDraft] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)
    tags: list[str] = field(default_factory=list)
    needs_ocr: bool = False
    warnings: list[str] = field(default_factory=list)
    references: list[BibEntry] | None = None
