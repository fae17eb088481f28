"""Building blocks of a main window that the window's helpers (Review dock, citations, notes flow) add
themselves: an action with a shortcut, a dock, and a menu found by its title.

They take the window as a plain ``QMainWindow``, so a helper the window builds never imports the window's
module (which imports the helper: a cycle the ``acyclic_siblings`` contract in ``pyproject.toml`` forbids).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow, QMenu, QWidget


def make_action(window: QWidget, text: str, slot: Callable[[], object], shortcut: QKeySequence | str | None = None,
                *, context: Qt.ShortcutContext = Qt.ShortcutContext.ApplicationShortcut) -> QAction:
    """A window action running ``slot`` on ``shortcut`` (in ``context``), added to ``window``.

    By default the shortcut works wherever the focus is (a filter box, a floating dock, a completer's
    popup, which is a window of its own): a window-wide context missed some of them."""
    action = QAction(text, window)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
        action.setShortcutContext(context)
    action.triggered.connect(lambda _checked=False: slot())
    window.addAction(action)
    return action


def add_dock(window: QMainWindow, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
    """A dock of ``window`` holding ``widget`` in ``area``; ``name`` keys its place in the saved layout."""
    dock = QDockWidget(title, window)
    dock.setObjectName(name)
    dock.setWidget(widget)
    window.addDockWidget(area, dock)
    return dock


def menu_named(window: QMainWindow, title: str) -> QMenu | None:
    """The menu bar's menu titled ``title`` (with its ``&`` mnemonic: ``"&Edit"``), None when there is none."""
    return next((a.menu() for a in window.menuBar().actions() if a.text() == title), None)


BOTTOM_DOCK_SHARE = 0.2
"""The most of the window's height a bottom dock (Tasks) gets when it opens: popped up by an import it took
a third of the window, and the saved layout kept that through every restart."""


def fit_bottom_dock(window: QMainWindow, dock: QDockWidget) -> None:
    """Shrink ``dock``, when it shows docked and taller than :data:`BOTTOM_DOCK_SHARE` of ``window``, to that."""
    limit = int(window.height() * BOTTOM_DOCK_SHARE)
    if not dock.isHidden() and not dock.isFloating() and dock.height() > limit:
        window.resizeDocks([dock], [limit], Qt.Orientation.Vertical)
