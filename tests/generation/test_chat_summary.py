"""Conversation summaries (issue 15): names and numbers, the bound, decisions and open questions, the guard.

The built-in runs on real turns (LoCoMo's sessions and a worked agent conversation). The model side is a
scripted :class:`~vancetope_desktop.generation.model.ChatModel` (it replies a fixed string) behind the real
``ModelGenerator`` and ``FallbackGenerator``: what is tested is what the product does with a reply.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from pydantic import BaseModel

from vancetope_desktop.generation.base import BadGeneratorInput, ChatSummaryRequest, ChatTurn, Generator
from vancetope_desktop.generation.builtin import BuiltinGenerator
from vancetope_desktop.generation.chat_summary import (
    DECISIONS,
    NAMES,
    POINTS,
    QUESTIONS,
    entities,
    keep_entities,
    mentions,
    split_names,
)
from vancetope_desktop.generation.fallback import FallbackGenerator
from vancetope_desktop.generation.model import ModelGenerator

PLANNING = [
    ("user", "I need a small service that stores the lab's sensor readings from Building 7."),
    ("assistant", "I can do that. Which database should it write to?"),
    ("user", "Let's use SQLite, the readings are only about 42 MB a month."),
    ("assistant", "Then we'll use SQLite with one table per sensor, and config.yaml holds the sensor list."),
    ("user", "Good. Dr. Okafor wants the first export by 7 May 2023, and it costs $1,200 a year to host."),
    ("assistant", "Should the export be CSV or Parquet?"),
]
"""A worked conversation: a decision in turns 3-4, an answered question (turn 2), an open one (the last)."""


def _turns(pairs, start: int = 0) -> list[ChatTurn]:
    return [ChatTurn(seq=start + i, role=role, text=text) for i, (role, text) in enumerate(pairs)]


@pytest.fixture(scope="module")
def builtin() -> BuiltinGenerator:
    return BuiltinGenerator()


@pytest.fixture(scope="module")
def locomo_ranges(locomo: Path) -> list[list[list[ChatTurn]]]:
    """Each LoCoMo conversation's sessions as ranges, turns written ``"<speaker>: <text>"``."""
    out = []
    for sample in json.loads(locomo.read_text(encoding="utf-8")):
        conversation = sample["conversation"]
        numbers = sorted(int(key.split("_")[1]) for key, value in conversation.items()
                         if key.startswith("session_") and isinstance(value, list))
        out.append([[ChatTurn(seq=i, role="user" if turn["speaker"] == conversation["speaker_a"] else "assistant",
                              text=f"{turn['speaker']}: {turn['text']}")
                     for i, turn in enumerate(conversation[f"session_{n}"])] for n in numbers])
    return out


def test_entities_of_real_sentences():
    assert entities("Caroline: I went to a LGBTQ support group yesterday and it was so powerful.") == \
        ["Caroline", "LGBTQ"]
    assert entities("Hey Caroline! Good to see you! I'm swamped with the kids & work.") == ["Caroline"]
    assert entities("We moved to New York on 7 May 2023 with our 3 kids. Dr. Smith said the trip is 42 km.") == \
        ["New York", "7 May 2023", "3 kids", "Dr. Smith", "42 km"]
    assert entities('New York is big. The rent was $1,200 and v2.1 shipped; see doc_ab12 and "config.yaml".') == \
        ["New York", "$1,200", "v2.1", "doc_ab12", "config.yaml"]
    # A sentence's usual first words are no names; a word capitalised mid-sentence is one everywhere.
    assert entities("Yesterday Melanie went to the Bank of America. Melanie paid 10% more in 2023.") == \
        ["Melanie", "Bank of America", "10%", "2023"]
    assert entities("Painting is relaxing. I love painting.") == []
    assert entities("I'm 25 years old; COVID-19 hit in March 2020, 3 of them left. Run `make test`.") == \
        ["25 years", "COVID-19", "March 2020", "make test"]
    # Ordered by first appearance, each once whatever its case.
    assert entities("caroline met CAROLINE? No: Caroline met Mel. Mel smiled.") == ["CAROLINE", "Mel"]


