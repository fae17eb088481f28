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

    Their names come with every snapshot (read with the documents, so the menu names what the list shows
    done) and from an undo's own answer. Ctrl+Z pressed again before the answer comes is queued behind the
    first one (the write lane is serial), as in any editor, rather than silently ignored; a Redo pressed
    then redoes what the pending undo takes back.
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
        self.pending = 0
        """Undos and redos asked for whose answer has not come yet."""
        self._history: tuple[list[UndoStep], list[UndoStep]] = ([], [])
        for action, redo in ((self.undo_action, False), (self.redo_action, True)):
            action.setProperty(SHEET_NAME, action.text())  # the text becomes "Undo Trash “…”"
            action.setEnabled(False)
            action.triggered.connect(lambda _checked=False, r=redo: self.trigger(redo=r))
            window.addAction(action)
        workbench.snapshot_ready.connect(lambda snapshot: self.show_history(snapshot.undo_history))

    def trigger(self, *, redo: bool = False) -> None:
        """Undo (or redo) now, behind any undo still pending; the names move at once to what comes next
        as far as known (the undone step becomes the next Redo), and are confirmed by the answer."""
        undoable, redoable = (list(steps) for steps in self._history)
        taken, other = (redoable, undoable) if redo else (undoable, redoable)
        label = taken[0].label if taken else ""
        if taken:
            other.insert(0, taken.pop(0))
        self._history = (undoable, redoable)
        self._name(undoable, redoable)
        self.pending += 1
        self.workbench.undo(redo=redo, label=label, on_done=lambda step: self._answered(step, redo=redo),
                            on_error=lambda _error: self._answered(None, redo=redo))

    def show_history(self, history: tuple[list[UndoStep], list[UndoStep]]) -> None:
        """Name and enable the actions: ``Undo Move 3 documents`` / ``Redo …``, or plain and disabled. While
        an undo is pending, the history read before its answer is out of date: its answer names them."""
        if not self.pending:
            self._history = (list(history[0]), list(history[1]))
            self._name(*self._history)

    def _answered(self, step: UndoStep | None, *, redo: bool) -> None:
        """``step``: what was taken back (or done again); None when it failed (the next snapshot names them)."""
        self.pending = max(self.pending - 1, 0)
        if self.pending or step is None:
            return
        undoable, redoable = (list(steps) for steps in self._history)
        taken, other = (redoable, undoable) if redo else (undoable, redoable)
        if taken and taken[0].group == step.group:
            taken.pop(0)
        if not other or other[0].group != step.group:
            other.insert(0, step)
        self._history = (undoable, redoable)
        self._name(undoable, redoable)

    def _name(self, undoable: list[UndoStep], redoable: list[UndoStep]) -> None:
        for action, verb, steps in ((self.undo_action, "Undo", undoable), (self.redo_action, "Redo", redoable)):
            action.setText(f"{verb} {steps[0].label}" if steps else verb)
            action.setEnabled(bool(steps))
