"""Agent memory from the terminal: ``memory recall`` (one namespace only), ``memory session-start``,
``memory type`` and ``memory episode add|list|show|edit``."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from ..core.memories import Episode, Severity
from ..services import audit, episodes, indexing, memories, scopes, undo
from ..services import session_start as start
from .apps import episode_app, memory
from .context import JsonOption, LibraryOption, MemoryTypeOption, ScopeOption, emit, open_library, out

NamespaceOption = Annotated[str | None, typer.Option("--namespace", "-N", help="The scope it belongs to, e.g. "
                                                     "agent/tau (default: the current scope).")]


@memory.command("recall")
def memory_recall(
    query: Annotated[str, typer.Argument(help="What to recall, e.g. 'Convex deploy schema vector index'.")],
    namespace: Annotated[str, typer.Option("--namespace", "-N", help="The one scope to recall from, e.g. "
                                           "project/vantage-starter or agent/tau; nothing of another scope "
                                           "comes back.")],
    memory_type: MemoryTypeOption = None,
    include_archived: Annotated[bool, typer.Option("--include-archived", help="Also recall archived memories "
                                                   "(superseded ones, kept for the record).")] = False,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=memories.MAX_RECALL,
                                       help="At most this many (3-5 for a question, 10-20 to load context).")] = 10,
    scope: Annotated[str | None, typer.Option("--scope", "-s", help="Recall as this scope, which must see the "
                                              "namespace (default: the namespace itself).")] = None,
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Recall the memories of one namespace, best first: `memory recall "auth middleware" --namespace project/web`."""
    with open_library(library) as lib:
        found = memories.recall(lib, query, namespace, limit, memory_type, include_archived, acting=scope)

        def human() -> None:
            if not found.memories:
                out.print(f"Nothing recalled in {escape(found.namespace)}.")
            for rank, m in enumerate(found.memories, start=1):
                kind = m.memory_type.value if m.memory_type else m.type
                about = f"{kind} · {m.id} · {m.score:.2f}" + (" (archived)" if m.status.value == "archived" else "")
                out.print(f"{rank}. [bold]{escape(m.title)}[/bold] [dim]{about}[/dim]")
                out.print(f"   {escape(m.snippet or m.content[:240])}")
            for warning in found.warnings:
                out.print(f"[yellow]warning:[/yellow] {escape(warning)}")

        emit(as_json, found, human)


