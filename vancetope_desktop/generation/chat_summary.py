"""Conversation summaries (issue 15): a range of chat turns folded, with the previous rolling summary, into the
ARCHIVED_CHAT summary played back in every later prompt. Pure functions: no store, no Qt.

A summary is Markdown in this layout (the built-in writes it and reads it back as the next ``previous``; a
model's summary may be any Markdown):

    Topic: <the range's topic>                  (range recompaction only)
    Decisions:
    - Caroline: we decided to meet in Boston.
    Open questions:
    - Melanie: which hotel should we book?
    Points:
    - Caroline: I went to a LGBTQ support group yesterday.
    Names and numbers: Caroline; Melanie; 7 May 2023; $1,200; 3 kids.

The built-in (:func:`summarize`) keeps, in this priority: decisions, open questions (asked in the range and not
answered later in it), the range's most central statements (``summary.centrality``), then what the previous
summary held. Decisions and open questions carried from the previous summary keep their rank after the range's
own; a carried open question that the range answers is dropped.

**The entity guard** is :func:`keep_entities`, one rule with one home here: the names and numbers of the input
(:func:`entities` of the turns and the previous summary, and the names its last line listed) that the
summary's body does not name are listed on its last line, ``Names and numbers: …``, within the bound; when
they do not all fit, the most mentioned, then the most recent, win. ``FallbackGenerator.summarize_chat`` applies it
to every generator's answer (a model's or the built-in's), and the built-in's own last line is made by it, so
the built-in is guarded when used bare too. A bare ``ModelGenerator`` is not guarded: callers hold a
``FallbackGenerator`` (``generation.base``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .base import ChatSummaryRequest, ChatTurn
from .cues import MAX_ATOM_CHARS, clean, content_words, worth_keeping
from .keywords import phrase_keys
from .sentences import split_sentences
from .stop_words import ENGLISH_STOP_WORDS
from .summary import CHARS_PER_WORD, MAX_SUMMARY_SENTENCES, MAX_TEXT_CHARS, centrality

TOPIC = "Topic:"
DECISIONS = "Decisions:"
QUESTIONS = "Open questions:"
POINTS = "Points:"
NAMES = "Names and numbers:"
EARLIER_TOPIC = "Earlier topic:"

NAMES_SHARE = 0.4
"""The share of the bound the ``Names and numbers:`` line keeps against decisions and open questions (it takes
whatever room they leave; a statement is only kept when every name still fits beside it). On LoCoMo
(``bench_chat_summary.py``, 50 words, 20 compactions) session-1 / all earlier names kept: 0.2 → 76% / 74%,
0.4 → 81% / 80%, 0.6 → same, 1.0 → 93% / 90%; at 100 and 300 words all are kept whatever the share. Not 1.0:
decisions and open questions are what issue 15 asks a summary to keep too, and 1.0 lets names crowd them out."""
MAX_ENTITIES = 2_000
"""Entities ranked per summary at most (a hostile range of distinct ids costs no more than this)."""
MAX_ENTITY_TOKENS = 8
"""An entity is recognised by at most its first 8 word tokens; a capitalised run of more words is a Title Case
heading, not a name."""
MAX_QUOTED_WORDS = 6
"""A quoted or backticked term of more words is a quotation, not a name."""
ENTITY_BONUS = 0.5
"""A statement's weight gains this per distinct name or number it holds (its centrality averages 1): a sentence
that carries names keeps them in context and costs the names line nothing. LoCoMo's survival figures did not
move between 0.5 and 2 (``bench_chat_summary.py`` at 50 and 100 words)."""
MIN_POINT_WORDS = 4
"""Content words a statement needs to be a point unless it holds a name or number: "Keep up the great work!",
"You all look so happy!" (2-3) are the small talk a new user found in LoCoMo summaries; "I went to a support group
yesterday" (4) is kept."""
RECENCY_BONUS = 0.5
"""The last statement of a range gains this much weight over the first (linear): older material goes first."""

