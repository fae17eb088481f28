"""Saved searches: a query and its filters kept under a name, run again on demand (the app's folder tree
re-runs them whenever the library changes, so they stay live).

Names are case-insensitive for lookup and uniqueness (``Foo`` and ``foo`` are one search, as folder and
file names are on macOS and Windows) and keep the spelling last given.

Stored per library in the ``meta`` table under :data:`META_KEY` as one JSON object (name → search): a
saved search belongs to the library it searches (its tags, scopes and statuses mean something only
there), not to the user's app preferences (``services.preferences`` follows the user across
libraries); the meta table needs no schema change and is written in the same transactions as the rest.
"""

from __future__ import annotations

import json
import logging

from pydantic import BaseModel, Field, ValidationError

from ..core.documents import DocumentInfo, DocumentStatus, DocumentType
from ..core.errors import InvalidInput, NotFound
from ..core.memories import MemoryType
from ..core.reading import ReadingStatus, reading_status_of
from ..core.tags import TagFilter, combine, normalize_tags
from ..store.db import get_meta, read_session, set_meta, write_session
from . import documents, records
from .library import Library
from .search import search

META_KEY = "saved_searches"
"""The ``meta`` key holding every saved search of the library."""
MAX_NAME = 80
"""Longest name: it is a label in the folder tree."""
DEFAULT_LIMIT = 100
"""Results of a saved search with a query (a search ranks, so the tail is weak matches)."""

_log = logging.getLogger(__name__)


class SavedSearch(BaseModel):
    """A named query with filters.

    Attributes:
        query: the search text; empty lists every document matching the filters (newest first).
        tags / any_tags / not_tags / where: tag filters as ``memory search`` takes them (all of, any of,
            none of, an expression).
        types, statuses: document types (empty: all) and lifecycle statuses (default: active).
        reading: reading statuses (empty: any).
        memory_types: agent memory types (``core.memories``; empty: any document).
        scope: the acting scope; None runs it from the current scope.
        limit: the most documents it returns.
    """

    name: str
    query: str = ""
    tags: list[str] = Field(default_factory=list)
    any_tags: list[str] = Field(default_factory=list)
    not_tags: list[str] = Field(default_factory=list)
    where: str | None = None
    types: list[DocumentType] = Field(default_factory=list)
    statuses: list[DocumentStatus] = Field(default_factory=lambda: [DocumentStatus.ACTIVE])
    reading: list[ReadingStatus] = Field(default_factory=list)
    memory_types: list[MemoryType] = Field(default_factory=list)
    scope: str | None = None
    limit: int = Field(default=DEFAULT_LIMIT, ge=1, le=5000)

    def tag_filter(self) -> TagFilter | None:
        """The tag filter its four tag fields make together (None: no tag restriction)."""
        return combine(self.tags, self.any_tags, self.not_tags, self.where)


def _load(session) -> dict[str, SavedSearch]:
    """Name → saved search; an entry that no longer validates is skipped with a warning (never fatal)."""
    raw = get_meta(session, META_KEY)
    try:
        stored = json.loads(raw) if raw else {}
    except ValueError:
        _log.warning("ignoring unreadable saved searches")
        return {}
    found = {}
    for name, value in (stored.items() if isinstance(stored, dict) else ()):
        try:
            found[name] = SavedSearch.model_validate(value)
        except ValidationError as error:
            _log.warning("ignoring saved search %r: %s", name, error)
    return found


def _store(session, saved: dict[str, SavedSearch]) -> None:
    set_meta(session, META_KEY, json.dumps({n: s.model_dump(mode="json") for n, s in saved.items()}))
    records.bump_change_counter(session)


def _clean_name(name: str) -> str:
    clean = " ".join(name.split())
    if not clean:
        raise InvalidInput("a saved search needs a name")
    if len(clean) > MAX_NAME:
        raise InvalidInput(f"a saved search's name has at most {MAX_NAME} characters")
    return clean


def _stored_name(stored: dict[str, SavedSearch], name: str) -> str | None:
    """The key under which ``name`` is stored, up to case and spaces (an exact spelling first: a library
    saved before names were case-insensitive may hold both ``Foo`` and ``foo``); None if there is none."""
    if name in stored:
        return name
    wanted = " ".join(name.split()).casefold()
    return next((key for key in stored if key.casefold() == wanted), None)


