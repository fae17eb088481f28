"""The window's "Extract Atoms" (issue 13): from the row menu, a background task with progress that lists what each
document gave (and why one was skipped), the status bar's summary, Details listing the new atoms; Cancel stops it
with nothing stored; the scope tree's menu sets the scope's files setting."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QMenu

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.ingest.registry import extract_file
from vancetope_desktop.services import atom_extraction, atoms, documents
from vancetope_desktop.services.library import DEFAULT_PROJECT
from vancetope_desktop.ui.folder_model import FolderTarget
from vancetope_desktop.ui.tasks import TaskState

pytestmark = [pytest.mark.qt_log_ignore("This plugin does not support (propagateSizeHints|raise)")]


def _note(library, text, title):
    return documents.add_text(library, text, doc_type=DocumentType.NOTE, title=title)  # no atoms read yet


def test_extract_atoms_from_the_selection_with_progress_result_and_cancel(qtbot, library, make_window):
    # two sections each: a note of one chunk gives no facts
    survey = _note(library, "## Site\n\nHerons nest in alder carr.\n\n## Plan\n\nWe will submit the survey report "
                   "by 15 December 2026.", "Survey")
    pond = _note(library, "## Egrets\n\nEgrets roost in the willows near the pond.\n\n## Winter\n\nIt floods in "
                 "winter.", "Pond")
    fact = atoms.store_atom(library, atoms.draft_atom("fact", "Kingfishers hunt along the millrace."))
    window = make_window(library)
    table = window.table
    qtbot.waitUntil(lambda: table.document_model.rowCount() == 3, timeout=10_000)
    table.select_ids([survey.id, pond.id, fact.id])
    menu = table.context_menu()
    action = next(a for a in menu.actions() if a.text() == "Extract Atoms")
    with qtbot.waitSignal(window.workbench.notice, timeout=30_000,
                          check_params_cb=lambda text: text.startswith("Extract atoms:")) as said:
        action.trigger()
    assert said.args[0] == "Extract atoms: 4 atoms from 2 documents; 1 skipped"
    task = next(t for t in window.tasks.tasks if t.title == "Extracting atoms from 3 documents")
    assert (task.state, task.done, task.total) == (TaskState.DONE, 3, 3)
    skipped = next(m for m in task.messages if m.startswith("Kingfishers"))  # in the list's order
    assert sorted(m for m in task.messages if m != skipped) == ["Pond: 2 atoms", "Survey: 2 atoms"]
    assert "atoms are read from sources" in skipped and not skipped.problem
    assert len(atoms.atoms_of_source(library, survey.id)) == 2
    table.select_ids([survey.id])  # Details lists the atoms read from the note shown
    qtbot.waitUntil(lambda: len(window.details.atoms.shown()) == 2, timeout=10_000)
    menu.deleteLater()

    later = _note(library, "Otters were seen under the bridge. They fish at dawn.", "Otters")
    cancelled = window.workbench.extract_atoms([later.id])
    window.tasks.cancel(cancelled)
    qtbot.waitUntil(lambda: cancelled.state.finished, timeout=30_000)
    assert cancelled.state is TaskState.CANCELLED and atoms.atoms_of_source(library, later.id) == []


def test_the_scope_menu_sets_the_files_setting(qtbot, library, make_window):
    window = make_window(library)
    menu = QMenu()
    window.atom_extraction._extend_tree_menu(menu, FolderTarget("scope", DEFAULT_PROJECT, DEFAULT_PROJECT))
    toggle = menu.actions()[-1]
    assert toggle.text() == "Extract Atoms from Imported Files"
    qtbot.waitUntil(toggle.isEnabled, timeout=10_000)
    assert not toggle.isChecked() and toggle.toolTip() == "Off by default"
    toggle.trigger()
    qtbot.waitUntil(lambda: atom_extraction.files_setting(library, DEFAULT_PROJECT).enabled, timeout=10_000)
    menu.deleteLater()


class _InProcess:
    """Reads files in this process (``extract_file``): a worker process would cost seconds to start here."""

    __call__ = staticmethod(extract_file)

    def kill(self) -> None:
        pass

    close = kill


def test_notes_written_or_imported_in_the_window_get_their_atoms(qtbot, library, make_window, tmp_path,
                                                                 monkeypatch):
    window = make_window(library)
    monkeypatch.setattr(window.workbench, "extractor", _InProcess())
    created = []
    window.workbench.new_note("Pond", "## Egrets\n\nEgrets roost in the willows.\n\n## Winter\n\nIt floods in winter.",
                              on_created=created.append)
    qtbot.waitUntil(lambda: bool(created) and len(atoms.atoms_of_source(library, created[0].id)) == 2,
                    timeout=30_000)
    note = tmp_path / "survey.md"
    note.write_text("## Herons\n\nHerons nest in alder carr.\n\n## Spring\n\nThey come back every spring.\n",
                    encoding="utf-8")
    with qtbot.waitSignal(window.workbench.documents_imported, timeout=60_000) as imported:
        window.workbench.import_paths([note])
    assert [a.text for a in atoms.atoms_of_source(library, imported.args[0][0])] == \
        ["Herons nest in alder carr.", "They come back every spring."]

