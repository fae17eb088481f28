"""Viewer tabs in the window: a long title never widens the window, and an open tab follows its document."""

from __future__ import annotations

from tests.services.test_annotations import PAGE_ONE, PAGE_TWO, make_pdf
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.ingest.registry import extract_file
from vancetope_desktop.services import documents, imports
from vancetope_desktop.ui import dialogs
from vancetope_desktop.ui.edit_conflict_dialog import EditConflictDialog
from vancetope_desktop.ui.viewer import DocumentViewer, MarkdownViewer, PdfViewer

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


def _markdown(viewer: DocumentViewer) -> MarkdownViewer:
    markdown = viewer.viewer(MarkdownViewer)
    assert isinstance(markdown, MarkdownViewer)
    return markdown


def test_an_open_note_shows_its_text_again_after_its_edit_is_undone(qtbot, library, make_window):
    note = documents.add_text(library, "First thoughts.", doc_type=DocumentType.NOTE, title="Thoughts")
    window = make_window(library)
    markdown = _markdown(_open(qtbot, window, note.id))
    markdown.start_editing()
    markdown.editor.setPlainText("EDITED: second thoughts.")
    markdown.save()
    qtbot.waitUntil(lambda: window.undo_actions.undo_action.text().startswith("Undo Edit"), timeout=WAIT)
    window.undo_actions.undo_action.trigger()
    qtbot.waitUntil(lambda: documents.get_document(library, note.id).content == "First thoughts.", timeout=WAIT)
    qtbot.waitUntil(lambda: markdown.text() == "First thoughts.", timeout=WAIT)
    assert "EDITED" not in markdown.browser.toPlainText()


def test_the_missing_link_banner_goes_when_the_linked_note_is_created(qtbot, library, make_window):
    note = documents.add_text(library, "See [[Early warning models]].", doc_type=DocumentType.NOTE, title="Plan")
    window = make_window(library)
    viewer = _open(qtbot, window, note.id)
    assert "Early warning models" in viewer.notice_label.text()
    window.workbench.new_note("Early warning models", "Scores.")
    qtbot.waitUntil(lambda: viewer.notice_label.isHidden(), timeout=WAIT)


def _changed_while_editing(qtbot, library, window, viewer, note_id: str, draft: str, **change) -> MarkdownViewer:
    """``draft`` typed in the open note's editor, then ``change`` written as another process would: the bar shows."""
    markdown = _markdown(viewer)
    markdown.start_editing()
    markdown.editor.setPlainText(draft)
    documents.update_document(library, note_id, **change)
    window.workbench.refresh()
    qtbot.waitUntil(lambda: viewer.change_bar.isVisibleTo(viewer), timeout=WAIT)
    return markdown


def test_reload_on_the_change_bar_asks_before_dropping_the_draft(qtbot, library, make_window, monkeypatch):
    note = documents.add_text(library, "Version one.", doc_type=DocumentType.NOTE, title="Draft")
    window = make_window(library)
    viewer = _open(qtbot, window, note.id)
    markdown = _changed_while_editing(qtbot, library, window, viewer, note.id, "My draft.",
                                      content="Changed elsewhere.", title="Draft, renamed")
    assert markdown.is_editing() and markdown.editor.toPlainText() == "My draft."  # nothing overwritten
    assert "changed since you started editing" in viewer.change_bar.label.text()
    assert viewer.title_label.full_text() == "Draft, renamed"  # the heading follows, as the tab does
    asked: list[str] = []
    monkeypatch.setattr(dialogs, "confirm", lambda _parent, _title, text: asked.append(text) or False)
    viewer.change_bar.reload_button.click()
    assert asked and "draft will be lost" in asked[0]
    assert markdown.is_editing() and markdown.editor.toPlainText() == "My draft."  # declined: kept
    monkeypatch.setattr(dialogs, "confirm", lambda *_args: True)
    viewer.change_bar.reload_button.click()
    assert not markdown.is_editing() and markdown.text() == "Changed elsewhere."
    assert not viewer.change_bar.isVisibleTo(viewer)


def test_saving_after_the_change_bar_opens_the_conflict_dialog_never_overwrites(qtbot, library, make_window):
    note = documents.add_text(library, "Version one.", doc_type=DocumentType.NOTE, title="Draft")
    window = make_window(library)
    viewer = _open(qtbot, window, note.id)
    markdown = _changed_while_editing(qtbot, library, window, viewer, note.id, "Mine.", content="Theirs.")
    assert not hasattr(viewer.change_bar, "keep_button")  # no way to go on editing over theirs unasked
    markdown.save()
    qtbot.waitUntil(lambda: window.findChild(EditConflictDialog) is not None, timeout=WAIT)
    assert documents.get_document(library, note.id).content == "Theirs."


def test_compare_on_the_change_bar_opens_the_conflict_dialog_with_the_draft(qtbot, library, make_window):
    note = documents.add_text(library, "Version one.", doc_type=DocumentType.NOTE, title="Draft")
    window = make_window(library)
    viewer = _open(qtbot, window, note.id)
    _changed_while_editing(qtbot, library, window, viewer, note.id, "Mine.", content="Theirs.")
    viewer.change_bar.compare_button.click()
    qtbot.waitUntil(lambda: window.findChild(EditConflictDialog) is not None
                    and window.findChild(EditConflictDialog).isVisible(), timeout=WAIT)
    dialog = window.findChild(EditConflictDialog)
    assert (dialog.sides.mine, dialog.sides.theirs.content, dialog.sides.base.number) == ("Mine.", "Theirs.", 1)
    dialog.keep_mine_button.click()
    qtbot.waitUntil(lambda: documents.get_document(library, note.id).content == "Mine.", timeout=WAIT)
    assert documents.get_document(library, note.id).version == 3
    qtbot.waitUntil(lambda: _markdown(viewer).text() == "Mine.", timeout=WAIT)


def test_an_open_pdf_follows_a_rename_and_keeps_its_found_words(qtbot, library, make_window, tmp_path):
    path = make_pdf(tmp_path / "paper.pdf", [PAGE_ONE, PAGE_TWO])
    doc_id = imports.upload(library, [path], extractor=extract_file).outcomes[0].document_id
    window = make_window(library)
    window.open_document(doc_id, 2, "Mixed precision")
    qtbot.waitUntil(lambda: window.current_viewer() is not None
                    and isinstance(window.current_viewer().current_widget(), PdfViewer), timeout=WAIT)
    viewer = window.current_viewer()
    find = viewer.current_widget().find_bar.edit
    qtbot.waitUntil(lambda: find.text() == "Mixed precision", timeout=WAIT)
    documents.update_document(library, doc_id, title="Renamed paper", metadata={"journal": "Elsewhere"})
    window.workbench.refresh()  # as the poll does when another process changed it
    qtbot.waitUntil(lambda: viewer.title_label.full_text() == "Renamed paper", timeout=WAIT)
    assert viewer.current_document().metadata["journal"] == "Elsewhere"
    assert find.text() == "Mixed precision" and viewer.current_widget().current_page() == 2  # not reloaded
