"""The daily digest from the terminal (issue 13): ``digest run|show|undo`` over ``services.digest``.

``digest run`` without ``--scope`` digests every scope with undigested material that day (what the app does
when first opened that day), so that a scheduled ``vancetope digest run`` keeps the library digested.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from ..core.errors import NothingToUndo
from ..services import digest, indexing
from ..services.digest import DigestRun
from .apps import digest_app
from .context import JsonOption, LibraryOption, WaitOption, emit, open_library, out

DayOption = Annotated[str | None, typer.Option("--day", "-d", help="YYYY-MM-DD, 'today' or 'yesterday' "
                                               "(default: today).")]
DigestScopeOption = Annotated[str | None, typer.Option("--scope", "-s", help="Scope path or name (default: the "
                                                       "current scope).")]


@digest_app.command("run")
def digest_run(
    scope: Annotated[str | None, typer.Option("--scope", "-s", help="Only this scope (default: every scope with "
                                              "undigested material that day).")] = None,
    day: DayOption = None, wait: WaitOption = True, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Digest a day: `digest run --scope project/inbox --day 2026-12-01`. A day digested already says so and
    changes nothing; new material since rewrites the writeup (`digest undo` takes a run back)."""
    with open_library(library) as lib:
        targets = [scope] if scope else digest.pending_digests(lib, day)
        runs = [digest.run_digest(lib, target, day) for target in targets]
        if wait:
            indexing.try_drain(lib, documents=[r.writeup_id for r in runs if r.writeup_id])

        def human() -> None:
            if not runs:
                out.print(f"Nothing to digest on {digest.parse_day(day).isoformat()}: every scope is digested.")
            for run in runs:
                _summary(run)

        emit(as_json, runs if not scope else runs[0], human)


@digest_app.command("show")
def digest_show(scope: DigestScopeOption = None, day: DayOption = None, library: LibraryOption = None,
                as_json: JsonOption = False) -> None:
    """Show a day's writeup and its change set (kept, added, modified, deleted)."""
    with open_library(library) as lib:
        shown = digest.show_digest(lib, scope, day)

        def human() -> None:
            out.print(shown.content, markup=False)
            _summary(shown)

        emit(as_json, shown, human)


@digest_app.command("undo")
def digest_undo(scope: DigestScopeOption = None, day: DayOption = None, wait: WaitOption = True,
                library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """Take back a day's latest digest run in one step (writeup, merges, marks, missed plans).

    Exit codes: 0 when done, and when it is undone already ("Nothing to undo."); 5 when a document it changed has
    changed since (nothing is changed)."""
    with open_library(library) as lib:
        try:
            step = digest.undo_digest(lib, scope, day)
        except NothingToUndo as error:
            reason = str(error)
            emit(as_json, None, lambda: out.print(f"Nothing to undo: {reason}.", markup=False))
            return
        if wait:
            indexing.try_drain(lib, documents=step.document_ids)
        emit(as_json, step, lambda: out.print(f"Undo {step.label}: {step.documents} document"
                                              f"{'s' if step.documents != 1 else ''}", markup=False))


def _summary(run: DigestRun) -> None:
    """The run's one-line message, then its change set, one change a line (kept atoms counted, not listed)."""
    out.print(run.message, markup=False)
    if run.fallback:
        out.print(f"[yellow]the {escape(run.generator)} generator failed: the built-in one wrote the writeup[/yellow]")
    for change in run.changes:
        if change.kind != "kept":
            out.print(f"  {change.kind:<8} {escape(change.title)} [dim]{change.document_id} · {escape(change.what)}"
                      f"[/dim]")
    for warning in run.warnings:
        out.print(f"  [yellow]{escape(warning)}[/yellow]")
