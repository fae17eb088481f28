"""Typed relations from the terminal (issue 12): ``memory relate``, ``memory unrelate``, ``memory relations``,
``memory conflicts`` and ``memory settle``, over ``services.graph`` and ``services.conflicts`` (the same
functions as the agent tools and the app)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from ..core.relations import RELATION_GUIDE
from ..services import conflicts, graph
from ..services.audit import current_user
from .apps import memory
from .context import JsonOption, LibraryOption, ScopeOption, emit, open_library, out

TypeOption = Annotated[str, typer.Option("--type", "-t", help=RELATION_GUIDE)]


@memory.command("relate")
def memory_relate(source: Annotated[str, typer.Argument(help="The document the edge starts from (doc_…).")],
                  target: Annotated[str, typer.Argument(help="The document it relates to (doc_…).")],
                  relation: TypeOption, scope: ScopeOption = None, library: LibraryOption = None,
                  as_json: JsonOption = False) -> None:
    """Relate two documents the scope sees: `memory relate NEW OLD --type updates` (OLD is archived)."""
    with open_library(library) as lib:
        done = graph.relate(lib, source, target, relation, current_user(), scope=scope)
        edge = done.edge
        archived = f"; archived {', '.join(done.archived)}" if done.archived else ""
        emit(as_json, done, lambda: out.print(
            f"{edge.source_id} {edge.type.value} {edge.target_id}" + ("" if done.created else " (already)")
            + archived, markup=False))


@memory.command("unrelate")
def memory_unrelate(source: Annotated[str, typer.Argument(help="The edge's source (doc_…).")],
                    target: Annotated[str, typer.Argument(help="The edge's target (doc_…).")],
                    relation: TypeOption, scope: ScopeOption = None, library: LibraryOption = None,
                    as_json: JsonOption = False) -> None:
    """Remove an edge (removing an `updates` does not restore its target: `memory restore` does)."""
    with open_library(library) as lib:
        gone = graph.unrelate(lib, source, target, relation, current_user(), scope=scope)
        emit(as_json, {"removed": gone}, lambda: out.print("removed" if gone else "no such relation"))


@memory.command("relations")
def memory_relations(doc_id: Annotated[str, typer.Argument(help="Document id (doc_…).")], scope: ScopeOption = None,
                     library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """A document's typed relations, both ways, grouped by type (only documents the scope may read)."""
    with open_library(library) as lib:
        found = graph.relations_of(lib, doc_id, scope)

        def human() -> None:
            rows = found.rows()
            if not rows:
                out.print("No relations.")
            for label, docs in rows:
                out.print(f"[bold]{label}[/bold]")
                for doc in docs:
                    state = "" if doc.status == "active" else f" [{doc.status}]"
                    out.print(f"  {escape(doc.title)} ({doc.id}, {doc.scope}){escape(state)}")

        emit(as_json, found, human)


@memory.command("conflicts")
def memory_conflicts(scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """Open conflicts: two active documents, one contradicting the other (settle with `memory settle`)."""
    with open_library(library) as lib:
        found = conflicts.list_conflicts(lib, scope)

        def human() -> None:
            if not found:
                out.print("No open conflicts.")
            for c in found:
                out.print(f"{escape(c.first.title)} ({c.first.id}) contradicts {escape(c.second.title)} "
                          f"({c.second.id})")

        emit(as_json, found, human)


@memory.command("settle")
def memory_settle(keep: Annotated[str, typer.Argument(help="The document to keep (doc_…).")],
                  other: Annotated[str, typer.Argument(help="The one it contradicts, to archive (doc_…).")],
                  scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """Settle a conflict by keeping one document: it `updates` the other, which is archived."""
    with open_library(library) as lib:
        done = conflicts.settle(lib, keep, other, scope=scope, actor=current_user())
        emit(as_json, done, lambda: out.print(f"kept {keep}; archived {', '.join(done.archived) or 'nothing'}"))
