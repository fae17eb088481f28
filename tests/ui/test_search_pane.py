"""The search pane: highlighting, the results model, debounced requests, stale answers, filters and activation."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from PySide6.QtCore import QModelIndex, QSize, Qt
from PySide6.QtWidgets import QMessageBox, QStyleOptionViewItem

from vancetope_desktop.core.documents import ChunkRole, DocumentInfo, DocumentStatus, DocumentType
from vancetope_desktop.core.errors import InvalidInput
from vancetope_desktop.core.memories import MEMORY_TYPE_HINTS, MemoryType
from vancetope_desktop.core.scope_info import VisibleScope
from vancetope_desktop.core.tags import AllOf, AnyOf, TagIs
from vancetope_desktop.services import citation_keys, documents, indexing, saved_searches, scopes
from vancetope_desktop.services.search import Passage, SearchHit, SearchResponse, search
from vancetope_desktop.ui.scope_text import ScopeRelation
from vancetope_desktop.ui.search_model import (
    ResultRole,
    SearchRequest,
    SearchResultsModel,
    highlight_html,
)
from vancetope_desktop.ui.search_pane import DEBOUNCE_MS, SearchPane

SESSION = "session/sess_7"
VISIBLE = [VisibleScope(path=SESSION, distance=0, weight=1.0),
           VisibleScope(path="project/inbox", distance=1, weight=0.7),
           VisibleScope(path="group/default", distance=2, weight=0.5)]


def _hit(rank: int, title: str, *, text: str = "some passage text", page: int | None = None,
         scope: str = SESSION, distance: int = 0, score: float = 0.5) -> SearchHit:
    now = datetime.now(UTC)
    doc = DocumentInfo(id=f"doc_{rank}", scope=scope, type=DocumentType.NOTE, title=title, created_at=now,
                       updated_at=now)
    passage = Passage(chunk_id=f"doc_{rank}:0", page=page, text=text, snippet=text)
    return SearchHit(rank=rank, document=doc, score=score, relevance=score, meaning=min(2 * score, 1), vector=0.4,
                     scope_weight=1.0, distance=distance, passages=[passage],
                     explanation=f"meaning {2 * score:.2f}; no query word matched\nrelevance {score:.2f} = "
                                 f"0.5 × meaning {2 * score:.2f} + 0.5 × keywords 0.00; × scope weight 1 = "
                                 f"score {score:.2f}")


def _response(query: str, *hits: SearchHit) -> SearchResponse:
    return SearchResponse(query=query, scope=SESSION, hits=list(hits), scopes=[v.path for v in VISIBLE],
                          vector_search=True)


@pytest.fixture
def pane(qtbot):
    widget = SearchPane()
    qtbot.addWidget(widget)
    widget.set_visible_scopes(VISIBLE, SESSION, {SESSION: "Reading week"})
    widget.resize(420, 600)
    return widget


@pytest.fixture
def requests(pane):
    sent: list[SearchRequest] = []
    pane.search_requested.connect(sent.append)
    return sent


def _search(pane, qtbot, text: str) -> SearchRequest:
    pane.query_edit.setText(text)
    with qtbot.waitSignal(pane.search_requested, timeout=1000) as blocker:
        qtbot.keyClick(pane.query_edit, Qt.Key.Key_Return)
    return blocker.args[0]


# Highlighting (pure) ---------------------------------------------------------------------------

def test_highlight_escapes_markup_and_lights_query_words():
    html = highlight_html("Run <script>alert('x')</script> & attention heads", "attention script")
    assert "<script>" not in html
    assert "&lt;<b class=\"hit\">script</b>&gt;alert('x')&lt;/<b class=\"hit\">script</b>&gt;" in html
    assert "&amp;" in html and '<b class="hit">attention</b> heads' in html


def test_highlight_is_case_and_accent_insensitive_on_word_starts():
    html = highlight_html("Résumés of CAFÉ kernels; preresume stays plain", "resume cafe")
    assert html == ('<b class="hit">Résumés</b> of <b class="hit">CAFÉ</b> kernels; preresume stays plain')
    # Plural query words light the singular too (the index matches by stem prefix); "a" lights nothing.
    assert highlight_html("one requirement", "requirements a") == 'one <b class="hit">requirement</b>'
    assert highlight_html("plain text", "") == "plain text"


def test_highlight_lights_a_quoted_phrase_only_where_its_words_stand_together():
    html = highlight_html("Skimmed milk powder, not milk alone; skimmed-milk powder too.", '"skimmed milk powder"')
    assert html == ('<b class="hit">Skimmed milk powder</b>, not milk alone; '
                    '<b class="hit">skimmed-milk powder</b> too.')
    mixed = highlight_html("Formula of skimmed milk powder for infants", 'infant "milk powder"')
    assert mixed == 'Formula of skimmed <b class="hit">milk powder</b> for <b class="hit">infants</b>'


def test_request_turns_tags_into_a_tag_filter():
    assert SearchRequest(1, "q").tag_filter() is None
    assert SearchRequest(1, "q", tags=("a", "b")).tag_filter() == AllOf((TagIs("a"), TagIs("b")))
    assert SearchRequest(1, "q", tags=("a", "b"), tag_mode="any").tag_filter() == AnyOf((TagIs("a"), TagIs("b")))


# Model -----------------------------------------------------------------------------------------

@pytest.fixture
def real_search(library):
    """A library with texts in a session and its project, indexed with the real model."""
    scopes.create_scope(library, "session", "sess_7", parent="project/inbox", name="Reading week")
    attention = documents.add_text(library, "Flash attention tiles the <softmax> to save GPU memory.",
                                   doc_type=DocumentType.NOTE, title="Flash attention", scope=SESSION)
    deadline = documents.add_text(library, "Review of attention kernels is due in June.", scope="project/inbox",
                                  tags=["deadline"])
    documents.add_text(library, "Penguins live in Antarctica.", scope="project/inbox")
    indexing.try_drain(library)
    return library, attention.id, deadline.id


def test_model_passes_modeltester_on_a_real_search_driven_through_the_pane(qtbot, qtmodeltester, pane, requests,
                                                                         real_search):
    library, attention_id, deadline_id = real_search
    pane.set_visible_scopes(scopes.visible_scopes(library, SESSION), SESSION, {SESSION: "Reading week"})
    request = _search(pane, qtbot, "attention memory")
    response = search(library, request.query, scope=request.scope, tag_filter=request.tag_filter(),
                      types=request.types, scopes=request.scopes, limit=request.limit)
    pane.show_response(request.request_id, response)

    model = pane.model
    qtmodeltester.check(model)
    ids = [model.index(row).data(ResultRole.DOCUMENT_ID) for row in range(model.rowCount())]
    assert ids[:2] == [attention_id, deadline_id]
    first, second = model.index(0), model.index(1)
    assert first.data(Qt.ItemDataRole.DisplayRole) == first.data(ResultRole.TITLE) == "Flash attention"
    assert '<b class="hit">attention</b>' in first.data(ResultRole.SNIPPET_HTML)
    assert "&lt;softmax&gt;" in first.data(ResultRole.SNIPPET_HTML)
    assert first.data(ResultRole.SCOPE) == SESSION and first.data(ResultRole.SCOPE_NAME) == "Reading week"
    assert not first.data(ResultRole.INHERITED) and second.data(ResultRole.INHERITED)
    assert second.data(ResultRole.SCOPE_NAME) == "inbox"
    assert isinstance(first.data(ResultRole.SCORE), float) and first.data(ResultRole.PAGE) is None
    assert first.data(ResultRole.HIT).document.id == attention_id
    # The tooltip explains the hit: the words it matched, its meaning and keyword scores, the scope weight.
    tooltip = first.data(Qt.ItemDataRole.ToolTipRole)
    assert "matched: attention, memory" in tooltip
    assert all(part in tooltip for part in ("meaning", "keywords", "scope weight", "score"))
    assert "not found: memory" in second.data(Qt.ItemDataRole.ToolTipRole)
    # The penguins share neither words nor meaning with the query: left out, and the status says so.
    assert re.fullmatch(r"2 results \(\d+ ms\), 1 weaker match left out", pane.status_label.text())


def test_model_with_built_hits_passes_modeltester_and_clears(qtmodeltester):
    model = SearchResultsModel()
    model.set_response(_response("kernel", _hit(1, "a", page=4), _hit(2, "b", scope="project/inbox", distance=1)))
    qtmodeltester.check(model)
    assert model.rowCount() == 2 and model.index(0).data(ResultRole.PAGE) == 4
    assert model.rowCount(model.index(0)) == 0 and model.index(0).data(Qt.ItemDataRole.EditRole) is None
    assert "= score 0.50" in model.index(0).data(Qt.ItemDataRole.ToolTipRole)
    model.clear()
    qtmodeltester.check(model)
    assert model.rowCount() == 0 and model.query == ""


# Requests --------------------------------------------------------------------------------------

def test_typing_quickly_sends_one_debounced_request(qtbot, pane, requests):
    with qtbot.waitSignal(pane.search_requested, timeout=DEBOUNCE_MS * 8):
        qtbot.keyClicks(pane.query_edit, "flash")
        assert requests == []  # nothing before the quiet time
    assert [r.query for r in requests] == ["flash"]
    assert not pane._debounce.isActive()  # nothing else is queued
    assert requests[0].request_id == 1 and requests[0].scopes is None and requests[0].scope == SESSION
    assert requests[0].types == () and requests[0].tags == () and requests[0].tag_mode == "all"


def test_enter_searches_at_once_and_ids_increase(qtbot, pane, requests):
    qtbot.keyClicks(pane.query_edit, "gpu")
    qtbot.keyClick(pane.query_edit, Qt.Key.Key_Return)
    assert [r.query for r in requests] == ["gpu"] and not pane._debounce.isActive()
    assert pane.status_label.text() == "searching…"
    second = _search(pane, qtbot, "gpu memory")
    assert second.request_id > requests[0].request_id


def test_stale_response_is_dropped_and_newest_shown(qtbot, pane, requests):
    old = _search(pane, qtbot, "flash")
    new = _search(pane, qtbot, "flash attention")
    pane.show_response(new.request_id, _response("flash attention", _hit(1, "newest")))
    pane.show_response(old.request_id, _response("flash", _hit(1, "stale"), _hit(2, "stale too")))
    pane.show_error(old.request_id, "late failure")
    assert pane.model.rowCount() == 1 and pane.model.index(0).data(ResultRole.TITLE) == "newest"
    assert pane.status_label.text().startswith("1 result (")

    # An old answer arriving while the newest is still outstanding is dropped too.
    newer = _search(pane, qtbot, "flash attention gpu")
    pane.show_response(new.request_id, _response("x", _hit(1, "again stale")))
    assert pane.status_label.text() == "searching…"
    pane.show_response(newer.request_id, _response("flash attention gpu"))
    assert pane.model.rowCount() == 0 and pane.status_label.text() == "no results"


def test_clearing_the_query_forgets_results_and_outstanding_requests(qtbot, pane, requests):
    request = _search(pane, qtbot, "flash")
    pane.query_edit.clear()
    pane.show_response(request.request_id, _response("flash", _hit(1, "late")))
    assert pane.model.rowCount() == 0 and pane.status_label.text() == ""
    assert pane.search_now() is None and len(requests) == 1


def test_filter_changes_search_again_with_types_tags_and_scopes(qtbot, pane, requests):
    pane.type_combo.setCurrentIndex(pane.type_combo.findData(DocumentType.NOTE))
    pane.add_tag_filter("#Topic/Attention")
    assert requests == []  # no query yet: filters alone do not search
    assert DocumentType.FOLDER.value.capitalize() not in [pane.type_combo.itemText(i)
                                                         for i in range(pane.type_combo.count())]
    first = _search(pane, qtbot, "kernels")
    assert first.types == (DocumentType.NOTE,) and first.tags == ("topic/attention",)
    assert not pane.match_button.isVisibleTo(pane)

    pane.add_tag_filter("gpu")
    assert requests[-1].tags == ("topic/attention", "gpu") and requests[-1].tag_mode == "all"
    assert pane.match_button.isVisibleTo(pane)
    pane.match_button.click()
    assert requests[-1].tag_mode == "any" and pane.match_button.text() == "Match any"
    assert requests[-1].tag_filter() == AnyOf((TagIs("topic/attention"), TagIs("gpu")))

    chip = next(b for b in pane._tag_box.findChildren(type(pane.match_button)) if b.property("tag") == "gpu")
    chip.click()
    assert requests[-1].tags == ("topic/attention",) and pane.tag_filters() == ["topic/attention"]
    count = len(requests)
    pane.add_tag_filter("topic/attention")  # a repeat changes nothing and sends nothing
    assert len(requests) == count and pane.tag_filters() == ["topic/attention"]

    pane._scope_buttons[2].click()
    assert requests[-1].scopes == (SESSION, "project/inbox")
    pane.type_combo.setCurrentIndex(0)
    assert requests[-1].types == () and requests[-1].scopes == (SESSION, "project/inbox")
    ids = [r.request_id for r in requests]
    assert ids == sorted(set(ids))
    with pytest.raises(InvalidInput):
        pane.add_tag_filter("bad,tag")


def test_the_memory_type_filter_is_sent_with_the_seed_s_hints_as_tooltips(qtbot, pane, requests):
    combo = pane.memory_type_combo
    assert [combo.itemData(i) for i in range(combo.count())] == [None, *(t.value for t in MemoryType)]
    feedback = combo.findData("feedback")
    assert MEMORY_TYPE_HINTS[MemoryType.FEEDBACK] in combo.itemData(feedback, Qt.ItemDataRole.ToolTipRole)
    assert _search(pane, qtbot, "deploy").memory_types == ()
    combo.setCurrentIndex(feedback)
    assert requests[-1].memory_types == (MemoryType.FEEDBACK,) and requests[-1].query == "deploy"
    assert MEMORY_TYPE_HINTS[MemoryType.FEEDBACK] in combo.toolTip()
    combo.setCurrentIndex(0)
    assert requests[-1].memory_types == ()


def test_the_window_searches_memories_of_the_chosen_type_and_saves_the_filter(qtbot, library, make_window):
    lesson = documents.add_text(library, "Deploy the schema before the code.", doc_type=DocumentType.NOTE,
                                title="Deploy order", memory_type="feedback")
    documents.add_text(library, "Deploy runbook: the schema, then the code.", doc_type=DocumentType.NOTE,
                       title="Deploy runbook", memory_type="reference")
    documents.add_text(library, "Deploy checklist of the schema and the code.", title="Deploy checklist")
    window = make_window(library)
    assert window.memory_type_filter.findData("episode") > 0  # the list's filter offers episodes too
    pane = window.search_pane
    pane.memory_type_combo.setCurrentIndex(pane.memory_type_combo.findData("feedback"))
    pane.query_edit.setText("deploy schema code")
    request = pane.search_now()
    qtbot.waitUntil(lambda: pane._pending is None and pane.model.rowCount() > 0, timeout=30_000)
    assert request.memory_types == (MemoryType.FEEDBACK,)
    assert [pane.model.hit(r).document.id for r in range(pane.model.rowCount())] == [lesson.id]
    window.notes.save_search("Deploy lessons")
    qtbot.waitUntil(lambda: "Deploy lessons" in window.folder_tree.folder_model.saved_searches(), timeout=30_000)
    saved = saved_searches.get_saved(library, "Deploy lessons")
    assert saved.memory_types == [MemoryType.FEEDBACK] and saved.query == "deploy schema code"


def test_at_least_one_scope_toggle_stays_on(qtbot, pane, requests):
    pane.query_edit.setText("kernels")
    pane.search_now()
    first, second, third = pane._scope_buttons
    assert [b.text() for b in pane._scope_buttons] == ["Reading week", "↑ inbox", "↑ default"]
    second.click()
    third.click()
    assert requests[-1].scopes == (SESSION,)
    sent = len(requests)
    first.click()  # the last one on: the click is undone and nothing is sent
    assert first.isChecked() and len(requests) == sent
    third.click()
    assert requests[-1].scopes == (SESSION, "group/default")


def test_new_visible_scopes_reset_the_toggles_and_search_again(qtbot, pane, requests):
    _search(pane, qtbot, "kernels")
    pane._scope_buttons[1].click()
    pane.set_visible_scopes(VISIBLE[1:], "project/inbox")
    assert requests[-1].scope == "project/inbox" and requests[-1].scopes is None
    assert [b.isChecked() for b in pane._scope_buttons] == [True, True]


# Results ---------------------------------------------------------------------------------------

def _show(pane, qtbot, *hits: SearchHit) -> None:
    request = _search(pane, qtbot, "kernel")
    pane.show_response(request.request_id, _response("kernel", *hits))
    pane.show()
    qtbot.waitExposed(pane)


def test_activating_a_result_emits_document_page_and_the_query_words_in_its_passage(qtbot, pane, requests):
    _show(pane, qtbot, _hit(1, "paper", text="The kernel trick, page four.", page=4), _hit(2, "note"))
    view = pane.results_view
    centre = view.visualRect(pane.model.index(0)).center()
    with qtbot.waitSignal(pane.result_activated, timeout=1000) as blocker:
        # A real double-click starts with a click; QTest's double-click alone skips the press the view needs.
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=centre)
        qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=centre)
    assert blocker.args == ["doc_1", 4, "kernel trick, page four. The"]  # from the query word on, then the start

    view.setFocus()
    with qtbot.waitSignal(pane.result_selected, timeout=1000) as selected:
        view.setCurrentIndex(pane.model.index(1))
    assert selected.args == ["doc_2"]
    with qtbot.waitSignal(pane.result_activated, timeout=1000) as blocker:
        qtbot.keyClick(view, Qt.Key.Key_Return)
    assert blocker.args == ["doc_2", None, "some passage text"]  # no query word: the passage


def test_down_from_the_query_box_moves_to_the_first_result(qtbot, pane, requests):
    _show(pane, qtbot, _hit(1, "first"), _hit(2, "second"))
    pane.focus_query()
    qtbot.waitUntil(pane.query_edit.hasFocus)
    assert pane.query_edit.selectedText() == "kernel"
    with qtbot.waitSignal(pane.result_selected, timeout=1000) as selected:
        qtbot.keyClick(pane.query_edit, Qt.Key.Key_Down)
    assert selected.args == ["doc_1"] and pane.results_view.hasFocus()


def test_status_line_reports_model_loading_errors_and_counts(qtbot, pane, requests):
    pane.set_model_ready(False)
    assert pane.status_label.text() == "loading model…"
    request = _search(pane, qtbot, "kernel")  # still sent: the backend waits for the model
    assert pane.status_label.text() == "loading model…"
    pane.set_model_ready(True)
    assert pane.status_label.text() == "searching…"
    pane.show_error(request.request_id, "the index is locked")
    assert pane.status_label.text() == "Search failed: the index is locked" and pane.model.rowCount() == 0
    request = _search(pane, qtbot, "kernels")
    response = _response("kernels", _hit(1, "a"), _hit(2, "b"))
    response.warnings.append("vector search unavailable, keyword results only")
    pane.show_response(request.request_id, response)
    assert re.fullmatch(r"2 results \(\d+ ms\) — vector search unavailable, keyword results only",
                        pane.status_label.text())


def test_a_missing_model_is_an_error_state_not_an_endless_load(qtbot, pane, requests, tmp_path):
    """The message is the library's own (``Library.model_problem``), for a model path that does not resolve."""
    from vancetope_desktop.core.settings import Settings
    from vancetope_desktop.services.library import Library

    with Library.open(tmp_path / "library", settings=Settings(embedding_model=str(tmp_path / "gone"))) as lib:
        problem = lib.model_problem()
    assert problem is not None
    pane.set_model_ready(False)
    pane.set_model_error(problem)
    # One short line; the library's whole message (what to install) is in the tooltip and behind Details….
    assert pane.status_label.text() == "Keyword search only: the embedding model cannot run here."
    assert pane.details_text() == problem and pane.details_button.isVisibleTo(pane)
    assert pane.status_label.property("role") == "error"
    request = _search(pane, qtbot, "kernel")  # keyword search still runs
    assert pane.status_label.text() == "searching…"
    response = _response("kernel", _hit(1, "a"))
    response.warnings.append(f"vector search unavailable, keyword results only: {problem}")
    pane.show_response(request.request_id, response)
    assert re.fullmatch(r"1 result \(\d+ ms\) — vector search unavailable, keyword results only…",
                        pane.status_label.text())
    assert problem in pane.details_text() and pane.status_label.property("role") == "error"
    pane.show_details()
    box = pane.findChild(QMessageBox)
    assert box is not None and box.isVisible() and problem in box.informativeText()
    box.close()

    # The model works again (another one chosen in Settings): the next search by meaning clears the error state.
    request = _search(pane, qtbot, "kernels")
    pane.show_response(request.request_id, _response("kernels", _hit(1, "a")))
    assert re.fullmatch(r"1 result \(\d+ ms\)", pane.status_label.text())
    assert pane.status_label.property("role") == "hint" and pane.model_error() is None
    assert not pane.details_button.isVisibleTo(pane)