def save_search(lib: Library, saved: SavedSearch, *, replace: bool = False) -> SavedSearch:
    """Save ``saved`` under its name (spaces collapsed, spelling kept); its tags are checked and normalised now.

    Raises:
        InvalidInput: an empty or too long name, malformed tags or tag expression, no query and no
            filter at all, or the name is taken (up to case) and ``replace`` is False.
    """
    name = _clean_name(saved.name)
    saved = saved.model_copy(update={"name": name, "query": saved.query.strip(), "tags": normalize_tags(saved.tags),
                                     "any_tags": normalize_tags(saved.any_tags),
                                     "not_tags": normalize_tags(saved.not_tags)})
    saved.tag_filter()  # raises InvalidInput on a malformed expression
    with write_session(lib.engine) as session:
        stored = _load(session)
        taken = _stored_name(stored, name)
        if taken is not None and not replace:
            raise InvalidInput(f"there is already a saved search {taken!r} (replace it, or pick another name)")
        stored.pop(taken or name, None)
        stored[name] = saved
        _store(session, stored)
    return saved


def list_saved(lib: Library) -> list[SavedSearch]:
    """Every saved search of the library, by name (case-insensitive)."""
    with read_session(lib.engine) as session:
        return sorted(_load(session).values(), key=lambda s: (s.name.casefold(), s.name))


def get_saved(lib: Library, name: str) -> SavedSearch:
    """One saved search, by its name up to case. Raises NotFound."""
    with read_session(lib.engine) as session:
        stored = _load(session)
    key = _stored_name(stored, name)
    if key is None:
        raise NotFound(f"no saved search {name!r}")
    return stored[key]


def rename_saved(lib: Library, name: str, new_name: str) -> SavedSearch:
    """Rename a saved search (found up to case; a change of case alone is a rename too).

    Raises:
        NotFound; InvalidInput: a bad new name, or one another saved search has up to case.
    """
    new_name = _clean_name(new_name)
    with write_session(lib.engine) as session:
        stored = _load(session)
        key = _stored_name(stored, name)
        if key is None:
            raise NotFound(f"no saved search {name!r}")
        taken = _stored_name(stored, new_name)
        if taken not in (None, key):
            raise InvalidInput(f"there is already a saved search {taken!r}")
        renamed = stored.pop(key).model_copy(update={"name": new_name})
        stored[new_name] = renamed
        _store(session, stored)
    return renamed


def forget_saved(lib: Library, name: str) -> None:
    """Delete a saved search, found by its name up to case (its documents are untouched). Raises NotFound."""
    with write_session(lib.engine) as session:
        stored = _load(session)
        key = _stored_name(stored, name)
        if key is None:
            raise NotFound(f"no saved search {name!r}")
        del stored[key]
        _store(session, stored)


def run_saved(lib: Library, saved: SavedSearch | str, *, scope: str | None = None) -> list[DocumentInfo]:
    """The documents a saved search finds now: ranked by the search when it has a query, else newest first.

    Args:
        saved: the search or its name.
        scope: the acting scope when the search names none (default: the current scope).

    Raises:
        NotFound: no such name. ScopeNotFound: its scope is gone.
    """
    if isinstance(saved, str):
        saved = get_saved(lib, saved)
    acting = saved.scope or scope
    if saved.query:
        response = search(lib, saved.query, scope=acting, tag_filter=saved.tag_filter(), types=saved.types,
                          statuses=saved.statuses, limit=saved.limit, memory_types=saved.memory_types)
        found = [hit.document for hit in response.hits]
        if saved.reading:
            found = [d for d in found if reading_status_of(d.type, d.metadata) in saved.reading]
        return found
    return documents.list_documents(lib, scope=acting, tag_filter=saved.tag_filter(),
                                    types=saved.types or documents.CONTENT_TYPES, statuses=saved.statuses,
                                    reading_statuses=saved.reading, limit=saved.limit,
                                    memory_types=saved.memory_types)
