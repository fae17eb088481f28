"""Decoding text files whose encoding is not declared: UTF-8 first, then the likeliest legacy encoding.

charset-normalizer proposes the encodings under which the bytes decode into text with little "mess"
(its ``chaos`` ratio). On short texts several proposals are equally clean by that measure (Russian
in Windows-1251 also decodes as tidy Greek, Hebrew or Latin-2 letters), and its language measure
needs a few dozen letters, so each proposal's text is also scored here for how plausible its
characters are (:func:`_oddness`), and near-ties go to the encoding most used in practice
(:data:`_PREFERRED`: UTF-8, then Windows-1252, as the issue asks, then the major legacy encodings).
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from collections import Counter
from functools import cache

from charset_normalizer import from_bytes
from charset_normalizer.constant import FREQUENCIES
from charset_normalizer.md import mess_ratio

_BOMS = ((codecs.BOM_UTF8, "utf_8"), (codecs.BOM_UTF32_LE, "utf_32"), (codecs.BOM_UTF32_BE, "utf_32"),
         (codecs.BOM_UTF16_LE, "utf_16"), (codecs.BOM_UTF16_BE, "utf_16"))  # UTF-32 LE starts like UTF-16 LE

_PREFERRED = ("utf_8", "cp1252", "gb18030", "cp932", "cp1251", "cp949", "big5", "euc_jp", "cp1250", "koi8_r",
              "cp1253", "cp1254", "cp1257", "cp1255", "cp1256", "cp874", "cp1258")
"""Tie-break order: roughly how common each encoding is among legacy text files (web usage surveys
rank Windows-1252, GBK, Shift-JIS, Windows-1251 and EUC-KR first). Aliases that decode the same
bytes identically (charset-normalizer's ``could_be_from_charset``) are reported by the first listed."""

_LABELS = {"cp1252": "Windows-1252", "gb18030": "GB18030 (Chinese)", "big5": "Big5 (Chinese)",
           "cp932": "Shift-JIS (Japanese)", "euc_jp": "EUC-JP (Japanese)", "cp949": "EUC-KR (Korean)",
           "cp1251": "Windows-1251 (Cyrillic)", "koi8_r": "KOI8-R (Cyrillic)", "cp1250": "Windows-1250",
           "cp1253": "Windows-1253 (Greek)", "cp1254": "Windows-1254 (Turkish)", "cp1255": "Windows-1255 (Hebrew)",
           "cp1256": "Windows-1256 (Arabic)", "cp1257": "Windows-1257 (Baltic)", "cp874": "Windows-874 (Thai)",
           "cp1258": "Windows-1258 (Vietnamese)", "utf_8": "UTF-8", "latin_1": "Latin-1"}

CLOSE = 0.05
"""Scores (oddness plus chaos, both shares of the text) this close to the best count as a tie. Measured
on the encoding tests: right and wrong readings of short texts differ by 0.2 or more."""
SAMPLE_BYTES = 8 * 1024
"""Bytes scored per candidate: enough for a stable share. A 2.3 MB Windows-1251 file decodes in ~0.8 s
(charset-normalizer's pass over the file and the scoring), a UTF-8 one in milliseconds."""
_UTF8_SHARE = 0.9
"""A file whose non-ASCII bytes are at least this share valid UTF-8 sequences is UTF-8 with a few stray
bytes (an edit in another editor); random legacy text almost never forms valid UTF-8 sequences."""

_UTF8_SEQUENCE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")
_STRAY = re.compile("[\udc80-\udcff]")
_HIGH_BYTES = bytes(range(0x80, 0x100))
_RARE_HAN = 0.3
"""Oddness of a Han character outside the frequency lists: real Chinese or Japanese text has about
half its characters in those lists, text read in the wrong CJK encoding almost none."""


def decode_text_bytes(data: bytes) -> tuple[str, list[str]]:
    """Decode the bytes of a text file whose encoding is not declared; never fails.

    Order: a BOM (UTF-8, UTF-16, UTF-32) decides; strict UTF-8; mostly UTF-8 (stray bytes read as
    Windows-1252); the best of charset-normalizer's proposals and Windows-1252 (see the module
    docstring); Windows-1252, then Latin-1, when nothing else fits.

    Args:
        data: the raw file content.

    Returns:
        ``(text, warnings)``; warnings name the encoding used when it is not UTF-8, e.g.
        ``["not UTF-8: decoded as Windows-1251 (Cyrillic)"]``, and say when bytes were replaced.
        The text is not normalised; a BOM is removed.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding).removeprefix("\ufeff"), []
            except UnicodeDecodeError:
                text = data.decode(encoding, errors="replace").removeprefix("\ufeff")
                return text, [f"invalid {_label(encoding)} bytes replaced by \ufffd"]
    try:
        return data.decode("utf_8"), []
    except UnicodeDecodeError:
        pass
    mostly = _mostly_utf8(data)
    if mostly is not None:
        return mostly
    encoding = _best_encoding(data)
    if encoding is not None:
        return data.decode(encoding, errors="replace"), [f"not UTF-8: decoded as {_label(encoding)}"]
    try:
        return data.decode("cp1252"), ["not UTF-8: decoded as Windows-1252"]
    except UnicodeDecodeError:
        return data.decode("latin_1"), ["not UTF-8: decoded as Latin-1"]


def _label(encoding: str) -> str:
    return _LABELS.get(encoding, codecs.lookup(encoding).name)


def _mostly_utf8(data: bytes) -> tuple[str, list[str]] | None:
    """UTF-8 with a few invalid bytes, each read as Windows-1252, or None when the file is not UTF-8."""
    high = len(data) - len(data.translate(None, _HIGH_BYTES))
    valid = sum(len(m.group()) for m in _UTF8_SEQUENCE.finditer(data))
    if not valid or valid < _UTF8_SHARE * high:
        return None
    text = data.decode("utf_8", errors="surrogateescape")
    strays = len(_STRAY.findall(text))
    text = _STRAY.sub(lambda m: bytes([ord(m.group()) - 0xDC00]).decode("cp1252", errors="replace"), text)
    return text, [f"mostly UTF-8: {strays} invalid byte(s) read as Windows-1252"]


def _best_encoding(data: bytes) -> str | None:
    """The encoding whose reading of ``data`` scores best, ties going to the more common encoding."""
    scores: dict[str, float] = {}
    sample = data[:SAMPLE_BYTES]
    for match in from_bytes(data):
        names = [match.encoding, *match.could_be_from_charset]
        if any(name.startswith(("utf_16", "utf_32")) for name in names):
            continue  # NUL-free UTF-16 is refused as binary by the readers anyway
        name = min(names, key=_rank)
        scores[name] = min(scores.get(name, 1.0), _oddness(_decode_sample(sample, name)) + match.chaos)
    for name in _PREFERRED[1:]:  # on a few words charset-normalizer may miss the right one
        if name not in scores:
            try:
                text = sample.decode(name)
            except UnicodeDecodeError:
                continue
            scores[name] = _oddness(text) + mess_ratio(text)
    if not scores:
        return None
    best = min(scores.values())
    return min((name for name, score in scores.items() if score <= best + CLOSE), key=_rank)


def _rank(encoding: str) -> int:
    return _PREFERRED.index(encoding) if encoding in _PREFERRED else len(_PREFERRED)


def _decode_sample(sample: bytes, encoding: str) -> str:
    """The sample decoded; a character cut at the sample's end is dropped."""
    return sample.decode(encoding, errors="replace").rstrip("\ufffd")


@cache
def _frequent_letters() -> dict[str, frozenset[str]]:
    """Script (see :func:`_script`) → its letters among charset-normalizer's per-language lists of the
    most frequent characters (26 letters per alphabet, about 100 for Chinese and for Japanese)."""
    found: dict[str, set[str]] = {}
    for letters in FREQUENCIES.values():
        for letter in letters:
            found.setdefault(_script(letter), set()).add(_base(letter))
    return {script: frozenset(letters) for script, letters in found.items()}


@cache
def _top_letters() -> list[tuple[str, frozenset[str]]]:
    """``(script, ten most frequent base letters)`` of every language in charset-normalizer's lists."""
    return [(_script(letters[0]), frozenset(_base(c) for c in letters[:10])) for letters in FREQUENCIES.values()]


@cache
def _base(letter: str) -> str:
    """Lower case without accents: ``"É"`` → ``"e"``, ``"ώ"`` → ``"ω"``."""
    return unicodedata.normalize("NFD", letter.lower())[0]


@cache
def _script(char: str) -> str:
    """``LATIN``, ``CYRILLIC``, ``GREEK``, ``HANGUL``… from the character's name; kana and Han share
    ``CJK`` (Japanese mixes them in every sentence)."""
    word = unicodedata.name(char, "UNKNOWN").split()[0]
    return "CJK" if word in ("HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA") else word


@cache
def _is_odd_symbol(char: str) -> bool:
    """Characters that text almost never contains but wrong decodings often produce."""
    category = unicodedata.category(char)
    return (category in ("Cc", "Co", "Cn", "Cs") or "\u2500" <= char <= "\u259f"  # controls, box drawing
            or "\uff61" <= char <= "\uff9f" or "\ufb50" <= char <= "\ufeff" or char in "\ufffd\xad")


_IN_WORD_SYMBOL = frozenset({"So", "Sm", "Sc", "Sk", "No", "Po"})
"""Categories of a character that is odd between two letters (``"Za¿ó³æ"``); dashes, quotes and
apostrophes (Pd, Pi, Pf) are not."""
RARE = 0.5
"""Oddness of a letter outside every language's frequent letters: real text has some, a text read
in the wrong encoding mostly such letters."""
TOP_COVERAGE = 0.45
"""Share of an alphabet's letters expected among its language's ten most frequent; below it, each
missing letter adds :data:`RARE`. Measured: 0.5 (English) to 0.8 (French) in real sentences, 0.2 for
Russian read as Greek."""


def _letter_oddness(char: str, previous: str, following: str, frequent: dict[str, frozenset[str]]) -> float:
    script = _script(char)
    if char.isupper() and previous.islower():
        return 1.0
    touches_ascii = (previous.isascii() and previous.isalpha()) or (following.isascii() and following.isalpha())
    if script != "LATIN" and touches_ascii:
        return 1.0
    if script == "HANGUL" and len(char.encode("euc_kr", errors="replace")) != 2:
        return 1.0  # outside KS X 1001's 2,350 syllables in use
    if script == "LATIN" and char.encode("cp1252", errors="replace") != b"?":
        return 0.0  # Western European letters
    if _base(char) in frequent.get(script, ()) or (script == "HANGUL" and _common_hangul(char)):
        return 0.0
    return RARE / 2 if script == "CJK" and _common_han(char) else RARE


# Jamo indices of a precomposed syllable (U+AC00 + (lead × 21 + vowel) × 28 + tail) that are common in
# Korean: leads ㄱㄴㄷㄹㅁㅂㅅㅇㅈㅊㅌㅎ, vowels ㅏㅐㅓㅔㅕㅗㅘㅚㅛㅜㅝㅟㅡㅣ, tails none ㄱㄴㄹㅁㅂㅅㅆㅇ.
_COMMON_LEADS = frozenset({0, 2, 3, 5, 6, 7, 9, 11, 12, 14, 16, 18})
_COMMON_VOWELS = frozenset({0, 1, 4, 5, 6, 8, 9, 11, 12, 13, 14, 16, 18, 20})
_COMMON_TAILS = frozenset({0, 1, 4, 8, 16, 17, 19, 20, 21})


def _common_hangul(char: str) -> bool:
    """A syllable made of common jamo (``"안"``, ``"녕"``); Chinese or Japanese bytes read as EUC-KR give
    rare ones (``"힁"``, ``"꿎"``, ``"퍅"``) although every KS X 1001 syllable is valid."""
    index = ord(char) - 0xAC00
    if not 0 <= index < 11172:
        return False
    return (index // 588 in _COMMON_LEADS and index % 588 // 28 in _COMMON_VOWELS
            and index % 28 in _COMMON_TAILS)


@cache
def _common_han(char: str) -> bool:
    """In the first (most used) level of GB2312, JIS X 0208 or Big5: ~3,000–5,400 characters each."""
    for encoding, low, high in (("gb2312", 0xB0, 0xD7), ("euc_jp", 0xB0, 0xCF), ("big5", 0xA4, 0xC6)):
        encoded = char.encode(encoding, errors="replace")
        if len(encoded) == 2 and low <= encoded[0] <= high:
            return True
    return False


def _oddness(text: str) -> float:
    """Share of the non-ASCII characters of ``text`` that are implausible in real text.

    Odd are: controls, box drawing, half-width katakana, presentation forms, soft hyphens and
    replacement characters (counted twice); a third accented Latin letter or symbol in a row; a
    combining mark after no letter; a symbol between two letters; an upper-case letter right after a
    lower-case one; a non-Latin letter touching an ASCII letter (``"Cafй"``); letters outside the
    text's main script; Hangul syllables outside KS X 1001. Letters outside every language's frequent
    letters count :data:`RARE` (Latin letters of Windows-1252 and Hangul syllables of common jamo
    excepted; half for Han characters of the first level of a national standard, see
    :func:`_common_han`); so do missing frequent letters when fewer than :data:`TOP_COVERAGE` of an
    alphabet's letters are among its language's ten most frequent; accented Latin letters beyond 40 %
    of the Latin letters count whole (French has ~4 %, Czech ~15 %).

    Returns:
        0.0 for ASCII-only or fully plausible text, up to 1.0.
    """
    frequent = _frequent_letters()
    odd = 0.0
    non_ascii = ascii_letters = 0
    letters: Counter[str] = Counter()
    bases: Counter[str] = Counter()
    previous = " "
    run = 0  # non-ASCII characters in a row, none of them a letter of another script than Latin
    for index, char in enumerate(text):
        if char.isascii():
            if char.isalpha():
                ascii_letters += 1
                bases[char.lower()] += 1
            previous, run = char, 0
            continue
        non_ascii += 1
        run = run + 1 if not char.isalpha() or _script(char) == "LATIN" else 0
        if run > 2:
            odd += 1  # "¿­Èö": Latin words have ASCII letters between their accented ones
        following = text[index + 1 : index + 2]
        category = unicodedata.category(char)
        if _is_odd_symbol(char):
            odd += 2  # a single box-drawing piece or control character is almost proof of a wrong reading
        elif category.startswith("M") and not previous.isalpha():
            odd += 1
        elif char.isalpha():
            letters[_script(char)] += 1
            bases[_base(char)] += 1
            odd += _letter_oddness(char, previous, following, frequent)
        elif category in _IN_WORD_SYMBOL and char != "·" and previous.isalpha() and following.isalpha():
            odd += 1
        previous = char
    if not non_ascii:
        return 0.0
    if letters:
        main, count = letters.most_common(1)[0]
        odd += sum(letters.values()) - count  # letters of other scripts
        if main == "LATIN":
            odd += max(0.0, count - 0.4 * (count + ascii_letters))
            count += ascii_letters
        if main not in ("CJK", "HANGUL"):
            covered = max((sum(bases[b] for b in top) for script, top in _top_letters() if script == main), default=0)
            odd += RARE * max(0.0, TOP_COVERAGE * count - covered)
    return min(1.0, odd / non_ascii)