# --- Names and numbers.

_MONTH = (r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
          r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?")
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
# Alternatives in order of preference at one position; the first that matches wins (dates before numbers).
_SPECIAL = re.compile(
    r"(?P<url>https?://[^\s<>\"'`]+[^\s<>\"'`.,;:!?)\]])"
    r"|`(?P<code>[^`\n]{1,80})`"
    r"|[\"“](?P<quoted>[^\"“”\n]{1,80})[\"”]"
    rf"|(?P<date>\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}/\d{{1,2}}/\d{{2,4}}\b"
    r"|\b\d{1,2}:\d{2}(?:\s?(?:[ap]m\b|[ap]\.m\.))?(?:\s?[-–]\s?\d{1,2}:\d{2}(?:\s?(?:[ap]m\b|[ap]\.m\.))?)?(?!\w)"
    rf"|\b{_DAY} (?:of )?{_MONTH}(?:,? \d{{4}})?(?!\w)|\b{_MONTH} {_DAY}(?:,? \d{{4}})?\b|\b{_MONTH} \d{{4}}\b)"
    r"|(?P<money>[$€£¥]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:[kKmM]|bn|million|billion|thousand)\b)?)"
    r"|(?P<version>\bv\d+(?:\.\d+)*\b)"
    r"|(?P<file>\b[\w-]{2,}(?:\.[\w-]+)*\.[a-z][a-z0-9]{0,5}\b)"
    r"|(?P<id>\b(?=[\w-]*(?:_|\d))(?=[\w-]*[^\W\d_])(?!\d+(?:st|nd|rd|th|s)\b)[^\W_][\w-]*[^\W_]\b)"
    r"|(?P<number>(?<![\w.,])\d[\d,]*(?:\.\d+)?(?:%|(?:\s(?:[^\W\d_][\w-]*)))?)"
    r"|(?P<word>[^\W\d_][\w'’-]*)")
_TITLES = frozenset({"dr", "mr", "mrs", "ms", "prof", "st", "mt", "sr", "jr"})
"""Abbreviations whose full stop ends no sentence and joins the name after them ("Dr. Smith")."""
_CONNECTORS = frozenset({"of", "de", "da", "del", "van", "von", "der", "la", "le", "du"})
_COMMON = ENGLISH_STOP_WORDS | frozenset({
    "i'm", "i've", "i'll", "i'd", "yes", "yeah", "yep", "no", "nah", "oh", "ah", "aw", "aww", "wow", "hey", "hi",
    "hello", "bye", "yo", "woah", "whoa", "anytime", "hiya", "heya", "yup", "cheers", "welcome", "ooh", "hooray",
    "dude", "thanks", "thank", "congrats", "congratulations", "ok", "okay", "lol", "omg", "haha", "hmm", "um",
    "yay", "sure", "cool", "great", "awesome", "nice", "good", "glad", "sorry", "please", "well", "just", "really",
    "today", "yesterday", "tomorrow", "tonight", "last", "next", "let's", "it's", "that's", "there's", "what's",
    "don't", "can't", "didn't", "got", "love", "absolutely", "definitely", "totally", "exactly", "maybe", "btw",
    "note", "update", "edit", "answer", "question", "user", "assistant", "system", "tool", "stitch",
    "decisions", "points", "names", "topic", "earlier",
    # sentence openers that a comma follows ("Instead, …"): not the person addressed
    "instead", "overall", "plus", "right", "alright", "nonetheless", "second", "third", "oops", "ugh", "ha", "wait",
    "look", "listen", "guys", "anyways", "besides", "meanwhile", "still", "again", "sadly", "indeed", "hence",
    "first", "finally", "lastly", "fyi"})
"""Capitalised words that are no name (stop words, interjections, time words, a sentence's usual openers) and
the labels of this module's own layout and of the chat roles."""
_SENTENCE_END = ".!?…。！？\n"
_OPENERS = " \t\"'“‘([*>#-"
# A speaker's label opens a line: one to four words, each capitalised ("Caroline: …", "Dr. Smith: …"; not "Start with
# FlashAttention: what…", a sentence with a colon).
_LABEL = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?((?![a-z])[^\W\d_][\w'’.-]*(?: (?![a-z])[^\W\d_][\w'’.-]*){0,3}):[ \t]+",
                    re.MULTILINE)
