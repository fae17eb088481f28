"""The document table model, its sort/filter proxy and the table view: cells, sorting, quick filter, drag, drop."""

import unicodedata
from datetime import UTC, datetime, timedelta

import pytest
from PySide6.QtCore import QMimeData, QModelIndex, QPointF, Qt, QUrl
from PySide6.QtGui import QAction, QGuiApplication, QKeySequence

from tests.ui.drops import drag_and_drop
from vancetope_desktop.core.documents import DocumentInfo, DocumentStatus, DocumentType, IndexState
from vancetope_desktop.ui.dnd import decode_document_ids, encode_document_ids
from vancetope_desktop.ui.document_model import (
    DOC_ID_ROLE,
    SORT_ROLE,
    TAGS_ROLE,
    Column,
    DocumentFilterProxy,
    DocumentTableModel,
    format_authors,
    surname,
)
from vancetope_desktop.ui.document_table import DocumentTableView

SESSION, PROJECT = "session/monday", "project/attention"
NAMES = {SESSION: "Monday session", PROJECT: "Attention project"}
T0 = datetime(2026, 11, 30, 13, 5, tzinfo=UTC)
VASWANI = ["Ashish Vaswani", "Noam Shazeer", "Niki Parmar", "Jakob Uszkoreit", "Llion Jones", "Aidan N. Gomez",
           "Łukasz Kaiser", "Illia Polosukhin"]


def _doc(n, title, **fields):
    fields.setdefault("scope", SESSION)
    fields.setdefault("type", DocumentType.FILE)
    return DocumentInfo(id=f"doc_{n}", title=title, created_at=T0 - timedelta(days=n),
                        updated_at=T0 - timedelta(hours=n), **fields)


def _documents():
    nfd_title = unicodedata.normalize("NFD", "Résumé of café chats")
    return [
        _doc(1, "Attention Is All You Need", mime_type="application/pdf", tags=["transformers", "nlp"],
             metadata={"authors": VASWANI, "year": 2017}, index_state=IndexState.INDEXED,
             file_path="/library/files/ab/attention.pdf"),
        _doc(2, "Notes on Müller's method", type=DocumentType.NOTE, content="…",
             metadata={"authors": "Jörg Müller; Anna Schmidt", "year": "2021"}, tags=["notes"]),
        _doc(3, "Scanned lab book", mime_type="application/pdf", scope=PROJECT, index_state=IndexState.NEEDS_OCR),
        _doc(4, "Broken upload", mime_type="application/pdf", index_state=IndexState.FAILED,
             index_error="the PDF is encrypted", metadata={"year": 2019}),
        _doc(5, "Higgs mass is 125 GeV", type=DocumentType.FACT, scope=PROJECT, tags=["physics"],
             index_state=IndexState.INDEXED),
        _doc(6, nfd_title, type=DocumentType.NOTE, index_state=IndexState.INDEXED,
             metadata={"authors": ["Marie Curie"], "year": 2017}),
        _doc(7, "Old run", type=DocumentType.RESULT, status=DocumentStatus.DELETED, index_state=IndexState.INDEXED),
    ]


@pytest.fixture
def model(qapp):
    model = DocumentTableModel()
    model.set_documents(_documents(), current_scope=SESSION, scope_names=NAMES)
    return model


@pytest.fixture
def proxy(model):
    proxy = DocumentFilterProxy()
    proxy.setSourceModel(model)
    return proxy


@pytest.fixture
def view(qtbot):
    view = DocumentTableView()
    qtbot.addWidget(view)
    view.resize(1000, 400)
    view.set_documents(_documents(), current_scope=SESSION, scope_names=NAMES)
    view.show()
    qtbot.waitExposed(view)
    return view


def _cell(model, doc_id, column, role=Qt.ItemDataRole.DisplayRole):
    return model.index(model.row_for(doc_id), column).data(role)


def _ids(proxy):
    return [proxy.index(r, 0).data(DOC_ID_ROLE) for r in range(proxy.rowCount())]


# -- the model --------------------------------------------------------------------------------------


