"""The Conversation window (issue 15) on a real library: the thread in order with its pinned task, summary cards
that expand to their originals and the topic stitch; pin and unpin from the context menu; the gauge against the
context window (remembered); Compact Now and Fold Range… through the service; Import Conversation… (an export, or
its refusal) and Works For… (the parent, or a cycle's refusal); paging; the empty state; and the View menu's entry,
disabled where there is no conversation."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QAbstractSlider, QApplication, QDialog, QFileDialog

from vancetope_desktop.core.conversations import ChatRole, MessageKind
from vancetope_desktop.services import conversations as chat
from vancetope_desktop.services import scopes
from vancetope_desktop.services.preferences import DEFAULT_CONTEXT_WINDOW, load_preferences
from vancetope_desktop.ui.conversation_model import (
    CUT_ROLE,
    PREVIEW_CHARS,
    WHOLE_ROLE,
    EntryKind,
    ThreadModel,
    preview,
    summary_cards,
    thread_entries,
)
from vancetope_desktop.ui.conversation_parts import ParentDialog
from vancetope_desktop.ui.conversation_view import EXPORT_FILTERS, PAGE, ConversationDialog
from vancetope_desktop.ui.folder_model import FolderTarget

from ..conversation_samples import TASK
from ..conversation_samples import converse as sample_conversation

WAIT_MS = 20_000
SESSION = "session/s1"
@pytest.fixture
def lib(library):
    scopes.create_scope(library, "session", "s1", parent="project/inbox", name="Fine-tuning review")
    return library


def converse(lib, turns: int) -> list:
    """The task (pinned: the first user message) and ``turns`` exchanges in the session."""
    return sample_conversation(lib, SESSION, turns)


def open_conversation(qtbot, window, process: str = SESSION) -> ConversationDialog:
    dialog = window.conversations.open(process)
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog._shown is not None, timeout=WAIT_MS)
    return dialog


def kinds(dialog: ConversationDialog) -> list[tuple[str, str]]:
    """The thread's top-level rows as (kind, message number or card id)."""
    return [(e.kind.value, e.card.id if e.card else str(e.message.seq)) for e in dialog.model.entries()]


def test_preview_cuts_long_texts_at_a_word_and_counts_what_it_leaves_out():
    short = "A short message."
    assert preview(short) == (short, 0)
    long_text = "word " * 300
    shown, cut = preview(long_text)
    assert shown.endswith("…") and len(shown) <= PREVIEW_CHARS + 1 and cut == len(long_text.strip()) - len(shown) + 1
    assert preview(long_text, whole=True) == (long_text.strip(), 0)
    lines = "\n".join(f"line {n}" for n in range(20))
    assert preview(lines)[0].count("\n") == 5


def test_the_thread_shows_messages_in_order_with_the_pinned_task_the_cards_and_the_stitch(qtbot, lib, make_window,
                                                                                          qtmodeltester):
    converse(lib, 8)
    topic = chat.compact_range(lib, SESSION, 4, 7, topic="Runs 2 and 3")
    window = make_window(lib, scope=SESSION)
    dialog = open_conversation(qtbot, window)
    rows = kinds(dialog)
    stitch = next(m for m in chat.live_messages(lib, SESSION) if m.kind is MessageKind.STITCH)
    # the card where its range began, the stitch right after the range's last message (7), the rest in order
    assert rows == [("message", "1"), ("message", "2"), ("message", "3"), ("card", topic.archive.id),
                    ("stitch", str(stitch.seq)), *[("message", str(n)) for n in range(8, 18)]]
    first = dialog.model.entries()[0].message
    assert first.pinned and first.role is ChatRole.USER and first.content == TASK
    assert not any(e.message.pinned for e in dialog.model.entries()[1:] if e.message)
    card = dialog.model.entries()[3].card
    assert card.title() == "Topic: Runs 2 and 3 · 4 messages 4–7"
    assert dialog.model.index(3, 0).data() == preview(topic.archive.summary)[0]
    assert dialog.counts.text() == "14 live messages, 4 folded into 1 summary"
    # expanding the card reads its originals, in order
    card_index = dialog.model.index(3, 0)
    assert dialog.model.rowCount(card_index) == 0 and dialog.model.hasChildren(card_index)
    with qtbot.waitSignal(dialog.originals_loaded, timeout=WAIT_MS):
        dialog.view.expand(card_index)
    originals = [dialog.model.message(dialog.model.index(r, 0, card_index)) for r in range(4)]
    assert [m.seq for m in originals] == [4, 5, 6, 7]
    assert [m.id for m in originals] == topic.archive.message_ids
    qtmodeltester.check(dialog.model)


