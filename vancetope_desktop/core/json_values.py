"""Values as JSON can hold them: the one conversion every stored JSON column goes through.

Python's ``json.dumps`` writes ``NaN`` and ``Infinity`` by default, which are not JSON: SQLite's JSON
functions then call the whole column malformed, and a single such row made every later query over
``json_extract(metadata, …)`` fail. YAML front matter (``year: .nan``), data files and agents can all
produce such values, so the store serialises through :func:`to_jsonable` (see ``store.json_columns``).
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any


def to_jsonable(value: Any) -> Any:
    """A copy of ``value`` made only of JSON types.

    NaN and ±infinity become None (as JavaScript's ``JSON.stringify`` does); dates and times become
    ISO strings; tuples and sets become lists (sets sorted by their text, for a stable order); bytes
    are decoded as UTF-8 (invalid bytes replaced); mapping keys become strings; any other object
    becomes its ``str``.
    """
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((to_jsonable(v) for v in value), key=str)
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", errors="replace")
    return str(value)
