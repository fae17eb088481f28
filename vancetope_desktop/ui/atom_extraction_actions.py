"""Atoms in the window (issue 13): "Extract Atoms" on the selection, and the scope's setting for files.

"Extract Atoms" is in the Document menu and the document list's row menu; it reads the selected documents'
atoms in the background (``Workbench.extract_atoms``: the Tasks panel shows progress, Cancel, and what each
document gave; the status bar says the summary; the Atoms view and the Details panel list the new atoms once the
window reloads). "Extract Atoms from Imported Files" in the scope tree's menu of a scope is the per-scope
setting (``services.atom_extraction.files_setting``): checked when on, here or inherited; a click sets this
scope's own value, and the Scope Settings… dialog is not needed for it.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QMenu

from ..services import atom_extraction
from .document_table import DocumentTableView
from .folder_model import FolderTarget
from .folder_tree import FolderTreeView
from .window_parts import make_action, menu_named
from .workbench import Workbench


class AtomExtractionActions(QObject):
    """The atom extraction actions of one main window.

    Args:
        window: owner of the actions and of the Document menu they join. workbench: runs the work.
        table: whose selection is read. folder_tree: whose scope menu offers the files setting.

    Attributes:
        extract_action: Document ▸ Extract Atoms (and in the list's row menu).
    """

    def __init__(self, window: QMainWindow, workbench: Workbench, *, table: DocumentTableView,
                 folder_tree: FolderTreeView) -> None:
        super().__init__(window)
        self.workbench, self.table = workbench, table
        self.extract_action = make_action(window, "Extract Atoms", self.extract_selected)
        self.extract_action.setToolTip("Read facts, events and plans from the selected documents")
        document = menu_named(window, "&Document")
        if document is not None:
            document.addAction(self.extract_action)
        table.menu_extension_requested.connect(self._extend_table_menu)
        folder_tree.menu_extension_requested.connect(self._extend_tree_menu)

    def extract_selected(self) -> None:
        """Read the atoms of the list's selection (nothing selected: nothing to do)."""
        ids = self.table.selected_ids()
        if ids:
            self.workbench.extract_atoms(ids)

    def _extend_table_menu(self, menu: QMenu) -> None:
        if self.table.selected_ids() and not self.table.trash_mode():
            menu.addSeparator()
            menu.addAction(self.extract_action)

    def _extend_tree_menu(self, menu: QMenu, target: FolderTarget | None) -> None:
        if target is None or target.kind != "scope":
            return
        action = QAction("Extract Atoms from Imported Files", menu)
        action.setCheckable(True)
        action.setEnabled(False)  # until the setting is read (a read: the menu never waits on the database)
        menu.addSeparator()
        menu.addAction(action)
        lib, path = self.workbench.lib, target.key

        def shown(setting: atom_extraction.FilesSetting) -> None:
            try:
                action.setChecked(setting.enabled)
                action.setEnabled(True)
                action.setToolTip("Set in this scope" if setting.own is not None else
                                  f"Inherited from {setting.set_in}" if setting.set_in else "Off by default")
            except RuntimeError:  # the menu closed (and its action went) before the read came back
                pass

        action.triggered.connect(lambda on: self.workbench.set_atom_files_setting(path, on))  # the user's click only
        self.workbench.read(lambda _c: atom_extraction.files_setting(lib, path), shown, title="Scope setting")