def test_model_and_proxy_pass_the_model_tester(qtmodeltester, qapp):
    model = DocumentTableModel()
    qtmodeltester.check(model)
    model.set_documents(_documents(), current_scope=SESSION, scope_names=NAMES)
    qtmodeltester.check(model)
    proxy = DocumentFilterProxy()
    proxy.setSourceModel(model)
    proxy.sort(Column.YEAR, Qt.SortOrder.AscendingOrder)
    proxy.set_quick_filter("attention")
    qtmodeltester.check(proxy)
    model.update_document(_documents()[0].model_copy(update={"title": "Attention, revised"}))
    model.set_documents(_documents()[:2], current_scope=PROJECT, scope_names={})
    proxy.set_quick_filter("")
    qtmodeltester.check(proxy)


def test_headers_and_lookups(model):
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in Column]
    assert headers == ["Title", "Authors", "Year", "Tags", "Scope", "Index", "Added", "Modified", "Journal", "DOI",
                       "Type", "Pages", "Citation key", "Reading", "Memory type"]
    assert model.row_for("doc_3") == 2 and model.row_for("nope") is None
    assert model.document(2).title == "Scanned lab book"
    with pytest.raises(IndexError):
        model.document(99)


def test_authors_are_shortened_to_three_surnames(model):
    assert _cell(model, "doc_1", Column.AUTHORS) == "Vaswani, Shazeer, Parmar, … +5"
    assert _cell(model, "doc_1", Column.AUTHORS, Qt.ItemDataRole.ToolTipRole).splitlines() == VASWANI
    assert _cell(model, "doc_2", Column.AUTHORS) == "Müller, Schmidt"
    assert _cell(model, "doc_3", Column.AUTHORS) == ""
    assert [surname(n) for n in ("Curie, Marie", "Ludwig van Beethoven", "Martin Luther King Jr.",
                                 "ATLAS Collaboration", "Plato")] == [
        "Curie", "van Beethoven", "King", "ATLAS Collaboration", "Plato"]
    assert format_authors(["A B", "C D", "E F", "G H"]) == "B, D, F, … +1"


def test_a_corporate_author_is_not_cut_at_its_comma():
    body = "National Research Council Committee on Science, Technology, and Law"
    assert surname(body) == body  # from a braced BibTeX author: no part of it is a surname
    assert surname("Centre for Disease Control") == "Centre for Disease Control"
    assert format_authors([body, "Jane Smith"]) == f"{body}, Smith"


def test_year_tags_and_type_icons(model):
    assert _cell(model, "doc_1", Column.YEAR) == "2017"
    assert _cell(model, "doc_2", Column.YEAR) == "2021"  # a string year from a bibliography
    assert _cell(model, "doc_3", Column.YEAR) == ""
    assert _cell(model, "doc_1", Column.TAGS) == "#transformers #nlp"
    assert _cell(model, "doc_1", Column.TAGS, TAGS_ROLE) == ["transformers", "nlp"]
    for n in range(1, 8):
        assert not _cell(model, f"doc_{n}", Column.TITLE, Qt.ItemDataRole.DecorationRole).isNull()
    assert _cell(model, "doc_1", Column.TITLE, Qt.ItemDataRole.ToolTipRole).endswith("attention.pdf")
    assert all(_cell(model, f"doc_{n}", c, DOC_ID_ROLE) == f"doc_{n}" for n in (1, 4) for c in Column)


def test_inherited_documents_show_their_scope_muted(model):
    assert _cell(model, "doc_1", Column.SCOPE) == "Monday session"
    assert _cell(model, "doc_1", Column.SCOPE, Qt.ItemDataRole.ForegroundRole) is None
    assert _cell(model, "doc_3", Column.SCOPE) == "↑ Attention project"
    assert _cell(model, "doc_3", Column.SCOPE, Qt.ItemDataRole.ToolTipRole) == (
        "inherited from Attention project (project/attention): read-only here")
    assert _cell(model, "doc_3", Column.SCOPE, Qt.ItemDataRole.ForegroundRole) is not None
    model.set_documents(_documents(), current_scope=SESSION, scope_names={})
    assert _cell(model, "doc_3", Column.SCOPE) == "↑ attention"  # the key when no name is known


