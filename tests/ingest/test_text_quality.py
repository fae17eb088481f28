"""Text layers that look clean but spell nothing are found by their words, real text in any script is kept."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from vancetope_desktop.ingest.lexicon import is_english_word, language_fit
from vancetope_desktop.ingest.pdf import extract_pdf
from vancetope_desktop.ingest.quality import MAX_BAD_CHAR_RATIO, measure_text

PROSE = (
    "The dancers moved across the stage while the orchestra tuned its instruments. Nobody in the hall "
    "expected the evening to change the way the company worked, but the new choreographer had asked for "
    "a rehearsal in front of an audience, and the director had agreed. Each dancer carried a small card "
    "with the order of the scenes, because the program had been rewritten twice during the week. "
    "When the lights went down, the first group walked slowly to the centre and waited for the music. "
    "The critics who came that night wrote about the silence more than about the steps: for almost a "
    "minute the dancers stood still, and the audience, unsure whether something had gone wrong, held "
    "its breath. Then the violins began, and the whole piece unfolded as if it had been planned that way "
    "from the start. Later the choreographer explained that the pause was an accident, a missed cue, and "
    "that she decided to keep it because it made people listen."
)


def shifted(text: str, by: int = 29) -> str:
    """The text a font whose codes are glyph numbers gives: every printable ASCII code ``by`` lower
    (``"The dancers moved"`` → ``"7KH GDQFHUV PRYHG"``), spaces kept as the extractor re-inserts them."""
    return "".join(chr(ord(ch) - by) if 32 < ord(ch) < 127 else ch for ch in text)


def is_latin(text: str) -> bool:
    """True for text whose letters are nearly all ASCII: the ones a shift by 29 turns into other codes."""
    letters = [ch for ch in text if ch.isalpha()]
    return sum(ch.isascii() for ch in letters) > 0.95 * len(letters)


def _pdf(path: Path, pages: list[str]) -> Path:
    doc = pymupdf.open()
    for text in pages:
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(72, 72, 523, 770), text, fontsize=11)
    doc.save(path)
    doc.close()
    return path


def test_shift_example_is_the_issue_example() -> None:
    assert shifted("The dancers moved") == "7KH GDQFHUV PRYHG"


def test_shifted_text_layer_needs_ocr(tmp_path: Path) -> None:
    # Looks clean to the character checks (letters and digits; only "." and "," became control codes),
    # spells nothing.
    garbage = shifted(PROSE)
    quality = measure_text(garbage)
    assert quality.bad_char_ratio < MAX_BAD_CHAR_RATIO and quality.mixed_word_ratio == 0
    assert not quality.usable and quality.language_fit < 0.35
    extraction = extract_pdf(_pdf(tmp_path / "shifted.pdf", [garbage] * 3))
    assert extraction.needs_ocr and extraction.chunks == []


def test_shifted_pages_inside_a_real_document_are_listed(tmp_path: Path) -> None:
    extraction = extract_pdf(_pdf(tmp_path / "mixed.pdf", [PROSE, shifted(PROSE), PROSE]))
    assert not extraction.needs_ocr
    assert extraction.metadata["ocr_pages"] == [2]
    assert {c.page for c in extraction.chunks} == {1, 3}


@pytest.mark.parametrize(
    "text",
    [
        PROSE,
        PROSE.upper(),  # all-caps real text stays text
        "Les danseurs traversaient la scène pendant que l'orchestre accordait ses instruments. Personne dans "
        "la salle ne pensait que la soirée changerait la manière de travailler de la compagnie.",
        "Die Tänzer bewegten sich über die Bühne, während das Orchester seine Instrumente stimmte. Niemand im "
        "Saal erwartete, dass der Abend die Arbeitsweise der Kompanie verändern würde.",
        "Los bailarines cruzaron el escenario mientras la orquesta afinaba sus instrumentos. Nadie en la sala "
        "esperaba que la velada cambiara la forma de trabajar de la compañía.",
        "Танцоры двигались по сцене, пока оркестр настраивал свои инструменты. Никто в зале не ожидал, что "
        "этот вечер изменит то, как работает труппа.",
        "تحرك الراقصون عبر المسرح بينما كانت الفرقة الموسيقية تضبط آلاتها. لم يتوقع أحد في القاعة أن تغير "
        "تلك الأمسية طريقة عمل الفرقة، لكن مصممة الرقصات الجديدة طلبت بروفة أمام الجمهور.",
    ],
)
def test_real_text_in_several_languages_is_usable(text: str) -> None:
    fit = language_fit(text)
    assert fit.known_ratio > 0.7, fit
    assert measure_text(text).usable


def test_english_words() -> None:
    for word in ("planet", "warming", "international", "recoils", "Moved"):
        assert is_english_word(word), word
    for word in ("planetwarming", "gdqfhuv", "kh"):
        assert not is_english_word(word), word


@pytest.mark.corpus
@pytest.mark.slow
def test_every_real_corpus_page_keeps_its_text(corpus: Path) -> None:
    # The word check flags no page the character checks kept (352-page book, Arabic, Chinese, physics).
    for path in [*sorted((corpus / "papers").glob("*.pdf")), *sorted((corpus / "pdf-edge").glob("*.pdf"))]:
        try:
            doc = pymupdf.open(path)
        except RuntimeError:
            continue
        with doc:
            if doc.needs_pass:
                continue
            for number, page in enumerate(doc, start=1):
                text = page.get_text()
                quality = measure_text(text)
                if quality.trigrams >= 100 and quality.bad_char_ratio < 0.1 and quality.mixed_word_ratio < 0.25:
                    assert quality.usable, (path.name, number, quality)
                    garbage = measure_text(shifted(text))
                    if is_latin(text) and garbage.trigrams >= 100:  # …and the page shifted is flagged
                        assert not garbage.usable, (path.name, number, garbage)
