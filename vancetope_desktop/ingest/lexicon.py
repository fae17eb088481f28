"""Word knowledge shipped with the app: is this an English word, and does this text read like a language?

Two questions need it. Is a PDF text layer real text or a shifted or scrambled font encoding that only
*looks* clean ("The dancers moved" extracted as "7KH GDQFHUV PRYHG")? And is a word hyphenated at a
line end a compound to keep ("planet-⏎warming") or one word to join ("inter-⏎national")? Both read
``data/words.json.gz`` (356 KiB), built by ``packaging/build_word_data.py`` from two permissively
licensed sources that the build reads from disk (the script names them and carries their notices):
the character trigrams of langdetect's 51 language profiles (Apache-2.0; Wikipedia counts; CJK left
out) and the 65,000 lower-case words and 10,000 proper nouns of SCOWL size 50, American and British. It is read once, on
first use (≈0.4 s), and nothing is ever downloaded.

:func:`language_fit` scores text by the share of its letter trigrams that are frequent in the
language it fits best. Measured on every page of the 38 corpus PDFs (papers/ and pdf-edge/): real
pages score 0.50 (a 40-name author page of the Higgs paper) to 0.97; the same pages with their codes
shifted as in the example score at most 0.19.
"""

from __future__ import annotations

import gzip
import json
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np

from ..core.rtl import fold_presentation_forms

# langdetect's own folds, applied to its profiles when they were counted: Romanian comma-below letters
# as cedillas, Farsi yeh as Arabic yeh, every Vietnamese letter of Latin Extended Additional from
# U+1EA0 on as one class letter.
_LANGDETECT_FOLDS = {0x0219: "\u015f", 0x021B: "\u0163", 0x06CC: "\u064a"} | dict.fromkeys(
    range(0x1EA0, 0x1F00), "\u1ec3"
)
_FOLDABLE = re.compile("[\u0219\u021b\u06cc\u1ea0-\u1eff]")
MAX_TRIGRAMS = 1500
"""Trigrams scored per text: the ratio is stable long before (a page has ≈2,000); this bounds the cost."""


@dataclass(frozen=True)
class _Data:
    languages: tuple[str, ...]
    trigram_languages: dict[str, int]  # trigram → bit mask over ``languages``
    word: re.Pattern[str]  # a run of letters (and their marks) of alphabets some language model knows
    english: frozenset[str]
    names: frozenset[str]  # lower-cased
    english_ngrams: dict[str, int]


def _char_class(chars: Iterable[str]) -> str:
    """A regex character class body matching exactly ``chars`` (as ranges of consecutive code points)."""
    codes = sorted(map(ord, set(chars)))
    parts, start = [], 0
    for i in range(1, len(codes) + 1):
        if i == len(codes) or codes[i] != codes[i - 1] + 1:
            low, high = codes[start], codes[i - 1]
            parts.append(re.escape(chr(low)) + (f"-{re.escape(chr(high))}" if high > low else ""))
            start = i
    return "".join(parts)


@cache
def _data() -> _Data:
    raw = (resources.files(__package__) / "data" / "words.json.gz").read_bytes()
    loaded = json.loads(gzip.decompress(raw))
    languages = tuple(sorted(loaded["trigrams"]))
    masks: dict[str, int] = {}
    for bit, lang in enumerate(languages):
        packed = loaded["trigrams"][lang]
        for i in range(0, len(packed), 3):
            masks[packed[i : i + 3]] = masks.get(packed[i : i + 3], 0) | 1 << bit
    letters = {ch for gram in masks for ch in gram if unicodedata.category(ch)[0] == "L"}
    marks = {chr(c) for c in range(0x300, 0x3000) if unicodedata.category(chr(c))[0] == "M"}
    word = re.compile(f"[{_char_class(letters)}][{_char_class(letters | marks)}]+")
    return _Data(
        languages,
        masks,
        word,
        frozenset(loaded["english_words"]),
        frozenset(loaded["english_names"]),
        loaded["english_ngrams"],
    )


def is_english_word(word: str) -> bool:
    """True when ``word`` (any case) is in the English word list, inflected forms included (``"recoils"``,
    ``"moved"``). Proper nouns and words of other languages are not known: False."""
    return word.casefold() in _data().english


def english_ngram_counts() -> dict[str, int]:
    """Counts of English letter 1-, 2- and 3-grams, case kept, a space marking a word edge (``"th"``,
    ``" Th"``, ``"he "``): langdetect's English profile, pruned to its frequent n-grams. Read-only."""
    return _data().english_ngrams


def is_english_name(word: str) -> bool:
    """True when ``word`` (any case) is a proper noun of the English word list (``"Armstrong"``)."""
    return word.casefold() in _data().names


@dataclass(frozen=True)
class LanguageFit:
    """How well a text reads as its best-fitting language.

    Attributes:
        language: langdetect code of that language ("en", "fr", "ar"…), or None without trigrams.
        known_ratio: share of the text's trigrams that are frequent in it, in [0, 1].
        trigrams: trigrams counted (words of letters a model's alphabet knows, padded with a space).
    """

    language: str | None
    known_ratio: float
    trigrams: int


def language_fit(text: str) -> LanguageFit:
    """Score ``text`` (raw or normalised) against every language model; see the module docstring.

    Words are runs of two or more letters of an alphabet some model knows, with their combining marks;
    digits, symbols and punctuation end a word, and words in scripts no model covers (CJK) are not
    counted. Each word is padded with a space at both ends, as the profiles were counted. Scoring
    stops after :data:`MAX_TRIGRAMS` trigrams.

    Returns:
        The best language's :class:`LanguageFit`; ``LanguageFit(None, 0.0, 0)`` when no word counts.
    """
    data = _data()
    text = unicodedata.normalize("NFC", fold_presentation_forms(text)).casefold()
    if _FOLDABLE.search(text):
        text = text.translate(_LANGDETECT_FOLDS)
    grams: list[str] = []
    for match in data.word.finditer(text):
        padded = f" {match.group(0)} "
        grams.extend(padded[i : i + 3] for i in range(len(padded) - 2))
        if len(grams) >= MAX_TRIGRAMS:
            break
    if not grams:
        return LanguageFit(None, 0.0, 0)
    counts = Counter(grams)
    masks = np.fromiter((data.trigram_languages.get(g, 0) for g in counts), dtype=np.int64, count=len(counts))
    weights = np.fromiter(counts.values(), dtype=np.int64, count=len(counts))
    bits = (masks[:, None] >> np.arange(len(data.languages), dtype=np.int64)) & 1
    hits = weights @ bits
    best = int(hits.argmax())
    return LanguageFit(data.languages[best], float(hits[best]) / len(grams), len(grams))
