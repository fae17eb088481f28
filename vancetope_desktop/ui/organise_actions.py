"""The document list's "Add to Folder…" and "Add Tag…" (Zotero's "Add to Collection" and tag entry).

Both add an entry to the row menu of the selection (through the table's ``menu_extension_requested``),
ask in a small dialog, and hand the answer to the :class:`Workbench` (``move_documents``, ``add_tag``),
which calls the same services as ``vancetope memory move`` and ``vancetope memory tag``. The folders
and tags offered are those of the window's latest snapshot.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import (
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QMenu,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..services.folders import FolderNode
from .document_table import DocumentTableView
from .folder_model import FolderTarget
from .snapshot import Snapshot
from .workbench import Workbench

FOLDER_ID = Qt.ItemDataRole.UserRole


class FolderPicker(QDialog):
    """Choose one folder of ``folders`` (a tree, parents before children as ``folders.folder_tree`` gives them)."""

    def __init__(self, folders: Sequence[FolderNode], count: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Add to Folder")
        what = "this document" if count == 1 else f"these {count} documents"
        # Folders hold a document once: adding it to one takes it out of the folder it was in.
        heading = QLabel(f"Put {what} into the folder (a document is in one folder at a time):")
        heading.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setHeaderHidden(True)
        items: dict[str, QTreeWidgetItem] = {}
        for node in folders:
            parent_item = items.get(node.parent_id or "")
            item = QTreeWidgetItem(parent_item or self.tree, [node.title])
            item.setData(0, FOLDER_ID, node.id)
            items[node.id] = item
        self.tree.expandAll()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.tree.currentItemChanged.connect(lambda *_: self._sync())
        self.tree.itemDoubleClicked.connect(lambda *_: self.accept())
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(self.tree)
        layout.addWidget(self.buttons)
        self._sync()
        self.resize(420, 420)

    def select(self, folder_id: str) -> None:
        """Make ``folder_id`` the chosen folder (as a click does)."""
        found = [item for item in self.tree.findItems("*", Qt.MatchFlag.MatchWildcard | Qt.MatchFlag.MatchRecursive)
                 if item.data(0, FOLDER_ID) == folder_id]
        self.tree.setCurrentItem(found[0] if found else None)

    def folder_id(self) -> str | None:
        """The chosen folder's id, None before a choice."""
        item = self.tree.currentItem()
        return item.data(0, FOLDER_ID) if item is not None else None

    def _sync(self) -> None:
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(self.folder_id() is not None)


class TagDialog(QDialog):
    """Type a tag, completed from ``known`` (the library's tags, matched anywhere in the name)."""

    def __init__(self, known: Sequence[str], count: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Add Tag")
        what = "this document" if count == 1 else f"these {count} documents"
        self.edit = QLineEdit()
        self.edit.setPlaceholderText("e.g. reading/2024")
        completer = QCompleter(sorted(known), self.edit)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.edit.setCompleter(completer)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.edit.textChanged.connect(lambda text: self.buttons.button(
            QDialogButtonBox.StandardButton.Ok).setEnabled(bool(self.tag())))
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"Tag to add to {what}:"))
        layout.addWidget(self.edit)
        layout.addWidget(self.buttons)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(False)

    def tag(self) -> str:
        """The typed tag without a leading ``#`` and spaces around it ("" when none)."""
        return self.edit.text().strip().lstrip("#").strip()


class OrganiseActions(QObject):
    """Adds "Add to Folder…" and "Add Tag…" to ``table``'s row menu and runs them through ``workbench``."""

    def __init__(self, window: QWidget, workbench: Workbench, table: DocumentTableView) -> None:
        super().__init__(window)
        self.window, self.workbench, self.table = window, workbench, table
        self.scope = ""
        self.folders: list[FolderNode] = []
        self.tags: list[str] = []
        workbench.snapshot_ready.connect(self._remember)
        table.menu_extension_requested.connect(self.extend_menu)

    def _remember(self, snapshot: Snapshot) -> None:
        self.scope = snapshot.state.scope
        # Only the current scope's folders: a folder of a scope above is read-only here.
        self.folders = [f for f in snapshot.folders if f.scope == self.scope]
        self.tags = [t.tag for t in snapshot.tags]

    def extend_menu(self, menu: QMenu) -> None:
        """Put both entries after "Move to Trash" in the row menu (none in the trash view, which has no such entry)."""
        actions = menu.actions()
        if self.table.trash_action not in actions:
            return
        ids = self.table.selected_ids()
        after = actions[actions.index(self.table.trash_action) + 1] if actions[-1] is not self.table.trash_action \
            else None
        folder = menu.addAction("Add to Folder…", lambda: self.add_to_folder(ids))
        folder.setEnabled(bool(self.folders))
        tag = menu.addAction("Add Tag…", lambda: self.add_tag(ids))
        if after is not None:
            menu.insertActions(after, [folder, tag])

    def add_to_folder(self, ids: Sequence[str]) -> None:
        """Ask for a folder and move ``ids`` into it."""
        picker = FolderPicker(self.folders, len(ids), self.window)
        if picker.exec() == QDialog.DialogCode.Accepted and (folder_id := picker.folder_id()):
            self.workbench.move_documents(ids, FolderTarget("folder", folder_id, self.scope))

    def add_tag(self, ids: Sequence[str]) -> None:
        """Ask for a tag and add it to ``ids``."""
        dialog = TagDialog(self.tags, len(ids), self.window)
        if dialog.exec() == QDialog.DialogCode.Accepted and (tag := dialog.tag()):
            self.workbench.add_tag(ids, tag)
