"""``vancetope memory profile DOC… | --missing``: make the summary, keywords and suggested topics of sources.

Imports and edits make a source's profile themselves (``services.source_profile``); this command makes them for
sources imported before profiles existed, for a bibliography's references (profiled after their import), or again
on demand. ``memory read`` shows a profile; the app's Details too.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from ..core.errors import InvalidInput
from ..services import documents, scopes, source_profile
from .apps import memory
from .context import JsonOption, LibraryOption, ScopeOption, emit, err, open_library, out
from .progress import progress


def _report(report: source_profile.ProfileReport) -> None:
    for outcome in report.outcomes:
        named = f"{escape(outcome.title)} ({outcome.document_id})" if outcome.title else outcome.document_id
        if outcome.status == "made" and outcome.profile is not None:
            out.print(f"[green]made[/green] {named}")
            out.print(f"  {escape(outcome.profile.summary or '(no sentence to summarise)')}")
            if outcome.profile.topics:
                out.print(f"  [dim]topics:[/dim] {escape(', '.join(outcome.profile.topics))}")
        elif outcome.status == "current":
            out.print(f"[dim]current[/dim] {named}")
        else:
            style = "red" if outcome.status == "failed" else "yellow"
            out.print(f"[{style}]{outcome.status}[/{style}] {named}: {escape(outcome.reason or '')}")
    out.print(report.summary())


@memory.command("profile")
def memory_profile(
    doc_ids: Annotated[list[str] | None, typer.Argument(help="Documents (doc_…) to profile again.")] = None,
    missing: Annotated[bool, typer.Option(
        "--missing", help="Every source without a profile, or whose text changed since its profile (those visible "
        "from --scope when given, else the whole library).")] = False,
    limit: Annotated[int | None, typer.Option(help="With --missing: at most this many, newest first.")] = None,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Write sources' summary, keywords and suggested topics with the library's generator
    (`vancetope generator show`). Exit 1 if any failed."""
    with open_library(library) as lib:
        if bool(doc_ids) == missing:
            raise InvalidInput("give document ids, or --missing (not both)")
        if missing:
            ids = source_profile.missing_profiles(lib, scope, limit=limit)
        else:
            acting = scopes.resolve_scope(lib, scope)
            ids = [documents.get_document(lib, i, acting_scope=acting).id for i in doc_ids or []]
        with progress(err) as bar:
            task = bar.add_task("profiling", total=len(ids) or None)
            report = source_profile.make_profiles(
                lib, ids, only_missing=missing,
                progress=lambda done, total, title: bar.update(task, completed=done, total=total,
                                                               description=title[:40]))
        emit(as_json, report.model_dump(mode="json") | {"summary": report.summary()}, lambda: _report(report))
    if report.failed:
        raise typer.Exit(1)
