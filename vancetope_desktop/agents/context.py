"""Start-of-work memory for a think process (seed 000 §6.2 "on think process start"; seed 001 "session start").

One call gathers what a think process should know before it works — its own notes and results, its
session's, its project's and group's facts and decisions, and the atoms of time (issue 13) of all of them:
plans still ahead (or overdue and not yet settled) with their due dates, and recent events with their times —
ranks it (scope proximity, then a hybrid search when a query is given, else type and time), and renders a
Markdown block bounded by a token budget counted with the embedding model's tokenizer. Every item carries its
``doc_…`` id, so the agent can read the whole document when the block had to cut it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from pydantic import BaseModel, Field

from ..core.atoms import Atom, PlanStatus
from ..core.documents import DocumentInfo, DocumentType
from ..core.errors import InvalidInput
from ..core.scope_info import VisibleScope
from ..core.scopes import ScopeKind, ScopePath
from ..core.tags import all_of
from ..services import atoms, documents, scopes
from ..services.library import Library
from ..services.search import search
from ..services.token_fit import shorten

DECISION_TAG = "decision"
"""Project and group documents with this tag (or one below it) count as decisions."""
NEAR_TYPES = (DocumentType.FACT, DocumentType.RESULT, DocumentType.NOTE)
"""What the acting scope, its session and think processes contribute."""
TIME_TYPES = (DocumentType.PLAN, DocumentType.EVENT)
"""The atoms of time every visible scope contributes (a project's deadline matters to each of its sessions)."""
TYPE_PRIORITY = {DocumentType.FACT: 0, DocumentType.PLAN: 1, DocumentType.RESULT: 2, DocumentType.EVENT: 3,
                 DocumentType.NOTE: 4}
"""Without a query: facts (and decisions), then plans (soonest due first), results, events (latest first) and
notes, within one scope."""
RECENT_EVENTS = timedelta(days=30)
"""How far back an event still counts as context: older ones are history, found by search when asked for (a
month covers the work of the session and the one before it, as the daily digest writes them up)."""
PER_SCOPE_LIMIT = 100
"""Newest documents considered per scope and kind: the budget holds far fewer anyway."""


class ContextBlock(BaseModel):
    """A ready-to-paste memory block.

    Attributes:
        markdown: ``## Memory — …`` sections per scope (most relevant first), one bullet per document.
        documents: the ids in the block, in the order they appear.
        tokens: the block's length in the embedding model's tokens (never above the budget).
        truncated: True when some document was cut or left out for the budget.
    """

    markdown: str
    documents: list[str] = Field(default_factory=list)
    tokens: int = 0
    truncated: bool = False


@dataclass(frozen=True)
class _Item:
    doc: DocumentInfo
    scope: VisibleScope
    priority: int
    moment: float
    """The order within one type: ascending (a plan's due time; minus an event's time, minus the last change)."""
    atom: Atom | None = None


def context_block(lib: Library, scope: str, *, token_budget: int = 1500, query: str | None = None,
                  max_item_tokens: int = 300, now: datetime | None = None) -> ContextBlock:
    """The most relevant memory visible from ``scope`` as a Markdown block of at most ``token_budget`` tokens.

    Gathered (active documents only): from ``scope`` itself and any session or think process scope
    above it, facts, results and notes; from a project or group above it, facts and documents tagged
    ``#decision``; from every one of them, plans still ``planned`` (ahead, or overdue and not yet settled by a
    digest or a person) and events of the last :data:`RECENT_EVENTS`. Siblings' memory is never visible (seed
    §4.2).

    Ranked: with ``query``, the hybrid search hits among those documents first (in search order, which
    already weighs scope proximity, seed §5.3), then the rest; without it, by proximity weight, then
    :data:`TYPE_PRIORITY` (plans soonest due first, events latest first, the others newest first). A plan's line
    gives its due date (and "overdue": ``atoms.deadline``), an event's its time, in local time. Items are added in
    rank order until the budget is reached; the first one that does not fit is truncated (ending in ``…``) rather
    than overrunning. Sections follow the order in which their scope first appears.

    Args:
        scope: the acting scope, e.g. ``think-process/tp_12``.
        token_budget: at most this many tokens (``lib.embedder().count_tokens``) in ``markdown``.
        query: what the think process is about to do, to rank by relevance.
        max_item_tokens: one document's share at most, so a long note cannot take the whole budget.
        now: the present moment, for "recent" and "overdue" (default: the clock; naive is local time).

    Raises:
        ScopeNotFound. InvalidInput: a budget or item size below 1.
    """
    if token_budget < 1 or max_item_tokens < 1:
        raise InvalidInput("the token budget and the item size must be at least 1 token")
    acting = scopes.resolve_scope(lib, scope)
    visible = scopes.visible_scopes(lib, acting)
    moment = atoms.local_time(now or datetime.now())
    items = _rank(lib, _gather(lib, visible, moment), acting, query)
    return _fit(_headings(lib, visible), items, lib.embedder().count_tokens, token_budget, max_item_tokens, moment)


def _gather(lib: Library, visible: list[VisibleScope], now: datetime) -> list[_Item]:
    items: dict[str, _Item] = {}
    for seen in visible:
        kind = ScopePath.parse(seen.path).kind
        if seen.results_only:  # a sibling think process, through the sibling-results setting
            docs = documents.list_documents(lib, scope=seen.path, include_ancestors=False,
                                            types=(DocumentType.RESULT,), limit=PER_SCOPE_LIMIT)
        elif seen.distance == 0 or kind in (ScopeKind.SESSION, ScopeKind.THINK_PROCESS, ScopeKind.AGENT):
            docs = documents.list_documents(lib, scope=seen.path, include_ancestors=False, types=NEAR_TYPES,
                                            limit=PER_SCOPE_LIMIT)
        else:
            docs = documents.list_documents(lib, scope=seen.path, include_ancestors=False, tag_filter=all_of(
                [DECISION_TAG]), types=documents.CONTENT_TYPES, limit=PER_SCOPE_LIMIT)
            docs += documents.list_documents(lib, scope=seen.path, include_ancestors=False,
                                             types=(DocumentType.FACT,), limit=PER_SCOPE_LIMIT)
        # Plans and events first: a decision-tagged plan is listed with its due date.
        for item in [] if seen.results_only else _time_atoms(lib, seen, now):
            items.setdefault(item.doc.id, item)
        for doc in docs:
            decision = any(t == DECISION_TAG or t.startswith(DECISION_TAG + "/") for t in doc.tags)
            priority = 0 if decision else TYPE_PRIORITY.get(doc.type, len(TYPE_PRIORITY))
            items.setdefault(doc.id, _Item(doc, seen, priority, -doc.updated_at.timestamp()))
    return list(items.values())


def _time_atoms(lib: Library, seen: VisibleScope, now: datetime) -> list[_Item]:
    """``seen``'s plans still planned and its events since :data:`RECENT_EVENTS` (``now``: naive local time)."""
    docs = documents.list_documents(lib, scope=seen.path, include_ancestors=False, types=TIME_TYPES,
                                    limit=2 * PER_SCOPE_LIMIT)
    found = []
    for doc, atom in zip(docs, atoms.cards(lib, docs), strict=True):
        if atom.due is not None and atom.plan_status is PlanStatus.PLANNED:
            found.append(_Item(doc, seen, TYPE_PRIORITY[doc.type], atoms.local_time(atom.due).timestamp(), atom))
        elif atom.when is not None and now - RECENT_EVENTS <= atoms.local_time(atom.when) <= now:
            found.append(_Item(doc, seen, TYPE_PRIORITY[doc.type], -atoms.local_time(atom.when).timestamp(), atom))
    return found


def _rank(lib: Library, items: list[_Item], acting: str, query: str | None) -> list[_Item]:
    ordered = sorted(items, key=lambda i: (-i.scope.weight, i.priority, i.moment, i.doc.id))
    if not query or not query.strip() or not items:
        return ordered
    by_id = {i.doc.id: i for i in items}
    hits = [h.document.id for h in search(lib, query, scope=acting, limit=max(len(items), 10)).hits]
    first = [by_id[d] for d in hits if d in by_id]
    chosen = {i.doc.id for i in first}
    return first + [i for i in ordered if i.doc.id not in chosen]


def _headings(lib: Library, visible: list[VisibleScope]) -> dict[str, str]:
    """One ``## Memory — Kind: Name (`path`)`` heading per visible scope."""
    headings = {}
    for seen in visible:
        info = scopes.get_scope(lib, seen.path)
        headings[seen.path] = f"## Memory — {info.kind.label}: {info.name} (`{seen.path}`)"
    return headings


def _line_head(item: _Item, now: datetime) -> str:
    doc = item.doc
    tags = " ".join(f"#{t}" for t in doc.tags if not t.startswith(("auto:", "thinkprocess:")))
    about = f"(`{doc.id}`, {doc.type.value}{_time(item.atom, now)}{', ' + tags if tags else ''})"
    # A title taken from the first line (most facts) would only repeat the text: spare the tokens.
    if doc.metadata.get("title_from_content") and doc.content:
        return f"- {about}"
    return f"- **{doc.title}** {about}"


def _time(atom: Atom | None, now: datetime) -> str:
    """", due 2026-12-15" / ", due 2026-11-30, overdue" / ", 2026-12-01 14:30": a time atom's moment, local."""
    moment = atom and (atom.due or atom.when)
    if atom is None or moment is None:
        return ""
    local = atoms.local_time(moment)
    text = f"{local:%Y-%m-%d}" if local.time() == datetime.min.time() else f"{local:%Y-%m-%d %H:%M}"
    if atom.due is None:
        return f", {text}"
    return f", due {text}" + (", overdue" if atoms.deadline(atom.due) <= now else "")


def _body(doc: DocumentInfo) -> str:
    return " ".join((doc.content or "").split())


def _render(headings: dict[str, str], chosen: list[tuple[_Item, str]]) -> str:
    """Group the chosen lines under one heading per scope, scopes in order of first appearance."""
    sections: dict[str, list[str]] = {}
    for item, line in chosen:
        sections.setdefault(item.scope.path, [headings[item.scope.path]]).append(line)
    return "\n\n".join("\n".join(lines) for lines in sections.values())


def _fit(headings: dict[str, str], items: list[_Item], count: Callable[[str], int], budget: int,
         item_budget: int, now: datetime) -> ContextBlock:
    chosen: list[tuple[_Item, str]] = []
    headed: set[str] = set()
    used, truncated = 0, False
    for item in items:
        heading_cost = 0 if item.scope.path in headed else count(headings[item.scope.path])
        room = min(item_budget, budget - used - heading_cost)
        shortened = shorten(_line_head(item, now), _body(item.doc), room, count) if room > 0 else None
        if shortened is None:
            truncated = True
            break
        line, cut = shortened
        chosen.append((item, line))
        headed.add(item.scope.path)
        used += heading_cost + count(line)
        if cut:
            truncated = True
            if room < item_budget:
                break  # cut by the budget, not by the item size: the block is full
    if not items:
        empty = "## Memory\n_Nothing stored yet in this scope or above it._"
        tokens = count(empty)
        return ContextBlock(markdown=empty, tokens=tokens) if tokens <= budget else ContextBlock(markdown="")
    markdown = _render(headings, chosen)
    # Token counts of parts need not add up for every tokenizer: drop the last items until it fits.
    while chosen and count(markdown) > budget:
        truncated = True
        chosen.pop()
        markdown = _render(headings, chosen)
    return ContextBlock(markdown=markdown, documents=[i.doc.id for i, _ in chosen],
                        tokens=count(markdown) if markdown else 0, truncated=truncated)
