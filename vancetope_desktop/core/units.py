"""Quantities as people read them, the same wherever they are shown (Details, viewer banners, errors)."""

from __future__ import annotations

_UNITS = ("KB", "MB", "GB", "TB")


def format_size(size: int | float) -> str:
    """A size in bytes in binary units with one decimal, a whole number without it.

    ``0`` → ``0 bytes``, ``1`` → ``1 byte``, ``304636`` → ``297.5 KB``, ``512 * 1024 * 1024`` → ``512 MB``
    (1 KB = 1024 bytes, as file managers on Windows and the import limit in Settings count).
    """
    value = float(size)
    if abs(value) < 1024:
        count = int(value)
        return f"{count} byte{'' if count == 1 else 's'}"
    for unit in _UNITS:
        value /= 1024
        if abs(value) < 1024 or unit == _UNITS[-1]:
            return f"{value:.1f}".removesuffix(".0") + f" {unit}"
    raise AssertionError("unreachable")  # the loop returns at the last unit
