"""The relation picture's pane (issue 12): the drawn neighbourhood (``ui.relation_graph.GraphView``) with its
title, depth control, "+N more" note and a legend naming the shapes, fills and line colours it uses. It only
shows what it is given and reports the user's choices by signals; ``ui.relation_graph_flow`` loads it.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import QComboBox, QGridLayout, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from ..core.documents import DocumentStatus, DocumentType
from ..core.memories import MemoryType
from ..core.relations import RelationType
from .relation_graph import EDGE_COLOURS, FADED, MEMORY_COLOURS, GraphView, Picture, marker_path


class Legend(QWidget):
    """What the shapes, fills and line colours of the picture shown mean (only those it uses)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(6, 0, 0, 0)
        self.grid.setVerticalSpacing(3)
        self.entries: list[str] = []

    def set_picture(self, picture: Picture | None) -> None:
        """List the document types, memory types and relation types ``picture`` uses."""
        while self.grid.count():
            self.grid.takeAt(0).widget().deleteLater()
        self.entries = []
        if picture is None:
            return
        nodes = [p.node for p in picture.nodes]
        doc_types = [t for t in DocumentType if any(n.type == t.value for n in nodes)]
        memory_types = [t for t in (*MemoryType, None) if any(n.memory_type == t for n in nodes)]
        relations = [t for t in RelationType if any(e.type is t for e in picture.edges)]
        grey = QColor(MEMORY_COLOURS[None])
        self._section("Documents")
        for t in doc_types:
            self._row(self._marker_icon(t.value, grey), t.value)
        if any(t is not None for t in memory_types):
            self._section("Memory types")
            for m in memory_types:
                self._row(self._marker_icon("note", QColor(MEMORY_COLOURS[m])), m.value if m else "not a memory")
        if relations:
            self._section("Relations (→ target)")
            for r in relations:
                self._row(self._line_icon(QColor(EDGE_COLOURS[r])), r.value.replace("_", " "))
        if any(n.status != DocumentStatus.ACTIVE.value for n in nodes):
            icon = self._marker_icon("note", grey)
            self._row(self._faded(icon), "archived / stale")

    def _section(self, title: str) -> None:
        label = QLabel(f"<b>{title}</b>")
        label.setContentsMargins(0, 6, 0, 0)
        self.grid.addWidget(label, self.grid.rowCount(), 0, 1, 2)

    def _row(self, icon: QPixmap, text: str) -> None:
        row = self.grid.rowCount()
        mark = QLabel()
        mark.setPixmap(icon)
        self.grid.addWidget(mark, row, 0)
        self.grid.addWidget(QLabel(text), row, 1)
        self.entries.append(text)

    def _canvas(self) -> tuple[QPixmap, QPainter]:
        ratio = self.devicePixelRatioF()
        pixmap = QPixmap(int(28 * ratio), int(18 * ratio))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        return pixmap, painter

    def _marker_icon(self, doc_type: str, fill: QColor) -> QPixmap:
        pixmap, painter = self._canvas()
        painter.translate(14, 9)
        painter.setBrush(fill)
        painter.setPen(QPen(fill.darker(150), 1))
        painter.drawPath(marker_path(doc_type, 6.5))
        painter.end()
        return pixmap

    def _line_icon(self, colour: QColor) -> QPixmap:
        pixmap, painter = self._canvas()
        painter.setPen(QPen(colour, 2))
        painter.setBrush(colour)
        painter.drawLine(QPointF(2, 9), QPointF(20, 9))
        painter.drawPolygon(QPolygonF([QPointF(26, 9), QPointF(19, 5.5), QPointF(19, 12.5)]))
        painter.end()
        return pixmap

    def _faded(self, icon: QPixmap) -> QPixmap:
        pixmap, painter = self._canvas()
        painter.setOpacity(FADED)
        painter.drawPixmap(0, 0, icon)
        painter.end()
        return pixmap


class RelationGraphPane(QWidget):
    """A picture with its title, depth control, "+N more" note and legend.

    Signals:
        depth_changed(int): the user chose another depth (1 or 2).
        document_open_requested(str): a node was clicked (its document id).
    """

    depth_changed = Signal(int)
    document_open_requested = Signal(str)
    DEPTHS = (1, 2)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.depth = QComboBox()
        for depth in self.DEPTHS:
            self.depth.addItem(f"{depth} step{'s' if depth > 1 else ''} away", depth)
        self.depth.setToolTip("How far from the document to follow relations")
        self.depth.currentIndexChanged.connect(lambda _i: self.depth_changed.emit(self.depth.currentData()))
        self.note = QLabel()
        self.view = GraphView()
        self.view.document_open_requested.connect(self.document_open_requested)
        self.legend = Legend()
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.note)
        top.addWidget(QLabel("Show:"))
        top.addWidget(self.depth)
        body = QHBoxLayout()
        body.addWidget(self.view, 1)
        body.addWidget(self.legend, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(body, 1)
        self.picture: Picture | None = None

    def current_depth(self) -> int:
        """The depth chosen (1 or 2)."""
        return self.depth.currentData()

    def set_depth(self, depth: int) -> None:
        """Choose ``depth`` without announcing it (the caller loads it)."""
        self.depth.blockSignals(True)
        self.depth.setCurrentIndex(self.DEPTHS.index(depth))
        self.depth.blockSignals(False)

    def set_picture(self, picture: Picture | None, title: str = "") -> None:
        """Show ``picture`` of the document titled ``title`` (None: clear, e.g. while loading)."""
        self.picture = picture
        self.title.setText(f"Relations of “{title}”" if title else "")
        self.view.set_picture(picture)
        self.legend.set_picture(picture)
        alone = picture is not None and len(picture.nodes) == 1
        if picture is None or not (picture.hidden or picture.more_beyond or alone):
            self.note.setText("")
        elif alone:
            self.note.setText("No relations the current scope may see.")
        else:
            more = f"+{picture.hidden}{'+' if picture.more_beyond else ''} more"
            self.note.setText(f"{more} not shown (the {len(picture.nodes)} nearest are)")
