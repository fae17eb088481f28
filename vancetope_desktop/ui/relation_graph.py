"""The relation picture (issue 12): a document's neighbourhood drawn as a graph. Nodes are documents, their
shape saying the document type and their colour the memory type; edges are typed relations, coloured by type,
labelled and pointing from source to target; archived and stale documents are drawn faded.

:func:`lay_out` turns a ``services.graph.Neighbourhood`` into a :class:`Picture` (positions from networkx,
no Qt: it runs on the read lane). :class:`GraphView` draws a picture and reports a click on a node as
``document_open_requested(doc_id)``; ``ui.relation_graph_pane`` adds the legend and the depth control, and
``ui.relation_graph_flow`` loads it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import networkx as nx
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QMouseEvent,
    QPainter,
    QPainterPath,
    QPen,
    QPolygonF,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsItem,
    QGraphicsPathItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
    QWidget,
)

from ..core.documents import DocumentStatus, DocumentType
from ..core.memories import MemoryType
from ..core.relations import RelationType
from ..services.graph import Edge, GraphNode, Neighbourhood

MAX_SHOWN = 60
"""The most documents a picture draws (the nearest, in the service's breadth-first order); the others are
counted in a "+N more" note. Each node carries a title of up to :data:`TITLE_CHARS` characters (~150 px):
beyond about 60 on a 1000 × 700 pane the labels overlap whatever the layout, and a picture of hundreds of
lines says nothing (drawing 60 nodes and 180 edges takes about 0.2 s on the interface thread)."""
LABELLED_EDGES = 60
"""Beyond this many lines their labels are left off (they would cover the picture): the colour says the
type (see the legend) and hovering a line names it."""
TITLE_CHARS = 32
KAMADA_KAWAI_NODES = 25
"""Up to this many documents the spring layout is refined with Kamada-Kawai (chains stay straight, nodes evenly
spaced). Its cost grows with the square of the nodes: measured on this 2-core machine under load, 0.55 s for
20 nodes and 1.9 s for 60 against 0.1 s for the spring layout alone; the read lane must not stall that long."""
LAYOUT_SEED = 7
"""A fixed seed: the same neighbourhood is always drawn the same way."""
WIDER = 1.5
"""The layout is stretched this much sideways: titles are wide, and so are windows."""
RADIUS = 11.0
"""A node's marker radius in scene pixels (the centre's is 1.4 times larger)."""
MIN_FIT = 0.6
"""Fitting a large picture in view shrinks it no further than this (titles stay legible): the rest is reached
by dragging or the wheel."""
FADED = 0.35
"""The opacity of an archived or stale document: there, for the audit trail, but no longer current."""

SHAPES = {DocumentType.NOTE: "circle", DocumentType.FILE: "square", DocumentType.REFERENCE: "triangle",
          DocumentType.RESULT: "diamond", DocumentType.FACT: "hexagon", DocumentType.EVENT: "octagon",
          DocumentType.PLAN: "heptagon", DocumentType.STRUCTURED: "pentagon",
          DocumentType.ANNOTATION: "triangle_down", DocumentType.FOLDER: "square", DocumentType.TOPIC: "star"}
"""The marker of each document type."""
MEMORY_COLOURS = {MemoryType.FEEDBACK: "#e07a2f", MemoryType.PROJECT: "#3a78d4", MemoryType.REFERENCE: "#239187",
                  MemoryType.USER: "#8a63c9", MemoryType.EPISODE: "#cf3f5a", None: "#8f969e"}
"""A node's fill by memory type (None: a document that is not a memory). Chosen to stay apart for the
common colour-vision deficiencies and to read on both the light and the dark theme."""
EDGE_COLOURS = {RelationType.UPDATES: "#4f5fc0", RelationType.EXTENDS: "#1f9e8f", RelationType.SUPPORTS: "#3d9a3d",
                RelationType.CONTRADICTS: "#d8342f", RelationType.RELATES_TO: "#8a8a8a",
                RelationType.DERIVED_FROM: "#8d6748", RelationType.CITES: "#c98a00", RelationType.LINKS_TO: "#6f8796"}


@dataclass(frozen=True)
class PlacedNode:
    """A node of a :class:`Picture` and its position (scene pixels, the centre document at 0, 0)."""

    node: GraphNode
    x: float
    y: float
    superseded: bool = False


@dataclass(frozen=True)
class Picture:
    """What the pane draws: the shown documents placed, the edges among them, and how many were left out
    (``hidden``: beyond :data:`MAX_SHOWN`; ``more_beyond``: the service stopped at its own cap, so there are
    more still, uncounted)."""

    center: str
    depth: int
    nodes: tuple[PlacedNode, ...]
    edges: tuple[Edge, ...]
    hidden: int = 0
    more_beyond: bool = False

    def node(self, doc_id: str) -> PlacedNode | None:
        """The placed node of ``doc_id`` (None: not shown)."""
        return next((n for n in self.nodes if n.node.id == doc_id), None)


def lay_out(found: Neighbourhood, max_shown: int = MAX_SHOWN) -> Picture:
    """Place ``found``'s nearest ``max_shown`` documents (no Qt: call it on the read lane).

    A spring layout (networkx, seed :data:`LAYOUT_SEED`) over the shown documents, the edges as undirected
    springs, refined by Kamada-Kawai for small pictures (:data:`KAMADA_KAWAI_NODES`); positions are scaled
    so that nodes sit about 150 px apart whatever their number, and moved so the
    centre document is at 0, 0. A document is *superseded* when a shown document ``updates`` it.
    """
    shown = sorted(found.nodes, key=lambda n: n.depth)[:max_shown]  # stable: breadth-first order kept per depth
    ids = {n.id for n in shown}
    edges = tuple(e for e in found.edges if e.source_id in ids and e.target_id in ids)
    graph = nx.Graph()
    graph.add_nodes_from(n.id for n in shown)
    graph.add_edges_from((e.source_id, e.target_id) for e in edges)
    if len(shown) == 1:
        positions = {found.center: (0.0, 0.0)}
    else:
        positions = nx.spring_layout(graph, seed=LAYOUT_SEED)
        if len(shown) <= KAMADA_KAWAI_NODES:  # distances on the page then follow distances in the graph
            positions = nx.kamada_kawai_layout(graph, pos=positions)
    scale = 110 * math.sqrt(len(shown))
    cx, cy = positions[found.center]
    superseded = {e.target_id for e in edges if e.type is RelationType.UPDATES}
    placed = tuple(PlacedNode(n, float(positions[n.id][0] - cx) * scale * WIDER, float(positions[n.id][1] - cy) * scale,
                              n.id in superseded) for n in shown)
    return Picture(center=found.center, depth=found.depth, nodes=placed, edges=edges,
                   hidden=len(found.nodes) - len(shown), more_beyond=found.truncated)


def marker_path(doc_type: str, radius: float) -> QPainterPath:
    """The outline of a document type's marker (:data:`SHAPES`), centred on 0, 0."""
    shape = SHAPES.get(doc_type, "square")  # a StrEnum key matches its plain string
    path = QPainterPath()
    if shape == "circle":
        path.addEllipse(QPointF(0, 0), radius, radius)
        return path
    if shape == "square":
        side = radius * 0.9
        path.addRect(QRectF(-side, -side, 2 * side, 2 * side))
        return path
    corners, turn = {"triangle": (3, -90), "triangle_down": (3, 90), "diamond": (4, -90), "pentagon": (5, -90),
                     "hexagon": (6, 0), "heptagon": (7, -90), "octagon": (8, 22.5)}[shape]
    size = radius * (1.25 if corners == 3 else 1.1)
    points = [QPointF(size * math.cos(math.radians(turn + i * 360 / corners)),
                      size * math.sin(math.radians(turn + i * 360 / corners))) for i in range(corners)]
    path.addPolygon(QPolygonF([*points, points[0]]))
    return path


