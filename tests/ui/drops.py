"""Simulated drag-and-drop for view tests: what the platform sends during a real drop."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragLeaveEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QWidget


def drag_and_drop(target: QWidget, mime, point: QPointF) -> tuple[bool, bool]:
    """Enter, move over ``point``, then drop if the move was accepted (``target`` receives the events:
    pass a view's viewport). Returns (whether the move was accepted, whether the drop was)."""
    actions = Qt.DropAction.CopyAction | Qt.DropAction.MoveAction
    buttons, modifiers = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    QApplication.sendEvent(target, QDragEnterEvent(point.toPoint(), actions, mime, buttons, modifiers))
    move = QDragMoveEvent(point.toPoint(), actions, mime, buttons, modifiers)
    QApplication.sendEvent(target, move)
    if not move.isAccepted():
        QApplication.sendEvent(target, QDragLeaveEvent())
        return False, False
    drop = QDropEvent(point, actions, mime, buttons, modifiers, QEvent.Type.Drop)
    QApplication.sendEvent(target, drop)
    return True, drop.isAccepted()
