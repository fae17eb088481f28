"""Copy a library database's rows into another library database, table by table, whatever the two dialects
(SQLite or PostgreSQL, either way round): ``library migrate`` (issue 17, ``services.library_copy``).

Generic over the schema: the tables are those of the SQLModel metadata (``store/tables.py``) in foreign-key order,
so a table added there is copied without editing this module. Rows go through SQLAlchemy Core with the tables'
own column types, so JSON, times and booleans are converted by each dialect as when the services write them. A NUL
in a text or JSON value, which an embedded library may hold (SQLite stores it) and PostgreSQL refuses, is copied as
U+FFFD, the rule of every write (``core.text.without_nul``, ``store.nul_guard``), and counted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple

from sqlalchemy import Column, Table, bindparam, delete, func, select, text, update
from sqlmodel import Session, SQLModel

from ..core.text import without_nul
from . import tables as _tables  # noqa: F401  (registers the library's tables in SQLModel.metadata)

BATCH_ROWS = 1_000
"""Rows per INSERT (an executemany): large enough that a 100,000-chunk library is 100 statements a table, small
enough that a batch of chunk texts stays a few megabytes."""


def library_tables() -> list[Table]:
    """The library's tables in foreign-key order (a table after those it refers to): SQLModel's metadata, which
    every table of ``store/tables.py`` joins when that module is imported."""
    return list(SQLModel.metadata.sorted_tables)


def row_counts(session: Session, tables: Sequence[Table]) -> dict[str, int]:
    """``{table name: number of rows}`` of ``tables`` in ``session``'s database (one COUNT each)."""
    return {table.name: int(session.execute(select(func.count()).select_from(table)).scalar_one())
            for table in tables}


def _self_references(table: Table) -> list[Column]:
    """The columns of ``table`` that refer to ``table`` itself (a scope's parent, a document's folder): a row may
    come before the row it names, so they are written after every row is in (they must be nullable)."""
    return [key.parent for key in table.foreign_keys if key.column.table is table]


def _batches(source: Session, table: Table, size: int) -> Iterator[list[dict]]:
    """``table``'s rows in ``source`` as column-name dicts, ``size`` at a time, in primary-key order (streamed)."""
    result = source.execute(select(table).order_by(*table.primary_key.columns).execution_options(yield_per=size))
    for partition in result.mappings().partitions(size):
        yield [dict(row) for row in partition]


class TableCopy(NamedTuple):
    """What :func:`copy_table` copied: ``rows``, and ``nul_replaced``, how many of their text values (a column's, or a
    string inside a JSON column's value) held a NUL, written as U+FFFD."""

    rows: int
    nul_replaced: int


def copy_table(source: Session, target: Session, table: Table, *, size: int = BATCH_ROWS,
               progress: Callable[[int], None] | None = None) -> TableCopy:
    """Insert every row of ``table`` in ``source`` into ``table`` in ``target`` (inside the caller's transactions).

    Columns that refer to the table itself are inserted empty and set afterwards, in batches by primary key. A NUL
    is written as U+FFFD (see the module docstring).

    Args:
        progress: called with the number of rows copied so far after each batch.

    Returns:
        The :class:`TableCopy`: rows copied, text values whose NULs were replaced.

    Raises:
        sqlalchemy.exc.IntegrityError: ``target`` already holds one of the rows, or a row refers to one missing
            (the caller's transaction is then to be rolled back).
        ValueError: a column refers to its own table but is NOT NULL (the schema cannot be copied this way).
    """
    later = _self_references(table)
    if any(not column.nullable for column in later):
        raise ValueError(f"{table.name}: a NOT NULL column refers to its own table; it cannot be copied row by row")
    keys = list(table.primary_key.columns)
    pending: list[dict] = []
    copied = replaced = 0
    for rows in _batches(source, table, size):
        rows, changed = without_nul(rows)
        replaced += changed
        if later:
            pending += [{**{f"k_{key.name}": row[key.name] for key in keys},
                         **{f"v_{column.name}": row[column.name] for column in later}}
                        for row in rows if any(row[column.name] is not None for column in later)]
            rows = [{**row, **dict.fromkeys(column.name for column in later)} for row in rows]
        target.execute(table.insert(), rows)
        copied += len(rows)
        if progress is not None:
            progress(copied)
    if pending:
        statement = update(table).where(*(key == bindparam(f"k_{key.name}") for key in keys)).values(
            {column.name: bindparam(f"v_{column.name}") for column in later})
        for start in range(0, len(pending), size):
            target.connection().execute(statement, pending[start:start + size])
    return TableCopy(copied, replaced)


def clear_table(session: Session, table: Table) -> None:
    """Delete every row of ``table`` (inside the caller's transaction), its references to itself first: a scope's
    parent is RESTRICT, so the parent cannot go before its children."""
    later = _self_references(table)
    if later:
        session.execute(update(table).values(dict.fromkeys(column.name for column in later)))
    session.execute(delete(table))


def move_sequences_past_ids(target: Session, tables: Sequence[Table]) -> None:
    """On PostgreSQL, move each integer key's sequence past the largest id copied, so that the next row the library
    adds does not collide with a copied one (rows inserted with their ids leave the sequence where it was). SQLite
    needs nothing: its next rowid is the largest plus one.
    """
    if target.get_bind().dialect.name != "postgresql":
        return
    for table in tables:
        column = table.autoincrement_column
        if column is None:
            continue
        # setval(…, max + 1, false): the next nextval() returns max + 1 (1 for an empty table: 0 is out of range).
        target.execute(text(f"SELECT setval(pg_get_serial_sequence(:table, :column), "
                            f"COALESCE((SELECT MAX({column.name}) FROM {table.name}), 0) + 1, false)"),
                       {"table": table.name, "column": column.name})
