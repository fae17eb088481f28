"""The fallback rule: a model item that fails, times out or replies garbage is answered by the built-in.

The failing "models" here are the smallest objects that misbehave the way a model adapter can (raise, time
out, return the wrong shape, spans off the text); the answering side is always the real built-in generator.
"""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime

import pytest

from vancetope_desktop.core.atoms import AtomDraft, AtomType, SourceSpan
from vancetope_desktop.core.wikilinks import find_links
from vancetope_desktop.generation.base import (
    AtomsReply,
    BadGeneratorInput,
    DigestAtom,
    DigestRequest,
    DigestSource,
    Generator,
    GeneratorTimeout,
    KeywordsReply,
    MalformedReply,
    digest_title,
    parse_reply,
)
from vancetope_desktop.generation.builtin import BuiltinGenerator
from vancetope_desktop.generation.fallback import FallbackGenerator, drafts_from_reply

REFERENCE = datetime(2026, 12, 2, 9, 30, tzinfo=UTC)
TEXT = ("Morphy reconfigures an array of capacitors while charging. "
        "We presented the board at the workshop on 3 March 2025. "
        "I will send the camera-ready version by Friday.")


class _Misbehaving:
    """A model adapter that fails every call in one way: ``how`` is an exception to raise or a value to return."""

    name = "broken-model"

    def __init__(self, how: object) -> None:
        self.how = how

    def _answer(self, *_args, **_kwargs):
        if isinstance(self.how, BaseException):
            raise self.how
        return self.how

    summarize = keywords = write_digest = _answer

    def extract_atoms(self, text, *, reference_time, timezone=None):
        return self._answer()


def test_the_builtin_on_both_sides_answers_as_the_builtin():
    builtin = BuiltinGenerator()
    wrapped = FallbackGenerator(BuiltinGenerator(), builtin)
    assert isinstance(wrapped, Generator)
    expected = builtin.extract_atoms(TEXT, reference_time=REFERENCE)
    assert wrapped.extract_atoms(TEXT, reference_time=REFERENCE) == expected
    assert wrapped.summarize(TEXT, 20) == builtin.summarize(TEXT, 20)
    assert wrapped.keywords(TEXT, 5) == builtin.keywords(TEXT, 5)
    assert wrapped.fallbacks == 0


@pytest.mark.parametrize("how", [
    GeneratorTimeout("broken-model took longer than 30 s"),
    MalformedReply("not JSON"),
    RuntimeError("a bug in the adapter"),
    {"atoms": "garbage"},
    None,
])
def test_a_failing_model_item_is_answered_by_the_builtin_and_logged(how, caplog):
    builtin = BuiltinGenerator()
    wrapped = FallbackGenerator(_Misbehaving(how), builtin)
    with caplog.at_level(logging.WARNING, logger="vancetope_desktop.generation.fallback"):
        atoms = wrapped.extract_atoms(TEXT, reference_time=REFERENCE)
        keywords = wrapped.keywords(TEXT, 5)
        summary = wrapped.summarize(TEXT, 20)
    assert atoms == builtin.extract_atoms(TEXT, reference_time=REFERENCE)
    assert [a.type for a in atoms] == [AtomType.FACT, AtomType.EVENT, AtomType.PLAN]
    assert keywords == builtin.keywords(TEXT, 5)
    assert summary == builtin.summarize(TEXT, 20)
    assert wrapped.fallbacks == 3
    assert "broken-model" in caplog.text and "builtin generator answered" in caplog.text


def test_atom_spans_beyond_the_text_count_as_a_failed_reply():
    beyond = [AtomDraft(type=AtomType.FACT, text="Morphy exists.", span=SourceSpan(start=0, end=len(TEXT) + 5))]
    wrapped = FallbackGenerator(_Misbehaving(beyond), BuiltinGenerator())
    atoms = wrapped.extract_atoms(TEXT, reference_time=REFERENCE)
    assert wrapped.fallbacks == 1 and all(a.span.end <= len(TEXT) for a in atoms)


