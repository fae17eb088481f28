"""Moving documents between scopes along one branch of the tree: promotion and demotion (seed §4.3).

A move keeps the document's id, versions and tags, and carries its vectors to the target scope's
collection without re-embedding (a ``move`` job for the index writer). The document row changes
scope in one transaction, so it is never visible in two scopes at once.
"""

from __future__ import annotations

from typing import Literal

from ..core.documents import DocumentInfo, DocumentType
from ..core.errors import ScopeError
from ..store.db import write_session
from ..store.tables import utcnow
from . import records
from .documents import with_contents
from .library import Library
from .scopes import ancestry, resolve_relative


def move_to_scope(lib: Library, document_id: str, target: str,
                  direction: Literal["up", "down"] | None = None) -> list[DocumentInfo]:
    """Promote or demote a document (a folder: with everything inside it) to ``target``.

    Args:
        target: a full scope path, or a kind (``project``) meaning that ancestor of the document's scope.
        direction: ``"up"`` (promotion: the target must be an ancestor), ``"down"`` (demotion: a
            descendant), or None for either.

    Returns:
        Every document moved.

    Raises:
        DocumentNotFound. ScopeNotFound. ScopeError: the target is on another branch of the tree
        (neither an ancestor nor a descendant of the document's scope).
    """
    with write_session(lib.engine) as session:
        source = records.document_row(session, document_id).scope_path
    target_path = resolve_relative(lib, source, target)
    if target_path == source:
        return []
    upward = target_path in ancestry(lib, source)
    if not upward and source not in ancestry(lib, target_path):
        raise ScopeError(
            f"{target_path} is not on the branch of {source}: documents move only up to an ancestor "
            "(promote) or down to a descendant (demote)"
        )
    if direction == "up" and not upward:
        raise ScopeError(f"{target_path} is below {source}: that is a demotion, not a promotion")
    if direction == "down" and upward:
        raise ScopeError(f"{target_path} is above {source}: that is a promotion, not a demotion")
    with write_session(lib.engine) as session:
        ids = with_contents(session, document_id)
        for doc_id in ids:
            row = records.document_row(session, doc_id)
            previous = row.scope_path
            row.scope_path = target_path
            row.updated_at = utcnow()
            if doc_id == document_id:
                row.folder_id = None  # its folder stays behind in the source scope
            session.add(row)
            if row.type != DocumentType.FOLDER.value:
                records.enqueue(session, doc_id, "move", **{"from": previous})
        records.bump_change_counter(session)
        session.flush()
        return [records.info(lib, session, i) for i in ids]
