"""Parsed data (YAML, JSON, front matter) to ``key.path: value`` lines (JSON values: ``core.json_values``)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any


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
