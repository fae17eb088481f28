"""How a document becomes chunks: the one home of chunking.

Two steps, in this order:

1. **Boundaries** come from the extractor, which knows the format: a PDF chunk never spans two pages,
   a note has one chunk per heading section, a data file one per record, a bibliography one per
   entry. Prose without such structure (PDF pages, plain text) is packed here by
   :func:`pack_paragraphs` into chunks of about 200 words (the size at which a MiniLM embedding still
   represents one topic well). Extractors stay pure functions of the file: they never see the model.
2. **Size** is fitted to the embedding model by :func:`fit_to_model`, which the services call on
   every extraction before storing it (import, typed text, edit, restore), with the library's
   embedder as the :class:`TokenModel`. The model silently drops everything after its limit
   (all-MiniLM-L6-v2: 256 word pieces including [CLS] and [SEP]), so longer chunks are cut by
   :func:`split_to_token_limit`, counted with the model's own tokenizer.

The tokenizer lives in ``index`` (above ``ingest``), so it comes in through the :class:`TokenModel`
protocol rather than an import.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Protocol

from .base import ChunkDraft


class TokenCounter(Protocol):
    """Counts the embedding model's word pieces in a text (without special tokens)."""

    def __call__(self, text: str) -> int: ...


class TokenModel(Protocol):
    """What chunking needs of the embedding model (``index.embedder.Embedder`` fulfils it)."""

    @property
    def max_tokens(self) -> int:
        """Most word pieces a chunk may have without being truncated (special tokens excluded)."""
        ...

    def count_tokens(self, text: str) -> int:
        """Word pieces in ``text``, special tokens excluded, never truncated."""
        ...


DEFAULT_MAX_WORDS = 200
"""Words per packed chunk: ~260 MiniLM word pieces for English prose (≈1.3 pieces per word)."""

# One CJK character reads like one word (and is one word piece for BERT-style tokenizers).
_CJK_CHAR = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


def word_count(text: str) -> int:
    """Words in ``text``: whitespace-separated tokens, plus one per CJK character (no spaces there)."""
    cjk = len(_CJK_CHAR.findall(text))
    return len((_CJK_CHAR.sub(" ", text) if cjk else text).split()) + cjk


def pack_paragraphs(paragraphs: Iterable[str], max_words: int = DEFAULT_MAX_WORDS) -> list[str]:
    """Group consecutive paragraphs into chunks of at most ``max_words`` words.

    Args:
        paragraphs: texts in reading order; blank ones are skipped.
        max_words: soft limit; a single longer paragraph becomes a chunk of its own (the token
            splitter cuts it later).

    Returns:
        Chunk texts, paragraphs joined by a blank line.
    """
    chunks: list[str] = []
    current: list[str] = []
    words = 0
    for paragraph in paragraphs:
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        n = word_count(paragraph)
        if current and words + n > max_words:
            chunks.append("\n\n".join(current))
            current, words = [], 0
        current.append(paragraph)
        words += n
    if current:
        chunks.append("\n\n".join(current))
    return chunks


# Boundaries, coarsest first. Each pattern matches the separator between two pieces.
_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")
_LINE = re.compile(r"\n\s*")
# After . ! ? … (optionally a closing quote/bracket) and whitespace, or right after CJK full stops.
_SENTENCE = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+|(?<=[。！？；])\s*")
_LEVELS = (_PARAGRAPH, _LINE, _SENTENCE)
_WORD_START = re.compile(r"(?<=\s)\S")

Span = tuple[int, int]


