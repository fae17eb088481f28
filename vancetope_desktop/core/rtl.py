"""Arabic and Hebrew text as it is stored and as it is matched.

PDF text layers often give Arabic as *presentation forms*: one code point per contextual glyph shape
(U+FE8D "ﺍ" isolated alef, U+FEDF "ﻟ" initial lam, U+FEFB "ﻻ" the lam-alef ligature…), so a word
typed on a keyboard, made of the base letters U+0621–U+064A, never matches it. NFKC maps each form
to its base letters; it is applied only to the two presentation-form blocks, because NFKC elsewhere
changes text a reader must see as written (superscripts, fractions, full-width forms).

Vowel marks are optional in both scripts: "أيضًا" and "أيضا" are the same word, and a stretched
word ("محـمد", with a tatweel) is the plain one. SQLite's ``unicode61`` tokenizer treats a combining
mark as a separator, so "مُحَمَّد" was indexed as four one-letter tokens and matched nothing.
:func:`fold_for_matching` removes the marks for the lexical index and its queries only; the stored
text keeps them.
"""

from __future__ import annotations

import re
import unicodedata

# Arabic Presentation Forms-A (U+FB50–FDFF) and -B (U+FE70–FEFE; U+FEFF is the BOM, not a form).
_PRESENTATION_FORM = re.compile("[\ufb50-\ufdff\ufe70-\ufefe]+")
# Arabic harakat, tanween, shadda, sukun, small high marks and the superscript (dagger) alef; the
# Quranic annotation marks; the tatweel (U+0640). Hebrew niqqud and cantillation marks (U+0591–U+05C7,
# all category Mn; the maqaf, paseq, sof pasuq and nun hafukha in that range are punctuation, kept).
_OPTIONAL_MARKS = re.compile(
    "[\u0610-\u061a\u064b-\u065f\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7\u06e8\u06ea-\u06ed\u0640"
    "\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7]"
)


def fold_presentation_forms(text: str) -> str:
    """Replace Arabic presentation forms by the base letters they show (NFKC, on those blocks only).

    ``"ﻣﺮﺣﺒﺎ"`` → ``"مرحبا"``, ``"ﻻ"`` → ``"لا"``; any other character is left as it is.
    """
    return _PRESENTATION_FORM.sub(lambda m: unicodedata.normalize("NFKC", m.group(0)), text)


def fold_for_matching(text: str) -> str:
    """Text as the lexical index compares it: presentation forms folded, Arabic vowel marks and tatweel
    and Hebrew points removed (``"أيضًا"`` → ``"أيضا"``, ``"מִלָּה"`` → ``"מלה"``). Text without Arabic or
    Hebrew comes back unchanged."""
    return _OPTIONAL_MARKS.sub("", fold_presentation_forms(text))
