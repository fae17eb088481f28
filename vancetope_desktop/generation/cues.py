"""Which sentences are worth an atom, and whether one states an intention or something that happened.

Rule-based, English and French: modal and future cues mark a plan ("will", "going to", "plan to", "due",
"deadline", "by Friday", "TODO", "je vais", "prévu", "d'ici"…); past-tense cues mark an event ("went",
"-ed", "yesterday", "ago", "j'ai fini", "hier"…). The date itself is found by ``generation.dates``: a cue
without a date gives a fact, never an event or plan with an invented time.
"""

from __future__ import annotations

import re

from .sentences import BlockKind, Sentence
from .stop_words import ENGLISH_STOP_WORDS

MIN_WORDS = 4
"""A prose sentence of fewer words is a fragment ("See below.", "Examples 1.")."""
MIN_ITEM_WORDS = 3
"""List items are terse: "Built actual hardware" (a paper note's strength) is a statement."""
MIN_CONTENT_WORDS = 2
"""A statement says something about something: below two content words (not stop words, interjections or
pronouns; "haven't" counts as "have") a sentence is a reaction or a filler of a chat ("I loved it.", "It's
special to me.", "Take a look at this.", "Nah, I haven't."): 285 of the 5,945 sentences the extractor kept
from the 2,760 LoCoMo turns (as ``bench_locomo.py`` stores them) before this rule, none of them a fact one could
look for. Neutral for recall there (``bench_locomo_atoms.py``, two conversations: dialog R@10 0.683 → 0.682)."""
_FILLERS = frozenset({"wow", "yeah", "yep", "yup", "nah", "oh", "ah", "aw", "aww", "hey", "omg", "lol", "haha",
                      "hmm", "um", "yay", "ok", "okay", "gonna", "wanna", "gotta", "kinda", "sorta", "let's"})
_CONTRACTION = re.compile(r"(?:n't|'s|'re|'ve|'ll|'d|'m)$")
MAX_ATOM_CHARS = 600
"""An atom is one statement: a longer "sentence" is code, a formula or a run-on table joined by the
segmenter (the corpus notes' longest prose sentences are about 450 characters)."""
MIN_LETTER_SHARE = 0.6
"""Below this share of letters among non-blank characters the sentence is mostly math, code or numbers."""
MIN_CJK_CHARS = 8
"""A CJK sentence has no spaces to count words by: this many ideographs or kana make a statement."""

_PLAN = re.compile(
    r"\b(?:will|shall|won't|going to|gonna|plan(?:s|ned|ning)? to|intend(?:s|ed)? to|aim(?:s|ing)? to|"
    r"schedul(?:e|ed)|due|deadline|by (?:the end of |next |this )?(?:monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|tomorrow|tonight|\d)|need to|have to|has to|must|todo|to-do|upcoming|"
    r"je vais|on va|nous allons|vais|allons|prévu|prévoi[rst]|compte[sz]? |devons|dois|doit|échéance|d'ici|"
    r"avant le|demain)\b|\b\w+'ll\b|^\s*\[ \]",
    re.IGNORECASE)
_PAST = re.compile(
    r"\b(?:was|were|had|did|went|got|met|saw|made|took|came|gave|found|told|said|began|wrote|bought|ran|ate|"
    r"sent|left|felt|kept|brought|thought|won|lost|spent|paid|built|held|heard|drove|flew|spoke|"
    r"taught|caught|became|chose|forgot|sold|sat|stood|grew|knew|threw|broke|fell|"
    r"yesterday|ago|last (?:night|week|month|year|weekend|monday|tuesday|wednesday|thursday|friday|saturday|"
    r"sunday)|\w{3,}ed|hier|il y a|(?:ai|as|a|avons|avez|ont|suis|es|est|sommes|êtes|sont)\s+\w+(?:é|ée|és|i|u|"
    r"is|it|ert))\b",
    re.IGNORECASE)
