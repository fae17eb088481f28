"""The stale mark (seed §7.3): a document whose inputs changed is marked stale until it is made again.

The mark is the status ``stale`` and, mirroring it, the tag ``#stale``; what was derived from a
document is found in ``services.relations`` (:func:`~.relations.derivation_closure`).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..core.documents import DocumentStatus
from ..store.db import write_session
from ..store.tables import utcnow
from . import records, tagging
from .library import Library

STALE_TAG = "stale"
"""The tag mirroring :attr:`DocumentStatus.STALE`, so tag filters and chips show it too."""


def set_stale(lib: Library, document_ids: Iterable[str], stale: bool = True) -> list[str]:
    """Mark documents stale (status ``stale`` and tag ``#stale``) or clear the mark (back to ``active``).

    All in one transaction. Only active and stale documents take part: archived or trashed ones keep
    their status. The status is not versioned, and the tag only mirrors it, so no version is kept.

    Returns:
        The ids (in the order given) whose status is now the requested one, changed or already so.

    Raises:
        DocumentNotFound: an unknown id (nothing is changed).
    """
    wanted = DocumentStatus.STALE if stale else DocumentStatus.ACTIVE
    eligible = {DocumentStatus.ACTIVE.value, DocumentStatus.STALE.value}
    marked: list[str] = []
    with write_session(lib.engine) as session:
        for document_id in dict.fromkeys(document_ids):
            row = records.document_row(session, document_id)
            if row.status not in eligible:
                continue
            marked.append(row.id)
            tags = records.tags_of(session, row.id)
            new_tags = sorted({*tags, STALE_TAG}) if stale else [t for t in tags if t != STALE_TAG]
            if row.status == wanted.value and new_tags == tags:
                continue
            row.status = wanted.value
            row.updated_at = utcnow()
            if new_tags != tags:
                tagging.set_tags(session, row.id, new_tags)
                records.enqueue(session, row.id, "refresh")  # vectors carry the tags
            session.add(row)
        records.bump_change_counter(session)
        session.flush()
    return marked
