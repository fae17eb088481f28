"""The document viewer on real corpus files: PDFs, notes (rendering and editing), data, images, bad files."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, QPointF, Qt
from PySide6.QtGui import QColor, QImage

from vancetope_desktop.core.documents import DocumentInfo, DocumentType
from vancetope_desktop.ui.viewer import (
    DataViewer,
    DocumentViewer,
    ImageViewer,
    MarkdownViewer,
    PdfViewer,
    TextViewer,
    pdf_find,
)

PAPER = "papers/s2orc-open-research-corpus-acl2020.pdf"
# From page 3 of that paper; a passage as the chunker stores it: hyphenation joined, one line.
PAGE_3_PASSAGE = ("We process PDFs from the Semantic Scholar corpus using ScienceParse v3.0.0 and GROBID v0.5.5 "
                  "(Lopez, 2009). Our processing pipeline is described below.")


def make_doc(path: Path | None = None, *, type: DocumentType = DocumentType.FILE, content: str | None = None,
             title: str | None = None, **fields) -> DocumentInfo:
    """A document with a fresh id, pointing at ``path`` when given."""
    now = datetime.now(UTC)
    return DocumentInfo(id=uuid.uuid4().hex, scope="project/inbox", type=type,
                        title=title or (path.name if path else "note"), created_at=now, updated_at=now,
                        file_path=str(path) if path else None, content=content, **fields)


@pytest.fixture
def viewer(qtbot):
    widget = DocumentViewer()
    qtbot.addWidget(widget)
    widget.resize(900, 700)
    widget.show()
    return widget


def _pdf(viewer: DocumentViewer) -> PdfViewer:
    pdf = viewer.viewer(PdfViewer)
    assert isinstance(pdf, PdfViewer) and viewer.current_widget() is pdf
    return pdf


# -- PDFs ---------------------------------------------------------------------------------------------


def test_pdf_opens_at_page_and_finds_words(qtbot, viewer, corpus):
    viewer.show_document(make_doc(corpus / PAPER, mime_type="application/pdf"), page=3)
    pdf = _pdf(viewer)
    assert pdf.page_count() == 15
    assert pdf.navigator.currentPage() == 2 and pdf.current_page() == 3
    assert pdf.page_spin.value() == 3 and pdf.page_spin.suffix() == " / 15"
    pdf.go_to_page(5)
    assert pdf.navigator.currentPage() == 4 and pdf.page_spin.value() == 5
    pdf.find_bar.search("corpus")
    qtbot.waitUntil(lambda: pdf.find_bar.result_count() > 0, timeout=10_000)
    qtbot.waitUntil(lambda: pdf.view.currentSearchResultIndex() == 0, timeout=10_000)
    pdf.find_bar.step(1)
    assert pdf.view.currentSearchResultIndex() == 1
    assert "2 / " in pdf.find_bar.count_label.text()


def test_pdf_highlights_a_passage_on_its_page(qtbot, viewer, corpus):
    viewer.show_document(make_doc(corpus / PAPER), page=3, highlight=PAGE_3_PASSAGE)
    pdf = _pdf(viewer)
    model = pdf.find_bar.model
    assert model.searchString() == "We process PDFs from the Semantic"
    qtbot.waitUntil(lambda: pdf.view.currentSearchResultIndex() >= 0, timeout=10_000)
    assert model.resultAtIndex(pdf.view.currentSearchResultIndex()).page() == 2
    assert pdf.current_page() == 3


def test_a_passage_on_a_late_page_is_awaited_past_the_quiet_time(qtbot, viewer, corpus, monkeypatch):
    # Qt < 6.12 gives no search status, so a search counts as over after QUIET_MS without results. A
    # busy machine once took longer than that to reach page 7 of a paper, and the hit's passage was
    # never selected. A quiet time of 1 ms plays that machine.
    monkeypatch.setattr(pdf_find, "QUIET_MS", 1)
    viewer.show_document(make_doc(corpus / PAPER))
    pdf = _pdf(viewer)
    late = " ".join(pdf.document.getAllText(11).text().split()[200:240])
    pdf.highlight(late, page=12)
    qtbot.waitUntil(lambda: pdf.view.currentSearchResultIndex() >= 0, timeout=20_000)
    assert pdf.find_bar.model.resultAtIndex(pdf.view.currentSearchResultIndex()).page() == 11
    assert pdf.current_page() in (11, 12)


@pytest.mark.parametrize("width", [400, 1600])
def test_resizing_the_viewer_keeps_the_page(qtbot, viewer, corpus, width):
    # Fitted to the width, a resize rescales every page; QPdfView kept its offset in pixels, so a search
    # hit opened at page 7 showed page 3 once the window grew (page 5 on a busy machine, where the
    # dock's layout settled after the jump).
    viewer.show_document(make_doc(corpus / PAPER), page=7)
    pdf = _pdf(viewer)
    qtbot.waitUntil(lambda: pdf.current_page() == 7, timeout=5000)
    viewer.resize(width, 700)
    qtbot.wait(200)
    assert pdf.current_page() == 7


def test_pdf_zoom_and_fit(viewer, corpus):
    viewer.show_document(make_doc(corpus / PAPER))
    pdf = _pdf(viewer)
    assert pdf.fit_width_action.isChecked()
    pdf.zoom_by(2.0)
    assert not pdf.fit_width_action.isChecked() and pdf.view.zoomFactor() > 1.0
    pdf.fit_page()
    assert pdf.fit_page_action.isChecked()


def test_showing_the_same_pdf_again_only_moves(qtbot, viewer, corpus):
    doc = make_doc(corpus / PAPER)
    viewer.show_document(doc, page=2)
    pdf = _pdf(viewer)
    document = pdf.document
    viewer.show_document(doc, page=7)
    assert pdf.document is document and pdf.current_page() == 7


def test_encrypted_pdf_asks_for_a_password(qtbot, viewer, corpus):
    viewer.show_document(make_doc(corpus / "pdf-edge" / "encrypted-aes256-user-password.pdf"))
    assert viewer.current_widget() is viewer.message
    assert "password" in viewer.message.text()
    assert viewer.message.password_row.isVisible()
    viewer.message.password_edit.setText("wrong")
    viewer.message.unlock_button.click()
    assert "Wrong password" in viewer.message.text()
    viewer.message.password_edit.setText("asdfzxcv")  # SOURCES.md gives the password
    viewer.message.unlock_button.click()
    assert _pdf(viewer).page_count() == 1


@pytest.mark.parametrize(
    ("name", "expected"),
    [("unopenable-fuzzed.pdf", "damaged"), ("zero-pages.pdf", "no pages")],
)
def test_broken_pdfs_show_a_message(viewer, corpus, name, expected):
    doc = make_doc(corpus / "pdf-edge" / name, content="extracted text")
    viewer.show_document(doc)
    assert viewer.current_widget() is viewer.message
    assert expected in viewer.message.text()
    assert viewer.message.body.toPlainText() == "extracted text"
    assert viewer.current_document_id() == doc.id


def test_owner_password_only_pdf_opens_without_prompt(viewer, corpus):
    viewer.show_document(make_doc(corpus / "pdf-edge" / "encrypted-owner-password-only.pdf"))
    assert _pdf(viewer).page_count() == 1


def test_missing_file_shows_a_message(viewer, tmp_path):
    viewer.show_document(make_doc(tmp_path / "gone.pdf"))
    assert viewer.current_widget() is viewer.message
    assert "missing" in viewer.message.text()


# -- markdown notes ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "visible"),
    [
        ("obsidian-properties-frontmatter.md", "permalink"),
        ("utf8-bom-frontmatter.md", "BOM Test"),
        ("latin1-encoded-table.md", "Boiling Points °C"),
        ("zotero-paper-template-invalid-yaml.md", "fileClass: Overall"),
        ("haskell-generic-programming.md", "Generics in Haskell"),
        ("empty-note.md", ""),
    ],
)
def test_corpus_notes_render(viewer, corpus, name, visible):
    viewer.show_document(make_doc(corpus / "notes" / name, mime_type="text/markdown"))
    markdown = viewer.viewer(MarkdownViewer)
    assert viewer.current_widget() is markdown
    assert visible in markdown.browser.toPlainText()
    assert not markdown.edit_button.isVisible()  # stored files are read-only


def test_note_tables_and_highlighted_code(viewer, corpus):
    viewer.show_document(make_doc(corpus / "notes" / "latin1-encoded-table.md"))
    markdown = viewer.viewer(MarkdownViewer)
    assert "<table" in markdown.browser.toHtml()
    assert viewer.notice_label.isVisible() and "not UTF-8" in viewer.notice_label.text()
    viewer.show_document(make_doc(corpus / "notes" / "haskell-generic-programming.md"))
    html = markdown.browser.toHtml()
    assert "color:#" in html.replace(" ", "")  # pygments token colours survived into the document


def test_edit_a_note_and_save(qtbot, viewer):
    doc = make_doc(type=DocumentType.NOTE, content="# Plan\n\nfirst draft", title="Plan")
    viewer.show_document(doc)
    markdown = viewer.viewer(MarkdownViewer)
    assert markdown.edit_button.isVisible()
    markdown.edit_button.click()
    assert markdown.is_editing() and markdown.editor.toPlainText() == doc.content
    markdown.editor.setPlainText("# Plan\n\n| a | b |\n|---|---|\n| 1 | 2 |")
    assert viewer.has_unsaved_changes()
    qtbot.waitUntil(lambda: "<table" in markdown.browser.toHtml(), timeout=2_000)  # debounced preview
    with qtbot.waitSignal(viewer.save_requested) as saved:
        markdown.save_button.click()
    assert saved.args == [doc.id, "# Plan\n\n| a | b |\n|---|---|\n| 1 | 2 |"]
    assert not markdown.is_editing() and not viewer.has_unsaved_changes()


def test_ctrl_s_saves_and_cancel_reverts(qtbot, viewer):
    doc = make_doc(type=DocumentType.FACT, content="water boils at 100 °C")
    viewer.show_document(doc)
    markdown = viewer.viewer(MarkdownViewer)
    markdown.start_editing()
    markdown.editor.setPlainText("changed")
    markdown.cancel()
    assert "water boils" in markdown.browser.toPlainText() and not markdown.is_editing()
    markdown.start_editing()
    markdown.editor.setPlainText("water boils at 99.97 °C")
    with qtbot.waitSignal(viewer.save_requested) as saved:
        qtbot.keyClick(markdown.editor, "s", modifier=Qt.KeyboardModifier.ControlModifier)
    assert saved.args[1] == "water boils at 99.97 °C"


def test_note_passage_is_marked(viewer):
    text = "# Notes\n\nThe deadline for the grant report is June 15th.\n\nOther text."
    viewer.show_document(make_doc(type=DocumentType.NOTE, content=text), highlight="grant report is June 15th")
    browser = viewer.viewer(MarkdownViewer).browser
    marks = browser.extraSelections()
    assert marks and marks[0].cursor.selectedText() == "grant report is June 15th"


# -- text, data, images, folders --------------------------------------------------------------------


def test_code_is_highlighted(qtbot, tmp_path, viewer):
    path = tmp_path / "abc123.py"
    path.write_text('def f(x):\n    """Doc."""\n    return x + 1\n', encoding="utf-8")
    viewer.show_document(make_doc(path, metadata={"original_name": "analysis.py"}))
    text = viewer.viewer(TextViewer)
    assert viewer.current_widget() is text and text.text().startswith("def f")
    first_line = text.editor.document().firstBlock().layout()
    qtbot.waitUntil(lambda: bool(first_line.formats()))  # QSyntaxHighlighter colours on the next event loop turn
    keyword = first_line.formats()[0]
    assert (keyword.start, keyword.length) == (0, 3)  # "def"
    assert keyword.format.foreground().color() != text.editor.palette().text().color()
    viewer.set_dark(True)
    assert text.editor.palette().base().color().lightness() < 60


def test_csv_tables(viewer, corpus):
    viewer.show_document(make_doc(corpus / "data" / "penguins.csv", mime_type="text/csv"))
    data = viewer.viewer(DataViewer)
    assert viewer.current_widget() is data and data.stack.currentWidget() is data.table_view
    model = data.table_view.model()
    assert (model.rowCount(QModelIndex()), model.columnCount(QModelIndex())) == (344, 7)
    viewer.show_document(make_doc(corpus / "data" / "semicolon-delimited.csv"))
    model = data.table_view.model()
    assert (model.rowCount(QModelIndex()), model.columnCount(QModelIndex())) == (5, 12)
    assert "semicolon" in viewer.notice_label.text()


@pytest.mark.parametrize("name", ["earthquakes-usgs-week.geojson.json", "zotero-library-dump.yaml",
                                  "napari-citation.cff.yaml"])
def test_json_and_yaml_trees(viewer, corpus, name):
    viewer.show_document(make_doc(corpus / "data" / name))
    data = viewer.viewer(DataViewer)
    assert data.stack.currentWidget() is data.tree_view
    assert data.tree_view.model().rowCount(QModelIndex()) > 0


def test_invalid_json_falls_back_to_text(viewer, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"a": 1,,}', encoding="utf-8")
    viewer.show_document(make_doc(path))
    assert viewer.current_widget() is viewer.viewer(TextViewer)
    assert "Not valid JSON" in viewer.notice_label.text()


def test_image(viewer, tmp_path):
    image = QImage(640, 480, QImage.Format.Format_RGB32)
    image.fill(QColor("teal"))
    path = tmp_path / "plot.png"
    assert image.save(str(path))
    viewer.show_document(make_doc(path, mime_type="image/png"))
    images = viewer.viewer(ImageViewer)
    assert viewer.current_widget() is images and images.image().size() == image.size()
    assert images.fit_action.isChecked() and images.zoom() <= 1.0
    images.set_zoom(2.0)
    assert images.label.pixmap().width() == 1280


def test_corrupt_image_shows_a_message(viewer, tmp_path):
    path = tmp_path / "broken.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    viewer.show_document(make_doc(path))
    assert viewer.current_widget() is viewer.message and "cannot be shown" in viewer.message.text()


def test_folder_unknown_file_and_clear(viewer, tmp_path):
    viewer.show_document(make_doc(type=DocumentType.FOLDER, title="Drafts"))
    assert "Drafts" in viewer.message.text()
    blob = tmp_path / "slides.pptx"
    blob.write_bytes(b"PK\x03\x04")
    viewer.show_document(make_doc(blob, content="Slide one text", mime_type="application/octet-stream"))
    assert viewer.viewer(TextViewer).text() == "Slide one text"
    viewer.show_document(make_doc(blob, mime_type="application/octet-stream"))
    assert "No preview" in viewer.message.text()
    viewer.clear()
    assert viewer.current_document_id() is None and "No document" in viewer.message.text()


def test_huge_files_are_capped(viewer, tmp_path):
    log = tmp_path / "run.log"
    log.write_text("a line of log output\n" * 150_000, encoding="utf-8")  # 3.2 MB
    viewer.show_document(make_doc(log))
    assert "Showing the first 2 MB" in viewer.notice_label.text()
    assert len(viewer.viewer(TextViewer).text()) <= 2 * 1024 * 1024
    note = tmp_path / "long.md"
    note.write_text("# Log\n\n" + "Some paragraph text.\n\n" * 20_000, encoding="utf-8")
    viewer.show_document(make_doc(note))
    assert viewer.current_widget() is viewer.viewer(TextViewer)
    assert "Too long to render" in viewer.notice_label.text()


def test_dark_theme_recolours_notes_and_keeps_pdf_pages_white(qtbot, viewer, corpus):
    viewer.show_document(make_doc(type=DocumentType.NOTE, content="```python\nx = 1\n```"))
    browser = viewer.viewer(MarkdownViewer).browser
    light = browser.toHtml()
    viewer.set_dark(True)
    assert viewer.is_dark() and browser.toHtml() != light
    viewer.show_document(make_doc(corpus / PAPER))
    pdf = _pdf(viewer)
    pdf.fit_page()
    qtbot.waitUntil(lambda: pdf.view.grab().toImage().pixelColor(pdf.view.width() // 2, 40) == QColor("white"),
                    timeout=5_000)
    image = pdf.view.grab().toImage()
    assert image.pixelColor(3, 3).lightness() < 140  # the backdrop around the page stays grey


@pytest.mark.parametrize("zoom", [None, 4.0])
def test_a_passage_low_on_its_page_is_scrolled_into_view(qtbot, viewer, corpus, zoom):
    # A search hit opened at its page showed the top of the page, the highlight a screen or more below
    # (and off to the side when zoomed in). Where the hit is on screen is measured with QPdfView's own
    # layout: jumping to a page scrolls to that page's top.
    viewer.show_document(make_doc(corpus / PAPER))
    pdf = _pdf(viewer)
    if zoom:
        pdf.zoom_by(zoom)
    words = pdf.document.getAllText(2).text().split()
    pdf.highlight(" ".join(words[-60:-30]), page=3)
    qtbot.waitUntil(lambda: pdf.view.currentSearchResultIndex() >= 0, timeout=10_000)
    hit = pdf.find_bar.model.resultAtIndex(pdf.view.currentSearchResultIndex()).rectangles()[0]
    assert hit.top() > 500  # low on the page
    view, navigator = pdf.view, pdf.navigator
    shown_y, shown_x = view.verticalScrollBar().value(), view.horizontalScrollBar().value()
    tops = []
    for page in (2, 3):
        navigator.jump(0, QPointF(), navigator.currentZoom())
        navigator.jump(page, QPointF(), navigator.currentZoom())
        tops.append(view.verticalScrollBar().value())
    scale = (tops[1] - tops[0] - view.pageSpacing()) / pdf.document.pagePointSize(2).height()
    hit_y, hit_x = tops[0] + hit.top() * scale, view.documentMargins().left() + hit.left() * scale
    assert shown_y <= hit_y and hit_y + hit.height() * scale <= shown_y + view.viewport().height()
    assert shown_x <= hit_x <= shown_x + view.viewport().width()