def test_cards_show_three_snippet_lines_at_most_and_paint(qtbot, pane, requests):
    long_text = " ".join(["kernel methods generalise linear models"] * 40)
    _show(pane, qtbot, _hit(1, "short", text="kernel"), _hit(2, "long", text=long_text, page=3),
          _hit(3, "longer", text=long_text * 2, scope="project/inbox", distance=1))
    delegate = pane.results_view.itemDelegate()
    option = QStyleOptionViewItem()
    option.initFrom(pane.results_view)
    option.widget = pane.results_view
    heights = [delegate.sizeHint(option, pane.model.index(row)).height() for row in range(3)]
    assert heights[0] < heights[1] == heights[2]
    assert delegate.sizeHint(option, QModelIndex()).height() > 0
    image = pane.grab()
    assert image.size() == QSize(420, 600) and not image.isNull()


def test_a_sibling_think_process_is_marked_as_a_sibling_not_inherited(qtbot, qtmodeltester):
    tp, sibling = "think-process/tp_12", "think-process/tp_13"
    pane = SearchPane()
    qtbot.addWidget(pane)
    pane.resize(420, 600)
    names = {tp: "Paper Analysis", sibling: "Hypothesis Check", SESSION: "Reading week"}
    pane.set_visible_scopes([VisibleScope(path=tp, distance=0, weight=1.0),
                             VisibleScope(path=SESSION, distance=1, weight=0.8),
                             VisibleScope(path=sibling, distance=1, weight=0.8, results_only=True)], tp, names)
    assert [b.text() for b in pane._scope_buttons] == ["Paper Analysis", "↑ Reading week", "↔ Hypothesis Check"]
    assert pane._scope_buttons[2].toolTip().endswith("(a sibling think process: its results only)")
    _show(pane, qtbot, _hit(1, "own", scope=tp), _hit(2, "inherited", scope=SESSION, distance=1),
          _hit(3, "sibling's", scope=sibling, distance=1))
    model = pane.model
    qtmodeltester.check(model)
    marks = [(model.index(r).data(ResultRole.INHERITED), model.index(r).data(ResultRole.SIBLING)) for r in range(3)]
    assert marks == [(False, False), (True, False), (False, True)]
    assert not pane.grab().isNull()  # the "↔" badge paints