def test_entities_never_raise_and_are_deterministic():
    hostile = "\x00\x07 مرحبا كارولين 123 km، 你好世界。 \u202e" + "Zoë Ångström, " * 3 + "x" * 50_000
    assert entities(hostile) == entities(hostile)
    assert "123 km" in entities(hostile) and "Zoë Ångström" in entities(hostile)
    assert entities("") == []


def test_decisions_and_open_questions_are_kept_and_an_answered_question_is_not_open(builtin):
    request = ChatSummaryRequest(turns=_turns(PLANNING), max_words=300)
    summary = builtin.summarize_chat(request)
    decisions = summary.split(DECISIONS)[1].split(QUESTIONS)[0]
    questions = summary.split(QUESTIONS)[1].split(POINTS)[0]
    assert "User: Let's use SQLite" in decisions and "we'll use SQLite" in decisions
    assert "Assistant: Should the export be CSV or Parquet?" in questions
    assert "Which database" not in questions  # answered by the next turn
    for name in ("Building 7", "SQLite", "42 MB", "config.yaml", "Dr. Okafor", "7 May 2023", "$1,200"):
        assert mentions(summary, name), name
    assert len(summary.split()) <= 300


def test_a_reply_of_i_dont_know_leaves_the_question_open(builtin):
    turns = _turns([("user", "Which port does the staging server listen on?"),
                    ("assistant", "I don't know, the deployment notes do not say."),
                    ("user", "The backup job finished on Tuesday night.")])
    summary = builtin.summarize_chat(ChatSummaryRequest(turns=turns, max_words=100))
    assert "Which port does the staging server listen on?" in summary.split(QUESTIONS)[1]


def test_rolling_carries_decisions_and_drops_a_question_the_next_range_answers(builtin):
    first = builtin.summarize_chat(ChatSummaryRequest(turns=_turns(PLANNING), max_words=300))
    answer = _turns([("user", "The export should be Parquet, written every night at 02:00."),
                     ("assistant", "Noted: nightly Parquet exports to the archive bucket.")], start=len(PLANNING))
    second = builtin.summarize_chat(ChatSummaryRequest(turns=answer, previous=first, max_words=300))
    assert "Let's use SQLite" in second.split(DECISIONS)[1]
    assert QUESTIONS not in second  # "CSV or Parquet?" was answered
    assert mentions(second, "Dr. Okafor") and mentions(second, "Parquet")


def test_topic_and_speaker_labels(builtin):
    turns = _turns([("user", "Caroline: I went to the LGBTQ support group on 7 May 2023 and it was powerful."),
                    ("assistant", "Melanie: I painted a lake sunrise last year with my 3 kids."),
                    ("tool", "search returned 12 documents for the query about sunrise paintings"),
                    ("stitch", "Topic stitch: the support group and painting were discussed here.")])
    summary = builtin.summarize_chat(ChatSummaryRequest(turns=turns, topic="Support and painting", max_words=80))
    assert summary.startswith("Topic: Support and painting")
    assert "- Caroline: I went to the LGBTQ support group" in summary
    assert "- Melanie: I painted a lake sunrise" in summary
    assert "- search returned 12 documents" in summary  # a tool turn has no speaker


@pytest.mark.parametrize("max_words", [1, 2, 4, 7, 12, 30, 75, 300])
def test_the_bound_always_holds_over_rolled_locomo_sessions(builtin, locomo_ranges, max_words):
    for conversation in locomo_ranges[:2]:
        summary = ""
        for turns in conversation[:6]:
            summary = builtin.summarize_chat(ChatSummaryRequest(turns=turns, previous=summary, max_words=max_words))
            assert len(summary.split()) <= max_words
        if max_words >= 30:  # the speakers survive any roll with room for a names line
            speakers = {turn.text.split(":")[0] for turn in conversation[0]}
            assert all(mentions(summary, speaker) for speaker in speakers)


