"""Edit ▸ Undo / Redo in the window: Ctrl+Z takes back a trash done without asking, the menu names the
action, the actions follow the library's history (also after a restart of the window)."""

from __future__ import annotations

from PySide6.QtCore import Qt

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.services import documents, folders
from vancetope_desktop.ui import dialogs
from vancetope_desktop.ui.folder_model import FolderTarget

WAIT = 10_000


def _status(library, doc_id):
    return documents.get_document(library, doc_id).status


def test_ctrl_z_undoes_a_trash_done_without_a_confirmation(qtbot, library, make_window, monkeypatch):
    folder = folders.create_folder(library, "Reading")
    inside = documents.add_text(library, "Chapter notes.", doc_type=DocumentType.NOTE, folder_id=folder.id)
    asked: list[str] = []
    monkeypatch.setattr(dialogs, "confirm", lambda _parent, title, _text: asked.append(title) or True)
    window = make_window(library)
    undo_action, redo_action = window.undo_actions.undo_action, window.undo_actions.redo_action
    assert (undo_action.text(), undo_action.isEnabled(), redo_action.isEnabled()) == ("Undo", False, False)

    window.delete_folder(FolderTarget("folder", folder.id, folder.scope))
    qtbot.waitUntil(lambda: undo_action.text() == "Undo Trash “Reading”", timeout=WAIT)
    assert asked == []  # trash no longer asks: it can be undone
    assert _status(library, inside.id) is DocumentStatus.DELETED and undo_action.isEnabled()
    edit_menu = window.menuBar().actions()[1].menu()
    assert edit_menu.actions()[:2] == [undo_action, redo_action]

    window.activateWindow()
    window.quick_filter.setFocus()  # a text field keeps Ctrl+Z for its own typing
    qtbot.keyClicks(window.quick_filter, "x")
    qtbot.keyClick(window.quick_filter, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.quick_filter.text() == "" and window.undo_actions.pending == 0  # Undo was not triggered
    window.table.setFocus()
    qtbot.keyClick(window.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: _status(library, inside.id) is DocumentStatus.ACTIVE, timeout=WAIT)
    qtbot.waitUntil(lambda: redo_action.text() == "Redo Trash “Reading”", timeout=WAIT)
    assert (undo_action.text(), undo_action.isEnabled()) == ("Undo", False)

    qtbot.keyClick(window.table, Qt.Key.Key_Z,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: _status(library, folder.id) is DocumentStatus.DELETED, timeout=WAIT)


def test_the_menu_names_a_move_of_several_documents_and_remembers_it_after_a_restart(qtbot, library, make_window):
    papers = folders.create_folder(library, "Papers")
    notes = [documents.add_text(library, f"Note {i}.", doc_type=DocumentType.NOTE) for i in range(3)]
    window = make_window(library)
    window.workbench.move_documents([n.id for n in notes], FolderTarget("folder", papers.id, papers.scope))
    qtbot.waitUntil(lambda: window.undo_actions.undo_action.text() == "Undo Move 3 documents", timeout=WAIT)
    window.close()

    again = make_window(library)
    qtbot.waitUntil(lambda: again.undo_actions.undo_action.text() == "Undo Move 3 documents", timeout=WAIT)
    again.undo_actions.undo_action.trigger()
    qtbot.waitUntil(lambda: all(documents.get_document(library, n.id).folder_id is None for n in notes), timeout=WAIT)