def test_a_sliding_window_summary_is_one_card_over_the_summaries_it_rolled_up():
    """Pure: the active summary's card stands for the chain it rolled up; a topic keeps its own card."""
    from datetime import UTC, datetime

    from vancetope_desktop.core.conversations import ChatArchive, Stage

    now = datetime.now(UTC)
    older = ChatArchive(id="a1", process=SESSION, summary="old", tokens=5, message_ids=["m2", "m3"], first_seq=2,
                        last_seq=3, stage=Stage.SOFT, status="archived", created_at=now)
    topic = ChatArchive(id="t1", process=SESSION, summary="topic", tokens=5, message_ids=["m6"], first_seq=6,
                        last_seq=6, topic="Runs", created_at=now)
    newer = ChatArchive(id="a2", process=SESSION, summary="new", tokens=5, message_ids=["m4", "m5", "m7"],
                        first_seq=4, last_seq=7, stage=Stage.HARD, previous="a1", created_at=now)
    cards = summary_cards([older, topic, newer])
    assert [(c.id, c.count, c.first_seq, c.last_seq) for c in cards] == [("a2", 5, 2, 7), ("t1", 1, 6, 6)]
    assert cards[0].title() == "Summary · 5 messages 2–7 · hard stage · rolls up 1 earlier summary"
    # a page that does not reach back to a card's place leaves the card for the page that does
    assert [e.kind for e in thread_entries([], cards, complete=False)] == []
    assert [e.kind for e in thread_entries([], cards, complete=True)] == [EntryKind.CARD, EntryKind.CARD]


def test_pin_and_unpin_from_the_context_menu_change_the_service_state(qtbot, lib, make_window):
    messages = converse(lib, 2)
    target = messages[3]  # Run 2's question
    window = make_window(lib, scope=SESSION)
    dialog = open_conversation(qtbot, window)
    index = dialog.model.index_of(target.id)
    menu = dialog.context_menu(index)
    pin = next(a for a in menu.actions() if a.text() == "Pin")
    pin.trigger()
    qtbot.waitUntil(lambda: chat.get_message(lib, target.id).pinned, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: dialog.model.message(dialog.model.index_of(target.id)).pinned, timeout=WAIT_MS)
    assert "Message 4 pinned" in dialog.status.text()
    unpin = next(a for a in dialog.context_menu(dialog.model.index_of(target.id)).actions() if a.text() == "Unpin")
    unpin.trigger()
    qtbot.waitUntil(lambda: not chat.get_message(lib, target.id).pinned, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not dialog.model.message(dialog.model.index_of(target.id)).pinned, timeout=WAIT_MS)


def test_the_gauge_measures_the_prompt_against_the_remembered_context_window(qtbot, lib, make_window):
    converse(lib, 12)
    window = make_window(lib, scope=SESSION)
    dialog = open_conversation(qtbot, window)
    tokens = chat.prompt_tokens(lib, SESSION)
    assert dialog.gauge.tokens == tokens and dialog.gauge.window == DEFAULT_CONTEXT_WINDOW
    assert dialog.gauge.stage() is None and dialog.gauge.colour().name() == "#3a9d5d"
    dialog.window_spin.setValue(int(tokens / 0.9))  # past the hard threshold (85 %), not the emergency one
    assert dialog.gauge.window == int(tokens / 0.9) and dialog.gauge.stage().value == "hard"
    assert dialog.gauge_label.text().endswith("past the hard threshold")
    assert load_preferences().context_window(lib.paths.root) == int(tokens / 0.9)
    assert window.conversations.context_window == int(tokens / 0.9)


