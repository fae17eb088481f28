"""Scopes: create, list, rename, archive, pick the current one, and compute what a scope may see (seed §4.2)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from sqlalchemy import text
from sqlmodel import Session, select

from ..core.errors import InvalidInput, ScopeError, ScopeNotFound
from ..core.scope_info import ScopeInfo, VisibleScope
from ..core.scopes import ScopeKind, ScopePath, parse_kind, proximity_weight, validate_scope_key
from ..store import tables
from ..store.db import get_meta, read_session, set_meta, write_session
from ..store.dialect_sql import SqlForms
from ..store.filters import SqlFilter
from . import records
from .library import Library

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


SIBLING_RESULTS_KEY = "sibling_results_visible"
"""The key of a think process's settings that lets it see its sibling think processes' results."""
AGENT_KEY = "agent"
"""The key of a session's or think process's settings naming the agent scope that runs it (:func:`set_agent`)."""
RUN_BY_AGENT_KINDS = (ScopeKind.SESSION, ScopeKind.THINK_PROCESS)
"""The kinds an agent runs: the work that comes and goes, while the agent's own scope stays."""


def _info(row: tables.ScopeRow) -> ScopeInfo:
    agent = (row.settings or {}).get(AGENT_KEY)
    return ScopeInfo(path=row.path, kind=ScopeKind(row.kind), key=row.key, name=row.name,
                     parent=row.parent_path, archived=row.archived, created_at=row.created_at,
                     sibling_results_visible=(row.settings or {}).get(SIBLING_RESULTS_KEY) is True,
                     agent=agent if isinstance(agent, str) else None)


def create_scope(lib: Library, kind: str, key: str, *, parent: str | None = None, name: str | None = None,
                 agent: str | None = None) -> ScopeInfo:
    """Create a scope ``kind/key`` under ``parent`` (a group has no parent).

    Args:
        kind: group, project, session, think-process or agent (aliases accepted, e.g. ``orchestrator``).
        key: the scope's id, e.g. ``tp_12``; any printable text without ``/``.
        parent: the parent scope's path; required for every kind but group. When omitted, the current
            scope's nearest ancestor of a fitting kind is used (an agent's: its project, else its group).
        name: human name; defaults to the key.
        agent: for a session or think process, the agent scope that runs it (:func:`set_agent`).

    Raises:
        InvalidInput: bad kind or key. ScopeNotFound: unknown parent or agent.
        ScopeError: the path exists already, the parent is of the wrong kind, or the agent cannot run it.
    """
    path = ScopePath(parse_kind(kind), validate_scope_key(key))
    with write_session(lib.engine) as session:
        if session.get(tables.ScopeRow, str(path)) is not None:
            raise ScopeError(f"scope {path} exists already")
        expected = path.kind.parent_kinds
        if not expected:
            if parent:
                raise ScopeError("a project group has no parent")
            parent_path = None
        else:
            parent_path = parent or _default_parent(session, expected)
            parent_row = session.get(tables.ScopeRow, str(ScopePath.parse(parent_path)))
            if parent_row is None:
                raise ScopeNotFound(f"no scope {parent_path}")
            if parent_row.kind not in expected:
                raise ScopeError(f"a {path.kind.label} belongs under a {_either(expected)}, not under "
                                 f"{parent_row.path}")
            parent_path = parent_row.path
        row = tables.ScopeRow(path=str(path), kind=path.kind.value, key=path.key,
                              name=(name or path.key).strip() or path.key, parent_path=parent_path)
        session.add(row)
        session.flush()
        if agent is not None:
            _set_agent(session, row, agent)
        return _info(row)


def _either(kinds: Sequence[ScopeKind]) -> str:
    return " or a ".join(k.label for k in kinds)


def _default_parent(session: Session, kinds: Sequence[ScopeKind]) -> str:
    current = get_meta(session, "current_scope")
    for path in session_ancestry(session, current) if current else []:
        if ScopePath.parse(path).kind in kinds:
            return path
    raise ScopeError(f"give --parent: the current scope has no {_either(kinds)} above it")


def set_agent(lib: Library, path: str, agent: str | None) -> ScopeInfo:
    """Say that the agent scope ``agent`` runs session or think process ``path`` (None: no agent runs it).

    A scope run by an agent also sees that agent's own memory, at its parent's distance
    (:func:`visible_scopes`); a think process of a session run by an agent sees it too, unless its own
    setting names another. The agent must hang on ``path``'s branch (under its project or group): an
    agent of another branch would open that branch's memory.

    Raises:
        ScopeNotFound: no scope ``path`` or ``agent``. ScopeError: ``path`` is not a session or think
        process, ``agent`` is not an agent scope or is off ``path``'s branch.
    """
    path = resolve_scope(lib, path)
    with write_session(lib.engine) as session:
        row = session.get(tables.ScopeRow, path)
        assert row is not None  # resolve_scope checked it
        _set_agent(session, row, agent)
        records.bump_change_counter(session)
        session.flush()
        return _info(row)