_TOKEN = re.compile(r"\w+")
_POSSESSIVE = re.compile(r"['’]s$")


def _abbreviates(word: str) -> bool:
    """Whether a full stop after ``word`` abbreviates it inside a name: a title ("Dr.") or an initial ("J.")."""
    return word.casefold() in _TITLES or (len(word) == 1 and word.isupper())


def _after_title(text: str, dot: int) -> bool:
    """Whether the full stop at ``dot`` closes a title or an initial ("Dr. Smith", "J.K. Rowling")."""
    before = re.split(r"[\s.]", text[max(0, dot - 8):dot])
    return bool(before) and _abbreviates(before[-1])


def _sentence_start(text: str, start: int) -> bool:
    """Whether the word at ``start`` opens a sentence (a line, a text, or follows an end mark or a colon)."""
    at = start
    while at > 0 and start - at < 8 and text[at - 1] in _OPENERS:
        at -= 1
    if at == 0 or text[at - 1] == ":":
        return True
    return text[at - 1] in _SENTENCE_END and not (text[at - 1] == "." and _after_title(text, at - 1))


def _capitalised(word: str) -> bool:
    return word[:1].isupper() and (word.casefold() not in _COMMON or _name_like(word))


def _name_like(word: str) -> bool:
    """A word that is a name wherever it stands: an acronym ("LGBTQ"), or capitals inside it ("McDonald")."""
    letters = [ch for ch in word if ch.isalpha()]
    return (len(letters) > 1 and all(ch.isupper() for ch in letters) and word.casefold() not in _COMMON) \
        or (any(ch.isupper() for ch in word[1:]) and any(ch.islower() for ch in word))


