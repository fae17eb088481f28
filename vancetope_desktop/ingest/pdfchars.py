"""A page's text blocks rebuilt from its characters, where MuPDF's own text is wrong.

Two cases, both fixed per character and then assembled as ``get_text("blocks")`` would (the rebuilt
text equals it on every corpus page where nothing is fixed):

* **Arabic lam-alef ligatures extracted back to front.** Arabic fonts draw lam followed by alef as one
  glyph (ﻻ), whose ToUnicode entry maps it to the two letters. MuPDF emits them in the wrong order:
  the alef first, as a character of zero width at the glyph's edge, then the lam with the glyph's
  width. "الإنتاجية" (productivity) came out as "اإلنتاجية", "خلال" (during) as "خالل", so a word typed
  on a keyboard never matched. The definite article "ال" is two glyphs, each with its width, and is
  left alone: the zero width is what tells the two apart.
* **Fonts without a Unicode map** whose glyphs were deciphered (:mod:`.fontcipher`): their
  characters, U+FFFD in MuPDF's text, are replaced by the deciphered text of their glyphs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .fontcipher import glyphs_by_origin
from .mupdf import pymupdf

_ARABIC = re.compile("[\u0600-\u06ff]")
_ALEFS = frozenset("\u0627\u0622\u0623\u0625")  # alef, with madda, hamza above, hamza below
_LAM = "\u0644"
_ZERO_WIDTH = 0.01  # points

Blocks = list[tuple[float, float, float, float, str, int, int]]
GlyphText = Mapping[str, Mapping[int, str]]
"""Per font name, the text of each glyph number (see :func:`.fontcipher.decipher_font`)."""


def _line_text(line: dict, glyphs: Mapping[str, Mapping[tuple[float, float], str]]) -> str:
    chars = [(span["font"], c) for span in line["spans"] for c in span["chars"]]
    text = []
    for font, char in chars:
        if font in glyphs and char["c"] != " ":
            origin = (round(char["origin"][0], 1), round(char["origin"][1], 1))
            text.append(glyphs[font].get(origin, ""))
        else:
            text.append(char["c"])
    for i in range(len(chars) - 1):
        bbox = chars[i][1]["bbox"]
        if text[i] in _ALEFS and text[i + 1] == _LAM and abs(bbox[2] - bbox[0]) < _ZERO_WIDTH:
            text[i], text[i + 1] = text[i + 1], text[i]
    return "".join(text)


def text_blocks(page: pymupdf.Page, flags: int, glyph_text: GlyphText | None = None) -> Blocks:
    """The page's blocks as ``page.get_text("blocks", flags=flags)`` gives them (text blocks and, per
    ``flags``, image blocks), with Arabic lam-alef ligatures in reading order and the characters of
    the fonts in ``glyph_text`` replaced by their deciphered text."""
    blocks = page.get_text("blocks", flags=flags)
    arabic = any(kind == 0 and _ARABIC.search(text) for *_, text, _, kind in blocks)
    if not arabic and not glyph_text:
        return blocks
    by_origin = {
        font: {origin: table.get(glyph, "") for origin, glyph in glyphs_by_origin(page, font).items()}
        for font, table in (glyph_text or {}).items()
    }
    rebuilt: Blocks = []
    for block in page.get_text("rawdict", flags=flags)["blocks"]:
        if block["type"] != 0:
            continue
        text = "".join(_line_text(line, by_origin) + "\n" for line in block["lines"])
        rebuilt.append((*block["bbox"], text, block["number"], 0))
    return rebuilt
