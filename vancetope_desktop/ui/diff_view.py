"""A side-by-side diff: the current text of a document left, the proposed one right, rows aligned.

The alignment is :mod:`difflib`'s ``SequenceMatcher`` over lines (Ratcliff/Obershelp "gestalt
pattern matching"); replaced lines are paired in order and compared again word by word for the
in-line highlights, as ``difflib.Differ`` does with characters. The widget shows two read-only panes
that wrap long lines yet stay row-aligned: after each layout the shorter block of every row gets a
bottom margin so both sides have the same height, and one scroll bar drives both panes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from enum import StrEnum

from PySide6.QtCore import QEvent, QRect, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFontDatabase,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
)
from PySide6.QtWidgets import QHBoxLayout, QLabel, QSplitter, QTextEdit, QToolButton, QVBoxLayout, QWidget

SIMILAR_ENOUGH = 0.4
"""Paired lines less alike than this are shown as wholly replaced (in-line marks would be noise)."""
_TOKEN = re.compile(r"\w+|\s+|[^\w\s]")


class RowKind(StrEnum):
    """What one aligned row shows."""

    EQUAL = "equal"
    CHANGED = "changed"  # a line on both sides, different
    REMOVED = "removed"  # only on the left
    ADDED = "added"  # only on the right


Spans = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class DiffRow:
    """One aligned row: a line of each side (None where that side has a gap), 1-based line numbers,
    and the changed character ranges ``(start, end)`` inside each line."""

    kind: RowKind
    left: str | None
    right: str | None
    left_number: int | None = None
    right_number: int | None = None
    left_spans: Spans = ()
    right_spans: Spans = ()


@dataclass(frozen=True)
class DiffStats:
    """Lines added and removed (a changed line counts once each way) and change blocks (hunks)."""

    added: int
    removed: int
    blocks: int


def _tokens(line: str) -> list[tuple[str, int]]:
    """Words, runs of spaces and single punctuation marks with their start offsets."""
    return [(m.group(), m.start()) for m in _TOKEN.finditer(line)]


def inline_spans(old: str, new: str) -> tuple[Spans, Spans]:
    """The changed ranges of two versions of a line, compared word by word.

    Returns:
        ``(old ranges, new ranges)``, each a tuple of ``(start, end)`` character offsets.
    """
    a, b = _tokens(old), _tokens(new)
    matcher = SequenceMatcher(None, [t for t, _ in a], [t for t, _ in b], autojunk=False)
    left: list[tuple[int, int]] = []
    right: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if i2 > i1:
            left.append((a[i1][1], a[i2 - 1][1] + len(a[i2 - 1][0])))
        if j2 > j1:
            right.append((b[j1][1], b[j2 - 1][1] + len(b[j2 - 1][0])))
    return _merged(left, old), _merged(right, new)


def _merged(spans: list[tuple[int, int]], line: str) -> Spans:
    """Join ranges separated only by spaces: "Layer norm after" reads as one change, not three."""
    joined: list[tuple[int, int]] = []
    for start, end in spans:
        if joined and not line[joined[-1][1]:start].strip():
            joined[-1] = (joined[-1][0], end)
        else:
            joined.append((start, end))
    return tuple(joined)


def align(old: str, new: str) -> list[DiffRow]:
    """Align two texts line by line for a side-by-side view.

    Equal runs become :attr:`RowKind.EQUAL` rows; a replaced run pairs its lines in order
    (:attr:`RowKind.CHANGED`, with word-level spans when the pair is similar enough) and leaves the
    surplus as :attr:`RowKind.REMOVED` or :attr:`RowKind.ADDED` rows against a gap.
    """
    a, b = old.splitlines(), new.splitlines()
    rows: list[DiffRow] = []
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            rows.extend(DiffRow(RowKind.EQUAL, a[i], b[j], i + 1, j + 1) for i, j in zip(range(i1, i2), range(j1, j2),
                                                                                       strict=True))
            continue
        paired = min(i2 - i1, j2 - j1)
        for k in range(paired):
            left, right = a[i1 + k], b[j1 + k]
            similar = SequenceMatcher(None, left, right, autojunk=False).ratio() >= SIMILAR_ENOUGH
            spans = inline_spans(left, right) if similar else ((), ())
            rows.append(DiffRow(RowKind.CHANGED, left, right, i1 + k + 1, j1 + k + 1, *spans))
        rows.extend(DiffRow(RowKind.REMOVED, a[i], None, i + 1) for i in range(i1 + paired, i2))
        rows.extend(DiffRow(RowKind.ADDED, None, b[j], None, j + 1) for j in range(j1 + paired, j2))
    return rows


def change_blocks(rows: list[DiffRow]) -> list[tuple[int, int]]:
    """``(first, last + 1)`` row ranges of consecutive changed rows (the hunks to jump between)."""
    blocks: list[tuple[int, int]] = []
    start: int | None = None
    for number, row in enumerate([*rows, DiffRow(RowKind.EQUAL, "", "")]):
        if row.kind is RowKind.EQUAL and start is not None:
            blocks.append((start, number))
            start = None
        elif row.kind is not RowKind.EQUAL and start is None:
            start = number
    return blocks


def diff_stats(rows: list[DiffRow]) -> DiffStats:
    """Counts for the summary line (``+3 −1``)."""
    added = sum(1 for r in rows if r.kind in (RowKind.ADDED, RowKind.CHANGED))
    removed = sum(1 for r in rows if r.kind in (RowKind.REMOVED, RowKind.CHANGED))
    return DiffStats(added, removed, len(change_blocks(rows)))


@dataclass(frozen=True)
class DiffColors:
    """Hex colours of one theme: line backgrounds, stronger in-line marks, gaps and gutter text."""

    removed: str
    added: str
    removed_mark: str
    added_mark: str
    gap: str
    gutter_text: str


LIGHT_COLORS = DiffColors(removed="#ffebe9", added="#dafbe1", removed_mark="#ffb3ad", added_mark="#9be9a8",
                          gap="#e6e8eb", gutter_text="#6e7781")
DARK_COLORS = DiffColors(removed="#3d1f22", added="#1c3424", removed_mark="#7d2c2f", added_mark="#2a6a3a",
                         gap="#303236", gutter_text="#8b9099")


def diff_colors(dark: bool) -> DiffColors:
    """The colours for a dark or a light window (text keeps AA contrast on every background)."""
    return DARK_COLORS if dark else LIGHT_COLORS


class _Gutter(QWidget):
    """Line numbers beside a pane, painted at each block's position."""

    def __init__(self, pane: DiffPane) -> None:
        super().__init__(pane)
        self._pane = pane

    def paintEvent(self, event: QPaintEvent) -> None:
        self._pane.paint_gutter(self, event.rect())