def _elided(title: str, limit: int = TITLE_CHARS) -> str:
    title = " ".join(title.split()) or "(untitled)"
    return title if len(title) <= limit else title[:limit - 1].rstrip() + "…"


class _Label(QGraphicsSimpleTextItem):
    """Text on a rounded patch of the view's background, so a line passing under it never crosses the words."""

    def __init__(self, text: str, parent: QGraphicsItem | None, background: QColor) -> None:
        super().__init__(text, parent)
        self.background = QColor(background)
        self.background.setAlpha(225)

    def boundingRect(self) -> QRectF:
        return super().boundingRect().adjusted(-3, 0, 3, 0)

    def paint(self, painter: QPainter, option: object, widget: QWidget | None = None) -> None:
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self.background)
        painter.drawRoundedRect(self.boundingRect(), 3, 3)
        super().paint(painter, option, widget)


def _status_word(placed: PlacedNode) -> str:
    if placed.node.status == DocumentStatus.ARCHIVED.value:
        return "superseded" if placed.superseded else "archived"
    return placed.node.status if placed.node.status != DocumentStatus.ACTIVE.value else ""


class GraphView(QGraphicsView):
    """The scene of a :class:`Picture`: fits it in view (never enlarging past 1:1), drags to pan, zooms with
    the wheel, and reports a click on a node.

    Signals:
        document_open_requested(str): a node was clicked (its document id).
    """

    document_open_requested = Signal(str)
    ID_ROLE = 0
    """``QGraphicsItem.data`` key holding a node item's document id."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))  # owned by the view: a parentless scene would be collected
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.node_items: dict[str, QGraphicsItem] = {}
        self.label_items: dict[str, QGraphicsSimpleTextItem] = {}
        self.edge_labels: list[QGraphicsSimpleTextItem] = []
        self.edge_items: list[QGraphicsPathItem] = []
        self._pressed: str | None = None
        self._pressed_at = QPointF()
        self._zoomed = False

    def set_picture(self, picture: Picture | None) -> None:
        """Draw ``picture`` (None: empty)."""
        scene = self.scene()
        scene.clear()
        self.node_items, self.label_items, self.edge_items, self.edge_labels = {}, {}, [], []
        self._zoomed = False
        if picture is None:
            return
        text = self.palette().text().color()
        places = {p.node.id: p for p in picture.nodes}
        pairs: dict[frozenset[str], list[Edge]] = {}
        for edge in picture.edges:  # one line per pair of documents, naming every relation between them
            pairs.setdefault(frozenset((edge.source_id, edge.target_id)), []).append(edge)
        labelled = len(pairs) <= LABELLED_EDGES
        for edges in pairs.values():
            self._add_edge(edges, places, text, labelled)
        for placed in picture.nodes:
            self._add_node(placed, placed.node.id == picture.center, text)
        scene.setSceneRect(scene.itemsBoundingRect().adjusted(-30, -30, 30, 30))
        self._fit()

    def _add_node(self, placed: PlacedNode, center: bool, text: QColor) -> None:
        node, radius = placed.node, RADIUS * (1.4 if center else 1.0)
        fill = QColor(MEMORY_COLOURS.get(node.memory_type, MEMORY_COLOURS[None]))
        item = QGraphicsPathItem(marker_path(node.type, radius))
        item.setBrush(QBrush(fill))
        item.setPen(QPen(text if center else fill.darker(150), 2.5 if center else 1.2))
        item.setPos(placed.x, placed.y)
        item.setZValue(2)
        item.setData(self.ID_ROLE, node.id)
        item.setCursor(Qt.CursorShape.PointingHandCursor)
        status = _status_word(placed)
        kind = f"{node.memory_type.value} memory" if node.memory_type else node.type
        item.setToolTip(f"{node.title}\n{kind} · {node.scope}" + (f" · {status}" if status else "")
                        + "\nClick to open")
        title = _elided(node.title, 2 * TITLE_CHARS if center else TITLE_CHARS)  # the centre's title has the room
        label = _Label(title + (f" ({status})" if status else ""), None, self.palette().base().color())
        font = QFont(self.font())
        font.setBold(center)
        label.setFont(font)
        label.setBrush(QBrush(text))
        label.setData(self.ID_ROLE, node.id)  # a click on the title opens the document too
        label.setZValue(3)
        if status in ("archived", "superseded", DocumentStatus.STALE.value):
            item.setOpacity(FADED)
            muted = QColor(text)
            muted.setAlphaF(0.65)  # the title stays readable, and still hides the lines under it
            label.setBrush(QBrush(muted))
        self.scene().addItem(item)
        self.scene().addItem(label)
        self.node_items[node.id], self.label_items[node.id] = item, label
        self._place_label(item, label, radius)

    def _place_label(self, marker: QGraphicsItem, label: QGraphicsItem, radius: float) -> None:
        """Put a title below its marker, or above it when that overlaps fewer titles, markers and line labels
        drawn before."""
        box = label.boundingRect()
        x, y = marker.pos().x() - box.width() / 2, marker.pos().y()
        taken = [i.sceneBoundingRect() for i in (*self.label_items.values(), *self.node_items.values(),
                                                 *self.edge_labels) if i is not label and i is not marker]

        def clashes(top: float) -> int:
            return sum(r.intersects(box.translated(x, top)) for r in taken)

        below, above = y + radius + 3, y - radius - 3 - box.height()
        label.setPos(x, above if clashes(above) < clashes(below) else below)

    def _add_edge(self, edges: list[Edge], places: dict[str, PlacedNode], text: QColor, labelled: bool) -> None:
        first = edges[0]
        a, b = places[first.source_id], places[first.target_id]
        start, end = QPointF(a.x, a.y), QPointF(b.x, b.y)
        length = math.hypot(end.x() - start.x(), end.y() - start.y()) or 1.0
        ux, uy = (end.x() - start.x()) / length, (end.y() - start.y()) / length
        gap = RADIUS * 1.6  # the line stops short of both markers, so an arrowhead is never hidden under one
        tail, head = start + QPointF(ux, uy) * gap, end - QPointF(ux, uy) * gap
        colour = QColor(EDGE_COLOURS[first.type])
        path = QPainterPath(tail)
        path.lineTo(head)
        for edge in edges:  # an arrowhead at each target: both ends when the pair relate both ways
            tip, sign = (head, 1) if edge.target_id == first.target_id else (tail, -1)
            back = QPointF(ux, uy) * (9 * sign)
            side = QPointF(-uy, ux) * 4.5
            path.addPolygon(QPolygonF([tip, tip - back + side, tip - back - side, tip]))
        item = QGraphicsPathItem(path)
        pen = QPen(colour, 1.6)
        if first.type is RelationType.RELATES_TO:
            pen.setStyle(Qt.PenStyle.DashLine)
        item.setPen(pen)
        item.setBrush(QBrush(colour))
        words = [f"{e.type.value.replace('_', ' ')}" for e in edges]
        item.setToolTip("\n".join(f"{places[e.source_id].node.title} — {e.type.value.replace('_', ' ')} → "
                                  f"{places[e.target_id].node.title}" for e in edges))
        if {a.node.status, b.node.status} != {DocumentStatus.ACTIVE.value}:  # to or from a faded document
            item.setOpacity(0.6)
        self.scene().addItem(item)
        self.edge_items.append(item)
        if labelled:
            label = _Label(", ".join(dict.fromkeys(words)), item, self.palette().base().color())
            font = QFont(self.font())
            font.setPointSizeF(max(6.0, font.pointSizeF() * 0.85))
            font.setItalic(True)
            label.setFont(font)
            label.setBrush(QBrush(colour.darker(115) if text.lightness() < 128 else colour.lighter(130)))
            middle = (tail + head) / 2
            box = label.boundingRect()
            label.setPos(middle.x() - box.width() / 2, middle.y() - box.height() / 2)
            label.setZValue(1)
            self.edge_labels.append(label)

    def _fit(self) -> None:
        if self._zoomed or self.scene().sceneRect().isEmpty():
            return
        self.resetTransform()
        rect, room = self.scene().sceneRect(), self.viewport().rect()
        factor = min(1.0, room.width() / max(rect.width(), 1), room.height() / max(rect.height(), 1))
        self.scale(max(factor, MIN_FIT), max(factor, MIN_FIT))
        self.centerOn(rect.center() if factor >= MIN_FIT else QPointF(0, 0))  # too big: the centre document

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def wheelEvent(self, event: QWheelEvent) -> None:
        factor = 1.15 if event.angleDelta().y() > 0 else 1 / 1.15
        self.scale(factor, factor)
        self._zoomed = True  # the user's zoom stays until the next picture

    def node_at(self, pos: QPointF) -> str | None:
        """The document id of the node under the viewport position ``pos`` (None: no node there)."""
        for item in self.items(pos.toPoint()):
            while item is not None:
                doc_id = item.data(self.ID_ROLE)
                if doc_id:
                    return doc_id
                item = item.parentItem()
        return None

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._pressed = self.node_at(event.position()) if event.button() == Qt.MouseButton.LeftButton else None
        self._pressed_at = event.position()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        pressed, self._pressed = self._pressed, None
        moved = (event.position() - self._pressed_at).manhattanLength() >= QApplication.startDragDistance()
        if pressed and event.button() == Qt.MouseButton.LeftButton and not moved:  # a drag pans, never opens
            self.document_open_requested.emit(pressed)
