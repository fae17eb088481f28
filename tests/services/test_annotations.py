"""Annotations on PDFs: add, list, search, export (Markdown and an annotated copy), and versions of the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.errors import InvalidInput
from vancetope_desktop.ingest.mupdf import pymupdf
from vancetope_desktop.ingest.registry import extract_file
from vancetope_desktop.services import annotation_pdf, annotations, documents, imports, moves, scopes
from vancetope_desktop.services import search as search_service

PAGE_ONE = ["Sparse attention lowers the cost of long sequences.",
            "Gradient checkpointing trades compute for memory."]
PAGE_TWO = ["Mixed precision keeps the loss scale dynamic.",
            "Flash kernels fuse the softmax into one pass."]


def make_pdf(path: Path, pages: list[list[str]]) -> Path:
    """A small PDF with one line of text per entry, 30 points apart, from (72, 72) on each page."""
    doc = pymupdf.open()
    for lines in pages:
        page = doc.new_page(width=595, height=842)
        for number, line in enumerate(lines):
            page.insert_text((72, 72 + 30 * number), line, fontsize=11)
    doc.save(str(path))
    doc.close()
    return path


@pytest.fixture
def paper(library, tmp_path):
    """A two-page PDF imported into the library: (document, its path outside the library)."""
    path = make_pdf(tmp_path / "paper.pdf", [PAGE_ONE, PAGE_TWO])
    report = imports.upload(library, [path], extractor=extract_file)
    return documents.get_document(library, report.outcomes[0].document_id), path


def test_a_highlight_made_from_a_selection_is_listed_with_its_text_and_place(library, paper):
    doc, _ = paper
    # Drag from "Gradient" to "memory." on page 1.
    span = annotation_pdf.select_words(doc.file_path, 1, (75, 100), (300, 100))
    assert span.text == PAGE_ONE[1]
    made = annotations.add_highlight(library, doc.id, page=1, rects=span.rects, quote=span.text,
                                     comment="worth trying on the big model", color="green")
    note = annotations.add_note(library, doc.id, page=2, comment="compare with the 2023 kernels")
    listed = annotations.list_annotations(library, doc.id)
    assert [a.id for a in listed] == [made.id, note.id]
    assert listed[0].kind == "highlight" and listed[0].quote == PAGE_ONE[1] and listed[0].color == "#a5d6a7"
    assert listed[0].anchor == "kept" and len(listed[0].rects) == 1
    assert listed[1].kind == "note" and listed[1].page == 2
    stored = documents.get_document(library, made.id)
    assert stored.type is DocumentType.ANNOTATION and stored.scope == doc.scope
    assert "Gradient checkpointing" in stored.content and "big model" in stored.content


def test_a_selection_across_lines_covers_the_words_between_in_reading_order(paper):
    doc, _ = paper
    span = annotation_pdf.select_words(doc.file_path, 2, (165, 70), (120, 100))
    assert span.text.startswith("keeps the loss") and span.text.endswith("Flash kernels")
    assert len(span.rects) == 2


@pytest.mark.slow  # the query is embedded: the model loads (about 5 s)
def test_search_finds_an_annotation_by_its_comment_and_the_lists_keep_it_beside_its_pdf(library, paper):
    doc, _ = paper
    made = annotations.highlight_text(library, doc.id, "loss scale", comment="ask Ingrid about bfloat16 drift")
    assert made.page == 2
    hits = search_service.search(library, "bfloat16 drift", types=[DocumentType.ANNOTATION]).hits
    assert [h.document.id for h in hits] == [made.id]
    listed = documents.list_documents(library, **documents.smart_view_filters("all"))
    assert [d.id for d in listed] == [doc.id]


def test_edit_keeps_a_version_and_delete_moves_to_the_trash(library, paper):
    doc, _ = paper
    made = annotations.add_note(library, doc.id, page=1, comment="first thought")
    edited = annotations.edit_annotation(library, made.id, comment="second thought", color="#112233")
    assert edited.comment == "second thought" and edited.color == "#112233"
    assert [v.reason for v in documents.list_versions(library, made.id)] == ["annotation edited"]
    annotations.delete_annotation(library, made.id)
    assert annotations.list_annotations(library, doc.id) == []
    assert documents.get_document(library, made.id).status is DocumentStatus.DELETED


def test_bad_input_is_refused_with_a_reason(library, paper):
    doc, _ = paper
    with pytest.raises(InvalidInput, match="page 9"):
        annotations.add_note(library, doc.id, page=9, comment="x")
    with pytest.raises(InvalidInput, match="not in"):
        annotations.highlight_text(library, doc.id, "words that are nowhere")
    with pytest.raises(InvalidInput, match="colour"):
        annotations.add_note(library, doc.id, page=1, comment="x", color="ultraviolet")
    note = documents.add_text(library, "plain note", doc_type=DocumentType.NOTE)
    with pytest.raises(InvalidInput, match="not a PDF"):
        annotations.add_note(library, note.id, page=1, comment="x")
    with pytest.raises(InvalidInput, match="annotate"):
        documents.add_text(library, "orphan", doc_type=DocumentType.ANNOTATION)
    made = annotations.add_note(library, doc.id, page=1, comment="kept in step")
    with pytest.raises(InvalidInput, match="edit-annotation"):
        documents.update_document(library, made.id, content="out of step with its metadata")


def test_markdown_export_quotes_highlights_by_page(library, paper):
    doc, _ = paper
    annotations.highlight_text(library, doc.id, "Flash kernels fuse", comment="fast")
    annotations.add_note(library, doc.id, page=1, comment="read first")
    text = annotations.export_markdown(library, doc.id)
    assert text.startswith(f"# Annotations: {doc.title}\n")
    assert text.index("## Page 1") < text.index("**Note:** read first") < text.index("## Page 2")
    assert "> Flash kernels fuse\n\nfast\n" in text


def test_the_annotated_copy_holds_real_pdf_annotations_and_the_original_is_untouched(library, paper, tmp_path):
    doc, _ = paper
    before = Path(doc.file_path).read_bytes()
    annotations.highlight_text(library, doc.id, "Sparse attention", comment="key idea")
    annotations.add_note(library, doc.id, page=2, comment="see appendix")
    target = tmp_path / "out" / "annotated.pdf"
    target.parent.mkdir()
    assert annotations.export_pdf(library, doc.id, target) == 2
    assert Path(doc.file_path).read_bytes() == before
    with pymupdf.open(str(target)) as copy:
        pages = [copy[0], copy[1]]  # kept referenced: an annotation outliving its page crashes MuPDF
        found = [[(a.type[1], a.info["content"], a.rect) for a in page.annots()] for page in pages]
        assert [[kind_text[:2] for kind_text in marks] for marks in found] == [
            [("Highlight", "key idea")], [("Text", "see appendix")]]
        assert "Sparse attention" in pages[0].get_textbox(found[0][0][2])
    with pytest.raises(InvalidInput, match="original"):
        annotations.export_pdf(library, doc.id, doc.file_path)


def test_a_new_version_of_the_pdf_keeps_its_annotations_and_flags_one_whose_text_is_gone(library, paper):
    doc, path = paper
    moved = annotations.highlight_text(library, doc.id, "Mixed precision keeps")
    gone = annotations.highlight_text(library, doc.id, "Gradient checkpointing trades")
    note = annotations.add_note(library, doc.id, page=1, comment="still here")
    # The new version: the checkpointing sentence is cut, and the precision one moves to page 1.
    make_pdf(path, [[PAGE_ONE[0], PAGE_TWO[0]], [PAGE_TWO[1]]])
    report = imports.upload(library, [path], extractor=extract_file)
    assert report.outcomes[0].status == "updated" and report.outcomes[0].document_id == doc.id
    listed = {a.id: a for a in annotations.list_annotations(library, doc.id)}
    assert set(listed) == {moved.id, gone.id, note.id}
    assert (listed[moved.id].anchor, listed[moved.id].page, listed[moved.id].original_page) == ("moved", 1, 2)
    assert listed[gone.id].anchor == "lost" and listed[gone.id].quote == "Gradient checkpointing trades"
    assert listed[note.id].anchor == "kept"
    assert "Not found in the current version" in annotations.export_markdown(library, doc.id)


def test_trashing_restoring_or_moving_a_pdf_takes_its_annotations_along(library, paper):
    doc, _ = paper
    made = annotations.add_note(library, doc.id, page=1, comment="goes with the paper")
    changed = {d.id for d in documents.set_status(library, doc.id, DocumentStatus.DELETED)}
    assert changed == {doc.id, made.id}
    assert documents.get_document(library, made.id).status is DocumentStatus.DELETED
    documents.set_status(library, doc.id, DocumentStatus.ACTIVE)
    assert [a.id for a in annotations.list_annotations(library, doc.id)] == [made.id]
    scopes.create_scope(library, "session", "s1", parent=doc.scope)
    moved = {d.id for d in moves.move_to_scope(library, doc.id, "session/s1", "down")}
    assert moved == {doc.id, made.id}
    assert documents.get_document(library, made.id).scope == "session/s1"


def test_a_quote_is_found_across_a_hyphenated_line_break(tmp_path):
    path = make_pdf(tmp_path / "typeset.pdf", [["Dynamic languages are harder to com-",
                                                "pile than statically typed ones."]])
    with annotation_pdf.open_pdf(path) as doc:
        span = annotation_pdf.find_quote(doc, "harder to compile than statically")
    assert span is not None and span.page == 1 and len(span.rects) == 2
    assert span.text == "harder to compile than statically"


@pytest.mark.corpus
def test_a_quote_typed_plainly_is_found_in_a_typeset_paper(corpus):
    # Page 1 has "more difﬁcult to com- pile": a ligature, and a word hyphenated at the end of a line.
    with annotation_pdf.open_pdf(corpus / "papers/trace-based-jit-type-specialization-pldi2009.pdf") as doc:
        span = annotation_pdf.find_quote(doc, "are more difficult to compile than statically typed ones")
    assert span is not None and span.page == 1 and len(span.rects) == 2
    assert span.text == "are more dif\ufb01cult to compile than statically typed ones"  # not the full stop


@pytest.mark.corpus
def test_a_quote_across_a_dashed_line_break_and_lines_is_found_without_the_comma_after_it(corpus):
    # Found by a new user: "automatically-" ends a line of the S2ORC paper, and the quote was not found;
    # the highlight also took the comma after its last word.
    with annotation_pdf.open_pdf(corpus / "papers/s2orc-open-research-corpus-acl2020.pdf") as doc:
        span = annotation_pdf.find_quote(doc, "annotated with automatically-detected\ninline mentions of citations")
        spaced = annotation_pdf.find_quote(doc, "Full  text is annotated with automatically\u2010detected")
        with_comma = annotation_pdf.find_quote(doc, "inline mentions of citations,")
    assert span is not None and span.page == 1 and len(span.rects) == 2
    assert span.text == "annotated with automatically-detected inline mentions of citations"
    assert spaced is not None and spaced.text.endswith("automatically-detected")
    assert with_comma is not None and with_comma.text == "inline mentions of citations,"
    assert with_comma.rects[-1][2] > span.rects[-1][2]  # the comma's width, left out of the first


def test_dashes_spaces_and_brackets_do_not_hide_a_quote_nor_widen_it(tmp_path):
    path = make_pdf(tmp_path / "dashes.pdf", [["Dynamic languages pay a long-",
                                               "term cost - at run time (see Sect. 2).", "Latin roots."]])
    with annotation_pdf.open_pdf(path) as doc:
        hyphenated = annotation_pdf.find_quote(doc, "pay a long\u2010term cost \u2014 at run time")
        dashless = annotation_pdf.find_quote(doc, "a long term cost at\nrun time")
        assert annotation_pdf.find_quote(doc, "tin roots") is None  # a match starts at a word's start
        bracket = annotation_pdf.find_quote(doc, "see Sect. 2")
    assert hyphenated is not None and hyphenated.text == "pay a long-term cost - at run time"
    assert dashless is not None and dashless.text == "a longterm cost - at run time"  # as the quote has it
    assert bracket is not None and bracket.text == "see Sect. 2"  # not "(see" nor "2)."


def test_merging_duplicates_carries_the_annotations_to_the_paper_kept(library, tmp_path):
    from vancetope_desktop.services import duplicates

    first = make_pdf(tmp_path / "first.pdf", [PAGE_ONE, PAGE_TWO])
    second = make_pdf(tmp_path / "second.pdf", [PAGE_ONE, [*PAGE_TWO, "A copy with one more line."]])
    report = imports.upload(library, [first, second], extractor=extract_file)
    keep, gone = (documents.get_document(library, o.document_id) for o in report.outcomes)
    note = annotations.add_note(library, gone.id, page=2, comment="read this kernel paper again")
    duplicates.merge_groups(library, [(keep.id, [gone.id])])
    assert [a.id for a in annotations.list_annotations(library, keep.id)] == [note.id]
    assert annotations.list_annotations(library, gone.id) == []