def test_compact_now_folds_older_messages_and_the_thread_shows_the_summary(qtbot, lib, make_window):
    converse(lib, 12)
    window = make_window(lib, scope=SESSION)
    dialog = open_conversation(qtbot, window)
    dialog.window_spin.setValue(int(chat.prompt_tokens(lib, SESSION) / 0.75))  # past the soft threshold only
    dialog.compact_button.click()
    qtbot.waitUntil(lambda: dialog.status.text().startswith("Soft stage"), timeout=WAIT_MS)
    active = chat.active_summary(lib, SESSION)
    assert active is not None and f"folded {len(active.message_ids)} messages" in dialog.status.text()
    qtbot.waitUntil(lambda: any(e.card is not None for e in dialog.model.entries()), timeout=WAIT_MS)
    card = next(e.card for e in dialog.model.entries() if e.card is not None)
    assert card.id == active.id and card.title().endswith("soft stage")
    qtbot.waitUntil(lambda: dialog.gauge.tokens == chat.prompt_tokens(lib, SESSION), timeout=WAIT_MS)


def test_fold_range_folds_the_selected_messages_and_shows_a_refusal_as_the_service_words_it(qtbot, lib, make_window):
    converse(lib, 4)
    window = make_window(lib, scope=SESSION)
    dialog = open_conversation(qtbot, window)
    selection = dialog.view.selectionModel()
    for seq in (4, 7):  # Runs 2 and 3: the person picks the first and the last
        selection.select(dialog.model.index(seq - 1, 0), selection.SelectionFlag.Select)
    assert dialog.selected_range() == (4, 7) and dialog.fold_button.isEnabled()
    dialog.fold_range(4, 7, "Runs 2 and 3")
    qtbot.waitUntil(lambda: any(e.kind is EntryKind.STITCH for e in dialog.model.entries()), timeout=WAIT_MS)
    assert dialog.status.text().startswith("Folded 4 messages of 4–7 into 'Runs 2 and 3'")
    assert [a.topic for a in chat.archives(lib, SESSION)] == ["Runs 2 and 3"]
    dialog.fold_range(6, 9, "Overlapping")  # 6 and 7 are folded already
    qtbot.waitUntil(lambda: "overlaps messages already folded" in dialog.status.text(), timeout=WAIT_MS)
    assert len(chat.archives(lib, SESSION)) == 1


def test_the_latest_page_comes_first_and_earlier_pages_on_request(qtbot, lib, make_window):
    converse(lib, 75)  # 151 messages: two pages
    long_text = "A long tool result. " * 60
    chat.append(lib, SESSION, long_text, role="assistant")
    window = make_window(lib, scope=SESSION)
    dialog = open_conversation(qtbot, window)
    assert dialog.model.rowCount() == PAGE and dialog.model.entries()[-1].message.seq == 152
    assert dialog.earlier_button.isEnabled() and dialog.earlier_button.text() == "Load Earlier (52 more)"
    assert dialog.counts.text() == f"152 live messages, none folded; showing the latest {PAGE}"
    last = dialog.model.index(PAGE - 1, 0)
    assert last.data().endswith("…") and last.data(CUT_ROLE) > 0
    dialog.view.scrollTo(last)
    short_height = dialog.view.visualRect(last).height()
    footer = dialog.view.itemDelegate()._layout(dialog.view.font(), dialog.view.visualRect(last), last).footer
    qtbot.mouseClick(dialog.view.viewport(), Qt.MouseButton.LeftButton, pos=footer.center())  # "Show all (…)"
    assert last.data() == long_text.strip() and last.data(WHOLE_ROLE)
    qtbot.waitUntil(lambda: dialog.view.visualRect(last).height() > short_height, timeout=WAIT_MS)
    dialog.view.verticalScrollBar().triggerAction(QAbstractSlider.SliderAction.SliderToMinimum)  # scrolled to the top
    qtbot.waitUntil(lambda: dialog.model.rowCount() == 152, timeout=WAIT_MS)
    assert [e.message.seq for e in dialog.model.entries()] == list(range(1, 153))
    # the person still looks at the message that was at the top, the older ones above it
    assert dialog.model.entry(dialog.view.indexAt(QPoint(4, 4))).message.seq == 53
    assert not dialog.earlier_button.isEnabled()


