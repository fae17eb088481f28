"""The start of an agent's session (issue 12, seed 001 "Pattern de démarrage de session"): three recalls, one block.

The seed loads an agent's context with three recalls: the global lessons (``"conventions and patterns"`` in
``global``, limit 10), the project's context (``"architecture decisions"`` in ``project/…``, 10) and the agent's own
state (``"current work and priorities"`` in ``orchestrator/tau``, 5). :func:`session_start` makes the three with
``services.memories.recall`` and renders them as one Markdown block within a token budget, every memory with its
id and memory type under a heading naming its namespace, plus the same content as a :class:`SessionStart` model.

* **Where "global" is.** The scope tree has no single root (a library holds several project groups) and a scope
  sees itself and its ancestors only, so the seed's ``global`` (the lessons every project of a team shares) is the
  project's group: the widest scope the project's work sees (``group/global`` when the team named it so).
* **What a section holds.** Agent memories only (documents with a ``memory_type``); a scope's papers and plain
  notes are what ``memory_context`` loads. The recall's hits come first, the section's preferred memory types
  ahead of the others (conventions: ``feedback`` then ``project``; the project's decisions: ``project`` then
  ``feedback``), each group in rank order. When the recall finds fewer than the section's limit (the seed's
  queries are generic: before short memories are embedded, only their words match), the namespace's newest
  memories fill the section up, so an agent's current work is loaded even when it never says "priorities". The
  agent's section also takes its :data:`RECENT_EPISODES` newest episodes.
* **The budget**, counted with the embedding model's tokenizer (``Embedder.count_tokens``): the title, the three
  headings and, per non-empty section, a "… N more" line are reserved first (a budget below that raises
  :class:`BudgetTooSmall`). The rest is shared max-min fairly: each section gets an equal share; a section needing
  less gives what it leaves to the others, equally, until every share is used or every section is whole. Within
  its share a section keeps its memories in order, whole (each at most :data:`MAX_ITEM_TOKENS`); the first that
  does not fit is cut at a word and ends in ``…``, the rest are left out, counted on the "… N more" line and
  listed in ``SessionSection.omitted``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from ..core.errors import BudgetTooSmall, EmptyQuery, InvalidInput, NotAnAgentScope, ScopeError, ScopeNotVisible
from ..core.memories import MemoryType
from ..core.scopes import ScopeKind
from . import documents, memories
from .library import Library
from .scopes import ancestry, get_scope, resolve_scope, visible_scopes
from .sharing import visibility_rule
from .token_fit import shorten

CONVENTIONS_QUERY = "conventions and patterns"
DECISIONS_QUERY = "architecture decisions"
STATE_QUERY = "current work and priorities"
"""The seed's three queries (overridable per call)."""
CONVENTIONS_LIMIT, DECISIONS_LIMIT, STATE_LIMIT = 10, 10, 5
"""The seed's limits: 10 global lessons, 10 project memories, 5 of the agent's own state."""
RECENT_EPISODES = 3
"""The agent's newest episodes added to its section (what happened last, whatever the query)."""
DEFAULT_BUDGET = 2000
"""Tokens of the block by default: about 1,500 words, a small share of any agent's context window."""
MAX_BUDGET = 20_000
"""The largest budget accepted (what ``memory_context`` accepts too)."""
MAX_ITEM_TOKENS = 200
"""One memory's line at most, so a long memory cannot take a section's whole share (a memory is a few lines)."""


class SectionKind(StrEnum):
    """The block's three sections, in the seed's order."""

    CONVENTIONS = "conventions"
    DECISIONS = "decisions"
    AGENT = "agent"


_TITLES = {SectionKind.CONVENTIONS: "Conventions", SectionKind.DECISIONS: "Project decisions",
           SectionKind.AGENT: "Agent state"}
_PREFERRED = {SectionKind.CONVENTIONS: (MemoryType.FEEDBACK, MemoryType.PROJECT),
              SectionKind.DECISIONS: (MemoryType.PROJECT, MemoryType.FEEDBACK), SectionKind.AGENT: ()}
EMPTY_LINE = "_Nothing stored yet._"


