"""``vancetope topics search "…" [--mode]``: the atoms a query reaches down the topic trees (``services.topic_search``),
each with its topic path, source and page; it joins the ``topics`` group of ``cli.topic_commands``."""

from __future__ import annotations

from typing import Annotated

import typer

from ..core.errors import EmptyQuery
from ..services.topic_search import topic_search
from . import render
from .apps import topics_app
from .context import JsonOption, LibraryOption, ModeOption, ScopeOption, guarded, open_library, print_json


@topics_app.command("search")
def topics_search(
    query: Annotated[str, typer.Argument(help="What you are looking for, in your own words.")],
    mode: ModeOption = "auto",
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=500,
                                       help="At most this many atoms (fewer when fewer are relevant).")] = 10,
    explain: Annotated[bool, typer.Option("--explain", help="Say why each atom was found: the topic path and the "
                                          "words that led to it, then its scores.")] = False,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Find atoms down the topic trees of the scope and its ancestors: `topics search "eagle ridge trail"`."""
    if not query.strip():
        with guarded():
            raise EmptyQuery("the query is empty: say what you are looking for")
    with open_library(library) as lib:
        response = topic_search(lib, query, scope=scope, mode=mode, limit=limit)
        if as_json:
            print_json(render.search_json(response))
        else:
            render.search(response, explain=explain)
