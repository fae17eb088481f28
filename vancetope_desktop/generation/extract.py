"""The built-in atom extractor: each sentence worth keeping becomes a fact, an event or a plan.

* **plan**: a future or modal cue and a date (its ``due``), unless the sentence is in the past tense and the
  date is behind the reference time ("the report was due last Friday" tells what happened, not a plan);
* **event**: a past-tense cue and a date no later than the reference day (its ``when``);
* **fact**: any other statement worth keeping (questions, greetings, headings, fragments and formulas are not).

A line that opens with a speaker's label ("Caroline: I went…", a chat or an interview transcript) gives each of
its sentences that label (:func:`labelled`): the sentence is judged without it ("Caroline: That's so nice!" is
a reaction, not a statement), its plan and past cues are read with it ("TODO: …"), and its atom says who said
it ("Caroline: I ran a charity race last Saturday.", not "I ran…"), since an atom is read alone, away from its
line.

Each draft's span is the sentence in the text given, so ``text[span.start:span.end]`` is what was read: cleaned,
it is the atom's text, or its text after the label for a later sentence of a labelled line.
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from datetime import datetime, timedelta, tzinfo
from typing import Literal

from ..core.atoms import AtomDraft, AtomType, SourceSpan
from .cues import clean, is_past, is_plan, mask, worth_keeping
from .dates import FoundDate, find_dates
from .sentences import Sentence, split_sentences

MAX_EXTRACT_CHARS = 200_000
"""Atoms are read from the first 200,000 characters of a text (about 35,000 words, a long paper): a longer
text is the caller's to cut into chunks (each with its offsets), which keeps one call bounded, about 10 s on
this machine at the corpus notes' rate."""

MAX_DATE_SEARCHES = 400
"""dateparser costs 10-20 ms a sentence: past 400 searches in one text (a long log where every line is
dated) the remaining sentences are kept as facts, and a warning says so, so that one call stays within
about 10 s. Repeated sentences are searched once."""

log = logging.getLogger(__name__)

_SAME_DAY = timedelta(days=1)  # "this evening" said at noon is later the same day, still an event reported
_LABEL = re.compile(r"^[ \t]*([A-Z][\w'’.-]*(?:[ \t][A-Z][\w'’.-]*){0,2}):[ \t]+(?=\S)", re.MULTILINE)
"""A speaker's label at the start of a line: one to three capitalised words and a colon ("Caroline: ",
"Dr. Ng: "); a time ("10:30") or a URL ("https:") is not one."""
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def labelled(text: str, sentences: list[Sentence]) -> list[tuple[Sentence, Sentence, str | None]]:
    """Each sentence (as read, for its span), the same without its label (for judging it), and the label of the
    line it is said on: the last label at or before it with no blank line between (a paragraph's later lines
    belong to its speaker too). None for a sentence no label governs; a label alone is no sentence."""
    labels = [(m.start(), m.end(), m.group(1)) for m in _LABEL.finditer(text)]
    out: list[tuple[Sentence, Sentence, str | None]] = []
    index = -1
    for sentence in sentences:
        while index + 1 < len(labels) and labels[index + 1][0] <= sentence.start:
            index += 1
        if index < 0 or _BLANK_LINE.search(text, labels[index][1], max(sentence.start, labels[index][1])):
            out.append((sentence, sentence, None))
            continue
        _, end, name = labels[index]
        body = sentence
        if sentence.start < end:  # the sentence opens with the label
            if sentence.end <= end:
                continue
            body = replace(sentence, start=end, text=text[end:sentence.end])
        out.append((sentence, body, name))
    return out


def extract(text: str, reference: datetime, zone: tzinfo) -> list[AtomDraft]:
    """The atoms of ``text[:MAX_EXTRACT_CHARS]``, in text order.

    Args:
        text: the source text.
        reference: when it was written, aware.
        zone: the zone its times are read in (every ``when`` and ``due`` is aware in it).
    """
    drafts: list[AtomDraft] = []
    searched: dict[tuple[str, str], list[FoundDate]] = {}
    unsearched = 0

    def dates(masked: str, prefer: Literal["past", "future"]) -> list[FoundDate]:
        nonlocal unsearched
        key = (masked, prefer)
        if key not in searched:
            if len(searched) == MAX_DATE_SEARCHES:
                unsearched += 1
                return []
            searched[key] = find_dates(masked, reference, zone, prefer)
        return searched[key]

    read = text[:MAX_EXTRACT_CHARS]
    for sentence, body, label in labelled(read, split_sentences(read)):
        if not worth_keeping(body):
            continue
        statement = clean(body.text) if label is None else f"{label}: {clean(body.text)}"
        span = SourceSpan(start=sentence.start, end=sentence.end)
        masked = mask(body.text)
        # A label can be the cue ("TODO: call Anna tomorrow", "Deadline: 15 June 2027"); dates are the sentence's
        # own (a speaker named May is no month).
        cued = masked if label is None else f"{label}: {masked}"
        planned, past = is_plan(cued), is_past(cued)
        draft = None
        if planned:
            due = dates(masked, "future")
            if due and not (past and due[0].value < reference):
                draft = AtomDraft(type=AtomType.PLAN, text=statement, span=span, due=due[0].value)
        if draft is None and past:
            when = dates(masked, "past")
            if when and when[0].value <= reference + _SAME_DAY:
                draft = AtomDraft(type=AtomType.EVENT, text=statement, span=span, when=when[0].value)
        drafts.append(draft or AtomDraft(type=AtomType.FACT, text=statement, span=span))
    if unsearched:
        log.warning("dates were looked for in the first %d sentences of a long text only: %d later sentences "
                    "with a plan or past-tense cue are kept as facts", MAX_DATE_SEARCHES, unsearched)
    return drafts
