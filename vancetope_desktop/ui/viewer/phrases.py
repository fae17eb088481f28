"""Choosing what to search for when a viewer is asked to highlight a passage (pure, no Qt).

Search hits carry a whole passage (often 200 words of normalised text) or the user's query words.
Viewers search their own text layer, which breaks lines differently and keeps hyphenation, so the
whole passage rarely matches. We look for a short run of the passage's words that occurs *within
one line* of the target text (PDF engines and QTextDocument.find do not match across line breaks, nor
Qt's PDF search across a word hyphenated at a line's end),
longest runs first, and fall back to the longest single word present.
"""

from __future__ import annotations

import re
import string

MAX_WORDS = 6
MIN_WORDS = 3
_MAX_STARTS = 80  # passage words tried as a run's start; the first sentences are distinctive enough
_SPACE = re.compile(r"[ \t\u00a0]+")
_SOFT_BREAKS = re.compile("[\ufffe\u00ad\u200b]")  # pdfium marks soft hyphens as U+FFFE
_PDF_HYPHEN_BREAK = "\ufffe"
"""pdfium's mark of a word hyphenated at a line's end ("cas\ufffecades"): Qt's PDF search matches no phrase across it
(none for "cascades and then", one for "cades and then"), so a page's text is split there as at a line break."""
_PUNCTUATION = string.punctuation + "“”‘’«»…–—"


def _normalize_line(line: str) -> str:
    return _SPACE.sub(" ", _SOFT_BREAKS.sub("", line)).strip().casefold()


def passage_words(passage: str) -> list[str]:
    """The whitespace-separated words of a passage, soft hyphens removed."""
    return _SOFT_BREAKS.sub("", passage).split()


def pick_search_phrase(passage: str, haystack: str | None = None, *, max_words: int = MAX_WORDS,
                       min_words: int = MIN_WORDS) -> str:
    """A short phrase of ``passage`` to search for, preferably one that occurs in ``haystack``.

    Args:
        passage: the text to highlight (a chunk's text or query words).
        haystack: the target text (a PDF page's text, a document's plain text); lines are split at
            line breaks. None when unknown: the first ``max_words`` words are returned.
        max_words / min_words: the longest and shortest run of words tried.

    Returns:
        The first run of ``max_words`` … ``min_words`` consecutive passage words found inside one
        line of ``haystack`` (case-insensitive), else the longest passage word of 4+ letters found in
        it, else ``""`` (nothing of the passage is in the haystack).
    """
    words = passage_words(passage)
    if not words:
        return ""
    if haystack is None:
        return " ".join(words[:max_words])
    lines = "\n".join(_normalize_line(line) for line in haystack.replace(_PDF_HYPHEN_BREAK, "\n").splitlines())
    upper = min(max_words, len(words))
    for size in range(upper, min(min_words, upper) - 1, -1):
        for start in range(min(len(words) - size + 1, _MAX_STARTS)):
            phrase = " ".join(words[start : start + size])
            if phrase.casefold() in lines:
                return phrase
    singles = {word.strip(_PUNCTUATION) for word in words}
    for word in sorted((w for w in singles if len(w) >= 4), key=lambda w: (-len(w), w)):
        if word.casefold() in lines:
            return word
    return ""
