"""The details panel: what it shows of a document, and the edits it emits."""

from datetime import UTC, datetime

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLineEdit

from vancetope_desktop.core.documents import (
    DocumentInfo,
    DocumentType,
    IndexState,
    Source,
    SourceType,
    VersionInfo,
)
from vancetope_desktop.ui.details_panel import DetailsPanel, format_value, parse_value
from vancetope_desktop.ui.scope_text import ScopeRelation

WHEN = datetime(2024, 5, 1, 12, 30, tzinfo=UTC)


def _paper(**changes) -> DocumentInfo:
    values = dict(
        id="doc_1", scope="project/inbox", type=DocumentType.FILE, title="Attention Is All You Need",
        mime_type="application/pdf", tags=["topic/attention", "unread"], created_at=WHEN, updated_at=WHEN,
        metadata={"authors": ["Vaswani, A.", "Shazeer, N."], "year": 2017, "doi": "10.48550/arXiv.1706.03762",
                  "page_count": 15, "publisher": "NeurIPS", "title": "Attention Is All You Need",
                  "title_from_content": False, "file_suffix": ".pdf", "ocr_pages": [3], "nested": {"a": 1}},
        file_path="/library/files/ab/attention.pdf", index_state=IndexState.INDEXED, version=3,
    )
    values.update(changes)
    return DocumentInfo(**values)


def _version(number: int, reason: str, document_id: str = "doc_1") -> VersionInfo:
    return VersionInfo(document_id=document_id, number=number, title="t", content=None, tags=[], metadata={},
                       content_hash=None, reason=reason, created_at=WHEN)


@pytest.fixture
def panel(qtbot):
    widget = DetailsPanel()
    qtbot.addWidget(widget)
    widget.resize(300, 800)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _edit(qtbot, field: QLineEdit, text: str) -> None:
    """Replace a field's text by typing, then press Enter (editingFinished)."""
    field.setFocus()
    field.selectAll()
    qtbot.keyClicks(field, text)
    qtbot.keyClick(field, Qt.Key.Key_Return)


def test_shows_a_papers_details(panel):
    panel.show_document(_paper(), scope_label="Inbox", folder_path=["Papers", "2017"])
    assert panel.document_id() == "doc_1"
    assert panel.title_edit.text() == "Attention Is All You Need"
    assert panel.type_label.text() == "File · application/pdf"
    assert panel.scope_label.text() == "Inbox" and not panel.inherited_label.isVisible()
    assert panel.folder_label.text() == "Papers / 2017"
    assert panel.file_label.text() == "attention.pdf"
    assert panel.source_label.text() == "Written in the app"
    assert panel.created_label.text() == WHEN.astimezone().strftime("%Y-%m-%d %H:%M")
    assert "(version 3)" in panel.updated_label.text()
    fields = panel.metadata_fields
    # Standard fields first (journal offered though empty), then other scalar keys; internal ones hidden.
    assert list(fields) == ["authors", "year", "doi", "journal", "page_count", "publisher"]
    assert fields["authors"].text() == "Vaswani, A.; Shazeer, N."
    assert fields["year"].text() == "2017" and fields["journal"].text() == ""
    assert not isinstance(fields["page_count"], QLineEdit)  # measured, not editable
    assert panel.tags_editor.tags() == ["topic/attention", "unread"]
    assert panel.index_label.text() == "Indexed" and not panel.retry_button.isVisible()


def test_think_process_result_shows_its_source(panel):
    source = Source(type=SourceType.THINK_PROCESS_RESULT, think_process_id="tp_12", node_id="n_3")
    note = _paper(type=DocumentType.RESULT, source=source, metadata={}, file_path=None, mime_type="text/markdown")
    panel.show_document(note)
    assert panel.source_label.text() == "Think process result: think process tp_12, node n_3"
    assert panel.scope_label.text() == "project/inbox"
    assert panel.folder_label.text() == "(top level)"
    assert not panel.file_label.isVisible()
    assert panel.metadata_fields == {} and not panel.metadata_heading.isVisible()


def test_title_and_metadata_edits_are_emitted(qtbot, panel):
    panel.show_document(_paper())
    with qtbot.waitSignal(panel.title_edited) as titled:
        _edit(qtbot, panel.title_edit, "  Attention, Revisited ")
    assert titled.args == ["doc_1", "Attention, Revisited"]

    with qtbot.waitSignal(panel.metadata_edited) as edited:
        _edit(qtbot, panel.metadata_fields["authors"], "Vaswani, A.; Parmar, N. ;")
    assert edited.args == ["doc_1", {"authors": ["Vaswani, A.", "Parmar, N."]}]
    with qtbot.waitSignal(panel.metadata_edited) as edited:
        _edit(qtbot, panel.metadata_fields["journal"], "NeurIPS Proceedings")
    assert edited.args == ["doc_1", {"journal": "NeurIPS Proceedings"}]
    with qtbot.waitSignal(panel.metadata_edited) as edited:
        _edit(qtbot, panel.metadata_fields["year"], "2018")
    assert edited.args == ["doc_1", {"year": 2018}]

    # Finishing without a change (Enter, then focus moving away) emits nothing.
    with qtbot.assertNotEmitted(panel.metadata_edited), qtbot.assertNotEmitted(panel.title_edited):
        panel.metadata_fields["doi"].setFocus()
        qtbot.keyClick(panel.metadata_fields["doi"], Qt.Key.Key_Return)
        panel.metadata_fields["year"].setFocus()
        qtbot.keyClick(panel.title_edit, Qt.Key.Key_Return)


