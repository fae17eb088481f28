"""Viewer tabs in the window: a long title never widens the window, and an open tab follows its document."""

from __future__ import annotations

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.services import documents
from vancetope_desktop.ui.viewer import DocumentViewer

WAIT = 10_000


def _open(qtbot, window, doc_id: str) -> DocumentViewer:
    window.open_document(doc_id)
    qtbot.waitUntil(lambda: window.current_viewer() is not None
                    and window.current_viewer().current_document_id() == doc_id, timeout=WAIT)
    return window.current_viewer()


def test_a_300_character_title_leaves_the_window_narrower_than_a_laptop_screen(qtbot, library, make_window):
    title = ("Understanding the barriers to setting up a healthcare quality improvement process "
             "in resource-limited settings " * 3)[:300]
    note = documents.add_text(library, "Findings.", doc_type=DocumentType.NOTE, title=title)
    window = make_window(library)
    before = window.minimumSizeHint().width()
    viewer = _open(qtbot, window, note.id)
    assert viewer.title_label.full_text() == title == viewer.title_label.toolTip()
    assert window.minimumSizeHint().width() < 1280, (before, window.minimumSizeHint().width())
    assert window.minimumSizeHint().width() <= before + 50
