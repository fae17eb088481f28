"""Episodes (issue 12, seed 001 "Épisodes"): structured records of what happened during an agent's work.

An episode is an agent memory of type ``episode``: a note whose metadata ``episode`` holds the seed's
fields (context, goal, action, outcome, insight, severity, created_by) and whose text is those fields
labelled (``core.memories.episode_text``), so both the keyword and the meaning index find every field:
"Convex deploy schema vector index" recalls the seed's example. Recall finds episodes like any memory
(``services.memories.recall`` with ``memory_types=["episode"]``); this module stores, lists and reads them.
"""

from __future__ import annotations

import logging

from ..core.documents import DocumentInfo, DocumentStatus, DocumentType, Source
from ..core.errors import InvalidEpisode
from ..core.memories import EPISODE_FIELDS, EPISODE_KEY, Episode, MemoryType, Severity, episode_text
from ..core.undo import UserAction
from . import documents
from .library import Library
from .scopes import resolve_scope

_log = logging.getLogger(__name__)

TITLE_LENGTH = 80
"""An episode's title is its goal, cut to this many characters (the list shows goal, outcome and insight)."""
LISTED_STATUSES = (DocumentStatus.ACTIVE, DocumentStatus.STALE)
"""What :func:`list_episodes` returns unless archived ones are asked for."""


def store_episode(lib: Library, namespace: str, context: str, goal: str, action: str, outcome: str, insight: str,
                  severity: str, created_by: str, *, source: Source | None = None) -> Episode:
    """Store an episode in ``namespace`` and queue its indexing (one transaction: all of it or nothing).

    Args:
        namespace: the scope path it belongs to, e.g. ``agent/tau``.
        context, goal, action, outcome, insight: the seed's fields; none may be blank.
        severity: ``minor``, ``major`` or ``critical``.
        created_by: who records it (a person's name, ``agent/tau``, a think process).
        source: provenance of the note (default: manual).

    Raises:
        InvalidEpisode: a missing or blank field (the message names every one), an unknown severity.
        ScopeNotFound / InvalidInput: an unknown or malformed namespace.
    """
    fields = {"context": context, "goal": goal, "action": action, "outcome": outcome, "insight": insight,
              "created_by": created_by}
    missing = [name for name, value in fields.items() if not isinstance(value, str) or not value.strip()]
    if missing:
        raise InvalidEpisode(f"the episode has no {', '.join(missing)}: every field of context, goal, action, "
                             "outcome, insight and created_by is needed")
    level = _severity(severity)
    scope = resolve_scope(lib, namespace)
    clean = {name: value.strip() for name, value in fields.items()}
    doc = documents.add_text(lib, episode_text(clean, level), doc_type=DocumentType.NOTE, title=_title(clean["goal"]),
                             scope=scope,
                             source=source, memory_type=MemoryType.EPISODE,
                             metadata={EPISODE_KEY: {**clean, "severity": level.value}})
    return card(doc)


def update_episode(lib: Library, episode_id: str, *, context: str | None = None, goal: str | None = None,
                   action: str | None = None, outcome: str | None = None, insight: str | None = None,
                   severity: str | None = None, acting_scope: str | None = None,
                   user_action: UserAction | None = None) -> Episode:
    """Change fields of an episode: its metadata ``episode``, its labelled text (re-indexed) and its title (the
    goal) change together, in one transaction, the previous state kept as a version (``documents.update_document``,
    so a person's edit given ``user_action`` is undone like any edit). Fields left None keep their value;
    ``created_by`` stays who recorded it (the audit entry names who edited).

    Args:
        acting_scope: when given, the episode must be readable from it (``services.sharing.check_read``).

    Returns:
        The edited card (unchanged when every given field equals the stored one).

    Raises:
        InvalidEpisode: a blank field (the message names every one), an unknown severity, not an episode.
        DocumentNotFound. ScopeNotVisible.
    """
    current = episode(lib, episode_id, acting_scope=acting_scope)
    given = {"context": context, "goal": goal, "action": action, "outcome": outcome, "insight": insight}
    blank = [name for name, value in given.items() if value is not None and not value.strip()]
    if blank:
        raise InvalidEpisode(f"an episode's {', '.join(blank)} cannot be blank")
    level = current.severity if severity is None else _severity(severity)
    clean = {name: (getattr(current, name) if value is None else value.strip()) for name, value in given.items()}
    if clean == {name: getattr(current, name) for name in EPISODE_FIELDS} and level is current.severity:
        return current
    fields = {**clean, "created_by": current.created_by, "severity": level.value}
    doc = documents.update_document(lib, current.id, title=_title(clean["goal"]), content=episode_text(clean, level),
                                    metadata={EPISODE_KEY: fields}, reason="episode edited", user_action=user_action)
    return card(doc)


