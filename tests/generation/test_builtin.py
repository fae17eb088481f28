"""The built-in generator on real inputs: the corpus notes, LoCoMo's dated conversations, the seed texts."""

from __future__ import annotations

import json
import socket
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tests.conftest import SHARED
from vancetope_desktop.core.atoms import AtomType
from vancetope_desktop.generation.base import BadGeneratorInput, Generator
from vancetope_desktop.generation.builtin import BuiltinGenerator
from vancetope_desktop.generation.cues import clean
from vancetope_desktop.generation.sentences import split_sentences
from vancetope_desktop.generation.summary import CHARS_PER_WORD

REFERENCE = datetime(2026, 12, 2, 9, 30, tzinfo=UTC)  # a Wednesday


@pytest.fixture(scope="module")
def generator() -> BuiltinGenerator:
    return BuiltinGenerator()


NOTES = ("paper-summary-morphy-charge-storage.md", "math-riesz-representation-theorem.md", "obsidian-callouts.md",
         "stats-svm-mixed-chinese-english.md", "logseq-advanced-queries.md", "zotero-paper-template-invalid-yaml.md",
         "latin1-encoded-table.md", "utf8-bom-frontmatter.md", "empty-note.md", "stats-arima-time-series.md",
         "obsidian-basic-formatting-japanese.md")
"""A third of the corpus notes by size, one of each kind: prose, math, callouts, mixed Chinese, Logseq code,
broken YAML, Latin-1, a BOM, an empty note, Japanese (the whole 241 KB takes the suite 10 s more)."""


@pytest.fixture(scope="module")
def notes(corpus: Path) -> dict[str, str]:
    return {name: (corpus / "notes" / name).read_text(encoding="utf-8", errors="replace") for name in NOTES}


@pytest.fixture(scope="module")
def sessions(locomo: Path) -> list[tuple[datetime, list[dict]]]:
    """Every LoCoMo session as (its date, its turns)."""
    out = []
    for sample in json.loads(locomo.read_text(encoding="utf-8")):
        conversation = sample["conversation"]
        for key, turns in conversation.items():
            if key.startswith("session_") and isinstance(turns, list):
                when = datetime.strptime(conversation[f"{key}_date_time"], "%I:%M %p on %d %B, %Y")
                out.append((when, turns))
    return out


def test_the_builtin_follows_the_interface(generator):
    assert isinstance(generator, Generator)


def test_spans_point_at_the_sentence_each_atom_states(generator, notes):
    """Every atom of every corpus note: the span's passage, cleaned, is the atom's text (after the label of the
    line it is on, "Keywords: …", when there is one)."""
    total = 0
    for name, text in notes.items():
        for atom in generator.extract_atoms(text, reference_time=REFERENCE):
            assert atom.span is not None, name
            passage = clean(text[atom.span.start:atom.span.end])
            label = atom.text.removesuffix(passage)
            assert label == "" or (label.endswith(": ") and f"{label.strip()} " in text), name
            total += 1
    assert total > 300  # the notes hold statements, not just headings


def test_a_speakers_label_goes_with_each_sentence_of_the_line(generator):
    """A chat line's label says who speaks: every sentence of the line keeps it (read alone, "I ran…" names
    nobody), and a sentence is judged without it ("Caroline: That's so nice!" is a reaction, not a statement)."""
    text = ("Caroline: That's so nice! I ran a charity race for mental health last Saturday. It was really "
            "rewarding for the whole team.\nMelanie: Wow, that's cool!\nMy kids painted the fence blue.\n\n"
            "The fence needs a second coat before winter.\n\nAt 10:30: the ceremony starts in the hall.")
    atoms = generator.extract_atoms(text, reference_time=REFERENCE)
    assert [(a.type, a.text) for a in atoms] == [
        (AtomType.EVENT, "Caroline: I ran a charity race for mental health last Saturday."),
        (AtomType.FACT, "Caroline: It was really rewarding for the whole team."),
        (AtomType.FACT, "Melanie: My kids painted the fence blue."),
        (AtomType.FACT, "The fence needs a second coat before winter."),
        (AtomType.FACT, "At 10:30: the ceremony starts in the hall."),
    ]
    assert text[atoms[0].span.start:atoms[0].span.end] == "I ran a charity race for mental health last Saturday."
    # A line of one sentence: the span is the whole line, label included (its atom restates it all).
    [alone] = generator.extract_atoms("Caroline: I went to a support group yesterday.", reference_time=REFERENCE)
    assert (alone.span.start, alone.text) == (0, "Caroline: I went to a support group yesterday.")
    # A label can be the cue itself: it still makes a plan.
    plans = generator.extract_atoms("TODO: call Anna tomorrow about the grant.\n\nDeadline: the camera-ready "
                                    "version on 15 June 2027.", reference_time=REFERENCE)
    assert [(a.type, a.due) for a in plans] == [(AtomType.PLAN, datetime(2026, 12, 3, tzinfo=UTC)),
                                                (AtomType.PLAN, datetime(2027, 6, 15, tzinfo=UTC))]


