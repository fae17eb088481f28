"""The Conversation window's widgets (issue 15): the thread view and its delegate, the token gauge, and the dialog
that picks the process a conversation's process works for.

The delegate draws a :class:`~.conversation_model.ThreadModel` row as a chat bubble — a person's messages on the
right in the accent colour, the assistant's on the left, tool and system messages muted — with a header (role,
number, time, tokens, a pin badge), a summary card as a framed box with its range, and a topic stitch as a divider
line. The gauge draws the prompt's tokens against the context window with the compaction stages' thresholds
marked (``core.conversations.STAGE_TABLE``), coloured by the stage it has passed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PySide6.QtCore import (
    QAbstractItemModel,
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QRect,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QFont, QFontMetrics, QMouseEvent, QPainter, QPaintEvent, QPalette, QPen, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from ..core.conversations import STAGE_TABLE, ChatMessage, ChatRole, MessageKind, Stage, StageRule, stage_for
from ..core.scope_info import ScopeInfo
from . import themes
from .conversation_model import CUT_ROLE, ENTRY_ROLE, WHOLE_ROLE, Entry, EntryKind

_Index = QModelIndex | QPersistentModelIndex
PAD, GAP, RADIUS = 8, 4, 8
"""Inside a bubble, between bubbles, a bubble's corners (pixels)."""
BUBBLE_SHARE = 0.8
"""A message bubble takes at most this share of the row: the side it leans to says who wrote it."""
ROLE_COLOURS = {ChatRole.USER: "#2f6bc4", ChatRole.ASSISTANT: "#3a9d5d", ChatRole.TOOL: "#8a8a8a",
                ChatRole.SYSTEM: "#c7802a"}
"""The role label's colour (and a person's bubble's tint): the themes' accent blue for the person, green for the
model, grey for tools, amber for system text."""
CARD_COLOUR = "#7a5cc7"
"""A summary card's accent: the topic icon's violet (a card is a folded range, often a topic)."""
STAGE_COLOURS = {None: "#3a9d5d", Stage.SOFT: "#c7a12a", Stage.HARD: "#d9722b", Stage.EMERGENCY: "#c62828"}
"""The gauge's fill by the stage the prompt has reached: green below the soft threshold, then amber, orange, red."""


@dataclass(frozen=True)
class _Layout:
    """Where a row's parts go, relative to the row's rectangle."""

    bubble: QRect
    header: QRect
    body: QRect
    footer: QRect | None


def header_text(found: ChatMessage) -> str:
    """A message's header after its role: ``#12 · 2026-12-02 14:02 · 42 tokens``."""
    return f"#{found.seq} · {found.created_at.astimezone():%Y-%m-%d %H:%M} · {found.tokens:,} tokens"


def _footer_text(index: _Index) -> str | None:
    cut = index.data(CUT_ROLE) or 0
    if cut:
        return f"Show all ({cut:,} more characters)"
    return "Show less" if index.data(WHOLE_ROLE) else None