def _mentions(text: str) -> list[tuple[int, str]]:
    """Every name and number of ``text`` as ``(offset, entity)``, repeats included, in text order."""
    found: list[tuple[int, str]] = []
    labels = {m.start(1) for m in _LABEL.finditer(text)}
    matches = list(_SPECIAL.finditer(text))
    # A word capitalised where no sentence starts (or as a speaker's label) is a name wherever it stands.
    known = {_POSSESSIVE.sub("", m.group()).casefold() for m in matches if m.lastgroup == "word"
             and _capitalised(m.group()) and (m.start() in labels or not _sentence_start(text, m.start()))}
    run: list[tuple[int, int, str]] = []  # the capitalised words of the current name: start, end, word

    def close_run() -> None:
        while run and run[-1][2].casefold() in _CONNECTORS | _TITLES:
            run.pop()
        if not run:
            return
        first = run[0][2]
        opening = _sentence_start(text, run[0][0]) and run[0][0] not in labels and first.casefold() not in _TITLES
        vocative = len(run) == 1 and text[run[0][1]:run[0][1] + 1] == "," and first.casefold() not in _COMMON \
            and not first.casefold().endswith(("ing", "ed", "ly"))
        if opening and not vocative and not _name_like(first) and first.casefold() not in known and (
                len(run) == 1 or first.casefold().endswith(("ing", "ed", "ly"))):
            # Capitalised only because it opens the sentence ("Adding NYC", "Learning German" keep the name
            # after it); a run otherwise stays whole: "New York is big." (interjections are in _COMMON). A lone
            # word that is no interjection and is followed by a comma is the person addressed: "Kenji, please…".
            del run[0]
        if run and len(run) <= MAX_ENTITY_TOKENS and len(text[run[0][0]:run[-1][1]]) > 1:
            # (a longer run is a Title Case heading, not a name; a lone capital letter says nothing)
            found.append((run[0][0], text[run[0][0]:run[-1][1]]))
        run.clear()

    for match in matches:
        kind, value = match.lastgroup, match.group()
        if kind == "word":
            word = _POSSESSIVE.sub("", value).rstrip("-'’")
            gap = text[run[-1][1]:match.start()] if run else ""
            if run and not (gap == " " or (gap in (". ", ".") and _abbreviates(run[-1][2]))):
                close_run()
            if _capitalised(word) or (run and word.casefold() in _CONNECTORS):
                run.append((match.start(), match.start() + len(word), word))
                if word != value:  # a possessive ends the name
                    close_run()
            else:
                close_run()
            continue
        if kind == "number":
            number, _, noun = value.partition(" ")
            if run and text[run[-1][1]:match.start()] == " " and number.isdigit():
                # "Building 7", "Room 101": the number belongs to the name before it.
                run.append((match.start(), match.start() + len(number), number))
                close_run()
                if not noun:
                    continue
        close_run()
        if kind == "number":
            if noun and (noun.casefold() in ENGLISH_STOP_WORDS or noun.endswith(("ing", "ed", "ly"))):
                value = number  # "3 of them", "8 sitting": the word after is no unit or noun
            if value == number and len(number.replace(",", "").replace(".", "")) < 2:
                continue  # a lone digit says nothing by itself
        elif kind in ("code", "quoted"):
            value = " ".join(match.group(kind).split()).strip(" .,;:!?")
            if not value or len(value.split()) > MAX_QUOTED_WORDS:
                continue
        found.append((match.start(), " ".join(value.split())))
    close_run()
    return found


def entities(text: str) -> list[str]:
    """The names and numbers of ``text`` a later turn may need, in order of first appearance, each once
    (compared case-insensitively).

    Found: capitalised words and runs ("Caroline", "New York", "Bank of America", "Dr. Smith"; a sentence's
    first word only when it is capitalised elsewhere too, an acronym, a speaker label "Caroline:", or opens a
    run of capitalised words and ends in no "-ing", "-ed" or "-ly"; initials join: "J.K. Rowling"); acronyms
    ("LGBTQ"); dates ("7 May 2023", "May 7", "2023-05-07"); money ("$1,200"); numbers with their unit or noun
    ("42 km", "3 kids", "10%"; a bare number of two digits or more; a number after a name joins it: "Building
    7"); versions ("v2.1"); ids and file names ("doc_ab12", "config.yaml"); URLs; backticked and double-quoted
    terms of at most :data:`MAX_QUOTED_WORDS` words. Deterministic; never raises on a string (scripts without
    case, CJK or Arabic, give only their numbers and ids).
    """
    seen: dict[tuple[str, ...], str] = {}
    for _, entity in _mentions(text):
        key = _key(entity)
        if key and key not in seen:
            seen[key] = entity
    return list(seen.values())


def _key(entity: str) -> tuple[str, ...]:
    """The word tokens an entity is recognised by (case, punctuation and spacing do not matter)."""
    return tuple(_TOKEN.findall(entity.casefold()))[:MAX_ENTITY_TOKENS]


def _grams(text: str) -> set[tuple[str, ...]]:
    """Every run of up to MAX_ENTITY_TOKENS word tokens of ``text``: an entity is mentioned when its key is one."""
    tokens = _TOKEN.findall(text.casefold())
    return {tuple(tokens[i:i + size]) for size in range(1, MAX_ENTITY_TOKENS + 1)
            for i in range(len(tokens) - size + 1)}


