"""The first window: opens on a library, shows the scope tree and what each scope sees."""

from PySide6.QtCore import Qt

from vancetope_desktop.services import documents, scopes
from vancetope_desktop.ui.main_window import MainWindow


def _titles(window):
    table = window.document_table
    return {table.item(row, 0).text(): table.item(row, 3).text() for row in range(table.rowCount())}


def test_window_shows_scopes_and_visible_documents(qtbot, library):
    scopes.create_scope(library, "session", "sess_7", parent="project/inbox")
    scopes.create_scope(library, "think-process", "tp_12", parent="session/sess_7", name="Hypothesis Check")
    documents.add_text(library, "Deadline is June 15th")
    documents.add_text(library, "Counterarguments", scope="think-process/tp_12")
    window = MainWindow(library)
    qtbot.addWidget(window)
    assert window.scope_tree.currentItem().data(0, Qt.ItemDataRole.UserRole) == "project/inbox"
    assert _titles(window) == {"Deadline is June 15th": "project/inbox"}

    tp_item = window.scope_tree.findItems("Hypothesis Check", Qt.MatchFlag.MatchRecursive)[0]
    window.scope_tree.setCurrentItem(tp_item)
    assert _titles(window) == {"Counterarguments": "think-process/tp_12",
                               "Deadline is June 15th": "↑ project/inbox"}
    assert "2 documents" in window.status_label.text()