def test_session_one_names_survive_five_compactions(builtin, locomo_ranges):
    for conversation in locomo_ranges:
        wanted = entities("\n".join(turn.text for turn in conversation[0]))
        summary = ""
        for turns in conversation[:5]:
            summary = builtin.summarize_chat(ChatSummaryRequest(turns=turns, previous=summary, max_words=300))
        assert [name for name in wanted if not mentions(summary, name)] == []


@pytest.mark.parametrize("text", [
    "Caroline met Dr. Smith in New York. " * 30_000,  # ~1 MB: bounded by MAX_TEXT_CHARS
    "x" * 1_000_000,
    "\x00\x01\x1b[31m Caroline \x7f\u202e reversed \u200f text about the LGBTQ group in Boston.",
    "مرحبا كارولين، ذهبنا إلى نيويورك في 7 مايو 2023.",
    "我们决定使用数据库。明天我们再讨论导出的格式和时间安排。" * 50,
    "",
])
def test_hostile_turns_never_crash_and_stay_bounded(builtin, text):
    for max_words in (1, 5, 60):
        summary = builtin.summarize_chat(ChatSummaryRequest(turns=[ChatTurn(seq=0, role="user", text=text)],
                                                            max_words=max_words))
        assert len(summary.split()) <= max_words
        assert "\x1b" not in summary and "\u202e" not in summary and "\x00" not in summary


def test_bad_requests(builtin):
    assert builtin.summarize_chat(ChatSummaryRequest(turns=[], previous="Points:\n- kept", max_words=5)) == \
        "Points:\n- kept"
    assert builtin.summarize_chat(ChatSummaryRequest(turns=[], max_words=5)) == ""
    model = ModelGenerator(_Scripted("never read"))
    for generator in (builtin, model, FallbackGenerator(model, builtin)):
        for max_words in (0, -3):
            with pytest.raises(BadGeneratorInput):
                generator.summarize_chat(ChatSummaryRequest(turns=_turns(PLANNING), max_words=max_words))
        with pytest.raises(BadGeneratorInput):
            generator.summarize_chat("not a request")


class _Scripted:
    """A chat model that replies ``reply`` to every turn and keeps what it was asked."""

    name = "scripted"

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.asked: list[str] = []

    def complete(self, system: str, user: str, schema: type[BaseModel], *, max_tokens: int,
                 timeout_s: float) -> str:
        self.asked.append(user)
        return self.reply


def test_a_model_reply_that_drops_names_gets_them_back():
    reply = json.dumps({"summary": "Decisions:\n- The service will store readings in a small database.\n"
                                   "Open questions:\n- The export format."})
    chat = _Scripted(reply)
    wrapped = FallbackGenerator(ModelGenerator(chat), BuiltinGenerator())
    assert isinstance(wrapped, Generator)
    request = ChatSummaryRequest(turns=_turns(PLANNING), previous="Names and numbers: Priya.", max_words=60)
    summary = wrapped.summarize_chat(request)
    assert wrapped.fallbacks == 0 and summary.startswith("Decisions:\n- The service will store readings")
    _, names = split_names(summary)
    for name in ("SQLite", "Building 7", "Dr. Okafor", "7 May 2023", "$1,200", "config.yaml", "Priya"):
        assert name in names, name
    assert summary.splitlines()[-1].startswith(NAMES) and len(summary.split()) <= 60
    assert "User: I need a small service" in chat.asked[0] and "Names and numbers: Priya." in chat.asked[0]
    assert keep_entities(summary, request) == summary  # the guard is idempotent


def test_the_guard_makes_room_for_names_within_the_bound():
    chat = _Scripted(json.dumps({"summary": " ".join(["word"] * 40)}))
    wrapped = FallbackGenerator(ModelGenerator(chat), BuiltinGenerator())
    summary = wrapped.summarize_chat(ChatSummaryRequest(turns=_turns(PLANNING), max_words=30))
    assert len(summary.split()) <= 30
    assert mentions(summary, "SQLite") and summary.split("\n")[0].endswith("…")