def test_reactions_and_fillers_are_not_atoms(generator):
    """A sentence with fewer than two content words says nothing one could look for later."""
    atoms = generator.extract_atoms("I loved it. It's special to me. Take a look at this. Nah, I haven't.\n\n"
                                    "Being a mom is awesome. I had a blast there last month.",
                                    reference_time=REFERENCE)
    assert [a.text for a in atoms] == ["Being a mom is awesome.", "I had a blast there last month."]


def test_extraction_summaries_and_keywords_are_the_same_on_every_run(generator, notes):
    text = notes["paper-summary-morphy-charge-storage.md"]
    assert generator.extract_atoms(text, reference_time=REFERENCE) == \
        BuiltinGenerator().extract_atoms(text, reference_time=REFERENCE)
    assert generator.summarize(text, 60) == BuiltinGenerator().summarize(text, 60)
    assert generator.keywords(text, 10) == BuiltinGenerator().keywords(text, 10)


def test_threads_get_the_same_answers_as_one_thread(generator, notes):
    """Generation runs in worker threads: the shared stemmer and dateparser give each the same answers."""
    texts = [notes[name] for name in NOTES[:4]] * 2

    def work(text: str) -> tuple:
        return generator.keywords(text, 8), generator.summarize(text, 40), \
            generator.extract_atoms(text, reference_time=REFERENCE)

    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(work, texts)) == [work(text) for text in texts]


def test_headings_questions_greetings_and_formulas_are_not_atoms(generator, notes):
    atoms = generator.extract_atoms(
        "# Weekly notes\n\nHey Mel! Good to see you!\n\nHow have you been?\n\n$$x^2 + y^2 = z^2$$\n\n"
        "Examples 1.\n\n> The capacitor array stores charge\n> for the sensor node.\n",
        reference_time=REFERENCE)
    assert [(a.type, a.text) for a in atoms] == [
        (AtomType.FACT, "The capacitor array stores charge for the sensor node.")]
    # Inline code and math are neither cues nor dates.
    [atom] = generator.extract_atoms("Write the day as `2025-03-04` and it will be read as $t_{2025}$.",
                                     reference_time=REFERENCE)
    assert atom.type is AtomType.FACT


def test_an_event_is_dated_by_the_date_it_states(generator):
    text = ("We submitted the revised manuscript on 3 March 2025. "
            "The ESS diagnostic was introduced by Kong, Liu, and Wong (1994). "
            "I met the reviewers last Tuesday at 3pm.")
    events = generator.extract_atoms(text, reference_time=REFERENCE)
    assert [(a.type, a.when) for a in events] == [
        (AtomType.EVENT, datetime(2025, 3, 3, tzinfo=UTC)),
        (AtomType.EVENT, datetime(1994, 1, 1, tzinfo=UTC)),
        (AtomType.EVENT, datetime(2026, 12, 1, 15, 0, tzinfo=UTC)),
    ]


