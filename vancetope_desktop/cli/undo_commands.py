"""Undo from the terminal: ``vancetope undo`` / ``vancetope redo`` (``--list``: what they would take back).

The history is the library's audit trail (``services.undo``), shared with the app: an action done in
the window can be undone here and the other way round.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..core.errors import NothingToUndo
from ..core.undo import UndoStep
from ..services import indexing, undo
from .apps import app
from .context import JsonOption, LibraryOption, WaitOption, emit, open_library, out

ListOption = Annotated[bool, typer.Option("--list", help="Only show what would be undone and redone, newest first.")]


@app.command("undo")
def undo_command(list_only: ListOption = False, library: LibraryOption = None, as_json: JsonOption = False,
                 wait: WaitOption = True) -> None:
    """Take back your latest trash, move, tag, rename or edit (scope moves approved in review excepted).

    Exit codes: 0 when done, and also when there is nothing to undo (it says "Nothing to undo.";
    --json prints null); 5 when the undo would overwrite a later change (nothing is changed).
    """
    _step("undo", list_only, library, as_json, wait)


@app.command("redo")
def redo_command(list_only: ListOption = False, library: LibraryOption = None, as_json: JsonOption = False,
                 wait: WaitOption = True) -> None:
    """Do again what `vancetope undo` took back last (nothing new done since).

    Exit codes as for `vancetope undo`: 0 also when there is nothing to redo ("Nothing to redo.").
    """
    _step("redo", list_only, library, as_json, wait)


def _step(direction: str, list_only: bool, library: Path | None, as_json: bool, wait: bool) -> None:
    with open_library(library) as lib:
        if list_only:
            undoable, redoable = undo.history(lib)
            emit(as_json, {"undo": undoable, "redo": redoable}, lambda: _listing(undoable, redoable))
            return
        try:
            step = undo.undo(lib) if direction == "undo" else undo.redo(lib)
        except NothingToUndo:  # an empty stack is a state, not a failure (as an editor's greyed-out Undo)
            emit(as_json, None, lambda: out.print(f"Nothing to {direction}."))
            return
        if wait:  # restored texts, vectors carried back
            indexing.try_drain(lib, documents=step.document_ids)
        emit(as_json, step, lambda: out.print(f"{direction.title()} {step.label}: {step.documents} document"
                                              f"{'s' if step.documents != 1 else ''}", markup=False))


def _listing(undoable: list[UndoStep], redoable: list[UndoStep]) -> None:
    for title, steps in (("Undo", undoable), ("Redo", redoable)):
        if not steps:
            out.print(f"Nothing to {title.lower()}.")
            continue
        out.print(f"{title} (next first):")
        for step in steps:
            out.print(f"  {step.label}  ({step.documents} document{'s' if step.documents != 1 else ''}, "
                      f"{step.at:%Y-%m-%d %H:%M} UTC)", markup=False)