class SessionMemory(BaseModel):
    """One memory of the block.

    Attributes:
        text: the memory's text as the block shows it (whitespace folded; ending in ``…`` when ``cut``).
        score: recall's relevance (0-1); None for a memory added because it is recent.
        found_by: ``recall`` (a hit of the section's query) or ``recent`` (a newest memory or episode).
    """

    id: str
    memory_type: MemoryType
    namespace: str
    text: str
    cut: bool = False
    score: float | None = None
    found_by: Literal["recall", "recent"] = "recall"


class SessionSection(BaseModel):
    """One recall of the three: its namespace and query, what the block shows, what the budget left out."""

    kind: SectionKind
    heading: str
    namespace: str
    query: str
    memories: list[SessionMemory] = Field(default_factory=list)
    omitted: list[str] = Field(default_factory=list, description="Ids found but left out for the token budget.")


class SessionStart(BaseModel):
    """:func:`session_start`'s answer.

    Attributes:
        markdown: the block (``# Session start …``, then one ``##`` section per recall).
        tokens: its length in the embedding model's tokens, never above ``token_budget``.
        truncated: True when a memory was cut or left out for the budget.
        warnings: the recalls' search warnings (e.g. meaning search unavailable: words only).
    """

    agent: str
    project: str
    conventions: str = Field(description="The namespace of the global conventions: the project's group.")
    markdown: str
    tokens: int
    token_budget: int
    truncated: bool = False
    sections: list[SessionSection] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


@dataclass
class _Entry:
    memory: SessionMemory
    head: str
    body: str


@dataclass
class _Section:
    model: SessionSection
    entries: list[_Entry]
    lines: list[str] = field(default_factory=list)


def session_start(lib: Library, agent_namespace: str, project: str, *, token_budget: int = DEFAULT_BUDGET,
                  acting: str | None = None, conventions_query: str = CONVENTIONS_QUERY,
                  decisions_query: str = DECISIONS_QUERY, state_query: str = STATE_QUERY) -> SessionStart:
    """The seed's three start-of-session recalls for agent ``agent_namespace`` on ``project``, as one block.

    Args:
        agent_namespace: the agent's own scope (kind ``agent``, e.g. ``agent/tau``), hanging under ``project`` or
            its group.
        project: the project scope it works on (``project/foo``); its group holds the global conventions.
        token_budget: the block's length at most, in the embedding model's tokens (1-:data:`MAX_BUDGET`).
        acting: the scope that asks (a session run by the agent, the MCP server's scope), which must see all
            three namespaces; None: the user, who sees every scope.
        conventions_query, decisions_query, state_query: the three recalls' queries (the seed's by default).

    Returns:
        A :class:`SessionStart`: the Markdown block and the same memories per section, with what was left out.

    Raises:
        InvalidInput: a blank namespace or a budget out of range. EmptyQuery: a blank query. ScopeNotFound: no such
        scope. NotAnAgentScope: ``agent_namespace`` is not an agent scope. ScopeError: ``project`` is not a project.
        ScopeNotVisible: the agent belongs to another branch, or ``acting`` does not see a namespace.
        BudgetTooSmall: the budget cannot hold the block's headings.
    """
    if not 1 <= token_budget <= MAX_BUDGET:
        raise InvalidInput(f"the token budget is between 1 and {MAX_BUDGET}, not {token_budget}")
    agent, project_path, group, acting_path = _namespaces(lib, agent_namespace, project, acting)
    plan = ((SectionKind.CONVENTIONS, group, conventions_query, CONVENTIONS_LIMIT),
            (SectionKind.DECISIONS, project_path, decisions_query, DECISIONS_LIMIT),
            (SectionKind.AGENT, agent, state_query, STATE_LIMIT))
    for _kind, _namespace, query, _limit in plan:
        if not query or not query.strip():
            raise EmptyQuery("a query of the session start is empty: say what to recall, or leave it out")
    count = lib.embedder().count_tokens
    title = f"# Session start: {agent} on {project_path}"
    headings = {kind: f"## {_TITLES[kind]} (`{namespace}`)" for kind, namespace, _q, _l in plan}
    # What the budget must hold whatever is found: checked before any search runs.
    floor = count(title) + sum(count(h) + count(_more_line(99)) for h in headings.values())
    if token_budget < floor:
        raise BudgetTooSmall(f"a budget of {token_budget} tokens cannot hold the session start's headings: give at "
                             f"least {floor} (the default is {DEFAULT_BUDGET})")
    warnings: list[str] = []
    sections = [_gather(lib, kind, headings[kind], namespace, query, limit, acting_path, warnings)
                for kind, namespace, query, limit in plan]
    truncated = _fit(title, sections, token_budget, count)
    markdown = _render(title, sections)
    return SessionStart(agent=agent, project=project_path, conventions=group, markdown=markdown,
                        tokens=count(markdown), token_budget=token_budget, truncated=truncated,
                        sections=[s.model for s in sections], warnings=list(dict.fromkeys(warnings)))


