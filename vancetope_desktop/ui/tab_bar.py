"""The viewer tabs' bar: document tabs shrink (their titles elided) when many are open; the Library tab,
the way back to the list, keeps its whole name (it read "L…" with a dozen documents open)."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QTabBar


class DocumentTabBar(QTabBar):
    """A tab bar whose first ``fixed`` tabs never shrink below their full size."""

    def __init__(self, fixed: int = 1) -> None:
        super().__init__()
        self._fixed = fixed

    def minimumTabSizeHint(self, index: int) -> QSize:
        if index < self._fixed:
            return self.tabSizeHint(index)
        return super().minimumTabSizeHint(index)
