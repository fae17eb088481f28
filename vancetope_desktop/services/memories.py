"""Recall (issue 12, seed 001 "Recherche vectorielle et rappel"): ranked memories of one namespace only.

A namespace is a scope path (``group/global``, ``project/vantage-starter``, ``agent/tau``). Where
``memory_query`` searches the acting scope and its ancestors with proximity weights (seed 000's
cascade), :func:`recall` searches the one scope it is given, as the seed wants ("querying global does
not return project/foo's memories"), with the product's hybrid ranking (``services.search``): the
namespace must be the acting scope or one it sees (``services.scopes.visible_scopes``), so an agent
never recalls what the visibility rule hides from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pydantic import BaseModel, Field

from ..core.documents import DocumentInfo, DocumentStatus, DocumentType
from ..core.errors import EmptyQuery, InvalidInput, ScopeNotVisible
from ..core.memories import MemoryType, parse_memory_type, parse_memory_types
from ..core.undo import UserAction
from ..store.db import read_session, write_session
from ..store.tables import utcnow
from . import audit, records
from .library import Library
from .scopes import resolve_scope, visible_scopes
from .sharing import check_read, visibility_rule
from .topic_search import topic_search

MAX_RECALL = 100
"""The most memories one recall returns (the seed advises 3–5 for a question, 10–20 at the start of work)."""
RECALLED_STATUSES = (DocumentStatus.ACTIVE, DocumentStatus.STALE)
"""What recall returns by default; archived memories (superseded, or archived by hand) only when asked."""


class RecalledMemory(BaseModel):
    """One memory found by :func:`recall`.

    Attributes:
        id: the document id (``doc_…``).
        memory_type: what the memory is for; None for a document of the namespace that is not an agent
            memory (a note, a paper, a result: recall finds everything of the namespace, as search does).
        content: the whole text (a memory is short; a long document's text is cut at
            :data:`CONTENT_LIMIT` characters, ending in ``…``).
        namespace: the scope it belongs to (the namespace recalled).
        score: the hybrid relevance, 0-1 (``SearchHit.relevance``: meaning and keywords combined); within one
            namespace no proximity weight applies.
    """

    id: str
    memory_type: MemoryType | None = None
    type: str = Field(description="The document type (note for memories and episodes).")
    title: str
    content: str
    namespace: str
    score: float
    status: DocumentStatus = DocumentStatus.ACTIVE
    tags: list[str] = Field(default_factory=list)
    created_at: datetime
    snippet: str = ""
    topics: list[str] = Field(default_factory=list, description="The topic paths of an atom recalled "
                              "('Travel › Hiking'; the one the tree search took first).")


class Recall(BaseModel):
    """:func:`recall`'s answer: the memories in rank order and the warnings of the search."""

    query: str
    namespace: str
    memories: list[RecalledMemory] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    mode: str = Field(default="flat", description="How it searched: 'tree' (down the namespace's topic tree) or "
                      "'flat'; mode_reason says why.")
    mode_reason: str = ""


CONTENT_LIMIT = 4000
"""Characters of a recalled document's text at most (a memory is far shorter; a paper is read by id)."""


def recall(lib: Library, query: str, namespace: str, limit: int = 10, memory_types: Sequence[str] | None = None,
           include_archived: bool = False, *, acting: str | None = None, mode: str | None = "auto") -> Recall:
    """The memories of ``namespace`` that best match ``query``, best first.

    Args:
        query: what to recall, in natural language ("Convex deploy schema vector index").
        namespace: a scope path; only that scope's own documents are searched.
        limit: at most this many (1–:data:`MAX_RECALL`); fewer when fewer are relevant (the search's cut-off).
        memory_types: keep memories of these types only (``core.memories.MemoryType`` values); None or
            empty: every document of the namespace.
        include_archived: also return archived memories (superseded ones, kept for the audit trail).
        acting: the scope that recalls (default: ``namespace`` itself); ``namespace`` must be it or one it
            sees (its ancestors, the agent scope that runs it).
        mode: ``auto``, ``tree`` or ``flat`` (``services.topic_search``): only the namespace's own tree is walked;
            ``auto`` walks it once it is consolidated and no memory type is asked for (atoms have none).

    Raises:
        EmptyQuery: a blank query. InvalidInput: a malformed namespace, a limit out of range, an unknown mode.
        UnknownMemoryType. ScopeNotFound: no such namespace (or acting scope). ScopeNotVisible:
        ``acting`` does not see ``namespace``.
    """
    if not query or not query.strip():
        raise EmptyQuery("the query is empty: say what to recall")
    if not 1 <= limit <= MAX_RECALL:
        raise InvalidInput(f"the limit is between 1 and {MAX_RECALL}, not {limit}")
    types = parse_memory_types(memory_types)
    if not namespace or not namespace.strip():
        raise InvalidInput("the namespace is empty: give a scope path such as 'project/vantage-starter'")
    target = resolve_scope(lib, namespace)
    acting_path = target if acting is None else resolve_scope(lib, acting)
    if target not in {v.path for v in visible_scopes(lib, acting_path)}:
        raise ScopeNotVisible(f"{acting_path} cannot recall {target}: {visibility_rule(lib, acting_path, target)}")
    statuses = (*RECALLED_STATUSES, DocumentStatus.ARCHIVED) if include_archived else RECALLED_STATUSES
    response = topic_search(lib, query, scope=acting_path, scopes=[target], statuses=statuses, memory_types=types,
                            limit=limit, mode=mode, types=None)
    return Recall(query=query, namespace=target, warnings=response.warnings, mode=response.mode,
                  mode_reason=response.mode_reason, memories=[
        RecalledMemory(id=h.document.id, memory_type=h.document.memory_type, type=h.document.type.value,
                       title=h.document.title, content=_cut(h.document.content or h.snippet),
                       namespace=h.document.scope, score=round(h.relevance, 4), status=h.document.status,
                       tags=list(h.document.tags), created_at=h.document.created_at, snippet=h.snippet,
                       topics=h.breadcrumbs)
        for h in response.hits])


