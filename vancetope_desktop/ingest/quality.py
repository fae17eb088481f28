"""Is a PDF text layer real text, or glyph soup from a font without a usable Unicode map?

Fonts without a ToUnicode map make ``page.get_text()`` return codes that look like text to a
"has a text layer?" check but are useless to embed: control characters (the Sprouts working paper
in the corpus, the technology-acceptance review: 85 % of a page; its body font is a Cambria subset
without ToUnicode whose /Differences name the glyphs ``/g152``, ``/g135``…, glyph numbers of the
original font, so no reader can map them to letters; the pages render as text but their text layer
is not text, and they need OCR or deciphering), letters from many scripts mixed inside one word (an Arabic
calligraphy font extracting as Greek + Cyrillic + Myanmar: 57 % of its words mix scripts), or clean
letters that spell no language: a font whose codes are its glyph numbers, 29 below the character
codes, turns "The dancers moved" into "7KH GDQFHUV PRYHG". The last kind is caught by words, not
characters: too few of the page's letter trigrams are frequent in any language
(:func:`.lexicon.language_fit`). Such pages are treated like scans: they need OCR.

Thresholds were set on the 38 corpus PDFs (papers/ and pdf-edge/): real pages — including Arabic,
Chinese, and math-heavy physics with Greek inside Latin words ("CEνNS") — stay below 2 % bad
characters and 7 % mixed-script words; the garbage pages are above 24 % and 56 %. Ratios over a
few dozen characters are noise (a rotated Arabic test page has 6 junk glyphs among 24), so they
only count from :data:`MIN_CHARS_FOR_RATIOS` on; the junk glyphs themselves are dropped later.
The language fit of real pages is 0.50 or more (a 40-name author list), that of shifted pages 0.19
at most (see :mod:`.lexicon`).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from .lexicon import language_fit

MAX_BAD_CHAR_RATIO = 0.10
"""Control, private-use, unassigned or U+FFFD characters, per non-space character."""
MAX_MIXED_WORD_RATIO = 0.25
"""Words whose letters come from two or more scripts, per word of two or more letters."""
MIN_TEXT_CHAR_RATIO = 0.3
"""Letters, digits, punctuation and marks per non-space character; symbol soup fails."""
MIN_CHARS_FOR_RATIOS = 50
"""Below this many non-space characters the character ratios are too noisy to judge."""
MIN_WORDS_FOR_MIXING = 5
"""Below this many words the mixed-script ratio is too noisy to judge."""
MIN_LANGUAGE_FIT = 0.5
"""Share of letter trigrams frequent in the best-fitting language below which the words spell nothing."""
MIN_TRIGRAMS_FOR_FIT = 100
"""Below this many trigrams (≈ 20 words) the language fit is too noisy to judge (figure labels, codes)."""

# Rows of box-drawing / geometric / dingbat glyphs (the ❚❘❙ rules of a book's chapter pages) are
# ornaments, not text; U+FFFD and private-use code points are what a font without a Unicode map leaves.
_ORNAMENT = re.compile("[\u2500-\u27bf\u2b00-\u2bff]{4,}")
_JUNK = re.compile("[\ufffd\ue000-\uf8ff]")


def strip_ornaments(text: str) -> str:
    """Replace runs of four or more ornament glyphs (box drawing, shapes, dingbats) by a space."""
    return _ORNAMENT.sub(" ", text)


def strip_junk(text: str) -> str:
    """Replace replacement characters and private-use code points (glyphs without Unicode meaning) by spaces."""
    return _JUNK.sub(" ", text)


# Name prefixes that are not scripts (math alphanumerics, letterlike symbols): they count as neutral.
_NEUTRAL_PREFIXES = frozenset(
    {
        "MODIFIER",
        "MATHEMATICAL",
        "SCRIPT",
        "BLACK-LETTER",
        "DOUBLE-STRUCK",
        "MICRO",
        "FEMININE",
        "MASCULINE",
        "PLANCK",
        "ANGSTROM",
        "OHM",
        "KELVIN",
        "COMBINING",
        "CARON",
    }
)
_SCRIPT_ALIASES = {"HIRAGANA": "CJK", "KATAKANA": "CJK", "HALFWIDTH": "CJK", "FULLWIDTH": "CJK", "COPTIC": "GREEK"}


def _script(ch: str) -> str | None:
    """Approximate Unicode script of a letter from its name's first word (stdlib has no Script
    property): "LATIN SMALL LETTER A" → LATIN. None for letters that mix with any script."""
    name = unicodedata.name(ch, "")
    if not name:
        return None
    first = name.split(" ", 1)[0]
    if first in _NEUTRAL_PREFIXES:
        return None
    return _SCRIPT_ALIASES.get(first, first)


@dataclass(frozen=True)
class TextQuality:
    """Measurements of one page's text layer (ratios in [0, 1]); ``language_fit`` is the share of its
    ``trigrams`` letter trigrams that are frequent in the language it fits best."""

    chars: int
    bad_char_ratio: float
    text_char_ratio: float
    mixed_word_ratio: float
    words: int
    language_fit: float
    trigrams: int

    @property
    def usable(self) -> bool:
        """True when the text is worth indexing (see the module docstring for the thresholds)."""
        if self.chars == 0:
            return False
        if self.chars >= MIN_CHARS_FOR_RATIOS and (
            self.bad_char_ratio > MAX_BAD_CHAR_RATIO or self.text_char_ratio < MIN_TEXT_CHAR_RATIO
        ):
            return False
        if self.trigrams >= MIN_TRIGRAMS_FOR_FIT and self.language_fit < MIN_LANGUAGE_FIT:
            return False
        return not (self.words >= MIN_WORDS_FOR_MIXING and self.mixed_word_ratio > MAX_MIXED_WORD_RATIO)


_SPACE, _MARK, _NEUTRAL = " ", "m", "n"  # classes of :func:`_char_class` (a script's letters get their own)


@lru_cache(maxsize=4096)
def _char_class(ch: str) -> tuple[str | None, bool, bool]:
    """What :func:`measure_text` needs of one character: its class (:data:`_SPACE` for a space or any other
    character that ends a word, :data:`_MARK` for a combining mark, :data:`_NEUTRAL` for a letter of no script,
    None for a letter of a script: :func:`_script` names it), whether it is bad, whether it is text."""
    if ch.isspace():
        return _SPACE, False, False
    category = unicodedata.category(ch)
    bad = category in ("Cc", "Co", "Cn", "Cs") or ch == "\ufffd"
    good = not bad and category[0] in "LNPM"
    if category[0] == "L":
        return (None if _script(ch) else _NEUTRAL), bad, good
    return (_MARK if category[0] == "M" else _SPACE), bad, good


def measure_text(text: str) -> TextQuality:
    """Measure a raw (not yet normalised) text layer.

    Each distinct character is classified once (a page has a few hundred among thousands): the counts come
    from a ``Counter`` of the text, and its words from one ``str.translate`` into classes, split at the
    characters that end a word. A word is a run of letters (with their marks) between spaces and any other
    non-letter; it counts from two letters, and is mixed when its letters come from two scripts or more.

    Args:
        text: e.g. ``page.get_text()``; control characters must still be present.

    Returns:
        A :class:`TextQuality`; ``.usable`` is the verdict.
    """
    chars = bad = good = 0
    classes: dict[int, str] = {}
    scripts: dict[str, str] = {}  # script → the class standing for its letters (one character each)
    for ch, count in Counter(text).items():
        kind, is_bad, is_good = _char_class(ch)
        if kind is None:
            kind = scripts.setdefault(_script(ch), chr(0x100 + len(scripts)))
        classes[ord(ch)] = kind
        if not ch.isspace():
            chars += count
            bad += count * is_bad
            good += count * is_good
    words = mixed = 0
    for word in text.translate(classes).split(_SPACE):
        letters = len(word) - word.count(_MARK)
        if letters >= 2:
            words += 1
            if len(scripts) >= 2:
                mixed += len(set(word) - {_MARK, _NEUTRAL}) >= 2
    fit = language_fit(text)
    return TextQuality(
        chars=chars,
        bad_char_ratio=bad / chars if chars else 0.0,
        text_char_ratio=good / chars if chars else 0.0,
        mixed_word_ratio=mixed / words if words else 0.0,
        words=words,
        language_fit=fit.known_ratio,
        trigrams=fit.trigrams,
    )
