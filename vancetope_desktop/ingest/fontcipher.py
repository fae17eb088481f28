"""Text drawn with a font that has no Unicode map, read back by deciphering its codes.

Why the technology-acceptance review in the corpus had 21 of 23 pages "needing OCR": its body font (a
Cambria subset exported by Microsoft Word) has no ToUnicode map, and its /Differences name the glyphs
``/g152``, ``/g135``… — glyph numbers of the original font, which say nothing about the letters. MuPDF
(and pdf.js, and poppler) can only return U+FFFD. The pages *render* as text, and the glyphs are a
fixed substitution: each glyph (its number in ``page.get_texttrace()``, one per glyph; the codes
``TEXT_CID_FOR_UNKNOWN_UNICODE`` gives collide) stands for one character throughout the document.
With a few thousand letters that is a simple substitution cipher, and English text gives it away:

1. letters: a hill climb over one-to-one assignments of codes to characters, scored by an English
   letter-trigram model (counts of langdetect's English profile, see :mod:`.lexicon`), starting from
   frequency order. This settles the frequent lower-case letters.
2. the rest (capitals, rare letters): each remaining code takes the character that makes the most
   words it occurs in English words or names (the SCOWL list), ``"3odel"`` → ``"Model"``.
3. digits cannot be told apart and are left out; punctuation is guessed from its place (after a word
   and before a capital: a full stop; before a lower-case word: a comma; inside a word: a hyphen…).

Only English is modelled: a font in another language fails the check below and its pages keep
needing OCR. Deciphering runs only for fonts MuPDF cannot map at all, on the pages found unusable.

A decipherment is kept only when at least :data:`MIN_KNOWN_WORDS` of the words it gives are English
words, so a font in another language, or too little text, leaves the pages needing OCR as before.
"""

from __future__ import annotations

import string
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from functools import lru_cache

import numpy as np

from .lexicon import english_ngram_counts, is_english_name, is_english_word
from .mupdf import pymupdf

MIN_LETTERS = 2000
"""Glyphs of the font (letters, digits, punctuation) needed before deciphering is tried: a page of prose."""
MIN_KNOWN_WORDS = 0.85
"""Share of the deciphered words (two or more letters) that must be English words or names. The
technology-acceptance review deciphers to 0.97 (6,900 words, 21 pages, ≈2 CPU s of its 3 s import); the
same table shuffled gives 0.08."""
MAX_UNMAPPED_SHARE = 0.5
"""A font is unmapped on a page when more than this share of its characters there are U+FFFD."""

_LETTERS = " " + string.ascii_lowercase + string.ascii_uppercase  # index 0: "not a letter"
_PUNCTUATION = ".,;:()'\"?!%/&[]-"
_TARGETS = list(_LETTERS[1:]) + list(_PUNCTUATION) + [f"#{d}" for d in range(10)]  # digits: unknown
_NON_LETTER = 0
_BREAK = -1
_EDGE = _PUNCTUATION


