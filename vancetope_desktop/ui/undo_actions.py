"""The Edit menu's Undo and Redo (Ctrl+Z, Ctrl+Shift+Z): named after what they would take back.

The history is the library's (``services.undo``, read through the :class:`Workbench`): it is reloaded
after every snapshot, so it follows actions done in this window, in the CLI, and before a restart. A
text field with the focus keeps Ctrl+Z for its own typing (Qt gives a focused editor the shortcut first).
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

from ..core.undo import UndoStep
from .help_dialogs import SHEET_NAME
from .workbench import Workbench


class UndoActions(QObject):
    """The Undo and Redo actions of a window, enabled when there is something to take back or do again.

    While an undo or redo runs both are disabled, so that a second Ctrl+Z waits for the first one's
    answer instead of undoing the action behind it.
    """

    def __init__(self, workbench: Workbench, window: QWidget) -> None:
        super().__init__(window)
        self.workbench = workbench
        self.undo_action = QAction("Undo", window)
        self.undo_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Undo))
        self.redo_action = QAction("Redo", window)
        # Qt's standard Redo is Ctrl+Y on some platforms; Ctrl+Shift+Z is what the issue and most apps use.
        standard = QKeySequence.keyBindings(QKeySequence.StandardKey.Redo)
        ctrl_shift_z = QKeySequence("Ctrl+Shift+Z")
        self.redo_action.setShortcuts([ctrl_shift_z, *(k for k in standard if k != ctrl_shift_z)])
        for action, redo in ((self.undo_action, False), (self.redo_action, True)):
            action.setProperty(SHEET_NAME, action.text())  # the text becomes "Undo Trash “…”"
            action.setEnabled(False)
            action.triggered.connect(lambda _checked=False, r=redo: self.trigger(redo=r))
            window.addAction(action)
        workbench.snapshot_ready.connect(lambda _snapshot: self.reload())
        self.reload()

    def trigger(self, *, redo: bool = False) -> None:
        """Undo (or redo) now; the actions come back with the next snapshot."""
        self.undo_action.setEnabled(False)
        self.redo_action.setEnabled(False)
        self.workbench.undo(redo=redo)

    def reload(self) -> None:
        """Read the library's undo history again (read lane) and name the actions after it."""
        self.workbench.load_undo_history(self.show_history)

    def show_history(self, history: tuple[list[UndoStep], list[UndoStep]]) -> None:
        """Name and enable the actions: ``Undo Move 3 documents`` / ``Redo …``, or plain and disabled."""
        for action, verb, steps in ((self.undo_action, "Undo", history[0]), (self.redo_action, "Redo", history[1])):
            action.setText(f"{verb} {steps[0].label}" if steps else verb)
            action.setEnabled(bool(steps))
