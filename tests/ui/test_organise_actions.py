"""The document list's row menu adds a selection to a folder and tags it (Zotero's "Add to Collection" and
tag entry), through the same services as `vancetope memory move` and `memory tag`."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QDialog

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.services import documents, folders
from vancetope_desktop.ui import organise_actions

pytestmark = [pytest.mark.qt_log_ignore("This plugin does not support (propagateSizeHints|raise)")]


def _entry(menu, text):
    return next(a for a in menu.actions() if a.text() == text)


def test_add_to_folder_and_add_tag_from_the_row_menu(qtbot, library, make_window, monkeypatch):
    # The trial's row menu had neither: a Zotero user looked for "Add to Collection" and a tag entry.
    reading = folders.create_folder(library, "Reading")
    inner = folders.create_folder(library, "Inner", parent_id=reading.id)
    documents.add_text(library, "Sparse attention", doc_type=DocumentType.NOTE, tags=["attention"])
    ids = [documents.add_text(library, f"Note {n}", doc_type=DocumentType.NOTE).id for n in range(2)]
    window = make_window(library)
    table = window.table
    qtbot.waitUntil(lambda: table.document_model.rowCount() == 3, timeout=10_000)
    table.select_ids(ids)
    menu = table.context_menu()
    texts = [a.text() for a in menu.actions()]
    assert texts.index("Add to Folder…") == texts.index("Move to Trash") + 1
    assert texts.index("Add Tag…") == texts.index("Add to Folder…") + 1

    def choose_inner(picker):
        assert picker.tree.topLevelItem(0).child(0).text(0) == "Inner"  # shown as a tree
        picker.select(inner.id)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(organise_actions.FolderPicker, "exec", choose_inner)
    _entry(menu, "Add to Folder…").trigger()
    qtbot.waitUntil(lambda: all(documents.get_document(library, i).folder_id == inner.id for i in ids),
                    timeout=10_000)

    def type_tag(dialog):
        assert "attention" in dialog.edit.completer().model().stringList()  # completes existing tags
        dialog.edit.setText("#to-read ")
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(organise_actions.TagDialog, "exec", type_tag)
    _entry(table.context_menu(), "Add Tag…").trigger()
    qtbot.waitUntil(lambda: all("to-read" in documents.get_document(library, i).tags for i in ids), timeout=10_000)
    menu.deleteLater()