def _cut(text: str) -> str:
    return text if len(text) <= CONTENT_LIMIT else text[: CONTENT_LIMIT - 1].rstrip() + "…"


NO_MEMORY_TYPE = "none"
"""What the faces call "no memory type" (``memory type doc_… none``, the app's picker's first item)."""


def set_memory_type(lib: Library, document_id: str, memory_type: str | MemoryType | None, *,
                    acting_scope: str | None = None, actor: str | None = None,
                    user_action: UserAction | None = None) -> DocumentInfo:
    """Say what a note is for as an agent memory (or that it is none): ``memory type doc_… feedback`` and the
    app's Memory type picker. A column of the document, filtered in SQL: nothing to re-index. The change is
    an audit entry (``memory_type``) naming the old and new types; with ``user_action`` (a person's change,
    from the app or the CLI) it is on the undo history like a tag change (``services.undo``: payload
    ``{"memory_type": [before, after]}``); an agent's change passes none.

    Args:
        memory_type: ``feedback``, ``project``, ``reference``, ``user``; None or :data:`NO_MEMORY_TYPE`: none.
        acting_scope: the scope acting (default: the current one), which must see the document.
        actor: who changes it (default: the person at this computer; ``user_action.actor`` when given).
        user_action: record the change for undo (``services.undo.user_action`` names it).

    Raises:
        UnknownMemoryType. DocumentNotFound. ScopeNotVisible. InvalidInput: not a note, ``episode`` asked for
        (an episode is recorded with its fields, ``services.episodes``), or an episode to retype.
    """
    wanted = None if memory_type is None or str(memory_type).strip().lower() in ("", NO_MEMORY_TYPE) \
        else parse_memory_type(memory_type)
    if wanted is MemoryType.EPISODE:
        raise InvalidInput("an episode is recorded with its fields (`memory episode add`), not by retyping a note")
    if wanted is MemoryType.ARCHIVED_CHAT:
        raise InvalidInput("an archived chat is written by a conversation's compaction (`chat compact`), not by "
                           "retyping a note")
    acting = resolve_scope(lib, acting_scope)
    with read_session(lib.engine) as session:
        check_read(lib, acting, records.info(lib, session, document_id))
    with write_session(lib.engine) as session:
        row = records.document_row(session, document_id)
        if row.type != DocumentType.NOTE.value:
            raise InvalidInput(f"{document_id} is a {row.type}: only notes are agent memories")
        if row.memory_type == MemoryType.EPISODE.value:
            raise InvalidInput(f"{document_id} is an episode: it stays one (edit it with `memory episode edit`)")
        if row.memory_type == MemoryType.ARCHIVED_CHAT.value:
            raise InvalidInput(f"{document_id} is an archived chat: it stays one (its messages point at it)")
        before = row.memory_type
        if before != (wanted.value if wanted else None):
            row.memory_type, row.updated_at = (wanted.value if wanted else None), utcnow()
            session.add(row)
            reason = f"memory type {before or NO_MEMORY_TYPE} → {wanted or NO_MEMORY_TYPE}"
            if user_action is not None:
                audit.record_user_action(session, row, "memory_type", user_action,
                                         {"memory_type": [before, row.memory_type]}, reason=reason)
            else:
                audit.record(session, row, "memory_type", actor=actor or audit.current_user(), reason=reason)
            records.bump_change_counter(session)
            session.flush()
        return records.info(lib, session, document_id)
