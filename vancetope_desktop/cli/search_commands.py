"""Saved searches from the terminal: ``search save / list / run / rename / forget`` (``memory search`` is the
one-off search; these keep one under a name, as the app's folder tree shows them)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from ..core.documents import DocumentStatus, DocumentType
from ..core.reading import ReadingStatus
from ..core.tags import split_tag_list
from ..services import saved_searches, scopes
from ..services.saved_searches import SavedSearch
from . import render
from .apps import search_app
from .context import JsonOption, LibraryOption, MemoryTypeOption, ScopeOption, emit, open_library, out

NameArgument = Annotated[str, typer.Argument(help="The saved search's name.")]


@search_app.command("save")
def search_save(
    name: NameArgument,
    query: Annotated[str, typer.Argument(help="What to search for; '' lists every document the filters keep.")] = "",
    tags: Annotated[str | None, typer.Option("--tags", "-t", help="Comma-separated tags; all must match.")] = None,
    any_tags: Annotated[str | None, typer.Option("--any-tags", help="Comma-separated tags; any may match.")] = None,
    not_tags: Annotated[str | None, typer.Option("--not-tags", help="Comma-separated tags to exclude.")] = None,
    where: Annotated[str | None, typer.Option("--where", help="Tag expression, e.g. '#a and not #b'.")] = None,
    doc_type: Annotated[list[DocumentType] | None, typer.Option("--type", help="Only this type.")] = None,
    status: Annotated[list[DocumentStatus] | None, typer.Option("--status", help="Include these states "
                                                                "(default: active).")] = None,
    reading: Annotated[list[ReadingStatus] | None, typer.Option("--reading", help="Only this reading status.")] = None,
    memory_type: MemoryTypeOption = None,
    in_scope: Annotated[str | None, typer.Option("--in", help="Search from this scope (default: the current "
                                                 "scope when it runs).")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=5000)] = saved_searches.DEFAULT_LIMIT,
    replace: Annotated[bool, typer.Option("--replace", help="Overwrite a saved search of that name.")] = False,
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Keep a search under a name: `search save "To read" --reading unread --type file`."""
    with open_library(library) as lib:
        saved = saved_searches.save_search(lib, SavedSearch(
            name=name, query=query, tags=split_tag_list(tags), any_tags=split_tag_list(any_tags),
            not_tags=split_tag_list(not_tags), where=where, types=doc_type or [],
            statuses=status or [DocumentStatus.ACTIVE], reading=reading or [], memory_types=memory_type or [],
            scope=scopes.resolve_scope(lib, in_scope) if in_scope else None, limit=limit), replace=replace)
        emit(as_json, saved, lambda: out.print(f"saved search {escape(saved.name)!r}"))


@search_app.command("list")
def search_list(library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """The saved searches of the library."""
    with open_library(library) as lib:
        found = saved_searches.list_saved(lib)

        def human() -> None:
            if not found:
                out.print("No saved searches.")
            for saved in found:
                parts = [f"query {saved.query!r}" if saved.query else "no query"]
                parts += [f"{label} {', '.join(map(str, values))}" for label, values in (
                    ("tags", saved.tags), ("any of", saved.any_tags), ("not", saved.not_tags),
                    ("types", saved.types), ("reading", saved.reading), ("memory types", saved.memory_types))
                    if values]
                parts += [f"where {saved.where}"] if saved.where else []
                parts += [f"in {saved.scope}"] if saved.scope else []
                out.print(f"[bold]{escape(saved.name)}[/bold]: {escape('; '.join(parts))}")

        emit(as_json, found, human)


@search_app.command("run")
def search_run(name: NameArgument, scope: ScopeOption = None, library: LibraryOption = None,
               as_json: JsonOption = False) -> None:
    """Run a saved search now and list what it finds."""
    with open_library(library) as lib:
        acting = scopes.resolve_scope(lib, scope)
        docs = saved_searches.run_saved(lib, name, scope=acting)
        emit(as_json, [d.model_dump(mode="json", exclude={"content"}) for d in docs],
             lambda: render.documents(docs, acting))


@search_app.command("rename")
def search_rename(name: NameArgument, new_name: Annotated[str, typer.Argument(help="The new name.")],
                  library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """Rename a saved search."""
    with open_library(library) as lib:
        saved = saved_searches.rename_saved(lib, name, new_name)
        emit(as_json, saved, lambda: out.print(f"renamed to {escape(saved.name)!r}"))


@search_app.command("forget")
def search_forget(name: NameArgument, library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """Delete a saved search (the documents it finds stay)."""
    with open_library(library) as lib:
        saved_searches.forget_saved(lib, name)
        emit(as_json, {"forgotten": name}, lambda: out.print(f"forgot saved search {escape(name)!r}"))
