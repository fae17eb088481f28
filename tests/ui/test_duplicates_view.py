"""The Duplicates dialog and its model; the app's import saying "already in your library" and asking about a
folder named like one already there."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.services import documents, duplicates, folders
from vancetope_desktop.ui.duplicates_view import DuplicatesModel

WAIT_MS = 20_000


def _note(lib, text, title):
    return documents.add_text(lib, text, doc_type=DocumentType.NOTE, title=title)


def _two_groups(lib):
    pairs = [(_note(lib, "same one", "A"), _note(lib, "same one", "A copy")),
             (_note(lib, "same two", "B"), _note(lib, "same two", "B copy"))]
    return pairs, duplicates.find_duplicates(lib)


def test_the_model_passes_the_model_tester_and_gives_the_users_choices(qtmodeltester, library):
    (a, b), groups = _two_groups(library)
    model = DuplicatesModel()
    qtmodeltester.check(model)
    model.set_groups(groups)
    qtmodeltester.check(model)

    assert model.rowCount() == 2 and model.rowCount(model.index(0, 0)) == 2
    assert model.data(model.index(0, 0)) == "same text"
    assert model.choices() == [(a[0].id, [a[1].id]), (b[0].id, [b[1].id])]
    second_b = model.index(1, 0, model.index(1, 0))
    assert model.setData(second_b, Qt.CheckState.Checked.value, Qt.ItemDataRole.CheckStateRole)
    assert not model.setData(second_b, Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole)  # one is kept
    model.setData(model.index(0, 0), Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole)
    assert model.choices() == [(b[1].id, [b[0].id])]
    assert model.data(second_b, Qt.ItemDataRole.CheckStateRole) == Qt.CheckState.Checked


def test_the_dialog_merges_the_ticked_groups_from_the_edit_menu(qtbot, library, make_window):
    (a, b), _ = _two_groups(library)
    window = make_window(library)
    assert window.duplicates_action.text() == "Find Duplicates…"
    dialog = window.show_duplicates()
    qtbot.waitUntil(lambda: dialog.model.rowCount() == 2 and dialog.merge_button.isEnabled(), timeout=WAIT_MS)
    documents.set_status(library, b[0].id, DocumentStatus.DELETED)  # behind the dialog's back: group B fails

    with qtbot.waitSignal(dialog.merged, timeout=WAIT_MS) as merged:
        dialog.merge_button.click()

    assert merged.args[0].summary == "1 group merged (1 to the trash), 1 failed"
    assert documents.get_document(library, a[1].id).status is DocumentStatus.DELETED
    assert documents.get_document(library, b[1].id).status is DocumentStatus.ACTIVE
    qtbot.waitUntil(lambda: dialog.model.rowCount() == 0, timeout=WAIT_MS)
    assert dialog.status.text().splitlines() == [
        "1 group merged (1 to the trash), 1 failed", f"Not merged into {b[0].id}: {b[0].id} (B) is in the trash",
        "No likely duplicates."]
    dialog.close()
    _note(library, "same three", "C")
    _note(library, "same three", "C copy")
    assert window.show_duplicates() is dialog  # one dialog, looking again
    qtbot.waitUntil(lambda: dialog.status.text() == "1 group of likely duplicates", timeout=WAIT_MS)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _outcome(text: str) -> bool:
    """An import's outcome in the status bar, not its "Importing …: preparing…" said at once."""
    return not text.endswith("preparing…")


def test_re_importing_a_file_says_already_in_your_library(qtbot, library, make_window, tmp_path):
    path = _write(tmp_path / "finding.md", "# Finding\n\nThe coral bleached.\n")
    window = make_window(library)
    wb = window.workbench
    with qtbot.waitSignal(wb.notice, timeout=WAIT_MS, check_params_cb=_outcome):
        wb.import_paths([path])
    [doc] = documents.list_documents(library, types=[DocumentType.NOTE])
    with qtbot.waitSignal(wb.notice, timeout=WAIT_MS, check_params_cb=_outcome) as notice:
        task = wb.import_paths([path])
    assert notice.args[0] == f"Already in your library: Finding ({doc.id})"
    assert task.messages == ["finding.md is already in your library as “Finding”: nothing was added."]
    assert task.messages[0].detail == f"already in your library: Finding ({doc.id})"  # the task's tooltip


def test_a_folder_named_like_one_there_is_asked_about_and_the_answer_is_followed(qtbot, library, make_window,
                                                                                 tmp_path):
    existing = folders.create_folder(library, "Papers")
    dropped = _write(tmp_path / "papers" / "one.md", "# One\n\nfirst").parent
    window = make_window(library)
    wb = window.workbench
    asked = []

    def answer(choice):
        def ask(found):
            asked.append([(f.name, f.existing_title) for f in found])
            return choice
        return ask

    wb.ask_namesakes = answer(None)
    assert wb.import_paths([dropped]) is None  # cancelled: nothing imported
    assert documents.list_documents(library, types=[DocumentType.NOTE]) == []
    wb.ask_namesakes = answer("keep_both")
    with qtbot.waitSignal(wb.notice, timeout=WAIT_MS, check_params_cb=_outcome):
        wb.import_paths([dropped])
    assert asked == [[("papers", "Papers")], [("papers", "Papers")]]
    titles = sorted(f.title for f in documents.list_documents(library, types=[DocumentType.FOLDER]))
    assert titles == ["Papers", "papers"]
    [note] = documents.list_documents(library, types=[DocumentType.NOTE])
    assert note.folder_id != existing.id


def test_notices_are_no_problems_and_the_status_bar_says_what_was_already_there(qtbot, library, make_window,
                                                                               tmp_path):
    # The trial: "done, 1 problem" for a .bib's "507 references … (1 duplicates merged)", "done, 2 problems"
    # for a re-import, and "already in your library" only in the Tasks detail pane.
    finding = _write(tmp_path / "finding.md", "# Finding\n\nThe coral bleached.\n")
    bib = _write(tmp_path / "mine.bib", "@article{ruiz2019,\n  author = {Ruiz, Ana},\n  title = {Glacier melt},\n"
                                         "  year = {2019},\n}\n")
    window = make_window(library)
    wb = window.workbench
    with qtbot.waitSignal(wb.notice, timeout=WAIT_MS, check_params_cb=_outcome):
        wb.import_paths([finding])
    with qtbot.waitSignal(wb.notice, timeout=WAIT_MS, check_params_cb=_outcome) as notice:
        task = wb.import_paths([finding, bib])
    assert "1 already in your library (finding.md)" in notice.args[0] and "see Tasks" not in notice.args[0]
    assert len(task.messages) == 2  # both said in the Tasks panel, neither counted as a problem
    panel = window.tasks_panel
    panel.view.setCurrentIndex(panel.model.index(0, 0))
    assert panel.message_texts()[1] == "done"