def _set_agent(session: Session, row: tables.ScopeRow, agent: str | None) -> None:
    """Write ``row``'s agent setting after checking it (:func:`set_agent`), inside the caller's transaction."""
    if ScopeKind(row.kind) not in RUN_BY_AGENT_KINDS:
        raise ScopeError(f"{row.path} is a {ScopeKind(row.kind).label.lower()}: an agent runs sessions and "
                         "think processes (its own memory is its agent scope)")
    settings = dict(row.settings or {})
    if agent is None:
        settings.pop(AGENT_KEY, None)
    else:
        agent_path = str(ScopePath.parse(agent))
        agent_row = session.get(tables.ScopeRow, agent_path)
        if agent_row is None:
            raise ScopeNotFound(f"no scope {agent_path} (create it: `vancetope scope create agent/KEY --parent "
                                "project/…`)")
        if agent_row.kind != ScopeKind.AGENT.value:
            raise ScopeError(f"{agent_path} is not an agent scope")
        if agent_row.parent_path not in session_ancestry(session, row.path):
            raise ScopeError(f"{agent_path} belongs to {agent_row.parent_path}, which {row.path} is not under: an "
                             "agent runs the sessions of its own project or group")
        settings[AGENT_KEY] = agent_path
    row.settings = settings  # a new dict: SQLAlchemy notices a JSON column change only on assignment
    session.add(row)


def session_ancestry(session: Session, path: str) -> list[str]:
    """``path`` then its parent, grandparent … up to the group, in one recursive query.

    Raises:
        ScopeNotFound: no scope ``path``.
    """
    rows = session.exec(text(
        "WITH RECURSIVE up(path, parent_path, depth) AS (SELECT path, parent_path, 0 FROM scope WHERE path = :path "
        "UNION ALL SELECT s.path, s.parent_path, up.depth + 1 FROM scope s JOIN up ON s.path = up.parent_path "
        f"WHERE up.depth < {_MAX_DEPTH}) SELECT path FROM up ORDER BY depth"), params={"path": path}).all()
    if not rows:
        raise ScopeNotFound(f"no scope {path}")
    return list(dict.fromkeys(row[0] for row in rows))  # a damaged parent loop ends at its first repeat


_MAX_DEPTH = 16
"""The longest chain of parents followed; the tree has four levels, so only a damaged parent loop reaches it."""


def resolve_scope(lib: Library, text: str | None) -> str:
    """Turn a scope given by a user into a path: ``None`` → the current scope, a path → itself.

    Raises:
        ScopeNotFound: no such scope. InvalidInput: malformed path.
    """
    with read_session(lib.engine) as session:
        return session_resolve_scope(session, text)


def session_resolve_scope(session: Session, text: str | None) -> str:
    """:func:`resolve_scope` inside the caller's session."""
    if text is None:
        return get_meta(session, "current_scope") or ""
    path = str(ScopePath.parse(text))
    if session.get(tables.ScopeRow, path) is None:
        raise ScopeNotFound(f"no scope {path} (see `vancetope scope list`)")
    return path


def get_scope(lib: Library, path: str) -> ScopeInfo:
    """One scope by path. Raises ScopeNotFound."""
    with read_session(lib.engine) as session:
        row = session.get(tables.ScopeRow, path)
        if row is None:
            raise ScopeNotFound(f"no scope {path}")
        return _info(row)


def list_scopes(lib: Library, *, include_archived: bool = False) -> list[ScopeInfo]:
    """Every scope, parents before children (depth first, by name)."""
    with read_session(lib.engine) as session:
        rows = session.exec(select(tables.ScopeRow)).all()
    children: dict[str | None, list[tables.ScopeRow]] = {}
    for row in rows:
        if include_archived or not row.archived:
            children.setdefault(row.parent_path, []).append(row)
    ordered: list[ScopeInfo] = []

    def walk(parent: str | None) -> None:
        for row in sorted(children.get(parent, []), key=lambda r: (r.name.casefold(), r.path)):
            ordered.append(_info(row))
            walk(row.path)

    walk(None)
    return ordered


def current_scope(lib: Library) -> str:
    """The current scope's path (persisted in the library)."""
    return resolve_scope(lib, None)


