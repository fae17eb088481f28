"""Agent memories (issue 12, seed 001 "Mémoire"): what a memory is for, and the guidance to choose it.

A memory is a document of type ``note`` whose ``memory_type`` says what it is for. The field is never
called ``type``: that is the document type (a ``reference`` memory is not a ``reference`` document).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from .errors import UnknownMemoryType


class MemoryType(StrEnum):
    """What a memory is for (seed 001 "Types de mémoire"); ``episode`` is written by ``store_episode`` only."""

    FEEDBACK = "feedback"
    PROJECT = "project"
    REFERENCE = "reference"
    USER = "user"
    EPISODE = "episode"


MEMORY_TYPE_GUIDANCE = (
    "Choose the memory type: feedback for guidance that must change how you work from now on; project for "
    "decisions that explain why the work has its shape; reference for where an outside resource is (what you "
    "would otherwise have to ask the user to find); user for a profile of the person you work with. episode is "
    "different: a structured record of something that happened (context, goal, action, outcome, insight, "
    "severity), stored with memory_store_episode."
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
