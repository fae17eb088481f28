"""Small pieces shared by the item models: the horizontal header of a model with fixed column titles."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt


def column_title(columns: Sequence[str], section: int, orientation: Qt.Orientation, role: int) -> str | None:
    """``headerData`` for fixed column titles: ``columns[section]`` for the horizontal display role, else None."""
    if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(columns):
        return columns[section]
    return None