class MessageDelegate(QStyledItemDelegate):
    """Paints the thread's rows (see the module docstring); a click on "Show all" / "Show less" toggles a long
    text (``ThreadModel.toggle_whole``). Heights follow the view's width: the view lays its rows out again when it
    is resized (:class:`ThreadView`)."""

    SIZES_KEPT = 20_000
    """Row sizes remembered: a reload (each change of the library) lays out the same rows again, and measuring a
    wrapped text takes about a millisecond."""

    def __init__(self, view: QTreeView) -> None:
        super().__init__(view)
        self._view = view
        self._sizes: dict[tuple[object, ...], QSize] = {}

    # --- geometry ------------------------------------------------------------------------------------
    def _row_width(self, index: _Index) -> int:
        depth = 0
        parent = index.parent()
        while parent.isValid():
            depth, parent = depth + 1, parent.parent()
        indent = self._view.indentation() * (depth + (1 if self._view.rootIsDecorated() else 0))
        return max(self._view.viewport().width() - indent, 120)

    def _layout(self, font: QFont, rect: QRect, index: _Index) -> _Layout:
        entry = index.data(ENTRY_ROLE)
        metrics, small = QFontMetrics(font), QFontMetrics(themes.small_font(font))
        if isinstance(entry, Entry) and entry.kind is EntryKind.STITCH:
            line = QRect(rect.left(), rect.top() + GAP, rect.width(), metrics.height() + 2 * GAP)
            return _Layout(line, line, line, None)
        card = isinstance(entry, Entry) and entry.kind is EntryKind.CARD
        found = entry if isinstance(entry, ChatMessage) else entry.message if isinstance(entry, Entry) else None
        widest = rect.width() - 2 * GAP if card else int(rect.width() * BUBBLE_SHARE)
        text_width = max(widest - 2 * PAD, 40)
        body = metrics.boundingRect(QRect(0, 0, text_width, 1 << 20),
                                    int(Qt.TextFlag.TextWordWrap), index.data() or "")
        footer = _footer_text(index)
        header_width = self._header_width(font, entry) + (small.height() + 60 if
                                                          found is not None and found.pinned else 0)
        width = widest if card else min(widest, max(body.width(), header_width,
                                                    small.horizontalAdvance(footer or "")) + 2 * PAD)
        height = PAD + small.height() + GAP + body.height() + (GAP + small.height() if footer else 0) + PAD
        right = found is not None and found.role is ChatRole.USER and isinstance(entry, Entry)
        left = rect.right() - GAP - width + 1 if right else rect.left() + GAP
        bubble = QRect(left, rect.top() + GAP, width, height)
        inner = bubble.adjusted(PAD, PAD, -PAD, -PAD)
        header = QRect(inner.left(), inner.top(), inner.width(), small.height())
        text = QRect(inner.left(), header.bottom() + 1 + GAP, inner.width(), body.height())
        below = QRect(inner.left(), text.bottom() + 1 + GAP, inner.width(), small.height()) if footer else None
        return _Layout(bubble, header, text, below)

    @staticmethod
    def _header_width(font: QFont, entry: object) -> int:
        """The header's width as :meth:`_paint_header` draws it: the role (or a card's title) in bold, the details
        in the small font (measured all in the small font, a short bubble clipped its "tokens")."""
        bold = QFontMetrics(_bold(themes.small_font(font)))
        if isinstance(entry, Entry) and entry.card is not None:
            return bold.horizontalAdvance(entry.card.title())
        found = entry.message if isinstance(entry, Entry) else entry
        if not isinstance(found, ChatMessage):
            return 0
        return bold.horizontalAdvance(_role_label(found) + "  ") + \
            QFontMetrics(themes.small_font(font)).horizontalAdvance(header_text(found))

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        width = self._row_width(index)
        entry = index.data(ENTRY_ROLE)
        found = entry.message if isinstance(entry, Entry) else entry
        # What the size depends on: the text (fixed for an id; a card's grows with what it rolls up), the pin
        # badge, how much is shown, the width and the font.
        key = (entry.card.id, entry.card.count) if isinstance(entry, Entry) and entry.card is not None else \
            (found.id, found.pinned) if isinstance(found, ChatMessage) else (index.row(),)
        key += (isinstance(entry, Entry), index.data(CUT_ROLE), bool(index.data(WHOLE_ROLE)), width,
                option.font.key())
        size = self._sizes.get(key)
        if size is None:
            if len(self._sizes) >= self.SIZES_KEPT:
                self._sizes.clear()
            layout = self._layout(option.font, QRect(0, 0, width, 0), index)
            size = self._sizes[key] = QSize(width, layout.bubble.bottom() + 1 + GAP)
        return size

    # --- painting ------------------------------------------------------------------------------------
    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        entry = index.data(ENTRY_ROLE)
        layout = self._layout(option.font, option.rect, index)
        palette = option.palette
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if isinstance(entry, Entry) and entry.kind is EntryKind.STITCH:
            self._paint_stitch(painter, option, layout.bubble, index, selected)
            painter.restore()
            return
        card = isinstance(entry, Entry) and entry.card is not None
        found = entry if isinstance(entry, ChatMessage) else entry.message if isinstance(entry, Entry) else None
        folded = isinstance(entry, ChatMessage)  # a card's child: an original, read for audit
        fill, edge = palette.color(palette.ColorRole.AlternateBase), _edge(palette)
        if card:
            fill = _blend(palette.color(palette.ColorRole.Base), QColor(CARD_COLOUR), 0.08)
            edge = QColor(CARD_COLOUR)
        elif folded or (found is not None and found.role in (ChatRole.TOOL, ChatRole.SYSTEM)):
            fill = palette.color(palette.ColorRole.Base)
        elif found is not None and found.role is ChatRole.USER:
            fill = _blend(palette.color(palette.ColorRole.Base), QColor(ROLE_COLOURS[ChatRole.USER]), 0.14)
        pen = QPen(palette.color(palette.ColorRole.Highlight) if selected else edge, 2 if selected else 1)
        if folded and not selected:
            pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.setBrush(fill)
        painter.drawRoundedRect(layout.bubble.adjusted(0, 0, -1, -1), RADIUS, RADIUS)
        if card:  # the accent bar down the card's left edge
            painter.fillRect(QRect(layout.bubble.left(), layout.bubble.top() + RADIUS, 3,
                                   layout.bubble.height() - 2 * RADIUS), QColor(CARD_COLOUR))
        self._paint_header(painter, option.font, layout.header, entry, found, palette.color(
            palette.ColorRole.PlaceholderText))
        painter.setFont(option.font)
        painter.setPen(palette.color(palette.ColorRole.PlaceholderText if folded else palette.ColorRole.Text))
        painter.drawText(layout.body, int(Qt.TextFlag.TextWordWrap), index.data() or "")
        footer = _footer_text(index)
        if layout.footer is not None and footer:
            painter.setFont(themes.small_font(option.font))
            painter.setPen(palette.color(palette.ColorRole.Link))
            painter.drawText(layout.footer, int(Qt.AlignmentFlag.AlignLeft), footer)
        painter.restore()

    def _paint_header(self, painter: QPainter, font: QFont, rect: QRect, entry: object, found: ChatMessage | None,
                      muted: QColor) -> None:
        small = themes.small_font(font)
        bold = _bold(small)
        if isinstance(entry, Entry) and entry.card is not None:
            painter.setFont(bold)
            painter.setPen(QColor(CARD_COLOUR))
            painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                             QFontMetrics(bold).elidedText(entry.card.title(), Qt.TextElideMode.ElideRight,
                                                           rect.width()))
            return
        if found is None:
            return
        label = _role_label(found)
        painter.setFont(bold)
        painter.setPen(QColor(ROLE_COLOURS[found.role]))
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), label)
        after = rect.adjusted(QFontMetrics(bold).horizontalAdvance(label + "  "), 0, 0, 0)
        painter.setFont(small)
        painter.setPen(muted)
        painter.drawText(after, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), header_text(found))
        if found.pinned:  # the badge at the header's right: a pin and the word, red like the icon
            side = rect.height()
            word_width = QFontMetrics(bold).horizontalAdvance("pinned")
            word = QRect(rect.right() - word_width, rect.top(), word_width, side)
            themes.icon("pin").paint(painter, QRect(word.left() - side - 2, rect.top(), side, side))
            painter.setFont(bold)
            painter.setPen(QColor("#d64541"))
            painter.drawText(word, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), "pinned")

    @staticmethod
    def _paint_stitch(painter: QPainter, option: QStyleOptionViewItem, rect: QRect, index: _Index,
                      selected: bool) -> None:
        palette = option.palette
        font = QFont(option.font)
        font.setItalic(True)
        metrics = QFontMetrics(font)
        text = (index.data() or "").split("\n", 1)[0]
        text = metrics.elidedText(f"⤷ {text}", Qt.TextElideMode.ElideMiddle, max(rect.width() - 80, 40))
        width = metrics.horizontalAdvance(text)
        middle = rect.center().y()
        colour = QColor(CARD_COLOUR)
        painter.setPen(QPen(colour, 1, Qt.PenStyle.DashLine))
        left_end = rect.center().x() - width // 2 - 8
        painter.drawLine(rect.left() + GAP, middle, left_end, middle)
        painter.drawLine(rect.center().x() + width // 2 + 8, middle, rect.right() - GAP, middle)
        painter.setFont(font)
        painter.setPen(palette.color(palette.ColorRole.Highlight) if selected else colour)
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignCenter), text)

    # --- the "Show all" link -----------------------------------------------------------------------------
    def editorEvent(self, event: QEvent, model: QAbstractItemModel, option: QStyleOptionViewItem,
                    index: _Index) -> bool:
        if (event.type() == QEvent.Type.MouseButtonRelease and isinstance(event, QMouseEvent)
                and event.button() == Qt.MouseButton.LeftButton):
            footer = self._layout(option.font, option.rect, index).footer
            if footer is not None and footer.contains(event.position().toPoint()):
                model.toggle_whole(index)  # type: ignore[attr-defined]
                return True
        return super().editorEvent(event, model, option, index)


