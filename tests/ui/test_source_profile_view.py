"""Details of a source show its summary, keywords and suggested topics (issue 13): a topic clicked becomes a tag
through the workbench and stops being suggested; a source without a profile offers to write it, as does the row
menu's "Write Summaries" (a task on the import lane)."""

from __future__ import annotations

import pytest

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.profiles import PROFILE_KEY, profile_of
from vancetope_desktop.services import documents
from vancetope_desktop.store import tables
from vancetope_desktop.store.db import write_session
from vancetope_desktop.ui.source_profile_view import WRITE_LINK

pytestmark = [pytest.mark.qt_log_ignore("This plugin does not support (propagateSizeHints|raise)")]
WAIT_MS = 15_000
NOTE = ("# Sepsis model\n\nThe sepsis model uses a Gaussian process RNN on the MIMIC data. We validate the sepsis "
        "model on the ICU cohort before the review.")


def test_details_show_a_profile_and_a_topic_becomes_a_tag(qtbot, library, make_window):
    note = documents.add_text(library, NOTE, doc_type=DocumentType.NOTE)
    older = documents.add_text(library, NOTE + "\n\nSecond run.", doc_type=DocumentType.NOTE)
    with write_session(library.engine) as session:  # as imported before profiles existed
        row = session.get(tables.DocumentRow, older.id)
        row.meta = {k: v for k, v in row.meta.items() if k != PROFILE_KEY}
        session.add(row)
    fact = documents.add_text(library, "The ICU cohort holds 20,000 stays.")
    window = make_window(library)
    section = window.details.profile

    window.open_document(note.id)
    qtbot.waitUntil(lambda: section.isVisible() and "sepsis-model" in section.topics(), timeout=WAIT_MS)
    assert "sepsis model on the ICU cohort" in section.summary_label.text()
    assert section.keywords_label.text().startswith("Keywords: ") and "built-in generator" in section.note_label.text()
    section.topics_label.linkActivated.emit("topic:sepsis-model")  # a click on "+sepsis-model"
    qtbot.waitUntil(lambda: "sepsis-model" in documents.get_document(library, note.id).tags, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "sepsis-model" not in section.topics(), timeout=WAIT_MS)

    window.open_document(older.id)
    qtbot.waitUntil(lambda: "No summary yet" in section.note_label.text(), timeout=WAIT_MS)
    section.note_label.linkActivated.emit(WRITE_LINK)
    qtbot.waitUntil(lambda: profile_of(documents.get_document(library, older.id).metadata) is not None,
                    timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "sepsis model" in section.summary_label.text(), timeout=WAIT_MS)

    window.open_document(fact.id)  # an atom is not a source: no section
    qtbot.waitUntil(lambda: window.details.document_id() == fact.id, timeout=WAIT_MS)
    assert not section.isVisible()

    with write_session(library.engine) as session:
        row = session.get(tables.DocumentRow, note.id)
        row.meta = {k: v for k, v in row.meta.items() if k != PROFILE_KEY}
        session.add(row)
    table = window.table
    table.select_ids([note.id])
    entry = next(a for a in table.context_menu().actions() if a.text() == "Write Summaries")
    with qtbot.waitSignal(window.workbench.tasks.task_added, timeout=WAIT_MS) as added:
        entry.trigger()  # a task of the Tasks panel, with progress and cancel
    assert added.args[0].title == "Writing summary" and added.args[0].cancellable
    qtbot.waitUntil(lambda: profile_of(documents.get_document(library, note.id).metadata) is not None,
                    timeout=WAIT_MS)

    # An edit saved in the app: the save does not wait for the profile, which follows on the import lane.
    window.workbench.save_content(note.id, "# Graph partitioning\n\nSpectral graph partitioning splits a graph "
                                  "by the Fiedler vector. Graph partitioning balances the parts.")
    qtbot.waitUntil(lambda: "graph-partitioning" in _topics(library, note.id), timeout=WAIT_MS)
    created = []
    window.workbench.new_note("Heron survey", "The heron survey found 14 grey herons; the heron survey repeats.",
                              on_created=created.append)
    qtbot.waitUntil(lambda: bool(created) and "heron-survey" in _topics(library, created[0].id), timeout=WAIT_MS)

    # What the app does on opening: the sources without a profile get theirs in the background.
    with write_session(library.engine) as session:
        row = session.get(tables.DocumentRow, older.id)
        row.meta = {k: v for k, v in row.meta.items() if k != PROFILE_KEY}
        session.add(row)
    window.workbench.fill_missing_profiles()
    qtbot.waitUntil(lambda: "sepsis-model" in _topics(library, older.id), timeout=WAIT_MS)


def _topics(library, doc_id: str) -> list[str]:
    profile = profile_of(documents.get_document(library, doc_id).metadata)
    return profile.topics if profile is not None else []
