"""Keyword search in Arabic and Hebrew: words typed on a keyboard find what PDFs and notes store."""

from pathlib import Path

import pytest

from vancetope_desktop.services import documents, imports
from vancetope_desktop.services.search import search


def _top(library, query: str) -> str | None:
    hits = search(library, query).hits  # vectors not drained: the keyword path alone must find them
    return hits[0].document.id if hits else None


def test_arabic_vowel_marks_tatweel_and_presentation_forms_are_ignored_in_matching(library):
    marked = documents.add_text(library, "قال مُحَمَّد إن النتائج جيدة أيضًا في هذه الدراسة").id
    stretched = documents.add_text(library, "تقرير عن الطـــاقة الشمسية").id
    # "مرحبا بالعالم" as a PDF text layer without a Unicode-aware font gives it: one code point per shape.
    shaped = documents.add_text(library, "\ufee3\ufeae\ufea3\ufe92\ufe8e \ufe91\ufe8e\ufedf\ufecc\ufe8e\ufedf\ufee2").id
    assert _top(library, "محمد") == marked
    assert _top(library, "أيضا") == marked
    assert _top(library, "الطاقة") == stretched
    assert _top(library, "مرحبا") == shaped
    assert _top(library, "مُحَمَّد") == marked  # a query typed with marks finds it too


def test_hebrew_still_matches_and_its_points_are_ignored(library):
    plain = documents.add_text(library, "שלום עולם, זהו מסמך בעברית").id
    pointed = documents.add_text(library, "בְּרֵאשִׁית בָּרָא אֱלֹהִים").id
    assert _top(library, "עולם") == plain
    assert _top(library, "בראשית") == pointed


@pytest.mark.corpus
def test_arabic_pdf_is_found_by_words_typed_normally(library, corpus: Path):
    report = imports.upload(library, [corpus / "pdf-edge/arabic-rtl-text.pdf"])
    (doc_id,) = report.document_ids
    # Lam-alef words (MuPDF extracted the ligature back to front: "اإلنتاجية", "خالل") and a word written
    # with tanween in the PDF ("أيضًا").
    for word in ("الإنتاجية", "المشكلات", "خلال", "أيضا", "البرمجة"):
        assert _top(library, word) == doc_id, word
