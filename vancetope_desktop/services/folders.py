"""Folders (seed §3.2): documents of type folder that nest; a document is in at most one folder."""

from __future__ import annotations

import unicodedata

from pydantic import BaseModel, ConfigDict
from sqlalchemy import func
from sqlmodel import Session, select

from ..core.documents import DocumentInfo, DocumentStatus, DocumentType, IndexState
from ..core.errors import DocumentNotFound, FolderCycle, InvalidInput
from ..core.ids import new_document_id
from ..core.undo import UserAction
from ..store import tables
from ..store.db import read_session, write_session
from ..store.tables import utcnow
from . import audit, records
from .library import Library
from .scopes import ancestry, resolve_scope

RESULTS_FOLDER = "Results"
"""The top-level folder holding think process results (seed §3.2): ``Results/Think-Process: <name>/`` above."""


def create_folder(lib: Library, title: str, *, scope: str | None = None, parent_id: str | None = None) -> DocumentInfo:
    """Create a folder in ``scope`` (default: current), inside ``parent_id`` or at the top.

    Raises:
        InvalidInput: blank title, parent in another scope. DocumentNotFound: unknown parent.
    """
    scope_path = resolve_scope(lib, scope)
    with write_session(lib.engine) as session:
        _refuse_duplicate(session, scope_path, title.strip(), parent_id)
        folder = ensure_folder(session, scope_path, title, parent_id)
        records.bump_change_counter(session)
        return records.info(lib, session, folder.id)


def check_folder(session: Session, folder_id: str, scope_path: str) -> tables.DocumentRow:
    """The folder ``folder_id`` of ``scope_path``. Raises DocumentNotFound, InvalidInput (another scope's)."""
    folder = session.get(tables.DocumentRow, folder_id)
    if folder is None or folder.type != DocumentType.FOLDER.value:
        raise DocumentNotFound(f"no folder {folder_id}")
    if folder.scope_path != scope_path:
        raise InvalidInput(f"folder {folder_id} is in {folder.scope_path}, not in {scope_path}")
    return folder


def _refuse_duplicate(session: Session, scope_path: str, title: str, parent_id: str | None,
                      allowed_id: str | None = None) -> None:
    existing = _named_folder(session, scope_path, title, parent_id)
    if existing is not None and existing.id != allowed_id:
        raise InvalidInput(f"a folder named {existing.title!r} is already there ({existing.id})")


def _named_folder(session: Session, scope_path: str, title: str, parent_id: str | None) -> tables.DocumentRow | None:
    return session.exec(
        select(tables.DocumentRow).where(
            tables.DocumentRow.scope_path == scope_path, tables.DocumentRow.type == DocumentType.FOLDER.value,
            tables.DocumentRow.title == title, tables.DocumentRow.folder_id == parent_id,
            tables.DocumentRow.status == "active",
        )
    ).first()


def namesake_folder(session: Session, scope_path: str, title: str, parent_id: str | None) -> tables.DocumentRow | None:
    """The active folder under ``parent_id`` named ``title`` up to case and Unicode form (``papers`` finds the
    demo's ``Papers``), an exact match first; None when there is none. For imports, which merge a dropped
    folder into its namesake unless told to keep both (``services.imports.upload``)."""
    wanted = _folded(title)
    rows = session.exec(
        select(tables.DocumentRow).where(
            tables.DocumentRow.scope_path == scope_path, tables.DocumentRow.type == DocumentType.FOLDER.value,
            tables.DocumentRow.folder_id == parent_id, tables.DocumentRow.status == "active",
        ).order_by(tables.DocumentRow.created_at)  # type: ignore[arg-type]
    ).all()
    found = [r for r in rows if _folded(r.title) == wanted]
    return next((r for r in found if r.title == title.strip()), found[0] if found else None)


def _folded(title: str) -> str:
    return unicodedata.normalize("NFC", title.strip()).casefold()


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
        created_at=now, updated_at=now, updated_by=records.creator(None),
    )
    session.add(row)
    session.flush()
    return row


def move_to_folder(lib: Library, document_id: str, folder_id: str | None, *,
                   user_action: UserAction | None = None) -> DocumentInfo:
    """Put a document (or a folder, with everything inside it) into ``folder_id`` (None: top level).

    With ``user_action`` the move is recorded for undo (``file``: ``audit.record_user_action``).

    Raises:
        FolderCycle: a folder would move into itself or below itself.
        InvalidInput: the target is not a folder, or is in another scope (use promote/demote to change scope).
    """
    with write_session(lib.engine) as session:
        row = records.document_row(session, document_id)
        before = row.folder_id
        place_in_folder(session, row, folder_id)
        if user_action is not None and before != folder_id:
            audit.record_user_action(session, row, "file", user_action, {"folder": [before, folder_id]})
        records.bump_change_counter(session)
        session.flush()
        return records.info(lib, session, row.id)


