"""The Archived smart view (issue 12's lifecycle): superseded memories and documents archived by hand, each
superseded one saying by what, counted like the other smart views, and brought back with Restore."""

from __future__ import annotations

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.services import documents, graph
from vancetope_desktop.ui.document_model import DOC_ID_ROLE
from vancetope_desktop.ui.folder_model import FolderTarget

WAIT_MS = 20_000
SCOPE = "project/inbox"


def test_the_archived_view_lists_what_superseded_each_memory_and_restores_one(qtbot, library, make_window):
    old = documents.add_text(library, "Colours use hex codes.", doc_type=DocumentType.NOTE, title="Hex colours",
                             memory_type="project")
    new = documents.add_text(library, "Colours use OKLCH tokens.", doc_type=DocumentType.NOTE, title="OKLCH colours",
                             memory_type="project")
    shelved = documents.add_text(library, "Plan for March.", doc_type=DocumentType.NOTE, title="March plan")
    graph.relate(library, new.id, old.id, "updates")
    documents.set_status(library, shelved.id, DocumentStatus.ARCHIVED)
    window = make_window(library)
    tree, table = window.folder_tree.folder_model, window.table
    assert tree.smart_count("archived") == 2
    assert any(t.kind == "smart" and t.key == "archived" for t in tree.targets())
    window.workbench.set_target(FolderTarget("smart", "archived", SCOPE))
    qtbot.waitUntil(lambda: table.proxy.rowCount() == 2, timeout=WAIT_MS)
    titles = {table.proxy.index(r, 0).data(DOC_ID_ROLE): table.proxy.index(r, 0).data() for r in range(2)}
    assert titles == {old.id: "Hex colours  · superseded by “OKLCH colours”", shelved.id: "March plan"}

    row = next(r for r in range(2) if table.proxy.index(r, 0).data(DOC_ID_ROLE) == old.id)
    table.selectRow(row)
    menu = table.context_menu()
    assert table.restore_action in menu.actions() and table.trash_action in menu.actions()
    assert table.restore_action.text() == "Restore"
    table.restore_action.trigger()
    qtbot.waitUntil(lambda: table.proxy.rowCount() == 1 and tree.smart_count("archived") == 1, timeout=WAIT_MS)
    assert documents.get_document(library, old.id).status is DocumentStatus.ACTIVE
    window.workbench.set_target(FolderTarget("smart", "trash", SCOPE))  # the trash keeps its own Restore
    qtbot.waitUntil(lambda: table.trash_mode(), timeout=WAIT_MS)
    assert table.restore_action.text() == "Restore from Trash" and not table.trash_action.isVisible()