def test_a_model_reply_is_held_to_its_length_and_cleaned():
    reply = ["Morphy", " morphy ", "", "capacitor array", "board"]
    wrapped = FallbackGenerator(_Misbehaving(reply), BuiltinGenerator())
    assert wrapped.keywords(TEXT, 2) == ["Morphy", "capacitor array"]
    long = FallbackGenerator(_Misbehaving("word " * 100), BuiltinGenerator())
    assert len(long.summarize(TEXT, 10).split()) == 10 and long.fallbacks == 0


def test_bad_arguments_are_refused_before_any_generator_is_asked():
    wrapped = FallbackGenerator(_Misbehaving(RuntimeError("never asked")), BuiltinGenerator())
    with pytest.raises(BadGeneratorInput):
        wrapped.summarize(b"bytes", 10)
    with pytest.raises(BadGeneratorInput):
        wrapped.keywords(TEXT, 0)
    assert wrapped.fallbacks == 0


def test_parse_reply_names_the_first_problem():
    assert parse_reply(KeywordsReply, '{"keywords": ["a", "b"], "extra": 1}').keywords == ["a", "b"]
    with pytest.raises(MalformedReply, match=r"smollm2.*keywords"):
        parse_reply(KeywordsReply, '{"keywords": "a, b"}', generator="smollm2")
    with pytest.raises(MalformedReply):
        parse_reply(KeywordsReply, "Sure! Here are the keywords: a, b")


def test_a_model_quote_becomes_the_span_and_an_inconsistent_atom_a_failure():
    reply = parse_reply(AtomsReply, """{"atoms": [
        {"type": "event", "text": "The board was presented on 3 March 2025.",
         "quote": "We presented the board at the workshop on 3 March 2025.", "when": "2025-03-03"},
        {"type": "fact", "text": "Morphy reconfigures capacitors.", "quote": "not in the text"}]}""")
    event, fact = drafts_from_reply(reply, TEXT)
    assert TEXT[event.span.start:event.span.end] == "We presented the board at the workshop on 3 March 2025."
    assert event.when == datetime(2025, 3, 3, tzinfo=UTC) and fact.span is None
    with pytest.raises(MalformedReply):
        drafts_from_reply(parse_reply(AtomsReply, '{"atoms": [{"type": "plan", "text": "Send it."}]}'), TEXT)


def test_the_digest_links_every_source_and_atom_of_the_day():
    builtin = BuiltinGenerator()
    drafts = builtin.extract_atoms(TEXT, reference_time=REFERENCE)
    request = DigestRequest(
        day=date(2026, 12, 2), scope="Lab/Energy",
        sources=(DigestSource(id="doc_src", title="Morphy [notes]", summary=builtin.summarize(TEXT, 20),
                              keywords=tuple(builtin.keywords(TEXT, 3))),),
        atoms=tuple(DigestAtom(id=f"doc_atom{i}", draft=d, source_id="doc_src") for i, d in enumerate(drafts)))
    writeup = FallbackGenerator(builtin, builtin).write_digest(request)
    targets = [link.target for link in find_links(writeup)]
    assert set(targets) == {"doc_src", "doc_atom0", "doc_atom1", "doc_atom2"}
    assert "## Events" in writeup and "2025-03-03" in writeup and "due 2026-12-04 (planned)" in writeup
    assert writeup == builtin.write_digest(request)  # the same day written twice is the same writeup
    assert digest_title(date(2026, 12, 1)) == "Digest — 2026-12-01"
    # A person's naive time beside the generator's aware ones still sorts (naive counts as UTC).
    naive = AtomDraft(type=AtomType.EVENT, text="Board arrived.", when=datetime(2025, 1, 2))
    mixed = request.model_copy(update={"atoms": (*request.atoms, DigestAtom(id="doc_naive", draft=naive))})
    events = builtin.write_digest(mixed).split("## Events")[1].split("##")[0]
    assert events.index("2025-01-02") < events.index("2025-03-03")
    empty = builtin.write_digest(DigestRequest(day=date(2026, 12, 2)))
    assert empty.startswith("0 sources and 0 atoms")
