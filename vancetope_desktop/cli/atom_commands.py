"""Atoms from the terminal (issue 13): ``atoms add|list|show|plan-update|happened`` over ``services.atoms``,
``atoms extract DOC…`` and ``atoms files-setting`` over ``services.atom_extraction``.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from ..core.atoms import Atom, AtomType
from ..core.tags import split_tag_list
from ..services import atom_extraction, atoms, indexing, scopes, undo
from ..services.atom_extraction import ExtractionReport, FilesSetting
from .apps import atoms_app
from .context import JsonOption, LibraryOption, ScopeOption, WaitOption, emit, err, open_library, out
from .progress import progress

DATE_HELP = "ISO (2026-12-05, 2026-12-05T14:30) or a phrase ('next Friday')."
STATUS_HELP = "planned, missed or canceled (a plan that happened: `atoms happened`)."


@atoms_app.command("add")
def atoms_add(
    text: Annotated[str, typer.Argument(help="The statement, one sentence.")],
    atom_type: Annotated[AtomType, typer.Option("--type", case_sensitive=False, help="fact, event or plan.")
                         ] = AtomType.FACT,
    when: Annotated[str | None, typer.Option(help="An event's time: " + DATE_HELP)] = None,
    due: Annotated[str | None, typer.Option(help="A plan's due date: " + DATE_HELP)] = None,
    title: Annotated[str | None, typer.Option(help="Title (default: the statement, shortened).")] = None,
    tags: Annotated[str | None, typer.Option(help="Comma-separated tags.")] = None,
    scope: ScopeOption = None, wait: WaitOption = True, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Write an atom: `atoms add "Submit the report." --type plan --due 2026-12-15`."""
    with open_library(library) as lib:
        draft = atoms.draft_atom(atom_type, text, when=when, due=due)
        stored = atoms.store_atom(lib, draft, scope=scopes.resolve_scope(lib, scope), title=title,
                                  tags=split_tag_list(tags))
        if wait:
            indexing.try_drain(lib, documents=[stored.id])
        emit(as_json, stored, lambda: _line(stored))


