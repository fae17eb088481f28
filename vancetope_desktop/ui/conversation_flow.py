"""Where the Conversation windows open (issue 15): View ▸ Conversation… for the window's scope, "Conversation…" in
a process's menu in the scope switcher and the folder tree; one window per process, and the context window they
share (remembered per library by the main window).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QMenu

from ..services import conversations
from .conversation_view import ConversationDialog
from .folder_model import FolderTarget
from .folder_tree import FolderTreeView
from .scope_switcher import ScopeSwitcher
from .window_parts import menu_named
from .workbench import Workbench


class ConversationFlow(QObject):
    """The Conversation windows of one main window: View ▸ Conversation… for the window's scope (disabled, with
    the reason, when it is no session or think process), "Conversation…" in a process's menu in the scope switcher
    and the folder tree, one window per process (kept: reopening reads again), and the context window they share.

    Signals:
        context_window_changed(int): the person chose another context window: the window remembers it for this
            library (``Preferences.with_context_window``).
    """

    context_window_changed = Signal(int)

    def __init__(self, window: QMainWindow, workbench: Workbench, *, folder_tree: FolderTreeView,
                 scope_switcher: ScopeSwitcher, context_window: int) -> None:
        super().__init__(window)
        self.window, self.workbench, self.context_window = window, workbench, context_window
        self.dialogs: dict[str, ConversationDialog] = {}
        self.view_action = QAction("Conversation…", window)
        self.view_action.triggered.connect(lambda: self.open(workbench.state.scope))
        view_menu = menu_named(window, "&View")
        if view_menu is not None:  # beside the other memory windows, before the Theme submenu's separator
            view_menu.setToolTipsVisible(True)
            after = next((a for a in view_menu.actions() if a.text() == "Topic Map…"), None)
            following = view_menu.actions()[view_menu.actions().index(after) + 1] if after is not None else None
            view_menu.insertAction(following, self.view_action)
        folder_tree.menu_extension_requested.connect(self._extend_tree_menu)
        scope_switcher.conversation_requested.connect(self.open)
        workbench.snapshot_ready.connect(lambda _s: self._update_action())
        self._update_action()

    def is_process(self, path: str) -> bool:
        """Whether ``path`` is a session or think process (as the latest snapshot lists the scopes)."""
        snapshot = self.workbench.snapshot
        kind = next((s.kind for s in snapshot.scopes if s.path == path), None) if snapshot is not None else None
        return kind in conversations.PROCESS_KINDS

    def open(self, process: str) -> ConversationDialog | None:
        """Show ``process``'s Conversation window (None: it is no session or think process)."""
        if not self.is_process(process):
            return None
        dialog = self.dialogs.get(process)
        if dialog is None:
            dialog = self.dialogs[process] = ConversationDialog(self.workbench, process, self.context_window,
                                                                self.window)
            dialog.context_window_changed.connect(self._window_changed)
        else:
            dialog.set_context_window(self.context_window)
            dialog.reload()
        dialog.show()
        dialog.raise_()
        return dialog

    def _window_changed(self, tokens: int) -> None:
        self.context_window = tokens
        for dialog in self.dialogs.values():
            if dialog.context_window != tokens:
                dialog.set_context_window(tokens)
        self.context_window_changed.emit(tokens)

    def _update_action(self) -> None:
        scope = self.workbench.state.scope
        process = self.is_process(scope)
        self.view_action.setEnabled(process)
        self.view_action.setToolTip(
            "The conversation of the current session or think process: its messages, summaries and pinned ones"
            if process else "Conversations belong to sessions and think processes: switch to one (the scope "
                            "switcher) or right-click one in the Scopes tree")

    def _extend_tree_menu(self, menu: QMenu, target: FolderTarget | None) -> None:
        if target is not None and target.kind == "scope" and self.is_process(target.key):
            menu.addSeparator()
            menu.addAction("Conversation…", lambda path=target.key: self.open(path))