class _Splitter:
    """Cuts one text into spans that each fit ``max_tokens``; see :func:`split_to_token_limit`."""

    def __init__(self, text: str, count: TokenCounter, max_tokens: int, overlap: int) -> None:
        self.text = text
        self.count = count
        self.max_tokens = max_tokens
        self.overlap = overlap

    def tokens(self, span: Span) -> int:
        """Word pieces in ``text[start:end]``."""
        return self.count(self.text[span[0] : span[1]])

    def atoms(self, span: Span, level: int = 0) -> list[tuple[Span, int]]:
        """Spans that fit alone, each with its token count: split by paragraph, line, sentence, words."""
        n = self.tokens(span)
        if n <= self.max_tokens:
            return [(span, n)]
        if level == len(_LEVELS):
            return [(w, self.tokens(w)) for w in self.windows(span)]
        start, end = span
        parts: list[Span] = []
        for sep in _LEVELS[level].finditer(self.text, start, end):
            if sep.start() > start:
                parts.append((start, sep.start()))
            start = sep.end()
        if start < end:
            parts.append((start, end))
        if len(parts) <= 1:
            return self.atoms(span, level + 1)
        out: list[tuple[Span, int]] = []
        for part in parts:
            out.extend(self.atoms(part, level + 1))
        return out

    def windows(self, span: Span) -> list[Span]:
        """Overlapping windows over one over-long sentence, cut at word starts (or at any character
        when the text has no spaces, as in Chinese or Japanese). Binary search keeps tokenisation
        at O(log n) counts per window instead of one count per word."""
        start, end = span
        cuts: Sequence[int] = [m.start() for m in _WORD_START.finditer(self.text, start, end)]
        if len(cuts) < (end - start) // 40:  # hardly any spaces: CJK, or one very long token
            cuts = range(start + 1, end)
        cuts = [*cuts, end]
        out: list[Span] = []
        previous_stop = start
        while True:
            stop = self.farthest(start, cuts)
            if out and stop <= previous_stop:  # the overlap left no room for new text
                start = previous_stop
                stop = self.farthest(start, cuts)
            out.append((start, stop))
            if stop >= end:
                return out
            previous_stop = stop
            # Step back so the next window repeats up to `overlap` tokens of this one.
            i = self.first_index(
                cuts,
                bisect.bisect_right(cuts, start),
                bisect.bisect_left(cuts, stop),
                lambda c, stop=stop: self.tokens((c, stop)) <= self.overlap,
            )
            start = cuts[i] if i < len(cuts) and cuts[i] < stop else stop

    def farthest(self, start: int, cuts: Sequence[int]) -> int:
        """The last position in ``cuts`` after ``start`` such that ``text[start:pos]`` fits; when not
        even the next cut fits (one huge word), the last fitting character position instead."""
        lo = bisect.bisect_right(cuts, start)

        def too_long(c: int) -> bool:
            return self.tokens((start, c)) > self.max_tokens

        i = self.first_index(cuts, lo, len(cuts), too_long)
        if i > lo:
            return cuts[i - 1]
        chars = range(start + 1, cuts[lo])
        j = self.first_index(chars, 0, len(chars), too_long)
        return chars[j - 1] if j > 0 else start + 1  # one character always makes progress

    @staticmethod
    def first_index(seq: Sequence[int], lo: int, hi: int, pred: Callable[[int], bool]) -> int:
        """Smallest index in [lo, hi) whose value satisfies ``pred`` (monotone: False…True), else hi."""
        while lo < hi:
            mid = (lo + hi) // 2
            if pred(seq[mid]):
                hi = mid
            else:
                lo = mid + 1
        return lo

    def pieces(self) -> list[str]:
        """Pack atoms greedily up to the limit; the next piece starts with trailing atoms that fit
        in ``overlap`` tokens, so text cut at a boundary is repeated as context."""
        atoms = self.atoms((0, len(self.text)))
        pieces: list[str] = []
        first = 0
        while first < len(atoms):
            last, total = first, atoms[first][1]
            while last + 1 < len(atoms) and total + atoms[last + 1][1] <= self.max_tokens:
                last += 1
                total += atoms[last][1]
            # Counts of parts do not always add up exactly (word pieces may merge): verify, shrink.
            while last > first and self.tokens((atoms[first][0][0], atoms[last][0][1])) > self.max_tokens:
                last -= 1
            pieces.append(self.text[atoms[first][0][0] : atoms[last][0][1]])
            if last + 1 >= len(atoms):
                break
            nxt, carried = last + 1, 0
            while nxt - 1 > first and carried + atoms[nxt - 1][1] <= self.overlap:
                nxt -= 1
                carried += atoms[nxt][1]
            # The carried context must leave room for at least the next new atom.
            while nxt <= last and carried + atoms[last + 1][1] > self.max_tokens:
                carried -= atoms[nxt][1]
                nxt += 1
            first = nxt
        return pieces


def split_to_token_limit(
    chunks: list[ChunkDraft],
    count_tokens: TokenCounter | Callable[[str], int],
    max_tokens: int,
    overlap_tokens: int = 32,
) -> list[ChunkDraft]:
    """Cut chunks so that every one fits the embedding model's input.

    Each chunk longer than ``max_tokens`` is split at paragraph breaks, then line breaks, then
    sentence ends, then word starts; text without spaces (CJK) falls back to character windows.
    Consecutive pieces share up to ``overlap_tokens`` tokens of context, so a sentence cut in two
    still appears whole in one piece. ``page`` and ``section`` are copied onto every piece.

    Args:
        chunks: drafts from an extractor, in reading order.
        count_tokens: the model's word-piece counter without special tokens (for all-MiniLM-L6-v2
            pass ``max_tokens`` ≈ 250: 256 minus [CLS]/[SEP] minus a small margin).
        max_tokens: hard limit per output chunk, ≥ 1.
        overlap_tokens: context repeated between consecutive pieces of one chunk (0 disables).

    Returns:
        Chunks in the same order, each with ``count_tokens(text) <= max_tokens``; chunks that are
        empty or whitespace-only are dropped. Texts are stripped.

    Raises:
        ValueError: when ``max_tokens < 1`` or ``overlap_tokens`` is not smaller than ``max_tokens``.
    """
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be at least 1, got {max_tokens}")
    if not 0 <= overlap_tokens < max_tokens:
        raise ValueError(f"overlap_tokens must be in [0, max_tokens), got {overlap_tokens}")
    out: list[ChunkDraft] = []
    for chunk in chunks:
        text = chunk.text.strip()
        if not text:
            continue
        if count_tokens(text) <= max_tokens:
            out.append(chunk if text == chunk.text else replace(chunk, text=text))
            continue
        splitter = _Splitter(text, count_tokens, max_tokens, overlap_tokens)
        for piece in splitter.pieces():
            piece = piece.strip()
            if piece:
                out.append(replace(chunk, text=piece))
    return out


def fit_to_model(chunks: list[ChunkDraft], model: TokenModel) -> tuple[list[ChunkDraft], list[int]]:
    """An extraction's chunks cut to the model's limit (:func:`split_to_token_limit`, 32 tokens of
    overlap), with each piece's token count (stored with the chunk).

    Returns:
        ``(chunks, token_counts)``, parallel lists; empty chunks are dropped.
    """
    # Each text is tokenised once: the splitter counts a span again at the next level when it has one part,
    # and every chunk that fits was counted before it is counted for the result (half of the 70,000 counts of
    # the corpus papers, notes and data were repeats).
    counts: dict[str, int] = {}

    def count(text: str) -> int:
        found = counts.get(text)
        if found is None:
            found = counts[text] = model.count_tokens(text)
        return found

    fitted = split_to_token_limit(chunks, count, model.max_tokens)
    return fitted, [count(chunk.text) for chunk in fitted]