def test_blank_title_is_put_back(qtbot, panel):
    panel.show_document(_paper())
    with qtbot.assertNotEmitted(panel.title_edited):
        panel.title_edit.setFocus()
        panel.title_edit.clear()
        qtbot.keyClick(panel.title_edit, Qt.Key.Key_Return)
    assert panel.title_edit.text() == "Attention Is All You Need"


def test_tag_chips_emit_with_the_document_id(qtbot, panel):
    panel.show_document(_paper())
    panel.set_tag_completions(["topic/attention", "method/transformer"])
    panel.set_tag_colors({"topic": "#1f77b4"})
    with qtbot.waitSignal(panel.tag_added) as added:
        qtbot.keyClicks(panel.tags_editor.line_edit, "Method/Transformer")
        qtbot.keyClick(panel.tags_editor.line_edit, Qt.Key.Key_Return)
    assert added.args == ["doc_1", "method/transformer"]
    chip = panel.tags_editor.chips()[0]
    assert chip.color().name() == "#1f77b4"
    with qtbot.waitSignal(panel.tag_clicked) as clicked:
        chip.clicked.emit(chip.tag)
    assert clicked.args == ["topic/attention"]
    with qtbot.waitSignal(panel.tag_removed) as removed:
        qtbot.mouseClick(chip, Qt.MouseButton.LeftButton, pos=chip.close_button_rect().center())
    assert removed.args == ["doc_1", "topic/attention"]
    qtbot.keyClicks(panel.tags_editor.line_edit, "bad tag")
    qtbot.keyClick(panel.tags_editor.line_edit, Qt.Key.Key_Return)
    assert panel.tags_editor.error_text()
    panel.show_document(_paper(id="doc_2"))  # another document: the half-typed tag and its error go
    assert panel.tags_editor.error_text() == "" and panel.tags_editor.line_edit.text() == ""


def test_versions_open_and_restore(qtbot, panel):
    panel.show_document(_paper())
    assert panel.versions_empty.isVisible() and not panel.versions_list.isVisible()
    panel.set_versions([_version(1, "edited"), _version(2, "tags: +#unread"), _version(1, "x", "other_doc")])
    assert panel.versions_list.topLevelItemCount() == 2
    newest = panel.versions_list.topLevelItem(0)
    assert [newest.text(c) for c in range(4)] == ["2", WHEN.astimezone().strftime("%Y-%m-%d %H:%M"), "edited", "—"]
    assert not panel.restore_version_button.isEnabled()
    panel.versions_list.setCurrentItem(panel.versions_list.topLevelItem(1))
    with qtbot.waitSignal(panel.version_restore_requested) as restored:
        qtbot.mouseClick(panel.restore_version_button, Qt.MouseButton.LeftButton)
    assert restored.args == ["doc_1", 1]
    with qtbot.waitSignal(panel.version_open_requested) as opened:
        qtbot.mouseClick(panel.open_version_button, Qt.MouseButton.LeftButton)
    assert opened.args == ["doc_1", 1]
    # Showing the same document again (after an edit) keeps its versions; another one clears them.
    panel.show_document(_paper(title="New"))
    assert panel.versions_list.topLevelItemCount() == 2
    panel.show_document(_paper(id="doc_2"))
    assert panel.versions_list.topLevelItemCount() == 0


def test_failed_indexing_shows_the_reason_and_offers_a_retry(qtbot, panel):
    panel.show_document(_paper(index_state=IndexState.FAILED, index_error="PDF is encrypted"))
    assert panel.index_label.text() == "Indexing failed"
    assert panel.index_error_label.text() == "PDF is encrypted" and panel.index_error_label.isVisible()
    assert panel.retry_button.isVisible()
    with qtbot.waitSignal(panel.retry_requested) as retried:
        qtbot.mouseClick(panel.retry_button, Qt.MouseButton.LeftButton)
    assert retried.args == ["doc_1"]
    panel.show_document(_paper(index_state=IndexState.NEEDS_OCR, index_error="3 page(s) need OCR"))
    assert "OCR" in panel.index_label.text() and panel.index_error_label.text() == "3 page(s) need OCR"
    assert not panel.retry_button.isVisible()