def _named(text: str) -> set[tuple[str, ...]]:
    """The keys of the entities ``text`` names as :func:`entities` reads it, and of every part of them ("Potter"
    in "Harry Potter"). A name mentioned only where it cannot be told from a common word (opening a sentence,
    "London is…") is not named: the guard lists it again, or the next roll of the summary would lose it."""
    return set().union(*(_grams(name) for name in entities(text)))


def mentions(text: str, entity: str) -> bool:
    """Whether ``text`` mentions ``entity`` (the same word tokens in a row, whatever the case and punctuation)."""
    key = _key(entity)
    return bool(key) and key in _grams(text)


# --- The input, bounded.

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""Control characters (line breaks and tabs aside) and bidirectional overrides: a terminal escape or a right-to-
left override in a turn must not reach the summary played back in every later prompt."""


def _bounded(request: ChatSummaryRequest) -> tuple[list[ChatTurn], str]:
    """The turns and previous summary read, without control characters: the previous summary first, then turns
    from the newest back, until MAX_TEXT_CHARS characters (the newest turns matter most to what comes next; a
    cut turn keeps its start)."""
    previous = _CONTROL.sub("", request.previous[:MAX_TEXT_CHARS])
    room = MAX_TEXT_CHARS - len(previous)
    kept: list[ChatTurn] = []
    for turn in reversed(request.turns):
        if room <= 0:
            break
        kept.append(turn.model_copy(update={"text": _CONTROL.sub("", turn.text[:room])}))
        room -= len(turn.text)
    return kept[::-1], previous


@dataclass
class _Seen:
    """An entity of a request: as first written, how often mentioned, its first and last mention's offsets."""

    shown: str
    count: int
    first: int
    last: int


@functools.lru_cache(maxsize=8)
def _entity_stats(request: ChatSummaryRequest) -> dict[tuple[str, ...], _Seen]:
    """The entities of the request by key, in order of first appearance: the previous summary's names line
    (each name as listed: a name opening the line could not be told from a common word), then its body and the
    turns, read as one text.

    Kept for the last few requests (a frozen request is its own key), and read only by the callers: one summary
    reads them three times (its ranking, the guard's ranking, the guard's order), and reading a 200,000-character
    range took 0.7 s of CPU each time."""
    turns, previous = _bounded(request)
    body, listed = split_names(previous)
    mentioned = [(-len(listed) + i, name) for i, name in enumerate(listed)]
    mentioned += _mentions(body + "\n" + "\n".join(turn.text for turn in turns))
    stats: dict[tuple[str, ...], _Seen] = {}
    for at, entity in mentioned:
        key = _key(entity)
        if not key:
            continue
        if key in stats:
            stats[key].count += 1
            stats[key].last = at
        else:
            stats[key] = _Seen(entity, 1, at, at)
    return stats


def ranked_entities(request: ChatSummaryRequest) -> list[str]:
    """The entities of the request (turns and previous summary), most wanted first: the most mentioned, then
    the most recent (an entity's last mention), at most :data:`MAX_ENTITIES`."""
    stats = _entity_stats(request)
    order = sorted(stats, key=lambda key: (-stats[key].count, -stats[key].last))
    return [stats[key].shown for key in order[:MAX_ENTITIES]]


# --- The guard.