class ThreadView(QTreeView):
    """The thread: one column, no header, rows of their own heights (laid out again when the width changes),
    several selectable (a range to fold), scrolled by pixels.

    Signals:
        top_reached(): the person scrolled to the top (older messages may be loaded).
    """

    top_reached = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderHidden(True)
        self.setUniformRowHeights(False)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setItemDelegate(MessageDelegate(self))
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self._width = -1
        bar = self.verticalScrollBar()
        # A person's scrolling only (wheel, drag, arrows): a model reset also moves the bar to the top.
        bar.actionTriggered.connect(lambda _action: bar.sliderPosition() <= bar.minimum() < bar.maximum()
                                    and self.top_reached.emit())

    def at_bottom(self) -> bool:
        """Whether the newest rows are in view (a new message then scrolls into view)."""
        bar = self.verticalScrollBar()
        return bar.value() >= bar.maximum() - 4

    def dataChanged(self, top_left: QModelIndex, bottom_right: QModelIndex, roles: Sequence[int] = ()) -> None:
        super().dataChanged(top_left, bottom_right, roles)
        if CUT_ROLE in roles:  # a text shown whole or shortened: its row's height changed
            self.scheduleDelayedItemsLayout()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.viewport().width() != self._width:  # the rows' heights depend on the width: wrap again
            self._width = self.viewport().width()
            self.scheduleDelayedItemsLayout()


