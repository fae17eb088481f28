"""``memory graph``: a document's neighbourhood from the terminal (issue 12), the same
``services.graph.neighbourhood`` the app draws: its documents and typed edges as text, JSON or Graphviz DOT."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from ..core.errors import InvalidInput
from ..services import graph
from ..services.graph import Neighbourhood
from .apps import memory
from .context import JsonOption, LibraryOption, ScopeOption, emit, open_library, out

DOT_SHAPES = {"note": "ellipse", "file": "box", "reference": "triangle", "result": "diamond", "fact": "hexagon",
              "event": "octagon", "plan": "septagon", "structured": "pentagon", "annotation": "invtriangle"}
"""Graphviz shapes by document type, the app's markers as near as Graphviz has them."""
DepthOption = Annotated[int, typer.Option("--depth", "-d", help=f"Edges away from it, 1 to {graph.MAX_DEPTH}.")]


@memory.command("graph")
def memory_graph(doc_id: Annotated[str, typer.Argument(help="The document at the centre (doc_…).")],
                 depth: DepthOption = 1,
                 dot: Annotated[bool, typer.Option("--dot", help="Print Graphviz DOT (pipe to `dot -Tsvg`).")] = False,
                 scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """The documents within DEPTH relations of a document and the edges among them, as the scope sees them
    (documents it may not read are left out)."""
    with open_library(library) as lib:
        if dot and as_json:
            raise InvalidInput("choose one of --dot and --json")
        found = graph.neighbourhood(lib, doc_id, depth, scope)
    if dot:
        out.print(to_dot(found), markup=False, highlight=False, soft_wrap=True)
        return
    emit(as_json, found, lambda: _print(found))


def _print(found: Neighbourhood) -> None:
    titles = {n.id: n.title for n in found.nodes}
    out.print(f"[bold]{escape(titles[found.center])}[/bold] ({found.center}): {len(found.nodes) - 1} related "
              f"document(s) within {found.depth} step(s)" + (" (the nearest only)" if found.truncated else ""))
    for node in sorted(found.nodes, key=lambda n: n.depth):
        kind = node.type + (f" · {node.memory_type.value} memory" if node.memory_type else "")
        state = "" if node.status == "active" else f" [{node.status}]"
        out.print(f"  {node.depth} {escape(node.title)} ({node.id}, {kind}, {node.scope}){escape(state)}")
    if found.edges:
        out.print("[bold]Relations[/bold]")
    for edge in found.edges:
        out.print(f"  {escape(titles[edge.source_id])} —{edge.type.value}→ {escape(titles[edge.target_id])}")


def to_dot(found: Neighbourhood) -> str:
    """``found`` as a Graphviz ``digraph``: nodes by id, labelled with title and type, shaped by document type
    (:data:`DOT_SHAPES`), dashed when not active; edges labelled with their relation type."""
    lines = ["digraph neighbourhood {", "  node [style=filled, fillcolor=white];"]
    for node in found.nodes:
        kind = node.memory_type.value if node.memory_type else node.type
        style = ', style="filled,dashed", fontcolor=gray40' if node.status != "active" else ""
        bold = ", penwidth=2" if node.id == found.center else ""
        label = _quote(node.title + "\n" + kind)
        lines.append(f'  {_quote(node.id)} [label={label}, '
                     f'shape={DOT_SHAPES.get(node.type, "box")}{style}{bold}];')
    lines += [f"  {_quote(e.source_id)} -> {_quote(e.target_id)} [label={_quote(e.type.value)}];" for e in found.edges]
    return "\n".join([*lines, "}"])


def _quote(value: str) -> str:
    # A DOT string: backslash and quote escaped, a newline as DOT's own centred line break.
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