def _namespaces(lib: Library, agent_text: str, project_text: str, acting: str | None
                ) -> tuple[str, str, str, str | None]:
    """``(agent, project, group, acting)`` paths after every check of :func:`session_start`'s scopes."""
    for text, what in ((agent_text, "agent"), (project_text, "project")):
        if not text or not text.strip():
            raise InvalidInput(f"the {what} namespace is empty: give a scope path such as "
                               f"'{'agent/tau' if what == 'agent' else 'project/foo'}'")
    agent = get_scope(lib, resolve_scope(lib, agent_text.strip()))
    if agent.kind is not ScopeKind.AGENT:
        raise NotAnAgentScope(f"{agent.path} is a {agent.kind.label.lower()}, not an agent scope: give the agent's "
                              "own namespace, e.g. agent/tau")
    project = get_scope(lib, resolve_scope(lib, project_text.strip()))
    if project.kind is not ScopeKind.PROJECT:
        raise ScopeError(f"{project.path} is a {project.kind.label.lower()}, not a project: give the project the "
                         "agent works on, e.g. project/foo")
    branch = ancestry(lib, project.path)  # the project, then its group
    if agent.parent not in branch:
        raise ScopeNotVisible(f"{agent.path} belongs to {agent.parent}, which {project.path} is not under: an agent "
                              "starts sessions on the projects of its own project or group")
    group = branch[-1]
    acting_path = None if acting is None else resolve_scope(lib, acting.strip())
    if acting_path is not None:
        seen = {v.path for v in visible_scopes(lib, acting_path) if not v.results_only}
        hidden = [p for p in (group, project.path, agent.path) if p not in seen]
        if hidden:
            raise ScopeNotVisible(f"{acting_path} cannot see {', '.join(hidden)}: "
                                  f"{visibility_rule(lib, acting_path, hidden[0])}")
    return agent.path, project.path, group, acting_path


def _gather(lib: Library, kind: SectionKind, heading: str, namespace: str, query: str, limit: int,
            acting: str | None, warnings: list[str]) -> _Section:
    """One section's memories in block order: the recall's hits (preferred types first), then recent ones."""
    preferred = _PREFERRED[kind]

    def rank(memory_type: MemoryType | None) -> int:
        return preferred.index(memory_type) if memory_type in preferred else len(preferred)

    found = memories.recall(lib, query, namespace, limit, list(MemoryType), acting=acting)
    warnings.extend(found.warnings)
    chosen = [SessionMemory(id=m.id, memory_type=m.memory_type, namespace=namespace, text=_fold(m.content),
                            score=m.score)
              for m in sorted(found.memories, key=lambda m: rank(m.memory_type)) if m.memory_type is not None]
    taken = {m.id for m in chosen}
    newest = documents.list_documents(lib, scope=namespace, include_ancestors=False, memory_types=list(MemoryType),
                                      statuses=memories.RECALLED_STATUSES, limit=limit + len(chosen))
    recent = [d for d in sorted(newest, key=lambda d: rank(d.memory_type)) if d.id not in taken][:limit - len(chosen)]
    if kind is SectionKind.AGENT:
        episodes = documents.list_documents(lib, scope=namespace, include_ancestors=False,
                                            memory_types=[MemoryType.EPISODE], statuses=memories.RECALLED_STATUSES,
                                            limit=RECENT_EPISODES)
        recent += [d for d in episodes if d.id not in taken | {r.id for r in recent}]
    chosen += [SessionMemory(id=d.id, memory_type=d.memory_type, namespace=namespace, text=_fold(d.content or ""),
                             found_by="recent") for d in recent if d.memory_type is not None]
    entries = [_Entry(m, f"- `{m.id}` {m.memory_type.value}", m.text) for m in chosen]
    return _Section(SessionSection(kind=kind, heading=heading, namespace=namespace, query=query), entries)


