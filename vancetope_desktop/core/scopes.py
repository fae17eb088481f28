"""Scopes: the tree project group > project > session > think process, paths and visibility.

Seed 000 §4: a document belongs to exactly one scope; a scope sees its own memory and its
ancestors', never a sibling's or a descendant's. Search weighs hits by scope proximity (§5.3).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from .errors import InvalidInput


class ScopeKind(StrEnum):
    """The scope kinds: the tree's four in tree order, then ``agent``.

    An agent scope (issue 12, seed 001's ``orchestrator/tau``) is an agent's own memory that outlives its
    sessions and think processes; it hangs under a project group or a project. A session or think process
    run by that agent also sees it (``services.scopes``, the ``agent`` scope setting).
    """

    GROUP = "group"
    PROJECT = "project"
    SESSION = "session"
    THINK_PROCESS = "think-process"
    AGENT = "agent"

    @property
    def parent_kinds(self) -> tuple[ScopeKind, ...]:
        """The kinds a scope of this kind may hang under: none for a group, one for the tree's other kinds,
        a project group or a project for an agent."""
        return _PARENT_KINDS[self]

    @property
    def child_kind(self) -> ScopeKind | None:
        """The tree kind made by "new scope inside" one of this kind (None for think processes and agents)."""
        return next((k for k in ScopeKind if k.parent_kinds == (self,)), None)

    @property
    def label(self) -> str:
        """Human label: 'Project Group', 'Project', 'Session', 'Think Process', 'Agent'."""
        return {"group": "Project Group", "think-process": "Think Process"}.get(self.value, self.title())


_PARENT_KINDS = {
    ScopeKind.GROUP: (), ScopeKind.PROJECT: (ScopeKind.GROUP,), ScopeKind.SESSION: (ScopeKind.PROJECT,),
    ScopeKind.THINK_PROCESS: (ScopeKind.SESSION,), ScopeKind.AGENT: (ScopeKind.GROUP, ScopeKind.PROJECT),
}


_KIND_ALIASES = {
    "group": ScopeKind.GROUP, "project-group": ScopeKind.GROUP, "grp": ScopeKind.GROUP,
    "project": ScopeKind.PROJECT, "proj": ScopeKind.PROJECT,
    "session": ScopeKind.SESSION, "sess": ScopeKind.SESSION,
    "think-process": ScopeKind.THINK_PROCESS, "thinkprocess": ScopeKind.THINK_PROCESS,
    "think_process": ScopeKind.THINK_PROCESS, "tp": ScopeKind.THINK_PROCESS,
    "agent": ScopeKind.AGENT, "orchestrator": ScopeKind.AGENT,  # seed 001 names agents orchestrator/tau
}


def parse_kind(text: str) -> ScopeKind:
    """Parse a scope kind, accepting the seed's spellings (``think-process``, ``thinkProcess``, ``tp``).

    Raises:
        InvalidInput: for an unknown kind.
    """
    kind = _KIND_ALIASES.get(text.strip().lower())
    if kind is None:
        raise InvalidInput(f"unknown scope kind {text!r} (use group, project, session, think-process or agent)")
    return kind


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def validate_scope_key(key: str) -> str:
    """Check a user-chosen scope id (``proj_5``, ``Über Attention (2023)``, ``日本語``) and return it stripped.

    Any printable text of 1–200 characters is allowed except ``/`` (the path separator).

    Raises:
        InvalidInput: empty, too long, containing ``/`` or control characters.
    """
    key = key.strip()
    if not key:
        raise InvalidInput("a scope id cannot be empty")
    if len(key) > 200:
        raise InvalidInput("a scope id has at most 200 characters")
    if "/" in key or _CONTROL.search(key):
        raise InvalidInput(f"a scope id cannot contain '/' or control characters: {key!r}")
    return key


@dataclass(frozen=True, order=True)
class ScopePath:
    """A scope's identity written like the seed: ``project/proj_5``, ``think-process/tp_12``."""

    kind: ScopeKind
    key: str

    @classmethod
    def parse(cls, text: str) -> ScopePath:
        """Parse ``KIND/KEY``.

        Raises:
            InvalidInput: when there is no ``/``, the kind is unknown or the key is invalid.
        """
        kind_text, sep, key = text.strip().partition("/")
        if not sep:
            raise InvalidInput(f"a scope path looks like 'project/proj_5', not {text!r}")
        return cls(parse_kind(kind_text), validate_scope_key(key))

    def __str__(self) -> str:
        return f"{self.kind.value}/{self.key}"


DEFAULT_PROXIMITY_WEIGHTS: tuple[float, ...] = (1.0, 0.8, 0.5, 0.3)
"""Seed §5.3 weights by distance from the acting scope: own 1.0, parent 0.8, grandparent 0.5, 0.3.

From a think process these are exactly the seed's think process / session / project / group weights;
from a project, its own memory weighs 1.0 and its group 0.8 (proximity, not kind, decides).
"""


def proximity_weight(distance: int, weights: tuple[float, ...] = DEFAULT_PROXIMITY_WEIGHTS) -> float:
    """Weight of a hit ``distance`` steps up the tree from the acting scope (0 = own scope).

    Raises:
        InvalidInput: for a negative distance.
    """
    if distance < 0:
        raise InvalidInput("a scope distance cannot be negative")
    return weights[min(distance, len(weights) - 1)]