def use_scope(lib: Library, path: str) -> ScopeInfo:
    """Make ``path`` the current scope. Raises ScopeNotFound."""
    path = resolve_scope(lib, path)
    with write_session(lib.engine) as session:
        set_meta(session, "current_scope", path)
    return get_scope(lib, path)


def visible_scopes(lib: Library, path: str) -> list[VisibleScope]:
    """The scopes ``path`` sees: itself then each ancestor, with distance and search weight.

    Seed §4.2: a scope sees its own memory and its ancestors', never a sibling's or a descendant's.
    Two exceptions, both chosen per scope and both weighted as the acting scope's parent (distance 1,
    0.8 with the default weights), come after the ancestors:

    * a session or think process run by an agent (:func:`set_agent`; a think process inherits its
      session's agent) sees that agent's scope (``via_agent``): the agent's own memory, its lessons and
      state, is as near to its work as the session is to a think process. Another agent's scope is
      never visible.
    * seed §9 question 2's opt-in: a think process whose sibling-results setting is on
      (:func:`set_sibling_results_visible`) also sees the *results* of the other think processes of its
      session (``results_only``).

    Raises:
        ScopeNotFound.
    """
    with read_session(lib.engine) as session:
        return session_visible_scopes(session, path, lib.settings.scope_weights)


def session_visible_scopes(session: Session, path: str, weights: Sequence[float]) -> list[VisibleScope]:
    """:func:`visible_scopes` inside the caller's session, with the library's ``scope_weights``."""
    chain = session_ancestry(session, path)
    siblings = _sibling_think_processes(session, path) if sibling_results_visible_in(session, path) else []
    agent = running_agent(session, chain)
    own = [VisibleScope(path=p, distance=d, weight=proximity_weight(d, weights)) for d, p in enumerate(chain)]
    run_by = [VisibleScope(path=agent, distance=1, weight=proximity_weight(1, weights), via_agent=True)] \
        if agent else []
    return own + run_by + [VisibleScope(path=p, distance=1, weight=proximity_weight(1, weights), results_only=True)
                           for p in siblings]


def running_agent(session: Session, chain: Sequence[str]) -> str | None:
    """The agent scope that runs the first scope of ``chain`` (a scope then its ancestors): the nearest
    ``agent`` setting up the chain, if its agent scope exists; else None."""
    for path in chain:
        row = session.get(tables.ScopeRow, path)
        agent = (row.settings or {}).get(AGENT_KEY) if row is not None else None
        if isinstance(agent, str):
            return agent if session.get(tables.ScopeRow, agent) is not None else None
    return None


def visibility_filter(lib: Library, path: str, *, include_ancestors: bool = True) -> SqlFilter:
    """A filter over ``document d`` for what ``path`` sees: its own documents and (``include_ancestors``) its
    ancestors', plus its siblings' results when the sibling-results setting is on (:func:`visible_scopes`).

    Raises:
        ScopeNotFound.
    """
    if not include_ancestors:
        return SqlFilter(SqlForms.of(lib.engine)).and_in("scope_path", [path])
    visible = visible_scopes(lib, path)
    return SqlFilter(SqlForms.of(lib.engine)).and_scopes([v.path for v in visible if not v.results_only],
                                  [v.path for v in visible if v.results_only])


def sibling_results_visible_in(session: Session, path: str) -> bool:
    """Whether think process ``path`` has its sibling-results setting on (False for other kinds)."""
    row = session.get(tables.ScopeRow, path)
    return row is not None and row.kind == ScopeKind.THINK_PROCESS.value and \
        (row.settings or {}).get(SIBLING_RESULTS_KEY) is True


def _sibling_think_processes(session: Session, path: str) -> list[str]:
    row = session.get(tables.ScopeRow, path)
    if row is None or row.parent_path is None:
        return []
    return sorted(session.exec(select(tables.ScopeRow.path).where(
        tables.ScopeRow.parent_path == row.parent_path, tables.ScopeRow.kind == ScopeKind.THINK_PROCESS.value,
        tables.ScopeRow.path != path,
    )).all())


def set_sibling_results_visible(lib: Library, path: str, visible: bool) -> ScopeInfo:
    """Let think process ``path`` see (or stop seeing) the results of its session's other think processes.

    Seed §9 question 2 ("opt-in via Think Process Config"): off by default. When on, search, the
    start-of-work context and reading by id from ``path`` include documents of type ``result`` in the
    sibling think processes; their notes and facts stay private.

    Raises:
        ScopeNotFound. InvalidInput: ``path`` is not a think process.
    """
    path = resolve_scope(lib, path)
    with write_session(lib.engine) as session:
        row = session.get(tables.ScopeRow, path)
        assert row is not None  # resolve_scope checked it
        if row.kind != ScopeKind.THINK_PROCESS.value:
            raise InvalidInput(f"{path} is not a think process: only think processes see their siblings' results")
        # A new dict: SQLAlchemy notices a JSON column change only on assignment.
        row.settings = {**(row.settings or {}), SIBLING_RESULTS_KEY: bool(visible)}
        session.add(row)
        records.bump_change_counter(session)
        session.flush()
        return _info(row)