@atoms_app.command("list")
def atoms_list(
    atom_type: Annotated[list[AtomType] | None, typer.Option("--type", case_sensitive=False,
                                                             help="Only this kind (repeat for several).")] = None,
    status: Annotated[str | None, typer.Option(help="Only plans in this status: " + STATUS_HELP)] = None,
    source: Annotated[str | None, typer.Option(help="Only atoms read from this document (doc_…).")] = None,
    due_before: Annotated[str | None, typer.Option(help="Only plans due before: " + DATE_HELP)] = None,
    text: Annotated[str | None, typer.Option(help="Only atoms holding this text.")] = None,
    include_archived: Annotated[bool, typer.Option("--include-archived", help="Plans that happened too.")] = False,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """List the atoms a scope sees (its own and its ancestors'), newest first: `atoms list --type plan --status
    missed`."""
    with open_library(library) as lib:
        found = atoms.list_atoms(lib, scopes.resolve_scope(lib, scope), types=atom_type or (), status=status,
                                 source_id=source, due_before=due_before, text=text,
                                 include_archived=include_archived)

        def human() -> None:
            if not found:
                out.print("No atoms.")
            for found_atom in found:
                _line(found_atom)

        emit(as_json, found, human)


@atoms_app.command("show")
def atoms_show(
    atom_id: Annotated[str, typer.Argument(help="The atom's id (doc_…).")],
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Show one atom: its statement, times, status and where it was read."""
    with open_library(library) as lib:
        found = atoms.atom(lib, atom_id, acting_scope=scopes.resolve_scope(lib, scope))
        emit(as_json, found, lambda: _line(found))


@atoms_app.command("plan-update")
def atoms_plan_update(
    plan_id: Annotated[str, typer.Argument(help="The plan's id (doc_…).")],
    status: Annotated[str, typer.Argument(help=STATUS_HELP)],
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Set a plan's status: `atoms plan-update doc_… canceled` (`undo` takes it back)."""
    with open_library(library) as lib:
        changed = atoms.plan_update(lib, plan_id, status, acting_scope=scopes.resolve_scope(lib, scope),
                                    user_action=undo.user_action(lib, "Plan status", [plan_id.strip()]))
        emit(as_json, changed, lambda: _line(changed))


@atoms_app.command("happened")
def atoms_happened(
    plan_id: Annotated[str, typer.Argument(help="The plan's id (doc_…).")],
    when: Annotated[str, typer.Option(help="When it happened: " + DATE_HELP)],
    text: Annotated[str | None, typer.Option(help="What happened (default: the plan's statement).")] = None,
    scope: ScopeOption = None, wait: WaitOption = True, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Record that a plan happened: an event that updates the plan, which is archived."""
    with open_library(library) as lib:
        event = atoms.plan_happened(lib, plan_id, when, text, acting_scope=scopes.resolve_scope(lib, scope))
        if wait:
            indexing.try_drain(lib, documents=[event.id])
        emit(as_json, event, lambda: _line(event))


@atoms_app.command("extract")
def atoms_extract(
    document_ids: Annotated[list[str], typer.Argument(help="The documents to read atoms from (doc_…).")],
    scope: Annotated[str | None, typer.Option("--scope", "-s", help="Act as this scope: every document must be "
                                              "readable from it (default: any document of the library).")] = None,
    wait: WaitOption = True, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Read facts, events and plans from documents (any source: a PDF too, whatever its scope's setting):
    `atoms extract doc_1 doc_2`. Reading again adds only what is new. Progress goes to stderr, one line per
    document. Exit 1 if a document failed."""
    with open_library(library) as lib:
        with progress(err) as bar:
            task = bar.add_task("reading atoms", total=len(document_ids))
            report = atom_extraction.extract_atoms(
                lib, document_ids, scope=scopes.resolve_scope(lib, scope) if scope else None,
                progress=lambda p: bar.update(task, completed=p.done, total=p.total, description=p.current[:40]))
        if wait and report.added:
            indexing.try_drain(lib, documents=report.added)
        emit(as_json, report.model_dump(mode="json") | {"summary": report.summary()}, lambda: _report(report))
    if any(o.status == "failed" for o in report.outcomes):
        raise typer.Exit(1)


@atoms_app.command("files-setting")
def atoms_files_setting(
    value: Annotated[str | None, typer.Argument(help="on, off, or inherit (forget this scope's own value); "
                                                "omitted: show it.", show_default=False)] = None,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Whether files (PDF, docx, html…) imported into a scope get their atoms read at import (off by default;
    a scope without its own value follows its parent): `atoms files-setting on --scope project/thesis`. Notes
    and results always do."""
    choices = {"on": True, "off": False, "inherit": None}
    if value is not None and value.strip().lower() not in choices:
        raise typer.BadParameter(f"{value!r}: use on, off or inherit")
    with open_library(library) as lib:
        setting = atom_extraction.files_setting(lib, scope) if value is None else \
            atom_extraction.set_files_setting(lib, scopes.resolve_scope(lib, scope), choices[value.strip().lower()])
        emit(as_json, setting, lambda: _setting(setting))


def _report(report: ExtractionReport) -> None:
    """Each document's outcome on a line, then the summary."""
    for o in report.outcomes:
        name = f"{escape(o.title)} [dim]{o.document_id}[/dim]" if o.title else o.document_id
        if o.status == "extracted":
            extra = [o.reason] if o.cut_short and o.reason else []
            extra += [f"{len(o.marked_stale)} marked stale"] if o.marked_stale else []
            extra += [f"{o.fallbacks} read by the built-in generator"] if o.fallbacks else []
            out.print(f"{name}: {len(o.added)} new, {o.known} known"
                      + "".join(f" · {escape(e)}" for e in extra))
        else:
            colour = "red" if o.status == "failed" else "yellow"
            out.print(f"[{colour}]{name}: {o.status}"
                      f"{': ' + escape(o.reason) if o.reason else ''}[/{colour}]")
        for warning in o.warnings:
            out.print(f"      [yellow]{escape(warning)}[/yellow]")
    if report.generator_problem:
        out.print(f"[yellow]{escape(report.generator_problem)}[/yellow]")
    out.print(f"[bold]{escape(report.summary())}[/bold] [dim](generator: {report.generator})[/dim]")


def _setting(setting: FilesSetting) -> None:
    where = "set here" if setting.own is not None else f"from {setting.set_in}" if setting.set_in else "the default"
    out.print(f"Atoms read from files imported into {setting.scope}: [bold]{'on' if setting.enabled else 'off'}"
              f"[/bold] ({where})")


def _line(found: Atom) -> None:
    """One atom on one line, then where it came from."""
    if found.type is AtomType.EVENT and found.when:
        about = f"{found.when:%Y-%m-%d %H:%M}"
    elif found.type is AtomType.PLAN:
        status = f"happened ({found.happened_as})" if found.happened_as else \
            (found.plan_status.value if found.plan_status else "")
        about = f"due {found.due:%Y-%m-%d} · {status}" if found.due else status
    else:
        about = ""
    out.print(f"{found.type.value:<5} [bold]{escape(found.text)}[/bold] [dim]{found.id}"
              f"{' · ' + about if about else ''}{' · edited' if found.edited_by_person else ''}[/dim]")
    if found.source_gone:
        out.print(f"      [yellow]source {found.source_id} is gone (purged); the atom keeps its text[/yellow]")
    elif found.source_id:
        out.print(f"      [dim]from {escape(found.source_title or found.source_id)} ({found.source_id})[/dim]")
