"""Writing a document's tags inside the caller's transaction, with the auto-promote rules that follow.

The services that tag a document (``documents``, ``bibliography``, ``imports``, ``duplicates``,
``stale``) write its tags here, so a rule of ``promotion_rules`` sees each tag added, whichever face
made the change. It sits above the rules and below the services that tag. Renaming, merging or
deleting a tag across the library (``services.tags``) rewrites the tag rows in bulk and applies no rule.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import delete
from sqlmodel import Session

from ..store import tables
from . import records
from .promotion_rules import on_tags_added


def set_tags(session: Session, document_id: str, tags: Iterable[str]) -> None:
    """Replace a document's tags with ``tags`` (already normalised), then apply the auto-promote rules
    to the tags added (``promotion_rules.on_tags_added``, in this same transaction)."""
    before = set(records.tags_of(session, document_id))
    wanted = list(dict.fromkeys(tags))
    session.exec(delete(tables.TagRow).where(tables.TagRow.document_id == document_id))
    for tag in wanted:
        session.add(tables.TagRow(document_id=document_id, tag=tag))
    added = [t for t in wanted if t not in before]
    if added:
        on_tags_added(session, document_id, added)
