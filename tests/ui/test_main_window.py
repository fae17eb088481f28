"""The main window without the indexing process: what each scope shows, menus and shortcuts, the
first-start page and the demo library, layout persistence, refused drops, and the screenshot command."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from PySide6.QtCore import QMimeData, QPointF, QUrl
from PySide6.QtGui import QKeySequence

from tests.ui.drops import drag_and_drop
from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.scopes import ScopeKind
from vancetope_desktop.services import documents, scopes
from vancetope_desktop.ui.dialogs import NewScopeDialog
from vancetope_desktop.ui.document_model import Column
from vancetope_desktop.ui.folder_model import FolderTarget
from vancetope_desktop.ui.screenshots import SHOTS, ScreenshotTour


def _rows(window) -> dict[str, str]:
    model = window.table.document_model
    return {model.index(r, Column.TITLE).data(): model.index(r, Column.SCOPE).data() for r in range(model.rowCount())}


def test_each_scope_shows_its_own_and_inherited_documents_never_a_siblings(qtbot, library, make_window):
    scopes.create_scope(library, "session", "sess_7", parent="project/inbox", name="Session 7")
    scopes.create_scope(library, "think-process", "tp_12", parent="session/sess_7", name="Hypothesis Check")
    scopes.create_scope(library, "think-process", "tp_13", parent="session/sess_7", name="Paper Analysis")
    documents.add_text(library, "Deadline is June 15th")
    documents.add_text(library, "Counterarguments", scope="think-process/tp_12")
    documents.add_text(library, "Extraction of Vaswani", scope="think-process/tp_13")
    window = make_window(library)
    assert _rows(window) == {"Deadline is June 15th": "Inbox"}
    assert window.scope_switcher.breadcrumb_text() == "My Research › Inbox"

    window.scope_switcher.scope_selected.emit("think-process/tp_12")
    qtbot.waitUntil(lambda: window.workbench.snapshot.state.scope == "think-process/tp_12", timeout=10_000)
    qtbot.waitUntil(lambda: len(_rows(window)) == 2, timeout=10_000)
    assert _rows(window) == {"Counterarguments": "Hypothesis Check", "Deadline is June 15th": "↑ Inbox"}
    assert window.scope_switcher.breadcrumb_text() == "My Research › Inbox › Session 7 › Hypothesis Check"
    assert scopes.current_scope(library) == "project/inbox"  # the CLI's current scope is not the window's
    tree_scopes = [t.key for t in window.folder_tree.folder_model.targets() if t.kind == "scope"]
    assert tree_scopes == ["think-process/tp_12", "session/sess_7", "project/inbox", "group/default"]


def test_a_scope_change_loads_the_library_once(qtbot, library, make_window, monkeypatch):
    # The folder tree makes "All documents" of the new scope current; taken as a new choice, it loaded it again.
    scopes.create_scope(library, "session", "s1", parent="project/inbox", name="Session one")
    window = make_window(library)
    loads, submit = [], window.tasks.submit
    monkeypatch.setattr(window.tasks, "submit", lambda title, *a, **k: (loads.append(title), submit(title, *a, **k))[1])
    window.workbench.set_scope("session/s1")
    qtbot.waitUntil(lambda: window.workbench.snapshot.state.scope == "session/s1", timeout=10_000)
    assert window.folder_tree.current_target() == FolderTarget("smart", "all", "session/s1")
    assert [title for title in loads if title == "load"] == ["load"]


def test_menus_carry_the_usual_shortcuts(library, make_window):
    window = make_window(library)
    expected = {
        window.new_note_action: QKeySequence(QKeySequence.StandardKey.New),
        window.find_action: QKeySequence(QKeySequence.StandardKey.Find),
        window.trash_action: QKeySequence(QKeySequence.StandardKey.Delete),
        window.rename_action: QKeySequence("F2"),
        window.import_action: QKeySequence(QKeySequence.StandardKey.Open),
    }
    for action, keys in expected.items():
        assert action.shortcut() == keys, action.text()
    menu_titles = [a.text() for a in window.menuBar().actions()]
    assert menu_titles == ["&File", "&Edit", "&Document", "&View", "&Scope", "&Help"]
    file_menu = window.menuBar().actions()[0].menu()
    assert {"New note…", "Import files…", "Import folder…", "Settings…", "Quit"} <= {
        a.text() for a in file_menu.actions()}
    window.find_action.trigger()
    assert window.search_dock.isVisible()


def test_first_start_offers_the_demo_and_it_loads(qtbot, library, make_window):
    window = make_window(library)
    assert window.library_stack.currentWidget() is window.welcome
    window.welcome.demo_button.click()
    qtbot.waitUntil(lambda: window.workbench.snapshot.state.scope == "project/transformer-efficiency",
                    timeout=60_000)
    qtbot.waitUntil(lambda: not window.workbench.snapshot.library_empty, timeout=10_000)
    assert window.library_stack.currentWidget() is not window.welcome
    titles = set(_rows(window))
    assert any("FlashAttention" in t for t in titles)
    assert "Supervisor: Prof. Müller" in titles
    folders = {f.title for f in window.workbench.snapshot.folders}
    assert {"Papers", "Facts", "References"} <= folders


def test_layout_and_scope_are_restored_on_the_next_start(qtbot, library, make_window):
    scopes.create_scope(library, "session", "s1", parent="project/inbox", name="Session one")
    first = make_window(library)
    first.resize(700, 500)
    first.tags_dock.hide()
    first.workbench.set_scope("session/s1")
    qtbot.waitUntil(lambda: first.workbench.snapshot.state.scope == "session/s1", timeout=10_000)
    first.close()
    second = make_window(library, size=None)
    assert second.height() == 500  # (the offscreen screen is too narrow to test the width)
    assert not second.tags_dock.isVisible()
    assert second.workbench.snapshot.state.scope == "session/s1"
    assert scopes.current_scope(library) == "project/inbox"


def test_a_web_link_dropped_on_the_window_gets_a_clear_message(qtbot, library, make_window):
    window = make_window(library)
    mime = QMimeData()
    mime.setUrls([QUrl("https://arxiv.org/abs/1706.03762")])
    drag_and_drop(window.table.viewport(), mime, QPointF(20, 20))
    qtbot.waitUntil(lambda: window.error_box is not None, timeout=5000)
    assert "web link" in window.error_box.text()
    assert window.tasks.tasks == []


@pytest.mark.slow
def test_the_screenshot_command_saves_the_main_screens(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "VANCETOPE_CONFIG_DIR": str(tmp_path / "config")}
    shots = tmp_path / "shots"
    result = subprocess.run(
        [sys.executable, "-m", "vancetope_desktop.app", "--library", str(tmp_path / "library"),
         "--screenshots", str(shots)], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    for name in SHOTS:
        assert (shots / name).stat().st_size > 20_000, name


def test_the_screenshot_tour_never_writes_into_a_library_holding_work(qtbot, library, make_window, tmp_path):
    # The tour adds annotations, notes and duplicates: it used to run on whatever library it was given.
    documents.add_text(library, "Someone's own note", doc_type=DocumentType.NOTE)
    window = make_window(library)
    tour = ScreenshotTour(window, tmp_path / "shots")
    with qtbot.waitSignal(tour.finished, timeout=10_000):
        tour.start()
    assert tour.saved == [] and "builds its own library" in tour.errors[0]
    assert [d.title for d in documents.list_documents(library)] == ["Someone's own note"]


def test_folder_tag_and_scope_actions_go_through_the_services(qtbot, library, make_window):
    note = documents.add_text(library, "Flash attention tiles the softmax", doc_type=DocumentType.NOTE,
                              tags=["topic/attention"])
    scopes.create_scope(library, "session", "s1", parent="project/inbox", name="Session one")
    window = make_window(library)
    wb = window.workbench

    def snapshot_has(check):
        qtbot.waitUntil(lambda: check(wb.snapshot), timeout=10_000)

    wb.create_folder("Reading")
    snapshot_has(lambda s: [f.title for f in s.folders] == ["Reading"])
    folder = wb.snapshot.folders[0]
    window.folder_tree.folder_model.rename_requested.emit(folder.id, "To read")
    snapshot_has(lambda s: [f.title for f in s.folders] == ["To read"])
    wb.move_documents([note.id], FolderTarget("folder", folder.id, folder.scope))
    snapshot_has(lambda s: s.folders[0].own_count == 1)
    wb.set_status([folder.id], DocumentStatus.DELETED, "Delete folder")
    snapshot_has(lambda s: s.folders == [] and s.smart_counts["trash"] == 2)
    wb.set_target(FolderTarget("smart", "trash", "project/inbox"))
    snapshot_has(lambda s: {d.title for d in s.documents} == {"To read", "Flash attention tiles the softmax"})
    assert window.table.trash_mode()
    window.table.restore_requested.emit([folder.id])  # Restore from Trash: lifecycle.bring_back, as `memory restore`
    snapshot_has(lambda s: s.smart_counts["trash"] == 0)

    window.tag_pane.rename_requested.emit("topic", "subject")
    snapshot_has(lambda s: [t.tag for t in s.tags] == ["subject", "subject/attention"])
    window.tag_pane.color_requested.emit("subject", "#aa3355")
    snapshot_has(lambda s: s.tag_colors == {"subject": "#aa3355"})

    wb.rename_scope("session/s1", "Literature review")
    snapshot_has(lambda s: any(x.name == "Literature review" for x in s.scopes))
    wb.set_scope("session/s1")
    snapshot_has(lambda s: s.state.scope == "session/s1")
    wb.archive_scope("session/s1")
    snapshot_has(lambda s: s.state.scope == "project/inbox" and all(x.path != "session/s1" for x in s.scopes))
    assert window.scope_switcher.breadcrumb_text() == "My Research › Inbox"


def test_new_scope_dialog_derives_the_id_from_the_name(qtbot):
    dialog = NewScopeDialog(ScopeKind.PROJECT, "Inbox")
    qtbot.addWidget(dialog)
    qtbot.keyClicks(dialog.name_edit, "Literature Review 2026")
    assert dialog.values() == ("session", "literature-review-2026", "Literature Review 2026")
    dialog.key_edit.clear()
    qtbot.keyClicks(dialog.key_edit, "s_7")
    qtbot.keyClicks(dialog.name_edit, "!")
    assert dialog.values()[1] == "s_7"  # an id the user typed is kept


def test_an_inherited_document_is_not_trashed_from_below(qtbot, library, make_window):
    scopes.create_scope(library, "session", "s1", parent="project/inbox", name="Session one")
    inherited = documents.add_text(library, "Project fact")
    own = documents.add_text(library, "Session fact", scope="session/s1")
    window = make_window(library, "session/s1")
    window.trash_documents([inherited.id, own.id])
    qtbot.waitUntil(lambda: documents.get_document(library, own.id).status is DocumentStatus.DELETED, timeout=10_000)
    assert documents.get_document(library, inherited.id).status is DocumentStatus.ACTIVE
    assert "read-only here" in window.statusBar().currentMessage()


def test_an_inherited_note_opens_without_edit(qtbot, library, make_window):
    from vancetope_desktop.ui.viewer.markdown_viewer import MarkdownViewer

    scopes.create_scope(library, "session", "s1", parent="project/inbox", name="Session one")
    inherited = documents.add_text(library, "# Plan\n\nThe project's plan.", doc_type=DocumentType.NOTE)
    own = documents.add_text(library, "# Mine\n\nA session note.", doc_type=DocumentType.NOTE, scope="session/s1")
    window = make_window(library, "session/s1")
    for doc, editable in ((inherited, False), (own, True)):
        window.open_document(doc.id)
        qtbot.waitUntil(lambda d=doc: window.current_viewer() is not None
                        and window.current_viewer().current_document_id() == d.id, timeout=10_000)
        markdown = window.current_viewer().viewer(MarkdownViewer)
        assert markdown.edit_button.isVisibleTo(window) is editable


def test_a_document_chosen_in_search_stays_in_details_across_refreshes(qtbot, library, make_window):
    shown = documents.add_text(library, "Sparse attention cuts the cost of long contexts", title="Sparse attention")
    documents.add_text(library, "Deadline is June 15th")
    window = make_window(library)
    window._search_selected(shown.id)
    qtbot.waitUntil(lambda: window.details.document_id() == shown.id, timeout=10_000)
    assert window.table.selected_ids() == []
    # Another process changes the library: the window refreshes, the panel keeps its document, fresh.
    documents.update_document(library, shown.id, title="Sparse attention, revised")
    with qtbot.waitSignal(window.workbench.snapshot_ready, timeout=10_000):
        window.workbench.refresh()
    assert window.details.document_id() == shown.id
    qtbot.waitUntil(lambda: window.details.title_edit.text() == "Sparse attention, revised", timeout=10_000)
    # A purged document leaves the panel without an error.
    documents.set_status(library, shown.id, DocumentStatus.DELETED)
    documents.purge_document(library, shown.id)
    with qtbot.waitSignal(window.workbench.snapshot_ready, timeout=10_000):
        window.workbench.refresh()
    qtbot.waitUntil(lambda: window.details.document_id() is None, timeout=10_000)
