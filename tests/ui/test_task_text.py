"""The Tasks panel words a failed import plainly (the file's name, what to do), the technical reason on hover."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from vancetope_desktop.ingest.registry import extract_file
from vancetope_desktop.services import imports
from vancetope_desktop.ui.task_text import import_messages
from vancetope_desktop.ui.tasks import TaskManager
from vancetope_desktop.ui.tasks_panel import TasksPanel


@pytest.fixture
def report(library, corpus, tmp_path):
    """An import of a damaged PDF, a password-protected one and an empty file (read in this process)."""
    files = [Path(shutil.copy(corpus / "pdf-edge" / name, tmp_path)) for name in
             ("unopenable-fuzzed.pdf", "encrypted-aes256-user-password.pdf")]
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    return imports.upload(library, [*files, empty], extractor=extract_file)


def test_failed_imports_read_in_plain_words(report):
    # The panel said "unopenable-fuzzed.pdf: unopenable-fuzzed.pdf is damaged and cannot be opened: Failed to
    # open file '…' as type 'pdf' (kept as doc_…, not indexed)", cut at the pane's edge.
    messages = {m.split(" ", 1)[0]: m for m in import_messages(report)}
    damaged = messages["unopenable-fuzzed.pdf"]
    assert damaged.startswith("unopenable-fuzzed.pdf could not be read (the file looks damaged)")
    assert "doc_" not in damaged and "doc_" in damaged.detail  # the technical reason is kept for the tooltip
    assert "choose Retry to enter the password" in messages["encrypted-aes256-user-password.pdf"]
    assert messages["empty.txt"] == "empty.txt is empty: there was nothing to import."


def test_a_file_already_in_the_library_says_so(library, tmp_path):
    note = tmp_path / "note.md"
    note.write_text("# Reading list\n\nThree papers.\n", encoding="utf-8")
    imports.upload(library, [note], extractor=extract_file)
    again = import_messages(imports.upload(library, [note], extractor=extract_file))
    assert again == ["note.md is already in your library as “Reading list”: nothing was added."]
    assert "doc_" in again[0].detail


def test_the_panel_wraps_messages_and_shows_the_detail_on_hover(qtbot, report):
    manager = TaskManager()
    panel = TasksPanel(manager)
    qtbot.addWidget(panel)
    task = manager.submit("Importing 3 files", lambda _c: None, visible=True)
    qtbot.waitUntil(lambda: task.state.finished, timeout=5000)
    task.messages = import_messages(report)
    panel.view.setCurrentIndex(panel.model.index(0, 0))
    assert panel.details.wordWrap() and panel.message_texts()[2:] == list(task.messages)
    assert panel.details.item(2).toolTip() == task.messages[0].detail