@memory.command("type")
def memory_type(
    doc_id: Annotated[str, typer.Argument(help="The note's id (doc_…).")],
    memory_type: Annotated[str, typer.Argument(help="feedback, project, reference, user, or none.")],
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Say what a note is for as an agent memory: `memory type doc_… feedback` (`none`: not a memory; an episode
    is recorded with its fields: `memory episode add`)."""
    with open_library(library) as lib:
        action = undo.user_action(lib, "Set memory type of", [doc_id], suffix=f"to {memory_type.strip().lower()}")
        changed = memories.set_memory_type(lib, doc_id, memory_type, acting_scope=scopes.resolve_scope(lib, scope),
                                           user_action=action)
        emit(as_json, changed, lambda: out.print(f"{changed.id}: memory type "
                                                 f"{changed.memory_type or memories.NO_MEMORY_TYPE}"))


@memory.command("session-start")
def memory_session_start(
    agent: Annotated[str, typer.Option("--agent", "-a", help="The agent's own namespace, e.g. agent/tau.")],
    project: Annotated[str, typer.Option("--project", "-p", help="The project it works on, e.g. project/foo; its "
                                         "group holds the global conventions.")],
    budget: Annotated[int, typer.Option("--budget", "-b", min=1, max=start.MAX_BUDGET, help="The block's length "
                                        "at most, in tokens of the embedding model.")] = start.DEFAULT_BUDGET,
    conventions_query: Annotated[str, typer.Option(help="The recall in the project's group.")] = (
        start.CONVENTIONS_QUERY),
    decisions_query: Annotated[str, typer.Option(help="The recall in the project.")] = start.DECISIONS_QUERY,
    state_query: Annotated[str, typer.Option(help="The recall in the agent's namespace.")] = start.STATE_QUERY,
    scope: Annotated[str | None, typer.Option("--scope", "-s", help="Load as this scope (e.g. a session the agent "
                                              "runs), which must see all three namespaces (default: you, who see "
                                              "every scope).")] = None,
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """The start of an agent's session: the global conventions, the project's decisions and the agent's state, as
    one Markdown block within a token budget: `memory session-start --agent agent/tau --project project/foo`."""
    with open_library(library) as lib:
        found = start.session_start(lib, agent, project, token_budget=budget, acting=scope,
                                    conventions_query=conventions_query, decisions_query=decisions_query,
                                    state_query=state_query)

        def human() -> None:
            out.print(found.markdown, markup=False, highlight=False, soft_wrap=True)
            for warning in found.warnings:
                out.print(f"[yellow]warning:[/yellow] {escape(warning)}")

        emit(as_json, found, human)


@episode_app.command("add")
def episode_add(
    context: Annotated[str, typer.Option(help="The situation, e.g. 'Deploying Convex schema changes'.")],
    goal: Annotated[str, typer.Option(help="What was being attempted.")],
    action: Annotated[str, typer.Option(help="What was done.")],
    outcome: Annotated[str, typer.Option(help="What happened.")],
    insight: Annotated[str, typer.Option(help="The lesson for next time.")],
    severity: Annotated[Severity, typer.Option(case_sensitive=False, help="How much it matters.")],
    namespace: NamespaceOption = None,
    created_by: Annotated[str | None, typer.Option("--created-by", help="Who records it (default: you).")] = None,
    wait: Annotated[bool, typer.Option(help="Index it now (found by meaning at once); --no-wait leaves it to the "
                                       "open app or the next `index run`.")] = True,
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Record an episode: `memory episode add --context … --goal … --action … --outcome … --insight …
    --severity major` (every field is needed)."""
    with open_library(library) as lib:
        stored = episodes.store_episode(lib, scopes.resolve_scope(lib, namespace), context, goal, action, outcome,
                                        insight, severity.value, created_by or audit.current_user())
        if wait:
            indexing.try_drain(lib, documents=[stored.id])
        emit(as_json, stored, lambda: out.print(f"added episode {stored.id} to {stored.namespace}: "
                                                f"{escape(stored.goal)}"))


@episode_app.command("list")
def episode_list(
    namespace: NamespaceOption = None,
    severity: Annotated[Severity | None, typer.Option(case_sensitive=False, help="Only this severity.")] = None,
    text: Annotated[str | None, typer.Option(help="Only episodes holding this text in a field.")] = None,
    include_archived: Annotated[bool, typer.Option("--include-archived", help="Archived ones too.")] = False,
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """List a scope's episodes, newest first: when, severity, goal, outcome, insight."""
    with open_library(library) as lib:
        found = episodes.list_episodes(lib, scopes.resolve_scope(lib, namespace), severity.value if severity else None,
                                       text, include_archived=include_archived)

        def human() -> None:
            if not found:
                out.print("No episodes.")
            for e in found:
                out.print(f"{e.created_at:%Y-%m-%d %H:%M} [bold]{e.severity.value}[/bold] {e.id}  {escape(e.goal)}")
                out.print(f"    outcome: {escape(e.outcome)}")
                out.print(f"    insight: {escape(e.insight)}")

        emit(as_json, found, human)


@episode_app.command("show")
def episode_show(
    episode_id: Annotated[str, typer.Argument(help="The episode's id (doc_…).")],
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Show an episode's whole card."""
    with open_library(library) as lib:
        found = episodes.episode(lib, episode_id, acting_scope=scopes.resolve_scope(lib, scope))
        emit(as_json, found, lambda: _card(found))


@episode_app.command("edit")
def episode_edit(
    episode_id: Annotated[str, typer.Argument(help="The episode's id (doc_…).")],
    context: Annotated[str | None, typer.Option(help="The new situation.")] = None,
    goal: Annotated[str | None, typer.Option(help="The new goal (also its title).")] = None,
    action: Annotated[str | None, typer.Option(help="The new action.")] = None,
    outcome: Annotated[str | None, typer.Option(help="The new outcome.")] = None,
    insight: Annotated[str | None, typer.Option(help="The new lesson.")] = None,
    severity: Annotated[Severity | None, typer.Option(case_sensitive=False, help="The new severity.")] = None,
    wait: Annotated[bool, typer.Option(help="Re-index it now; --no-wait leaves it to the open app or the next "
                                       "`index run`.")] = True,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Change fields of an episode: `memory episode edit doc_… --severity critical --insight …` (the text and
    the fields change together; `undo` takes it back)."""
    with open_library(library) as lib:
        edited = episodes.update_episode(lib, episode_id, context=context, goal=goal, action=action, outcome=outcome,
                                         insight=insight, severity=severity.value if severity else None,
                                         acting_scope=scopes.resolve_scope(lib, scope),
                                         user_action=undo.user_action(lib, "Edit episode", [episode_id.strip()]))
        if wait:
            indexing.try_drain(lib, documents=[edited.id])
        emit(as_json, edited, lambda: _card(edited))


def _card(e: Episode) -> None:
    out.print(f"[bold]{escape(e.goal)}[/bold] [dim]{e.id} · {e.namespace} · {e.severity.value} · "
              f"{e.created_at:%Y-%m-%d %H:%M} · by {escape(e.created_by)}[/dim]")
    for name in ("context", "goal", "action", "outcome", "insight"):
        out.print(f"{name.title()}: {escape(getattr(e, name))}")
