"""The topic map (issue 14): a picture of a scope's topic tree, because people would rather look than read here.

A squarified treemap (:mod:`.treemap_layout`) of the topic in focus: its subtopics as tiles whose areas follow
their atom counts, each showing its own subtopics inside (two levels), labels and counts where they fit, the
atoms attached to a topic itself as a plain tile of their own. A click selects the topic under the cursor and
drills into the outer tile when it has subtopics; the breadcrumb above goes back up (so do Backspace, a right
click and the mouse's back button). Atoms dragged from the window's list drop on a tile as on the tree's row.
Hovering says the topic's path, counts and surface words. The widget holds
the services' immutable :class:`~..core.topics.TopicTree` and never reads anything itself.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from PySide6.QtCore import QEvent, QMimeData, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QFont,
    QFontMetrics,
    QHelpEvent,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
)
from PySide6.QtWidgets import QApplication, QHBoxLayout, QLabel, QToolButton, QToolTip, QVBoxLayout, QWidget

from ..core.topics import Topic, TopicTree
from . import themes
from .dnd import ATOM_MIME
from .topic_model import topic_tooltip
from .treemap_layout import Rect, Tile, nested_tiles, tile_at

OWN = "#own"
"""Suffix of the tile key standing for the atoms attached to a topic itself (beside its subtopics' tiles)."""
LEVELS = 2
"""Levels drawn at once: the focus's subtopics and theirs. A third level left most tiles of the demo tree too small
for a label at the window's size (1180 × 680); drilling down shows it."""
GOLDEN_ANGLE = 137.508
"""Degrees between the hues of neighbouring branches: successive multiples never repeat a hue closely."""


class TopicMap(QWidget):
    """Paints the tree's topic in focus as a treemap.

    Signals:
        focus_changed(str): the topic in focus (the one whose subtopics fill the map) changed: its id.
        topic_selected(str): a tile was clicked: the topic under the cursor (the window lists its atoms).
        drop_requested(QMimeData, str): something was dropped on a topic's tile (atoms dragged from the list): what,
            and the topic; the window checks it as a drop on the tree would be.

    Attributes:
        drop_refusal: set by the window: why dragged data cannot go to a topic (None: it can); None refuses all.
    """

    focus_changed = Signal(str)
    topic_selected = Signal(str)
    drop_requested = Signal(QMimeData, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setAcceptDrops(True)
        self.drop_refusal: Callable[[QMimeData, str], str | None] | None = None
        self.setMinimumSize(240, 180)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.tree: TopicTree | None = None
        self.scope_name = ""
        self.focus_id: str | None = None
        self.selected_id: str | None = None
        self._by_id: dict[str, Topic] = {}
        self._tiles: list[Tile] = []
        self._laid_out: tuple | None = None

    # -- feeding and moving --------------------------------------------------------------------------
    def set_tree(self, tree: TopicTree | None, scope_name: str = "") -> None:
        """Show ``tree`` (None: nothing), keeping the topic in focus when it is still there (else the root)."""
        self.tree, self.scope_name = tree, scope_name
        self._by_id = {t.id: t for t in tree.topics} if tree is not None else {}
        focus = self.focus_id if self.focus_id in self._by_id else (tree.root_id if tree is not None else None)
        self._laid_out = None
        self._set_focus(focus, force=True)

    def drill(self, topic_id: str) -> None:
        """Put ``topic_id`` in focus: its subtopics fill the map (a topic without any: nothing changes)."""
        topic = self._by_id.get(topic_id)
        if topic is not None and topic.children:
            self._set_focus(topic_id)

    def up(self) -> None:
        """Put the focus's parent in focus (nothing at the root)."""
        topic = self._by_id.get(self.focus_id or "")
        if topic is not None and topic.parent_id in self._by_id:
            self._set_focus(topic.parent_id)

    def trail(self) -> list[Topic]:
        """The topics from the root down to the focus (the breadcrumb)."""
        found: list[Topic] = []
        topic = self._by_id.get(self.focus_id or "")
        while topic is not None and topic not in found:
            found.append(topic)
            topic = self._by_id.get(topic.parent_id or "")
        return found[::-1]

    def tiles(self) -> list[Tile]:
        """The tiles drawn now (laid out for the widget's current size), parents first."""
        self._layout()
        return list(self._tiles)

    def topic_of(self, tile: Tile) -> Topic | None:
        """The topic a tile stands for (its own atoms' tile: the topic itself)."""
        return self._by_id.get(tile.key.removesuffix(OWN))

    def select(self, topic_id: str | None) -> None:
        """Outline ``topic_id``'s tile (the topic the window lists), without moving the focus."""
        if topic_id != self.selected_id:
            self.selected_id = topic_id
            self.update()

    def _set_focus(self, topic_id: str | None, *, force: bool = False) -> None:
        if topic_id == self.focus_id and not force:
            return
        self.focus_id = topic_id
        self._laid_out = None
        self.update()
        self.focus_changed.emit(topic_id or "")

    # -- layout --------------------------------------------------------------------------------------
    def _layout(self) -> None:
        key = (self.focus_id, self.width(), self.height())
        if key == self._laid_out:
            return
        self._laid_out = key
        children: dict[str, list[str]] = {}
        weights: dict[str, float] = {}
        for topic in self._by_id.values():
            weights[topic.id] = topic.atoms
            kids = [c for c in topic.children if c in self._by_id]
            if kids and topic.own_atoms:  # atoms on an inner topic: a tile beside its subtopics
                kids.append(topic.id + OWN)
                weights[topic.id + OWN] = topic.own_atoms
            children[topic.id] = kids
        bounds = Rect(2.0, 2.0, self.width() - 4.0, self.height() - 4.0)
        self._tiles = nested_tiles(self.focus_id, children, weights, bounds, levels=LEVELS) \
            if self.focus_id is not None and bounds.w > 0 and bounds.h > 0 else []

    # -- painting ------------------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        self._layout()
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        dark = themes.is_dark(QApplication.instance())
        if not self._tiles:
            painter.setPen(self.palette().placeholderText().color())
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                             "No atoms under this topic yet" if self.tree is not None else "No topic tree")
            painter.end()
            return
        hues: dict[str, float] = {}  # tile key → hue: each outer tile its own, the tiles inside it the same
        branches = 0
        for tile in self._tiles:
            if tile.depth == 1:
                hues[tile.key] = (branches * GOLDEN_ANGLE) % 360
                branches += 1
            else:
                topic = self.topic_of(tile)
                parent = tile.key.removesuffix(OWN) if tile.key.endswith(OWN) else topic.parent_id if topic else None
                hues[tile.key] = hues.get(parent or "", 0.0)
            self._paint_tile(painter, tile, hues[tile.key], dark)
        painter.end()

    def _paint_tile(self, painter: QPainter, tile: Tile, hue: float, dark: bool) -> None:
        own = tile.key.endswith(OWN)
        lightness = (0.30 if tile.depth == 1 else 0.22) if dark else (0.80 if tile.depth == 1 else 0.90)
        fill = QColor.fromHslF(hue / 360, 0.05 if own else 0.30 if dark else 0.45, lightness)
        rect = QRectF(tile.rect.x, tile.rect.y, tile.rect.w, tile.rect.h).adjusted(0.5, 0.5, -0.5, -0.5)
        selected = tile.key == self.selected_id
        painter.setPen(QPen(self.palette().highlight().color(), 2.5) if selected
                       else QPen(self.palette().window().color(), 1))
        painter.setBrush(fill)
        painter.drawRoundedRect(rect, 3, 3)
        topic = self.topic_of(tile)
        if topic is None:
            return
        font = QFont(self.font())
        font.setBold(tile.depth == 1)
        if tile.depth > 1:
            font.setPointSizeF(font.pointSizeF() * 0.9)
        metrics = QFontMetrics(font)
        if rect.width() < 28 or rect.height() < metrics.height() + 2:
            return  # too small for a word: the tooltip tells
        text = QColor("#f2f2f2") if dark else QColor("#1d1d1d")
        label = f"in {topic.label} itself" if own else topic.label
        count = topic.own_atoms if own else topic.atoms
        area = rect.adjusted(5, 2, -5, -2)
        painter.save()
        painter.setClipRect(rect)
        painter.setFont(font)
        painter.setPen(text)
        if tile.inner is not None:  # the label and count in the band above the subtopics
            area.setHeight(tile.inner.y - tile.rect.y - 2)
            line = metrics.elidedText(f"{label}  {count}", Qt.TextElideMode.ElideRight, int(area.width()))
            painter.drawText(area, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, line)
            painter.restore()
            return
        # A leaf: the label wrapped on as many lines as fit, then the count, then the words not in the label.
        wrap = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop | Qt.TextFlag.TextWordWrap
        lines = max(int(area.height() // metrics.lineSpacing()) - 1, 1)
        wanted = metrics.boundingRect(area.toRect(), wrap, label).height()
        # Wrapped only where every word fits the width (else Qt breaks inside words), on the lines there are.
        widest = max((metrics.horizontalAdvance(w) for w in label.split()), default=0)
        if widest <= area.width() and wanted <= lines * metrics.lineSpacing():
            painter.drawText(area, wrap, label)
            used = wanted
        else:
            painter.drawText(area, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop,
                             metrics.elidedText(label, Qt.TextElideMode.ElideRight, int(area.width())))
            used = metrics.lineSpacing()
        small = QFont(self.font())
        small.setPointSizeF(small.pointSizeF() * 0.9)
        painter.setFont(small)
        rest = area.adjusted(0, used, 0, 0)
        spacing = QFontMetrics(small).lineSpacing()
        if rest.height() < spacing:  # no whole line left for the count: the tooltip tells
            painter.restore()
            return
        painter.drawText(rest, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, QFontMetrics(small).elidedText(
            f"{count} atom{'s' if count != 1 else ''}", Qt.TextElideMode.ElideRight, int(rest.width())))
        named = set(label.casefold().replace(",", " ").split())
        words = [w for w in topic.keywords[:8] if w.casefold() not in named]
        below = rest.adjusted(0, spacing + 2, 0, 0)
        below.setHeight(below.height() // spacing * spacing)  # whole lines only: no word cut in half at the edge
        if not own and words and below.height() > 0:
            painter.setClipRect(below, Qt.ClipOperation.IntersectClip)
            painter.setPen(self.palette().placeholderText().color() if dark else QColor("#4d4d4d"))
            painter.drawText(below, wrap, ", ".join(words))
        painter.restore()

    # -- input ---------------------------------------------------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() in (Qt.MouseButton.RightButton, Qt.MouseButton.BackButton):
            self.up()
            return
        if event.button() != Qt.MouseButton.LeftButton:
            return
        self.click(event.position())

    def click(self, point: QPointF) -> None:
        """What a left click at ``point`` does: select the topic under it, drill into the outer tile's topic."""
        self._layout()
        under = tile_at(self._tiles, point.x(), point.y())
        if not under:
            return
        chosen = self.topic_of(under[-1])
        outer = self.topic_of(under[0])
        if chosen is not None:
            self.select(chosen.id)
            self.topic_selected.emit(chosen.id)
        if outer is not None and not under[0].key.endswith(OWN):
            self.drill(outer.id)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Backspace:  # not Escape: in a window, Escape closes it
            self.up()
            return
        super().keyPressEvent(event)

    # -- drops (atoms dragged from the window's list onto a tile) -------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasFormat(ATOM_MIME):
            event.acceptProposedAction()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        topic = self.droppable_at(event.mimeData(), event.position())
        if topic is None:
            event.ignore()
            return
        event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        topic = self.droppable_at(event.mimeData(), event.position())
        if topic is None:
            event.ignore()
            return
        event.acceptProposedAction()
        self.drop_requested.emit(event.mimeData(), topic)

    def droppable_at(self, data: QMimeData, point: QPointF) -> str | None:
        """The topic whose tile is under ``point`` when ``data`` may be dropped there (a topic's own atoms' tile:
        the topic itself), else None."""
        self._layout()
        under = tile_at(self._tiles, point.x(), point.y())
        topic = self.topic_of(under[-1]) if under else None
        if topic is None or self.drop_refusal is None or self.drop_refusal(data, topic.id) is not None:
            return None
        return topic.id

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            self._layout()
            under = tile_at(self._tiles, event.pos().x(), event.pos().y())
            topic = self.topic_of(under[-1]) if under else None
            if topic is None:
                QToolTip.hideText()
            elif under[-1].key.endswith(OWN):
                QToolTip.showText(event.globalPos(), f"{topic.own_atoms} atom{'s' if topic.own_atoms != 1 else ''} "
                                  f"in {topic.label} itself, not in a subtopic", self)
            else:
                QToolTip.showText(event.globalPos(), topic_tooltip(topic, self.scope_name), self)
            return True
        return super().event(event)


class TopicMapPane(QWidget):
    """The map with its breadcrumb and an Up button above it.

    Attributes:
        map: the :class:`TopicMap`; ``crumbs`` the breadcrumb label (its links put a topic in focus).
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.map = TopicMap(self)
        self.up_button = QToolButton(self)
        self.up_button.setText("Up")
        self.up_button.setToolTip("Back to the parent topic (Backspace, right click)")
        self.up_button.clicked.connect(self.map.up)
        self.crumbs = QLabel(self)
        self.crumbs.setTextFormat(Qt.TextFormat.RichText)
        self.crumbs.linkActivated.connect(self.map.drill)
        self.map.focus_changed.connect(lambda _id: self._show_trail())
        bar = QHBoxLayout()
        bar.addWidget(self.up_button)
        bar.addWidget(self.crumbs, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.map, 1)
        self._show_trail()

    def _show_trail(self) -> None:
        trail = self.map.trail()
        self.up_button.setEnabled(len(trail) > 1)
        parts = []
        for n, topic in enumerate(trail):
            name = escape(self.map.scope_name if topic.is_root else topic.label)
            last = n == len(trail) - 1
            parts.append(f"<b>{name}</b> ({topic.atoms})" if last else f'<a href="{topic.id}">{name}</a>')
        self.crumbs.setText(" › ".join(parts))
