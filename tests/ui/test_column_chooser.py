"""The document table's Zotero-like columns (journal, DOI, type, pages, citation key, reading status), the
header's column chooser, and the column layout kept across restarts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from PySide6.QtCore import QSettings, Qt

from vancetope_desktop.core.documents import DocumentInfo, DocumentType
from vancetope_desktop.services import documents
from vancetope_desktop.ui.document_model import (
    DOC_ID_ROLE,
    Column,
    DocumentFilterProxy,
    DocumentTableModel,
    page_length,
)
from vancetope_desktop.ui.document_table import COLUMNS_KEY, HIDDEN_BY_DEFAULT, DocumentTableView

T0 = datetime(2026, 11, 30, 13, 5, tzinfo=UTC)
NEW_COLUMNS = (Column.JOURNAL, Column.DOI, Column.TYPE, Column.PAGES, Column.CITATION_KEY, Column.READING)


def _doc(n: int, title: str, doc_type: DocumentType = DocumentType.REFERENCE, **metadata) -> DocumentInfo:
    mime = "application/pdf" if doc_type == DocumentType.FILE else "text/plain"
    return DocumentInfo(id=f"doc_{n}", scope="project/inbox", type=doc_type, title=title, mime_type=mime,
                        created_at=T0 - timedelta(days=n), updated_at=T0, metadata=metadata)


def _documents() -> list[DocumentInfo]:
    return [
        _doc(1, "Attention Is All You Need", journal="Advances in Neural Information Processing Systems",
             doi="10.48550/arxiv.1706.03762", entry_type="inproceedings", pages="5998-6008",
             citation_key="vaswani2017attention", reading_status="read"),
        _doc(2, "Highly accurate protein structure prediction", journal="Nature", doi="10.1038/s41586-021-03819-2",
             entry_type="article", pages="583–589", citation_key="jumper2021highly", reading_status="unread"),
        _doc(3, "A scanned report", DocumentType.FILE, page_count=120, reading_status="reading"),
        _doc(4, "Loose thoughts", DocumentType.NOTE, venue="Lab meeting", reading_status="someday"),
    ]


@pytest.fixture
def model(qapp):
    model = DocumentTableModel()
    model.set_documents(_documents(), current_scope="project/inbox", scope_names={})
    return model


def _column(model, column: Column) -> dict[str, str]:
    return {model.index(r, 0).data(DOC_ID_ROLE): model.index(r, column).data() for r in range(model.rowCount())}


def _sorted(model, column: Column, order=Qt.SortOrder.AscendingOrder) -> list[str]:
    proxy = DocumentFilterProxy()
    proxy.setSourceModel(model)
    proxy.sort(column, order)
    return [proxy.index(r, 0).data(DOC_ID_ROLE) for r in range(proxy.rowCount())]


def test_the_model_with_the_new_columns_passes_the_model_tester(qtmodeltester, model):
    assert model.columnCount() == len(Column) == 15
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in NEW_COLUMNS] == [
        "Journal", "DOI", "Type", "Pages", "Citation key", "Reading"]
    qtmodeltester.check(model)
    proxy = DocumentFilterProxy()
    proxy.setSourceModel(model)
    proxy.sort(Column.READING, Qt.SortOrder.DescendingOrder)
    qtmodeltester.check(proxy)


def test_each_new_column_shows_the_documents_value(model):
    assert _column(model, Column.JOURNAL) == {
        "doc_1": "Advances in Neural Information Processing Systems", "doc_2": "Nature", "doc_3": "",
        "doc_4": "Lab meeting"}
    assert _column(model, Column.DOI) == {"doc_1": "10.48550/arxiv.1706.03762", "doc_2": "10.1038/s41586-021-03819-2",
                                          "doc_3": "", "doc_4": ""}
    assert _column(model, Column.TYPE) == {"doc_1": "Reference (inproceedings)", "doc_2": "Reference (article)",
                                           "doc_3": "PDF", "doc_4": "Note"}
    assert _column(model, Column.PAGES) == {"doc_1": "5998-6008", "doc_2": "583–589", "doc_3": "120", "doc_4": ""}
    assert _column(model, Column.CITATION_KEY) == {"doc_1": "vaswani2017attention", "doc_2": "jumper2021highly",
                                                   "doc_3": "", "doc_4": ""}
    # An unknown status is not shown as if it were one (the reading-status service sets only these three).
    assert _column(model, Column.READING) == {"doc_1": "read", "doc_2": "unread", "doc_3": "reading", "doc_4": ""}


@pytest.mark.parametrize(("column", "ascending"), [
    (Column.JOURNAL, ["doc_1", "doc_4", "doc_2", "doc_3"]),
    (Column.DOI, ["doc_2", "doc_1", "doc_3", "doc_4"]),
    (Column.TYPE, ["doc_4", "doc_3", "doc_2", "doc_1"]),
    (Column.PAGES, ["doc_2", "doc_1", "doc_3", "doc_4"]),  # by length: 7, 11, 120 pages, unknown last
    (Column.CITATION_KEY, ["doc_2", "doc_1", "doc_3", "doc_4"]),
    (Column.READING, ["doc_2", "doc_3", "doc_1", "doc_4"]),  # unread, reading, read: progress, not alphabet
])
def test_each_new_column_sorts_with_unknown_values_last(model, column, ascending):
    assert _sorted(model, column) == ascending
    known = [i for i in ascending if model.index(model.row_for(i), column).data()]
    descending = _sorted(model, column, Qt.SortOrder.DescendingOrder)
    assert descending[:len(known)] == known[::-1]


@pytest.mark.parametrize(("metadata", "length"), [
    ({"pages": "5998-6008"}, 11), ({"pages": "e1002"}, 1), ({"pages": "S12--S15"}, 4), ({"pages": "pp. 3–1"}, 1),
    ({"pages": "xii"}, None), ({"page_count": 9}, 9), ({}, None),
])
def test_page_length_of_ranges_and_counts(metadata, length):
    assert page_length(metadata) == length


@pytest.fixture
def make_view(qtbot):
    def make() -> DocumentTableView:
        view = DocumentTableView()
        qtbot.addWidget(view)
        view.resize(1000, 400)
        view.set_documents(_documents(), current_scope="project/inbox", scope_names={})
        view.show()
        return view

    return make


def test_the_new_columns_are_hidden_at_first_and_shown_from_the_header_menu(make_view):
    view = make_view()
    assert set(NEW_COLUMNS) <= set(HIDDEN_BY_DEFAULT)
    assert all(view.isColumnHidden(c) for c in NEW_COLUMNS)
    entries = {a.text(): a for a in view.header_menu().actions()}
    assert all(entries[n].isCheckable() for n in ("Journal", "DOI", "Type", "Pages", "Citation key", "Reading"))
    entries["DOI"].trigger()
    assert not view.isColumnHidden(Column.DOI)
    entries["DOI"].trigger()
    assert view.isColumnHidden(Column.DOI)


def test_shown_columns_order_widths_and_sort_survive_a_new_table(make_view, tmp_path):
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    first = make_view()
    first.column_actions[Column.READING].setChecked(True)
    first.column_actions[Column.TAGS].setChecked(False)
    header = first.horizontalHeader()
    header.moveSection(header.visualIndex(Column.READING), 1)  # as a header drag does
    header.resizeSection(Column.AUTHORS, 171)
    first.sortByColumn(Column.READING, Qt.SortOrder.AscendingOrder)
    first.save_columns(settings)

    second = make_view()
    assert second.isColumnHidden(Column.READING)  # defaults until restored
    second.restore_columns(QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat))
    assert not second.isColumnHidden(Column.READING)
    assert second.column_actions[Column.READING].isChecked()
    assert second.isColumnHidden(Column.TAGS) and not second.column_actions[Column.TAGS].isChecked()
    assert second.horizontalHeader().visualIndex(Column.READING) == 1
    assert second.columnWidth(Column.AUTHORS) == 171
    assert second.horizontalHeader().sortIndicatorSection() == Column.READING
    second.resize(700, 400)  # a restored width is the user's: no refit
    assert second.columnWidth(Column.AUTHORS) == 171


def test_a_layout_naming_unknown_columns_or_garbage_keeps_the_defaults(make_view, tmp_path):
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    settings.setValue(COLUMNS_KEY, '{"shown": ["TITLE", "GONE", "DOI"], "hidden": ["TAGS"], "order": ["GONE"]}')
    view = make_view()
    view.restore_columns(settings)
    assert not view.isColumnHidden(Column.DOI) and view.isColumnHidden(Column.TAGS)
    assert view.isColumnHidden(Column.JOURNAL) and not view.isColumnHidden(Column.YEAR)  # not named: default
    settings.setValue(COLUMNS_KEY, "not json")
    make_view().restore_columns(settings)  # no error


def test_the_column_choice_survives_a_new_window(qtbot, library, make_window):
    documents.add_text(library, "Read this one first.", title="A note",
                       metadata={"reading_status": "reading", "citation_key": "note2026"})
    first = make_window(library)
    first.table.column_actions[Column.READING].setChecked(True)
    first.table.column_actions[Column.SCOPE].setChecked(False)
    first.close()
    second = make_window(library)
    assert not second.table.isColumnHidden(Column.READING)
    assert second.table.isColumnHidden(Column.SCOPE)
    assert second.table.isColumnHidden(Column.CITATION_KEY)
    model = second.table.document_model
    qtbot.waitUntil(lambda: model.rowCount() == 1, timeout=10_000)
    assert model.index(0, Column.READING).data() == "reading"
    assert model.index(0, Column.CITATION_KEY).data() == "note2026"
