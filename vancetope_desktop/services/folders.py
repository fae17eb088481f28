"""Folders (seed §3.2): documents of type folder that nest; a document is in at most one folder."""

from __future__ import annotations

from sqlmodel import Session, select

from ..core.documents import DocumentInfo, DocumentType, IndexState
from ..core.errors import FolderCycle, InvalidInput
from ..core.ids import new_document_id
from ..store import tables
from ..store.db import read_session, write_session
from ..store.tables import utcnow
from . import records
from .library import Library
from .scopes import resolve_scope


def create_folder(lib: Library, title: str, *, scope: str | None = None, parent_id: str | None = None) -> DocumentInfo:
    """Create a folder in ``scope`` (default: current), inside ``parent_id`` or at the top.

    Raises:
        InvalidInput: blank title, parent in another scope. DocumentNotFound: unknown parent.
    """
    scope_path = resolve_scope(lib, scope)
    with write_session(lib.engine) as session:
        existing = _named_folder(session, scope_path, title.strip(), parent_id)
        if existing is not None:
            raise InvalidInput(f"a folder named {existing.title!r} is already there ({existing.id})")
        folder = ensure_folder(session, scope_path, title, parent_id)
        records.bump_change_counter(session)
        return records.info(lib, session, folder.id)


def _named_folder(session: Session, scope_path: str, title: str, parent_id: str | None) -> tables.DocumentRow | None:
    return session.exec(
        select(tables.DocumentRow).where(
            tables.DocumentRow.scope_path == scope_path, tables.DocumentRow.type == DocumentType.FOLDER.value,
            tables.DocumentRow.title == title, tables.DocumentRow.folder_id == parent_id,
            tables.DocumentRow.status == "active",
        )
    ).first()


def ensure_folder(session: Session, scope_path: str, title: str, parent_id: str | None) -> tables.DocumentRow:
    """The active folder named ``title`` under ``parent_id`` in ``scope_path``, created if missing.

    Raises:
        InvalidInput: blank title, a parent that is not a folder or is in another scope.
    """
    title = title.strip()
    if not title:
        raise InvalidInput("a folder needs a name")
    if parent_id is not None:
        parent = records.document_row(session, parent_id)
        if parent.type != DocumentType.FOLDER.value:
            raise InvalidInput(f"{parent_id} is not a folder")
        if parent.scope_path != scope_path:
            raise InvalidInput(f"folder {parent_id} is in {parent.scope_path}, not in {scope_path}")
    existing = _named_folder(session, scope_path, title, parent_id)
    if existing is not None:
        return existing
    now = utcnow()
    row = tables.DocumentRow(
        id=new_document_id(), scope_path=scope_path, type=DocumentType.FOLDER.value, title=title,
        mime_type="inode/directory", folder_id=parent_id, index_state=IndexState.NOT_INDEXED.value,
        created_at=now, updated_at=now,
    )
    session.add(row)
    session.flush()
    return row


def move_to_folder(lib: Library, document_id: str, folder_id: str | None) -> DocumentInfo:
    """Put a document (or a folder, with everything inside it) into ``folder_id`` (None: top level).

    Raises:
        FolderCycle: a folder would move into itself or below itself.
        InvalidInput: the target is not a folder, or is in another scope (use promote/demote to change scope).
    """
    with write_session(lib.engine) as session:
        row = records.document_row(session, document_id)
        if folder_id is not None:
            target = records.document_row(session, folder_id)
            if target.type != DocumentType.FOLDER.value:
                raise InvalidInput(f"{folder_id} is not a folder")
            if target.scope_path != row.scope_path:
                raise InvalidInput(
                    f"{folder_id} is in {target.scope_path} but {document_id} is in {row.scope_path}; "
                    "move it between scopes with promote or demote"
                )
            walker: str | None = folder_id
            while walker is not None:
                if walker == row.id:
                    raise FolderCycle(f"cannot move folder {row.title!r} into itself or one of its subfolders")
                walker = records.document_row(session, walker).folder_id
        row.folder_id = folder_id
        row.updated_at = utcnow()
        session.add(row)
        records.bump_change_counter(session)
        session.flush()
        return records.info(lib, session, row.id)


def folder_path(lib: Library, document_id: str) -> list[str]:
    """Titles of the folders containing a document, outermost first."""
    with read_session(lib.engine) as session:
        row = records.document_row(session, document_id)
        names, seen = [], set()
        while row.folder_id and row.folder_id not in seen:
            seen.add(row.folder_id)
            row = records.document_row(session, row.folder_id)
            names.append(row.title)
        return names[::-1]