def test_the_memory_of_the_agent_running_the_session_is_marked_as_the_agent_s(qtbot, qtmodeltester):
    pane = SearchPane()
    qtbot.addWidget(pane)
    pane.resize(420, 600)
    agent = "agent/tau"
    pane.set_visible_scopes([VisibleScope(path=SESSION, distance=0, weight=1.0),
                             VisibleScope(path=agent, distance=1, weight=0.8, via_agent=True),
                             VisibleScope(path="project/inbox", distance=1, weight=0.7)],
                            SESSION, {SESSION: "Reading week", agent: "Tau", "project/inbox": "Inbox"})
    assert [b.text() for b in pane._scope_buttons] == ["Reading week", "⚙ Tau", "↑ Inbox"]
    assert pane._scope_buttons[1].toolTip().endswith("(the agent that runs this scope: its own memory)")
    _show(pane, qtbot, _hit(1, "agent's", scope=agent, distance=1),
          _hit(2, "inherited", scope="project/inbox", distance=1))
    model = pane.model
    qtmodeltester.check(model)
    assert [model.index(r).data(ResultRole.INHERITED) for r in range(2)] == [False, True]
    assert [ScopeRelation(model.index(r).data(ResultRole.RELATION)) for r in range(2)] == [
        ScopeRelation.AGENT, ScopeRelation.INHERITED]
    assert not pane.grab().isNull()  # the "⚙" badge paints


