"""The library's tags from the terminal: ``memory tags`` (list), ``memory tag-rename``, ``memory tag-merge``,
``memory tag-delete``: the tag pane's actions (``services.tags``), undone as one step by ``vancetope undo``.

Renaming, merging and deleting a tag act on every document of the library, as in the app's tag pane (a tag
means one thing across scopes). The agent tool API has no such actions on purpose: an agent writes only its
own scope's documents (``memory_tag``), and a library-wide rename would change the person's.
"""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from ..core.undo import UserAction
from ..services import audit, indexing, tags
from .apps import memory
from .context import JsonOption, LibraryOption, ScopeOption, WaitOption, emit, open_library, out


def _changed(lib, changed: list[str], wait: bool, as_json: bool, what: str) -> None:
    """Re-index the changed documents' tags (``--wait``) and say how many changed."""
    if wait:  # their vectors' tag metadata; the rest of the queue is the writer's
        indexing.try_drain(lib, documents=changed)
    emit(as_json, {"changed": changed}, lambda: out.print(
        f"{what}: {len(changed)} document{'s' if len(changed) != 1 else ''} changed", markup=False))


@memory.command("tags")
def memory_tags(scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """List the tags the scope sees, with how many documents carry each (and the tags below it)."""
    with open_library(library) as lib:
        found = tags.list_tags(lib, scope=scope)
        emit(as_json, found, lambda: out.print("\n".join(
            f"#{escape(t.tag)}  {t.total}" + (f" ({t.own} own)" if t.own != t.total else "") for t in found)
            or "No tags."))


@memory.command("tag-rename")
def memory_tag_rename(
    old: Annotated[str, typer.Argument(help="The tag to rename (the tags below it follow: old/x → new/x).")],
    new: Annotated[str, typer.Argument(help="Its new name.")],
    library: LibraryOption = None, as_json: JsonOption = False, wait: WaitOption = True,
) -> None:
    """Rename a tag on every document of the library: `memory tag-rename ml machine-learning` (one undo step)."""
    with open_library(library) as lib:
        action = UserAction(label=f"Rename #{old} to #{new}", actor=audit.current_user())
        _changed(lib, tags.rename_tag(lib, old, new, user_action=action), wait, as_json, f"#{old} → #{new}")


@memory.command("tag-merge")
def memory_tag_merge(
    sources: Annotated[list[str], typer.Argument(help="The tags to merge (the tags below each follow).")],
    into: Annotated[str, typer.Option("--into", help="The tag they become (may be one of them, or new).")],
    library: LibraryOption = None, as_json: JsonOption = False, wait: WaitOption = True,
) -> None:
    """Merge tags into one on every document of the library: `memory tag-merge ML ml-papers --into ml`."""
    with open_library(library) as lib:
        action = UserAction(label=f"Merge tags into #{into}", actor=audit.current_user())
        _changed(lib, tags.merge_tags(lib, sources, into, user_action=action), wait, as_json,
                 f"merged into #{into}")


@memory.command("tag-delete")
def memory_tag_delete(
    doomed: Annotated[list[str], typer.Argument(help="The tags to remove (the tags below them go too).")],
    library: LibraryOption = None, as_json: JsonOption = False, wait: WaitOption = True,
) -> None:
    """Remove tags from every document of the library (the documents stay): `memory tag-delete todo`."""
    with open_library(library) as lib:
        action = UserAction(label="Delete " + ", ".join(f"#{t}" for t in doomed), actor=audit.current_user())
        _changed(lib, tags.delete_tags(lib, doomed, user_action=action), wait, as_json, "deleted")
