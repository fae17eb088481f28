"""The app's faces of agent memory (issue 12): the Episodes window (list, severity badge, filters, the whole
card, a person's edit), the Conflicts window (pairs side by side, "Keep this one"), the archived notice and
Restore of Details, and the memory-type picker, column and filter."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.memories import MemoryType, Severity
from vancetope_desktop.core.relations import RelationType
from vancetope_desktop.services import conflicts, documents, episodes, graph, lifecycle
from vancetope_desktop.ui.conflicts_view import ConflictsModel
from vancetope_desktop.ui.dialogs import NewNoteDialog
from vancetope_desktop.ui.document_model import DOC_ID_ROLE, Column
from vancetope_desktop.ui.episodes_view import EpisodesModel
from vancetope_desktop.ui.memory_type_picker import MemoryTypePicker
from vancetope_desktop.ui.themes import SEVERITY_COLORS

WAIT_MS = 20_000
SCOPE = "project/inbox"
DEPLOY = ("Deploying Convex schema changes", "Add vector index to memories table",
          "Ran npx convex deploy after editing schema.ts",
          "Deploy failed: the vector index needs the embedding field first",
          "Add the field and its vector index in the same deploy", "major")
CODEMOD = ("Migrating the web app to Next.js 15", "Upgrade the router", "Ran the codemod on every page",
           "Two dynamic routes broke silently", "Check dynamic routes by hand after a router codemod", "minor")


def _episodes(lib):
    return [episodes.store_episode(lib, SCOPE, *fields, created_by="agent/tau") for fields in (DEPLOY, CODEMOD)]


def _conflict(lib):
    old = documents.add_text(lib, "The API rate limit is 100 requests per minute.", doc_type=DocumentType.NOTE,
                             title="Rate limit 100/min", scope=SCOPE, memory_type="reference")
    new = documents.add_text(lib, "The API rate limit is 600 requests per minute since March.",
                             doc_type=DocumentType.NOTE, title="Rate limit 600/min", scope=SCOPE,
                             memory_type="reference")
    graph.relate(lib, new.id, old.id, RelationType.CONTRADICTS, scope=SCOPE)
    return old, new


def test_the_episodes_model_passes_the_model_tester_and_shows_a_badge(qtmodeltester, library):
    deploy, codemod = _episodes(library)
    model = EpisodesModel()
    qtmodeltester.check(model)
    model.set_items(episodes.list_episodes(library, SCOPE))
    qtmodeltester.check(model)
    assert [model.data(model.index(r, 2)) for r in range(2)] == [codemod.goal, deploy.goal]  # newest first
    badge = model.index(1, EpisodesModel.SEVERITY_COLUMN)
    assert model.data(badge) == "major"
    assert model.data(badge, Qt.ItemDataRole.BackgroundRole) == QColor(SEVERITY_COLORS["major"])
    assert model.data(model.index(1, 4), Qt.ItemDataRole.UserRole) == deploy.id


def test_the_episodes_window_filters_shows_the_card_and_saves_an_edit(qtbot, library, make_window):
    deploy, codemod = _episodes(library)
    window = make_window(library, scope=SCOPE)
    assert window.episodes_action.text() == "Episodes…"
    dialog = window.show_episodes()
    qtbot.waitUntil(lambda: dialog.model.rowCount() == 2, timeout=WAIT_MS)
    assert dialog.card.episode == codemod  # the newest is shown at once

    with qtbot.waitSignal(dialog.loaded, timeout=WAIT_MS):
        dialog.severity_filter.setCurrentIndex(dialog.severity_filter.findData("major"))
    assert dialog.model.rowCount() == 1 and dialog.card.episode.id == deploy.id
    card = dialog.card
    assert card.fields["context"].toPlainText() == deploy.context and card.severity.currentText() == "major"
    assert "by agent/tau in project/inbox" in card.about.text()
    with qtbot.waitSignal(dialog.loaded, timeout=WAIT_MS):
        dialog.severity_filter.setCurrentIndex(0)
    dialog.text_filter.setText("CODEMOD")  # after a pause: one request for the burst of keys
    qtbot.waitUntil(lambda: dialog.model.rowCount() == 1 and dialog.card.episode.id == codemod.id, timeout=WAIT_MS)

    assert not card.save_button.isEnabled()
    card.fields["insight"].setPlainText("Test every dynamic route after a codemod")
    card.severity.setCurrentText("critical")
    assert card.changes() == {"insight": "Test every dynamic route after a codemod", "severity": "critical"}
    with qtbot.waitSignal(dialog.edited, timeout=WAIT_MS) as edited:
        card.save_button.click()
    assert edited.args[0].severity is Severity.CRITICAL
    stored = episodes.episode(library, codemod.id)
    assert (stored.insight, stored.severity) == ("Test every dynamic route after a codemod", Severity.CRITICAL)
    assert "Insight: Test every dynamic route" in documents.get_document(library, codemod.id).content
    qtbot.waitUntil(lambda: dialog.model.rowCount() == 1 and
                    dialog.model.data(dialog.model.index(0, 1)) == "critical", timeout=WAIT_MS)

    with qtbot.waitSignal(dialog.loaded, timeout=WAIT_MS):
        dialog.text_filter.clear()
    card.fields["goal"].setPlainText("An edit not saved yet")
    added = episodes.store_episode(library, SCOPE, *DEPLOY[:5], "minor", created_by="agent/tau")  # an agent writes
    window.workbench.refresh()
    qtbot.waitUntil(lambda: dialog.model.row_of(added.id) is not None, timeout=WAIT_MS)
    assert card.fields["goal"].toPlainText() == "An edit not saved yet"  # a reload keeps a person's unsaved edit


def test_the_conflicts_model_passes_the_model_tester(qtmodeltester, library):
    old, _new = _conflict(library)
    model = ConflictsModel()
    qtmodeltester.check(model)
    model.set_items(conflicts.list_conflicts(library, SCOPE))
    qtmodeltester.check(model)
    assert model.data(model.index(0, 0)) == "Rate limit 600/min · project/inbox"
    assert model.data(model.index(0, 1), Qt.ItemDataRole.UserRole) == old.id


def test_keep_this_one_settles_the_conflict_and_restore_brings_the_other_back(qtbot, library, make_window):
    old, new = _conflict(library)
    window = make_window(library, scope=SCOPE)
    dialog = window.show_conflicts()
    qtbot.waitUntil(lambda: dialog.model.rowCount() == 1 and dialog.sides[1].text.toPlainText() != "",
                    timeout=WAIT_MS)
    left, right = dialog.sides
    assert "600 requests" in left.text.toPlainText() and "100 requests" in right.text.toPlainText()

    with qtbot.waitSignal(dialog.settled, timeout=WAIT_MS):
        left.keep_button.click()
    archived = documents.get_document(library, old.id)
    assert archived.status is DocumentStatus.ARCHIVED and archived.metadata[lifecycle.SUPERSEDED_BY] == new.id
    qtbot.waitUntil(lambda: dialog.model.rowCount() == 0, timeout=WAIT_MS)
    assert dialog.status.text() == "Kept “Rate limit 600/min”; “Rate limit 100/min” is archived. No open conflicts."


def test_a_superseded_memory_says_by_what_in_details_and_restore_brings_it_back(qtbot, library, make_window):
    old, new = _conflict(library)
    graph.relate(library, new.id, old.id, RelationType.UPDATES, scope=SCOPE)
    window = make_window(library, scope=SCOPE)
    notice = window.details.archived
    window.open_document(old.id)
    qtbot.waitUntil(lambda: notice.document_id() == old.id and "Rate limit 600/min" in notice.label.text(),
                    timeout=WAIT_MS)
    assert notice.label.text() == (f'<b>Archived</b> · superseded by <a href="{new.id}">Rate limit 600/min</a>')
    with qtbot.waitSignal(window.details.document_link_activated, timeout=WAIT_MS) as clicked:
        notice.label.linkActivated.emit(new.id)
    assert clicked.args == [new.id]

    window.open_document(old.id)
    qtbot.waitUntil(lambda: window.details.document_id() == old.id and notice.document_id() == old.id,
                    timeout=WAIT_MS)
    notice.restore_button.click()  # lifecycle.bring_back, as `memory restore`: the updates edge goes too
    qtbot.waitUntil(lambda: documents.get_document(library, old.id).status is DocumentStatus.ACTIVE, timeout=WAIT_MS)
    back = documents.get_document(library, old.id)
    assert lifecycle.SUPERSEDED_BY not in back.metadata
    assert graph.relations_of(library, old.id, SCOPE).incoming.get("updates") is None
    window.open_document(old.id)
    qtbot.waitUntil(lambda: window.details.document() is not None
                    and window.details.document().status is DocumentStatus.ACTIVE, timeout=WAIT_MS)
    assert notice.document_id() is None and notice.isHidden()


def test_the_memory_type_picker_carries_the_guidance_and_sets_a_note_s_type_in_details(qtbot, library, make_window):
    picker = MemoryTypePicker()
    qtbot.addWidget(picker)
    assert [picker.itemText(i) for i in range(picker.count())] == ["None", "feedback", "project", "reference", "user"]
    assert picker.itemData(1, Qt.ItemDataRole.ToolTipRole) == (
        "feedback: guidance that must change how you work from now on")
    picker.set_memory_type(MemoryType.EPISODE)
    assert picker.currentText() == "episode" and not picker.isEnabled()
    picker.set_memory_type(MemoryType.ARCHIVED_CHAT)  # a conversation's summary: written by compaction only
    assert picker.currentText() == "archived_chat" and not picker.isEnabled() and picker.findData("episode") < 0
    assert "View ▸ Conversation…" in picker.itemData(picker.currentIndex(), Qt.ItemDataRole.ToolTipRole)
    picker.set_memory_type(None)
    assert picker.isEnabled() and picker.count() == 5

    note = documents.add_text(library, "Review pull requests before lunch", doc_type=DocumentType.NOTE,
                              title="Review before lunch", scope=SCOPE)
    window = make_window(library, scope=SCOPE)
    window.open_document(note.id)
    details = window.details
    qtbot.waitUntil(lambda: details.document_id() == note.id, timeout=WAIT_MS)
    assert details.memory_type.isVisibleTo(details) and details.memory_type.memory_type() is None
    details.memory_type.setCurrentIndex(details.memory_type.findData("feedback"))
    details.memory_type.activated.emit(details.memory_type.currentIndex())  # as a person's pick does
    qtbot.waitUntil(lambda: documents.get_document(library, note.id).memory_type is MemoryType.FEEDBACK,
                    timeout=WAIT_MS)
    assert "guidance that must change how you work" in details.memory_type.toolTip()


def test_the_document_list_shows_and_filters_memory_types(qtbot, library, make_window):
    lesson = documents.add_text(library, "Run the linter first", doc_type=DocumentType.NOTE, title="Linter first",
                                scope=SCOPE, memory_type="feedback")
    documents.add_text(library, "Plain note", doc_type=DocumentType.NOTE, title="Plain", scope=SCOPE)
    window = make_window(library, scope=SCOPE)
    table = window.table
    qtbot.waitUntil(lambda: table.proxy.rowCount() == 2, timeout=WAIT_MS)
    model = table.document_model
    assert model.headerData(Column.MEMORY_TYPE, Qt.Orientation.Horizontal) == "Memory type"
    assert {model.data(model.index(r, Column.MEMORY_TYPE)) for r in range(2)} == {"feedback", ""}
    window.memory_type_filter.setCurrentIndex(window.memory_type_filter.findData("feedback"))
    assert table.proxy.rowCount() == 1
    assert table.proxy.index(0, 0).data(DOC_ID_ROLE) == lesson.id
    assert "1 of 2 documents" in window.scope_label.text()
    window.memory_type_filter.setCurrentIndex(0)
    assert table.proxy.rowCount() == 2


def test_a_new_note_can_be_a_memory_from_the_dialog(qtbot, library, make_window, monkeypatch):
    window = make_window(library, scope=SCOPE)

    def fill(dialog):
        dialog.body_edit.setPlainText("Alice prefers short answers")
        dialog.memory_type.setCurrentIndex(dialog.memory_type.findData("user"))
        return True

    monkeypatch.setattr(NewNoteDialog, "exec", fill)
    window.new_note()
    qtbot.waitUntil(lambda: [d.memory_type for d in documents.list_documents(library, scope=SCOPE)] ==
                    [MemoryType.USER], timeout=WAIT_MS)