def test_a_plan_is_due_on_the_date_it_names(generator):
    text = ("I will send the report to Anna by Friday. "
            "Nous allons publier le rapport vendredi prochain. "
            "The deadline for the camera-ready version is 15 June 2027. "
            "The report was due last Friday.")
    atoms = generator.extract_atoms(text, reference_time=REFERENCE)
    assert [(a.type, a.due, a.status) for a in atoms[:3]] == [
        (AtomType.PLAN, datetime(2026, 12, 4, tzinfo=UTC), "planned"),
        (AtomType.PLAN, datetime(2026, 12, 4, tzinfo=UTC), "planned"),
        (AtomType.PLAN, datetime(2027, 6, 15, tzinfo=UTC), "planned"),
    ]
    # Said in the past tense of a past date, a due date reports what happened: an event, not a plan.
    assert atoms[3].type is AtomType.EVENT and atoms[3].when == datetime(2026, 11, 27, tzinfo=UTC)


def test_a_cue_without_a_date_gives_a_fact_not_an_invented_time(generator):
    atoms = generator.extract_atoms("I am going to learn the guitar. I went to a support group.",
                                    reference_time=REFERENCE)
    assert [a.type for a in atoms] == [AtomType.FACT, AtomType.FACT]


def test_dates_are_read_without_the_network(generator, monkeypatch):
    """dateparser reads its language data from the package: extraction opens no socket (French included)."""

    def refuse(*_args, **_kwargs):
        raise AssertionError("the generator opened a socket")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    atoms = generator.extract_atoms("Nous avons publié le rapport hier. We will meet next Monday at 10:30.",
                                    reference_time=REFERENCE, timezone="Europe/Paris")
    assert [a.type for a in atoms] == [AtomType.EVENT, AtomType.PLAN]


def test_naive_times_are_read_in_the_zone_given(generator):
    paris = ZoneInfo("Europe/Paris")
    [atom] = generator.extract_atoms("We met yesterday at 10:30.", reference_time=datetime(2026, 7, 2, 12, 0),
                                     timezone="Europe/Paris")
    assert atom.when == datetime(2026, 7, 1, 10, 30, tzinfo=paris)
    assert atom.when.utcoffset() == timedelta(hours=2)
    # A time stated with its own zone keeps its instant, shown in the zone the text is read in.
    [stated] = generator.extract_atoms("We met yesterday at 3pm EST.", reference_time=datetime(2026, 12, 2, 12, 0),
                                       timezone="Europe/Paris")
    assert stated.when == datetime(2026, 12, 1, 20, 0, tzinfo=UTC) and stated.when.tzinfo == paris
    new_york_winter = timezone(timedelta(hours=-5))
    [offset] = generator.extract_atoms("We met yesterday at 3pm.",
                                       reference_time=datetime(2026, 12, 2, 12, 0, tzinfo=new_york_winter))
    assert offset.when == datetime(2026, 12, 1, 20, 0, tzinfo=UTC)


def test_locomo_yesterday_resolves_against_the_session_date(generator, sessions):
    """Every LoCoMo turn saying "yesterday" in the past tense: an event on the day before its session."""
    checked = 0
    for when, turns in sessions:
        for turn in turns:
            if "yesterday" not in turn["text"].lower():
                continue
            for atom in generator.extract_atoms(turn["text"], reference_time=when):
                sentence = turn["text"][atom.span.start:atom.span.end].lower()
                if atom.type is AtomType.EVENT and "yesterday" in sentence:
                    assert atom.when.date() == when.date() - timedelta(days=1), sentence
                    checked += 1
    assert checked >= 30


def test_locomo_last_weekday_is_the_weekday_before_the_session(generator, sessions):
    """"last Friday" said on a session day is a Friday in the week before it."""
    days = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    checked = 0
    for when, turns in sessions:
        for turn in turns:
            lowered = turn["text"].lower()
            named = [i for i, day in enumerate(days) if f"last {day}" in lowered]
            if len(named) != 1:
                continue
            for atom in generator.extract_atoms(turn["text"], reference_time=when):
                if atom.type is AtomType.EVENT and f"last {days[named[0]]}" in \
                        turn["text"][atom.span.start:atom.span.end].lower():
                    assert atom.when.weekday() == named[0]
                    assert 1 <= (when.date() - atom.when.date()).days <= 7
                    checked += 1
    assert checked >= 10


