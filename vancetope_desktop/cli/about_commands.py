"""``vancetope about``: the version, the licence, and what the app ships with each licence (Help ▸ About)."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from ..services import licenses
from .apps import app
from .context import JsonOption, emit, out


@app.command("about")
def about_command(as_json: JsonOption = False) -> None:
    """The version and licence of Vancetope Desktop, then the components it ships, each with its licence: Python,
    Qt, the bundled models and the libraries its dependencies bring (as Help ▸ About shows; read from the installed
    packages' metadata).

    --json prints {"name", "version", "license", "components": [{name, version, license, kind, shipped_by,
    purpose}]}.
    """
    components = licenses.bundled_components()
    app_entry = components[0]
    value = {"name": app_entry.name, "version": app_entry.version, "license": app_entry.license,
             "components": components}
    emit(as_json, value, lambda: _print(components))


def _print(components: list[licenses.Component]) -> None:
    head, *rest = components
    out.print(f"{head.name} {escape(head.version)}, licensed {escape(head.license)}", markup=True)
    table = Table(show_edge=False, pad_edge=False)
    for column in ("component", "version", "licence", "what it is"):
        table.add_column(column, overflow="fold")
    for component in rest:
        table.add_row(escape(component.name), escape(component.version), escape(component.license),
                      escape(component.role))
    out.print(table)
