"""Reading order of a page's text blocks, and paragraphs that run on across columns and pages.

A PDF's content stream need not follow the reading order: a two-column page may draw its right column
first, and MuPDF returns blocks in stream order. :func:`reading_order` finds the columns from the block
boxes (a vertical gutter that few blocks cross) and reads each column top to bottom; blocks that span
the gutter (titles, author lists, full-width figures and their captions) cut the page into bands that
are read in turn, so a title comes first and a full-width figure sits between the text above and below
it. Inside a column the same rule applies again, so three-column posters are read column by column.

A sentence that wraps from the bottom of one column (or page) to the top of the next was two blocks,
and often two chunks. :func:`join_paragraphs` joins a block that does not end a sentence to the next
prose block when that one starts in lower case, skipping the figure labels, code and captions that a
float puts between them.

Thresholds were checked on the two-column papers of the corpus (ACM, ACL, IEEE, REVTeX) and on
single-column ones, where nothing must move.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .furniture import Block
from .normalize import keeps_hyphen

GUTTER_RANGE = (0.25, 0.75)
"""Where a gutter may lie, as a fraction of the width of the blocks' bounding box."""
MIN_COLUMN_SHARE = 0.2
"""Each column holds at least this share of the characters of the blocks on either side of the gutter…"""
MIN_PROSE_BLOCK_CHARS = 100
"""…and at least one block this long: two cells of a table are not two columns."""
MAX_SPANNING_SHARE = 0.5
"""Blocks crossing the gutter may hold at most this share of the characters (titles, wide figures)."""
MAX_LOOK_AHEAD = 60
"""Blocks skipped at most between a paragraph and its continuation (the labels of one figure)."""
MIN_PROSE_WORDS = 8
"""A shorter block that does not end a sentence is a label or a heading, not a continuation."""
FOOTNOTE_ZONE = 0.75
"""Blocks starting this far down the page, below a cut paragraph, are footnotes the continuation skips."""

_STEP = 0.005
_SLACK = 0.003  # block edges touching the gutter line still belong to their side
_LETTERS = re.compile(r"[^\W\d_]+")
_SENTENCE_END = re.compile(r"[.!?:;…。！？][\"'”’)\]]*$")
_CAPTION = re.compile(r"^(fig(ure)?|tab(le)?|algorithm|listing|scheme|chart)\.?\s*[\dIVX]", re.IGNORECASE)


def _chars(blocks: Sequence[Block]) -> int:
    return sum(len(b.text.strip()) for b in blocks)


def _gutter(blocks: Sequence[Block]) -> float | None:
    """The x position of a column gutter, or None when the blocks do not stand in two or more columns."""
    if len(blocks) < 2:
        return None
    total = _chars(blocks)
    if _chars([b for b in blocks if b.y1 - b.y0 > 3 * (b.x1 - b.x0)]) > total / 2:
        return None  # text set sideways (a landscape table on a portrait page): no columns to find
    left_edge, right_edge = min(b.x0 for b in blocks), max(b.x1 for b in blocks)
    width = right_edge - left_edge
    if width <= 0:
        return None
    best: tuple[int, float] | None = None
    steps = int((GUTTER_RANGE[1] - GUTTER_RANGE[0]) / _STEP) + 1
    # Each block's edges and characters once: the ~100 positions tried each read every block (the 352-page
    # book's layout spent 60 % of its time stripping the same texts again).
    sized = [(b.x0, b.x1, len(b.text.strip())) for b in blocks]
    for i in range(steps):
        x = left_edge + width * (GUTTER_RANGE[0] + i * _STEP)
        crossing = left = right = 0
        left_prose = right_prose = False
        for x0, x1, chars in sized:
            if x0 < x - _SLACK and x1 > x + _SLACK:
                crossing += chars
            if x1 <= x + _SLACK:
                left += chars
                left_prose = left_prose or chars >= MIN_PROSE_BLOCK_CHARS
            if x0 >= x - _SLACK:
                right += chars
                right_prose = right_prose or chars >= MIN_PROSE_BLOCK_CHARS
        sides = left + right
        if (
            not sides
            or crossing > MAX_SPANNING_SHARE * total
            or min(left, right) < MIN_COLUMN_SHARE * sides
            or not left_prose
            or not right_prose
        ):
            continue
        # Fewest characters crossing; among equals the position nearest the middle of the empty strip.
        if best is None or crossing < best[0]:
            best, run = (crossing, x), [x]
        elif crossing == best[0] and run and abs(x - run[-1] - width * _STEP) < 1e-9:
            run.append(x)
            best = (crossing, (run[0] + run[-1]) / 2)
    return best[1] if best else None