def unmapped_fonts(page: pymupdf.Page) -> set[str]:
    """Names of the fonts whose glyphs on ``page`` are mostly without Unicode (U+FFFD)."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for span in page.get_texttrace():
        tally = counts[span["font"]]
        for char in span["chars"]:
            if char[0] != 32:
                tally[0] += 1
                tally[1] += char[0] == 0xFFFD
    return {font for font, (chars, unknown) in counts.items() if chars and unknown > MAX_UNMAPPED_SHARE * chars}


def glyphs_by_origin(page: pymupdf.Page, font: str) -> dict[tuple[float, float], int]:
    """The glyph number of each character of ``font`` on ``page``, by its origin rounded to 0.1 pt
    (how the characters of ``page.get_text("rawdict")`` are matched to their glyphs)."""
    return {
        (round(char[2][0], 1), round(char[2][1], 1)): char[1]
        for span in page.get_texttrace()
        if span["font"] == font
        for char in span["chars"]
    }


def _words(pages: Iterable[pymupdf.Page], font: str) -> list[tuple[int, ...]]:
    """The font's words as glyph numbers, in reading order: runs of glyphs between spaces (a glyph MuPDF
    maps to U+0020), gaps wider than a fifth of the font size, line changes and other fonts."""
    words: list[tuple[int, ...]] = []
    for page in pages:
        current: list[int] = []
        last: tuple[float, float, float] | None = None  # right edge, baseline, size of the previous glyph
        for span in page.get_texttrace():
            if span["font"] != font:
                last = None
            for unicode, glyph, origin, bbox in (c[:4] for c in span["chars"]):
                gap = last is None or abs(origin[1] - last[1]) > 1 or origin[0] - last[0] > last[2] / 5
                if current and (gap or unicode == 32 or span["font"] != font):
                    words.append(tuple(current))
                    current = []
                if span["font"] == font and unicode != 32:
                    current.append(glyph)
                last = (bbox[2], origin[1], span["size"])
        if current:
            words.append(tuple(current))
    return words


def _trigram_model() -> np.ndarray:
    """log P(c | a b) over :data:`_LETTERS`, interpolated with bigram and unigram estimates (the profile
    keeps frequent n-grams only, so an unseen trigram must not look likelier than a rare seen one)."""
    size = len(_LETTERS)
    index = {ch: i for i, ch in enumerate(_LETTERS)}
    uni, bi, tri = np.zeros(size), np.zeros((size, size)), np.zeros((size, size, size))
    for gram, count in english_ngram_counts().items():
        at = tuple(index[ch] for ch in gram)
        (uni, bi, tri)[len(gram) - 1][at] += count
    uni[0] = uni[1:].sum() / 5  # a word edge about every sixth character
    p1 = uni / uni.sum()
    p2 = bi / np.maximum(bi.sum(axis=1, keepdims=True), 1)
    p3 = tri / np.maximum(tri.sum(axis=2, keepdims=True), 1)
    return np.log(0.6 * p3 + 0.3 * p2[None, :, :] + 0.1 * p1[None, None, :] + 1e-9)


def _climb_letters(words: Counter[tuple[int, ...]], n_codes: int) -> np.ndarray:
    """Stage 1: code → target index, a one-to-one assignment maximising the trigram likelihood."""
    model = _trigram_model()
    stream: list[int] = []
    for word, count in words.items():
        stream.extend([_BREAK, *word] * count)
    stream.append(_BREAK)
    codes = np.array(stream) + 1  # the break becomes 0
    keys = codes[:-2] * (n_codes + 1) ** 2 + codes[1:-1] * (n_codes + 1) + codes[2:]
    keys = keys[codes[1:-1] != 0]  # the profile counts trigrams inside words and at their edges only
    unique, counts = np.unique(keys, return_counts=True)
    a, b, c = unique // (n_codes + 1) ** 2, unique // (n_codes + 1) % (n_codes + 1), unique % (n_codes + 1)
    letter_of = np.array([_LETTERS.find(t) if len(t) == 1 and t.isalpha() else _NON_LETTER for t in _TARGETS] + [0])

    def likelihood(assigned: np.ndarray) -> float:
        classes = letter_of[assigned]
        return float((counts * model[classes[a], classes[b], classes[c]]).sum())

    unigram = english_ngram_counts()
    by_frequency = sorted((t for t in _TARGETS if len(t) == 1 and t.isalpha()), key=lambda t: -unigram.get(t, 0))
    targets_in_order = [_TARGETS.index(t) for t in by_frequency] + list(range(52, len(_TARGETS)))
    frequency = np.bincount(codes, minlength=n_codes + 1)[1:]
    assigned = np.full(n_codes + 1, len(_TARGETS))  # slot 0 is the break; it keeps the "no target" index
    for rank, code in enumerate(np.argsort(-frequency)):
        assigned[code + 1] = targets_in_order[rank] if rank < len(targets_in_order) else len(_TARGETS)
    best = likelihood(assigned)
    improved = True
    while improved:
        improved = False
        for code in range(1, n_codes + 1):
            for target in range(len(_TARGETS)):
                current = assigned[code]
                if target == current:
                    continue
                holders = np.flatnonzero(assigned == target)
                holder = holders[0] if len(holders) else None
                assigned[code] = target
                if holder is not None:
                    assigned[holder] = current
                score = likelihood(assigned)
                if score > best + 1e-6:
                    best, improved = score, True
                else:
                    assigned[code] = current
                    if holder is not None:
                        assigned[holder] = target
    return assigned[1:]


def _word_value(text: str) -> float:
    """Stage 2's score of a deciphered word: its length when it is an English word or name (with a
    sensible case), minus its length when its case or inner punctuation is impossible, half its length
    when it has no letter at all (a number), else 0."""
    if not any(ch.isalpha() for ch in text):
        return 0.5 * len(text)  # a number: its digit codes are better left non-letters than made capitals
    core = text.strip(_EDGE)
    if len(core) < 2:
        return 0.0
    if not core.replace("-", "").replace("'", "").isalpha():
        return -len(core)
    if not (core.islower() or core.isupper() or (core[0].isupper() and core[1:].islower())):
        return -len(core)
    parts = [p for p in core.replace("'", "-").split("-") if p]
    known = all(len(p) >= 2 and (is_english_word(p) or is_english_name(p)) for p in parts)
    return float(len(core)) if known else 0.0  # single letters prove nothing ("L----Y" for "(1989)")


_NONE = -1  # stage 2: "not a letter", shared by any number of codes


def _refine(words: Counter[tuple[int, ...]], letters: list[int], fixed: set[int]) -> None:
    """Stage 2: give each code not in ``fixed`` the letter, or no letter, that makes its words English
    words or names (in place). ``letters[code]`` is a letter index into :data:`_LETTERS` minus one, or
    :data:`_NONE`; a letter held by another code is swapped with it."""
    listed = list(words.items())
    containing: dict[int, list[int]] = defaultdict(list)
    for k, (word, _) in enumerate(listed):
        for code in set(word):
            containing[code].append(k)
    # Each word's codes as a string of code points, deciphered by one str.translate through ``chars`` (code →
    # its character): the candidates below re-read every word of a code some 50 times, and joining the
    # characters one by one in Python took 80 % of the technology-acceptance review's import (14 of 18 s).
    spelled = [("".join(map(chr, word)), count) for word, count in listed]
    # "Not a letter" is scored as a hyphen: at a word's edge it is stripped like any punctuation, inside
    # it splits a compound ("self-predicted"), and a word of non-letters is a number.
    chars = {code: "-" if t == _NONE else _LETTERS[t + 1] for code, t in enumerate(letters)}
    score = lru_cache(maxsize=None)(_word_value)

    def value(codes: tuple[int, ...]) -> float:
        ks = {k for code in codes for k in containing[code]}
        return sum(spelled[k][1] * score(spelled[k][0].translate(chars)) for k in ks)

    def put(code: int, target: int) -> None:
        letters[code] = target
        chars[code] = "-" if target == _NONE else _LETTERS[target + 1]

    for _ in range(4):
        changed = False
        for code in sorted(containing, key=lambda c: -len(containing[c])):
            if code in fixed:
                continue
            current = letters[code]
            best_target, best_gain = current, 0.0
            for target in [*range(len(_LETTERS) - 1), _NONE]:
                holder = letters.index(target) if target != _NONE and target in letters else None
                if target == current or holder in fixed:
                    continue
                touched = (code,) if holder is None else (code, holder)
                before = value(touched)
                put(code, target)
                if holder is not None:
                    put(holder, current)
                gain = value(touched) - before
                put(code, current)
                if holder is not None:
                    put(holder, target)
                if gain > best_gain + 1e-9:
                    best_target, best_gain = target, gain
            if best_target != current:
                holder = letters.index(best_target) if best_target != _NONE and best_target in letters else None
                if holder is not None:
                    put(holder, current)
                put(code, best_target)
                changed = True
        if not changed:
            return


def _punctuation(sequence: list[tuple[int, ...]], letters: Mapping[int, str], code: int) -> str:
    """A non-letter code's character, from where it stands: inside words a hyphen, before a word an
    opening parenthesis, after one a full stop (next word capitalised) or a comma; in words without
    letters a digit, which cannot be told apart: ""."""
    places: Counter[str] = Counter()
    for k, word in enumerate(sequence):
        if code not in word:
            continue
        if all(c not in letters for c in word):
            places["digit"] += 1
        elif word[-1] == code:
            following = letters.get(sequence[k + 1][0], "") if k + 1 < len(sequence) else ""
            places["." if following.isupper() else ","] += 1
        elif word[0] == code:
            places["("] += 1
        else:
            places["-"] += 1
    place = places.most_common(1)[0][0] if places else ""
    return "" if place == "digit" else place


def decipher_font(pages: Iterable[pymupdf.Page], font: str) -> dict[int, str] | None:
    """Decipher the glyphs of ``font`` on ``pages``.

    Args:
        pages: the pages where the font is unmapped.
        font: the span font name (as ``get_texttrace`` and ``get_text("rawdict")`` give it).

    Returns:
        glyph number → text (one character, or "" for a digit, which cannot be told apart), or None
        when there is too little text or the result is not English enough (:data:`MIN_KNOWN_WORDS`).
    """
    raw = _words(pages, font)
    if sum(map(len, raw)) < MIN_LETTERS:
        return None
    symbols = [s for s, _ in Counter(glyph for word in raw for glyph in word).most_common()]
    index = {s: i for i, s in enumerate(symbols)}
    sequence = [tuple(index[glyph] for glyph in word) for word in raw]
    words = Counter(sequence)
    assigned = [_target(int(t)) for t in _climb_letters(words, len(symbols))]
    letters = [_LETTERS.index(ch) - 1 if ch.isalpha() else _NONE for ch in assigned]
    # Codes settled by the letter model: the frequent ones it made lower-case letters.
    _refine(words, letters, {i for i in range(min(20, len(symbols))) if assigned[i].islower()})
    found = {i: _LETTERS[t + 1] for i, t in enumerate(letters) if t != _NONE}
    table = {symbols[i]: found.get(i) or _punctuation(sequence, found, i) for i in range(len(symbols))}
    deciphered = ["".join(table[glyph] for glyph in word).strip(_EDGE) for word in raw]
    deciphered = [w for w in deciphered if len(w) >= 2 and w.isalpha()]
    known = sum(is_english_word(w) or is_english_name(w) for w in deciphered)
    if not deciphered or known < MIN_KNOWN_WORDS * len(deciphered):
        return None
    return table


def _target(index: int) -> str:
    """The character of a target index ("" for none or an unknown digit)."""
    return _TARGETS[index] if index < len(_TARGETS) and not _TARGETS[index].startswith("#") else ""
