"""Tag chips: their colours, one chip, the chips editor of a document and a chips delegate for tables.

Pure widgets: they show the tags they are given and emit signals; whoever owns them calls the
services. Colours come from a ``{tag: "#rrggbb"}`` mapping of configured colours; an unconfigured
tag takes its nearest configured ancestor's colour, else a colour derived from its top level.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    QPointF,
    QRect,
    QRectF,
    QSize,
    QStringListModel,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QColor,
    QFocusEvent,
    QFont,
    QFontMetrics,
    QHelpEvent,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QPen,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCompleter,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolTip,
    QVBoxLayout,
    QWidget,
)
from superqt import QFlowLayout

from ..core.errors import InvalidInput
from ..core.tags import normalize_tag, tag_ancestors

TAGS_ROLE = Qt.ItemDataRole.UserRole + 1
"""Default model role holding a cell's ``list[str]`` of tags for :class:`TagChipsDelegate`."""

ColorSource = Mapping[str, str] | Callable[[str], QColor]
"""Either configured colours ``{tag: "#rrggbb"}`` or a function giving a tag's colour."""

_H_PAD = 7  # text inset from the chip's rounded ends
_V_PAD = 1
_CLOSE_GAP = 3  # between the text and the × glyph
MAX_CHIP_TEXT = 220
"""Chip text wider than this (px) is elided in the middle, so one long tag cannot widen a 300 px dock."""

_DARK_TEXT = QColor("#1b1b1b")
_LIGHT_TEXT = QColor("#ffffff")


# --- colours ------------------------------------------------------------------------------------


def tag_color(tag: str, colors: Mapping[str, str]) -> QColor:
    """The colour a tag is drawn in.

    Args:
        tag: a normalised tag, e.g. ``"topic/attention"`` or ``"thinkprocess:tp_12"``.
        colors: configured colours ``{tag: "#rrggbb"}``; invalid entries are ignored.

    Returns:
        The colour of the tag or of its nearest configured ancestor (``topic`` colours
        ``topic/attention``); otherwise a colour derived from the top-level segment (its namespace
        for ``ns:value`` tags, so every ``thinkprocess:*`` tag shares one). Derived colours use a
        BLAKE2 digest, not Python's salted ``hash``, so a tag keeps its colour across runs.
    """
    for ancestor in reversed(tag_ancestors(tag)):
        configured = colors.get(ancestor)
        if configured and QColor.isValidColorName(configured):
            return QColor(configured)
    top = tag.split("/", 1)[0]
    top = top.split(":", 1)[0] if ":" in top else top
    digest = int.from_bytes(hashlib.blake2b(top.encode("utf-8"), digest_size=4).digest(), "big")
    # Mid-tone saturation/lightness keep every hue pleasant on light and dark backgrounds alike.
    hue = (digest % 360) / 360.0
    saturation = 0.50 + ((digest >> 9) % 16) / 100.0
    lightness = 0.56 + ((digest >> 13) % 8) / 100.0
    return QColor.fromHslF(hue, saturation, lightness)


def _luminance(color: QColor) -> float:
    """WCAG 2.x relative luminance of an sRGB colour (0 black … 1 white)."""

    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(color.redF()) + 0.7152 * channel(color.greenF()) + 0.0722 * channel(color.blueF())


def text_color_for(background: QColor) -> QColor:
    """Near-black or white, whichever has the higher WCAG contrast ratio on ``background``."""
    lum = _luminance(background)
    on_dark = (_luminance(_LIGHT_TEXT) + 0.05) / (lum + 0.05)
    on_light = (lum + 0.05) / (_luminance(_DARK_TEXT) + 0.05)
    return QColor(_LIGHT_TEXT if on_dark > on_light else _DARK_TEXT)


def _color_of(tag: str, source: ColorSource) -> QColor:
    return source(tag) if callable(source) else tag_color(tag, source)


# --- chip geometry and painting (shared by the widget and the delegate) --------------------------


def chip_label(tag: str) -> str:
    """The text a chip shows: ``#tag``."""
    return f"#{tag}"


