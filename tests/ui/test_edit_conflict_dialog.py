"""A stale save in the app (issue 17): a note edited in a tab while another writer changed it opens the conflict
dialog, theirs and yours side by side, and Keep mine, Keep theirs or Merge settles it; nothing is overwritten
unasked, and each version says who made it."""

from __future__ import annotations

import pytest

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.services import documents, edit_merge, identity
from vancetope_desktop.ui.edit_conflict_dialog import Choice, EditConflictDialog
from vancetope_desktop.ui.review_model import actor_label
from vancetope_desktop.ui.viewer import MarkdownViewer

WAIT = 10_000
TEXT = "# Trial plan\n\nRecruit 40 patients.\n\nAnalyse with a t-test.\n\nReport in May.\n"


@pytest.fixture
def stale_save(qtbot, library, make_window, monkeypatch):
    """``stale(theirs, mine)``: the note (TEXT) open in a tab, ``mine`` typed in its editor, ``theirs`` written
    by bob meanwhile (the window not told), then saved; returns (note id, the conflict dialog, the window)."""

    def stale(theirs: str, mine: str):
        monkeypatch.setenv(identity.IDENTITY_ENV, "ada")
        note = documents.add_text(library, TEXT, doc_type=DocumentType.NOTE, title="Trial plan")
        window = make_window(library)
        window.open_document(note.id)
        qtbot.waitUntil(lambda: window.current_viewer() is not None
                        and window.current_viewer().current_document_id() == note.id, timeout=WAIT)
        markdown = window.current_viewer().viewer(MarkdownViewer)
        markdown.start_editing()
        markdown.editor.setPlainText(mine)
        monkeypatch.setenv(identity.IDENTITY_ENV, "bob")
        documents.update_document(library, note.id, content=theirs)  # another writer, before the window notices
        monkeypatch.setenv(identity.IDENTITY_ENV, "ada")
        markdown.save()
        qtbot.waitUntil(lambda: window.findChild(EditConflictDialog) is not None
                        and window.findChild(EditConflictDialog).isVisible(), timeout=WAIT)
        assert documents.get_document(library, note.id).content == theirs  # nothing written yet
        return note.id, window.findChild(EditConflictDialog), window

    return stale


def test_keep_mine_saves_the_draft_after_theirs_which_stays_in_the_history(qtbot, library, stale_save):
    mine = TEXT.replace("t-test", "Wilcoxon test")
    doc_id, dialog, window = stale_save(TEXT.replace("t-test", "mixed model"), mine)
    assert "version 2" in dialog.summary.text() and "bob" in dialog.summary.text()
    assert dialog.diff.left_label.text() == "Theirs — version 2 by bob"
    assert dialog.diff.stats().blocks == 1  # the one line the two sides differ in
    dialog.keep_mine_button.click()
    qtbot.waitUntil(lambda: documents.get_document(library, doc_id).version == 3, timeout=WAIT)
    saved = documents.get_document(library, doc_id)
    assert (saved.content, saved.updated_by) == (mine, "user:ada")
    kept = documents.read_version(library, doc_id, 2)
    assert (kept.content, kept.created_by) == (TEXT.replace("t-test", "mixed model"), "user:bob")
    window.details.set_versions(documents.list_versions(library, doc_id), {}, "user:ada")
    shown = window.details.versions_list
    assert [shown.topLevelItem(i).text(3) for i in range(2)] == ["bob", "ada (you)"]  # Details › History: who


def test_keep_theirs_drops_the_draft_and_shows_the_stored_version(qtbot, library, stale_save):
    theirs = TEXT.replace("t-test", "mixed model")
    doc_id, dialog, window = stale_save(theirs, TEXT.replace("t-test", "Wilcoxon test"))
    dialog.keep_theirs_button.click()
    markdown = window.current_viewer().viewer(MarkdownViewer)
    qtbot.waitUntil(lambda: markdown.text() == theirs, timeout=WAIT)
    assert documents.get_document(library, doc_id).version == 2 and dialog.choice is Choice.THEIRS


def test_merge_takes_both_changes_when_they_do_not_overlap(qtbot, library, stale_save):
    doc_id, dialog, _window = stale_save(TEXT.replace("in May", "in June"), TEXT.replace("40", "60"))
    assert dialog.merge_button.isVisible()
    dialog.merge_button.click()
    assert "merged cleanly" in dialog.merge_note.text() and dialog.save_merge_button.isEnabled()
    dialog.save_merge_button.click()
    qtbot.waitUntil(lambda: documents.get_document(library, doc_id).version == 3, timeout=WAIT)
    assert documents.get_document(library, doc_id).content == TEXT.replace("40", "60").replace("in May", "in June")


def test_merge_marks_a_conflict_and_saves_only_once_it_is_settled(qtbot, library, stale_save):
    doc_id, dialog, _window = stale_save(TEXT.replace("t-test", "mixed model").replace("in May", "in June"),
                                         TEXT.replace("t-test", "Wilcoxon test"))
    dialog.merge_button.click()
    text = dialog.merge_edit.toPlainText()
    assert "<<<<<<< mine (your draft)\nAnalyse with a Wilcoxon test.\n=======\nAnalyse with a mixed model.\n" in text
    assert "Report in June." in text  # the change that did not overlap is merged already
    assert "1 place changed on both sides" in dialog.merge_note.text()
    assert not dialog.save_merge_button.isEnabled()
    settled = text.split("<<<<<<<")[0] + "Analyse with a mixed model, then a Wilcoxon test.\n" + \
        text.split(">>>>>>>")[1].split("\n", 1)[1]
    dialog.merge_edit.setPlainText(settled)
    assert dialog.save_merge_button.isEnabled() and "Every conflict is settled" in dialog.merge_note.text()
    dialog.save_merge_button.click()
    qtbot.waitUntil(lambda: documents.get_document(library, doc_id).version == 3, timeout=WAIT)
    saved = documents.get_document(library, doc_id)
    assert saved.content == settled and saved.updated_by == "user:ada"


def test_the_other_writer_is_named_as_everywhere_and_oneself_elsewhere_is_said_so(qtbot, library, stale_save,
                                                                                   monkeypatch):
    doc_id, dialog, window = stale_save(TEXT.replace("t-test", "mixed model"), TEXT.replace("t-test", "Wilcoxon"))
    dialog.merge_button.click()  # the markers name bob as the dialog does: no "user:" actor string
    assert ">>>>>>> theirs (version 2 by bob, " in dialog.merge_edit.toPlainText()
    dialog.reject()
    monkeypatch.setenv(identity.IDENTITY_ENV, "Ada Tester")
    documents.update_document(library, doc_id, content="Mine elsewhere.")  # as my second window would
    sides = edit_merge.conflict_sides(library, doc_id, 1, "Mine.")
    mine_elsewhere = EditConflictDialog(sides, window, me=identity.current_user())
    assert "saved by you, in another window or process at" in mine_elsewhere.summary.text()
    assert mine_elsewhere.diff.left_label.text() == "Theirs — version 3 by you, in another window or process"
    assert actor_label("user:Ada Tester", {}, identity.current_user()) == "Ada Tester (you)"
