"""Text clean-up shared by every extractor (decoding bytes is :mod:`.encoding`'s job).

PDF text layers and old text files carry artefacts that break search: typographic ligatures
(``ﬁ`` is one code point, so "efficient" typed by a user never matches "eﬃcient"), words hyphenated
at line ends, soft hyphens, zero-width spaces, odd spaces. :func:`normalize_text` removes them.
"""

from __future__ import annotations

import re
import unicodedata

from ..core.rtl import fold_presentation_forms
from ..core.text import without_nul
from .lexicon import is_english_name, is_english_word

# The Alphabetic Presentation Forms block (U+FB00–FB06): the ligatures fonts map to single code points.
_LIGATURES = str.maketrans({"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"})
# Zero-width space, word joiner, BOM/ZWNBSP and soft hyphen carry no text. ZWJ/ZWNJ (U+200D/U+200C)
# are kept on purpose: they change meaning in Persian, Indic scripts and emoji sequences.
_INVISIBLE = re.compile("[\u200b\u2060\ufeff\u00ad]")
# A soft hyphen at a line end marks a word the typesetter split: always join.
_SOFT_HYPHEN_BREAK = re.compile("\u00ad[ \t]*\n[ \t]*")
# "effi-\ncient" → "efficient": a hyphen right after a letter, at a line end, before a lowercase letter.
# A fragment that already contains a hyphen ("state-of-the-\nart") keeps it: it is a compound word, and
# so is "planet-\nwarming" (see keeps_hyphen).
_HYPHEN_BREAK = re.compile(r"(?P<word>[^\W\d_][\w\-‐]*)[-‐][ \t]*\n[ \t]*(?=[^\W\d_])")
_LETTERS = re.compile(r"[^\W\d_]+")
# Control characters except tab and newline; they come from broken font encodings.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Every Unicode space separator (NBSP, thin space, ideographic space…) and tab become a plain space.
_SPACES = re.compile(r"[^\S\n]+")
_BLANK_LINES = re.compile(r"\n{3,}")
# Line and page separators other than "\n": form feed (page break), vertical tab, U+2028/U+2029.
_LINE_BREAKS = str.maketrans({"\f": "\n\n", "\v": "\n", "\u2028": "\n", "\u2029": "\n\n", "\x85": "\n"})
_ODD_SPACE = re.compile(r"[^\S\n\t]")


def keeps_hyphen(before: str, after: str) -> bool:
    """Whether a word broken at a line end as ``before-`` / ``after`` is a compound whose hyphen stays.

    Kept when the halves are English words and their join is neither a word nor a name (``"planet"`` +
    ``"warming"``); joined otherwise (``"inter"`` + ``"national"`` → international, ``"Arm"`` +
    ``"strong"`` → Armstrong, ``"effi"`` + ``"cient"``), so words of languages the word list does not
    know are joined, as typesetters' hyphenation mostly is.

    Args:
        before: the letters before the hyphen (the last word of the line, without the hyphen).
        after: the letters of the next line's first word.
    """
    joined = before + after
    return (
        is_english_word(before)
        and is_english_word(after)
        and not is_english_word(joined)
        and not is_english_name(joined)
    )


def _join_hyphenated(match: re.Match[str]) -> str:
    word = match.group("word")
    following = match.string[match.end() : match.end() + 1]
    if not following.islower():
        return match.group(0)
    if "-" in word or "‐" in word:
        return word + "-"
    next_word = _LETTERS.match(match.string, match.end())
    if next_word and keeps_hyphen(word, next_word.group(0)):
        return word + "-"
    return word


