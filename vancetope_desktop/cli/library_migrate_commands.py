"""``vancetope library migrate``: copy a library into a new one, vectors included without embedding again, and print
the verification (``services.library_copy``)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from ..core.errors import NotFound
from ..index.chroma_server import DEFAULT_TENANT
from ..services import library_copy, team_library
from ..services.library import Library, LibraryPaths
from .apps import library_app
from .context import JsonOption, emit, err, guarded, open_library, out
from .progress import progress
from .team_options import (
    DEFAULT_TOKEN_HEADER,
    ChromaCaOption,
    ChromaDatabaseOption,
    ChromaInsecureOption,
    ChromaTenantOption,
    ChromaTokenHeaderOption,
    DbOption,
    FilesOption,
    TeamFlag,
    VectorsOption,
    create_descriptor,
)

STAGES = {"files": "copying files", "vectors": "copying vectors", "rows": "copying rows",
          "words": "indexing words"}
"""The copy's stages (``CopyProgress.stage``) as the progress display names them, in the order they run."""


@library_app.command("migrate")
def library_migrate(
    source: Annotated[Path, typer.Argument(help="The library to copy (its folder).", show_default=False)],
    target: Annotated[Path, typer.Argument(help="The new library's folder: created (a team library's descriptor with "
                                           "--team), or an empty library.", show_default=False)],
    team: TeamFlag = False,
    db: DbOption = None,
    vectors: VectorsOption = None,
    files: FilesOption = None,
    chroma_tenant: ChromaTenantOption = DEFAULT_TENANT,
    chroma_database: ChromaDatabaseOption = None,
    chroma_token_header: ChromaTokenHeaderOption = DEFAULT_TOKEN_HEADER,
    chroma_ca: ChromaCaOption = None,
    chroma_insecure: ChromaInsecureOption = False,
    as_json: JsonOption = False,
) -> None:
    """Copy the library SOURCE (embedded or team) into a new library TARGET: every document, chunk, version, tag,
    relation, request and audit entry with its id, the original files, the vectors as they are (nothing is embedded
    again), the settings. With --team (and --db, --vectors, --files, as `library create --team` takes them) TARGET
    is a new team library; else an embedded one. All or nothing: when the copy fails half-way, TARGET's database is
    left empty (run the command again). Close the app (or any process indexing SOURCE) first. A NUL character in a
    text (which PostgreSQL refuses) is copied as U+FFFD, as every write stores it, and counted.

    Prints the rows of every table and the vectors of every collection in both libraries; exits 1 when a count
    differs. --json prints {source, target, files, nul_replaced, ok, counts: [{what, source, target, equal}]}.
    """
    with guarded():
        _refuse_unless_a_library(source)
    new_folders = [p for p in (target, files) if p is not None and not p.expanduser().exists()]
    with open_library(source) as lib:
        try:
            create_descriptor(target, team, db, vectors, files, chroma_tenant=chroma_tenant,
                              chroma_database=chroma_database, chroma_token_header=chroma_token_header,
                              chroma_ca=chroma_ca, chroma_insecure=chroma_insecure)
            with Library.open(target) as copy, progress(err) as bar:
                report = library_copy.copy_library(lib, copy, progress=_shown(bar, {}))
        except BaseException:
            # A refused or failed copy leaves no library behind: a descriptor written here would open the target
            # database (another library's, when it was not empty) without its files (a tester, 3 Dec 2026).
            for folder in new_folders:
                shutil.rmtree(folder.expanduser(), ignore_errors=True)
            raise
    value = {"source": report.source, "target": report.target, "files": report.files,
             "nul_replaced": report.nul_replaced, "ok": report.ok,
             "counts": [{"what": check.what, "source": check.source, "target": check.target, "equal": check.equal}
                        for check in report.checks]}
    emit(as_json, value, lambda: _print_report(report))
    if not report.ok:
        raise typer.Exit(1)


def _refuse_unless_a_library(path: Path) -> None:
    """Raise NotFound unless ``path`` holds a library: opening a missing one would create an empty library there, and
    copy nothing."""
    root = path.expanduser().resolve()
    if not LibraryPaths(root).database.exists() and not team_library.descriptor_path(root).exists():
        raise NotFound(f"{path} holds no library to copy")


def _shown(bar, tasks: dict[str, int]) -> Callable[[library_copy.CopyProgress], None]:
    """A progress callback moving one task of ``bar`` per stage (added when the stage starts)."""

    def show(step: library_copy.CopyProgress) -> None:
        if step.stage not in tasks:
            tasks[step.stage] = bar.add_task(STAGES.get(step.stage, step.stage), total=step.total)
        bar.update(tasks[step.stage], completed=step.done, total=step.total)

    return show


def _print_report(report: library_copy.CopyReport) -> None:
    table = Table(show_edge=False, pad_edge=False)
    for name, justify in (("what", "left"), ("source", "right"), ("target", "right"), ("", "left")):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for check in report.checks:
        table.add_row(escape(check.what), str(check.source), str(check.target),
                      "" if check.equal else "[red]differs[/red]")
    out.print(f"copied {report.source} → {report.target} ({report.files} original files)", markup=False)
    out.print(table)
    if report.nul_replaced:
        out.print(f"{report.nul_replaced} text value(s) held a NUL character: copied with U+FFFD in its place",
                  markup=False)
    out.print("counts equal" if report.ok else "[red]counts differ: the source changed during the copy?[/red]")