def test_a_sibling_think_process_result_is_marked_as_a_siblings_not_inherited(qtmodeltester, qapp):
    tp, sibling, session = "think-process/tp_12", "think-process/tp_13", "session/review-2026"
    model = DocumentTableModel()
    model.set_documents([_doc(1, "Own note", scope=tp), _doc(2, "Sibling result", scope=sibling,
                                                              type=DocumentType.RESULT),
                         _doc(3, "Session paper", scope=session)],
                        current_scope=tp, scope_names={sibling: "Hypothesis Check", session: "Literature review"},
                        sibling_scopes=[sibling])
    qtmodeltester.check(model)
    assert _cell(model, "doc_2", Column.SCOPE) == "↔ Hypothesis Check"
    assert _cell(model, "doc_2", Column.SCOPE, Qt.ItemDataRole.ToolTipRole) == (
        "a result of sibling think process Hypothesis Check (think-process/tp_13), shared with this one: "
        "read-only here")
    assert _cell(model, "doc_2", Column.SCOPE, Qt.ItemDataRole.ForegroundRole) is not None
    assert _cell(model, "doc_3", Column.SCOPE) == "↑ Literature review"
    assert _cell(model, "doc_1", Column.SCOPE) == "tp_12"
    assert not model.is_inherited(model.document(1)) and model.is_inherited(model.document(2))


def test_index_state_in_words_with_reason_and_dot(model):
    words = {n: _cell(model, f"doc_{n}", Column.INDEX) for n in (1, 2, 3, 4)}
    assert words == {1: "indexed", 2: "pending", 3: "needs OCR", 4: "failed"}
    assert _cell(model, "doc_4", Column.INDEX, Qt.ItemDataRole.ToolTipRole) == "failed: the PDF is encrypted"
    assert not _cell(model, "doc_4", Column.INDEX, Qt.ItemDataRole.DecorationRole).isNull()


def test_dates_in_local_time(model):
    expected = (T0 - timedelta(days=1)).astimezone().strftime("%Y-%m-%d %H:%M")
    assert _cell(model, "doc_1", Column.ADDED) == expected
    assert _cell(model, "doc_1", Column.ADDED, SORT_ROLE) == (T0 - timedelta(days=1)).timestamp()
    stored = _documents()[0].model_copy(update={"created_at": datetime(2026, 1, 2, 3, 4)})  # naive = UTC
    model.update_document(stored)
    assert _cell(model, "doc_1", Column.ADDED) == datetime(2026, 1, 2, 3, 4, tzinfo=UTC).astimezone().strftime(
        "%Y-%m-%d %H:%M")


def test_update_document_changes_one_row(model, qtbot):
    changed = _documents()[3].model_copy(update={"index_state": IndexState.INDEXED, "index_error": None})
    with qtbot.waitSignal(model.dataChanged) as blocker:
        assert model.update_document(changed)
    top_left, bottom_right = blocker.args[:2]
    assert (top_left.row(), top_left.column(), bottom_right.row(), bottom_right.column()) == (3, 0, 3, len(Column) - 1)
    assert _cell(model, "doc_4", Column.INDEX) == "indexed"
    assert not model.update_document(_doc(42, "Not shown"))


# -- sorting and the quick filter -------------------------------------------------------------------


def test_sort_by_year_puts_unknown_years_last_and_breaks_ties_by_title(proxy):
    proxy.sort(Column.YEAR, Qt.SortOrder.AscendingOrder)
    assert _ids(proxy) == ["doc_1", "doc_6", "doc_4", "doc_2", "doc_5", "doc_7", "doc_3"]
    proxy.sort(Column.YEAR, Qt.SortOrder.DescendingOrder)
    assert _ids(proxy) == ["doc_2", "doc_4", "doc_1", "doc_6", "doc_5", "doc_7", "doc_3"]


def test_sort_by_added_and_title(proxy):
    proxy.sort(Column.ADDED, Qt.SortOrder.DescendingOrder)
    assert _ids(proxy) == [f"doc_{n}" for n in range(1, 8)]
    proxy.sort(Column.ADDED, Qt.SortOrder.AscendingOrder)
    assert _ids(proxy) == [f"doc_{n}" for n in range(7, 0, -1)]
    proxy.sort(Column.TITLE, Qt.SortOrder.AscendingOrder)
    assert _ids(proxy)[:3] == ["doc_1", "doc_4", "doc_5"]  # casefolded: "Attention", "Broken", "Higgs"