def normalize_text(text: str, *, join_hyphens: bool = True) -> str:
    """Clean extracted or typed text for indexing.

    Steps: line endings to ``\\n``; NFC; ligatures expanded (ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ); Arabic presentation forms
    folded to letters (:func:`~vancetope_desktop.core.rtl.fold_presentation_forms`); NUL replaced by U+FFFD, as the
    store writes it (:func:`~vancetope_desktop.core.text.without_nul`: search then finds the words on either side);
    soft hyphens, zero-width spaces and the other control characters removed; end-of-line hyphenation joined
    (``"effi-\\ncient"`` → ``"efficient"``, but ``"state-of-the-\\nart"`` → ``"state-of-the-art"`` and
    ``"planet-\\nwarming"`` → ``"planet-warming"``: :func:`keeps_hyphen`);
    runs of spaces inside a line collapsed (leading indentation kept, trailing spaces dropped);
    three or more newlines collapsed to one blank line (paragraph breaks survive).

    Args:
        text: any text.
        join_hyphens: False for source code, where a line ending in ``-`` is an operator.

    Returns:
        The cleaned text, stripped of leading/trailing blank lines; may be ``""``.
    """
    text = text.translate(_LINE_BREAKS).replace("\r\n", "\n").replace("\r", "\n")
    text = fold_presentation_forms(unicodedata.normalize("NFC", text).translate(_LIGATURES))
    text = _SOFT_HYPHEN_BREAK.sub("", text)
    text = _INVISIBLE.sub("", text)
    text = _CONTROL.sub("", without_nul(text)[0])
    if join_hyphens:
        text = _HYPHEN_BREAK.sub(_join_hyphenated, text)
    lines = []
    for line in text.split("\n"):
        body = line.lstrip()
        indent = _ODD_SPACE.sub(" ", line[: len(line) - len(body)])
        lines.append(indent + _SPACES.sub(" ", body).rstrip() if body else "")
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip("\n")


# Spacing accents → the combining mark they stand for. TeX-made PDFs often print an accent as its own
# glyph before the letter: "R¨as¨anen", "Lemaˆıtre" (with a dotless i), "Universit`a", "Kry´sci´nski".
_COMBINING = {"\u00b4": "\u0301", "`": "\u0300", "\u00a8": "\u0308", "\u02c6": "\u0302", "\u02dc": "\u0303",
              "\u02c7": "\u030c", "\u02d8": "\u0306", "\u02da": "\u030a", "\u00b8": "\u0327", "\u02d9": "\u0307",
              "\u00af": "\u0304", "\u02dd": "\u030b", "\u02db": "\u0328"}
_SPACING_ACCENT = re.compile(f"(?P<accent>[{''.join(_COMBINING)}])(?P<letter>[^\\W\\d_])")
# Accents that hang below the letter (cedilla, ogonek) may come after it: "Lourenc¸o".
_ACCENT_BELOW_AFTER = re.compile("(?P<letter>[^\\W\\d_])(?P<accent>[\u00b8\u02db])")
_DOTLESS = {"ı": "i", "ȷ": "j"}


def _compose(match: re.Match[str]) -> str:
    accent, letter = match.group("accent"), match.group("letter")
    before = match.string[match.start() - 1 : match.start()]
    after = match.string[match.end() : match.end() + 1]
    if accent == "`" and not before.isalpha() and after.isalpha():
        return match.group(0)  # a backquote: code, or TeX's opening quote ``like this'' (but "`a" is "à")
    if accent == "\u00b4" and letter in "sS" and not after.isalpha():
        return match.group(0)  # an apostrophe typed as an acute accent: "Student´s t-test"
    composed = unicodedata.normalize("NFC", _DOTLESS.get(letter, letter) + _COMBINING[accent])
    return composed if len(composed) == 1 else match.group(0)


def compose_spacing_accents(text: str) -> str:
    """Join a spacing accent to the letter after it when Unicode has that accented letter.

    ``"R¨as¨anen"`` → ``"Räsänen"``, ``"Lemaˆıtre"`` → ``"Lemaître"``, ``"na¨ıve"`` → ``"naïve"``; a
    cedilla or ogonek may also follow its letter (``"Lourenc¸o"`` → ``"Lourenço"``). Accents
    over letters without a precomposed form (math: ``"ˆf"``, ``"t¯t"``) are left as they are, as are a
    backquote not inside a word (code, TeX quotes) and an acute accent used as an apostrophe before a
    final s. Meant for PDF text layers; typed text is left to :func:`normalize_text`.
    """
    return _ACCENT_BELOW_AFTER.sub(_compose, _SPACING_ACCENT.sub(_compose, text))