def list_episodes(lib: Library, namespace: str, severity: str | None = None, text: str | None = None, *,
                  include_archived: bool = False, limit: int | None = None) -> list[Episode]:
    """The episodes of ``namespace`` itself (not its ancestors'), newest first.

    Args:
        severity: only episodes of this severity.
        text: only episodes holding this text in one of their fields (case-insensitive; a namespace holds
            hundreds of episodes at most, so the match runs here rather than in SQL).
        include_archived: archived episodes too.

    Raises:
        InvalidEpisode: an unknown severity. ScopeNotFound / InvalidInput: a bad namespace.
    """
    level = None if severity is None else _severity(severity)
    statuses = (*LISTED_STATUSES, DocumentStatus.ARCHIVED) if include_archived else LISTED_STATUSES
    docs = documents.list_documents(lib, scope=resolve_scope(lib, namespace), include_ancestors=False,
                                    types=[DocumentType.NOTE], memory_types=[MemoryType.EPISODE], statuses=statuses)
    found = []
    for doc in docs:
        try:
            found.append(card(doc))
        except InvalidEpisode as error:  # one damaged by hand must not hide the others
            _log.warning("%s", error)
    needle = (text or "").strip().casefold()
    found = [e for e in found if (level is None or e.severity is level)
             and (not needle or any(needle in getattr(e, f).casefold() for f in EPISODE_FIELDS))]
    return found[:limit] if limit else found


def episode(lib: Library, episode_id: str, *, acting_scope: str | None = None) -> Episode:
    """One episode's card by its document id.

    Args:
        acting_scope: when given, the episode must be readable from it (``services.sharing.check_read``).

    Raises:
        DocumentNotFound. ScopeNotVisible. InvalidEpisode: the document is not an episode.
    """
    return card(documents.get_document(lib, episode_id.strip(), acting_scope=acting_scope))


def card(doc: DocumentInfo) -> Episode:
    """``doc``'s episode card. Raises InvalidEpisode when it is not an episode (or its fields are damaged)."""
    fields = doc.metadata.get(EPISODE_KEY)
    if doc.memory_type is not MemoryType.EPISODE or not isinstance(fields, dict):
        raise InvalidEpisode(f"{doc.id} is not an episode (read it with `memory read {doc.id}`)")
    try:
        return Episode(id=doc.id, namespace=doc.scope, **{f: fields[f] for f in (*EPISODE_FIELDS, "created_by")},
                       severity=Severity(fields["severity"]), created_at=doc.created_at, updated_at=doc.updated_at,
                       status=doc.status.value)
    except (KeyError, ValueError) as error:  # metadata edited by hand
        raise InvalidEpisode(f"{doc.id} is an episode with damaged fields ({error}): read it with `memory read`") \
            from None


def _title(goal: str) -> str:
    """An episode's title: its goal on one line, cut to :data:`TITLE_LENGTH` characters."""
    line = " ".join(goal.split())
    return line if len(line) <= TITLE_LENGTH else line[: TITLE_LENGTH - 1].rstrip() + "…"


def _severity(value: str) -> Severity:
    try:
        return Severity(str(value).strip().lower())
    except ValueError:
        raise InvalidEpisode(f"unknown severity {value!r}: use one of "
                             f"{', '.join(s.value for s in Severity)}") from None
