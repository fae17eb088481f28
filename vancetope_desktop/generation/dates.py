"""Dates and times stated in a sentence, resolved against when the text was written (dateparser).

``dateparser.search.search_dates`` finds "yesterday", "last Tuesday at 3pm", "by Friday", "15 June 2023",
"vendredi prochain" and resolves them against a reference time. It works offline (its language data ships
in the package; naming the languages skips its language detection). It is also eager: it reads "We" as
Wednesday, "may" as May and "2 minutes" as a time, and costs 10-30 ms per sentence. So a sentence is only
searched when it holds a calendar word (a month, a weekday, "yesterday", "next"…) or a number shaped like a
date or a time (ISO dates, 3/14, 3pm, 10:30, a year 1500-2199), and a match is kept only when it holds one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from functools import cache
from typing import Literal

LANGUAGES = ("en", "fr")
"""The languages dates are read in: the notes and conversations met so far (corpus notes, LoCoMo) are
English, with some French. One language is searched per sentence: given both, dateparser read "is 15 June
2027" as December 2027 (it guesses the language per fragment), and each language added slows every search."""
_FRENCH = re.compile(r"\b(?:le|la|les|des|du|au|aux|une|est|sont|nous|vous|je|avec|pour|dans|d'ici|avant|"
                     r"prochain|prochaine|dernier|dernière|hier|demain|aujourd'hui|il y a)\b", re.IGNORECASE)
_TIME_OF_DAY = re.compile(r"\d[:h]\d\d|\d\s*[ap]\.?m\b|\b(?:noon|midnight|midi|minuit|hours?|minutes?|seconds?|"
                          r"heures?|morning|afternoon|evening|tonight|night|matin|soir)\b", re.IGNORECASE)

_MONTHS = ("january|february|march|april|june|july|august|september|october|november|december|"
           "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|"
           "janvier|février|fevrier|mars|avril|mai|juin|juillet|août|aout|septembre|octobre|novembre|décembre")
_DAYS = ("monday|tuesday|wednesday|thursday|friday|saturday|sunday|"
         "lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche")
_RELATIVE = ("today|tonight|tomorrow|yesterday|ago|last|next|this morning|this evening|this afternoon|"
             "weekend|aujourd'hui|demain|hier|prochain|prochaine|dernier|dernière|il y a")
_CALENDAR_WORD = re.compile(rf"\b(?:{_MONTHS}|{_DAYS}|{_RELATIVE})\b", re.IGNORECASE)
_NUMERIC_DATE = re.compile(r"\b\d{4}-\d\d(?:-\d\d)?\b|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b|\b\d{1,2}(?::\d\d)?\s*[ap]\.?m\b"
                           r"|\b\d{1,2}[:h]\d\d\b|(?<![\d.,])(?:1[5-9]\d\d|2[01]\d\d)(?![\d.,%])", re.IGNORECASE)
_DURATION_ONLY = re.compile(r"^\s*(?:in\s+)?(?:a|an|\d+|few|several)\s+(?:\w+\s+)?"
                            r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?)\s*$", re.IGNORECASE)
_YEAR = re.compile(r"1[5-9]\d\d|2[01]\d\d")


@dataclass(frozen=True)
class FoundDate:
    """One date found in a sentence.

    Attributes:
        start, end: its offsets in the sentence.
        text: the words that stated it.
        value: the date resolved, aware in the zone the text was read in (a time stated with its own zone,
            "3pm EST", is converted to it); midnight when only a day was stated, the first of January when
            only a year was.
    """

    start: int
    end: int
    text: str
    value: datetime


def _zone_name(zone: tzinfo, at: datetime) -> str:
    """``zone`` as dateparser names zones: its IANA key, else its offset at ``at`` ("+0200")."""
    key = getattr(zone, "key", None)
    if key:
        return key
    offset = at.utcoffset() or timedelta(0)
    if not offset:
        return "UTC"
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}{abs(minutes) % 60:02d}"


@cache
def _search():  # dateparser takes about a second to import: only when dates are first looked for
    from dateparser.search import search_dates

    return search_dates


def find_dates(sentence: str, reference: datetime, zone: tzinfo,
               prefer: Literal["past", "future"]) -> list[FoundDate]:
    """The dates stated in ``sentence``, in order.

    Args:
        sentence: one sentence.
        reference: when it was written, aware (relative dates resolve against it, in ``zone``).
        zone: the zone the sentence's times are read in; every value returned is aware in it.
        prefer: how an ambiguous date resolves ("Friday" is the last one for "past", the next for "future").

    Returns:
        What was found, durations ("2 minutes"), bare numbers and modal "may" left out; a lone year
        ("(2001)") is that year's first of January.
    """
    if not (_CALENDAR_WORD.search(sentence) or _NUMERIC_DATE.search(sentence)):
        return []
    local_reference = reference.astimezone(zone)
    # A time stated with its zone ("3pm EST", "+02:00") keeps it: dateparser reads the others in TIMEZONE.
    settings = {"RELATIVE_BASE": local_reference.replace(tzinfo=None), "PREFER_DATES_FROM": prefer,
                "PREFER_DAY_OF_MONTH": "first", "RETURN_AS_TIMEZONE_AWARE": True,
                "TIMEZONE": _zone_name(zone, local_reference)}
    try:
        french = len(_FRENCH.findall(sentence)) >= 2
        found = _search()(sentence, languages=[LANGUAGES[1] if french else LANGUAGES[0]], settings=settings) or []
    except (ValueError, OverflowError, TypeError, KeyError, IndexError, re.error):
        return []  # dateparser's own failures on odd text: the sentence simply states no date we can read
    out: list[FoundDate] = []
    cursor = 0
    for words, value in found:
        start = sentence.find(words, cursor)
        if start < 0:
            continue
        cursor = start + len(words)
        stated = words.strip()
        if not (_CALENDAR_WORD.search(stated) or _NUMERIC_DATE.search(stated)) or _DURATION_ONLY.match(stated):
            continue
        value = value.astimezone(zone) if value.tzinfo else value.replace(tzinfo=zone)
        numbers = re.findall(r"\d+", stated)
        if len(numbers) == 1 and _YEAR.fullmatch(numbers[0]) and not _CALENDAR_WORD.search(stated):
            value = datetime(int(numbers[0]), 1, 1, tzinfo=zone)  # "in 1868", "Hesterberg (1995) and": a year
        elif not _TIME_OF_DAY.search(stated):
            # "yesterday", "last Tuesday", "in 3 days" name a day: dateparser copies the reference's time of
            # day into them, which the text never said.
            value = value.replace(hour=0, minute=0, second=0, microsecond=0)
        out.append(FoundDate(start, start + len(words.rstrip()), stated, value))
    return out
