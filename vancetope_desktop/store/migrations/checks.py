"""Questions the revisions ask of the database they run on (``op.get_bind()``).

The steps of schemas 2 to 7 were written to be repeatable (a table made, a column added, only when missing), and
stay so: a library copied by hand between versions, or left half-way by a build from between two versions, still
upgrades.
"""

from __future__ import annotations

from alembic import op
from sqlalchemy import inspect


def is_sqlite() -> bool:
    """Whether the revision runs on SQLite (the embedded library), rather than on a server database."""
    return op.get_bind().dialect.name == "sqlite"


def has_table(name: str) -> bool:
    """Whether the table ``name`` exists."""
    return inspect(op.get_bind()).has_table(name)


def has_column(table: str, column: str) -> bool:
    """Whether the table ``table`` has the column ``column``."""
    return column in {found["name"] for found in inspect(op.get_bind()).get_columns(table)}
