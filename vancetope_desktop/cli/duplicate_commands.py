"""``vancetope memory duplicates``: likely duplicates within what a scope sees, listed or merged."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from ..core.errors import InvalidInput
from ..services import duplicates, indexing, scopes
from .apps import memory
from .context import (
    JsonOption,
    LibraryOption,
    ScopeOption,
    WaitOption,
    emit,
    err,
    guarded,
    open_library,
    out,
    print_json,
)


@memory.command("duplicates")
def memory_duplicates(
    merge: Annotated[bool, typer.Option("--merge", help="Merge the groups (all, or those --group names) into "
                                        "their survivor; the others go to the trash.")] = False,
    group: Annotated[list[int] | None, typer.Option(
        "--group", "-g", help="Only this group (its number in the listing); repeat for several.")] = None,
    keep: Annotated[list[str] | None, typer.Option(
        "--keep", help="The document to keep in its group (default: the one with a file, then the oldest); "
        "repeat for several groups.")] = None,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
    wait: WaitOption = True,
) -> None:
    """List likely duplicates (same file, DOI, or title and year) and why; `--merge` merges them.

    `memory duplicates --merge --group 2 --keep doc_…` merges group 2 into doc_…; each group is merged
    on its own, and one that fails is reported without stopping the others (exit 1).
    """
    with open_library(library) as lib:
        groups = duplicates.find_duplicates(lib, scope=scopes.resolve_scope(lib, scope))
        chosen = _chosen(groups, group or [])
        if not merge:
            emit(as_json, chosen, lambda: _listing(groups, chosen))
            return
        members = {d.id for g in chosen for d in g.documents}
        strangers = [k for k in keep or [] if k not in members]
        if strangers:
            with guarded():
                raise InvalidInput(f"--keep {', '.join(strangers)}: not in the groups to merge "
                                   "(see `memory duplicates`)")
        report = duplicates.merge_groups(lib, duplicates.group_choices(chosen, keep or []))
        if wait:
            indexing.try_drain(lib, documents=[o.keep_id for o in report.outcomes if o.ok])  # their new tags
        if as_json:
            print_json(report)
        else:
            for outcome in report.outcomes:
                if outcome.ok:
                    out.print(f"[green]merged[/green] {', '.join(outcome.merged_ids)} into {outcome.keep_id} "
                              "(the others are in the trash)")
                else:
                    err.print(f"[red]not merged[/red] into {outcome.keep_id}: {escape(outcome.error or '')}")
            out.print(report.summary if report.outcomes else "No duplicates to merge.")
    if report.failed:
        raise typer.Exit(1)


def _chosen(groups: list[duplicates.DuplicateGroup], numbers: list[int]) -> list[duplicates.DuplicateGroup]:
    """The groups ``--group`` names (1-based, as listed), or all; an unknown number is an error (exit 2)."""
    if not numbers:
        return groups
    wrong = [n for n in numbers if not 1 <= n <= len(groups)]
    if wrong:
        with guarded():
            raise InvalidInput(f"no group {', '.join(map(str, wrong))}: there are {len(groups)} "
                               "(see `memory duplicates`)")
    return [groups[n - 1] for n in dict.fromkeys(numbers)]


def _listing(groups: list[duplicates.DuplicateGroup], chosen: list[duplicates.DuplicateGroup]) -> None:
    if not groups:
        out.print("No likely duplicates.")
        return
    for number, group in enumerate(groups, start=1):
        if group not in chosen:
            continue
        out.print(f"[bold]{number}.[/bold] {escape(group.reason)}")
        for doc in group.documents:
            mark = "keep" if doc.id == group.keep_id else "    "
            details = ", ".join(x for x in (doc.type.value, "file" if doc.has_file else "",
                                            doc.created_at.strftime("%Y-%m-%d")) if x)
            out.print(f"   {mark} {doc.id} {escape(doc.title)} ({details})")
    out.print(f"{len(groups)} group(s): `vancetope memory duplicates --merge` merges them into the 'keep' document "
              "(--keep DOC picks another, --group N only some)")
