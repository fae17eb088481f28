"""A tree view that says why a drop is refused where the cursor is (the folder tree, the Topics window's tree).

Qt only shows a forbidden cursor over a node that refuses a drop; a person dragging documents onto a sibling
scope, or a topic under its own child, needs the reason. The view asks :meth:`DropRefusingTreeView.drop_refusal_at`
(each view its model's rule), shows the reason once in a tooltip while the cursor stays over a refusing node,
and emits :attr:`DropRefusingTreeView.move_refused` with it (the window puts it in the status bar).
"""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QModelIndex, QPoint, Signal
from PySide6.QtGui import QDragLeaveEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QToolTip, QTreeView, QWidget

from .dnd import drag_move_refusal


class DropRefusingTreeView(QTreeView):
    """A :class:`QTreeView` whose refused drops are explained (see the module's note).

    Signals:
        move_refused(str): what is dragged cannot go where the cursor is; the text says why.
    """

    move_refused = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._refusal: str | None = None

    def drop_refusal_at(self, mime: QMimeData, index: QModelIndex) -> str | None:
        """Why ``mime`` may not be dropped on ``index`` (the view's own index, under the cursor), or None when it
        may; a subclass asks its model (the base refuses nothing)."""
        return None

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        refusal = drag_move_refusal(self, event, super().dragMoveEvent, self.drop_refusal_at)
        self._show_refusal(refusal, event.position().toPoint())

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self._show_refusal(None)
        self.setDropIndicatorShown(True)
        super().dragLeaveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        self._show_refusal(None)
        self.setDropIndicatorShown(True)
        super().dropEvent(event)

    def _show_refusal(self, refusal: str | None, pos: QPoint | None = None) -> None:
        """Say once, while the cursor stays over a refusing node, why the drop cannot happen there."""
        if refusal == self._refusal:
            return
        self._refusal = refusal
        if refusal is None:
            QToolTip.hideText()
            return
        QToolTip.showText(self.viewport().mapToGlobal(pos or QPoint()), refusal, self)
        self.move_refused.emit(refusal)
