"""The built-in atom extractor: each sentence worth keeping becomes a fact, an event or a plan.

* **plan**: a future or modal cue and a date (its ``due``), unless the sentence is in the past tense and the
  date is behind the reference time ("the report was due last Friday" tells what happened, not a plan);
* **event**: a past-tense cue and a date no later than the reference day (its ``when``);
* **fact**: any other statement worth keeping (questions, greetings, headings, fragments and formulas are not).

Each draft's span is the sentence in the text given, so ``text[span.start:span.end]`` is what was read.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, tzinfo
from typing import Literal

from ..core.atoms import AtomDraft, AtomType, SourceSpan
from .cues import clean, is_past, is_plan, mask, worth_keeping
from .dates import FoundDate, find_dates
from .sentences import split_sentences

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

    for sentence in split_sentences(text[:MAX_EXTRACT_CHARS]):
        if not worth_keeping(sentence):
            continue
        statement = clean(sentence.text)
        span = SourceSpan(start=sentence.start, end=sentence.end)
        masked = mask(sentence.text)
        planned, past = is_plan(masked), is_past(masked)
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
