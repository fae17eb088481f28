"""``vancetope settings``: the library's settings (``settings.json``), shown and changed one at a time.

The same rule as the app's Settings dialog (``services.library_settings``): a value is checked by the settings'
schema, and a new embedding model or precision re-embeds the library.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.markup import escape
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from ..services import library_settings
from .apps import settings_app
from .context import JsonOption, LibraryOption, emit, err, key_column, open_library, out


def _text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _show(infos: list[library_settings.SettingInfo], verbose: bool) -> None:
    if verbose:  # a setting a paragraph: a meaning column beside three others gets a word a line at 80 columns
        for info in infos:
            head = Text.assemble((info.key, "bold"), " = ", (_text(info.value), "bold" if info.changed else ""),
                                 f"  (default {_text(info.default)})")
            head.no_wrap = True
            out.print(head, soft_wrap=False, overflow="fold")
            if info.description:
                out.print(Padding(info.description, (0, 0, 0, 4)), soft_wrap=False, markup=False)
        return
    table = Table(box=None, pad_edge=False)
    key_column(table, "setting", [info.key for info in infos])
    table.add_column("value", overflow="fold")
    table.add_column("default", overflow="fold")
    for info in infos:
        table.add_row(info.key, ("[bold]" if info.changed else "") + escape(_text(info.value)),
                      escape(_text(info.default)))
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


# ignore_unknown_options: a negative VALUE (-5) is the argument, not an option click does not know.
@settings_app.command("set", context_settings={"ignore_unknown_options": True})
def settings_set(
    key: Annotated[str, typer.Argument(metavar="KEY", help="The setting, as `vancetope settings show` names it.")],
    value: Annotated[str, typer.Argument(metavar="VALUE", help="Its new value: 32, -5, 0.5, true, int8, a path; a "
                                         "list as JSON or with commas, e.g. '[1.0, 0.7, 0.4]' or 1,0.7,0.4.")],
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Change one setting of the library (checked first: nothing is saved when the value is wrong). dense_weight
    and lexical_weight sum to 1: setting one sets the other to the rest. A new
    embedding_model or embedding_precision re-embeds the library: its documents are queued for the writer (the
    open app's indexing process, or `vancetope index run`); keyword search works meanwhile.

    Exit codes: 0 saved (or unchanged); 2 an unknown setting or a value it cannot take.
    --json prints {changed: the keys changed, reindexed: documents queued or null}.
    """
    with open_library(library) as lib:
        saved = library_settings.set_setting(lib, key, value)

    def human() -> None:
        if not saved.changed:
            out.print(f"{key} is {value} already: nothing changed", markup=False)
            return
        out.print(f"{key} set to {value}", markup=False)
        for other in saved.changed:
            if other != key:
                out.print(f"{other} set to {_text(getattr(lib.settings, other))} with it", markup=False)
        if saved.reindexed is not None:
            err.print(f"the search index is rebuilt for it: {saved.reindexed} document(s) queued for re-embedding "
                      "(by the open app, or `vancetope index run`)", markup=False)

    emit(as_json, saved, human)