class TokenGauge(QWidget):
    """A bar: the prompt's tokens against the context window, the stages' thresholds marked (their shares below,
    their names in the tooltip), filled in the colour of the stage reached (:data:`STAGE_COLOURS`)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tokens, self.window = 0, 1
        self.rules: tuple[StageRule, ...] = STAGE_TABLE
        self.setMinimumWidth(160)

    def set_value(self, tokens: int, window: int, rules: Sequence[StageRule] = STAGE_TABLE) -> None:
        """Show ``tokens`` of ``window`` against the triggers of ``rules``."""
        self.tokens, self.window, self.rules = tokens, max(window, 1), tuple(rules)
        stage = self.stage()
        share = tokens / self.window
        reached = f"past the {stage.value} threshold" if stage else f"below the {self.rules[0].stage.value} threshold"
        marks = ", ".join(f"{r.stage.value} {r.trigger:.0%}" for r in self.rules)
        self.setToolTip(f"The conversation puts {tokens:,} tokens in a prompt: {share:.0%} of a {self.window:,}-token "
                        f"context window, {reached} (compaction thresholds: {marks})")
        self.update()

    def stage(self) -> Stage | None:
        """The strongest stage whose threshold the tokens have reached, or None."""
        rule = stage_for(self.tokens, self.window, self.rules)
        return rule.stage if rule else None

    def colour(self) -> QColor:
        """The fill's colour (:data:`STAGE_COLOURS`)."""
        return QColor(STAGE_COLOURS[self.stage()])

    def sizeHint(self) -> QSize:
        return QSize(320, QFontMetrics(themes.small_font(self.font())).height() + 16)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        small = themes.small_font(self.font())
        label_height = QFontMetrics(small).height()
        bar = QRect(1, 2, self.width() - 2, max(self.height() - label_height - 6, 8))
        painter.setPen(_edge(palette))
        painter.setBrush(palette.color(palette.ColorRole.Base))
        painter.drawRoundedRect(bar, 4, 4)
        filled = bar.adjusted(0, 0, -round(bar.width() * (1 - min(self.tokens / self.window, 1.0))), 0)
        if filled.width() > 0:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(self.colour())
            painter.drawRoundedRect(filled, 4, 4)
        painter.setFont(small)
        for rule in self.rules:
            x = bar.left() + round(bar.width() * rule.trigger)
            # the stage's colour with a base-coloured halo: readable over the fill of that same colour
            painter.setPen(QPen(palette.color(palette.ColorRole.Base), 4))
            painter.drawLine(QPoint(x, bar.top() + 1), QPoint(x, bar.bottom() - 1))
            painter.setPen(QPen(QColor(STAGE_COLOURS[rule.stage]), 2))
            painter.drawLine(QPoint(x, bar.top() - 1), QPoint(x, bar.bottom() + 2))
            painter.setPen(palette.color(palette.ColorRole.PlaceholderText))
            label = QRect(x - 30, bar.bottom() + 2, 60, label_height)
            painter.drawText(label, int(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop),
                             f"{rule.trigger:.0%}")
        painter.end()


