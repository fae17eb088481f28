"""How the window words scopes: a document's place relative to the acting scope, and scope paths in free text.

A document listed in a scope is its own, inherited from an ancestor, a result shared by a sibling
think process (that think process's sibling-results setting, ``VisibleScope.results_only``), or a memory of
the agent that runs the session (``services.scopes.set_agent``, ``VisibleScope.via_agent``). Only its
own documents are editable there. A document of a scope inside the acting one is never listed, but the
window can show it: a request to promote it here is being reviewed, or its tab was opened before the
scope was switched; it is not inherited (inheritance goes down the tree, never up). Pure functions
over plain values (no widgets).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from enum import StrEnum
from functools import lru_cache

from ..core.scope_info import ScopeInfo, VisibleScope


class ScopeRelation(StrEnum):
    """Where a document lives, seen from the acting scope."""

    OWN = "own"
    INHERITED = "inherited"  # an ancestor scope: shared with every scope below it
    SIBLING = "sibling"  # a sibling think process whose results this one sees
    AGENT = "agent"  # the agent scope that runs this session or think process: the agent's own memory
    INSIDE = "inside"  # a scope below the acting one: seen only through a promotion request
    OTHER = "other"  # any other scope the acting one does not see

    @property
    def read_only(self) -> bool:
        """Whether documents so placed are read-only in the acting scope (all but its own)."""
        return self is not ScopeRelation.OWN


BADGES = {ScopeRelation.OWN: "", ScopeRelation.INHERITED: "↑", ScopeRelation.SIBLING: "↔",
          ScopeRelation.AGENT: "⚙", ScopeRelation.INSIDE: "↓", ScopeRelation.OTHER: "→"}
"""The mark before a scope's name: up the tree, across to a sibling, the agent at work, down the tree, or
elsewhere."""


def sibling_paths(visible: Iterable[VisibleScope]) -> frozenset[str]:
    """The paths of the sibling think processes among ``visible`` (those seen for their results only)."""
    return frozenset(v.path for v in visible if v.results_only)


def agent_paths(visible: Iterable[VisibleScope]) -> frozenset[str]:
    """The path of the agent scope among ``visible`` that runs the acting scope (``via_agent``), if any."""
    return frozenset(v.path for v in visible if v.via_agent)


def descendant_paths(scopes: Iterable[ScopeInfo], path: str) -> frozenset[str]:
    """The paths of every scope below ``path`` in the tree ``scopes`` (``path`` itself excluded)."""
    children: dict[str, list[str]] = {}
    for scope in scopes:
        if scope.parent:
            children.setdefault(scope.parent, []).append(scope.path)
    found: set[str] = set()
    waiting = list(children.get(path, ()))
    while waiting:
        child = waiting.pop()
        if child not in found:
            found.add(child)
            waiting.extend(children.get(child, ()))
    return frozenset(found)


def scope_relation(path: str, current: str, siblings: Iterable[str] = (), *,
                   ancestors: Iterable[str] | None = None, inside: Iterable[str] = (),
                   agents: Iterable[str] = ()) -> ScopeRelation:
    """How a document of scope ``path`` relates to the acting scope ``current``.

    Args:
        path: the document's scope path.
        current: the acting scope's path ("" when unknown: everything counts as own).
        siblings: paths of the sibling think processes ``current`` sees (:func:`sibling_paths`).
        ancestors: paths of ``current``'s ancestors; None when the document is known to be listed in
            ``current`` (then anything not own or a sibling's is inherited).
        inside: paths of the scopes below ``current`` (:func:`descendant_paths`).
        agents: the agent scope that runs ``current`` (:func:`agent_paths`).

    Returns:
        OWN for ``current`` itself, SIBLING for a sibling, AGENT for the agent that runs it, INHERITED for an
        ancestor, INSIDE for a scope below ``current``, OTHER for any other.
    """
    if not current or path == current:
        return ScopeRelation.OWN
    if path in set(siblings):
        return ScopeRelation.SIBLING
    if path in set(agents):
        return ScopeRelation.AGENT
    if ancestors is None or path in set(ancestors):
        return ScopeRelation.INHERITED
    return ScopeRelation.INSIDE if path in set(inside) else ScopeRelation.OTHER


def badge_text(name: str, relation: ScopeRelation) -> str:
    """A scope's name with its relation's mark: ``"↑ Inbox"``, ``"↔ Hypothesis Check"``, ``"Reading week"``."""
    badge = BADGES[relation]
    return f"{badge} {name}" if badge else name


def where_text(name: str, relation: ScopeRelation) -> str:
    """Where a document lives, as a phrase: ``"Inbox"``, ``"sibling think process Hypothesis Check"``, ``"agent
    Tau"``."""
    if relation is ScopeRelation.SIBLING:
        return f"sibling think process {name}"
    return f"agent {name}" if relation is ScopeRelation.AGENT else name


def read_only_note(name: str, relation: ScopeRelation) -> str:
    """The Details panel's note under the title of a read-only document ("" for an own document)."""
    if relation is ScopeRelation.SIBLING:
        return f"From sibling think process {name} (its results are shared with this one): read-only here"
    if relation is ScopeRelation.AGENT:
        return f"From the memory of agent {name}, which runs this scope: read-only here"
    if relation is ScopeRelation.INHERITED:
        return f"Inherited from {name}: read-only here"
    if relation is ScopeRelation.INSIDE:
        return (f"From {name}, a scope inside this one (not inherited: it reaches this scope when promoted): "
                "read-only here")
    if relation is ScopeRelation.OTHER:
        return f"From {name}, a scope this one does not see: read-only here"
    return ""


def refusal_text(title: str, name: str, relation: ScopeRelation, doing: str, more: int = 0) -> str:
    """Why an edit of a read-only document is refused, and where to make it (for the status bar).

    Args:
        title: the document's title.
        name: its scope's name.
        relation: INHERITED, SIBLING or AGENT.
        doing: what was refused, as an infinitive phrase (``"rename it"``, ``"move it to the trash"``).
        more: other documents refused with it.

    Returns:
        e.g. ``"“Draft” belongs to Inbox (and 2 more from other scopes): it is read-only here; switch to
        Inbox to rename it"``.
    """
    others = f" (and {more} more from other scopes)" if more else ""
    return (f"“{title}” belongs to {where_text(name, relation)}{others}: it is read-only here; "
            f"switch to {name} to {doing}")


@lru_cache(maxsize=8)
def _paths_pattern(paths: tuple[str, ...]) -> re.Pattern[str]:
    # Longest first, so "session/a-b" wins over "session/a"; a path must not run on into a longer word
    # ("session/a" inside "session/a2"), though a sentence's full stop may follow it.
    alternatives = "|".join(re.escape(p) for p in sorted(paths, key=len, reverse=True))
    return re.compile(rf"(?<![\w/-])(?:{alternatives})(?![\w/-]|\.\w)")


def name_scope_paths(text: str, scope_names: Mapping[str, str]) -> str:
    """``text`` with every known scope path in it replaced by the scope's name.

    Reasons written by the services name scopes by path ("promoted by hand to session/review-2026");
    the window shows names ("… to Literature review"). Paths not in ``scope_names`` (an archived
    scope) stay as they are.

    Args:
        text: free text (a request's or an audit entry's reason).
        scope_names: ``{scope path: name}`` (the snapshot's ``scope_names``).

    Returns:
        The text with names for paths; unchanged when it holds no known path.
    """
    paths = tuple(p for p in scope_names if p and p in text)
    if not paths:
        return text
    return _paths_pattern(paths).sub(lambda m: scope_names.get(m.group()) or m.group(), text)