def reading_order(blocks: Sequence[Block], *, depth: int = 2) -> list[Block]:
    """The blocks of one page in reading order: column by column, bands between full-width blocks.

    Args:
        blocks: the page's text blocks (furniture already removed), in stream order.
        depth: how many times columns may be split again into columns (three-column posters).

    Returns:
        The same blocks, reordered; a page without columns keeps its stream order.
    """
    gutter = _gutter(blocks) if depth > 0 else None
    if gutter is None:
        return list(blocks)
    spanning = sorted((b for b in blocks if b.x0 < gutter - _SLACK and b.x1 > gutter + _SLACK), key=lambda b: b.y0)
    columns = [b for b in blocks if not (b.x0 < gutter - _SLACK and b.x1 > gutter + _SLACK)]
    # A column block belongs to the band below the last spanning block that starts above its middle (a
    # block beside a spanning one is read after it: MuPDF sometimes merges an author's address with the
    # abstract beneath, making one block that spans the gutter next to the right column's first lines).
    starts = [b.y0 for b in spanning]
    bands: list[list[Block]] = [[] for _ in range(len(spanning) + 1)]
    for block in columns:
        bands[bisect.bisect_right(starts, (block.y0 + block.y1) / 2)].append(block)
    ordered: list[Block] = []
    for band, inside in enumerate(bands):
        if band:
            ordered.append(spanning[band - 1])
        left = sorted((b for b in inside if b.x1 <= gutter + _SLACK), key=lambda b: b.y0)
        right = sorted((b for b in inside if b.x1 > gutter + _SLACK), key=lambda b: b.y0)
        ordered += reading_order(left, depth=depth - 1) + reading_order(right, depth=depth - 1)
    return ordered


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of the document: its text and the 0-based page it starts on."""

    page: int
    text: str


def _is_caption_or_code(text: str) -> bool:
    """A caption ("Figure 2. …"), or code or a formula: fewer than 60 % of the characters are letters."""
    if _CAPTION.match(text):
        return True
    non_space = len(text) - sum(map(str.isspace, text))
    return sum(map(str.isalpha, text)) < 0.6 * non_space


def _is_float(text: str) -> bool:
    """A block a float puts between a paragraph and its continuation: a caption, code, a formula, or a
    label (a short block that does not end a sentence)."""
    return _is_caption_or_code(text) or (len(text.split()) < MIN_PROSE_WORDS and not _SENTENCE_END.search(text))


def _run_on(before: str, after: str) -> str:
    """Join a paragraph's end and its continuation; a word hyphenated at the break is joined or keeps its
    hyphen as at a line end (:func:`.normalize.keeps_hyphen`)."""
    last_word = before.rpartition(" ")[2]
    if last_word.endswith("-") and last_word[:-1].isalpha():
        next_word = _LETTERS.match(after)
        if next_word and keeps_hyphen(last_word[:-1], next_word.group(0)):
            return before + after
        return before[:-1] + after
    return f"{before} {after}"


def join_paragraphs(flow: Sequence[tuple[int, Block]]) -> list[Paragraph]:
    """Join paragraphs cut by a column or page break.

    A prose paragraph that does not end a sentence takes the next prose paragraph when that one starts
    with a lower-case letter. Skipped on the way, and placed after the joined paragraph: captions,
    figure labels, code and formulas (see :func:`_is_float`), and footnotes (blocks below the paragraph
    on its page, starting in the bottom :data:`FOOTNOTE_ZONE` of the page: a conference's copyright
    box). The continuation must be on the same page as the paragraph's last part or on the next one,
    and, when something was skipped, on the next page or higher up (at the top of the next column).

    Args:
        flow: ``(0-based page, block)`` for every body block of the document, in reading order; the
            block texts are paragraphs already (one line, normalised).

    Returns:
        The paragraphs, each on the page where it starts.
    """
    items = [(page, block) for page, block in flow if block.text.strip()]
    taken: set[int] = set()
    out: list[Paragraph] = []
    for i, (first_page, first) in enumerate(items):
        if i in taken:
            continue
        text, page, last, start = first.text.strip(), first_page, first, i + 1
        while not _SENTENCE_END.search(text) and not _is_caption_or_code(text):
            j = start
            # A short block (a hanging first line of a reference, a label) takes only the block after it.
            while not _is_float(text) and j < len(items) and j - start < MAX_LOOK_AHEAD and (
                j in taken or _is_float(items[j][1].text) or _is_footnote(items[j], page, last)
            ):
                j += 1
            if j >= len(items) or j in taken:
                break
            next_page, block = items[j]
            if next_page > page + 1 or not block.text.lstrip()[:1].islower():
                break
            if j > start and next_page == page and block.y0 >= last.y0:
                break  # past a float, a continuation is in the next column (higher up) or on the next page
            text, page, last, start = _run_on(text, block.text.strip()), next_page, block, j + 1
            taken.add(j)
        out.append(Paragraph(first_page, text))
    return out


def _is_footnote(item: tuple[int, Block], page: int, above: Block) -> bool:
    """A block low on the page of the paragraph ``above`` and below it: a footnote or a copyright box."""
    item_page, block = item
    return item_page == page and block.y0 >= max(FOOTNOTE_ZONE, above.y1 - _SLACK)