# Re-running after library changes ----------------------------------------------------------------

def test_a_refresh_reruns_the_query_quietly_and_keeps_the_selected_hit(qtbot, pane, requests):
    _show(pane, qtbot, _hit(1, "paper"), _hit(2, "note"), _hit(3, "fact"))
    status = pane.status_label.text()
    pane.results_view.setCurrentIndex(pane.model.index(1))
    assert pane.refresh_results()
    rerun = requests[-1]
    assert (rerun.query, rerun.scope, rerun.scopes) == ("kernel", SESSION, None)
    assert pane.status_label.text() == status  # no "searching…" flash
    assert pane.model.rowCount() == 3  # the old results stay until the answer comes
    moved = _hit(2, "note", scope="project/inbox", distance=1)
    with qtbot.assertNotEmitted(pane.result_selected):  # the same document: no reload of its details
        pane.show_response(rerun.request_id, _response("kernel", moved, _hit(3, "fact")))
    assert pane.model.rowCount() == 2
    selected = pane.results_view.selectionModel().selectedIndexes()
    assert [i.data(ResultRole.DOCUMENT_ID) for i in selected] == ["doc_2"]
    assert selected[0].data(ResultRole.SCOPE) == "project/inbox"
    # The selected hit gone (trashed): nothing is selected, nothing is announced.
    assert pane.refresh_results()
    with qtbot.assertNotEmitted(pane.result_selected):
        pane.show_response(requests[-1].request_id, _response("kernel", _hit(3, "fact")))
    assert pane.results_view.selectionModel().selectedIndexes() == []