class DiffPane(QTextEdit):
    """One side of the diff: read-only wrapped text, a line-number gutter, row backgrounds.

    Signals:
        resized(): the width changed, so the rows must be aligned again.
    """

    resized = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setReadOnly(True)
        self.setLineWrapMode(QTextEdit.LineWrapMode.WidgetWidth)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setUndoRedoEnabled(False)
        self.gutter = _Gutter(self)
        self.numbers: list[int | None] = []
        self.kinds: list[RowKind] = []
        self.margins: list[float] = []
        self.gaps: list[bool] = []
        self.colors = LIGHT_COLORS
        self._line_color = QColor(LIGHT_COLORS.added)
        self.verticalScrollBar().valueChanged.connect(self.gutter.update)

    def gutter_width(self) -> int:
        """Pixels for the widest line number plus padding."""
        digits = len(str(max((n for n in self.numbers if n is not None), default=1)))
        return self.fontMetrics().horizontalAdvance("9" * max(digits, 2)) + 14

    def show_rows(self, lines: list[str | None], numbers: list[int | None], spans: list[Spans],
                  kinds: list[RowKind], colors: DiffColors, side: str) -> None:
        """Fill the pane with one block per row; ``None`` lines are gaps (hatched)."""
        self.numbers, self.kinds, self.colors = numbers, kinds, colors
        self.margins = [0.0] * len(lines)
        self.clear()
        cursor = QTextCursor(self.document())
        cursor.beginEditBlock()
        self._line_color = QColor(colors.removed if side == "left" else colors.added)
        self.gaps = [line is None for line in lines]
        mark = QTextCharFormat()
        mark.setBackground(QColor(colors.removed_mark if side == "left" else colors.added_mark))
        plain = QTextCharFormat()
        for number, (line, row_spans) in enumerate(zip(lines, spans, strict=True)):
            if number:
                cursor.insertBlock(QTextBlockFormat(), plain)
            text, done = line or "", 0
            for start, end in row_spans:
                cursor.insertText(text[done:start], plain)
                cursor.insertText(text[start:end], mark)
                done = end
            cursor.insertText(text[done:], plain)
        cursor.endEditBlock()
        self.moveCursor(QTextCursor.MoveOperation.Start)
        self.setViewportMargins(self.gutter_width(), 0, 0, 0)
        self.gutter.update()

    def natural_heights(self) -> list[float]:
        """Each block's height without the margin added for alignment (Qt's block rectangle leaves the
        bottom margin out)."""
        layout = self.document().documentLayout()
        heights: list[float] = []
        block = self.document().begin()
        while block.isValid():
            heights.append(layout.blockBoundingRect(block).height())
            block = block.next()
        return heights

    def set_margins(self, margins: list[float]) -> None:
        """Give each block the bottom margin that makes it as tall as the other side's row."""
        if margins == self.margins:
            return
        document = self.document()
        cursor = QTextCursor(document)
        cursor.beginEditBlock()
        block = document.begin()
        for number, margin in enumerate(margins[:-1]):
            if margin != self.margins[number]:
                cursor.setPosition(block.position())
                fmt = block.blockFormat()
                fmt.setBottomMargin(margin)
                cursor.setBlockFormat(fmt)
            block = block.next()
        if margins:
            # Qt leaves the last block's bottom margin out of the document's height: pad the frame instead,
            # so both panes scroll the same distance.
            root = document.rootFrame()
            fmt = root.frameFormat()
            fmt.setBottomMargin(document.documentMargin() + margins[-1])
            root.setFrameFormat(fmt)
        cursor.endEditBlock()
        self.margins = list(margins)

    def block_tops(self) -> list[float]:
        """The top of every block in document coordinates (equal on both sides once aligned)."""
        layout = self.document().documentLayout()
        tops: list[float] = []
        block = self.document().begin()
        while block.isValid():
            tops.append(layout.blockBoundingRect(block).top())
            block = block.next()
        return tops

    def paintEvent(self, event: QPaintEvent) -> None:
        # Row backgrounds are painted here rather than as block formats: a block's background stops at
        # its text, while a row must be coloured down to the next row, alignment padding included.
        painter = QPainter(self.viewport())
        layout = self.document().documentLayout()
        offset, width = self.verticalScrollBar().value(), self.viewport().width()
        gap = QBrush(QColor(self.colors.gap), Qt.BrushStyle.BDiagPattern)
        block, number = self.document().begin(), 0
        while block.isValid() and number < len(self.kinds):
            rect = layout.blockBoundingRect(block)
            top = rect.top() - offset
            if top > event.rect().bottom():
                break
            if top + rect.height() + self.margins[number] >= event.rect().top():
                row = QRectF(0, top, width, rect.height() + self.margins[number])
                if self.gaps[number]:
                    painter.fillRect(row, gap)
                elif self.kinds[number] is not RowKind.EQUAL:
                    painter.fillRect(row, self._line_color)
            block, number = block.next(), number + 1
        painter.end()
        super().paintEvent(event)

    def paint_gutter(self, gutter: QWidget, area: QRect) -> None:
        painter = QPainter(gutter)
        painter.fillRect(area, self.palette().color(QPalette.ColorRole.AlternateBase))
        painter.setPen(QColor(self.colors.gutter_text))
        painter.setFont(self.font())
        layout = self.document().documentLayout()
        offset = self.verticalScrollBar().value()  # the gutter's top is the viewport's top
        line_height = self.fontMetrics().height()
        block = self.document().begin()
        number = 0
        while block.isValid() and number < len(self.numbers):
            top = layout.blockBoundingRect(block).top() - offset
            if top > area.bottom():
                break
            label = self.numbers[number]
            if label is not None and top + line_height >= area.top():
                painter.drawText(QRect(0, int(top), gutter.width() - 6, line_height),
                                 Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, str(label))
            block, number = block.next(), number + 1
        painter.end()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        rect = self.contentsRect()
        self.gutter.setGeometry(QRect(rect.left(), rect.top(), self.gutter_width(), rect.height()))
        if event.size().width() != event.oldSize().width():
            self.resized.emit()