def chip_size(metrics: QFontMetrics, tag: str, *, removable: bool = False) -> QSize:
    """Size of a chip for ``tag`` in a font: a pill around ``#tag`` plus room for × when removable."""
    height = metrics.height() + 2 * _V_PAD
    # +2: elidedText measures a little wider than horizontalAdvance; without slack it elides a fitting tag.
    text = min(metrics.horizontalAdvance(chip_label(tag)) + 2, MAX_CHIP_TEXT)
    close = _close_size(height) + _CLOSE_GAP if removable else 0
    return QSize(text + close + 2 * _H_PAD, height)


def _close_size(height: int | float) -> int:
    return int(height * 0.7)


def close_rect(rect: QRectF) -> QRectF:
    """Where a removable chip drawn in ``rect`` shows its × (a square at the right end)."""
    size = _close_size(rect.height())
    return QRectF(rect.right() - _H_PAD / 2 - size, rect.center().y() - size / 2, size, size)


def paint_chip(painter: QPainter, rect: QRectF, tag: str, color: QColor, *, removable: bool = False,
               close_hovered: bool = False, focused: bool = False, outline: QColor | None = None,
               elide: Qt.TextElideMode = Qt.TextElideMode.ElideMiddle) -> None:
    """Draw one chip: a rounded ``color`` pill with ``#tag`` in a contrasting colour, elided to fit.

    Args:
        painter: an active painter (its font is the chip's font).
        rect: the chip's rectangle, normally of :func:`chip_size`.
        tag: the tag shown; color: the pill colour (see :func:`tag_color`).
        removable: draw a × at the right end; close_hovered: highlight it.
        focused: draw a focus ring (keyboard focus on a chip widget).
        outline: a 1 px border colour, e.g. to part a chip from a selected row's highlight.
        elide: where a tag too long for ``rect`` is cut (the middle keeps both ends of long paths).
    """
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    radius = rect.height() / 2
    painter.setPen(QPen(outline, 1.0) if outline is not None else Qt.PenStyle.NoPen)
    painter.setBrush(color)
    painter.drawRoundedRect(rect.adjusted(0.5, 0.5, -0.5, -0.5) if outline is not None else rect, radius, radius)
    ink = text_color_for(color)
    if focused:
        painter.setPen(QPen(ink, 1.2, Qt.PenStyle.DotLine))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(rect.adjusted(1.5, 1.5, -1.5, -1.5), radius - 1.5, radius - 1.5)
    text_rect = rect.adjusted(_H_PAD, 0, -_H_PAD, 0)
    if removable:
        cross = close_rect(rect)
        text_rect.setRight(cross.left() - _CLOSE_GAP)
        if close_hovered:
            painter.setPen(Qt.PenStyle.NoPen)
            hover = QColor(ink)
            hover.setAlphaF(0.25)
            painter.setBrush(hover)
            painter.drawEllipse(cross)
        inset = cross.width() * 0.3
        glyph = cross.adjusted(inset, inset, -inset, -inset)
        painter.setPen(QPen(ink, 1.4, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
        painter.drawLine(glyph.topLeft(), glyph.bottomRight())
        painter.drawLine(glyph.topRight(), glyph.bottomLeft())
    painter.setPen(ink)
    text = painter.fontMetrics().elidedText(chip_label(tag), elide, int(text_rect.width()))
    painter.drawText(text_rect, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, text)
    painter.restore()


# --- one chip -----------------------------------------------------------------------------------


class TagChip(QWidget):
    """A painted rounded ``#tag`` label with an optional × button.

    Click (or Space/Enter when focused) emits ``clicked(tag)``; the × (or Delete/Backspace) emits
    ``remove_requested(tag)``. The chip never removes itself: its owner decides.
    """

    clicked = Signal(str)
    remove_requested = Signal(str)

    def __init__(self, tag: str, color: QColor, *, removable: bool = True, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tag = tag
        self._color = QColor(color)
        self._removable = removable
        self._close_hovered = False
        self._pressed_close: bool | None = None  # None: no press in progress
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setToolTip(chip_label(tag))
        self.setAccessibleName(f"tag {tag}")

    def color(self) -> QColor:
        """The pill colour."""
        return QColor(self._color)

    def set_color(self, color: QColor) -> None:
        """Repaint in another colour."""
        self._color = QColor(color)
        self.update()

    def is_removable(self) -> bool:
        """Whether the chip shows a × button."""
        return self._removable

    def set_removable(self, removable: bool) -> None:
        """Show or hide the × button (hidden for read-only documents)."""
        if removable != self._removable:
            self._removable = removable
            self.updateGeometry()
            self.update()

    def close_button_rect(self) -> QRect:
        """The × area in widget coordinates (empty when not removable)."""
        return close_rect(QRectF(self.rect())).toAlignedRect() if self._removable else QRect()

    def sizeHint(self) -> QSize:
        return chip_size(self.fontMetrics(), self.tag, removable=self._removable)

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        paint_chip(painter, QRectF(self.rect()), self.tag, self._color, removable=self._removable,
                   close_hovered=self._close_hovered, focused=self.hasFocus())
        painter.end()

    def _on_close(self, pos: QPointF) -> bool:
        return self._removable and self.close_button_rect().adjusted(-2, -2, 2, 2).contains(pos.toPoint())

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        hovered = self._on_close(event.position())
        if hovered != self._close_hovered:
            self._close_hovered = hovered
            self.update()
        super().mouseMoveEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        if self._close_hovered:
            self._close_hovered = False
            self.update()
        super().leaveEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._pressed_close = self._on_close(event.position())
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        pressed, self._pressed_close = self._pressed_close, None
        # Like a button: act only when released over the part that was pressed.
        if event.button() != Qt.MouseButton.LeftButton or pressed is None or not self.rect().contains(
                event.position().toPoint()):
            super().mouseReleaseEvent(event)
            return
        if pressed and self._on_close(event.position()):
            self.remove_requested.emit(self.tag)
        elif not pressed:
            self.clicked.emit(self.tag)
        event.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.clicked.emit(self.tag)
        elif event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and self._removable:
            self.remove_requested.emit(self.tag)
        else:
            super().keyPressEvent(event)

    def focusInEvent(self, event: QFocusEvent) -> None:
        self.update()
        super().focusInEvent(event)

    def focusOutEvent(self, event: QFocusEvent) -> None:
        self.update()
        super().focusOutEvent(event)


# --- a document's chips -------------------------------------------------------------------------


def parse_typed_tag(text: str) -> str:
    """Normalise a tag typed into the chips editor: strip, drop leading ``#``, lowercase.

    Returns:
        The tag in the stored form of :func:`core.tags.normalize_tag`.

    Raises:
        InvalidInput: blank text, inner spaces (the editor refuses them rather than guessing
        ``a-b``), or anything ``normalize_tag`` rejects (commas, quotes, ``a//b``).
    """
    stripped = text.strip().lstrip("#").strip()
    if not stripped:
        raise InvalidInput("type a tag first")
    if any(ch.isspace() for ch in stripped):
        raise InvalidInput("a tag cannot contain spaces (use - or /)")
    return normalize_tag(stripped.lower())


class TagLineEdit(QLineEdit):
    """The "Add tag…" field: Enter adds the tag and nothing else.

    QLineEdit passes Enter on to its parents, so inside a dialog it would also press the default
    button ("Approve") with the tag half edited; this field keeps the key.
    """

    def keyPressEvent(self, event: QKeyEvent) -> None:
        completer = self.completer()
        # With its popup open the completer owns Enter (it picks the highlighted row, and stops the key
        # there); accepting it here would tell the completer the field used it.
        popup_open = completer is not None and completer.popup().isVisible()
        super().keyPressEvent(event)
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not popup_open:
            event.accept()


class TagChipsEditor(QWidget):
    """A document's tags as wrapping chips, plus an "Add tag…" field with completion.

    Enter in the field adds the typed tag and only that (see :func:`parse_typed_tag`; errors show
    inline under the field; a dialog's default button is not pressed); × on a chip removes it;
    clicking a chip emits ``tag_clicked``. Additions and removals show at once and are announced by
    ``tag_added`` / ``tag_removed``; the owner saves them and then confirms with :meth:`set_tags`
    (which always wins).
    """

    tag_added = Signal(str)
    tag_removed = Signal(str)
    tag_clicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._tags: list[str] = []
        self._colors: dict[str, str] = {}
        self._completions: list[str] = []
        self._read_only = False
        self._chips: list[TagChip] = []

        self._chips_box = QWidget()
        self._flow = QFlowLayout(self._chips_box)
        self._flow.setContentsMargins(0, 0, 0, 0)
        self._flow.setHorizontalSpacing(4)
        self._flow.setVerticalSpacing(4)
        self._empty_label = QLabel("No tags")
        self._empty_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)

        self.line_edit = TagLineEdit()
        self.line_edit.setPlaceholderText("Add tag…")
        self.line_edit.setClearButtonEnabled(True)
        self._completion_model = QStringListModel(self)
        self._completer = QCompleter(self._completion_model, self)
        self._completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self._completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self._completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self.line_edit.setCompleter(self._completer)

        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.hide()
        font = QFont(self.error_label.font())
        font.setPointSizeF(font.pointSizeF() * 0.9)
        self.error_label.setFont(font)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self._empty_label)
        layout.addWidget(self._chips_box)
        layout.addWidget(self.line_edit)
        layout.addWidget(self.error_label)

        self.line_edit.returnPressed.connect(self._commit_text)
        self.line_edit.textEdited.connect(lambda _text: self._show_error(""))
        # Picking a completion (Enter on a highlighted row, or a click) adds it at once.
        self._completer.activated.connect(self.add_tag)
        self._rebuild()

    # public API

    def tags(self) -> list[str]:
        """The tags shown, in order."""
        return list(self._tags)

    def chips(self) -> list[TagChip]:
        """The chip widgets, in the order of :meth:`tags`."""
        return list(self._chips)

    def completer(self) -> QCompleter:
        """The add field's completer (its popup lists matching known tags)."""
        return self._completer

    def set_tags(self, tags: list[str]) -> None:
        """Show these tags (normalised strings, shown in the given order)."""
        self._tags = list(dict.fromkeys(tags))
        self._rebuild()

    def set_colors(self, colors: Mapping[str, str]) -> None:
        """Use configured tag colours ``{tag: "#rrggbb"}`` (see :func:`tag_color`)."""
        self._colors = dict(colors)
        for chip in self._chips:
            chip.set_color(tag_color(chip.tag, self._colors))

    def set_completions(self, tags: list[str]) -> None:
        """Known tags offered while typing; tags the document already has are left out."""
        self._completions = list(dict.fromkeys(tags))
        self._update_completions()

    def set_read_only(self, read_only: bool) -> None:
        """Hide the add field and the × buttons (chips stay clickable)."""
        self._read_only = read_only
        self.line_edit.setVisible(not read_only)
        if read_only:
            self._show_error("")
        for chip in self._chips:
            chip.set_removable(not read_only)

    def is_read_only(self) -> bool:
        """Whether editing is switched off."""
        return self._read_only

    def reset_input(self) -> None:
        """Empty the add field and hide its error (e.g. when another document is shown)."""
        self.line_edit.clear()
        self._show_error("")

    def error_text(self) -> str:
        """The inline error under the field ("" when none)."""
        return self.error_label.text() if self.error_label.isVisibleTo(self) else ""

    def add_tag(self, text: str) -> bool:
        """Add a tag as if typed: returns True (and emits ``tag_added``) when accepted, else shows why."""
        if self._read_only:
            return False
        try:
            tag = parse_typed_tag(text)
        except InvalidInput as error:
            self._show_error(str(error))
            return False
        self.line_edit.clear()
        if tag in self._tags:
            self._show_error(f"already tagged #{tag}")
            return False
        self._show_error("")
        self._tags.append(tag)
        self._rebuild()
        self.tag_added.emit(tag)
        return True

    def commit_pending(self, why: str = "") -> bool:
        """Add the tag still typed in the field, as Enter would, before the owner acts on :meth:`tags`.

        Args:
            why: added to the error when the typed text is not a tag (e.g. "fix or clear it to approve").

        Returns:
            True when nothing is left in the field (it was empty, its tag was added, or it is already
            shown); False when it holds text that is no valid tag: the error shows under the field,
            which keeps the text and takes the focus.
        """
        text = self.line_edit.text()
        if self._read_only or not text.strip():
            return True
        try:
            parse_typed_tag(text)
        except InvalidInput as error:
            self._show_error(f"{error} — {why}" if why else str(error))
            self.line_edit.setFocus(Qt.FocusReason.OtherFocusReason)
            return False
        if not self.add_tag(text):  # already shown: nothing is lost
            self._show_error("")
        return True

    def remove_tag(self, tag: str) -> None:
        """Remove a shown tag (as its × does) and emit ``tag_removed``."""
        if self._read_only or tag not in self._tags:
            return
        self._tags.remove(tag)
        self._rebuild()
        self.tag_removed.emit(tag)

    def changeEvent(self, event: QEvent) -> None:
        """Re-pick the error colour when the palette switches between light and dark."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.error_label.text():
            self._show_error(self.error_label.text())

    # internals

    def _commit_text(self) -> None:
        popup = self._completer.popup()
        # QLineEdit sees Enter before the completer does: with a highlighted row, the completer's
        # ``activated`` follows and adds that row, so adding the typed prefix here would add twice.
        if popup.isVisible() and popup.currentIndex().isValid():
            return
        popup.hide()
        self.add_tag(self.line_edit.text())

    def _show_error(self, message: str) -> None:
        self.error_label.setText(message)
        # A state colour, chosen per palette so it reads on light and dark windows.
        dark = self.palette().color(QPalette.ColorRole.Window).lightnessF() < 0.5
        self.error_label.setStyleSheet(f"color: {'#ff7b72' if dark else '#c62828'};")
        self.error_label.setVisible(bool(message))

    def _update_completions(self) -> None:
        shown = set(self._tags)
        self._completion_model.setStringList([t for t in self._completions if t not in shown])

    def _rebuild(self) -> None:
        for chip in self._chips:
            self._flow.removeWidget(chip)
            chip.hide()
            chip.deleteLater()
        self._chips = []
        for tag in self._tags:
            chip = TagChip(tag, tag_color(tag, self._colors), removable=not self._read_only)
            chip.clicked.connect(self.tag_clicked)
            chip.remove_requested.connect(self.remove_tag)
            self._flow.addWidget(chip)
            self._chips.append(chip)
        self._chips_box.setVisible(bool(self._tags))
        self._empty_label.setVisible(not self._tags)
        self._update_completions()
        self._chips_box.updateGeometry()


# --- chips in a table cell ----------------------------------------------------------------------


SQUEEZED_AT_LEAST = "#abc…"
"""The narrowest text a squeezed chip in a table cell may show (shorter, and the cell shows just ``+N``)."""


class TagChipsDelegate(QStyledItemDelegate):
    """Paints a cell's ``list[str]`` of tags as small chips, ending with ``+N`` when they do not fit.

    Args:
        role: the model role holding the tags (default :data:`TAGS_ROLE`).
        colors: configured colours ``{tag: "#rrggbb"}`` or a ``tag -> QColor`` function.
    """

    _GAP = 3
    _MARGIN = 3

    def __init__(self, parent: QWidget | None = None, *, role: int = TAGS_ROLE,
                 colors: ColorSource | None = None) -> None:
        super().__init__(parent)
        self._role = role
        self._colors: ColorSource = colors if colors is not None else {}

    def set_colors(self, colors: ColorSource) -> None:
        """Replace the colours (a mapping or a function); the caller repaints its view."""
        self._colors = colors

    @staticmethod
    def _chip_font(option: QStyleOptionViewItem) -> QFont:
        font = QFont(option.font)
        font.setPointSizeF(max(font.pointSizeF() * 0.88, 6.0))
        return font

    def _tags(self, index: QModelIndex | QPersistentModelIndex) -> list[str]:
        value = index.data(self._role)
        return [str(t) for t in value] if isinstance(value, list | tuple) else []

    def layout_chips(self, option: QStyleOptionViewItem, tags: list[str]) -> tuple[list[tuple[str, QRectF]], int]:
        """Where each shown chip goes in ``option.rect`` and how many tags are left for ``+N``.

        The first chip is squeezed (elided) rather than dropped, so a narrow cell still shows one tag, as
        long as a few of its letters fit: a chip reading "#…s" says nothing, so then only ``+N`` shows.
        """
        metrics = QFontMetrics(self._chip_font(option))
        rect = QRectF(option.rect).adjusted(self._MARGIN, 0, -self._MARGIN, 0)
        height = min(metrics.height() + 2 * _V_PAD, rect.height() - 2)
        top = rect.center().y() - height / 2
        placed: list[tuple[str, QRectF]] = []
        x = rect.left()
        for i, tag in enumerate(tags):
            rest = len(tags) - i - 1
            reserve = metrics.horizontalAdvance(f"+{rest}") + self._GAP if rest else 0
            width = chip_size(metrics, tag).width()
            room = rect.right() - x - reserve
            if width > room:
                if i == 0 and room > 2 * _H_PAD + metrics.horizontalAdvance(SQUEEZED_AT_LEAST):
                    placed.append((tag, QRectF(x, top, room, height)))
                    return placed, rest
                return placed, len(tags) - i
            placed.append((tag, QRectF(x, top, width, height)))
            x += width + self._GAP
        return placed, 0

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        """Draw the usual cell background (selection, hover) and then the chips."""
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget is not None else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        tags = self._tags(index)
        if not tags:
            return
        placed, hidden = self.layout_chips(option, tags)
        painter.save()
        painter.setFont(self._chip_font(option))
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        outline = option.palette.color(QPalette.ColorRole.HighlightedText) if selected else None
        for tag, rect in placed:
            # A squeezed cell chip keeps the tag's start: "#auto:n…" reads, "#a…_1" does not.
            paint_chip(painter, rect, tag, _color_of(tag, self._colors), outline=outline,
                       elide=Qt.TextElideMode.ElideRight)
        if hidden:
            role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
            painter.setPen(option.palette.color(role))
            x = placed[-1][1].right() + self._GAP if placed else option.rect.left() + self._MARGIN
            text_rect = QRectF(x, option.rect.top(), option.rect.right() - x, option.rect.height())
            painter.drawText(text_rect, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, f"+{hidden}")
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem,
                 index: QModelIndex | QPersistentModelIndex) -> QSize:
        """Wide enough for every chip in one row (capped), as tall as a chip with a little air."""
        metrics = QFontMetrics(self._chip_font(option))
        tags = self._tags(index)
        width = sum(chip_size(metrics, t).width() + self._GAP for t in tags) + 2 * self._MARGIN
        height = max(metrics.height() + 2 * _V_PAD + 6, QFontMetrics(option.font).height() + 4)
        return QSize(min(width, 400), height)

    def helpEvent(self, event: QHelpEvent, view: QAbstractItemView, option: QStyleOptionViewItem,
                  index: QModelIndex | QPersistentModelIndex) -> bool:
        """Tooltip listing every tag of the cell (the ``+N`` ones included) unless the model has one."""
        tags = self._tags(index)
        if tags and event is not None and view is not None and not index.data(Qt.ItemDataRole.ToolTipRole):
            QToolTip.showText(event.globalPos(), "  ".join(chip_label(t) for t in tags), view)
            return True
        return super().helpEvent(event, view, option, index)