@pytest.mark.parametrize(("text", "expected"), [
    ("mueller", ["doc_2"]),
    ("müller", ["doc_2"]),
    ("MÜLLER", ["doc_2"]),
    (unicodedata.normalize("NFD", "Müller"), ["doc_2"]),
    ("muller", ["doc_2"]),
    ("résumé", ["doc_6"]),
    (unicodedata.normalize("NFD", "résumé"), ["doc_6"]),
    ("CAFE", ["doc_6"]),
    ("shazeer", ["doc_1"]),
    ("#nlp", ["doc_1"]),
    ("2017", ["doc_1", "doc_6"]),
    ("2017 curie", ["doc_6"]),
    ("  ", ["doc_1", "doc_2", "doc_3", "doc_4", "doc_5", "doc_6", "doc_7"]),
    ("nothing like this", []),
])
def test_quick_filter_ignores_case_and_accents(proxy, text, expected):
    proxy.set_quick_filter(text)
    assert sorted(_ids(proxy)) == expected


def test_quick_filter_follows_updates(proxy, model):
    proxy.set_quick_filter("revised")
    assert _ids(proxy) == []
    model.update_document(_documents()[2].model_copy(update={"title": "Revised lab book"}))
    assert _ids(proxy) == ["doc_3"]


# -- drag and drop on the model ---------------------------------------------------------------------


def _file_mime(*paths):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    return mime


def test_files_dropped_on_the_model(model, qtbot, corpus):
    papers = sorted((corpus / "papers").glob("*.pdf"))[:2]
    with qtbot.waitSignal(model.files_dropped) as blocker:
        assert model.dropMimeData(_file_mime(*papers), Qt.DropAction.CopyAction, -1, -1, QModelIndex())
    assert blocker.args == [papers]


def test_documents_cannot_be_dropped_back_onto_the_table(model, qtbot):
    mime = encode_document_ids(["doc_1"])
    assert not model.canDropMimeData(mime, Qt.DropAction.MoveAction, -1, -1, QModelIndex())
    with qtbot.assertNotEmitted(model.files_dropped):
        assert not model.dropMimeData(mime, Qt.DropAction.MoveAction, -1, -1, QModelIndex())
        qtbot.wait(20)


def test_web_link_dropped_on_the_model_is_refused(model, qtbot):
    mime = QMimeData()
    mime.setUrls([QUrl("https://example.org/paper.pdf")])
    with qtbot.waitSignal(model.drop_refused) as blocker, qtbot.assertNotEmitted(model.files_dropped):
        assert not model.dropMimeData(mime, Qt.DropAction.CopyAction, -1, -1, QModelIndex())
    assert blocker.args == ["https://example.org/paper.pdf is a web link, not a file: download it first"]


# -- the view ---------------------------------------------------------------------------------------


def _select_rows_of(view, ids):
    view.select_ids(ids)
    return view.selected_ids()


def test_view_setup(view):
    assert not view.verticalHeader().isVisible()
    assert view.isSortingEnabled()
    assert view.horizontalHeader().sortIndicatorSection() == Column.ADDED
    assert view.TAGS_COLUMN == Column.TAGS
    assert view.columnWidth(Column.TITLE) > view.columnWidth(Column.AUTHORS) > view.columnWidth(Column.YEAR)


def test_columns_can_be_shown_from_the_header_menu(view):
    assert view.isColumnHidden(Column.MODIFIED)
    names = [a.text() for a in view.header_menu().actions()]
    assert names == ["Authors", "Year", "Tags", "Scope", "Index", "Added", "Modified", "Journal", "DOI", "Type",
                     "Pages", "Citation key", "Reading", "Memory type"]
    view.column_actions[Column.MODIFIED].setChecked(True)
    assert not view.isColumnHidden(Column.MODIFIED)
    view.column_actions[Column.TAGS].setChecked(False)
    assert view.isColumnHidden(Column.TAGS)


def test_a_narrow_table_keeps_room_for_the_title(view, qtbot):
    view.resize(640, 300)
    qtbot.waitUntil(lambda: view.viewport().width() < 640)
    assert view.columnWidth(Column.TITLE) >= 0.25 * view.viewport().width()
    view.horizontalHeader().resizeSection(Column.AUTHORS, 300)  # the user takes over
    view.resize(900, 300)
    qtbot.waitUntil(lambda: view.viewport().width() > 800)
    assert view.columnWidth(Column.AUTHORS) == 300


