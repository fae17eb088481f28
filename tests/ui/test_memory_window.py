"""Agent memory in the window: a session run by an agent (``scopes.set_agent``) lists the agent's memories as the
agent's ("⚙ Tau"), not as inherited from an ancestor (the list, its tooltip, Details, the folder tree); and a
memory type changed in Details is a step of Edit ▸ Undo."""

from __future__ import annotations

from PySide6.QtCore import Qt

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.services import documents, scopes
from vancetope_desktop.ui.document_model import DOC_ID_ROLE, Column
from vancetope_desktop.ui.folder_model import FolderTarget

WAIT_MS = 20_000
SESSION, AGENT = "session/mon", "agent/tau"


def test_a_session_run_by_an_agent_marks_the_agent_s_memories(qtbot, library, make_window):
    scopes.create_scope(library, "agent", "tau", parent="project/inbox", name="Tau")
    scopes.create_scope(library, "session", "mon", parent="project/inbox", name="Monday", agent=AGENT)
    rule = documents.add_text(library, "Deploy on weekdays only.", doc_type=DocumentType.NOTE, title="Deploy rule",
                              scope=AGENT, memory_type="feedback")
    inbox = documents.add_text(library, "Inbox note.", doc_type=DocumentType.NOTE, title="Inbox note")
    window = make_window(library, scope=SESSION)
    table = window.table
    qtbot.waitUntil(lambda: table.proxy.rowCount() == 2, timeout=WAIT_MS)
    cells = {table.proxy.index(r, 0).data(DOC_ID_ROLE): table.proxy.index(r, Column.SCOPE) for r in range(2)}
    assert cells[rule.id].data() == "⚙ Tau" and cells[inbox.id].data() == "↑ Inbox"
    assert "a memory of agent Tau" in cells[rule.id].data(Qt.ItemDataRole.ToolTipRole)
    window.open_document(rule.id)
    qtbot.waitUntil(lambda: window.details.document_id() == rule.id, timeout=WAIT_MS)
    assert "From the memory of agent Tau" in window.details.inherited_label.text()
    tree = window.folder_tree.folder_model
    tooltip = tree.index_for(FolderTarget("scope", AGENT, AGENT, True)).data(Qt.ItemDataRole.ToolTipRole)
    assert "the memory of the agent that runs this scope" in tooltip


def test_edit_undo_names_a_memory_type_change_made_in_details_and_takes_it_back(qtbot, library, make_window):
    note = documents.add_text(library, "Deploy on weekdays only.", doc_type=DocumentType.NOTE, title="Deploy rule")
    window = make_window(library)
    window.open_document(note.id)
    picker = window.details.memory_type
    qtbot.waitUntil(lambda: window.details.document_id() == note.id and picker.isEnabled(), timeout=WAIT_MS)
    picker.setCurrentIndex(picker.findData("feedback"))
    picker.activated.emit(picker.currentIndex())  # as a person's pick announces it
    undo_action = window.undo_actions.undo_action
    qtbot.waitUntil(lambda: undo_action.text() == "Undo Set memory type of “Deploy rule” to feedback",
                    timeout=WAIT_MS)
    undo_action.trigger()
    qtbot.waitUntil(lambda: documents.get_document(library, note.id).memory_type is None, timeout=WAIT_MS)
