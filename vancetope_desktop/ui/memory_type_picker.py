"""The Memory type choice (issue 12): what a note is for as an agent memory, in the New note dialog and the
details panel, and as the filter of the document list and of the search pane. Each item carries its line of
the seed's guidance (``core.memories.MEMORY_TYPE_HINTS``, the text the tool descriptions and the CLI help join)
as its tooltip, and the chosen one's line shows as the box's tooltip. ``episode`` and ``archived_chat`` are not
offered (``core.memories.WRITTEN_BY_LIBRARY``): an episode is recorded with its fields (View ▸ Episodes…), an archived
chat by a conversation's compaction (View ▸ Conversation…); such a note's own box shows its type, disabled. A filter
offers them (``episodes``): they are found and listed like any memory.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QWidget

from ..core.memories import MEMORY_TYPE_GUIDANCE, MEMORY_TYPE_HINTS, WRITTEN_BY_LIBRARY, MemoryType

PICKED = (MemoryType.FEEDBACK, MemoryType.PROJECT, MemoryType.REFERENCE, MemoryType.USER)
"""The types a person picks here, in the seed's order."""
WHERE_WRITTEN = {MemoryType.EPISODE: "View ▸ Episodes…", MemoryType.ARCHIVED_CHAT: "View ▸ Conversation…"}
"""Where a person sees the notes of a type the library writes (shown beside it in a note's own box)."""


class MemoryTypePicker(QComboBox):
    """``none_label`` (no memory type, or no filter) then feedback, project, reference, user.

    Args:
        none_label: the first item's text ("None", "All memory types").
        none_hint: its tooltip.
        episodes: offer ``episode`` and ``archived_chat`` last (a filter: they are searched and listed, never picked
            for a note).
    """

    def __init__(self, none_label: str = "None", none_hint: str = "Not an agent memory",
                 parent: QWidget | None = None, *, episodes: bool = False) -> None:
        super().__init__(parent)
        self.setAccessibleName("Memory type")
        self.addItem(none_label, None)
        self.setItemData(0, none_hint, Qt.ItemDataRole.ToolTipRole)
        for kind in (*PICKED, *WRITTEN_BY_LIBRARY) if episodes else PICKED:
            self.addItem(kind.value, kind.value)
            self.setItemData(self.count() - 1, f"{kind.value}: {MEMORY_TYPE_HINTS[kind]}",
                             Qt.ItemDataRole.ToolTipRole)
        self._none_hint = none_hint
        self.currentIndexChanged.connect(self._show_hint)
        self._show_hint(0)

    def memory_type(self) -> str | None:
        """The chosen type's value (``feedback``…), or None for the first item."""
        return self.currentData()

    def set_memory_type(self, value: MemoryType | str | None) -> None:
        """Show ``value`` without announcing a choice (None: the first item). A type the library writes (an episode,
        an archived chat) is shown, disabled: it is not changed here."""
        self.blockSignals(True)
        for kind in WRITTEN_BY_LIBRARY:  # in a note's box, shown only while the note is one
            at = self.findData(kind.value)
            if value == kind and at < 0:
                self.addItem(kind.value, kind.value)
                self.setItemData(self.count() - 1, f"{kind.value}: {MEMORY_TYPE_HINTS[kind]} ({WHERE_WRITTEN[kind]})",
                                 Qt.ItemDataRole.ToolTipRole)
            elif value != kind and at >= 0:
                self.removeItem(at)
        found = self.findData(value.value if isinstance(value, MemoryType) else value) if value else 0
        self.setCurrentIndex(max(found, 0))
        self.setEnabled(value not in WRITTEN_BY_LIBRARY)
        self.blockSignals(False)
        self._show_hint(self.currentIndex())

    def _show_hint(self, index: int) -> None:
        hint = self.itemData(index, Qt.ItemDataRole.ToolTipRole) or self._none_hint
        self.setToolTip(f"{hint}\n\n{MEMORY_TYPE_GUIDANCE}")