def test_dragged_rows_decode_to_their_ids(view, qtbot):
    with qtbot.waitSignal(view.selection_changed) as blocker:
        selected = _select_rows_of(view, ["doc_5", "doc_2"])
    assert selected == ["doc_2", "doc_5"]  # view order: newest first
    assert blocker.args == [["doc_2", "doc_5"]]
    rows = [view.proxy.mapToSource(i) for i in view.selectionModel().selectedIndexes()]
    assert decode_document_ids(view.document_model.mimeData(rows)) == ["doc_2", "doc_5"]
    # Through the proxy too (what Qt's own drag code would call).
    assert decode_document_ids(view.proxy.mimeData(view.selectionModel().selectedIndexes())) == ["doc_2", "doc_5"]


def test_selection_survives_a_reload_and_a_vanished_row_is_announced(view, qtbot):
    _select_rows_of(view, ["doc_1", "doc_3"])
    with qtbot.assertNotEmitted(view.selection_changed):
        view.set_documents(_documents(), current_scope=SESSION, scope_names=NAMES)
    assert view.selected_ids() == ["doc_1", "doc_3"]
    with qtbot.waitSignal(view.selection_changed) as blocker:
        view.set_documents(_documents()[1:], current_scope=SESSION, scope_names=NAMES)
    assert blocker.args == [["doc_3"]]


def test_open_on_double_click_and_enter(view, qtbot):
    index = view.proxy.mapFromSource(view.document_model.index(view.document_model.row_for("doc_4"), 0))
    point = view.visualRect(index).center()
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    with qtbot.waitSignal(view.open_requested) as blocker:
        qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert blocker.args == ["doc_4"]
    view.setFocus()
    view.setCurrentIndex(view.proxy.index(0, 0))
    with qtbot.waitSignal(view.open_requested) as blocker:
        qtbot.keyClick(view, Qt.Key.Key_Return)
    assert blocker.args == ["doc_1"]