def test_a_process_without_messages_says_how_they_come(qtbot, lib, make_window):
    window = make_window(lib, scope=SESSION)
    dialog = open_conversation(qtbot, window)
    assert dialog.pages.currentWidget() is dialog.empty
    assert "chat_append" in dialog.empty.text() and "vancetope chat append" in dialog.empty.text()
    assert not dialog.compact_button.isEnabled() and not dialog.copy_button.isEnabled()


def test_copy_prompt_block_puts_the_block_within_the_window_on_the_clipboard(qtbot, lib, make_window):
    converse(lib, 3)
    window = make_window(lib, scope=SESSION)
    dialog = open_conversation(qtbot, window)
    dialog.copy_block()
    qtbot.waitUntil(lambda: dialog.status.text().startswith("Copied the prompt block"), timeout=WAIT_MS)
    clipboard = QApplication.clipboard()
    try:
        assert clipboard.text() == chat.compose_block(lib, SESSION, DEFAULT_CONTEXT_WINDOW).markdown
        assert "## Earlier Conversation (compacted)" in clipboard.text() and TASK in clipboard.text()
    finally:
        clipboard.clear()  # a clipboard still holding text at exit crashed the offscreen platform


def test_the_entry_is_disabled_outside_a_process_and_offered_on_a_process_s_menus(qtbot, lib, make_window):
    window = make_window(lib, scope="project/inbox")
    flow = window.conversations
    assert not flow.view_action.isEnabled() and "belong to sessions and think processes" in flow.view_action.toolTip()
    assert flow.open("project/inbox") is None
    window.workbench.set_scope(SESSION)
    qtbot.waitUntil(lambda: flow.view_action.isEnabled(), timeout=WAIT_MS)
    menu = window.folder_tree.context_menu(FolderTarget("scope", SESSION, SESSION, False))
    assert "Conversation…" in [a.text() for a in menu.actions()]
    switcher = window.scope_switcher
    switcher.tree.setCurrentIndex(switcher.model.index_for(SESSION))
    assert switcher.conversation_action in switcher.tree_context_menu().actions()
    switcher.conversation_action.trigger()
    assert flow.dialogs[SESSION].isVisible()
    switcher.tree.setCurrentIndex(switcher.model.index_for("project/inbox"))
    assert switcher.conversation_action not in switcher.tree_context_menu().actions()


def test_the_thread_model_of_an_empty_conversation_passes_the_model_tester(qtmodeltester):
    model = ThreadModel()
    qtmodeltester.check(model)
    model.set_entries([])
    qtmodeltester.check(model)


def openai_export(path):
    """An exported conversation in OpenAI's shape: a system prompt, the task, a tool call and its result, the
    answer."""
    path.write_text(json.dumps({"messages": [
        {"role": "system", "content": "You are a careful research assistant."},
        {"role": "user", "content": [{"type": "text", "text": TASK}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_7", "type": "function",
             "function": {"name": "search", "arguments": "{\"query\": \"LoRA Vienna\"}"}}]},
        {"role": "tool", "tool_call_id": "call_7", "content": "Run 1: LoRA, loss 0.412. Run 2: full, loss 0.398."},
        {"role": "assistant", "content": "Keep the full fine-tuning run: its loss is lower."},
    ]}), encoding="utf-8")
    return path


