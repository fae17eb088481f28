"""Annotating in the PDF viewer: the page layout QPdfView uses, a highlight made by dragging over words,
the Annotations list, and the whole path through the window to the library."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QFileDialog

from tests.services.test_annotations import PAGE_ONE, PAGE_TWO, make_pdf
from vancetope_desktop.ingest.registry import extract_file
from vancetope_desktop.services import annotation_pdf, annotations, documents, imports
from vancetope_desktop.ui.viewer import PdfViewer, pdf_geometry
from vancetope_desktop.ui.viewer.pdf_annotations import AnnotationRequest, PdfAnnotator

from .conftest import WINDOW_WAIT_MS


@pytest.fixture
def small_pdf(tmp_path):
    return make_pdf(tmp_path / "paper.pdf", [PAGE_ONE, PAGE_TWO, PAGE_ONE])


@pytest.fixture
def pdf_viewer(qtbot, small_pdf):
    viewer = PdfViewer()
    qtbot.addWidget(viewer)
    viewer.resize(800, 600)
    viewer.show()
    viewer.open(small_pdf)
    qtbot.waitExposed(viewer)
    return viewer


def _word_pixel(view, path, page: int, text: str) -> QPoint:
    """The viewport pixel at the centre of the first word ``text`` on ``page``."""
    with annotation_pdf.open_pdf(path) as doc:
        word = next(w for w in annotation_pdf.page_words(doc, page) if w.text == text)
    return pdf_geometry.to_viewport(view, page, list(word.rect)).center().toPoint()


def drag(qtbot, annotator: PdfAnnotator, path, page: int, first: str, last: str) -> None:
    """Press on the word ``first``, move to ``last`` and release there, as a reader selects text."""
    viewport = annotator.view.viewport()
    start, end = (_word_pixel(annotator.view, path, page, w) for w in (first, last))
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(viewport, pos=end)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=end)


@pytest.mark.parametrize("zoom", ["fit width", "custom", "fit page"])
def test_the_page_layout_matches_the_scroll_range_qpdfview_sets(qtbot, pdf_viewer, zoom):
    zooms = {"fit width": pdf_viewer.fit_width, "custom": lambda: pdf_viewer.zoom_by(1.3),
             "fit page": pdf_viewer.fit_page}
    zooms[zoom]()
    view = pdf_viewer.view
    qtbot.waitUntil(lambda: pdf_geometry.document_height(view)
                    == view.verticalScrollBar().maximum() + view.viewport().height())
    pages = pdf_geometry.page_geometries(view)
    assert len(pages) == 3 and pages[0].top() < pages[1].top() < pages[2].top()


def test_dragging_over_words_selects_them_and_highlight_asks_for_it(qtbot, pdf_viewer, small_pdf):
    annotator = pdf_viewer.annotator
    assert not annotator.highlight_action.isEnabled()
    drag(qtbot, annotator, small_pdf, 1, "Gradient", "memory.")
    assert annotator.selection is not None and annotator.selection.text == PAGE_ONE[1]
    assert annotator.highlight_action.isEnabled()
    with qtbot.waitSignal(annotator.requested) as asked:
        annotator.highlight_action.trigger()
    request: AnnotationRequest = asked.args[0]
    assert (request.action, request.page, request.quote) == ("highlight", 1, PAGE_ONE[1])
    assert len(request.rects) == 1 and annotator.selection is None and request.color == annotations.DEFAULT_COLOR
    # Picking a colour from the Highlight button's menu highlights the selection in it.
    drag(qtbot, annotator, small_pdf, 2, "Mixed", "precision")
    with qtbot.waitSignal(annotator.requested) as asked:
        next(a for a in annotator.color_menu.actions() if a.text() == "Green").trigger()
    assert (asked.args[0].quote, asked.args[0].color) == ("Mixed precision", annotations.COLORS["green"])


def test_the_annotations_list_shows_them_and_jumps_to_one(qtbot, tmp_path, library, pdf_viewer):
    doc = documents.get_document(library, imports.upload(
        library, [make_pdf(tmp_path / "stored.pdf", [PAGE_ONE, PAGE_TWO, PAGE_ONE])], extractor=extract_file,
    ).outcomes[0].document_id)
    annotations.highlight_text(library, doc.id, "Flash kernels fuse", comment="fast")
    annotations.add_note(library, doc.id, page=3, comment="end note")
    annotator = pdf_viewer.annotator
    annotator.set_annotations(annotations.list_annotations(library, doc.id))
    rows = [annotator.panel.list.item(i).text() for i in range(annotator.panel.list.count())]
    assert rows == ["p. 2 · “Flash kernels fuse”\nfast", "p. 3 · Note: end note"]
    assert annotator.panel_action.text() == "Annotations (2)"
    annotator.panel_action.trigger()
    assert annotator.panel.isVisible()
    top = pdf_viewer.view.verticalScrollBar().value()
    annotator.panel.list.setCurrentRow(1)
    annotator.jump_to(annotator.panel.current_id())
    assert pdf_viewer.view.verticalScrollBar().value() > top
    assert pdf_geometry.page_at(pdf_viewer.view, pdf_viewer.view.viewport().rect().center())[0] == 3


@pytest.mark.slow  # a real window on a real library
def test_a_highlight_made_in_the_window_is_stored_and_listed(qtbot, make_window, library, tmp_path):
    path = make_pdf(tmp_path / "paper.pdf", [PAGE_ONE, PAGE_TWO])
    doc_id = imports.upload(library, [path], extractor=extract_file).outcomes[0].document_id
    window = make_window(library)
    window.open_document(doc_id)
    qtbot.waitUntil(lambda: window.current_viewer() is not None
                    and isinstance(window.current_viewer().current_widget(), PdfViewer), timeout=WINDOW_WAIT_MS)
    pdf = window.current_viewer().current_widget()
    qtbot.waitExposed(pdf)
    stored = documents.get_document(library, doc_id).file_path
    drag(qtbot, pdf.annotator, stored, 1, "Sparse", "sequences.")
    pdf.annotator.highlight_action.trigger()
    assert [a.quote for a in pdf.annotator.pending] == [PAGE_ONE[0]]  # drawn before the write returns
    qtbot.waitUntil(lambda: pdf.annotator.panel.list.count() == 1, timeout=WINDOW_WAIT_MS)
    assert pdf.annotator.pending == []
    [made] = annotations.list_annotations(library, doc_id)
    assert made.quote == PAGE_ONE[0] and made.page == 1
    assert pdf.annotator.panel.list.item(0).text() == f"p. 1 · “{PAGE_ONE[0]}”"
    # Opening the annotation (from search, say) opens its PDF at its page.
    window.open_document(made.id)
    qtbot.waitUntil(lambda: window.current_viewer().current_document_id() == doc_id, timeout=WINDOW_WAIT_MS)


def _tint(annotator: PdfAnnotator, point: QPoint) -> QColor:
    return annotator.view.viewport().grab().toImage().pixelColor(point)


def test_a_highlight_is_drawn_at_once_and_removed_with_a_message_if_its_write_fails(qtbot, pdf_viewer, small_pdf):
    annotator = pdf_viewer.annotator
    word = _word_pixel(annotator.view, small_pdf, 1, "checkpointing")
    blank = _tint(annotator, word)
    drag(qtbot, annotator, small_pdf, 1, "Gradient", "memory.")
    with qtbot.waitSignal(annotator.requested):
        annotator.highlight_action.trigger()  # nobody answers yet: the write is still queued
    drawn = _tint(annotator, word)
    assert drawn.blue() < blank.blue() - 30 and drawn.red() > drawn.blue()  # yellow over the words, not blue
    with qtbot.waitSignal(annotator.status_changed) as told:
        annotator.drop_pending("the library is read-only")
    assert "not saved" in told.args[0] and _tint(annotator, word) == blank


def test_a_highlight_drawn_at_once_gives_way_to_the_stored_one(qtbot, pdf_viewer, small_pdf):
    annotator = pdf_viewer.annotator
    drag(qtbot, annotator, small_pdf, 1, "Gradient", "memory.")
    with qtbot.waitSignal(annotator.requested) as asked:
        annotator.highlight_action.trigger()
    assert len(annotator.pending) == 1
    stored = annotations.Annotation.model_validate({  # as the service returns it: quote stripped
        **annotator.pending[0].model_dump(), "id": "a1", "document_id": "d", "quote": asked.args[0].quote.strip()})
    annotator.set_annotations([stored])
    assert annotator.pending == [] and [a.id for a in annotator.annotations] == ["a1"]


@pytest.mark.slow  # a real window on a real library
def test_export_annotations_from_the_list_and_the_document_menu(qtbot, make_window, library, tmp_path, monkeypatch):
    path = make_pdf(tmp_path / "paper.pdf", [PAGE_ONE, PAGE_TWO])
    doc_id = imports.upload(library, [path], extractor=extract_file).outcomes[0].document_id
    annotations.highlight_text(library, doc_id, PAGE_ONE[0])
    answers = iter([str(tmp_path / "notes"), str(tmp_path / "annotated.pdf")])  # no suffix: the filter says
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *_a: (next(answers), "Markdown (*.md)"))
    window = make_window(library)
    window.open_document(doc_id)
    qtbot.waitUntil(lambda: window.current_viewer() is not None
                    and isinstance(window.current_viewer().current_widget(), PdfViewer), timeout=WINDOW_WAIT_MS)
    pdf = window.current_viewer().current_widget()
    pdf.annotator.panel.export_button.click()
    qtbot.waitUntil(lambda: (tmp_path / "notes.md").is_file(), timeout=WINDOW_WAIT_MS)
    assert PAGE_ONE[0] in (tmp_path / "notes.md").read_text(encoding="utf-8")
    assert window.export_annotations_action in window.document_menu.actions()
    window.export_annotations_action.trigger()
    qtbot.waitUntil(lambda: (tmp_path / "annotated.pdf").is_file(), timeout=WINDOW_WAIT_MS)
    with annotation_pdf.open_pdf(tmp_path / "annotated.pdf") as copy:
        assert len(list(copy[0].annots())) == 1


def test_the_annotations_button_keeps_its_whole_label_in_a_narrow_tab(qtbot, tmp_path, library, pdf_viewer):
    # The trial's toolbar read "Annot…s (2)": the button gave way to the find box.
    doc = documents.get_document(library, imports.upload(
        library, [make_pdf(tmp_path / "stored.pdf", [PAGE_ONE, PAGE_TWO])], extractor=extract_file,
    ).outcomes[0].document_id)
    annotations.add_note(library, doc.id, page=1, comment="one")
    annotations.add_note(library, doc.id, page=2, comment="two")
    pdf_viewer.show()
    pdf_viewer.resize(520, 500)
    annotator = pdf_viewer.annotator
    annotator.set_annotations(annotations.list_annotations(library, doc.id))
    button = pdf_viewer.toolbar.widgetForAction(annotator.panel_action)
    qtbot.waitUntil(lambda: button.width() >= button.fontMetrics().horizontalAdvance("Annotations (2)"))
