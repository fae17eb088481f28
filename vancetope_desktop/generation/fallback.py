"""The fallback rule (issue 13): a model's answer is checked, and a failing item is answered by the built-in.

A model that raises, times out (each model implementation enforces its own time limit and raises
``GeneratorTimeout``), or replies something that does not validate loses its answer for that one item: the
fallback generator (the built-in one) answers instead and the failure is logged. The input is never lost,
unlike a graph memory that drops the whole input on one malformed reply.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime, tzinfo
from typing import TypeVar

from pydantic import ValidationError

from ..core.atoms import AtomDraft, SourceSpan
from .base import (
    AtomsReply,
    BadGeneratorInput,
    ChatSummaryRequest,
    DigestRequest,
    Generator,
    GeneratorError,
    MalformedReply,
)
from .chat_summary import keep_entities

log = logging.getLogger(__name__)

T = TypeVar("T")


def check_text(text: object) -> str:
    """``text`` itself when it is a ``str``.

    Raises:
        BadGeneratorInput: anything else (bytes included: the caller decodes, with the file's encoding).
    """
    if not isinstance(text, str):
        raise BadGeneratorInput(f"a generator reads text, not {type(text).__name__}")
    return text


def check_count(value: object, what: str) -> int:
    """``value`` when it is a positive int (``max_words``, ``k``).

    Raises:
        BadGeneratorInput: naming ``what``.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise BadGeneratorInput(f"{what} must be a positive whole number, not {value!r}")
    return value


def check_chat_request(request: object) -> ChatSummaryRequest:
    """``request`` when it is a :class:`ChatSummaryRequest` with a positive ``max_words``.

    Raises:
        BadGeneratorInput: anything else (the model's own validation allows any int, so that the refusal is
            this error rather than a pydantic one at the caller).
    """
    if not isinstance(request, ChatSummaryRequest):
        raise BadGeneratorInput(f"a conversation summary is made from a ChatSummaryRequest, not "
                                f"{type(request).__name__}")
    check_count(request.max_words, "max_words")
    return request


def check_drafts(drafts: object, text: str) -> list[AtomDraft]:
    """``drafts`` when it is a list of :class:`AtomDraft` whose spans lie inside ``text``.

    Raises:
        MalformedReply: something else, or a span past the end of the text.
    """
    if not isinstance(drafts, list) or not all(isinstance(d, AtomDraft) for d in drafts):
        raise MalformedReply("the generator returned something else than a list of atom drafts")
    for draft in drafts:
        if draft.span is not None and draft.span.end > len(text):
            raise MalformedReply(f"an atom's span ({draft.span.start}-{draft.span.end}) runs past the end of "
                                 f"the text ({len(text)} characters)")
    return drafts


def drafts_from_reply(reply: AtomsReply, text: str, zone: tzinfo = UTC) -> list[AtomDraft]:
    """A model's validated atoms as drafts on ``text``: each quote found in ``text`` becomes the span
    (whitespace-insensitive search is left out on purpose: a quote not copied verbatim gets no span), and a
    time given without a zone is read in ``zone`` (the text's, as ``extract_atoms`` was told), so that every
    draft's times are aware, as the built-in generator's are.

    Raises:
        MalformedReply: an atom inconsistent with its type (an event without ``when``, a plan without ``due``).
    """
    drafts: list[AtomDraft] = []
    searched_from = 0
    for atom in reply.atoms:
        span = None
        quote = atom.quote.strip()
        if quote:
            # Atoms come in text order: search onwards first, so a repeated sentence maps to its next use.
            start = text.find(quote, searched_from)
            if start < 0:
                start = text.find(quote)
            if start >= 0:
                span = SourceSpan(start=start, end=start + len(quote))
                searched_from = start
        try:
            drafts.append(AtomDraft(type=atom.type, text=atom.text.strip(), span=span, when=_aware(atom.when, zone),
                                    due=_aware(atom.due, zone), status=atom.status))
        except ValidationError as error:
            raise MalformedReply(f"a model atom does not hold together: {error.errors()[0].get('msg')}") from None
    return drafts


def _aware(value: datetime | None, zone: tzinfo) -> datetime | None:
    return value.replace(tzinfo=zone) if value is not None and value.tzinfo is None else value


class FallbackGenerator:
    """A :class:`Generator` that asks ``primary`` and, for any item it fails, ``fallback``.

    Args:
        primary: the chosen generator (a model).
        fallback: the generator that answers when ``primary`` fails: the built-in one.

    Attributes:
        name: ``primary``'s name.
        fallbacks: how many items ``fallback`` answered since this object was made (for progress reports).

    Bad arguments (a non-string text, a non-positive size) raise :class:`BadGeneratorInput` before either
    generator is asked: the fallback could not answer them either.
    """

    def __init__(self, primary: Generator, fallback: Generator) -> None:
        self.primary = primary
        self.fallback = fallback
        self.name = primary.name
        self.fallbacks = 0

    def summarize(self, text: str, max_words: int) -> str:
        """See :meth:`Generator.summarize`; a reply over ``max_words`` words is cut there."""
        text, max_words = check_text(text), check_count(max_words, "max_words")

        def checked(answer: object) -> str:
            if not isinstance(answer, str):
                raise MalformedReply("the generator returned something else than a summary string")
            return " ".join(answer.split()[:max_words])

        return self._ask("summarize", lambda g: checked(g.summarize(text, max_words)))

    def keywords(self, text: str, k: int) -> list[str]:
        """See :meth:`Generator.keywords`; blanks and repeats (case-insensitive) are dropped, the rest cut at ``k``."""
        text, k = check_text(text), check_count(k, "k")

        def checked(answer: object) -> list[str]:
            if not isinstance(answer, list) or not all(isinstance(word, str) for word in answer):
                raise MalformedReply("the generator returned something else than a list of keywords")
            kept: dict[str, str] = {}
            for word in answer:
                word = " ".join(word.split())
                if word and word.casefold() not in kept:
                    kept[word.casefold()] = word
            return list(kept.values())[:k]

        return self._ask("keywords", lambda g: checked(g.keywords(text, k)))

    def extract_atoms(self, text: str, *, reference_time: datetime,
                      timezone: str | None = None) -> list[AtomDraft]:
        """See :meth:`Generator.extract_atoms`; drafts whose spans leave the text count as a failure."""
        text = check_text(text)
        if not isinstance(reference_time, datetime):
            raise BadGeneratorInput(f"reference_time must be a datetime, not {type(reference_time).__name__}")
        return self._ask("extract_atoms", lambda g: check_drafts(
            g.extract_atoms(text, reference_time=reference_time, timezone=timezone), text))

    def write_digest(self, request: DigestRequest) -> str:
        """See :meth:`Generator.write_digest`; a blank writeup counts as a failure."""
        if not isinstance(request, DigestRequest):
            raise BadGeneratorInput(f"a digest is written from a DigestRequest, not {type(request).__name__}")

        def checked(answer: object) -> str:
            if not isinstance(answer, str) or not answer.strip():
                raise MalformedReply("the generator returned an empty writeup")
            return answer

        return self._ask("write_digest", lambda g: checked(g.write_digest(request)))

    def summarize_chat(self, request: ChatSummaryRequest) -> str:
        """See :meth:`Generator.summarize_chat`. Whichever generator answers, its answer goes through the entity
        guard (``chat_summary.keep_entities``: the input's names and numbers it lacks are listed on its last
        line, and the whole is held to ``max_words``); an answer that is not a string counts as a failure. Empty
        turns give ``request.previous`` back without asking either generator."""
        request = check_chat_request(request)
        if not request.turns:
            return request.previous

        def checked(answer: object) -> str:
            if not isinstance(answer, str):
                raise MalformedReply("the generator returned something else than a conversation summary")
            return keep_entities(answer, request)

        return self._ask("summarize_chat", lambda g: checked(g.summarize_chat(request)))

    def _ask(self, task: str, call: Callable[[Generator], T]) -> T:
        try:
            return call(self.primary)
        except GeneratorError as error:
            reason = str(error)
        except Exception as error:  # a bug in a model adapter must not cost the item: log it with its trace
            log.exception("generator %s failed on %s", self.primary.name, task)
            reason = f"{type(error).__name__}: {error}"
        self.fallbacks += 1
        log.warning("generator %s: %s failed (%s); the %s generator answered instead",
                    self.primary.name, task, reason, self.fallback.name)
        return call(self.fallback)