def test_inherited_documents_are_read_only(qtbot, panel):
    panel.show_document(_paper(), scope_label="Inbox", inherited=True)
    panel.set_versions([_version(1, "edited")])
    assert panel.is_read_only()
    assert panel.inherited_label.isVisible() and "Inherited from Inbox" in panel.inherited_label.text()
    assert panel.title_edit.isReadOnly()
    assert all(f.isReadOnly() for f in panel.metadata_fields.values() if isinstance(f, QLineEdit))
    assert panel.tags_editor.is_read_only() and not panel.tags_editor.line_edit.isVisible()
    panel.versions_list.setCurrentItem(panel.versions_list.topLevelItem(0))
    assert not panel.restore_version_button.isEnabled() and panel.open_version_button.isEnabled()
    with (qtbot.assertNotEmitted(panel.title_edited), qtbot.assertNotEmitted(panel.metadata_edited),
          qtbot.assertNotEmitted(panel.tag_removed), qtbot.assertNotEmitted(panel.version_restore_requested)):
        qtbot.keyClicks(panel.title_edit, "changed")
        qtbot.keyClick(panel.title_edit, Qt.Key.Key_Return)
        qtbot.keyClicks(panel.metadata_fields["doi"], "x")
        qtbot.keyClick(panel.metadata_fields["doi"], Qt.Key.Key_Return)
        panel.tags_editor.chips()[0].remove_requested.emit("topic/attention")
        panel._restore_version()
    # The same document shown from its own scope is editable again.
    panel.show_document(_paper())
    assert not panel.is_read_only() and not panel.title_edit.isReadOnly()


