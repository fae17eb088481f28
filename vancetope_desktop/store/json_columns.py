"""JSON columns that stay valid: what the engine writes and reads, the repair of bad rows, safe SQL.

Every JSON value the library stores goes through :func:`dump_json` (the engine's serializer), which
converts what JSON cannot hold (NaN, infinity, dates, sets…) with ``core.json_values.to_jsonable``.
Rows written before that rule, or by another program, may still hold invalid JSON; one such row made
every query that parses the column fail ("malformed JSON"), blocking every import into the library.
So :func:`repair_json_columns` fixes them when a library written before this rule opens,
:func:`load_json` reads one without failing, and queries that parse a column over many rows wrap it
in :func:`json_or_empty`.

On PostgreSQL the columns are JSONB (:class:`JsonValue`), which refuses invalid JSON on the way in: nothing to
repair there. :class:`json_field` is one top-level key of a JSON column in either database's SQL.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from typing import Any

from sqlalchemy import JSON, Connection, Dialect, String, Table, TypeDecorator, text
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.expression import FunctionElement
from sqlalchemy.types import TypeEngine

from ..core.json_values import to_jsonable
from ..core.text import without_nul

UNREADABLE_KEY = "unreadable_json"
"""Key under which an object column keeps text that is not JSON at all (so nothing is lost)."""

_log = logging.getLogger(__name__)

class JsonValue(TypeDecorator):
    """The type of every JSON column (``store.tables``, the revisions): JSON on SQLite (text ``json_valid``
    checks), JSONB on PostgreSQL (parsed and checked on the way in, indexable, ``->>``, ``?`` and ``@>``).

    A decorator rather than ``JSON().with_variant(JSONB(), "postgresql")``: SQLAlchemy's PostgreSQL dialect (22
    modules, 15 ms of CPU) is then imported only by a PostgreSQL engine, not by every start of the embedded library.
    """

    impl = JSON
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine:
        """JSONB on PostgreSQL, JSON elsewhere."""
        if dialect.name == "postgresql":
            from sqlalchemy.dialects.postgresql import JSONB  # loaded with the dialect already: no extra cost

            return dialect.type_descriptor(JSONB())
        return dialect.type_descriptor(JSON())


JSON_VALUE = JsonValue()
"""The :class:`JsonValue` instance the models and the revisions declare their JSON columns with."""


class json_field(FunctionElement):  # lower case: used like a SQL function, json_field("payload", "group")
    """The value at the top-level ``key`` of the JSON column ``column``, as SQL text: ``json_extract(payload,
    '$.group')`` on SQLite, ``(payload ->> 'group')`` on PostgreSQL; NULL when missing or JSON null on both.

    Rendered with its key inline, so that an expression index on it (``store.tables.AuditRow``) and a query
    using it read the same expression. ``column`` and ``key`` are identifiers (letters, digits, ``_``).

    Raises:
        ValueError: ``column`` or ``key`` is not an identifier.
    """

    type = String()
    name = "json_field"
    inherit_cache = False  # the key is an attribute, not a bound parameter: no statement caching

    def __init__(self, column: str, key: str) -> None:
        if not (column.isidentifier() and key.isidentifier()):
            raise ValueError(f"json_field takes identifiers, not {column!r}, {key!r}")
        self.column, self.key = column, key
        super().__init__()


@compiles(json_field)
def _json_field_sqlite(element: json_field, _compiler, **_kw) -> str:
    return f"json_extract({element.column}, '$.{element.key}')"


@compiles(json_field, "postgresql")
def _json_field_postgresql(element: json_field, _compiler, **_kw) -> str:
    return f"({element.column} ->> '{element.key}')"


def dump_json(value: Any) -> str:
    """The engine's JSON serializer: ``value`` made JSON-able (``to_jsonable``), its NULs stored as U+FFFD
    (``core.text.without_nul``: JSONB refuses ``\\u0000``, ``store.nul_guard``), then strict JSON."""
    return json.dumps(without_nul(to_jsonable(value))[0], allow_nan=False)


def load_json(raw: str) -> Any:
    """The engine's JSON deserializer: Python's reader (it also accepts NaN and Infinity), and for text
    that is not JSON at all ``{UNREADABLE_KEY: raw}`` instead of an exception, so one damaged row never
    stops a listing. Such rows are repaired the next time the library opens."""
    try:
        return json.loads(raw)
    except ValueError:
        _log.warning("a stored JSON value is not JSON: %.80r", raw)
        return {UNREADABLE_KEY: raw}


def json_or_empty(column: str) -> str:
    """SQL for ``column`` when it holds valid JSON and ``'{}'`` otherwise, for ``json_extract`` or
    ``json_each`` over many rows: SQLite stops the whole query at the first malformed value."""
    return f"CASE WHEN json_valid({column}) THEN {column} ELSE '{{}}' END"


def _repaired(raw: str | None) -> str:
    """Valid JSON for a stored value: NaN and infinity (which Python reads) become null; text that is
    not JSON at all is kept under :data:`UNREADABLE_KEY`, or becomes ``[]`` when it was a list."""
    try:
        return dump_json(json.loads(raw or ""))
    except ValueError:
        return "[]" if (raw or "").lstrip().startswith("[") else dump_json({UNREADABLE_KEY: raw})


def repair_json_columns(connection: Connection, tables: Iterable[Table]) -> int:
    """Rewrite every stored value that SQLite's ``json_valid`` rejects, in every JSON column of ``tables``.

    Runs inside the caller's write transaction (the schema-3 migration, ``store/migrations``); columns missing
    from the database are skipped. One scan per JSON column:
    0.27 s for 2,000 documents of 100 KB text each (the scan reads past ``content``).

    Returns:
        How many values were rewritten (each is logged).
    """
    repaired = 0
    for table in tables:
        # A column a later schema adds is not there yet when an earlier migration step runs this.
        present = {row[1] for row in connection.execute(text(f"PRAGMA table_info({table.name})")).all()}
        for column in table.columns:
            if not isinstance(column.type, (JSON, JsonValue)) or column.name not in present:
                continue
            rows = connection.execute(text(
                f"SELECT rowid, {column.name} FROM {table.name} WHERE NOT json_valid({column.name})")).all()
            for rowid, raw in rows:
                _log.warning("repairing invalid JSON in %s.%s (rowid %s): %.80r", table.name, column.name, rowid, raw)
                connection.execute(text(f"UPDATE {table.name} SET {column.name} = :value WHERE rowid = :rowid"),
                               {"value": _repaired(raw), "rowid": rowid})
            repaired += len(rows)
    return repaired