def _fit(title: str, sections: list[_Section], budget: int, count: Callable[[str], int]) -> bool:
    """Fill each section's ``lines`` and ``model`` within ``budget`` (fair shares); True when anything was cut."""
    full = [[_capped(e, count) for e in s.entries] for s in sections]
    demand = [sum(count(line) for line, _cut in lines) for lines in full]
    reserve = [count(_more_line(len(s.entries))) if s.entries else count(EMPTY_LINE) for s in sections]
    fixed = count(title) + sum(count(s.model.heading) for s in sections)
    # A section shown whole needs no "… N more" line: give its reserve back and share again.
    whole: set[int] = set()
    while True:
        room = budget - fixed - sum(r for i, r in enumerate(reserve) if i not in whole)
        shares = _fair_shares(demand, room)
        now_whole = {i for i, s in enumerate(sections) if s.entries and shares[i] >= demand[i]}
        if now_whole == whole:
            break
        whole = now_whole
    truncated = False
    for section, lines, share in zip(sections, full, shares, strict=True):
        truncated |= _fill(section, lines, share, count)
    # Counts of parts add up for a whitespace-splitting tokenizer; for any other, drop the last lines until it fits.
    while count(_render(title, sections)) > budget and any(s.model.memories for s in sections):
        largest = max((s for s in sections if s.model.memories), key=lambda s: len(s.lines))
        dropped = largest.model.memories.pop()
        largest.model.omitted.insert(0, dropped.id)
        largest.lines = [*largest.lines[:len(largest.model.memories)], _more_line(len(largest.model.omitted))]
        truncated = True
    return truncated


def _fair_shares(demand: Sequence[int], room: int) -> list[int]:
    """Max-min fair shares of ``room`` tokens: equal shares, a section needing less passing its rest on."""
    shares = [0] * len(demand)
    open_ = [i for i, d in enumerate(demand) if d > 0]
    left = max(room, 0)
    while open_ and left > 0:
        share = left // len(open_)
        satisfied = [i for i in open_ if demand[i] - shares[i] <= share]
        if not satisfied:
            for i in open_:
                shares[i] += share
            left -= share * len(open_)
            break
        for i in satisfied:
            left -= demand[i] - shares[i]
            shares[i] = demand[i]
        open_ = [i for i in open_ if i not in satisfied]
    return shares


def _fill(section: _Section, lines: list[tuple[str, bool]], share: int, count: Callable[[str], int]) -> bool:
    """The section's lines within ``share`` tokens, in order; the first that does not fit is cut, the rest left out."""
    shown: list[str] = []
    used, cut_any = 0, False
    for entry, (line, cut) in zip(section.entries, lines, strict=True):
        cost = count(line)
        over = used + cost > share
        if over:  # cut at a word to use the share's rest, then stop: the next ones are left out
            shortened = shorten(entry.head, entry.body, share - used, count) if share > used else None
            if shortened is None:
                break
            line, cut = shortened
            cost = count(line)
        shown.append(line)
        used += cost
        if cut:
            entry.memory.cut = True
            entry.memory.text = line.split(": ", 1)[1] if ": " in line else ""
        cut_any |= cut
        section.model.memories.append(entry.memory)
        if over:
            break
    section.model.omitted = [e.memory.id for e in section.entries[len(shown):]]
    if section.model.omitted:
        shown.append(_more_line(len(section.model.omitted)))
    elif not section.entries:
        shown.append(EMPTY_LINE)
    section.lines = shown
    return cut_any or bool(section.model.omitted)


def _capped(entry: _Entry, count: Callable[[str], int]) -> tuple[str, bool]:
    """The entry's line, cut to :data:`MAX_ITEM_TOKENS` when longer."""
    fitted = shorten(entry.head, entry.body, MAX_ITEM_TOKENS, count)
    return fitted if fitted is not None else (entry.head, True)


def _render(title: str, sections: list[_Section]) -> str:
    return "\n\n".join([title, *("\n".join([s.model.heading, *s.lines]) for s in sections)])


def _more_line(n: int) -> str:
    return f"- … {n} more not shown (token budget)"


def _fold(text: str) -> str:
    return " ".join(text.split())
