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
    # Imported here: the CLI and the MCP server import this module with the annotation services, and PyMuPDF cost
    # 0.16-0.36 s to import and 0.6 s more to tear down at the exit of every command that never opens a PDF.
    from ..ingest.mupdf import pymupdf

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
    """Where ``quote`` lies in an open PDF (:func:`open_pdf`), on ``page`` first and then on the pages nearest
    it; on a page with several occurrences, the one whose top is nearest ``near`` (points). None when the
    words are nowhere.

    The quote and the page are compared by their letters and digits only (:func:`_fold`): case, ligatures
    ("ﬁ"), spaces and line breaks, punctuation, soft hyphens and every dash are ignored, so that "more
    difficult to compile" is found where the page has "difﬁcult to com- pile", "automatically-detected"
    where it has "automatically-" at the end of a line, "1990-2000" where it has "1990–2000". The match
    starts at the start of a word and ends at the end of one ("tin" is not found in "Latin").

    The span is the words matched, without the punctuation around them that the quote leaves out: "sparse
    attention" highlights "attention" of "attention.", not its full stop (its rectangle is narrowed in
    proportion to the characters left out); a quote that ends with the full stop keeps it.

    Args:
        cache: page → :func:`page_words`, filled as pages are read; pass the same dict to look up many
            quotes in one document (a lost quote reads every page).

    Raises:
        InvalidInput: a quote without a letter or digit.
    """
    wanted = _fold(quote)
    if not wanted:
        raise InvalidInput("the text to find is empty")
    start = min(max(page or 1, 1), max(doc.page_count, 1))
    for number in sorted(range(1, doc.page_count + 1), key=lambda p: (abs(p - start), p)):
        words = cache.get(number) if cache is not None else None
        if words is None:
            words = page_words(doc, number)
            if cache is not None:
                cache[number] = words
        found = _matches(words, wanted)
        if found:
            first, last = min(found, key=lambda m: abs(words[m[0]].rect[1] - near) if near is not None else 0)
            return _trimmed(_span(number, words[first : last + 1], quote), quote, words[first], words[last])
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
    from ..ingest.mupdf import pymupdf  # deferred, as in open_pdf

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


def _span(page: int, words: list[Word], quote: str = "") -> Span:
    """The text and per-line rectangles of consecutive ``words``; a word hyphenated at the end of a line is
    joined with its end ("com-" + "pile": "compile"), as a reader reads it, keeping the hyphen when ``quote``
    has it there ("automatically-" + "detected": "automatically-detected")."""
    lines: dict[tuple[int, int], Rect] = {}
    text = ""
    for index, word in enumerate(words):
        x0, y0, x1, y1 = word.rect
        box = lines.setdefault((word.block, word.line), [x0, y0, x1, y1])
        box[:] = [min(box[0], x0), min(box[1], y0), max(box[2], x1), max(box[3], y1)]
        after = words[index - 1] if index else None
        joined = (after is not None and after.text.endswith(_HYPHENS) and len(after.text) > 1
                  and (after.block, after.line) != (word.block, word.line))
        if joined:
            whole = f"{after.text[:-1].lstrip(_NOT_WORD)}-{word.text.rstrip(_NOT_WORD)}".casefold()
            text = text[:-1] + ("-" if quote and whole in quote.casefold().translate(_AS_HYPHEN) else "") \
                + word.text
        else:
            text = f"{text} {word.text}" if text else word.text
    rects = [[round(v, 2) for v in box] for box in lines.values()]
    return Span(page=page, text=text, rects=rects)


def _fold(text: str) -> str:
    """``text`` as quotes and pages are compared: NFKC (ligatures), casefolded, letters and digits only."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text).casefold() if ch.isalnum())


def _matches(words: Sequence[Word], wanted: str) -> list[tuple[int, int]]:
    """``(first, last)`` word indices of every run of ``words`` whose folded letters are ``wanted``, starting
    at a word's first letter and ending at a word's last (words without a letter or digit, such as a lone
    dash, lie inside a run but never start or end one)."""
    folded = [_fold(w.text) for w in words]
    stream = "".join(folded)
    starts: dict[int, int] = {}
    ends: dict[int, int] = {}
    offset = 0
    for index, piece in enumerate(folded):
        if piece:
            starts.setdefault(offset, index)
            offset += len(piece)
            ends[offset] = index
    found = []
    at = stream.find(wanted)
    while at >= 0:
        if at in starts and at + len(wanted) in ends:
            found.append((starts[at], ends[at + len(wanted)]))
        at = stream.find(wanted, at + 1)
    return found


def _trimmed(span: Span, quote: str, first: Word, last: Word) -> Span:
    """``span`` without the punctuation before its first and after its last letter or digit that ``quote``
    does not have at that end, its first and last rectangles narrowed in proportion (a character's share of
    its word's width: the words' boxes are all PyMuPDF gives per word)."""
    quote = quote.strip()
    text, rects = span.text, [list(r) for r in span.rects]
    cut_end = len(text) - len(text.rstrip(_NOT_WORD)) if quote[-1].isalnum() else 0
    cut_start = len(text) - len(text.lstrip(_NOT_WORD)) if quote[0].isalnum() else 0
    if cut_end and len(last.text) > cut_end:
        rects[-1][2] = round(rects[-1][2] - (last.rect[2] - last.rect[0]) * cut_end / len(last.text), 2)
    if cut_start and len(first.text) > cut_start:
        rects[0][0] = round(rects[0][0] + (first.rect[2] - first.rect[0]) * cut_start / len(first.text), 2)
    return Span(page=span.page, text=text[cut_start : len(text) - cut_end], rects=rects)


_HYPHENS = ("-", "\u00ad", "\u2010", "\u2011")
"""A word ending in one of these at the end of a line goes on at the start of the next (soft hyphen included)."""
_AS_HYPHEN = str.maketrans(dict.fromkeys("\u00ad\u2010\u2011\u2012\u2013", "-"))
_NOT_WORD = "\"'“”‘’.,;:!?()[]{}«»<>*†‡§¶/\\-\u00ad\u2010\u2011\u2012\u2013\u2014\u2015"
"""Characters around a word that a quote ending in a letter or digit does not take along."""
