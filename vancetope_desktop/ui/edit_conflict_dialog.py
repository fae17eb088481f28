"""The conflict dialog of a stale save (issue 17, after Zotero's sync conflict dialog): a note changed elsewhere
while it was being edited here.

Both versions side by side (theirs, the stored one, with who made it and when; yours, the draft), and three ways
out: keep mine, keep theirs, or merge (text documents whose base version is kept): the three-way merge of
``services.edit_merge`` in an editor, clean where it could be, each conflict between git-style markers to settle
by hand before saving. A pure widget: the window gathers the sides on a worker thread and saves the choice.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ..core.merge import has_conflict_markers
from ..services.edit_merge import ConflictSides
from .diff_view import DiffView
from .review_model import actor_label, local_time


class Choice(StrEnum):
    """What the person chose: their draft, the stored version, or the merge (as edited in the dialog)."""

    MINE = "mine"
    THEIRS = "theirs"
    MERGED = "merged"


def writer_text(actor: str | None, scope_names: Mapping[str, str], me: str) -> str:
    """Who saved the other version, for "… by {who}": the actor's label (:func:`.review_model.actor_label`), or
    "you, in another window or process" when that is the current person (``me``), so that a second window
    of one's own is recognised; "someone (not recorded)" when the version has no author."""
    if not actor:
        return "someone (not recorded)"
    if me and actor == me:
        return "you, in another window or process"
    return actor_label(actor, scope_names, me)


class EditConflictDialog(QDialog):
    """Shows ``sides`` (``services.edit_merge.conflict_sides``) and asks which text to keep.

    After ``exec``/``accepted``: :attr:`choice` and :meth:`text` (the text to save for ``MINE`` and ``MERGED``;
    the stored one for ``THEIRS``). The merge is saved only when no conflict marker is left in it.

    Args:
        me: the current person's actor string (``services.identity.current_user``): a change of theirs saved
            under it was made by the same person in another window or process, and is said so.
        scope_names: ``{path: name}`` to name think processes (:func:`.review_model.actor_label`).
    """

    def __init__(self, sides: ConflictSides, parent: QWidget | None = None, *, me: str = "",
                 scope_names: Mapping[str, str] | None = None) -> None:
        super().__init__(parent)
        self.sides = sides
        self.choice: Choice | None = None
        theirs = sides.theirs
        who = writer_text(theirs.updated_by, scope_names or {}, me)
        self.setWindowTitle("Changed elsewhere")
        self.resize(1100, 640)
        base = sides.base.number if sides.base is not None else None
        self.summary = QLabel(
            f"<b>“{theirs.title}” was changed while you edited it.</b><br>Theirs: version {theirs.version}, saved "
            f"by {who} at {local_time(theirs.updated_at)}. Yours: your draft"
            + (f", made on version {base}." if base is not None else ".")
            + (" Keep one of them, or merge them." if sides.merged is not None else " Keep one of them."))
        self.summary.setWordWrap(True)
        self.diff = DiffView()
        self.diff.set_texts(theirs.content or "", sides.mine, old_label=f"Theirs — version {theirs.version} by {who}",
                            new_label="Yours — your draft")
        self.merge_note = QLabel()
        self.merge_note.setWordWrap(True)
        self.merge_edit = QPlainTextEdit()
        self.merge_edit.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.merge_edit.textChanged.connect(self._merge_edited)
        merge_page = QWidget()
        merge_column = QVBoxLayout(merge_page)
        merge_column.setContentsMargins(0, 0, 0, 0)
        merge_column.addWidget(self.merge_note)
        merge_column.addWidget(self.merge_edit, 1)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.diff)
        self.pages.addWidget(merge_page)

        self.buttons = QDialogButtonBox()
        self.keep_mine_button = QPushButton("Keep mine")
        self.keep_mine_button.setToolTip(f"Save your draft as version {theirs.version + 1}: theirs stays in the "
                                         "history (Details › History)")
        self.keep_theirs_button = QPushButton("Keep theirs")
        self.keep_theirs_button.setToolTip("Drop your draft and show the stored version")
        self.merge_button = QPushButton("Merge…")
        self.merge_button.setToolTip("Combine both: the changes that do not overlap are merged, the others are "
                                     "marked for you to choose")
        self.merge_button.setVisible(sides.merged is not None)
        self.save_merge_button = QPushButton("Save merge")
        self.back_button = QPushButton("Back")
        self.cancel_button = QPushButton("Cancel")
        for button, role in ((self.keep_mine_button, QDialogButtonBox.ButtonRole.AcceptRole),
                             (self.keep_theirs_button, QDialogButtonBox.ButtonRole.AcceptRole),
                             (self.merge_button, QDialogButtonBox.ButtonRole.ActionRole),
                             (self.back_button, QDialogButtonBox.ButtonRole.ActionRole),
                             (self.save_merge_button, QDialogButtonBox.ButtonRole.AcceptRole),
                             (self.cancel_button, QDialogButtonBox.ButtonRole.RejectRole)):
            self.buttons.addButton(button, role)
        self.keep_mine_button.clicked.connect(lambda: self._choose(Choice.MINE))
        self.keep_theirs_button.clicked.connect(lambda: self._choose(Choice.THEIRS))
        self.merge_button.clicked.connect(self.show_merge)
        self.back_button.clicked.connect(self._show_sides)
        self.save_merge_button.clicked.connect(lambda: self._choose(Choice.MERGED))
        self.cancel_button.clicked.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.buttons)
        self._show_sides()

    def _set_page(self, merging: bool) -> None:
        self.pages.setCurrentIndex(1 if merging else 0)
        for button in (self.keep_mine_button, self.keep_theirs_button):
            button.setVisible(not merging)
        self.merge_button.setVisible(not merging and self.sides.merged is not None)
        self.save_merge_button.setVisible(merging)
        self.back_button.setVisible(merging)

    def _show_sides(self) -> None:
        self._set_page(False)

    def show_merge(self) -> None:
        """Show the three-way merge in the editor (only for sides with a merge)."""
        merged = self.sides.merged
        if merged is None:
            return
        if not self.merge_edit.toPlainText():
            self.merge_edit.setPlainText(merged.text)
        self._set_page(True)
        self.merge_edit.setFocus()

    def _merge_edited(self) -> None:
        merged = self.sides.merged
        left = has_conflict_markers(self.merge_edit.toPlainText())
        if merged is not None and merged.clean:
            note = "Both changes merged cleanly. Check the text, edit it if you like, then save."
        elif left:
            count = len(merged.conflicts) if merged is not None else 0
            note = (f"{count} place{'s' if count != 1 else ''} changed on both sides: each is marked, yours between "
                    "<<<<<<< and =======, theirs between ======= and >>>>>>>. Keep what you want of each and "
                    "delete the markers, then save.")
        else:
            note = "Every conflict is settled. Save when the text reads right."
        self.merge_note.setText(note)
        self.save_merge_button.setEnabled(not left and bool(self.merge_edit.toPlainText().strip()))

    def _choose(self, choice: Choice) -> None:
        self.choice = choice
        self.accept()

    def text(self) -> str:
        """The text the choice keeps: the draft, the stored text, or the merge as edited here."""
        if self.choice is Choice.MERGED:
            return self.merge_edit.toPlainText()
        if self.choice is Choice.THEIRS:
            return self.sides.theirs.content or ""
        return self.sides.mine