def test_row_actions_emit_requests(view, qtbot):
    _select_rows_of(view, ["doc_2", "doc_3"])
    view.setFocus()
    with qtbot.waitSignal(view.trash_requested) as blocker:
        qtbot.keyClick(view, Qt.Key.Key_Delete)
    assert blocker.args == [["doc_2", "doc_3"]]
    with qtbot.waitSignal(view.rename_requested) as blocker:
        qtbot.keyClick(view, Qt.Key.Key_F2)
    assert blocker.args == [view.current_id()]
    qtbot.keyClick(view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert QGuiApplication.clipboard().text() == "doc_2\ndoc_3"


def test_a_window_shortcut_for_the_same_key_wins_without_ambiguity(view, qtbot):
    # The main window's Edit menu adds F2/Delete actions to the table; they must fire (once), not clash.
    fired = []
    window_rename = QAction("Rename", view, shortcut=QKeySequence(Qt.Key.Key_F2))
    window_rename.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
    window_rename.triggered.connect(lambda: fired.append("window"))
    view.addAction(window_rename)
    _select_rows_of(view, ["doc_2"])
    view.setFocus()
    with qtbot.assertNotEmitted(view.rename_requested):
        qtbot.keyClick(view, Qt.Key.Key_F2)
    assert fired == ["window"]


def test_trash_mode_swaps_the_actions(view, qtbot):
    def texts():
        return [a.text() for a in view.context_menu().actions() if not a.isSeparator()]

    _select_rows_of(view, ["doc_7"])
    assert texts() == ["Open", "Rename…", "Move to Trash", "Move to Scope", "Request Promotion…", "Reading Status",
                       "Copy id"]
    view.set_trash_mode(True)
    assert not view.request_promotion_action.isEnabled()
    assert texts() == ["Open", "Rename…", "Restore from Trash", "Delete permanently…", "Copy id"]
    with qtbot.waitSignal(view.restore_requested) as blocker:
        view.restore_action.trigger()
    assert blocker.args == [["doc_7"]]
    with qtbot.waitSignal(view.purge_requested) as blocker:
        view.delete_permanently_action.trigger()
    assert blocker.args == [["doc_7"]]
    view.setFocus()
    with qtbot.assertNotEmitted(view.trash_requested):
        qtbot.keyClick(view, Qt.Key.Key_Delete)
    with qtbot.waitSignal(view.purge_requested):
        qtbot.keyClick(view, Qt.Key.Key_Delete, Qt.KeyboardModifier.ShiftModifier)
    _select_rows_of(view, ["doc_1", "doc_7"])
    assert texts() == ["Restore from Trash", "Delete permanently…", "Copy id"]
    view.selectionModel().clearSelection()
    assert texts() == []


def test_view_quick_filter(view):
    view.set_quick_filter("mueller")
    assert _ids(view.proxy) == ["doc_2"]
    view.set_quick_filter("")
    assert len(_ids(view.proxy)) == 7


def _drop_on_view(view, mime, point):
    return drag_and_drop(view.viewport(), mime, QPointF(point))


def test_real_drops_of_files_on_rows_and_on_the_empty_area(view, qtbot, corpus, tmp_path):
    odd = [tmp_path / "a file with spaces.md", tmp_path / unicodedata.normalize("NFC", "Größe.txt"),
           tmp_path / unicodedata.normalize("NFD", "Größe é.txt"), tmp_path / "中文 文件.txt"]
    for path in odd:
        path.write_text("x", encoding="utf-8")
    files = [next((corpus / "papers").glob("*.pdf")), *odd]
    model = view.document_model
    on_row = QPointF(view.visualRect(view.proxy.index(1, 2)).center())
    with qtbot.waitSignal(model.files_dropped) as blocker:
        assert _drop_on_view(view, _file_mime(*files), on_row) == (True, True)
    assert blocker.args == [files]
    below_rows = QPointF(40, view.viewport().height() - 10)
    with qtbot.waitSignal(model.files_dropped) as blocker:
        assert _drop_on_view(view, _file_mime(files[0]), below_rows) == (True, True)
    assert blocker.args == [files[:1]]


def test_real_drop_of_a_web_link_is_refused_with_a_message(view, qtbot):
    mime = QMimeData()
    mime.setUrls([QUrl("https://arxiv.org/pdf/1706.03762")])
    with qtbot.waitSignal(view.document_model.drop_refused) as blocker:
        assert _drop_on_view(view, mime, QPointF(40, 40)) == (True, False)
    assert "download it first" in blocker.args[0]


def test_real_drop_of_own_rows_is_refused(view, qtbot):
    with qtbot.assertNotEmitted(view.document_model.files_dropped):
        assert _drop_on_view(view, encode_document_ids(["doc_1"]), QPointF(40, 40)) == (False, False)
        qtbot.wait(20)


def test_the_tags_keep_their_width_while_the_scope_and_authors_give_way(view, qtbot):
    # At 1600×1000 the list (about 930 pixels) cut the tags to "+1"/"+2" while the scope column, the same
    # scope's name on every row, kept its full width: the text columns now give way scope first, tags last.
    view.resize(930, 300)
    qtbot.waitUntil(lambda: view.viewport().width() > 900)
    two_tags = view.fontMetrics().horizontalAdvance("#efficiency #sparse") + 20  # and the chips' padding
    assert view.columnWidth(Column.TAGS) >= two_tags
    assert view.columnWidth(Column.SCOPE) < view.columnWidth(Column.AUTHORS) < view.columnWidth(Column.TAGS)
    assert view.columnWidth(Column.TITLE) >= 0.25 * view.viewport().width()


def test_added_columns_give_way_before_the_title_authors_and_tags(view, qtbot):
    # The trial's list (790 px) with Journal, DOI, Citation key and Reading shown: Title 111 px, Authors and
    # Tags 47 px, DOI 190 px. The new text columns give way first, and the title keeps its share.
    view.resize(790, 300)
    qtbot.waitUntil(lambda: view.viewport().width() < 790)
    for column in (Column.JOURNAL, Column.DOI, Column.CITATION_KEY, Column.READING):
        view.column_actions[column].setChecked(True)
    metrics = view.fontMetrics()
    assert view.columnWidth(Column.TITLE) >= int(0.3 * view.viewport().width())
    assert view.columnWidth(Column.AUTHORS) >= metrics.horizontalAdvance("Vaswani, Shaz…")
    assert view.columnWidth(Column.TAGS) >= metrics.horizontalAdvance("#efficiency #sparse")
    assert view.columnWidth(Column.DOI) < metrics.horizontalAdvance("10.1038/s41586-021-03819")
