"""Small things a new user met in the real window: the empty-trash question counts, Settings shows the library
open now, the Tasks panel takes a strip of the window, not a third."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.services import documents
from vancetope_desktop.services.preferences import Preferences
from vancetope_desktop.ui import dialogs, settings_dialog

pytestmark = [pytest.mark.qt_log_ignore("This plugin does not support (propagateSizeHints|raise)")]


def test_the_empty_trash_question_says_how_many_items(qtbot, library, make_window, monkeypatch):
    for n in range(3):
        doc = documents.add_text(library, f"Note {n}", doc_type=DocumentType.NOTE)
        documents.set_status(library, doc.id, DocumentStatus.DELETED)
    window = make_window(library)
    qtbot.waitUntil(lambda: window.folder_tree.folder_model.smart_count("trash") == 3, timeout=10_000)
    asked: list[str] = []
    monkeypatch.setattr(dialogs, "confirm", lambda _parent, _title, text: asked.append(text) and False)
    window.empty_trash()
    assert asked == ["Delete the 3 items in the trash for good? This cannot be undone."]


def test_settings_show_the_library_open_now(qtbot, library):
    # Settings › Library folder showed the default path while another library was open (--library).
    dialog = settings_dialog.SettingsDialog(library.settings, Preferences(), open_library=library.paths.root)
    qtbot.addWidget(dialog)
    assert dialog.open_library_label.text() == str(library.paths.root)


def test_the_tasks_panel_opens_as_a_strip_and_stays_one_after_a_restart(qtbot, library, make_window):
    # Popped up by an import it took a third of the window, and kept it after every restart.
    window = make_window(library, size=(1400, 900))
    window.show_tasks()
    qtbot.waitUntil(window.tasks_dock.isVisible)
    qtbot.waitUntil(lambda: window.tasks_dock.height() <= 900 // 4)
    window.resizeDocks([window.tasks_dock], [320], Qt.Orientation.Vertical)  # as the trial's saved layout had
    qtbot.waitUntil(lambda: window.tasks_dock.height() > 900 // 4)
    window.close()
    again = make_window(library, size=None)
    assert again.tasks_dock.isVisible()
    qtbot.waitUntil(lambda: again.tasks_dock.height() <= again.height() // 4)