@pytest.mark.parametrize("reply", ['{"summary": 42}', "Sure! Here is the summary: SQLite.", '{"text": "x"}'])
def test_a_malformed_model_reply_falls_back_to_the_builtin(reply, caplog):
    builtin = BuiltinGenerator()
    wrapped = FallbackGenerator(ModelGenerator(_Scripted(reply)), builtin)
    request = ChatSummaryRequest(turns=_turns(PLANNING), max_words=120)
    with caplog.at_level(logging.WARNING, logger="vancetope_desktop.generation.fallback"):
        summary = wrapped.summarize_chat(request)
    assert summary == builtin.summarize_chat(request) and wrapped.fallbacks == 1
    assert "summarize_chat failed" in caplog.text


def test_a_range_too_long_for_the_model_is_folded_by_the_builtin():
    chat = _Scripted('{"summary": "never used"}')
    wrapped = FallbackGenerator(ModelGenerator(chat, max_input_chars=200), BuiltinGenerator())
    summary = wrapped.summarize_chat(ChatSummaryRequest(turns=_turns(PLANNING), max_words=120))
    assert wrapped.fallbacks == 1 and chat.asked == [] and "SQLite" in summary


def test_when_names_outgrow_the_bound_the_most_mentioned_then_the_newest_stay(builtin):
    ids = [f"doc_{i:04d}" for i in range(60)]
    turns = _turns([("tool", f"Stored {name} in the SQLite index.") for name in ids])
    summary = builtin.summarize_chat(ChatSummaryRequest(turns=turns, max_words=20))
    _, names = split_names(summary)
    assert len(summary.split()) <= 20 and names[0] == "SQLite"
    assert names[1:] == ids[-len(names) + 1:]  # the newest ids, listed in order of appearance


def test_the_person_addressed_is_a_name_a_sentence_opener_is_not():
    assert entities("Kenji, please compare run 7 on the Osaka cluster.") == ["Kenji", "Osaka"]
    for opener in ("Instead", "Overall", "Wait", "Yes", "Thanks", "However", "Running"):
        assert entities(f"{opener}, the loss fell.") == []


def test_a_sentence_with_a_colon_is_no_speaker_label():
    assert entities("Start with FlashAttention: what speed-up does the paper report?") == ["FlashAttention"]
    assert entities("Caroline: I went to the LGBTQ group.") == ["Caroline", "LGBTQ"]


def test_times_are_one_entity():
    assert entities("The slot is 10:00-14:00 on 9 December 2026, or 3:15 p.m.") == [
        "10:00-14:00", "9 December 2026", "3:15 p.m."]


def test_a_roll_up_keeps_part_of_the_previous_summary_and_no_small_talk():
    first = BuiltinGenerator().summarize_chat(ChatSummaryRequest(max_words=60, turns=(
        ChatTurn(seq=1, role="user", text="Caroline: I am transgender and I went to a support group yesterday."),
        ChatTurn(seq=2, role="assistant", text="Melanie: That agency for adoption you told me about looks great."),
        ChatTurn(seq=3, role="user", text="Caroline: I want to work in counseling and mental health."))))
    later = ["Melanie: Keep up the great work!", "Caroline: You all look so happy!",
             "Melanie: My kids painted pottery with me last weekend at the lake.",
             "Caroline: That sounds like a lovely family weekend at the lake house.",
             "Melanie: We also went hiking on the mountain trail near the old mill.",
             "Caroline: I read a novel about sailing across the northern ocean alone.",
             "Melanie: The weather turned cold so we lit a fire in the cabin stove."]
    turns = tuple(ChatTurn(seq=4 + n, role="user" if n % 2 else "assistant", text=t) for n, t in enumerate(later))
    rolled = BuiltinGenerator().summarize_chat(ChatSummaryRequest(max_words=60, turns=turns, previous=first))
    # ranked after every new point, the earlier summary was gone at the second roll; in turn, it fades
    assert "adoption" in rolled and "counseling" in rolled
    assert "Keep up the great work" not in rolled and "so happy" not in rolled
