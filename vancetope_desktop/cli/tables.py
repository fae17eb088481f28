"""Rich table columns the CLI's tables share."""

from __future__ import annotations

from rich.table import Table


def key_column(table: Table, name: str, values: list[str]) -> None:
    """Add a column of keys other commands take (document ids, setting names): never wrapped nor cut, as wide as
    its longest value, so a narrow terminal squeezes the other columns (titles, descriptions) instead."""
    table.add_column(name, no_wrap=True, overflow="ignore", min_width=max((len(v) for v in values), default=len(name)))
