"""The question an import asks when a dropped folder is named like one already there up to case."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget

from ..services import imports


def ask_namesakes(parent: QWidget | None, found: list[imports.FolderNamesake]) -> imports.Namesakes | None:
    """Ask whether the folders in ``found`` go into their namesakes, sit beside them, or are not imported.

    Returns:
        ``merge`` (the default button, as the CLI does), ``keep_both``, or None for Cancel.
    """
    pairs = "\n".join(f"• {f.name} → {f.existing_title}" for f in found)
    box = QMessageBox(QMessageBox.Icon.Question, "Folder already there",
                      f"A folder with this name, up to case, is already in this place:\n{pairs}", parent=parent)
    box.setInformativeText("Merge puts the imported files into the existing folder; Keep both makes a new one.")
    merge = box.addButton("Merge", QMessageBox.ButtonRole.AcceptRole)
    keep = box.addButton("Keep Both", QMessageBox.ButtonRole.ActionRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(merge)
    box.exec()
    clicked = box.clickedButton()
    return "merge" if clicked is merge else "keep_both" if clicked is keep else None
