"""Page furniture: running headers, running footers, margin stamps and page numbers of paged documents.

Journals print the same short line at the same place on every page ("Journal of Statistical Software 3",
"Agyeman-Duah et al. BMC Health Services Research 2014, 14:1 Page 3 of 10 http://…", the vertical
"JCAP10(2008)003" stamp, a bare page number). Kept, each page's first chunk starts with it: the
passage shown to the user opens with noise, and the repeated words weigh on BM25 and on the
chunk's embedding. :func:`find_furniture` finds such blocks so the PDF extractor can leave them out.

A block is furniture when it is short, lies in a page margin (a flat block in the top or bottom
band, or a narrow one in a side strip), and the same text — digits ignored, so page numbers match —
sits at the same place on at least :data:`MIN_PAGES` pages. Repeated text in the body of a page
(table headers, "None." answers of a datasheet) is never touched, and a document needs three pages
before anything is dropped.
"""

from __future__ import annotations

import bisect
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

MIN_PAGES = 3
"""A margin line must recur on this many pages to be furniture (alternating even/odd headers each count)."""
MAX_WORDS = 30
"""Longer blocks are body text even in a margin (a running header is a line or two)."""
TOP_BAND = 0.15
"""Blocks whose centre lies in the top 15 % of the page are header candidates…"""
BOTTOM_BAND = 0.85
"""…and below 85 % footer candidates."""
SIDE_STRIP = 0.1
"""Blocks centred in the outer 10 % of the width are margin stamps (arXiv/JCAP vertical stamps)."""
MAX_THICKNESS = 0.08
"""A header or footer is at most this tall (a side stamp this wide), as a fraction of the page: a line
or three. Taller blocks near an edge are body text, tables or rotated table headers."""
POSITION_TOLERANCE = 0.02
"""Same place: centres within 2 % of the page height (headers, footers) or width (side stamps)."""

_DIGITS = re.compile(r"\d+")
_ROMAN = re.compile(r"[ivxlcdm]+")


@dataclass(frozen=True)
class Block:
    """A text block with its bounding box in fractions of the page size (0 top/left, 1 bottom/right)."""

    text: str
    x0: float
    y0: float
    x1: float
    y1: float


def signature(text: str) -> str:
    """The text a running header keeps from page to page: whitespace collapsed, case folded, every run
    of digits (and a lone roman numeral, as in front-matter page numbers) replaced by ``#``."""
    flat = " ".join(text.split()).casefold()
    if _ROMAN.fullmatch(flat):
        return "#"
    return _DIGITS.sub("#", flat)


def _place(block: Block) -> tuple[str, float] | None:
    """The margin a block sits in and its coordinate along the page edge, or None in the body."""
    y = (block.y0 + block.y1) / 2
    x = (block.x0 + block.x1) / 2
    flat = block.y1 - block.y0 <= MAX_THICKNESS
    narrow = block.x1 - block.x0 <= MAX_THICKNESS
    if flat and y < TOP_BAND:
        return "top", y
    if flat and y > BOTTOM_BAND:
        return "bottom", y
    if narrow and x < SIDE_STRIP:
        return "left", x
    if narrow and x > 1 - SIDE_STRIP:
        return "right", x
    return None


def find_furniture(pages: Sequence[Sequence[Block]], *, min_pages: int = MIN_PAGES) -> list[set[int]]:
    """Find the running headers, footers, margin stamps and page numbers of a paged document.

    Args:
        pages: each page's text blocks, in any order.
        min_pages: pages the same margin text must appear on, at the same place.

    Returns:
        For each page, the indices (into that page's blocks) of its furniture blocks.
    """
    # (signature, margin) → [(coordinate, page, block index)], sorted by coordinate below.
    groups: dict[tuple[str, str], list[tuple[float, int, int]]] = defaultdict(list)
    for page_number, blocks in enumerate(pages):
        for index, block in enumerate(blocks):
            key = signature(block.text)
            if not key or len(key.split()) > MAX_WORDS:
                continue
            place = _place(block)
            if place is not None:
                groups[(key, place[0])].append((place[1], page_number, index))
    found: list[set[int]] = [set() for _ in pages]
    for members in groups.values():
        if len({page for _, page, _ in members}) < min_pages:
            continue
        members.sort()
        coordinates = [c for c, _, _ in members]
        for coordinate, page_number, index in members:
            low = bisect.bisect_left(coordinates, coordinate - POSITION_TOLERANCE)
            high = bisect.bisect_right(coordinates, coordinate + POSITION_TOLERANCE)
            if len({members[i][1] for i in range(low, high)}) >= min_pages:
                found[page_number].add(index)
    return found
