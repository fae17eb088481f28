"""Reading status of documents (``core.reading``): set it, mark a file as being read when it is opened, and
the SQL filter that lists documents by it.

The status lives in the document's metadata; changing it keeps no version (it says nothing about the
document's content, like the stale mark of ``services.stale.set_stale``) but counts as a change, so
the app's lists refresh.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..core.documents import STRUCTURAL_VALUES, DocumentInfo, DocumentType
from ..core.errors import InvalidInput
from ..core.reading import READABLE_TYPES, READING_STATUS_KEY, ReadingStatus, reading_status_of
from ..store.db import write_session
from ..store.filters import SqlFilter
from ..store.tables import utcnow
from . import records
from .library import Library


def set_reading_status(lib: Library, document_ids: Iterable[str], status: ReadingStatus) -> list[DocumentInfo]:
    """Give documents a reading status, all in one transaction.

    Returns:
        The documents (in the order given, each once) as they now are, changed or already so.

    Raises:
        DocumentNotFound: an unknown id. InvalidInput: a folder (nothing is changed).
    """
    with write_session(lib.engine) as session:
        rows = [records.document_row(session, i) for i in dict.fromkeys(document_ids)]
        for row in rows:
            if row.type in STRUCTURAL_VALUES:
                raise InvalidInput(f"{row.id} is a {row.type}: only documents have a reading status")
        for row in rows:
            if row.meta.get(READING_STATUS_KEY) != status.value:
                row.meta = {**row.meta, READING_STATUS_KEY: status.value}
                row.updated_at = utcnow()
                session.add(row)
        records.bump_change_counter(session)
        session.flush()
        return [records.info(lib, session, row.id) for row in rows]


def mark_opened(lib: Library, document_id: str) -> DocumentInfo | None:
    """A file or reference was opened to read: an unread one becomes ``reading``.

    Returns:
        The document when its reading status changed, else None (already reading or read, or a note).

    Raises:
        DocumentNotFound.
    """
    with write_session(lib.engine) as session:
        row = records.document_row(session, document_id)
        if DocumentType(row.type) not in READABLE_TYPES or \
                reading_status_of(DocumentType(row.type), row.meta) is not ReadingStatus.UNREAD:
            return None
        row.meta = {**row.meta, READING_STATUS_KEY: ReadingStatus.READING.value}
        row.updated_at = utcnow()
        session.add(row)
        records.bump_change_counter(session)
        session.flush()
        return records.info(lib, session, row.id)


def and_reading(where: SqlFilter, statuses: Sequence[ReadingStatus]) -> SqlFilter:
    """Restrict ``where`` (over ``document d``) to documents whose reading status is one of ``statuses``
    (``unread`` includes files and references never given one; nothing when ``statuses`` is empty)."""
    if not statuses:
        return where
    readable = ", ".join(f"'{t.value}'" for t in READABLE_TYPES)
    known = ", ".join(f"'{s.value}'" for s in ReadingStatus)
    stored = where.forms.text(where.forms.valid("d.metadata"), READING_STATUS_KEY)
    value = (f"(CASE WHEN {stored} IN ({known}) THEN {stored} "
             f"WHEN d.type IN ({readable}) THEN '{ReadingStatus.UNREAD.value}' END)")
    return where.and_value_in(value, [s.value for s in dict.fromkeys(statuses)])
