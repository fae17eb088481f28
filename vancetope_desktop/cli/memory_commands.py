"""Agent memory from the terminal: ``memory recall`` (one namespace only) and ``memory episode add|list|show``."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from ..services import memories
from .apps import memory
from .context import JsonOption, LibraryOption, MemoryTypeOption, emit, open_library, out


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
