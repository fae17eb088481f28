"""Window chrome: shortcuts work from any focus, the Help menu (shortcut sheet, user guide), first-start docks."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QCompleter, QStyleOptionViewItem, QWidget

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.services import documents
from vancetope_desktop.ui import help_dialogs, main_window
from vancetope_desktop.ui.document_model import Column

pytestmark = [pytest.mark.qt_log_ignore("This plugin does not support (propagateSizeHints|raise)")]

CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


class _NoDialog:
    def __init__(self, *_args, **_options) -> None:
        pass

    def exec(self) -> int:
        return 0


@pytest.mark.parametrize("where", ["quick filter", "tag filter", "search box", "completer popup", "floating dock"])
def test_import_folder_and_settings_keys_work_from_any_focus(qtbot, make_window, library, monkeypatch, where):
    # Ctrl+Shift+O was swallowed with a filter box focused, and Ctrl+, did not open Settings.
    window = make_window(library)
    fired: list[str] = []
    window.import_folder_action.triggered.connect(lambda: fired.append("import folder"))
    window.settings_action.triggered.connect(lambda: fired.append("settings"))
    monkeypatch.setattr(main_window.QFileDialog, "getExistingDirectory", lambda *_a, **_k: "")
    monkeypatch.setattr(main_window, "SettingsDialog", _NoDialog)
    target = {"quick filter": window.quick_filter, "tag filter": window.tag_pane.filter_edit,
              "search box": window.search_pane.query_edit, "completer popup": window.quick_filter,
              "floating dock": window.search_pane.query_edit}[where]
    if where == "floating dock":
        window.search_dock.setFloating(True)
        window.search_dock.activateWindow()
    target.setFocus()
    if where == "completer popup":
        completer = QCompleter(["alpha", "alpine"], target)
        target.setCompleter(completer)
        qtbot.keyClicks(target, "al")
        qtbot.waitUntil(completer.popup().isVisible)
        target = QApplication.activePopupWidget()
    qtbot.keyClick(target, Qt.Key.Key_O, CTRL_SHIFT)
    qtbot.keyClick(target, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    assert fired == ["import folder", "settings"]
    assert window.settings_action.shortcutContext() == Qt.ShortcutContext.ApplicationShortcut


def test_the_shortcut_sheet_lists_the_windows_actions_and_the_lists_keys(qtbot, make_window, library):
    window = make_window(library)
    window.shortcuts_action.trigger()
    sheet = next(w for w in window.findChildren(help_dialogs.ShortcutSheet) if w.isVisible())
    rows = sheet.rows()
    assert ("Window", "Import folder", "Ctrl+Shift+O") in rows and ("Window", "Settings", "Ctrl+,") in rows
    assert ("Window", "Review Queue", "Ctrl+Shift+R") in rows  # added by another module: still listed
    assert ("Document list", "Delete permanently", "Shift+Del") in rows
    # Generated, not written down: a new action with a shortcut shows up in the next sheet.
    window.make_action("Frobnicate", lambda: None, "Ctrl+Alt+J")
    sheet.close()
    window.shortcuts_action.trigger()
    newest = [w for w in window.findChildren(help_dialogs.ShortcutSheet) if w.isVisible()][-1]
    assert ("Window", "Frobnicate", "Ctrl+Alt+J") in newest.rows()
    newest.close()


def test_the_shortcut_sheet_names_each_action_once_and_shows_its_keys_whole(qtbot, make_window, library):
    # The trial's sheet: "Undo Trash “The Further Adventures…”" (the action's current text), "Redo" twice
    # (once with the key "Redo"), the Keys column cut to "Ctrl-…", and no viewer keys at all.
    window = make_window(library)
    window.undo_actions.undo_action.setText("Undo Trash “The Further Adventures of Hermione Granger”")
    window.shortcuts_action.trigger()
    sheet = next(w for w in window.findChildren(help_dialogs.ShortcutSheet) if w.isVisible())
    qtbot.waitExposed(sheet)
    rows = sheet.rows()
    assert ("Window", "Undo", "Ctrl+Z") in [(*row[:2], row[2].split(", ")[0]) for row in rows]
    redo = [row for row in rows if row[1] == "Redo"]
    assert len(redo) == 1 and redo[0][2].startswith("Ctrl+Shift+Z")
    assert not any("Trash “" in row[1] or row[2] in {"Redo", "Undo"} for row in rows)
    tab = {row[1]: row[2] for row in rows if row[0] == "Document tab"}
    assert tab["Highlight the selected text (PDF)"] == "Ctrl+Shift+H" and tab["Save the note being edited"] == "Ctrl+S"
    table = sheet.table
    assert table.columnWidth(2) >= table.sizeHintForColumn(2)
    assert table.horizontalHeader().length() <= table.viewport().width()
    sheet.close()


def test_the_user_guide_opens_in_the_markdown_viewer(qtbot, make_window, library):
    window = make_window(library)
    window.guide_action.trigger()
    guide = next(w for w in window.findChildren(help_dialogs.UserGuide) if w.isVisible())
    assert "Vancetope Desktop in five minutes" in guide.viewer.browser.toPlainText()
    assert window.guide_action in window.menuBar().actions()[-1].menu().actions()
    guide.close()


@pytest.mark.parametrize(("size", "folders", "search"), [((1600, 1000), 260, 384), ((1280, 800), 218, 307)])
def test_first_start_sizes_the_docks_to_the_window(size, folders, search):
    # The docks had 260 and 380 pixels whatever the window: at 1280 the list kept 600 pixels.
    assert main_window.default_dock_widths(size[0]) == [max(folders, 220), min(search, 380)]


def test_the_library_tab_keeps_its_name_with_many_documents_open(qtbot, make_window, library):
    # With a dozen documents open the tabs shrank alike and the Library tab read "L…".
    window = make_window(library, size=(1280, 800))
    for number in range(14):
        window.tabs.addTab(QWidget(), f"A long document title number {number}")
    bar = window.tabs.tabBar()
    qtbot.waitUntil(lambda: bar.tabRect(1).width() < bar.tabSizeHint(1).width())  # documents shrink
    assert bar.tabRect(0).width() >= bar.tabSizeHint(0).width()


@pytest.mark.parametrize("size", [(1280, 800), (1600, 1000)])
def test_the_list_shows_a_tag_chip_at_common_window_sizes(qtbot, make_window, library, size):
    # The Review pane's button row asked 396 px of the right docks: at 1280x800 the list's Tags column
    # kept 63 px and read "+2", not a tag.
    note = documents.add_text(library, "Flash attention tiles the softmax", doc_type=DocumentType.NOTE,
                              tags=["efficiency", "hardware"])
    window = make_window(library, size=size)
    table = window.table
    qtbot.waitUntil(lambda: table.proxy.rowCount() == 1)
    qtbot.waitUntil(lambda: table.columnWidth(Column.TAGS) > 0)
    option = QStyleOptionViewItem()
    option.initFrom(table)
    option.rect = table.visualRect(table.proxy.index(0, Column.TAGS))
    placed, _hidden = window.chips_delegate.layout_chips(option, note.tags)
    assert placed, f"Tags column {option.rect.width()} px wide: only '+{len(note.tags)}'"
