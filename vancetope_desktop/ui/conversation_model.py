"""The Conversation window's thread (issue 15): a process's messages in order, each folded range as one summary
card whose children are the originals it stands for, and topic stitches where their range was.

:func:`summary_cards` and :func:`thread_entries` are plain functions over the service's values
(``services.conversations.history`` and ``archives``); :class:`ThreadModel` is the thin Qt adapter over their
result. A card's originals are read only when it is expanded: the model asks for them
(``originals_requested``, from Qt's ``fetchMore``) and the window reads ``conversations.archived_messages`` off the
UI thread and hands them back (:meth:`ThreadModel.set_originals`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from PySide6.QtCore import QAbstractItemModel, QModelIndex, QPersistentModelIndex, Qt, Signal

from ..core.conversations import ChatArchive, ChatMessage, MessageKind

_Index = QModelIndex | QPersistentModelIndex
_ROOT = QModelIndex()  # a shared default: Qt's signatures default to the invalid index
PREVIEW_LINES = 6
PREVIEW_CHARS = 480
"""A message longer than this (lines or characters) shows its start, with "Show all" to read the rest: a tool
result of 20,000 characters would otherwise fill the window."""
ENTRY_ROLE = Qt.ItemDataRole.UserRole + 1
"""The row's :class:`Entry` (top level) or the original :class:`ChatMessage` (a card's child)."""
CUT_ROLE = Qt.ItemDataRole.UserRole + 2
"""How many characters the shown text leaves out (0: it shows it whole)."""
WHOLE_ROLE = Qt.ItemDataRole.UserRole + 3
"""True when a long text is shown whole because a person asked (it can be shortened again)."""


class EntryKind(StrEnum):
    """What a top-level row of the thread is."""

    MESSAGE = "message"
    STITCH = "stitch"
    CARD = "card"


@dataclass(frozen=True)
class SummaryCard:
    """A folded range as the thread shows it.

    Attributes:
        archive: the memory whose summary the card shows: a topic's, or the sliding window's latest (which rolled
            up the earlier ones: ``rolled_up`` lists those, newest first).
        count: the messages the card stands for (its own and the rolled-up ones').
        first_seq / last_seq: the lowest and highest of their numbers.
    """

    archive: ChatArchive
    rolled_up: tuple[ChatArchive, ...]
    count: int
    first_seq: int
    last_seq: int

    @property
    def id(self) -> str:
        """The shown memory's id."""
        return self.archive.id

    def title(self) -> str:
        """``Topic: Dataset cleanup · 6 messages 5–10`` or ``Summary · 12 messages 2–13 · soft stage``."""
        span = f"{self.count} message{'s' if self.count != 1 else ''} {self.first_seq}–{self.last_seq}"
        if self.archive.topic:
            return f"Topic: {self.archive.topic} · {span}"
        stage = f" · {self.archive.stage.value} stage" if self.archive.stage else ""
        rolled = len(self.rolled_up)
        earlier = f" · rolls up {rolled} earlier summar{'ies' if rolled != 1 else 'y'}" if rolled else ""
        return f"Summary · {span}{stage}{earlier}"


@dataclass(frozen=True)
class Entry:
    """A top-level row: a live message, a topic stitch, or a summary card."""

    kind: EntryKind
    message: ChatMessage | None = None
    card: SummaryCard | None = None

    @property
    def id(self) -> str:
        """The message's or the card's memory's id."""
        return self.card.id if self.card is not None else self.message.id  # type: ignore[union-attr]

    @property
    def order(self) -> tuple[int, int, int]:
        """Where it reads: a card where its range starts, before the message of that number (none is live)."""
        if self.card is not None:
            return (self.card.first_seq, -1, 0)
        return self.message.order  # type: ignore[union-attr]


def summary_cards(archives: Sequence[ChatArchive]) -> list[SummaryCard]:
    """The cards of a conversation's ``archived_chat`` memories: one per topic, and one per summary the sliding
    window still replays (an active one) holding the chain it rolled up (``previous``), oldest card first. A
    rolled-up summary gets no card of its own: its text lives on in the newer one, which the prompt replays."""
    by_id = {a.id: a for a in archives}
    rolled: set[str] = set()
    cards = []
    for archive in archives:
        if archive.stage is not None and archive.status != "active":
            continue
        chain: list[ChatArchive] = []
        step = by_id.get(archive.previous) if archive.previous else None
        while step is not None and step.id not in rolled:
            chain.append(step)
            rolled.add(step.id)
            step = by_id.get(step.previous) if step.previous else None
        members = [archive, *chain]
        cards.append(SummaryCard(archive, tuple(chain), sum(len(a.message_ids) for a in members),
                                 min(a.first_seq for a in members), max(a.last_seq for a in members)))
    # A stage summary no active one rolled up (another writer's, archived by hand): still a range to show.
    cards += [SummaryCard(a, (), len(a.message_ids), a.first_seq, a.last_seq) for a in archives
              if a.stage is not None and a.status != "active" and a.id not in rolled]
    return sorted(cards, key=lambda c: (c.first_seq, c.archive.created_at))


def thread_entries(live: Sequence[ChatMessage], cards: Sequence[SummaryCard], *, complete: bool) -> list[Entry]:
    """The thread's rows in reading order: the ``live`` messages loaded (a page of the latest, or all) and the cards
    among them.

    Args:
        complete: whether ``live`` starts at the conversation's first live message. When it does not, cards
            before the first one loaded are left for the page that holds their place ("Load Earlier").
    """
    entries = [Entry(EntryKind.STITCH if m.kind is MessageKind.STITCH else EntryKind.MESSAGE, message=m)
               for m in live]
    start = min((e.order for e in entries), default=None)
    entries += [Entry(EntryKind.CARD, card=c) for c in cards
                if complete or (start is not None and (c.first_seq, -1, 0) > start)]
    return sorted(entries, key=lambda e: e.order)


def preview(text: str, whole: bool = False) -> tuple[str, int]:
    """``text`` as the thread shows it: whole, or its first :data:`PREVIEW_LINES` lines and
    :data:`PREVIEW_CHARS` characters (cut at a word, ``…`` marking the cut).

    Returns:
        The text shown, and how many characters it leaves out (0: whole).
    """
    text = text.strip()
    if whole:
        return text, 0
    lines = text.split("\n")
    shown = "\n".join(lines[:PREVIEW_LINES])
    if len(shown) > PREVIEW_CHARS:
        cut = shown.rfind(" ", 0, PREVIEW_CHARS)
        shown = shown[:cut if cut > PREVIEW_CHARS // 2 else PREVIEW_CHARS]
    if shown == text:
        return text, 0
    shown = shown.rstrip()
    return shown + "…", len(text) - len(shown)


class ThreadModel(QAbstractItemModel):
    """The thread as one column: top-level rows are :class:`Entry` values, a card's children its originals (read
    when the card is first expanded). ``DisplayRole`` is the text shown (a long message's start until
    :meth:`toggle_whole`), ``ToolTipRole`` the whole text, :data:`ENTRY_ROLE` the value, :data:`CUT_ROLE` what the
    shown text leaves out, :data:`WHOLE_ROLE` whether it was opened whole.

    Internal ids: 0 for a top-level row, a card's row + 1 for its children (no Python object behind an index).

    Signals:
        originals_requested(str): a card was expanded for the first time: read its originals (the card's id).
    """

    originals_requested = Signal(str)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._entries: list[Entry] = []
        self._originals: dict[str, list[ChatMessage]] = {}
        self._asked: set[str] = set()
        self._whole: set[str] = set()

    # --- contents ------------------------------------------------------------------------------------
    def set_entries(self, entries: Sequence[Entry]) -> None:
        """Show ``entries``; cards are read again when expanded (their originals may have been pinned since)."""
        self.beginResetModel()
        self._entries = list(entries)
        self._originals.clear()
        self._asked.clear()
        self.endResetModel()

    def set_originals(self, card_id: str, messages: Sequence[ChatMessage]) -> None:
        """The originals of the card ``card_id`` arrived: show them under it (ignored when it is gone)."""
        row = self.row_of(card_id)
        if row is None or card_id in self._originals:
            return
        parent = self.index(row, 0)
        if messages:
            self.beginInsertRows(parent, 0, len(messages) - 1)
            self._originals[card_id] = list(messages)
            self.endInsertRows()
        else:
            self._originals[card_id] = []

    def originals_failed(self, card_id: str) -> None:
        """Reading ``card_id``'s originals failed: expanding it again asks again."""
        self._asked.discard(card_id)

    def entries(self) -> list[Entry]:
        """The top-level rows, in order."""
        return list(self._entries)

    def entry(self, index: _Index) -> Entry | None:
        """The top-level row at ``index`` (None for a card's child or an invalid index)."""
        if not index.isValid() or index.internalId() != 0:
            return None
        return self._entries[index.row()]

    def message(self, index: _Index) -> ChatMessage | None:
        """The message at ``index``: a live one, a stitch or an original under a card (None for a card)."""
        if not index.isValid():
            return None
        if index.internalId() == 0:
            return self._entries[index.row()].message
        card = self._entries[index.internalId() - 1].card
        return self._originals[card.id][index.row()] if card is not None else None

    def row_of(self, entry_id: str) -> int | None:
        """The top-level row of the message or card ``entry_id``, or None."""
        return next((r for r, e in enumerate(self._entries) if e.id == entry_id), None)

    def index_of(self, entry_id: str) -> QModelIndex:
        """The index of a top-level message or card, or of an original under an expanded card (invalid: none)."""
        row = self.row_of(entry_id)
        if row is not None:
            return self.index(row, 0)
        for card_id, found in self._originals.items():
            child = next((r for r, m in enumerate(found) if m.id == entry_id), None)
            if child is not None:
                return self.index(child, 0, self.index(self.row_of(card_id) or 0, 0))
        return QModelIndex()

    def is_whole(self, index: _Index) -> bool:
        """Whether the row shows its whole text (a person asked for it)."""
        key = self._key(index)
        return key is not None and key in self._whole

    def toggle_whole(self, index: _Index) -> None:
        """Show the whole text of the row at ``index``, or its start again."""
        key = self._key(index)
        if key is None:
            return
        self._whole.symmetric_difference_update({key})
        self.dataChanged.emit(index, index, [Qt.ItemDataRole.DisplayRole, CUT_ROLE, WHOLE_ROLE])

    def _key(self, index: _Index) -> str | None:
        if not index.isValid():
            return None
        entry = self.entry(index)
        return entry.id if entry is not None else self.message(index).id  # type: ignore[union-attr]

    def _text(self, index: _Index) -> str:
        entry = self.entry(index)
        if entry is not None and entry.card is not None:
            return entry.card.archive.summary
        found = self.message(index)
        return found.content if found is not None else ""

    # --- QAbstractItemModel --------------------------------------------------------------------------
    def index(self, row: int, column: int, parent: _Index = _ROOT) -> QModelIndex:
        if column != 0 or row < 0:
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, 0, 0) if row < len(self._entries) else QModelIndex()
        if parent.internalId() != 0:
            return QModelIndex()
        card = self._entries[parent.row()].card
        if card is None or row >= len(self._originals.get(card.id, ())):
            return QModelIndex()
        return self.createIndex(row, 0, parent.row() + 1)

    def parent(self, index: _Index = _ROOT) -> QModelIndex:  # type: ignore[override]
        if not index.isValid() or index.internalId() == 0:
            return QModelIndex()
        return self.createIndex(index.internalId() - 1, 0, 0)

    def rowCount(self, parent: _Index = _ROOT) -> int:
        if not parent.isValid():
            return len(self._entries)
        if parent.internalId() != 0 or parent.column() != 0:
            return 0
        card = self._entries[parent.row()].card
        return len(self._originals.get(card.id, ())) if card is not None else 0

    def columnCount(self, parent: _Index = _ROOT) -> int:
        return 1

    def hasChildren(self, parent: _Index = _ROOT) -> bool:
        if not parent.isValid():
            return bool(self._entries)
        entry = self.entry(parent)
        if entry is None or entry.card is None or parent.column() != 0:
            return False
        return entry.card.id not in self._originals or bool(self._originals[entry.card.id])

    def canFetchMore(self, parent: _Index) -> bool:
        entry = self.entry(parent)
        return entry is not None and entry.card is not None and entry.card.id not in self._asked

    def fetchMore(self, parent: _Index) -> None:
        entry = self.entry(parent)
        if entry is not None and entry.card is not None and entry.card.id not in self._asked:
            self._asked.add(entry.card.id)
            self.originals_requested.emit(entry.card.id)

    def flags(self, index: _Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return preview(self._text(index), self.is_whole(index))[0]
        if role == CUT_ROLE:
            return preview(self._text(index), self.is_whole(index))[1]
        if role == WHOLE_ROLE:
            return self.is_whole(index) and preview(self._text(index))[1] > 0
        if role == Qt.ItemDataRole.ToolTipRole:
            text = self._text(index)
            return text if len(text) <= 4 * PREVIEW_CHARS else text[:4 * PREVIEW_CHARS] + "…"
        if role == ENTRY_ROLE:
            return self.entry(index) if index.internalId() == 0 else self.message(index)
        return None
