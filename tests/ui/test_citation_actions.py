"""Copy Citation puts the chosen style on the clipboard (text and HTML); Export writes the file the dialog
names, in the format of its type; the Details panel shows the document's citation key."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QFileDialog

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.ingest.bibliography import parse_ris
from vancetope_desktop.services import documents, folders
from vancetope_desktop.services.bibliography import add_references
from vancetope_desktop.services.preferences import load_preferences
from vancetope_desktop.ui.folder_model import FolderTarget

BIB = "@article{ruiz2019,\n  author = {Ruiz, Ana},\n  title = {Glacier melt},\n  journal = {The Cryosphere},\n" \
      "  year = {2019},\n}\n"


def _menu_texts(menu) -> list[str]:
    return [a.text() for a in menu.actions()]


def test_copy_citation_puts_the_chosen_style_on_the_clipboard(qtbot, library, make_window):
    ref_id = add_references(library, BIB).entries[0].document_id
    window = make_window(library)
    qtbot.waitUntil(lambda: window.table.document_model.rowCount() == 1, timeout=10_000)
    window.table.select_ids([ref_id])
    assert {"Copy Citation", "Export…"} <= set(_menu_texts(window.table.context_menu()))

    window.citations.style_actions["ieee"].trigger()
    assert load_preferences().citation_style == "ieee"  # remembered for the next start
    QApplication.clipboard().clear()
    window.table.setFocus()
    window.citations.copy_action.trigger()
    qtbot.waitUntil(lambda: "Ruiz" in QApplication.clipboard().text(), timeout=10_000)
    mime = QApplication.clipboard().mimeData()
    assert QApplication.clipboard().text().startswith("[1]A. Ruiz, “Glacier melt”")
    assert "<i>The Cryosphere</i>" in mime.html()
    assert "Copied 1 citation (IEEE)" in window.statusBar().currentMessage()


def test_export_of_a_folder_writes_the_file_the_dialog_names(qtbot, library, make_window, tmp_path, monkeypatch):
    folder = folders.create_folder(library, "Chapter 2")
    note = documents.add_text(library, "Ice shelves thin from below.", doc_type=DocumentType.NOTE,
                              title="Shelf notes", folder_id=folder.id)
    documents.add_text(library, "Not in the folder.", doc_type=DocumentType.NOTE, title="Elsewhere")
    window = make_window(library)
    target = tmp_path / "chapter2"  # no suffix typed: the file type chosen in the dialog decides
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args, **kwargs: (str(target), "RIS (*.ris)"))
    menu = window.folder_tree.context_menu(FolderTarget("folder", folder.id, window.current_scope))
    export = next(a for a in menu.actions() if a.text() == "Export Folder…")
    export.trigger()
    written = tmp_path / "chapter2.ris"
    qtbot.waitUntil(written.exists, timeout=10_000)
    entries = parse_ris(written.read_text(encoding="utf-8")).entries
    assert [(e.kind, e.title) for e in entries] == [("GEN", "Shelf notes")]
    qtbot.waitUntil(lambda: "Exported 1 entries as RIS" in window.statusBar().currentMessage(), timeout=10_000)
    # the key the export assigned is the document's, shown and editable in Details
    key = documents.get_document(library, note.id).metadata["citation_key"]
    window.table.select_ids([note.id])
    qtbot.waitUntil(lambda: "citation_key" in window.details.metadata_fields, timeout=10_000)
    assert window.details.metadata_fields["citation_key"].text() == key == f"shelf{note.created_at.year}"


def test_details_gives_a_shown_document_its_key(qtbot, library, make_window):
    note = documents.add_text(library, "Ice.", doc_type=DocumentType.NOTE, title="Glacier field notes")
    window = make_window(library)
    qtbot.waitUntil(lambda: window.table.document_model.rowCount() == 1, timeout=10_000)
    window.table.select_ids([note.id])
    qtbot.waitUntil(lambda: "citation_key" in window.details.metadata_fields, timeout=10_000)
    assert window.details.metadata_fields["citation_key"].text() == f"glacier{note.created_at.year}"
