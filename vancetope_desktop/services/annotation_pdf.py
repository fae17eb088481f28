"""The PDF side of annotations: which words a selection covers, where a quote lies on a page, and a copy
of a PDF with real highlight and text annotations.

Coordinates are PDF points in PyMuPDF's page space: origin at the top left of the (unrotated) page, y
downwards, 72 points to the inch — the same space ``QPdfDocument.pagePointSize`` measures, so the viewer
maps them to pixels with its zoom alone. A rectangle is ``[x0, y0, x1, y1]``; a highlight has one per
line of text it covers (what a PDF highlight's quads are).

Words come from ``page.get_text("words")`` in reading order (block, line, word), so a selection made
by dragging from one word to another covers the words between them as a reader expects, across lines
and columns, and a quote is found again in a new version of the file by the same words.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import DamagedFile, EncryptedPdf, InvalidInput
from ..ingest.mupdf import pymupdf

Rect = list[float]
"""``[x0, y0, x1, y1]`` in PDF points (see the module docstring)."""


@dataclass(frozen=True)
class Word:
    """One word of a page: its text and box, and its place in reading order (block, line)."""

    text: str
    rect: tuple[float, float, float, float]
    block: int
    line: int


@dataclass(frozen=True)
class Span:
    """Words of one page as an annotation keeps them: the text (words joined by spaces) and one rectangle
    per line."""

    page: int
    text: str
    rects: list[Rect]


def open_pdf(path: str | Path):
    """Open ``path`` with PyMuPDF (the caller closes it).

    Raises:
        DamagedFile: not a readable PDF. EncryptedPdf: it needs a password (annotations need the text).
    """
    try:
        doc = pymupdf.open(str(path))
    except (RuntimeError, ValueError) as error:  # pymupdf.FileDataError is a RuntimeError
        raise DamagedFile(f"{Path(path).name} cannot be read as a PDF: {error}") from error
    if doc.needs_pass:
        doc.close()
        raise EncryptedPdf(f"{Path(path).name} is protected by a password")
    return doc


def page_words(doc, page: int) -> list[Word]:
    """The words of ``page`` (1-based) of an open document, in reading order.

    Raises:
        InvalidInput: no such page.
    """
    if not 1 <= page <= doc.page_count:
        raise InvalidInput(f"page {page} is not in the document (it has {doc.page_count})")
    raw = doc[page - 1].get_text("words", sort=False)
    ordered = sorted(raw, key=lambda w: (w[5], w[6], w[7]))
    return [Word(w[4], (w[0], w[1], w[2], w[3]), w[5], w[6]) for w in ordered]


def select_words(path: str | Path, page: int, start: tuple[float, float], end: tuple[float, float]) -> Span | None:
    """The words from the one nearest ``start`` to the one nearest ``end`` (points on ``page``) of the PDF at
    ``path``: :func:`span_between` on :func:`page_words`.

    Raises:
        DamagedFile, EncryptedPdf, InvalidInput (see :func:`open_pdf`, :func:`page_words`).
    """
    with open_pdf(path) as doc:
        return span_between(page_words(doc, page), page, start, end)


def span_between(words: Sequence[Word], page: int, start: tuple[float, float],
                 end: tuple[float, float]) -> Span | None:
    """The words from the one nearest ``start`` to the one nearest ``end`` (points), in reading order, as a
    text selection made by dragging from one to the other; None on a page without words."""
    if not words:
        return None
    first, last = sorted((_nearest(words, start), _nearest(words, end)))
    return _span(page, list(words[first : last + 1]))


def find_quote(doc, quote: str, *, page: int | None = None, near: float | None = None,
               cache: dict[int, list[Word]] | None = None) -> Span | None:
    """Where ``quote`` lies in an open PDF (:func:`open_pdf`): its words matched as a sequence (case,
    punctuation around words, ligatures such as "ﬁ" and words hyphenated across lines ignored, so that
    "more difficult to compile" is found where the page has "difﬁcult to com- pile"), on ``page`` first
    and then on the pages nearest it; on a page with several occurrences, the one whose top is nearest
    ``near`` (points). None when the words are nowhere.

    Args:
        cache: page → :func:`page_words`, filled as pages are read; pass the same dict to look up many
            quotes in one document (a lost quote reads every page).

    Raises:
        InvalidInput: an empty quote.
    """
    wanted = [token for token, _, _ in _tokens([(w, None) for w in quote.split()])]
    if not any(wanted):
        raise InvalidInput("the text to find is empty")
    start = min(max(page or 1, 1), max(doc.page_count, 1))
    for number in sorted(range(1, doc.page_count + 1), key=lambda p: (abs(p - start), p)):
        words = cache.get(number) if cache is not None else None
        if words is None:
            words = page_words(doc, number)
            if cache is not None:
                cache[number] = words
        tokens = _tokens([(w.text, i + 1 < len(words) and (words[i + 1].block, words[i + 1].line)
                                       != (w.block, w.line)) for i, w in enumerate(words)])
        found = _occurrences([token for token, _, _ in tokens], wanted)
        if found:
            best = min(found, key=lambda i: abs(words[tokens[i][1]].rect[1] - near) if near is not None else 0)
            return _span(number, words[tokens[best][1] : tokens[best + len(wanted) - 1][2] + 1])
    return None


def page_count(path: str | Path) -> int:
    """How many pages the PDF has. Raises DamagedFile, EncryptedPdf."""
    with open_pdf(path) as doc:
        return doc.page_count


@dataclass(frozen=True)
class PdfMark:
    """What :func:`write_annotated_copy` draws: a highlight (``rects`` with ``comment`` as its pop-up text)
    or a page note (an icon at ``rects[0]``'s top left holding ``comment``); ``color`` is ``#rrggbb``."""

    kind: str
    page: int
    rects: Sequence[Rect]
    comment: str
    color: str
    author: str = "Vancetope"


def write_annotated_copy(source: str | Path, target: str | Path, marks: Iterable[PdfMark]) -> int:
    """Write a copy of ``source`` to ``target`` with ``marks`` as the PDF's own annotations (highlight
    and text annotations any PDF reader shows); ``source`` is only read.

    The copy is written beside ``target`` and renamed into place, so a failure leaves no half-written
    file. Marks on pages the PDF does not have are skipped.

    Returns:
        How many annotations were written.

    Raises:
        InvalidInput: ``target`` is ``source``. DamagedFile, EncryptedPdf. OSError: ``target`` cannot be written.
    """
    source, target = Path(source), Path(target)
    if target.exists() and target.resolve() == source.resolve():
        raise InvalidInput("the annotated copy cannot replace the original: choose another file")
    written = 0
    with open_pdf(source) as doc:
        for mark in marks:
            if not 1 <= mark.page <= doc.page_count or not mark.rects:
                continue
            page = doc[mark.page - 1]
            rgb = _rgb(mark.color)
            if mark.kind == "highlight":
                annot = page.add_highlight_annot([pymupdf.Rect(*r) for r in mark.rects])
                annot.set_colors(stroke=rgb)
            else:
                annot = page.add_text_annot(pymupdf.Point(mark.rects[0][0], mark.rects[0][1]), mark.comment)
                annot.set_colors(stroke=rgb, fill=rgb)
            annot.set_info(content=mark.comment, title=mark.author)
            annot.update()
            written += 1
        handle, temporary = tempfile.mkstemp(suffix=".pdf", dir=target.parent if target.parent.exists() else None)
        os.close(handle)
        try:
            doc.save(temporary, garbage=1, deflate=True)
            shutil.move(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    return written


def _rgb(color: str) -> tuple[float, float, float]:
    value = color.lstrip("#")
    try:
        return tuple(int(value[i : i + 2], 16) / 255 for i in (0, 2, 4))  # type: ignore[return-value]
    except ValueError:
        return (1.0, 0.92, 0.23)  # an unreadable colour still highlights, in the default yellow


def _nearest(words: Sequence[Word], point: tuple[float, float]) -> int:
    """Index of the word whose box is nearest ``point`` (0 inside it)."""
    x, y = point

    def distance(word: Word) -> float:
        x0, y0, x1, y1 = word.rect
        dx = max(x0 - x, 0.0, x - x1)
        dy = max(y0 - y, 0.0, y - y1)
        return dx * dx + dy * dy

    return min(range(len(words)), key=lambda i: distance(words[i]))


def _span(page: int, words: list[Word]) -> Span:
    """The text and per-line rectangles of consecutive ``words``; a word hyphenated at the end of a line is
    joined with its end ("com-" + "pile": "compile"), as a reader reads it."""
    lines: dict[tuple[int, int], Rect] = {}
    text = ""
    for index, word in enumerate(words):
        x0, y0, x1, y1 = word.rect
        box = lines.setdefault((word.block, word.line), [x0, y0, x1, y1])
        box[:] = [min(box[0], x0), min(box[1], y0), max(box[2], x1), max(box[3], y1)]
        after = words[index - 1] if index else None
        joined = (after is not None and after.text.endswith("-") and len(after.text) > 1
                  and (after.block, after.line) != (word.block, word.line))
        text = text[:-1] + word.text if joined else f"{text} {word.text}" if text else word.text
    rects = [[round(v, 2) for v in box] for box in lines.values()]
    return Span(page=page, text=text, rects=rects)


_PUNCTUATION = "\"'“”‘’.,;:!?()[]{}«»"


def _tokens(words: Sequence[tuple[str, bool | None]]) -> list[tuple[str, int, int]]:
    """Comparable tokens of ``(word, ends its line)`` pairs: ``(token, first word, last word)``, NFKC-folded,
    casefolded, stripped of surrounding punctuation, a word ending in "-" joined with the next one when it
    ends its line (None: not known, as in a quote, where any "word- next" pair is joined, as a selection
    across a line break gives it)."""
    tokens: list[tuple[str, int, int]] = []
    index = 0
    while index < len(words):
        text, line_end = words[index]
        text, last = unicodedata.normalize("NFKC", text), index
        if text.endswith("-") and len(text) > 1 and index + 1 < len(words) and line_end is not False:
            last = index + 1
            text = text[:-1] + unicodedata.normalize("NFKC", words[last][0])
        tokens.append((text.strip(_PUNCTUATION).casefold(), index, last))
        index = last + 1
    return tokens


def _occurrences(haystack: list[str], needle: list[str]) -> list[int]:
    """Start indices where ``needle`` occurs in ``haystack`` as a run of words."""
    first, size = needle[0], len(needle)
    return [i for i in range(len(haystack) - size + 1)
            if haystack[i] == first and haystack[i : i + size] == needle]
