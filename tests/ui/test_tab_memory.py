"""Viewer tabs reopened after a restart: the same documents, the current tab and the PDF page; documents
purged or trashed in between are skipped silently."""

from __future__ import annotations

import pymupdf
from PySide6.QtCore import QSettings

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.ingest.registry import extract_file
from vancetope_desktop.services import documents, imports
from vancetope_desktop.ui import tab_memory
from vancetope_desktop.ui.viewer import DocumentViewer, PdfViewer

WAIT_MS = 10_000


def _pdf(path, pages: int = 6):
    doc = pymupdf.open()
    for number in range(1, pages + 1):
        doc.new_page().insert_text((72, 72), f"Page {number} of the tab test.")
    doc.save(path)
    doc.close()
    return path


def _open(qtbot, window, doc_id: str) -> DocumentViewer:
    window.open_document(doc_id)
    qtbot.waitUntil(lambda: window.current_viewer() is not None
                    and window.current_viewer().current_document_id() == doc_id, timeout=WAIT_MS)
    return window.current_viewer()


def _tab_ids(window) -> list[str]:
    return [window.tabs.widget(i).current_document_id() for i in range(1, window.tabs.count())]


def test_tabs_the_current_one_and_the_pdf_page_come_back_in_a_new_window(qtbot, library, make_window, tmp_path):
    note = documents.add_text(library, "# Plan\n\nThe plan.", doc_type=DocumentType.NOTE)
    gone = documents.add_text(library, "Purged before the restart.", title="Gone")
    trashed = documents.add_text(library, "Trashed before the restart.", title="Trashed")
    pdf_id = imports.upload(library, [_pdf(tmp_path / "six.pdf")], extractor=extract_file).outcomes[0].document_id
    first = make_window(library)
    for doc_id in (gone.id, pdf_id, trashed.id):
        _open(qtbot, first, doc_id)
    pdf = first._viewer_for(pdf_id).viewer(PdfViewer)
    pdf.go_to_page(4)
    qtbot.waitUntil(lambda: pdf.current_page() == 4, timeout=WAIT_MS)
    _open(qtbot, first, note.id)  # the current tab, last
    first.close()
    for doc_id in (gone.id, trashed.id):
        documents.set_status(library, doc_id, DocumentStatus.DELETED)
    documents.purge_document(library, gone.id)

    second = make_window(library)
    qtbot.waitUntil(lambda: _tab_ids(second) == [pdf_id, note.id], timeout=WAIT_MS)
    assert second.current_viewer().current_document_id() == note.id
    reopened = second._viewer_for(pdf_id).viewer(PdfViewer)
    qtbot.waitUntil(lambda: reopened.current_page() == 4, timeout=WAIT_MS)


def test_tabs_are_remembered_per_library_and_garbage_is_ignored(qtbot, tmp_path):
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    tabs = [tab_memory.OpenTab("doc_a", 3), tab_memory.OpenTab("doc_b")]
    tab_memory.save_tabs(settings, "open_tabs/one", tabs, "doc_b")
    assert tab_memory.load_tabs(settings, "open_tabs/one") == (tabs, "doc_b")
    assert tab_memory.load_tabs(settings, "open_tabs/other") == ([], None)
    for garbage in ("not json", '{"tabs": [1, 2]}', '["doc_a"]', '{"tabs": [["doc_a", -2]], "current": 5}'):
        settings.setValue("open_tabs/one", garbage)
        loaded = tab_memory.load_tabs(settings, "open_tabs/one")
        assert loaded in (([], None), ([tab_memory.OpenTab("doc_a")], None))
