"""Text that arrives from outside and may not be Unicode: command-line arguments, file names, tool calls.

On POSIX, Python decodes arguments and file names with ``surrogateescape``: each byte that is not
valid UTF-8 (``caf\\xe9`` typed in a Latin-1 terminal, a file named on an old Windows disk) becomes a
lone surrogate U+DC80–U+DCFF. JSON may carry lone surrogates too (``"\\udce9"``). Such a string cannot
be encoded as UTF-8, so SQLite, Chroma, the tokenizer and the terminal all fail on it with a traceback.
Arguments are refused with :func:`undecodable_values` (the caller names the argument); file names, which
the user cannot retype, are shown and stored as :func:`readable`.

Text may also hold NUL (U+0000): a pasted binary, a JSON ``"\\u0000"``, a YAML ``"\\0"``, a model's output.
SQLite stores it; PostgreSQL refuses it in ``text`` and in JSONB strings, so a team library lost such a write with
a driver error. The library's one rule, on both databases (``store.nul_guard`` applies it to every value written):
a NUL is stored as U+FFFD, the replacement character decoding already puts for undecodable bytes
(:func:`without_nul`). Other control characters are stored as given.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
NUL = "\x00"
REPLACEMENT_CHARACTER = "\ufffd"
"""What a NUL is stored as (:func:`without_nul`): U+FFFD, visible where a NUL was, and a word separator to search."""
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]+")
LEGACY_FILE_NAME_ENCODING = "cp1252"
"""How undecodable bytes of a file name are read: Windows-1252, the encoding of most non-UTF-8 names met
on Linux (copied from old Windows disks and ZIP archives). Guessing per name does worse: charset-normalizer
read ``résumé`` in cp1252 as cp1006 (Arabic) and ``Größe`` as cp1006 too, having a dozen bytes to go on."""


def is_undecodable(value: object) -> bool:
    """True when ``value`` is a string holding a surrogate code point (not encodable as UTF-8)."""
    return isinstance(value, str) and _SURROGATE.search(value) is not None


def undecodable_values(values: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(where, text)`` for every string in ``values`` (nested in lists, tuples and dicts) that is not
    valid Unicode, ``where`` naming it as ``tags[1]`` or ``meta.year``; empty when all is well."""
    found: list[tuple[str, str]] = []

    def visit(where: str, value: Any) -> None:
        if isinstance(value, str):
            if is_undecodable(value):
                found.append((where, value))
        elif isinstance(value, Mapping):
            for key, item in value.items():
                visit(f"{where}.{key}" if where else str(key), item)
                if is_undecodable(key):
                    found.append((where or "arguments", str(key)))
        elif isinstance(value, list | tuple):
            for index, item in enumerate(value):
                visit(f"{where}[{index}]", item)

    visit("", values)
    return found


def escaped(text: str) -> str:
    """``text`` for an error message: an undecodable byte as ``\\xe9``, another surrogate as ``\\udce9``."""
    return "".join(f"\\x{ord(c) - 0xDC00:02x}" if "\udc80" <= c <= "\udcff"
                   else f"\\u{ord(c):04x}" if "\ud800" <= c <= "\udfff" else c for c in text)


def undecodable_message(text: str) -> str:
    """Why ``text`` is refused (see :func:`is_undecodable`), to follow the argument's name."""
    return (f"not valid UTF-8 text ('{escaped(text)}'): check that your terminal or program sends UTF-8 "
            "(the locale, e.g. LANG=C.UTF-8)")


def readable(text: str) -> str:
    """``text`` (a file name or path as the OS gave it) with its undecodable bytes read as
    :data:`LEGACY_FILE_NAME_ENCODING`, and any other lone surrogate replaced by U+FFFD.

    ``readable("caf\\udce9.txt") == "café.txt"``; text that is valid Unicode comes back unchanged.
    """
    if not is_undecodable(text):
        return text
    text = _ESCAPED_BYTE.sub(
        lambda run: bytes(ord(c) - 0xDC00 for c in run.group()).decode(LEGACY_FILE_NAME_ENCODING, "replace"), text)
    return _SURROGATE.sub("\ufffd", text)


def without_nul(value: Any) -> tuple[Any, int]:
    """``value`` with each NUL of its strings replaced by :data:`REPLACEMENT_CHARACTER` (see the module docstring).

    Strings are looked for in ``value`` itself and, nested, in the keys and values of mappings and the items of lists
    and tuples (a row of parameters, a JSON value); other values are left as they are.

    Returns:
        ``(cleaned, changed)``: ``changed`` is how many strings held a NUL; when none did, ``cleaned`` is ``value``
        itself (nothing copied), otherwise a copy of the same shape (a mapping becomes a dict).
    """
    if isinstance(value, str):
        return (value.replace(NUL, REPLACEMENT_CHARACTER), 1) if NUL in value else (value, 0)
    if isinstance(value, Mapping):
        if not any(_may_hold_nul(key) or _may_hold_nul(item) for key, item in value.items()):
            return value, 0  # the common case, checked without copying: 1,000 chunk rows in ~4 ms of CPU
        pairs = [(without_nul(key), without_nul(item)) for key, item in value.items()]
        changed = sum(k[1] + v[1] for k, v in pairs)
        return ({k[0]: v[0] for k, v in pairs}, changed) if changed else (value, 0)
    if isinstance(value, list | tuple):
        if not any(_may_hold_nul(item) for item in value):
            return value, 0
        items = [without_nul(item) for item in value]
        changed = sum(n for _, n in items)
        return (type(value)(item for item, _ in items), changed) if changed else (value, 0)
    return value, 0


def _may_hold_nul(value: Any) -> bool:
    """Whether ``value`` is a string holding a NUL or a container (looked into by :func:`without_nul`)."""
    return NUL in value if isinstance(value, str) else isinstance(value, Mapping | list | tuple)