def test_a_refresh_without_a_query_or_while_typing_sends_nothing(qtbot, pane, requests):
    assert not pane.refresh_results()
    pane.query_edit.setText("kern")  # the debounce runs: its search comes anyway
    assert not pane.refresh_results()
    assert requests == []


def test_the_window_reruns_the_search_after_a_move_and_the_trash(qtbot, real_search, make_window):
    library, attention_id, deadline_id = real_search
    window = make_window(library, SESSION)
    pane = window.search_pane
    pane.query_edit.setText("attention memory")
    pane.search_now()

    def scope_of(doc_id):
        return next((pane.model.hit(r).document.scope for r in range(pane.model.rowCount())
                     if pane.model.hit(r).document.id == doc_id), None)

    qtbot.waitUntil(lambda: scope_of(attention_id) == SESSION and scope_of(deadline_id) is not None, timeout=30_000)
    pane.results_view.setCurrentIndex(pane.model.index(
        next(r for r in range(pane.model.rowCount()) if pane.model.hit(r).document.id == attention_id)))
    # Showing the hit in Details gives it a citation key, itself a change (the list shows keys): let that
    # change land first, so that the move below is the only one the pane answers.
    qtbot.waitUntil(lambda: citation_keys.KEY_FIELD in documents.get_document(library, attention_id).metadata
                    and window._changes == library.change_counter(), timeout=30_000)
    sent = []
    pane.search_requested.connect(sent.append)
    window.workbench.move_to_scope([attention_id], "project/inbox")
    qtbot.waitUntil(lambda: scope_of(attention_id) == "project/inbox", timeout=30_000)
    assert len(sent) == 1  # one quiet re-run, not one per refresh
    selected = pane.results_view.selectionModel().selectedIndexes()
    assert [i.data(ResultRole.DOCUMENT_ID) for i in selected] == [attention_id]
    window.workbench.set_status([deadline_id], DocumentStatus.DELETED, "Move to Trash")
    qtbot.waitUntil(lambda: scope_of(deadline_id) is None, timeout=30_000)
    assert scope_of(attention_id) == "project/inbox"


