"""The Atoms window (issue 13): kinds in tabs (events on a timeline, plans by due date with their status), a
plan's status changed and "happened" recorded through the workbench, the source opened at its passage; the
Details of a source list its atoms."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import Qt

from vancetope_desktop.core.atoms import AtomDraft, PlanStatus, SourceSpan
from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.services import atoms, documents
from vancetope_desktop.ui.atoms_view import AtomsModel

WAIT_MS = 20_000
SCOPE = "project/inbox"
NOTE = "Met Ana on 1 December. Herons nest in alder carr. Ring the warden by 20 December. Surveyed on 28 November."


def _atoms(lib):
    source = documents.add_text(lib, NOTE, doc_type=DocumentType.NOTE, title="Heron notes", scope=SCOPE)

    def span(text):
        return SourceSpan(start=NOTE.index(text), end=NOTE.index(text) + len(text))

    stored = atoms.store_atoms(lib, [
        AtomDraft(type="event", text="Met Ana.", when=datetime(2026, 12, 1), span=span("Met Ana on 1 December.")),
        AtomDraft(type="fact", text="Herons nest in alder carr.", span=span("Herons nest in alder carr.")),
        AtomDraft(type="plan", text="Ring the warden.", due=datetime(2026, 12, 20),
                  span=span("Ring the warden by 20 December.")),
        AtomDraft(type="event", text="Surveyed the reserve.", when=datetime(2026, 11, 28),
                  span=span("Surveyed on 28 November.")),
    ], source.id)
    return source, stored


def test_the_atoms_model_passes_the_model_tester(qtmodeltester, library):
    _source, stored = _atoms(library)
    model = AtomsModel()
    qtmodeltester.check(model)
    model.set_items(atoms.list_atoms(library, SCOPE))
    qtmodeltester.check(model)
    plan = model.row_of(stored[2].id)
    assert [model.data(model.index(plan, c)) for c in range(5)] == [
        "Plan", "due 2026-12-20", "planned", "Ring the warden.", "Heron notes"]
    assert model.data(model.index(plan, 0), Qt.ItemDataRole.UserRole) == stored[2].id


def test_the_atoms_window_lists_by_kind_changes_a_plan_and_opens_the_source(qtbot, library, make_window):
    source, (met, _fact, plan, surveyed) = _atoms(library)
    window = make_window(library, scope=SCOPE)
    assert window.atoms_action.text() == "Atoms…"
    dialog = window.show_atoms()
    qtbot.waitUntil(lambda: dialog.model.rowCount() == 4, timeout=WAIT_MS)
    with qtbot.waitSignal(dialog.loaded, timeout=WAIT_MS):
        dialog.tabs.setCurrentIndex(2)  # events, oldest first: a timeline
    assert [dialog.model.item_at(r).id for r in range(2)] == [surveyed.id, met.id]
    assert not dialog.plan_status.isEnabled()

    with qtbot.waitSignal(dialog.loaded, timeout=WAIT_MS):
        dialog.tabs.setCurrentIndex(3)  # plans
    assert dialog.selected().id == plan.id and dialog.plan_status.currentText() == "planned"
    # A change reloads the list, and so may a snapshot of the change before it: wait for the state, not a load.
    dialog.set_status("canceled")
    qtbot.waitUntil(lambda: atoms.atom(library, plan.id).plan_status is PlanStatus.CANCELED, timeout=WAIT_MS)
    assert atoms.atom(library, plan.id).edited_by_person
    qtbot.waitUntil(lambda: dialog.plan_status.currentText() == "canceled", timeout=WAIT_MS)

    with qtbot.waitSignal(dialog.open_requested, timeout=WAIT_MS) as opened:
        dialog.open_selected()
    assert opened.args == [source.id, -1, "Ring the warden by 20 December."]
    qtbot.waitUntil(lambda: window.current_viewer() is not None
                    and window.current_viewer().current_document_id() == source.id, timeout=WAIT_MS)

    dialog.happened("2026-12-19 10:00")
    qtbot.waitUntil(lambda: dialog.model.rowCount() == 0, timeout=WAIT_MS)  # archived, superseded by the event
    assert atoms.atom(library, plan.id).happened_as is not None


def test_details_of_a_source_list_its_atoms_and_an_atom_says_its_source_is_gone(qtbot, library, make_window):
    source, stored = _atoms(library)
    window = make_window(library, scope=SCOPE)
    section = window.details.atoms
    window.open_document(source.id)
    qtbot.waitUntil(lambda: section.isVisible() and section.document_id() == source.id, timeout=WAIT_MS)
    assert section.shown() == [a.id for a in stored] and section.heading.text() == "Atoms (4)"
    assert "due 2026-12-20 · planned" in section.rows_label.text()
    documents.set_status(library, source.id, DocumentStatus.DELETED)
    documents.purge_document(library, source.id)
    window.open_document(stored[1].id)
    qtbot.waitUntil(lambda: section.document_id() == stored[1].id, timeout=WAIT_MS)
    assert section.heading.text() == "Atom: fact"
    assert "was deleted; the atom keeps its text" in section.rows_label.text()