def test_summaries_are_whole_sentences_within_the_budget(generator, notes):
    for name, text in notes.items():
        summary = generator.summarize(text, 50)
        assert len(summary.split()) <= 50 and len(summary) <= 50 * CHARS_PER_WORD + 1, name
        statements = {clean(s.text) for s in split_sentences(text)}
        if summary and not summary.endswith("…"):
            assert any(summary.startswith(s) for s in statements), name
    assert generator.summarize(notes["empty-note.md"], 50) == ""


def test_the_seed_summary_names_its_subject(generator):
    seed = SHARED / "seeds" / "002_94777b385e415d72.txt"
    if not seed.exists():
        pytest.skip("the seed texts are not here")
    text = seed.read_text(encoding="utf-8")
    keywords = [k.casefold() for k in generator.keywords(text, 10)]
    assert any("memory" in k or "atom" in k for k in keywords), keywords
    assert generator.summarize(text, 80)


def test_keywords_are_distinct_phrases_of_the_text(generator, notes):
    for name, text in notes.items():
        found = generator.keywords(text, 12)
        assert len(found) <= 12
        assert len({k.casefold() for k in found}) == len(found), name
        written = "".join(clean(text).split()).casefold()
        for keyword in found:  # CJK words have no spaces between them: compare without blanks
            assert "".join(keyword.split()).casefold() in written, (name, keyword)
    assert "Morphy" in generator.keywords(notes["paper-summary-morphy-charge-storage.md"], 5)
    assert "Riesz representation theorem" in generator.keywords(notes["math-riesz-representation-theorem.md"], 5)


@pytest.mark.parametrize("text", [
    "",
    "\x00\x01\x02\ufffd" * 5000,
    bytes(range(256)).decode("latin-1") * 400,
    "word " * 200_000,  # one line of a million characters
    "ذهبنا إلى المؤتمر أمس وكان رائعًا. سنرسل التقرير يوم الجمعة.",
    "我们昨天去了会议。下周五我们将提交报告。今天天气很好，我们讨论了很多问题。",
    "broken \udce9 surrogate. We met on 3 March 2025.",
])
def test_hostile_text_gets_an_answer_never_an_exception(generator, text):
    atoms = generator.extract_atoms(text, reference_time=REFERENCE)
    assert all(a.span.end <= len(text) for a in atoms)
    assert len(generator.summarize(text, 30).split()) <= 30
    assert len(generator.keywords(text, 5)) <= 5


def test_a_text_dated_on_every_line_is_bounded_and_keeps_every_sentence(generator, monkeypatch, caplog):
    """Past MAX_DATE_SEARCHES (lowered here to 5) dated sentences stay facts, with a warning; a sentence
    repeated is searched once, so a log of one repeated line is dated throughout."""
    monkeypatch.setattr("vancetope_desktop.generation.extract.MAX_DATE_SEARCHES", 5)
    text = "".join(f"We met on {day} March 2025. " for day in range(1, 13))
    atoms = generator.extract_atoms(text, reference_time=REFERENCE)
    assert [a.type for a in atoms] == [AtomType.EVENT] * 5 + [AtomType.FACT] * 7
    assert "7 later sentences" in caplog.text
    repeated = generator.extract_atoms("We met on 3 March 2025. " * 40, reference_time=REFERENCE)
    assert [a.type for a in repeated] == [AtomType.EVENT] * 40


@pytest.mark.parametrize("call", [
    lambda g: g.extract_atoms(b"bytes", reference_time=REFERENCE),
    lambda g: g.extract_atoms("text", reference_time="yesterday"),
    lambda g: g.extract_atoms("text", reference_time=REFERENCE, timezone="Mars/Olympus"),
    lambda g: g.summarize("text", 0),
    lambda g: g.keywords(None, 5),
    lambda g: g.keywords("text", True),
    lambda g: g.write_digest({"day": date(2026, 12, 1)}),
])
def test_bad_arguments_raise_a_typed_error(generator, call):
    with pytest.raises(BadGeneratorInput):
        call(generator)
