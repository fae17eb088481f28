"""``vancetope settings``: the library's settings (``settings.json``), shown and changed one at a time.

The same rule as the app's Settings dialog (``services.library_settings``): a value is checked by the settings'
schema, and a new embedding model or precision re-embeds the library.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from ..services import library_settings
from .apps import settings_app
from .context import JsonOption, LibraryOption, emit, err, open_library, out


def _text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _show(infos: list[library_settings.SettingInfo], verbose: bool) -> None:
    table = Table("setting", "value", "default", box=None, pad_edge=False)
    if verbose:
        table.add_column("meaning", overflow="fold")
    for info in infos:
        row = [info.key, ("[bold]" if info.changed else "") + _text(info.value).replace("[", r"\["),
               _text(info.default).replace("[", r"\[")]
        table.add_row(*row, *([info.description.replace("[", r"\[")] if verbose else []))
    out.print(table)


@settings_app.command("show")
def settings_show(
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Also what each setting means.")] = False,
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Every setting of the library: its value (bold when it differs from the default) and its default.

    --json prints [{key, value, default, changed, description}].
    """
    with open_library(library) as lib:
        infos = library_settings.describe_settings(lib)
        emit(as_json, infos, lambda: _show(infos, verbose))


@settings_app.command("set")
def settings_set(
    key: Annotated[str, typer.Argument(help="The setting, as `vancetope settings show` names it.")],
    value: Annotated[str, typer.Argument(help="Its new value: 32, 0.5, true, int8, a path; a list as JSON, "
                                              "e.g. '[1.0, 0.7, 0.4]'.")],
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Change one setting of the library (checked first: nothing is saved when the value is wrong). A new
    embedding_model or embedding_precision re-embeds the library: its documents are queued for the writer (the
    open app's indexing process, or `vancetope index run`); keyword search works meanwhile.

    Exit codes: 0 saved (or unchanged); 2 an unknown setting or a value it cannot take.
    --json prints {changed: [keys], reindexed: documents queued or null}.
    """
    with open_library(library) as lib:
        saved = library_settings.set_setting(lib, key, value)

    def human() -> None:
        if not saved.changed:
            out.print(f"{key} is {value} already: nothing changed", markup=False)
            return
        out.print(f"{key} set to {value}", markup=False)
        if saved.reindexed is not None:
            err.print(f"the search index is rebuilt for it: {saved.reindexed} document(s) queued for re-embedding "
                      "(by the open app, or `vancetope index run`)", markup=False)

    emit(as_json, saved, human)
