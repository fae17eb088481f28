"""``vancetope mcp``: serve a scope's memory tools to an AI agent over MCP (stdio)."""

from __future__ import annotations

from typing import Annotated

import typer

from .apps import app
from .context import LibraryOption, open_library


@app.command("mcp")
def mcp_serve(
    scope: Annotated[str, typer.Option("--scope", "-s", help="The scope the agent acts for, e.g. think-process/tp_12: "
                                       "it reads that scope and its ancestors and writes only that scope.")],
    library: LibraryOption = None,
) -> None:
    """Serve a scope's memory tools and documents to an AI agent over MCP (stdio): `mcp --scope think-process/tp_12`."""
    from ..services.scopes import resolve_scope

    with open_library(library) as lib:
        # A bad scope fails before the MCP SDK and the tools load (1.5-2 s of CPU, most of a failed start).
        resolve_scope(lib, scope)
        from ..agents.mcp_server import serve  # the MCP SDK loads only for this command

        serve(lib, scope)
