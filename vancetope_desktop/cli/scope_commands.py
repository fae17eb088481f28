"""``vancetope scope``: create, list and choose scopes; which agent runs a session."""

from __future__ import annotations

from typing import Annotated

import typer

from ..core.errors import InvalidInput
from ..services import scopes
from . import render
from .apps import scope_app
from .context import JsonOption, LibraryOption, emit, guarded, open_library, out

AgentOption = Annotated[str | None, typer.Option(
    "--agent", help="For a session or think process: the agent scope that runs it (e.g. agent/tau); it then also "
    "sees that agent's memory, weighted as its parent.")]


@scope_app.command("create")
def scope_create(
    kind: Annotated[str, typer.Argument(help="group, project, session, think-process or agent; or the whole path "
                                        "(agent/tau) without KEY.")],
    key: Annotated[str | None, typer.Argument(help="The scope's id, e.g. tp_12.", show_default=False)] = None,
    parent: Annotated[str | None, typer.Option(help="Parent scope path, e.g. session/sess_7 (an agent: a group "
                                               "or project).")] = None,
    name: Annotated[str | None, typer.Option(help="Human name.")] = None,
    agent: AgentOption = None,
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Create a scope: `scope create think-process tp_12 --parent session/sess_7 --name "Hypothesis Check"`,
    `scope create agent/tau --parent group/lab`, `scope create session s1 --parent project/p --agent agent/tau`."""
    if key is None:
        kind, _, key = kind.partition("/")
    with open_library(library) as lib:
        created = scopes.create_scope(lib, kind, key, parent=parent, name=name, agent=agent)
        emit(as_json, created, lambda: out.print(
            f"created {created.path} ({created.name})" + (f", run by {created.agent}" if created.agent else ""),
            markup=False))


@scope_app.command("agent")
def scope_agent(
    path: Annotated[str, typer.Argument(help="A session or think process, e.g. session/sess_7.")],
    agent: Annotated[str | None, typer.Argument(help="The agent scope that runs it, e.g. agent/tau. Leave it out "
                                                "to show the current one.", show_default=False)] = None,
    none: Annotated[bool, typer.Option("--none", help="No agent runs it any more.")] = False,
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Say which agent runs a session or think process: `scope agent session/sess_7 agent/tau` (`--none` to stop)."""
    if none and agent is not None:
        with guarded():
            raise InvalidInput("give an agent or --none, not both")
    with open_library(library) as lib:
        info = scopes.set_agent(lib, path, None) if none else \
            scopes.set_agent(lib, path, agent) if agent is not None else scopes.get_scope(lib, path)
        emit(as_json, info, lambda: out.print(
            f"{info.path} is run by {info.agent}" if info.agent else f"{info.path} is run by no agent", markup=False))


@scope_app.command("list")
def scope_list(library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """Show the scope tree and the current scope."""
    with open_library(library) as lib:
        items, current = scopes.list_scopes(lib), scopes.current_scope(lib)
        emit(as_json, {"current": current, "scopes": items}, lambda: render.scopes(items, current))


@scope_app.command("use")
def scope_use(path: Annotated[str, typer.Argument(help="Scope path, e.g. project/proj_5.")],
              library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """Make a scope the current one (remembered in the library)."""
    with open_library(library) as lib:
        chosen = scopes.use_scope(lib, path)
        emit(as_json, chosen, lambda: out.print(f"current scope: {chosen.path} ({chosen.name})"))
