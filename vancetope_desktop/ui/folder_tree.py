"""The folder tree view: picks what the document table shows, takes drops, offers folder actions.

It owns a :class:`FolderTreeModel` (``view.folder_model``); the main window feeds the model and connects to
the model's drop/rename signals and to this view's request signals. Across reloads the view keeps the
selected node and the expanded folders by their :class:`FolderTarget`. Scope roots take documents of other
scopes of their branch (a promotion or demotion); while such a drag hovers a scope that refuses it, the
view says why in a tooltip and :attr:`FolderTreeView.move_refused`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import QMimeData, QModelIndex, Qt, Signal
from PySide6.QtGui import QAction, QContextMenuEvent, QKeyEvent
from PySide6.QtWidgets import QAbstractItemView, QMenu, QWidget

from ..core.scope_info import ScopeInfo, VisibleScope
from ..core.scopes import ScopeKind
from ..services.folders import FolderNode
from .dnd import add_source_scopes, start_id_drag
from .folder_model import FolderTarget, FolderTreeModel
from .move_dialog import fill_move_menu
from .refusing_tree import DropRefusingTreeView

_ALL = FolderTarget("smart", "all", "")


class FolderTreeView(DropRefusingTreeView):
    """A header-less tree over :class:`FolderTreeModel`.

    Signals:
        target_selected(FolderTarget): the current node changed (not re-emitted when a reload keeps it).
        subfolders_toggled(bool): "Show items from subfolders" was switched.
        new_folder_requested(FolderTarget): create a folder inside this scope root or folder.
        delete_requested(FolderTarget): delete this folder ("Delete folder", or the Delete key).
        empty_trash_requested(): purge the trash of the current scope.
        move_to_scope_requested(list[str], str): move these folder ids to that scope ("Move to Scope").
        publish_requested(str): request promotion of every result of this think process to its project.
        scope_settings_requested(str): open the settings of this scope.
        move_refused(str): a dragged document cannot go where the cursor is; the text says why.
        menu_extension_requested(QMenu, object): the menu of a node (FolderTarget, or None) is about to
            show: add entries for it.
        saved_search_forget_requested(str): delete this saved search (by name).
    """

    target_selected = Signal(object)
    subfolders_toggled = Signal(bool)
    new_folder_requested = Signal(object)
    delete_requested = Signal(object)
    empty_trash_requested = Signal()
    move_to_scope_requested = Signal(list, str)
    publish_requested = Signal(str)
    scope_settings_requested = Signal(str)
    menu_extension_requested = Signal(object, object)
    saved_search_forget_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folder_model = FolderTreeModel(self)
        self.setModel(self.folder_model)
        self.setHeaderHidden(True)
        self.setUniformRowHeights(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.EditKeyPressed)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.setAcceptDrops(True)
        self.setDropIndicatorShown(True)
        # Drops always land *on* a node ("into this folder"); there is no ordering between folders.
        self.setDragDropOverwriteMode(True)
        self.setDefaultDropAction(Qt.DropAction.MoveAction)
        self.setAutoExpandDelay(600)

        self.subfolders_action = QAction("Show items from subfolders", self, checkable=True, checked=True)
        self.subfolders_action.toggled.connect(self._subfolders_toggled)
        self.new_folder_action = QAction("New folder…", self)
        self.new_folder_action.triggered.connect(self._request_new_folder)
        # F2 and Delete are keys, not action shortcuts, so a window-wide Edit menu with the same
        # shortcuts is not ambiguous (Qt would then fire neither); F2 is the EditKeyPressed trigger.
        self.rename_action = QAction("Rename", self)
        self.rename_action.triggered.connect(self._rename_current)
        self.delete_action = QAction("Delete folder", self)
        self.delete_action.triggered.connect(self._request_delete)
        self.empty_trash_action = QAction("Empty trash", self)
        self.empty_trash_action.triggered.connect(self.empty_trash_requested)
        self._scopes: list[ScopeInfo] = []

        self._last_target: FolderTarget | None = None
        self._remembered: FolderTarget | None = None
        self._expanded: set[tuple[str, str]] = set()
        self._seen_scopes: set[str] = set()
        self._saved_seen = False
        self.folder_model.modelAboutToBeReset.connect(self._remember_state)
        self.folder_model.modelReset.connect(self._restore_state)
        self.selectionModel().currentChanged.connect(self._current_changed)

    # -- public --------------------------------------------------------------------------------------

    def set_snapshot(
        self,
        visible: Sequence[VisibleScope],
        scope_names: Mapping[str, str],
        folders: Sequence[FolderNode],
        smart_counts: Mapping[str, int],
        current_scope: str,
    ) -> None:
        """Feed the model in one call: smart counts, then scopes and folders (selection and expansion kept)."""
        self.folder_model.set_smart_counts(smart_counts)
        self.folder_model.set_folders(visible, folders, scope_names=scope_names, current_scope=current_scope)

    def set_scope_tree(self, scopes: Sequence[ScopeInfo]) -> None:
        """Every scope of the library (parents first): the "Move to Scope" targets and the branch checks."""
        self._scopes = list(scopes)
        self.folder_model.set_scope_parents({s.path: s.parent for s in self._scopes},
                                            {s.path: s.name for s in self._scopes})

    def current_target(self) -> FolderTarget | None:
        """The target of the current node, or None."""
        return self.folder_model.target(self.currentIndex())

    def select_target(self, target: FolderTarget) -> bool:
        """Make the node with ``target``'s kind and key current; returns whether it exists."""
        index = self.folder_model.index_for(target)
        if index.isValid():
            self.setCurrentIndex(index)
            self.scrollTo(index)
        return index.isValid()

    # -- state across reloads ------------------------------------------------------------------------

    def _remember_state(self) -> None:
        self._remembered = self.current_target()
        self._expanded = {(t.kind, t.key) for t in self.folder_model.targets() if self._is_expanded(t)}
        self._seen_scopes |= {t.key for t in self.folder_model.targets() if t.kind == "scope"}

    def _is_expanded(self, target: FolderTarget) -> bool:
        index = self.folder_model.index_for(target)
        # A scope root without folders cannot be expanded yet; its first folder should still show.
        return self.isExpanded(index) or (target.kind == "scope" and self.folder_model.rowCount(index) == 0)

    def _restore_state(self) -> None:
        model = self.folder_model
        for target in model.targets():
            # Scope roots start open the first time they appear; afterwards they keep the user's choice.
            new_scope = target.kind == "scope" and target.key not in self._seen_scopes
            # So does the "Saved searches" node, the first time a saved search appears.
            new_saved = target == FolderTarget("saved", "", target.scope) and not self._saved_seen
            if new_saved:
                self._saved_seen = True
            if new_scope or new_saved or (target.kind, target.key) in self._expanded:
                self.setExpanded(model.index_for(target), True)
        wanted = self._remembered or self._last_target
        index = model.index_for(wanted) if wanted is not None else QModelIndex()
        if not index.isValid() and wanted is not None and wanted.kind == "folder":
            index = model.index_for(FolderTarget("scope", wanted.scope, wanted.scope))  # its folder was deleted
        if not index.isValid():
            index = model.index_for(_ALL)
        self.setCurrentIndex(index)

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        target = self.folder_model.target(current)
        if target is not None and target != self._last_target:
            self._last_target = target
            self.target_selected.emit(target)

    # -- actions -------------------------------------------------------------------------------------

    def _subfolders_toggled(self, on: bool) -> None:
        self.folder_model.show_subfolder_items(on)
        self.subfolders_toggled.emit(on)

    def _request_new_folder(self) -> None:
        target = self._new_folder_parent(self.current_target())
        if target is not None:
            self.new_folder_requested.emit(target)

    def _new_folder_parent(self, target: FolderTarget | None) -> FolderTarget | None:
        # A new folder goes into the chosen folder or scope root of the current scope, else its top level.
        if target is not None and target.kind in ("scope", "folder") and not target.inherited:
            return target
        scope = self.folder_model.current_scope()
        return FolderTarget("scope", scope, scope) if scope else None

    def _rename_current(self) -> None:
        index = self.currentIndex()
        if index.isValid() and self.folder_model.flags(index) & Qt.ItemFlag.ItemIsEditable:
            self.edit(index)

    def _request_delete(self) -> None:
        target = self.current_target()
        if target is not None and target.kind == "folder" and not target.inherited:
            self.delete_requested.emit(target)
        elif target is not None and target.kind == "saved" and target.key:
            self.saved_search_forget_requested.emit(target.key)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Delete and event.modifiers() == Qt.KeyboardModifier.NoModifier:
            self._request_delete()
            return
        super().keyPressEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        index = self.indexAt(event.pos())
        if index.isValid():
            self.setCurrentIndex(index)
        self.context_menu(self.folder_model.target(index)).exec(event.globalPos())

    def context_menu(self, target: FolderTarget | None) -> QMenu:
        """The menu for ``target`` (None: empty area), with only the actions that apply to it."""
        menu = QMenu(self)
        own_folder = target is not None and target.kind == "folder" and not target.inherited
        if self._new_folder_parent(target) is not None:
            menu.addAction(self.new_folder_action)
        if own_folder:
            menu.addAction(self.rename_action)
            menu.addAction(self.delete_action)
        if target is not None and target.kind == "smart" and target.key == "trash":
            menu.addAction(self.empty_trash_action)
        if target is not None and target.kind == "saved" and target.key:
            menu.addAction(self.rename_action)
            menu.addAction("Delete Saved Search", lambda name=target.key: self.saved_search_forget_requested.emit(name))
        self._add_scope_entries(menu, target)
        self.menu_extension_requested.emit(menu, target)
        menu.addSeparator()
        menu.addAction(self.subfolders_action)
        return menu

    def _add_scope_entries(self, menu: QMenu, target: FolderTarget | None) -> None:
        """Moving a folder to another scope; publishing and settings of a scope root."""
        if target is None:
            return
        if target.kind == "folder":
            move_menu = menu.addMenu("Move to Scope")
            fill_move_menu(move_menu, self._scopes, [target.scope],
                           lambda path, key=target.key: self.move_to_scope_requested.emit([key], path))
        elif target.kind == "scope":
            menu.addSeparator()
            if self._kind(target.key) == ScopeKind.THINK_PROCESS:
                menu.addAction("Publish to Project…", lambda path=target.key: self.publish_requested.emit(path))
            menu.addAction("Scope Settings…", lambda path=target.key: self.scope_settings_requested.emit(path))

    def _kind(self, path: str) -> ScopeKind | None:
        return next((s.kind for s in self._scopes if s.path == path), None)

    # -- drag ----------------------------------------------------------------------------------------

    def startDrag(self, supportedActions: Qt.DropAction) -> None:
        indexes = [i for i in self.selectedIndexes() if self.folder_model.flags(i) & Qt.ItemFlag.ItemIsDragEnabled]
        if indexes:
            start_id_drag(self, self.drag_mime(indexes), len(indexes), "folder")

    def drag_mime(self, indexes: Sequence[QModelIndex]) -> QMimeData:
        """What dragging the folders at ``indexes`` carries: their ids and the scopes they live in."""
        mime = self.folder_model.mimeData(indexes)
        return add_source_scopes(mime, (t.scope for i in indexes if (t := self.folder_model.target(i)) is not None))

    def drop_refusal_at(self, mime: QMimeData, index: QModelIndex) -> str | None:
        """The folder model's refusal (a sibling scope, a folder into itself)."""
        return self.folder_model.drop_refusal(mime, index)