def subtree(lib: Library, path: str) -> list[str]:
    """``path`` and every scope below it, breadth first: the scopes that see ``path``'s memory. Raises ScopeNotFound."""
    path = resolve_scope(lib, path)
    with read_session(lib.engine) as session:
        return _subtree({r.path: r for r in session.exec(select(tables.ScopeRow)).all()}, path)


def ancestry(lib: Library, path: str) -> list[str]:
    """``path`` and its ancestors, nearest first. Raises ScopeNotFound."""
    with read_session(lib.engine) as session:
        return session_ancestry(session, path)


def resolve_relative(lib: Library, start: str, target: str) -> str:
    """Resolve a move target given from ``start``: a kind (``project``) or a full path.

    A bare kind means the scope of that kind on ``start``'s branch (its ancestor of that kind), or for
    ``agent`` the agent scope that runs ``start`` (:func:`set_agent`).

    Raises:
        ScopeNotFound / ScopeError: no such scope on the branch.
    """
    if "/" in target:
        return resolve_scope(lib, target)
    kind = parse_kind(target)
    for path in [v.path for v in visible_scopes(lib, start) if not v.results_only]:
        if path.startswith(kind.value + "/"):
            return path
    raise ScopeError(f"{start} has no {kind.label} above it; give a full scope path")


def rename_scope(lib: Library, path: str, name: str) -> ScopeInfo:
    """Change a scope's human name; its path (``kind/key``), and so every reference to it, stays.

    Raises:
        ScopeNotFound. InvalidInput: a blank name, more than 200 characters, or control characters.
    """
    path = resolve_scope(lib, path)
    name = name.strip()
    if not name:
        raise InvalidInput("a scope name cannot be empty")
    if len(name) > 200 or _CONTROL.search(name):
        raise InvalidInput(f"a scope name has at most 200 characters and no control characters: {name!r}")
    with write_session(lib.engine) as session:
        row = session.get(tables.ScopeRow, path)
        assert row is not None  # resolve_scope checked it
        row.name = name
        session.add(row)
        records.bump_change_counter(session)
        session.flush()
        return _info(row)


def archive_scope(lib: Library, path: str, archived: bool = True) -> ScopeInfo:
    """Archive a scope with everything below it, or bring it back (``archived=False``).

    Archived scopes keep their documents and visibility; they are only hidden from
    :func:`list_scopes`. When the current scope is archived (itself or through an ancestor), the
    nearest ancestor left unarchived becomes current; archiving a whole group falls back to the first
    other unarchived group by name. Unarchiving also unarchives the scope's subtree and its archived
    ancestors, so it is reachable in the tree again.

    Raises:
        ScopeNotFound. ScopeError: archiving the last unarchived group.
    """
    path = resolve_scope(lib, path)
    with write_session(lib.engine) as session:
        rows = {r.path: r for r in session.exec(select(tables.ScopeRow)).all()}
        below = _subtree(rows, path)
        other_groups = sorted((r for r in rows.values() if r.parent_path is None and not r.archived
                               and r.path != path), key=lambda r: (r.name.casefold(), r.path))
        if archived and rows[path].parent_path is None and not other_groups:
            raise ScopeError(f"{path} is the last project group; create another group before archiving it")
        changed = below if archived else below + session_ancestry(session, path)[1:]
        for scope_path in changed:
            rows[scope_path].archived = archived
            session.add(rows[scope_path])
        if archived and get_meta(session, "current_scope") in below:
            ancestors = [p for p in session_ancestry(session, path)[1:] if not rows[p].archived]
            fallback = ancestors[0] if ancestors else other_groups[0].path if other_groups else None
            if fallback is not None:
                set_meta(session, "current_scope", fallback)
        records.bump_change_counter(session)
        session.flush()
        return _info(rows[path])


def _subtree(rows: dict[str, tables.ScopeRow], path: str) -> list[str]:
    """``path`` and every scope below it, breadth first."""
    children: dict[str | None, list[str]] = {}
    for row in rows.values():
        children.setdefault(row.parent_path, []).append(row.path)
    found, frontier = [path], [path]
    while frontier:
        frontier = [c for p in frontier for c in children.get(p, []) if c not in found]
        found.extend(frontier)
    return found

