"""A document's file outside the app: a copy named by its title, opened by the system, shown in the file
manager, and dragged out of the list as a file."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.ingest.registry import extract_file
from vancetope_desktop.services import documents, imports
from vancetope_desktop.ui import file_actions
from vancetope_desktop.ui.dnd import decode_document_ids

pytestmark = pytest.mark.qt_log_ignore("This plugin does not support (propagateSizeHints|raise)")


@pytest.fixture(autouse=True)
def _own_temp_folder(monkeypatch, tmp_path):
    """Named copies go under the system's temporary folder: this test's, here."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "system-temp"))
    (tmp_path / "system-temp").mkdir()


@pytest.fixture
def paper(library, tmp_path):
    """A small text file imported into the library (stored under its content hash)."""
    source = tmp_path / "notes-2024.md"
    source.write_text("# Attention: Is All You Need?\n\nA summary.\n", encoding="utf-8")
    outcome = imports.upload(library, [source], extractor=extract_file).outcomes[0]
    return documents.get_document(library, outcome.document_id)


class _Opened(QObject):
    """Receives what QDesktopServices would hand to the system (Qt's own hook for a URL scheme)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


@pytest.fixture
def opened(qapp):
    handler = _Opened()
    QDesktopServices.setUrlHandler("file", handler, "open")
    yield handler
    QDesktopServices.unsetUrlHandler("file")


def test_a_file_is_named_by_its_title(paper, library, tmp_path):
    assert paper.title == "Attention: Is All You Need?" and Path(paper.file_path).stem != "notes-2024"  # by hash
    assert file_actions.file_name(paper) == "Attention Is All You Need.md"
    copy = file_actions.named_copy(paper, tmp_path / "out")
    assert copy.name == "Attention Is All You Need.md" and copy.read_bytes() == Path(paper.file_path).read_bytes()
    assert file_actions.named_copy(paper, tmp_path / "out") == copy  # made once
    note = documents.add_text(library, "just text", doc_type=DocumentType.NOTE)
    assert file_actions.named_copy(note) is None and file_actions.add_file_urls(QMimeData(), [note]).urls() == []


def test_open_in_the_system_viewer_hands_over_the_named_copy(paper, opened):
    assert file_actions.open_in_system_viewer(paper) is None
    assert [Path(u.toLocalFile()).name for u in opened.urls] == ["Attention Is All You Need.md"]


def test_the_list_offers_the_file_actions_and_drags_files_out(qtbot, make_window, library, paper, opened):
    window = make_window(library)
    qtbot.waitUntil(lambda: window.table.document_model.row_for(paper.id) is not None, timeout=10_000)
    window.table.select_ids([paper.id])
    menu = window.table.context_menu()
    assert {"Open in System Viewer", "Show in File Manager"} <= {a.text() for a in menu.actions()}
    mime = window.table.drag_mime()
    assert decode_document_ids(mime) == [paper.id]
    assert [Path(u.toLocalFile()).name for u in mime.urls()] == ["Attention Is All You Need.md"]
    window.table.open_externally_action.trigger()
    assert Path(opened.urls[-1].toLocalFile()).name == "Attention Is All You Need.md"


def test_show_in_file_manager_opens_the_folder_when_no_file_manager_answers(paper, opened, monkeypatch):
    # Without a session bus no file manager can select the file: the containing folder is opened instead.
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")
    assert file_actions.show_in_file_manager(paper) is None
    assert [Path(u.toLocalFile()) for u in opened.urls] == [Path(paper.file_path).parent]