def test_import_conversation_appends_an_export_in_order_with_the_task_pinned(qtbot, lib, make_window, tmp_path,
                                                                             monkeypatch):
    export = openai_export(tmp_path / "run.json")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *_a, **_k: (str(export), EXPORT_FILTERS))
    window = make_window(lib, scope=SESSION)
    dialog = open_conversation(qtbot, window)
    assert dialog.pages.currentWidget() is dialog.empty and dialog.import_button.isEnabled()
    dialog.import_button.click()
    qtbot.waitUntil(lambda: dialog.status.text().startswith("Imported"), timeout=WAIT_MS)
    assert dialog.status.text() == "Imported 5 messages #1–#5 (pinned: #2)"
    found = chat.live_messages(lib, SESSION)
    assert [(m.seq, m.role, m.pinned) for m in found] == [
        (1, ChatRole.SYSTEM, False), (2, ChatRole.USER, True), (3, ChatRole.ASSISTANT, False),
        (4, ChatRole.TOOL, False), (5, ChatRole.ASSISTANT, False)]
    assert found[1].content == TASK
    assert found[2].content == 'Tool call: search({"query": "LoRA Vienna"})' and found[2].tool_call_id == "call_7"
    assert found[3].tool_call_id == "call_7"
    qtbot.waitUntil(lambda: dialog.model.rowCount() == 5, timeout=WAIT_MS)
    assert dialog.pages.currentWidget() is dialog.view
    assert [e.message.seq for e in dialog.model.entries()] == [1, 2, 3, 4, 5]


def test_a_broken_export_is_refused_with_every_bad_entry_named_and_nothing_written(qtbot, lib, make_window,
                                                                                   tmp_path):
    converse(lib, 1)
    window = make_window(lib, scope=SESSION)
    dialog = open_conversation(qtbot, window)
    not_json = tmp_path / "cut.json"
    not_json.write_text('[{"role": "user", "content": "Compare the ru', encoding="utf-8")
    dialog.import_file(not_json)
    qtbot.waitUntil(lambda: "is not JSON" in dialog.status.text(), timeout=WAIT_MS)
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps([{"role": "user", "content": "Fine."}, 42, {"role": "assistant", "content": {}}]),
                      encoding="utf-8")
    dialog.import_file(broken)
    qtbot.waitUntil(lambda: "nothing imported" in dialog.status.text(), timeout=WAIT_MS)
    assert "message 2: not an object but 42" in dialog.status.text()
    assert "message 3: no text content" in dialog.status.text()
    assert len(chat.live_messages(lib, SESSION)) == 3 and dialog.import_button.isEnabled()


def test_works_for_sets_the_parent_and_the_header_names_it(qtbot, lib, make_window, monkeypatch):
    scopes.create_scope(lib, "session", "plan", parent="project/inbox", name="Planning")
    converse(lib, 1)
    window = make_window(lib, scope=SESSION)
    dialog = open_conversation(qtbot, window)
    assert not dialog.works_for.isVisible()
    offered = []

    def pick(picker: ParentDialog) -> QDialog.DialogCode:
        offered.extend(picker.list.item(r).text() for r in range(picker.list.count()))
        picker.choose("session/plan")
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(ParentDialog, "exec", pick)
    dialog.parent_button.click()
    assert not dialog.parent_button.isEnabled()  # a second click while the processes load opens no second picker
    qtbot.waitUntil(lambda: chat.parent_process(lib, SESSION) == "session/plan", timeout=WAIT_MS)
    assert dialog.parent_button.isEnabled()
    # the other processes, never the process itself nor a project
    assert offered == ["No other process", "Planning (session/plan)"]
    qtbot.waitUntil(lambda: dialog.works_for.text() == "Works for: Planning (session/plan)", timeout=WAIT_MS)
    assert dialog.works_for.isVisible() and dialog.status.text() == "This process works for Planning now"
    dialog.set_parent(None)
    qtbot.waitUntil(lambda: not dialog.works_for.isVisible(), timeout=WAIT_MS)
    assert chat.parent_process(lib, SESSION) is None


def test_a_cycle_of_parents_is_refused_with_the_service_s_message(qtbot, lib, make_window):
    scopes.create_scope(lib, "session", "plan", parent="project/inbox", name="Planning")
    chat.set_parent(lib, "session/plan", SESSION)
    window = make_window(lib, scope=SESSION)
    dialog = open_conversation(qtbot, window)
    dialog.set_parent("session/plan")
    qtbot.waitUntil(lambda: "cannot be the parent" in dialog.status.text(), timeout=WAIT_MS)
    assert dialog.status.text().startswith("session/plan cannot be the parent of session/s1")
    assert chat.parent_process(lib, SESSION) is None and not dialog.works_for.isVisible()