_GREETING = re.compile(
    r"^\s*(?:hi|hey|hello|hiya|yo|thanks|thank you|thx|cheers|bye|goodbye|see you|good (?:morning|night|"
    r"evening|afternoon)|(?:it's |it is |so )?(?:good|nice|great|glad) to (?:see|meet|hear from|talk to) you|"
    r"take care|talk (?:soon|later)|me too|same here|how are you|long time no see|congrats|congratulations|"
    r"wow|awesome|great|cool|nice|sure|ok|okay|bonjour|salut|"
    r"merci|au revoir)\b[\s!,.:)]*", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_][\w'-]*")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_WIKILINK = re.compile(r"!?\[\[([^\[\]|\n]*)(?:\|([^\[\]\n]*))?\]\]")
_MD_LINK = re.compile(r"!?\[([^\[\]\n]*)\]\([^()\n]*\)")
_EMPHASIS = re.compile(r"(\*\*|__|~~|==)")
_QUOTE_MARKS = re.compile(r"(?:^|(?<=\n))[ \t]*(?:>[ \t]?)+")
CODE_OR_MATH = re.compile(r"`[^`\n]*`|\$\$?[^$\n]+\$\$?")
"""Inline code (`` `x` ``) and math (``$x$``, ``$$x$$``) on one line."""


def mask(sentence: str) -> str:
    """``sentence`` with inline code and math blanked out (same length, so offsets hold): ``x^2`` or
    ``:+1d-start`` is neither a date, nor a cue, nor words."""
    return CODE_OR_MATH.sub(lambda m: " " * len(m.group()), sentence)


def is_plan(sentence: str) -> bool:
    """True when ``sentence`` states an intention (a future or modal cue)."""
    return _PLAN.search(mask(sentence)) is not None


def is_past(sentence: str) -> bool:
    """True when ``sentence`` reports something that happened (a past-tense cue)."""
    return _PAST.search(mask(sentence)) is not None


def clean(sentence: str) -> str:
    """The statement as an atom's text: links shown as their text, emphasis marks and runs of blanks dropped."""
    text = _WIKILINK.sub(lambda m: (m.group(2) or m.group(1)).strip(), sentence)
    text = _MD_LINK.sub(lambda m: m.group(1), text)
    return " ".join(_EMPHASIS.sub("", _QUOTE_MARKS.sub("", text)).split())


def content_words(text: str) -> int:
    """How many words of ``text`` are content words: not English stop words (scikit-learn's list), fillers
    or interjections, contractions read as their first word ("haven't" → "have"), one letter long or less."""
    count = 0
    for word in _WORD.findall(text.casefold().replace("’", "'")):
        bare = word if word in _FILLERS else _CONTRACTION.sub("", word)
        count += len(bare) > 1 and bare not in ENGLISH_STOP_WORDS and bare not in _FILLERS
    return count


def worth_keeping(sentence: Sentence) -> bool:
    """True when ``sentence`` is a statement worth an atom: not a heading, a question, a greeting, a
    fragment, mostly symbols, or too long to be one statement."""
    text = clean(mask(sentence.text))
    if sentence.kind is BlockKind.HEADING or not text or len(sentence.text) > MAX_ATOM_CHARS:
        return False
    if sentence.text.rstrip(" )\"'”’").endswith(("?", "？")) or sentence.text.rstrip().endswith(":"):
        return False  # a question, or a line that introduces a list or a formula
    remainder = _GREETING.sub("", text, count=1)
    if remainder != text and len(remainder.split()) < MIN_WORDS:
        return False  # "Hey Mel! Good to see you!" is a greeting with a few words after it
    visible = [ch for ch in text if not ch.isspace()]
    letters = sum(ch.isalpha() for ch in visible)
    if letters < MIN_LETTER_SHARE * len(visible):
        return False
    if len(_CJK.findall(text)) >= MIN_CJK_CHARS:
        return True
    return len(text.split()) >= (MIN_ITEM_WORDS if sentence.kind is BlockKind.ITEM else MIN_WORDS) \
        and content_words(text) >= MIN_CONTENT_WORDS