class ParentDialog(QDialog):
    """Which process ``process`` works for (``conversations.set_parent``, ``vancetope chat parent``): "No other
    process" first, then every other session and think process as "name (path)", the current parent selected.

    ``chosen()`` is the picked process's path, None for "No other process".
    """

    RULE = ("Its summary heads this conversation's prompt block when it is in the same project; from another "
            "project only its name.")

    def __init__(self, process: str, processes: Sequence[ScopeInfo], current: str | None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Works For")
        self.list = QListWidget(self)
        self._add("No other process", None)
        others = [p for p in processes if p.path != process]
        if current is not None and all(p.path != current for p in others):  # archived since: still shown as it is
            self._add(current, current)
        for found in others:
            self._add(f"{found.name} ({found.path})", found.path)
        self.choose(current)
        self.list.itemDoubleClicked.connect(lambda _item: self.accept())
        rule = QLabel(self.RULE, self)
        rule.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        own = next((p.name for p in processes if p.path == process), process)
        heading = QLabel(f"The process {own} ({process}) works for:", self)
        heading.setTextFormat(Qt.TextFormat.PlainText)  # a process's name is the person's text, not markup
        layout.addWidget(heading)
        layout.addWidget(self.list, 1)
        layout.addWidget(rule)
        layout.addWidget(buttons)
        self.resize(460, 360)

    def _add(self, text: str, path: str | None) -> None:
        item = QListWidgetItem(text, self.list)
        item.setData(Qt.ItemDataRole.UserRole, path)

    def choose(self, path: str | None) -> None:
        """Select ``path`` (None: "No other process") as the person would."""
        self.list.setCurrentRow(next(r for r in range(self.list.count())
                                     if self.list.item(r).data(Qt.ItemDataRole.UserRole) == path))

    def chosen(self) -> str | None:
        """The selected process's path; None for "No other process"."""
        item = self.list.currentItem()
        return None if item is None else item.data(Qt.ItemDataRole.UserRole)


def _role_label(found: ChatMessage) -> str:
    """What a message's header starts with: its role, or "Stitch"."""
    return "Stitch" if found.kind is MessageKind.STITCH else found.role.value.title()


def _bold(font: QFont) -> QFont:
    bolder = QFont(font)
    bolder.setBold(True)
    return bolder


def _edge(palette: QPalette) -> QColor:
    """A bubble's outline: the text colour faint over the base (the palettes' ``Mid`` vanishes on the dark one)."""
    return _blend(palette.color(QPalette.ColorRole.Base), palette.color(QPalette.ColorRole.Text), 0.25)


def _blend(base: QColor, tint: QColor, share: float) -> QColor:
    """``tint`` laid over ``base`` at ``share`` opacity: a tint that reads on the light and the dark theme."""
    return QColor(round(base.red() * (1 - share) + tint.red() * share),
                  round(base.green() * (1 - share) + tint.green() * share),
                  round(base.blue() * (1 - share) + tint.blue() * share))
