"""A bibliography file and each of its entries as an :class:`~.base.Extraction`.

The readers (``bibtex``, ``bibliography``) give a :class:`~.bibentry.Bibliography`; the file becomes
a file document holding its entries, and each entry a reference document of its own
(``services.bibliography``).
"""

from __future__ import annotations

from collections import Counter

from ..core.documents import DocumentType
from .base import ChunkDraft, Extraction
from .bibentry import BibEntry, Bibliography


def bibliography_extraction(bibliography: Bibliography, *, title: str | None) -> Extraction:
    """The :class:`Extraction` of a bibliography file: a file document (doc_type FILE) with no chunks
    of its own, its entries in ``references`` and metadata ``entry_count`` and ``entry_types``."""
    warnings = list(bibliography.warnings)
    if not bibliography.entries:
        warnings.append("no bibliography entries were found")
    kinds = Counter(entry.kind or "unknown" for entry in bibliography.entries)
    return Extraction(
        doc_type=DocumentType.FILE,
        mime_type=bibliography.mime_type,
        title=title,
        metadata={"entry_count": len(bibliography.entries), "entry_types": dict(kinds.most_common())},
        warnings=warnings,
        references=list(bibliography.entries),
    )


def reference_extraction(entry: BibEntry) -> Extraction:
    """The :class:`Extraction` of one entry as a reference document: one chunk reading like a citation
    followed by the abstract (``section`` = the citation key), its fields as metadata."""
    text = entry.text()
    return Extraction(
        doc_type=DocumentType.REFERENCE,
        mime_type="text/plain",
        title=entry.title or entry.key or "Untitled reference",
        text=text,
        chunks=[ChunkDraft(text, section=entry.key)] if text else [],
        metadata=entry.metadata(),
    )
