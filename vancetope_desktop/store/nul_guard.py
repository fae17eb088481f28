"""The one place where every value the library writes passes the NUL rule (``core.text.without_nul``), on SQLite and
PostgreSQL alike: a NUL (U+0000), which PostgreSQL refuses in text and JSONB, is stored as U+FFFD.

Applied at the database boundary rather than in each service because text enters by dozens of paths (notes, titles,
conversation messages, atoms, metadata, relation notes, annotations, extracted files, Core inserts of chunks and of
the lexical index, ``library migrate``'s rows) and one forgotten path is one lost write on a team library:

- :func:`guard_engine`: every statement's parameters, as the driver receives them (ORM flushes, Core inserts, SQL
  text; the filters and searches too, so a NUL typed in a query finds the U+FFFD stored);
- ``json_columns.dump_json`` applies the rule to a JSON value before writing it (a NUL is ``\\u0000`` in JSON text,
  which the parameters' check cannot see);
- :func:`_clean_flushed`: the ORM rows a flush writes get the stored text too, so that what a service returns from
  them is what a later read returns. (Not an attribute ``set`` event: SQLModel writes the value as given into the
  row's ``__dict__`` after the event, so the event's cleaned value would be lost.)

What a service computes from a row's text before its flush sees the NUL: JSON text a service builds itself
(``json.dumps`` of a list for ``SqlForms.rows``) must go through ``json_columns.dump_json`` when it carries text that
may hold one (``services.notelinks``), as the parameters' check cannot see inside it.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, event, inspect
from sqlmodel import Session

from ..core.text import without_nul


def guard_engine(engine: Engine) -> None:
    """Make ``engine`` replace NUL in every statement's parameters (see the module docstring)."""
    event.listen(engine, "before_cursor_execute", _clean_parameters, retval=True)


def _clean_parameters(_connection, _cursor, statement: str, parameters: Any, _context, _executemany: bool):
    # A tuple, a dict, or a list of them (executemany); without a NUL they are passed on as they are (not copied).
    return statement, without_nul(parameters)[0]


@event.listens_for(Session, "before_flush")
def _clean_flushed(session: Session, _flush_context, _instances) -> None:
    for row in (*session.new, *session.dirty):
        state = inspect(row)
        for attribute in state.mapper.column_attrs:
            cleaned, changed = without_nul(state.dict.get(attribute.key))
            if changed:
                setattr(row, attribute.key, cleaned)
