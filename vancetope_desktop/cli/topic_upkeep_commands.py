"""``vancetope topics rebuild``: keep a scope's topic tree now, as the daily digest does (``services.topic_upkeep``).

It joins the ``topics`` group of ``cli.topic_commands``; like a digest run it is one undo step of the person at this
computer (``vancetope undo`` takes it back).
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from ..services import topic_upkeep
from .apps import topics_app
from .context import JsonOption, LibraryOption, ScopeOption, emit, open_library, out


@topics_app.command("rebuild")
def topics_rebuild(
    from_scratch: Annotated[bool, typer.Option("--from-scratch", help="Rebuild the whole tree even once it is "
                                               "consolidated (a person's pins are kept).")] = False,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Keep a scope's topic tree now, as the daily digest does: rebuilt from scratch while the scope has few atoms,
    revised locally once consolidated (new atoms attached, big topics split, near-identical ones merged)."""
    with open_library(library) as lib:
        done = topic_upkeep.update_topics(lib, scope, from_scratch=from_scratch)

        def human() -> None:
            out.print(done.message, markup=False)
            for change in done.changes:
                out.print(f"  {change.kind:<8} {escape(change.title)} [dim]{change.document_id} · "
                          f"{escape(change.what)}[/dim]")
            for warning in done.warnings:
                out.print(f"  [yellow]{escape(warning)}[/yellow]")

        emit(as_json, done, human)
