"""Help ▸ Keyboard Shortcuts (a sheet read from the window's own actions, so it never goes stale) and
Help ▸ User Guide (``resources/help/user-guide.md`` in the app's Markdown viewer)."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMainWindow,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..resources import resource_path
from .viewer.markdown_viewer import MarkdownViewer

GUIDE = ("help", "user-guide.md")


def action_label(action: QAction) -> str:
    """An action's text as a sheet shows it: ``"&Import folder…"`` → ``"Import folder"``."""
    return action.text().replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip("….").strip()


def menu_actions(actions: Iterable[QAction]) -> list[QAction]:
    """``actions`` and, depth first, the actions of their sub-menus."""
    found: list[QAction] = []
    for action in actions:
        found.append(action)
        menu = action.menu()
        if isinstance(menu, QMenu):
            found.extend(menu_actions(menu.actions()))
    return found


def shortcut_rows(sections: Iterable[tuple[str, Iterable[tuple[str, QKeySequence]]]]) -> list[tuple[str, str, str]]:
    """``(section, what, keys)`` rows: one per distinct binding, in the order given, keys as the platform
    writes them (``Ctrl+Shift+O``; ``⇧⌘O`` on macOS)."""
    rows: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()
    for section, bindings in sections:
        for label, keys in bindings:
            text = keys.toString(QKeySequence.SequenceFormat.NativeText)
            if text and (label, text) not in seen:
                seen.add((label, text))
                rows.append((section, label, text))
    return rows


def window_bindings(actions: Iterable[QAction]) -> list[tuple[str, QKeySequence]]:
    """Every shortcut of ``actions`` (all of an action's alternatives), labelled by :func:`action_label`."""
    return [(action_label(a), keys) for a in actions for keys in a.shortcuts() if not keys.isEmpty()]


class ShortcutSheet(QDialog):
    """A table of ``rows`` from :func:`shortcut_rows`: where, what, keys."""

    def __init__(self, rows: list[tuple[str, str, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard Shortcuts")
        self.table = QTableWidget(len(rows), 3)
        self.table.setHorizontalHeaderLabels(["Where", "Action", "Keys"])
        for row, values in enumerate(rows):
            for column, value in enumerate(values):
                self.table.setItem(row, column, QTableWidgetItem(value))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(520, 560)

    def rows(self) -> list[tuple[str, str, str]]:
        """What the sheet lists, row by row."""
        return [tuple(self.table.item(r, c).text() for c in range(3)) for r in range(self.table.rowCount())]


class UserGuide(QDialog):
    """The shipped user guide in the Markdown viewer, read-only."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Vancetope Desktop — User Guide")
        self.viewer = MarkdownViewer(self)
        self.viewer.show_markdown(resource_path(*GUIDE).read_text(encoding="utf-8"))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.viewer)
        layout.addWidget(buttons)
        self.resize(720, 640)


def open_shortcut_sheet(window: QMainWindow, extra: Iterable[tuple[str, Iterable[tuple[str, QKeySequence]]]] = ()
                        ) -> ShortcutSheet:
    """Open (non-modal) the sheet of ``window``'s menu and window actions, then the ``extra`` sections."""
    actions = menu_actions(window.menuBar().actions()) + window.actions()
    sheet = ShortcutSheet(shortcut_rows([("Window", window_bindings(actions)), *extra]), window)
    sheet.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    sheet.open()
    return sheet


def open_user_guide(parent: QWidget) -> UserGuide:
    """Open (non-modal) the user guide."""
    guide = UserGuide(parent)
    guide.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    guide.open()
    return guide
