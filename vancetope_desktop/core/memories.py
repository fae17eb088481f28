"""Agent memories (issue 12, seed 001 "Mémoire"): what a memory is for, the guidance to choose it, episodes.

A memory is a document of type ``note`` whose ``memory_type`` says what it is for. The field is never
called ``type``: that is the document type (a ``reference`` memory is not a ``reference`` document).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from .errors import UnknownMemoryType


class MemoryType(StrEnum):
    """What a memory is for (seed 001 "Types de mémoire"); ``episode`` is written by ``store_episode`` only,
    ``archived_chat`` by a conversation's compaction only (seed 000 §10, ``services.conversations``)."""

    FEEDBACK = "feedback"
    PROJECT = "project"
    REFERENCE = "reference"
    USER = "user"
    EPISODE = "episode"
    ARCHIVED_CHAT = "archived_chat"


MEMORY_TYPE_HINTS = {
    MemoryType.FEEDBACK: "guidance that must change how you work from now on",
    MemoryType.PROJECT: "decisions that explain why the work has its shape",
    MemoryType.REFERENCE: "where an outside resource is (what you would otherwise have to ask the user to find)",
    MemoryType.USER: "a profile of the person you work with",
    MemoryType.EPISODE: "a structured record of something that happened (context, goal, action, outcome, insight, "
                        "severity)",
    MemoryType.ARCHIVED_CHAT: "the summary of a conversation's folded messages, replayed in every later prompt "
                              "(written by compaction)",
}
"""What each memory type is for, one line each (seed 001 "Types de mémoire", translated): the app's picker shows
them beside its items; :data:`MEMORY_TYPE_GUIDANCE` joins them."""

WRITTEN_BY_LIBRARY = (MemoryType.EPISODE, MemoryType.ARCHIVED_CHAT)
"""Memory types nobody gives a note by hand: an episode is recorded with its fields, an archived chat by a
compaction; a note cannot be retyped to or from them."""

MEMORY_TYPE_GUIDANCE = (
    "Choose the memory type: "
    + "; ".join(f"{t.value} for {h}" for t, h in MEMORY_TYPE_HINTS.items() if t not in WRITTEN_BY_LIBRARY)
    + f". episode is different: {MEMORY_TYPE_HINTS[MemoryType.EPISODE]}, stored with memory_store_episode."
)
"""The seed's "choose the right type" guidance (seed 001, translated), the one text reused by the tool
descriptions, the CLI help and the app's picker."""


def parse_memory_type(text: str | MemoryType) -> MemoryType:
    """``text`` as a :class:`MemoryType` (case and surrounding blanks ignored).

    Raises:
        UnknownMemoryType: naming the allowed values.
    """
    if isinstance(text, MemoryType):
        return text
    try:
        return MemoryType(str(text).strip().lower())
    except ValueError:
        raise UnknownMemoryType(f"unknown memory type {text!r}: use one of "
                                f"{', '.join(t.value for t in MemoryType)}") from None


def parse_memory_types(texts: Iterable[str | MemoryType] | None) -> list[MemoryType]:
    """Several memory types (a filter), in order and without repeats; None or empty: no filter (``[]``).

    Raises:
        UnknownMemoryType: at the first unknown one.
    """
    return list(dict.fromkeys(parse_memory_type(t) for t in texts or ()))


class Severity(StrEnum):
    """How much an episode matters (seed 001 "Niveaux de sévérité")."""

    MINOR = "minor"
    MAJOR = "major"
    CRITICAL = "critical"


EPISODE_FIELDS = ("context", "goal", "action", "outcome", "insight")
"""An episode's text fields, in the order its labelled text holds them (then ``Severity``)."""
EPISODE_KEY = "episode"
"""The metadata key of an episode note holding its structured fields (``services.episodes``)."""


class Episode(BaseModel):
    """An episode's card: what happened, in the seed's structured fields, and where it is kept.

    ``id`` is the episode note's document id; ``namespace`` its scope; ``status`` its lifecycle state
    (archived episodes are kept for the record).
    """

    model_config = ConfigDict(frozen=True)

    id: str
    namespace: str
    context: str
    goal: str
    action: str
    outcome: str
    insight: str
    severity: Severity
    created_by: str
    created_at: datetime
    updated_at: datetime
    status: str = "active"


def episode_text(fields: Mapping[str, str], severity: Severity) -> str:
    """The labelled text of an episode (``Context: …`` one line per field, then ``Severity: …``): the text
    both indexes hold, so that a query for any field's words or meaning finds it."""
    lines = [f"{name.title()}: {' '.join(fields[name].split())}" for name in EPISODE_FIELDS]
    return "\n".join([*lines, f"Severity: {severity.value}"])
