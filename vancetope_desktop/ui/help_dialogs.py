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
from .viewer import keys as viewer_keys
from .viewer.markdown_viewer import MarkdownViewer

GUIDE = ("help", "user-guide.md")


SHEET_NAME = "sheet_name"
"""The Qt property holding an action's stable name for the sheet, when its text changes with use
(Edit ▸ Undo reads "Undo Trash “…”" after a trash)."""


def action_label(action: QAction) -> str:
    """An action's name as a sheet shows it: its :data:`SHEET_NAME` property if set, else its text
    without mnemonics or dots (``"&Import folder…"`` → ``"Import folder"``)."""
    stable = action.property(SHEET_NAME)
    if stable:
        return str(stable)
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


def _typed(keys: QKeySequence) -> bool:
    """Whether ``keys`` are typed on an ordinary keyboard: Qt's standard bindings add dedicated keys
    (Undo, Redo, Copy, Back…, all from ``Qt.Key_Back`` up) that few keyboards have and that read as a
    second action named "Redo" with the key "Redo"."""
    return all(keys[i].key().value < Qt.Key.Key_Back.value for i in range(keys.count()))


def shortcut_rows(sections: Iterable[tuple[str, Iterable[tuple[str, QKeySequence]]]]) -> list[tuple[str, str, str]]:
    """``(section, what, keys)`` rows: one per action of a section, its typed alternatives joined by
    ", " in the order given, keys as the platform writes them (``Ctrl+Shift+O``; ``⇧⌘O`` on macOS)."""
    rows: list[tuple[str, str, str]] = []
    for section, bindings in sections:
        keys_of: dict[str, list[str]] = {}
        for label, keys in bindings:
            text = keys.toString(QKeySequence.SequenceFormat.NativeText)
            if text and _typed(keys) and text not in keys_of.setdefault(label, []):
                keys_of[label].append(text)
        rows.extend((section, label, ", ".join(texts)) for label, texts in keys_of.items() if texts)
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
        header = self.table.horizontalHeader()
        # The action takes what the keys leave: the keys column was the one cut off ("Ctrl-…").
        for column, mode in enumerate((QHeaderView.ResizeMode.ResizeToContents, QHeaderView.ResizeMode.Stretch,
                                       QHeaderView.ResizeMode.ResizeToContents)):
            header.setSectionResizeMode(column, mode)
        self.table.setWordWrap(True)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(640, 600)

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
    """Open (non-modal) the sheet of ``window``'s menu and window actions, the ``extra`` sections, then
    the keys of a document tab."""
    actions = menu_actions(window.menuBar().actions()) + window.actions()
    sheet = ShortcutSheet(shortcut_rows([("Window", window_bindings(actions)), *extra,
                                          ("Document tab", viewer_keys.bindings())]), window)
    sheet.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    sheet.open()
    return sheet


def open_user_guide(parent: QWidget) -> UserGuide:
    """Open (non-modal) the user guide."""
    guide = UserGuide(parent)
    guide.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    guide.open()
    return guide
