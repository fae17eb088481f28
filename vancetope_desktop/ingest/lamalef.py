"""Arabic lam-alef ligatures that MuPDF extracts back to front.

Arabic fonts draw lam followed by alef as one glyph (ﻻ), whose ToUnicode entry maps it to the two
letters. MuPDF emits them in the wrong order: the alef first, as a character of zero width at the
glyph's edge, then the lam with the glyph's width. "الإنتاجية" (productivity) came out as "اإلنتاجية",
"خلال" (during) as "خالل", so a word typed on a keyboard never matched. The definite article "ال" is
two glyphs, each with its width, and is left alone: the zero width is what tells the two apart.

:func:`text_blocks` returns MuPDF's text blocks, rebuilt from the characters with those pairs swapped
when the page has Arabic letters (the rebuilt text equals ``get_text("blocks")`` on every corpus page
otherwise), and the plain blocks when it has none.
"""

from __future__ import annotations

import re

import pymupdf

_ARABIC = re.compile("[\u0600-\u06ff]")
_ALEFS = frozenset("\u0627\u0622\u0623\u0625")  # alef, with madda, hamza above, hamza below
_LAM = "\u0644"
_ZERO_WIDTH = 0.01  # points

Blocks = list[tuple[float, float, float, float, str, int, int]]


def _line_text(line: dict) -> str:
    chars = [c for span in line["spans"] for c in span["chars"]]
    text = [c["c"] for c in chars]
    for i in range(len(chars) - 1):
        bbox = chars[i]["bbox"]
        if text[i] in _ALEFS and text[i + 1] == _LAM and abs(bbox[2] - bbox[0]) < _ZERO_WIDTH:
            text[i], text[i + 1] = text[i + 1], text[i]
    return "".join(text)


def text_blocks(page: pymupdf.Page, flags: int) -> Blocks:
    """The page's blocks as ``page.get_text("blocks", flags=flags)`` gives them (text blocks and, per
    ``flags``, image blocks), with the lam-alef ligatures of Arabic lines in reading order."""
    blocks = page.get_text("blocks", flags=flags)
    if not any(kind == 0 and _ARABIC.search(text) for *_, text, _, kind in blocks):
        return blocks
    rebuilt: Blocks = []
    for block in page.get_text("rawdict", flags=flags)["blocks"]:
        if block["type"] != 0:
            continue
        text = "".join(_line_text(line) + "\n" for line in block["lines"])
        rebuilt.append((*block["bbox"], text, block["number"], 0))
    return rebuilt