class DiffView(QWidget):
    """Two synchronized read-only panes: ``old`` left, ``new`` right, changed rows highlighted.

    A header names both sides and counts the changes; Previous / Next jump between change blocks.
    Colours follow the palette (light or dark) and switch when it changes.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[DiffRow] = []
        self.blocks: list[tuple[int, int]] = []
        self._current_block = -1
        self._old, self._new = "", ""
        self.left, self.right = DiffPane(), DiffPane()
        # One scroll bar (the right one) for both: a bar appearing on one side only would change its
        # width, re-wrap its lines and break the alignment.
        self.left.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.right.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.left_label, self.right_label = QLabel("Current"), QLabel("Proposed")
        self.stats_label = QLabel()
        self.stats_label.setProperty("role", "hint")
        self.previous_button, self.next_button = QToolButton(), QToolButton()
        self.previous_button.setText("↑ Previous change")
        self.next_button.setText("Next change ↓")
        self.previous_button.clicked.connect(self.previous_change)
        self.next_button.clicked.connect(self.next_change)
        self._build_layout()
        self._align_timer = QTimer(self, singleShot=True, interval=0)
        self._align_timer.timeout.connect(self.align_rows)
        # The first change is scrolled to once the panes have their width (the row heights depend on it).
        self._first_change_timer = QTimer(self, singleShot=True, interval=0)
        self._first_change_timer.timeout.connect(lambda: self._current_block < 0 and self.next_change())
        self._following = False  # keep the current change in view while rows re-wrap, until the user scrolls
        for pane, other in ((self.left, self.right), (self.right, self.left)):
            pane.resized.connect(self._align_timer.start)
            pane.verticalScrollBar().valueChanged.connect(other.verticalScrollBar().setValue)
            pane.verticalScrollBar().actionTriggered.connect(lambda _action: setattr(self, "_following", False))

    def _build_layout(self) -> None:
        header = QHBoxLayout()
        header.setContentsMargins(4, 2, 4, 2)
        header.addWidget(self.stats_label, 1)
        header.addWidget(self.previous_button)
        header.addWidget(self.next_button)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setChildrenCollapsible(False)
        for label, pane in ((self.left_label, self.left), (self.right_label, self.right)):
            side = QWidget()
            column = QVBoxLayout(side)
            column.setContentsMargins(0, 0, 0, 0)
            column.setSpacing(2)
            label.setContentsMargins(4, 0, 4, 0)
            label.setTextFormat(Qt.TextFormat.PlainText)
            column.addWidget(label)
            column.addWidget(pane, 1)
            splitter.addWidget(side)
        self.splitter = splitter
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addLayout(header)
        layout.addWidget(splitter, 1)

    # --- public API ---

    def set_texts(self, old: str, new: str, *, old_label: str = "Current", new_label: str = "Proposed",
                  rows: list[DiffRow] | None = None) -> None:
        """Show ``old`` against ``new``; the labels name the two sides above the panes.

        ``rows`` is ``align(old, new)`` when the caller computed it already (on a worker thread: the
        alignment is quadratic in the worst case).
        """
        self._old, self._new = old, new
        self.left_label.setText(old_label)
        self.right_label.setText(new_label)
        self.rows = rows if rows is not None else align(old, new)
        self.blocks = change_blocks(self.rows)
        self._current_block = -1
        self._following = False
        self._render()
        stats = diff_stats(self.rows)
        if not stats.blocks:
            self.stats_label.setText("No changes in the text")
        else:
            noun = "change" if stats.blocks == 1 else "changes"
            self.stats_label.setText(f"{stats.blocks} {noun} · +{stats.added} −{stats.removed} lines")
        self.previous_button.setEnabled(bool(self.blocks))
        self.next_button.setEnabled(bool(self.blocks))
        self._first_change_timer.start()

    def stats(self) -> DiffStats:
        """Counts of the shown diff."""
        return diff_stats(self.rows)

    def current_block(self) -> int:
        """Index of the change block last jumped to (-1 before the first jump)."""
        return self._current_block

    def next_change(self) -> None:
        """Scroll to the next change block (wrapping to the first)."""
        if self.blocks:
            self._go_to((self._current_block + 1) % len(self.blocks))

    def previous_change(self) -> None:
        """Scroll to the previous change block (wrapping to the last)."""
        if self.blocks:
            self._go_to((self._current_block - 1) % len(self.blocks))

    def is_aligned(self) -> bool:
        """True when every row starts at the same height on both sides and both end together."""
        return self.left.block_tops() == self.right.block_tops() \
            and self.left.document().size().height() == self.right.document().size().height()

    def align_rows(self) -> None:
        """Pad the shorter side of each row so both panes stay row-aligned (after a resize or a render)."""
        left, right = self.left.natural_heights(), self.right.natural_heights()
        if len(left) != len(right):
            return
        self.left.set_margins([max(r - l_, 0.0) for l_, r in zip(left, right, strict=True)])
        self.right.set_margins([max(l_ - r, 0.0) for l_, r in zip(left, right, strict=True)])
        self.left.gutter.update()
        self.right.gutter.update()
        if self._following and self._current_block >= 0:
            self._go_to(self._current_block)

    def changeEvent(self, event: QEvent) -> None:
        """Re-colour when the palette switches between light and dark."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.rows:
            self._render()

    # --- helpers ---

    def _dark(self) -> bool:
        return self.palette().color(QPalette.ColorRole.Window).lightnessF() < 0.5

    def _render(self) -> None:
        colors = diff_colors(self._dark())
        rows, kinds = self.rows, [r.kind for r in self.rows]
        self.left.show_rows([r.left for r in rows], [r.left_number for r in rows], [r.left_spans for r in rows],
                            kinds, colors, "left")
        self.right.show_rows([r.right for r in rows], [r.right_number for r in rows],
                             [r.right_spans for r in rows], kinds, colors, "right")
        self.align_rows()

    def _go_to(self, number: int) -> None:
        self._current_block = number
        self._following = True
        start = self.blocks[number][0]
        tops = self.right.block_tops()
        if start < len(tops):
            # A little context above the change, as review tools do.
            self.right.verticalScrollBar().setValue(int(max(tops[start] - 2 * self.fontMetrics().height(), 0)))