def place_in_folder(session: Session, row: tables.DocumentRow, folder_id: str | None) -> None:
    """Put ``row`` into ``folder_id`` (None: top level) inside the caller's transaction, after the checks
    of :func:`move_to_folder` (which raises the same errors)."""
    if folder_id is not None:
        target = records.document_row(session, folder_id)
        if target.type != DocumentType.FOLDER.value:
            raise InvalidInput(f"{folder_id} is not a folder")
        if target.scope_path != row.scope_path:
            raise InvalidInput(
                f"{folder_id} is in {target.scope_path} but {row.id} is in {row.scope_path}; "
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


def folder_descendants(session: Session, folder_id: str) -> list[str]:
    """``folder_id`` and every folder below it (breadth first; cycles cannot exist but are guarded)."""
    found, frontier = [folder_id], [folder_id]
    while frontier:
        children = session.exec(
            select(tables.DocumentRow.id).where(
                tables.DocumentRow.folder_id.in_(frontier),  # type: ignore[union-attr]
                tables.DocumentRow.type == DocumentType.FOLDER.value,
            )
        ).all()
        frontier = [c for c in children if c not in found]
        found.extend(frontier)
    return found


def with_contents(session: Session, document_id: str) -> list[str]:
    """``document_id`` and, for a folder, every folder and document below it (the document first), and the
    annotations on the files among them: trashing, restoring or moving a PDF takes its annotations along.

    Raises:
        DocumentNotFound.
    """
    root = records.document_row(session, document_id)
    if root.type != DocumentType.FOLDER.value:
        return [root.id, *(records.annotations_of(session, [root.id]) if root.type == DocumentType.FILE.value
                           else [])]
    folders = folder_descendants(session, root.id)
    inside = session.exec(
        select(tables.DocumentRow.id).where(tables.DocumentRow.folder_id.in_(folders))  # type: ignore[union-attr]
    ).all()
    return list(dict.fromkeys([*folders, *inside, *records.annotations_of(session, inside)]))


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


class FolderNode(BaseModel):
    """One folder of a folder tree, with how many active documents it holds.

    Attributes:
        parent_id: the containing folder, None at the top level (also when the parent is not active).
        own_count: active or stale non-folder documents directly inside.
        total_count: active non-folder documents inside it or any of its subfolders.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    scope: str
    title: str
    parent_id: str | None
    own_count: int
    total_count: int


def folder_tree(lib: Library, *, scope: str | None = None, include_ancestors: bool = True) -> list[FolderNode]:
    """The active folders visible from ``scope``, parents before children, with document counts.

    Two queries (the folders, then documents counted per folder); totals add up in Python.

    Args:
        scope: scope path; None means the current scope.
        include_ancestors: also the ancestors' folders (what the scope sees), else its own only.

    Returns:
        Depth first: top-level folders of the nearest scope first (``scope``, then its parent…),
        siblings by title (case-insensitive). A folder whose parent is trashed or archived shows at
        the top level.

    Raises:
        ScopeNotFound: unknown scope.
    """
    scope_path = resolve_scope(lib, scope)
    scopes = ancestry(lib, scope_path) if include_ancestors else [scope_path]
    doc = tables.DocumentRow
    active = DocumentStatus.ACTIVE.value
    listed = [DocumentStatus.ACTIVE.value, DocumentStatus.STALE.value]  # as the workbench lists them
    with read_session(lib.engine) as session:
        folders = session.exec(
            select(doc.id, doc.scope_path, doc.title, doc.folder_id).where(
                doc.scope_path.in_(scopes), doc.type == DocumentType.FOLDER.value, doc.status == active,  # type: ignore[attr-defined]
            )
        ).all()
        counts = dict(session.exec(
            select(doc.folder_id, func.count()).where(
                doc.scope_path.in_(scopes), doc.type != DocumentType.FOLDER.value,
                doc.status.in_(listed),  # type: ignore[attr-defined]
                doc.folder_id.is_not(None),  # type: ignore[union-attr]
            ).group_by(doc.folder_id)
        ).all())
    known = {f.id for f in folders}
    children: dict[str | None, list] = {}
    for folder in folders:
        children.setdefault(folder.folder_id if folder.folder_id in known else None, []).append(folder)
    rank = {path: i for i, path in enumerate(scopes)}
    nodes: list[FolderNode] = []

    def walk(parent: str | None, seen: frozenset[str]) -> int:
        total = 0
        for folder in sorted(children.get(parent, []), key=lambda f: (rank[f.scope_path], f.title.casefold(), f.id)):
            if folder.id in seen:  # cycles cannot be made through move_to_folder; guard anyway
                continue
            at = len(nodes)
            nodes.append(FolderNode(id=folder.id, scope=folder.scope_path, title=folder.title,
                                    parent_id=parent, own_count=counts.get(folder.id, 0), total_count=0))
            subtotal = counts.get(folder.id, 0) + walk(folder.id, seen | {folder.id})
            nodes[at] = nodes[at].model_copy(update={"total_count": subtotal})
            total += subtotal
        return total

    walk(None, frozenset())
    return nodes


def rename_folder(lib: Library, folder_id: str, title: str, *, user_action: UserAction | None = None) -> DocumentInfo:
    """Give a folder a new title, keeping the old one as a version (reason ``renamed from 'old'``).

    With ``user_action`` the rename is recorded for undo (``rename``: ``audit.record_user_action``).

    Raises:
        DocumentNotFound. InvalidInput: blank title, not a folder, or an active sibling folder
        (same scope and parent) already has that title.
    """
    title = title.strip()
    if not title:
        raise InvalidInput("a folder needs a name")
    with write_session(lib.engine) as session:
        row = records.document_row(session, folder_id)
        if row.type != DocumentType.FOLDER.value:
            raise InvalidInput(f"{folder_id} is not a folder")
        if title == row.title:
            return records.info(lib, session, folder_id)
        _refuse_duplicate(session, row.scope_path, title, row.folder_id, allowed_id=row.id)
        kept_as = row.version
        records.snapshot_version(session, row, f"renamed from {row.title!r}")
        row.title = title
        session.add(row)
        if user_action is not None:
            audit.record_user_action(session, row, "rename", user_action, {"version": [kept_as, row.version]})
        records.bump_change_counter(session)
        session.flush()
        return records.info(lib, session, folder_id)
