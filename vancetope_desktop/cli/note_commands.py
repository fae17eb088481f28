"""Links between notes and reading status from the terminal: ``memory links``, ``memory backlinks`` and
``memory reading-status`` (named so, to stay apart from the lifecycle status of ``memory archive`` and
``memory list --status``)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from ..core.reading import ReadingStatus, reading_status_of
from ..services import documents as doc_service
from ..services import notelinks, reading, scopes
from .apps import memory
from .context import JsonOption, LibraryOption, ScopeOption, emit, open_library, out


@memory.command("links")
def memory_links(doc_id: Annotated[str, typer.Argument(help="Document id (doc_…).")], scope: ScopeOption = None,
                 library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """The [[Title]] links of a note and where each leads, by the rule the app follows (services.notelinks):

    a link leads to the one document of its note's scope or above (not in the trash) whose title is the
    link's, up to case, as the titles are now; none: missing; two or more: ambiguous, every candidate listed
    and none chosen (link by id to choose: [[doc_…|text]]).
    """
    with open_library(library) as lib:
        doc_service.get_document(lib, doc_id, acting_scope=scopes.resolve_scope(lib, scope))
        links = notelinks.note_links(lib, doc_id)

        def human() -> None:
            if not links:
                out.print("No [[links]].", markup=False)
            for link in links:
                if link.document is not None:
                    out.print(f"{escape(link.shown)} → {escape(link.document.title)} ({link.document.id})")
                elif link.state == "ambiguous":
                    out.print(f"{escape(link.shown)} → [yellow]ambiguous[/yellow], {len(link.candidates)} documents "
                              f"titled {escape(link.target)!r}, none chosen: "
                              + "; ".join(f"{escape(c.title)} ({c.id})" for c in link.candidates)
                              + escape(" (link by id to choose: [[doc_…|text]])"))
                else:
                    out.print(f"{escape(link.shown)} → [red]missing[/red]: no document titled "
                              f"{escape(link.target)!r} in its scope or above")

        emit(as_json, links, human)


@memory.command("backlinks")
def memory_backlinks(doc_id: Annotated[str, typer.Argument(help="Document id (doc_…).")], scope: ScopeOption = None,
                     library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """What mentions a document: notes linking to it, and documents naming its title without a link."""
    with open_library(library) as lib:
        acting = scopes.resolve_scope(lib, scope)
        doc_service.get_document(lib, doc_id, acting_scope=acting)
        found = notelinks.backlinks(lib, doc_id, scope=acting)

        def human() -> None:
            out.print(f"[bold]Linked mentions[/bold] ({len(found.linked)})")
            for mention in found.linked:
                out.print(f"  {escape(mention.document.title)} ({mention.document.id})")
            out.print(f"[bold]Unlinked mentions[/bold] ({len(found.unlinked)})")
            for mention in found.unlinked:
                out.print(f"  {escape(mention.document.title)} ({mention.document.id}): {escape(mention.snippet)}")

        emit(as_json, found, human)


@memory.command("reading-status")
def memory_reading_status(
    doc_ids: Annotated[list[str], typer.Argument(help="Document ids.")],
    set_to: Annotated[ReadingStatus | None, typer.Option(
        "--set", help="Give them this reading status; without it, show theirs.")] = None,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Show or set the reading status (unread, reading, read): `memory reading-status DOC --set read`."""
    with open_library(library) as lib:
        acting = scopes.resolve_scope(lib, scope)
        docs = [doc_service.get_document(lib, d, acting_scope=acting) for d in doc_ids]
        if set_to is not None:
            docs = reading.set_reading_status(lib, doc_ids, set_to)
        shown = [{"id": d.id, "title": d.title, "reading_status": reading_status_of(d.type, d.metadata)}
                 for d in docs]
        emit(as_json, shown, lambda: [out.print(
            f"{row['id']}: {row['reading_status'] or 'no reading status'}  {escape(row['title'])}")
            for row in shown])