def _words(text: str) -> int:
    """What a piece of the summary costs against the bound: one per word, and one per CHARS_PER_WORD
    characters of a longer word (a CJK sentence is one "word" between blanks; ``summary.CHARS_PER_WORD``), so
    the bound in words always holds and a summary stays near ``max_words * CHARS_PER_WORD`` characters."""
    return sum(max(1, len(word) // CHARS_PER_WORD) for word in text.split())


def split_names(summary: str) -> tuple[str, list[str]]:
    """``summary`` without its ``Names and numbers:`` line(s), and the names they listed."""
    body, names = [], []
    for line in summary.splitlines():
        if line.strip().startswith(NAMES):
            names += [name.strip() for name in line.strip()[len(NAMES):].rstrip(". ").split(";") if name.strip()]
        else:
            body.append(line)
    return "\n".join(body).strip(), names


def _names_line(names: Sequence[str]) -> str:
    return f"{NAMES} {'; '.join(names)}." if names else ""  # not commas: "$1,200", "May 7, 2023"


def cut(text: str, max_words: int) -> str:
    """``text`` within ``max_words`` (counted as :func:`_words`), lines kept whole while they fit."""
    if _words(text) <= max_words:
        return text
    kept: list[str] = []
    used = 0
    for line in text.splitlines():
        cost = _words(line)
        if used + cost > max_words:
            room = max_words - used
            words = line.split()[:room]
            while words and _words(" ".join(words) + " …") > room:
                words.pop()
            if words:
                kept.append(" ".join(words) + " …")
            break
        kept.append(line)
        used += cost
    return "\n".join(kept)


def keep_entities(summary: str, request: ChatSummaryRequest) -> str:
    """The entity guard: ``summary`` with the request's names and numbers that its body does not name (see
    :func:`_named`) listed on a last ``Names and numbers:`` line, all within ``request.max_words`` (see the
    module doc).

    The line replaces any names line the summary had. It may take :data:`NAMES_SHARE` of the bound, or more when
    the body leaves more room; to fit it the body loses words from its end. Names go in by
    :func:`ranked_entities` and are listed in order of first appearance. Idempotent.
    """
    body, _ = split_names(summary)
    named = _named(body)
    missing = [name for name in ranked_entities(request) if _key(name) not in named]
    budget = max(int(NAMES_SHARE * request.max_words), request.max_words - _words(body))
    chosen: list[str] = []
    for name in missing:
        if _words(_names_line([*chosen, name])) <= budget:
            chosen.append(name)
    stats = _entity_stats(request)
    chosen.sort(key=lambda name: stats[_key(name)].first)
    line = _names_line(chosen)
    body = cut(body, request.max_words - _words(line))
    return "\n".join(part for part in (body, line) if part)


# --- The built-in summary.

_DECISION = re.compile(
    r"\b(?:decided|decision|agreed (?:to|on|that)|we agree (?:to|on|that)|settled on|(?:will|we'll|going to) use|"
    r"(?:let's|let us|we'll|we will) (?:use|go with|pick|choose|meet|book|schedule|switch|stick with|"
    r"call it)|the plan is|from now on|on décide|on a décidé|d'accord pour)\b",
    re.IGNORECASE)
"""A decision's cues. Not a bare "let's" or "agreed": in chat they are mostly cheer ("Let's make a difference!",
"Agreed, John!": 23 of the 23 "decisions" of one LoCoMo conversation's rolling summary before this rule)."""
_UNSURE = re.compile(r"\b(?:not sure|no idea|don't know|do not know|dunno|can't say|je ne sais pas)\b", re.IGNORECASE)
_ROLE_SPEAKERS = {"user": "User", "assistant": "Assistant"}


@dataclass
class _Item:
    """One sentence a summary may keep: ``text`` as shown (with its speaker), its section, its weight."""

    text: str
    section: str
    weight: float = 0.0
    order: int = 0  # chronology: previous items before the range's, each in its own order


def _speaker(turn: ChatTurn) -> tuple[str | None, str]:
    """Who said ``turn`` (its label "Caroline: …" when it has one, else its role when user or assistant), and
    its text without the label."""
    label = _LABEL.match(turn.text)
    if label and turn.role in _ROLE_SPEAKERS and label.group(1).casefold() not in _COMMON:
        return label.group(1), turn.text[label.end():]
    return _ROLE_SPEAKERS.get(turn.role), turn.text


def transcript_line(turn: ChatTurn) -> str:
    """``turn`` as one line of a transcript for a model: ``"Caroline: …"`` when it names its speaker, else
    ``"<role>: …"``."""
    speaker, body = _speaker(turn)
    return f"{speaker or turn.role}: {' '.join(body.split())}"


def _is_question(text: str) -> bool:
    return text.rstrip(" )\"'”’").endswith(("?", "？"))


def _stems(text: str) -> set[str]:
    return set(phrase_keys(text, 1))


def _range_items(turns: Sequence[ChatTurn]) -> tuple[list[_Item], list[str]]:
    """The range's decisions, open questions and statements as items, and its statements' texts (the
    sentences a carried open question may be answered by)."""
    said = []  # (turn index, who asks or answers, the sentence as shown, its text, a question?, the sentence)
    last_said: dict[str, int] = {}
    for index, turn in enumerate(turns):
        speaker, body = _speaker(turn)
        for sentence in split_sentences(body):
            text = clean(sentence.text)
            if text and len(text) <= MAX_ATOM_CHARS:
                shown = f"{speaker}: {text}" if speaker else text
                last_said[shown.casefold()] = len(said)
                said.append((index, speaker or turn.role, shown, text, _is_question(text), sentence))
    statements = [text for *_, text, question, _ in said if not question]
    items: list[_Item] = []
    points: list[tuple[int, _Item]] = []
    for position, (_, speaker, shown, text, question, sentence) in enumerate(said):
        if last_said[shown.casefold()] != position:
            continue  # said again later: the repeat is the one kept
        if question:
            if content_words(text) >= 2 and not _answered(said, position, speaker):
                items.append(_Item(shown, QUESTIONS, order=position))
        elif _DECISION.search(text) and content_words(text) >= 2:
            items.append(_Item(shown, DECISIONS, order=position))
        elif worth_keeping(sentence) and (content_words(text) >= MIN_POINT_WORDS or entities(text)):
            points.append((position, _Item(shown, POINTS, order=position)))
    points = points[-MAX_SUMMARY_SENTENCES:]  # the newest, when a range has more than can be ranked
    if points:
        rank = centrality([item.text for _, item in points]) * len(points)
        last = max(len(said) - 1, 1)
        for (position, item), score in zip(points, rank, strict=True):
            held = len(entities(said[position][3]))
            item.weight = float(score) + ENTITY_BONUS * held + RECENCY_BONUS * position / last
    return items + [item for _, item in points], statements


def _answered(said: Sequence[tuple], position: int, asker: str) -> bool:
    """Whether the question said at ``position`` is answered later in the range: another speaker's next turn
    states something (and is not "I don't know"), or a later statement by another speaker shares its words."""
    index = said[position][0]
    wanted = _stems(said[position][3])
    reply_turn = None
    for later_index, speaker, _, text, question, _ in said[position + 1:]:
        if speaker == asker or later_index == index:
            continue
        if reply_turn is None:
            reply_turn = later_index
        if question:
            continue
        if later_index == reply_turn and not _UNSURE.search(text):
            return True
        if wanted & _stems(text):
            return True
    return False


def _previous_items(previous: str, statements: Sequence[str]) -> list[_Item]:
    """The previous summary's sentences as items (its own sections kept; a model's prose as points), minus the
    open questions the range answers (a statement sharing half the question's words or more)."""
    body, _ = split_names(previous)
    items: list[_Item] = []
    section = POINTS
    range_stems = [_stems(text) for text in statements]
    for line in body.splitlines():
        line = line.strip()
        if line in (DECISIONS, QUESTIONS, POINTS):
            section = line
            continue
        if line.startswith(TOPIC):
            line = f"{EARLIER_TOPIC} {line[len(TOPIC):].strip()}."
        texts = [line[2:].strip()] if line.startswith(("- ", "* ")) else [clean(s.text) for s in split_sentences(line)]
        for text in texts:
            if not text:
                continue
            if section == QUESTIONS:
                wanted = _stems(_LABEL.sub("", text, count=1))  # the asker's name is no word of the question
                if wanted and any(len(wanted & stems) * 2 >= len(wanted) for stems in range_stems):
                    continue
            items.append(_Item(text, section, order=len(items) - 1_000_000))
    return items


def _alternate(new: Sequence[_Item], old: Sequence[_Item]) -> list[_Item]:
    """``new`` and ``old`` taken one after the other (``new`` first), the rest of the longer at the end.

    Why: a roll-up that ranked the previous summary's points after every point of the range lost the earlier
    summary at the second compaction (a new user's trial on LoCoMo: "Caroline is transgender, looks into adoption"
    gone, only small talk left). Taking them in turn keeps about half of what each summary held, so older material
    fades over rolls (a half, a quarter…) instead of vanishing at once."""
    out: list[_Item] = []
    for index in range(max(len(new), len(old))):
        out += [*new[index:index + 1], *old[index:index + 1]]
    return out


def summarize(request: ChatSummaryRequest) -> str:
    """The built-in conversation summary of ``request`` (see the module doc), at most ``request.max_words``
    words; ``request.previous`` unchanged when there are no turns.

    Sentences are chosen greedily in priority order — the range's decisions (newest first), the previous
    summary's decisions, the range's open questions, the previous ones, then the range's statements by weight
    (centrality, names held, recency) in turn with the previous summary's points (newest first). A decision or open
    question is kept if the body still leaves the names line the room it needs up to :data:`NAMES_SHARE` of the
    bound; a statement only if every name not yet in the body still fits (names are dropped last, as issue 15
    asks). The names line is then :func:`keep_entities`'s.
    """
    if not request.turns:
        return request.previous
    turns, previous = _bounded(request)
    ranged, statements = _range_items(turns)
    carried = _previous_items(previous, statements)
    by_section = {section: ([i for i in ranged if i.section == section], [i for i in carried if i.section == section])
                  for section in (DECISIONS, QUESTIONS, POINTS)}
    candidates: list[_Item] = []
    for section in (DECISIONS, QUESTIONS):
        new, old = by_section[section]
        candidates += sorted(new, key=lambda i: -i.order) + old[::-1]
    new, old = by_section[POINTS]
    candidates += _alternate(sorted(new, key=lambda i: (-i.weight, -i.order)), old[::-1])

    wanted = ranked_entities(request)
    keys = [_key(name) for name in wanted]
    cost = {key: _words(name) for key, name in zip(keys, wanted, strict=True)}
    uncovered = dict.fromkeys(keys)
    names_need = len(NAMES.split()) + sum(cost.values()) if keys else 0
    names_floor = int(NAMES_SHARE * request.max_words)
    topic = cut(f"{TOPIC} {' '.join(request.topic.split())}", request.max_words) if request.topic and \
        request.topic.strip() else ""
    used = _words(topic) if topic else 0
    headers: set[str] = set()
    chosen: list[_Item] = []
    for item in candidates:
        named = _named(item.text)
        covers = {key for key in uncovered if key in named}
        need = names_need - sum(cost[key] for key in covers)
        extra = _words("- " + item.text) + (0 if item.section in headers else _words(item.section))
        # Names outrank statements; decisions and open questions need only leave them their share.
        floor = request.max_words if item.section == POINTS else names_floor
        if used + extra + min(floor, need) <= request.max_words:
            chosen.append(item)
            headers.add(item.section)
            used += extra
            names_need = need
            for key in covers:
                del uncovered[key]
    lines = [topic] if topic else []
    for section in (DECISIONS, QUESTIONS, POINTS):
        kept = sorted((i for i in chosen if i.section == section), key=lambda i: i.order)
        if kept:
            lines += [section, *(f"- {item.text}" for item in kept)]
    body = "\n".join(lines)
    if not chosen and candidates and names_floor < len(NAMES.split()) + 1:
        body = cut(candidates[0].text, request.max_words)  # a bound too small for a names line: one opening
    return keep_entities(body, request)

