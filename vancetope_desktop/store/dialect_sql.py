"""The SQL fragments the services' hand-written queries need that SQLite and PostgreSQL spell differently (issue 17).

The services' queries are SQL text written for the embedded library's SQLite; a team library's database is
PostgreSQL (``store/postgres``). Everything both read alike stays written once in the query; what differs goes
through one :class:`SqlForms` method per need, chosen here by the session's dialect and nowhere else:

=====================  ========================================  ==============================================
need                   SQLite                                    PostgreSQL
=====================  ========================================  ==============================================
a JSON list parameter  ``SELECT value FROM json_each(:p)``        ``… FROM jsonb_array_elements_text(…)``
a JSON key as text     ``json_extract(c, '$.a.b')``               ``(c ->> 'a')``, ``(c #>> '{a,b}')``
a JSON key as a value  ``json_extract(c, '$.a')`` (lists: text)   ``(c -> 'a')`` (lists: lists, psycopg decodes)
a list in a column     ``json_each(c, '$.a') j`` (``j.value``)    ``LATERAL (… jsonb_array_elements(…)) j``
a key is present       ``instr(c, '"a"')`` (a pre-filter)         ``c ? 'a'``
text in the JSON       ``instr(c, :n)``                           ``strpos(CAST(c AS text), :n) > 0``
text beyond ASCII      ``x GLOB '*[^ -~]*'``                      ``x ~ '[^ -~]'``
an index not to use    ``+c``                                     ``c``
an insert of new rows  ``INSERT OR IGNORE INTO``                  ``INSERT INTO … ON CONFLICT DO NOTHING``
the insertion order    ``rowid``                                 ``ctid`` (see :meth:`insertion_order`)
=====================  ========================================  ==============================================

Keys and paths are identifiers written into the SQL (``a`` or ``a.b``), never values: values are parameters.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import Connection, Engine
from sqlalchemy.orm import Session

from .json_columns import json_or_empty

SQLITE = "sqlite"


def _path(path: str) -> list[str]:
    """The keys of a dotted ``path`` (``"topic.parent"``); each must be an identifier.

    Raises:
        ValueError: a key is not an identifier (the path is written into SQL text).
    """
    keys = path.split(".")
    if not all(key.isidentifier() for key in keys):
        raise ValueError(f"a JSON path of identifiers, not {path!r}")
    return keys


@dataclass(frozen=True)
class SqlForms:
    """The fragments of one database's SQL (``dialect``: SQLAlchemy's dialect name, ``sqlite`` or ``postgresql``)."""

    dialect: str = SQLITE

    @classmethod
    def of(cls, bind: Session | Connection | Engine) -> SqlForms:
        """The forms of the database of ``bind`` (a session: the one it is bound to)."""
        dialect = bind.get_bind().dialect if isinstance(bind, Session) else bind.dialect
        return cls(dialect.name)

    @property
    def sqlite(self) -> bool:
        """Whether the database is SQLite (the embedded library)."""
        return self.dialect == SQLITE

    def rows(self, param: str) -> str:
        """A subquery of the strings of the JSON list parameter ``:param`` (``json.dumps`` of a list of strings),
        one row each in column ``value``: ``x IN ({forms.rows('ids')})`` takes any number of values in one
        parameter."""
        if self.sqlite:
            return f"SELECT value FROM json_each(:{param})"
        return f"SELECT value FROM jsonb_array_elements_text(CAST(:{param} AS jsonb))"

    def listed(self, param: str, alias: str) -> str:
        """A table source over the JSON list of strings ``:param``, one row per string in ``{alias}.value``: to
        drive a join, followed by :attr:`then_join`."""
        if self.sqlite:
            return f"json_each(:{param}) AS {alias}"
        return f"jsonb_array_elements_text(CAST(:{param} AS jsonb)) AS {alias}(value)"

    def listed_lists(self, param: str, alias: str) -> str:
        """:meth:`listed` over a JSON list of lists (``[["id", 3], …]``), their elements read with :meth:`at`."""
        if self.sqlite:
            return f"json_each(:{param}) AS {alias}"
        return f"jsonb_array_elements(CAST(:{param} AS jsonb)) AS {alias}(value)"

    def at(self, alias: str, index: int, *, integer: bool = False) -> str:
        """Element ``index`` of the list :meth:`listed_lists` ``alias`` gives per row (SQLite: as stored;
        PostgreSQL: as text, or as an integer when ``integer``)."""
        if self.sqlite:
            return f"json_extract({alias}.value, '$[{int(index)}]')"
        element = f"({alias}.value ->> {int(index)})"
        return f"CAST({element} AS integer)" if integer else element

    @property
    def then_join(self) -> str:
        """The join after a driving table: SQLite's ``CROSS JOIN`` (it keeps that order, one index lookup per row
        of the left side); a plain ``JOIN`` on PostgreSQL, whose ``CROSS JOIN`` takes no ``ON``."""
        return "CROSS JOIN" if self.sqlite else "JOIN"

    def text(self, column: str, path: str) -> str:
        """The value at ``path`` (``"doi"``, ``"topic.parent"``) of the JSON ``column`` as SQL text to compare with
        a string: NULL when missing or JSON null. (SQLite's ``json_extract`` gives numbers as numbers.)"""
        keys = _path(path)
        if self.sqlite:
            return f"json_extract({column}, '$.{'.'.join(keys)}')"
        if len(keys) == 1:  # as json_columns.json_field writes it: schema 4's expression indexes are on this form
            return f"({column} ->> '{path}')"
        return f"({column} #>> '{{{','.join(keys)}}}')"

    def value(self, column: str, key: str) -> str:
        """The value at the top-level ``key`` of the JSON ``column`` to read into Python: a scalar as itself, a
        list or an object as JSON text on SQLite and as a list or dict on PostgreSQL (readers take both)."""
        _path(key)
        return f"json_extract({column}, '$.{key}')" if self.sqlite else f"({column} -> '{key}')"

    def elements(self, column: str, key: str, alias: str) -> str:
        """A table source over the list at ``key`` of the JSON ``column`` (nothing when it is not a list), one row
        per element in ``{alias}.value``: the element as SQL text when a string, else as JSON (an object's keys
        read with :meth:`text` on ``{alias}.value``). For ``FROM``/``JOIN``, after the row holding ``column``."""
        _path(key)
        if self.sqlite:
            return f"json_each({column}, '$.{key}') {alias}"
        return (f"LATERAL (SELECT CASE WHEN jsonb_typeof(e.item) = 'string' THEN e.item #>> '{{}}' END AS value, "
                f"e.item FROM jsonb_array_elements(CASE WHEN jsonb_typeof({column} -> '{key}') = 'array' "
                f"THEN {column} -> '{key}' ELSE '[]'::jsonb END) AS e(item)) {alias}")

    def element_text(self, alias: str, key: str) -> str:
        """The text at ``key`` of the object elements of :meth:`elements` ``alias``."""
        _path(key)
        if self.sqlite:
            return f"json_extract({alias}.value, '$.{key}')"
        return f"({alias}.item ->> '{key}')"

    def kind(self, column: str, key: str) -> str:
        """The JSON type of the value at the top-level ``key`` of ``column``: ``'object'``, ``'array'`` and ``'null'``
        on both databases (scalars are named differently), SQL NULL when the key is missing."""
        _path(key)
        return f"json_type({column}, '$.{key}')" if self.sqlite else f"jsonb_typeof({column} -> '{key}')"

    def differs(self, left: str, right: str) -> str:
        """``left`` and ``right`` differ, NULL counting as a value (``IS NOT`` on SQLite, which reads ``IS DISTINCT
        FROM`` only since 3.39)."""
        return f"{left} IS NOT {right}" if self.sqlite else f"{left} IS DISTINCT FROM {right}"

    def has_key(self, column: str, key: str) -> str:
        """A test that the JSON object ``column`` may hold the top-level ``key``: on SQLite a cheap pre-filter on the
        text (true for the key's name anywhere), on PostgreSQL exact (``?``)."""
        _path(key)
        return f"instr({column}, '\"{key}\"')" if self.sqlite else f"({column} ? '{key}')"

    def holds(self, column: str, needle: str) -> str:
        """A test that the stored text of the JSON ``column`` contains ``needle`` (SQL: a parameter or a literal),
        written as :meth:`stored` writes it: a cheap pre-filter before parsing the JSON."""
        return f"instr({column}, {needle})" if self.sqlite else f"(strpos(CAST({column} AS text), {needle}) > 0)"

    def stored(self, value: str) -> str:
        """A JSON string as the database's text of a JSON column holds it (for :meth:`holds`): ASCII with ``\\u``
        escapes on SQLite (``json_columns.dump_json``), the characters themselves in PostgreSQL's JSONB text."""
        return json.dumps(value, ensure_ascii=self.sqlite)

    def non_ascii(self, expression: str) -> str:
        """A test that the text ``expression`` holds a character outside printable ASCII."""
        return f"{expression} GLOB '*[^ -~]*'" if self.sqlite else f"{expression} ~ '[^ -~]'"

    def valid(self, column: str) -> str:
        """``column`` when it holds valid JSON and ``'{}'`` otherwise (``json_columns.json_or_empty``): SQLite stops a
        whole query at the first malformed value; PostgreSQL's JSONB is valid by construction."""
        return json_or_empty(column) if self.sqlite else column

    def unindexed(self, column: str) -> str:
        """``column`` written so that SQLite serves its test from no index (unary ``+``, where a scan or a
        primary-key lookup is faster: ``store.filters.SqlFilter.row_sql``); as is on PostgreSQL, which has no
        unary ``+`` on text and costs the choice itself."""
        return f"+{column}" if self.sqlite else column

    def insert_new(self, into: str, select: str) -> str:
        """``INSERT INTO {into} {select}`` that skips the rows a unique key already holds."""
        if self.sqlite:
            return f"INSERT OR IGNORE INTO {into} {select}"
        return f"INSERT INTO {into} {select} ON CONFLICT DO NOTHING"

    def insertion_order(self, alias: str) -> str:
        """A column of ``alias`` (a table without an integer key) ordering its rows as they were inserted: SQLite's
        ``rowid``; PostgreSQL's ``ctid``, the row's place in the heap, which is the insertion order of rows no
        update moved and no vacuumed space took (edges are inserted and deleted, never updated)."""
        return f"{alias}.rowid" if self.sqlite else f"{alias}.ctid"
