"""Sentences of a text with their character offsets: the units the built-in generator reads.

The text is first cut into blocks by its Markdown line structure (a line-level pass: ``generation`` sits
beside ``ingest`` in the layers, so it cannot borrow ``ingest.markdown``'s parser, and lines are all that
is needed here): YAML front matter, fenced code, display math, tables and HTML lines are left out; a
heading, a list item, a quote line and a paragraph each make a block. Blocks are then split into sentences
by segtok (MIT, rule-based, only needs ``regex``), plus a split after CJK full stops, which segtok keeps
together.

Why segtok: on the 644 prose paragraphs of the corpus notes (117 k characters) it took 0.23 s against
4.2 s for pysbd, and it keeps inline math and code whole (``$V(f)$``, ``y'(x) = f(x, y)``), which pysbd
cut into fragments in 60 of the 68 paragraphs where the two disagreed; pysbd only did better on Japanese,
which the CJK rule covers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from segtok.segmenter import split_multi

MAX_BLOCK_CHARS = 20_000
"""A longer block (a 1 MB one-line file) is cut into pieces of this size at whitespace before segtok reads
it: segtok's look-arounds are linear, but a sentence has no use past a few hundred characters anyway."""

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_MATH_FENCE = re.compile(r"^ {0,3}\$\$")
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+")
_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+\[[ xX]\])?[ \t]+")
_QUOTE = re.compile(r"^ {0,3}(?:>[ \t]?)+(?:\[![^\]\n]*\][-+]?[ \t]*)?")
_TABLE = re.compile(r"^\s*\|.*\|\s*$")
_HTML = re.compile(r"^\s*</?[A-Za-z][^>\n]*>\s*$")
_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_CJK_STOP = re.compile(r"(?<=[。！？])")


class BlockKind(StrEnum):
    """What a block of the text is, for what the generator does with its sentences."""

    HEADING = "heading"
    ITEM = "item"
    PROSE = "prose"


@dataclass(frozen=True)
class Sentence:
    """One sentence of a text.

    Attributes:
        start, end: its character offsets in the text (``text[start:end]`` is the sentence, stripped).
        text: the sentence as written (line breaks inside it kept).
        kind: the block it belongs to (a heading is a sentence of its own).
    """

    start: int
    end: int
    text: str
    kind: BlockKind


def _lines(text: str) -> list[tuple[int, str]]:
    """Each line of ``text`` with the offset it starts at (line breaks left out)."""
    out, at = [], 0
    for line in text.splitlines(keepends=True):
        out.append((at, line.rstrip("\r\n")))
        at += len(line)
    return out


def _front_matter_end(lines: list[tuple[int, str]]) -> int:
    """How many lines the YAML front matter takes (0 without one; an unclosed ``---`` is not one)."""
    if not lines or lines[0][1].lstrip("\ufeff").strip() != "---":
        return 0
    for index, (_, line) in enumerate(lines[1:], start=1):
        if line.strip() in ("---", "..."):
            return index + 1
    return 0


LIST_LINE_CHARS = 60
"""A paragraph of three or more short lines (median under 60 characters) with no sentence punctuation is a list written
without markers, one item a line (plain-text notes: "import a source / extract structured nodes / …");
hard-wrapped prose has longer lines and full stops inside them."""
WRAP_SPREAD_CHARS = 20
"""Longer lines still make a list when the lines before the last differ in length by more than this (the seed
002 list runs from 41 to 71 characters); a wrapped paragraph's lines differ by a word or two."""
_SENTENCE_MARK = re.compile(r"[.!?;:。！？]")


def _is_line_list(paragraph: list[tuple[int, str]]) -> bool:
    lines = [line.strip() for _, line in paragraph]
    if len(lines) < 3 or any(_SENTENCE_MARK.search(line) for line in lines[:-1]):
        return False
    lengths = [len(line) for line in lines]
    if sorted(lengths)[len(lines) // 2] < LIST_LINE_CHARS:
        return True
    # Wrapped prose fills its lines to about the same width; a list's lines are as long as their items.
    return max(lengths[:-1]) - min(lengths[:-1]) > WRAP_SPREAD_CHARS


def blocks(text: str) -> list[tuple[int, int, BlockKind]]:
    """The readable blocks of ``text`` as ``(start, end, kind)`` offsets, in order (see the module doc)."""
    lines = _lines(text)
    out: list[tuple[int, int, BlockKind]] = []
    paragraph: list[tuple[int, str]] = []

    def close_paragraph() -> None:
        if _is_line_list(paragraph):
            out.extend((at, at + len(line.rstrip()), BlockKind.ITEM) for at, line in paragraph if line.strip())
        elif paragraph:
            out.append((paragraph[0][0], paragraph[-1][0] + len(paragraph[-1][1]), BlockKind.PROSE))
        paragraph.clear()

    fence: str | None = None
    for at, line in lines[_front_matter_end(lines):]:
        if fence is not None:  # inside code or display math until the closing fence
            if line.strip().startswith(fence):
                fence = None
            continue
        if match := _FENCE.match(line):
            close_paragraph()
            fence = match.group(1)[0] * 3
            continue
        if _MATH_FENCE.match(line):
            close_paragraph()
            if line.strip() == "$$" or not line.rstrip().endswith("$$"):  # else one-line display math
                fence = "$$"
            continue
        if not line.strip() or _TABLE.match(line) or _HTML.match(line) or _RULE.match(line):
            close_paragraph()
            continue
        for pattern, kind in ((_HEADING, BlockKind.HEADING), (_ITEM, BlockKind.ITEM), (_QUOTE, BlockKind.PROSE)):
            if match := pattern.match(line):
                if kind is BlockKind.PROSE:  # a quote line continues the quote's paragraph
                    paragraph.append((at + match.end(), line[match.end():]))
                    break
                close_paragraph()
                content = line[match.end():]
                if kind is BlockKind.HEADING:
                    content = content.rstrip().rstrip("#").rstrip()
                if content.strip():
                    out.append((at + match.end(), at + match.end() + len(content), kind))
                break
        else:
            paragraph.append((at, line))
    close_paragraph()
    return out


def _pieces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """``text[start:end]`` cut into pieces of at most MAX_BLOCK_CHARS characters: after the last sentence end
    in the second half of the window, else at its last blank, else anywhere."""
    out = []
    while end - start > MAX_BLOCK_CHARS:
        low, high = start + MAX_BLOCK_CHARS // 2, start + MAX_BLOCK_CHARS
        stop = max(text.rfind(mark, low, high) for mark in (". ", "! ", "? ", "。", "！", "？"))
        cut = stop + 1 if stop > start else text.rfind(" ", low, high)
        cut = cut if cut > start else high
        out.append((start, cut))
        start = cut
    out.append((start, end))
    return out


def split_sentences(text: str) -> list[Sentence]:
    """The sentences of ``text``, in order, with their offsets (see the module doc for what is left out).

    Never raises on a string: binary-ish, one-line, RTL or CJK text gives what sentences it has.
    """
    out: list[Sentence] = []
    for block_start, block_end, kind in blocks(text):
        for start, end in _pieces(text, block_start, block_end):
            piece = text[start:end]
            cursor = 0
            for found in split_multi(piece):
                for part in _CJK_STOP.split(found):
                    part = part.strip()
                    if not part:
                        continue
                    # segtok returns the sentences as written: find each onwards from the last one.
                    at = piece.find(part, cursor)
                    if at < 0:
                        continue
                    cursor = at + len(part)
                    out.append(Sentence(start + at, start + cursor, part, kind))
    return out
