"""The sequence behind a move between scopes, a publish or a promotion request: preview on the read lane,
confirmation, write.

:class:`ScopeMoveFlow` is the main window's helper for all three (and the Topics window's); the dialogs themselves
live in :mod:`.move_dialog`, :mod:`.publish_dialog` and :mod:`.request_dialog`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QDialog, QMessageBox, QWidget

from .folder_model import FolderTarget
from .move_dialog import MoveDialog, MovePreview, already_there_text, done_text, load_move_preview
from .publish_dialog import PublishDialog, PublishPreview, load_publish_preview
from .request_dialog import RequestPreview, RequestPromotionDialog, load_request_preview, requested_text

if TYPE_CHECKING:
    from .workbench import Workbench


class ScopeMoveFlow(QObject):
    """Runs moves between scopes and publishing for the main window, through its workbench.

    ``request_move`` loads a :class:`MovePreview`, opens a :class:`MoveDialog` (window-modal, not blocking
    the event loop) and, when accepted, moves on the write lane. Failures reach the user as the
    workbench's ``failed`` messages, like every other action; with ``say`` (a window of its own, e.g. the Topics
    window) a refusal of the preview (a tree's root, another branch) and the move's outcome are also told to it.
    ``dialog`` is the last dialog opened.
    """

    def __init__(self, workbench: Workbench, window: QWidget, say: Callable[[str], None] | None = None) -> None:
        super().__init__(window)
        self.workbench = workbench
        self.window = window
        self.say = say
        self.dialog: QDialog | None = None

    def request_move(self, ids: Sequence[str], target: str, folder_id: str | None = None) -> None:
        """Ask to move ``ids`` to scope ``target`` (into ``folder_id`` of it, when given)."""
        wanted, lib = list(ids), self.workbench.lib
        if not wanted:
            return
        refused = (lambda error: self.say(str(error))) if self.say is not None else None
        self.workbench.read(lambda _c: load_move_preview(lib, wanted, target),
                            lambda preview: self._confirm_move(preview, folder_id), title="Move", on_error=refused)

    def request_drop(self, ids: Sequence[str], target: FolderTarget) -> None:
        """Documents dropped on a scope root or a folder of another scope than (some of) theirs."""
        self.request_move(ids, target.scope, target.key if target.kind == "folder" else None)

    def _confirm_move(self, preview: MovePreview, folder_id: str | None) -> None:
        target = preview.target
        if not preview.ids:  # every one is there already: nothing to ask
            if folder_id is not None:  # dropped on a folder of their own scope: a plain folder move
                self.workbench.move_documents(preview.already, FolderTarget("folder", folder_id, target.path))
            else:
                self.workbench.notice.emit(already_there_text(preview))
                if self.say is not None:
                    self.say(already_there_text(preview))
            return
        snapshot = self.workbench.snapshot
        folder = next((f.title for f in snapshot.folders if f.id == folder_id), None) if snapshot else None
        dialog = MoveDialog(preview, self.window, folder_title=folder)
        # Into a folder, those already in the scope go into it too (what the drop asked); else they stay.
        ids = preview.ids + preview.already if folder_id is not None else preview.ids
        say = self.say
        done = (lambda _said: say(done_text(preview))) if say is not None else None
        failed = (lambda error: say(f"Move to {target.name} failed: {error}")) if say is not None else None

        def move() -> None:
            if say is not None:
                say(f"Moving to {target.name}…")
            self.workbench.move_to_scope(ids, target.path, reason=dialog.reason(), folder_id=folder_id,
                                         target_name=target.name, on_done=done, on_error=failed)

        dialog.accepted.connect(move)
        self._show(dialog)

    def request_publish(self, think_process: str) -> None:
        """Ask to request promotion of every result of ``think_process`` to its project."""
        lib = self.workbench.lib
        self.workbench.read(lambda _c: load_publish_preview(lib, think_process), self._confirm_publish,
                            title="Publish")

    def _confirm_publish(self, preview: PublishPreview) -> None:
        if not preview.results:
            box = QMessageBox(QMessageBox.Icon.Information, "Publish to project",
                              f"{preview.think_process.name} has no results to publish yet.",
                              QMessageBox.StandardButton.Ok, self.window)
            self._show(box)
            return
        dialog = PublishDialog(preview, self.window)
        dialog.accepted.connect(lambda: self.workbench.publish_think_process(
            preview.think_process.path, name=preview.think_process.name, target_name=preview.target.name,
            reason=dialog.reason()))
        self._show(dialog)

    def request_promotion(self, doc_id: str) -> None:
        """Ask for ``doc_id`` (a document, or a topic with its subtree and atoms) to be promoted: the dialog picks
        the scope above it and takes a reason, then the request goes to the review queue. A refusal (a tree's
        root, a request already waiting, no scope above) is told before any dialog, as the move's is."""
        lib = self.workbench.lib
        refused = (lambda error: self.say(str(error))) if self.say is not None else None
        self.workbench.read(lambda _c: load_request_preview(lib, doc_id), self._confirm_request,
                            title="Request promotion", on_error=refused)

    def _confirm_request(self, preview: RequestPreview) -> None:
        dialog = RequestPromotionDialog(preview, self.window)
        say = self.say

        def request() -> None:
            target = dialog.target_scope()
            if say is not None:
                say(f"Requesting the promotion to {target.name}…")
            done = (lambda made, new: say(requested_text(preview, made, target, new=new))) if say else None
            failed = (lambda error: say(f"Request promotion failed: {error}")) if say is not None else None
            self.workbench.request_promotion(preview.document_id, target.path, reason=dialog.reason(),
                                             on_done=done, on_error=failed)

        dialog.accepted.connect(request)
        self._show(dialog)

    def _show(self, dialog: QDialog) -> None:
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.finished.connect(lambda _result: self._closed(dialog))
        self.dialog = dialog
        dialog.open()

    def _closed(self, dialog: QDialog) -> None:
        if dialog is self.dialog:
            self.dialog = None
        dialog.deleteLater()
