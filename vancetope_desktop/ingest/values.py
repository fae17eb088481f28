"""Parsed data (YAML, JSON, front matter) to JSON-able values and to ``key.path: value`` lines."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any


def to_jsonable(value: Any) -> Any:
    """Convert YAML/TOML-style values to JSON types: dates to ISO strings, sets/tuples to lists,
    mapping keys to strings, anything else unknown to ``str``. Returns a new structure."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_jsonable(v) for v in value]
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def _scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    return str(value).strip()


def flatten(value: Any, prefix: str = "") -> Iterator[tuple[str, str]]:
    """Yield ``(dotted path, text)`` for every non-empty leaf of nested data.

    Mappings add ``.key``; lists of scalars become one comma-joined value; lists holding mappings
    or lists add ``[i]``. ``{"properties": {"mag": 2.3}}`` yields ``("properties.mag", "2.3")``.
    None, empty strings and empty containers are skipped. A scalar at the top has the path ``prefix``.
    """
    if isinstance(value, dict):
        for key, item in value.items():
            yield from flatten(item, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list | tuple):
        if all(not isinstance(v, dict | list | tuple) for v in value):
            joined = ", ".join(t for t in (_scalar_text(v) for v in value if v is not None) if t)
            if joined:
                yield prefix, joined
        else:
            for index, item in enumerate(value):
                yield from flatten(item, f"{prefix}[{index}]")
    elif value is not None:
        text = _scalar_text(value)
        if text:
            yield prefix, text
