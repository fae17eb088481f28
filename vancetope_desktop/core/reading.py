"""Reading status (unread / reading / read), as in a reference manager: how far the user got with a paper.

Named *reading status* everywhere, to keep it apart from a document's lifecycle status (active, archived,
stale, deleted). Kept in the document's metadata under :data:`READING_STATUS_KEY` (no schema change).
Files and references start unread without a stored value (:data:`READABLE_TYPES`); other documents (notes,
facts, results you wrote) have a reading status only once the user gives them one.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from .documents import DocumentType


class ReadingStatus(StrEnum):
    """How far the user got with a document."""

    UNREAD = "unread"
    READING = "reading"
    READ = "read"


READING_ORDER = tuple(ReadingStatus)
"""The statuses in the order of progress (sorting, and which of two merged documents got further)."""
READING_STATUS_KEY = "reading_status"
"""Metadata key holding a document's :class:`ReadingStatus` value."""
READABLE_TYPES = (DocumentType.FILE, DocumentType.REFERENCE)
"""Types that are unread until marked otherwise: what one reads rather than writes."""


def reading_status_of(doc_type: DocumentType, metadata: Mapping[str, Any]) -> ReadingStatus | None:
    """A document's reading status: the stored one, else ``unread`` for :data:`READABLE_TYPES`, else None.

    A stored value that is not a reading status (hand-edited metadata) counts as absent.
    """
    try:
        return ReadingStatus(metadata.get(READING_STATUS_KEY))
    except ValueError:
        return ReadingStatus.UNREAD if doc_type in READABLE_TYPES else None