def field_and_background(qtbot, panel: DetailsPanel, field: QLineEdit) -> tuple[QColor, QColor]:
    """The colour painted inside ``field`` (right of its text) and the panel's own beside it."""
    def inside() -> QPoint:
        return field.mapTo(panel, QPoint(field.width() - 4, field.height() // 2))

    qtbot.waitUntil(lambda: panel.rect().contains(inside()))  # laid out in the panel's width
    image = panel.grab().toImage()
    return image.pixelColor(inside()), image.pixelColor(2, inside().y())


def test_read_only_fields_look_read_only_and_get_their_look_back(qtbot, panel):
    panel.show_document(_paper(), scope_label="Hypothesis Check", relation=ScopeRelation.SIBLING)
    assert panel.inherited_label.text() == (
        "From sibling think process Hypothesis Check (its results are shared with this one): read-only here")
    year = panel.metadata_fields["year"]
    assert isinstance(year, QLineEdit) and year.isReadOnly() and panel.title_edit.isReadOnly()
    inside, beside = field_and_background(qtbot, panel, year)
    assert inside == beside  # no field box: it reads as text
    panel.show_document(_paper(), scope_label="Inbox")  # the same document, its own scope's now
    assert panel.inherited_label.isHidden() and not year.isReadOnly()
    inside, beside = field_and_background(qtbot, panel, year)
    assert inside == year.palette().base().color() != beside  # an input again


def test_empty_state(panel):
    panel.show_document(_paper())
    panel.show_document(None)
    assert panel.document_id() is None
    assert panel.empty_label.isVisible() and not panel.scroll.isVisible()


@pytest.mark.parametrize(("text", "original", "key", "value"), [
    ("A; B", ["x"], "authors", ["A", "B"]),
    ("A; B", None, "authors", ["A", "B"]),
    ("2020", None, "year", 2020),
    ("2020a", 2019, "year", "2020a"),
    ("1.5", 2.0, "ratio", 1.5),
    ("", "x", "doi", None),
    ("plain", None, "publisher", "plain"),
])
def test_form_values_keep_their_shape(text, original, key, value):
    assert parse_value(text, original, key) == value


def test_format_value():
    assert format_value(["a", 1]) == "a; 1" and format_value(None) == "" and format_value(3) == "3"


def test_a_refresh_keeps_what_the_user_is_typing(qtbot, panel):
    panel.show_document(_paper())
    doi = panel.metadata_fields["doi"]
    doi.setFocus()
    qtbot.waitUntil(doi.hasFocus)
    doi.selectAll()
    qtbot.keyClicks(doi, "10.1/typing")
    # The indexer finished meanwhile: the main window shows the refreshed document.
    panel.show_document(_paper(index_state=IndexState.INDEXED, metadata={**_paper().metadata, "year": 2018}))
    assert panel.metadata_fields["doi"] is doi and doi.text() == "10.1/typing"
    assert panel.metadata_fields["year"].text() == "2018"
    with qtbot.waitSignal(panel.metadata_edited) as edited:
        qtbot.keyClick(doi, Qt.Key.Key_Return)
    assert edited.args == ["doc_1", {"doi": "10.1/typing"}]


def test_derived_from_links_open_the_inputs(qtbot, panel):
    panel.show_document(_paper(metadata={"derived_from": ["doc_a"], "node_type": "extract"}))
    assert "derived_from" not in panel.metadata_fields  # shown as links, not as an editable field
    assert not isinstance(panel.metadata_fields["node_type"], QLineEdit)
    assert panel.derived_label.isHidden() or not panel.derived_label.text()
    panel.set_derived_from([("doc_a", "Attention <paper>"), ("doc_b", "Notes")])
    assert 'href="doc_a"' in panel.derived_label.text()
    assert "&lt;paper&gt;" in panel.derived_label.text()  # titles are escaped
    with qtbot.waitSignal(panel.document_link_activated) as blocker:
        panel.derived_label.linkActivated.emit("doc_b")
    assert blocker.args == ["doc_b"]
    panel.show_document(_paper(id="doc_other"))
    assert panel.derived_label.text() == ""


def test_a_references_bibliography_and_attachments_are_links(qtbot, panel):
    from vancetope_desktop.services.relations import DocumentLinks, LinkedDocument

    reference = _paper(type=DocumentType.REFERENCE, file_path=None, mime_type="text/plain", metadata={
        "authors": ["National Research Council Committee on Science, Technology, and Law"], "year": 2009,
        "journal": "Reports", "citation_key": "nrc2009", "entry_type": "techreport", "abstract": "Long text.",
        "listed_in": ["doc_bib"], "attachments": ["doc_pdf"]})
    panel.show_document(reference)
    assert {"abstract", "listed_in", "attachments"}.isdisjoint(panel.metadata_fields)  # text / links, not fields
    assert panel.metadata_fields["citation_key"].text() == "nrc2009"
    authors = panel.metadata_fields["authors"]
    assert authors.text() == "National Research Council Committee on Science, Technology, and Law"
    panel.show_document(reference.model_copy(update={"metadata": {**reference.metadata, "authors": [
        "National Research Council Committee on Science, Technology, and Law", "Jane Smith"]}}))
    assert authors.text().endswith("; Jane Smith") and authors.cursorPosition() == 0  # refreshed: shows the start
    assert all(label.isHidden() for label in panel.link_labels.values())
    panel.set_links(DocumentLinks(listed_in=[LinkedDocument(id="doc_bib", title="library.bib", type="file")],
                                  attachments=[LinkedDocument(id="doc_pdf", title="Report", type="file")]))
    assert 'href="doc_bib"' in panel.link_labels["listed_in"].text()
    assert not panel.link_labels["attachments"].isHidden() and panel.link_labels["entries"].isHidden()
    with qtbot.waitSignal(panel.document_link_activated) as blocker:
        panel.link_labels["attachments"].linkActivated.emit("doc_pdf")
    assert blocker.args == ["doc_pdf"]

    entries = [LinkedDocument(id=f"doc_{i}", title=f"Paper {i}", type="reference") for i in range(20)]
    panel.show_document(_paper(id="doc_bib", metadata={"entry_count": 506, "entry_types": {"article": 506}}))
    assert panel.link_labels["listed_in"].isHidden()  # the previous document's links are gone
    assert "entry_types" not in panel.metadata_fields and "authors" not in panel.metadata_fields
    assert panel.metadata_fields["entry_count"].text() == "506"
    panel.set_links(DocumentLinks(entries=entries, entry_count=506))
    text = panel.link_labels["entries"].text()
    assert text.count("href=") == 5 and "501 more (506 references)" in text


def test_the_file_size_reads_in_kb_after_a_refresh_too(panel):
    # The panel is refreshed with every snapshot; the in-place update of the same document showed
    # "304636" where the first showing said "297.5 KB".
    doc = _paper(metadata={"file_size": 304_636, "page_count": 15})
    panel.show_document(doc)
    assert panel.metadata_fields["file_size"].text() == "297.5 KB"
    panel.show_document(doc)
    assert panel.metadata_fields["file_size"].text() == "297.5 KB"


@pytest.mark.parametrize(("source", "first"), [(SourceType.USER_UPLOAD, "imported"), (SourceType.MANUAL, "created")])
def test_each_version_reads_as_how_it_came_about(panel, source, first):
    # A stored version keeps the state before a change, with that change's reason: version 1 of an
    # imported paper read "edited" (the edit that replaced it).
    panel.show_document(_paper(source=Source(type=source)))
    panel.set_versions([_version(1, "edited"), _version(2, "tags +#unread")])
    rows = [panel.versions_list.topLevelItem(i) for i in range(2)]
    assert [(r.text(0), r.text(2)) for r in rows] == [("2", "edited"), ("1", first)]
    assert rows[1].toolTip(2) == f"{first}, then edited"
    assert panel.version_origin(1) == first