def test_tooltip_says_when_the_best_passage_is_a_reference_list():
    model = SearchResultsModel()
    hit = _hit(1, "a", page=7)
    hit.passages[0] = hit.passages[0].model_copy(update={"role": ChunkRole.REFERENCES})
    model.set_response(_response("Baumeister", hit, _hit(2, "b")))
    assert "best passage: in its references (matched by words only)" in model.index(0).data(
        Qt.ItemDataRole.ToolTipRole)
    assert "best passage" not in model.index(1).data(Qt.ItemDataRole.ToolTipRole)


def test_the_mode_selector_goes_into_the_request_and_a_tree_answer_shows_topic_paths(qtbot, pane, requests):
    from vancetope_desktop.services.topic_search import TopicHit, TopicPath, TopicSearchResponse

    assert _search(pane, qtbot, "trail").mode == "auto"  # today's behaviour by default
    pane.mode_combo.setCurrentIndex(pane.mode_combo.findData("tree"))
    request = _search(pane, qtbot, "eagle ridge trail")
    assert request.mode == "tree"
    hit = TopicHit(**dict(_hit(1, "Maya hiked the Eagle Ridge trail", text="Maya hiked the Eagle Ridge trail")),
                   paths=[TopicPath(scope=SESSION, topic_ids=["doc_a", "doc_b"], labels=["Outdoors", "Hiking"])],
                   source_id="doc_src", source_title="Trip diary", source_page=3)
    pane.show_response(request.request_id, TopicSearchResponse(
        query="eagle ridge trail", scope=SESSION, hits=[hit], scopes=[SESSION], vector_search=True, mode="tree",
        atoms=400, atoms_scored=37))
    index = pane.model.index(0)
    assert index.data(ResultRole.BREADCRUMBS) == ["Outdoors › Hiking"]
    crumb = '<span class="crumb">Outdoors › Hiking · p. 3 of Trip diary</span><br>'
    assert crumb in index.data(ResultRole.SNIPPET_HTML)
    assert "topic: Outdoors › Hiking" in index.data(Qt.ItemDataRole.ToolTipRole)
    assert pane.status_label.text().endswith("by topic tree: 37 of 400 atoms scored")
    # An ordinary search's hits have no path and no extra line.
    flat = _search(pane, qtbot, "trail")
    pane.show_response(flat.request_id, _response("trail", _hit(1, "a note")))
    assert pane.model.index(0).data(ResultRole.BREADCRUMBS) == []
    assert "crumb" not in pane.model.index(0).data(ResultRole.SNIPPET_HTML)
