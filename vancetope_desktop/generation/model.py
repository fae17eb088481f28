"""A generator backed by a chat model: the prompts, the JSON schemas asked for, and the checks on the reply.

The three model-backed generators of issue 13 — a local GGUF model (``generation.local_model``), an
OpenAI-compatible endpoint (``generation.endpoint``) and the MCP client's own model (``agents.mcp_sampling``)
— differ only in how one chat turn is sent. Each is a :class:`ChatModel`; :class:`ModelGenerator` turns
the generator tasks into one turn each, asks for JSON matching a ``*Reply`` schema of ``generation.base``
(the runtime constrains the output to it where it can), and validates the reply with ``parse_reply``.

Anything short of a valid answer raises a :class:`~vancetope_desktop.generation.base.GeneratorError`
(unavailable, timeout, malformed), which :class:`~vancetope_desktop.generation.fallback.FallbackGenerator`
answers with the built-in generator for that one item: the input is never lost.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Protocol

from pydantic import BaseModel, Field, StringConstraints, create_model

from ..core.atoms import AtomDraft
from .base import (
    AtomsReply,
    BadGeneratorInput,
    ChatSummaryRequest,
    DigestReply,
    DigestRequest,
    GeneratorError,
    KeywordsReply,
    MalformedReply,
    SummaryReply,
    parse_reply,
)
from .builtin import resolve_zone
from .chat_summary import cut, transcript_line
from .fallback import check_chat_request, check_count, check_text, drafts_from_reply

MAX_INPUT_CHARS = 6_000
"""The longest text a model is given in one turn (about 1,500 tokens of English): SmolLM2-135M runs with a
4,096-token context here (``local_model.CONTEXT_TOKENS``), which must also hold the prompt and the reply. A
longer text is refused with a ``GeneratorError`` so the built-in generator answers it whole, rather than
the model seeing only its start (callers cut long sources into chunks first)."""

ATOMS_MAX_TOKENS = 768
"""The longest atom list a model may write for one text (about 12 atoms with their quotes): a small model that
loops is cut off there, and its item goes to the built-in generator."""

DEFAULT_TIMEOUT_S = 60.0
"""Seconds one model turn may take before it is given up on (``Settings.generator_timeout_s``): SmolLM2-135M
writes a 300-token atom list in 5-15 s on this busy 2-core machine (README, bench_model_generators.py)."""


class ChatModel(Protocol):
    """One chat turn with a model that replies JSON.

    Attributes:
        name: for logs and errors ("smollm2", "openai:llama3.2", "mcp").
    """

    name: str

    def complete(self, system: str, user: str, schema: type[BaseModel], *, max_tokens: int,
                 timeout_s: float) -> str:
        """The model's raw reply to ``system`` + ``user``, asked to be JSON matching ``schema``.

        Raises:
            GeneratorUnavailable: the model cannot be reached or loaded.
            GeneratorTimeout: no complete reply within ``timeout_s`` seconds.
            GeneratorError: any other failure of the runtime or endpoint (with its message).
        """
        ...


# No example values in the prompts: SmolLM2-135M copied a '["...", "..."]' example as its answer. The shape
# is held by the runtime's grammar, the endpoint's response_format, or the schema sent with a sampling request.
SUMMARY_SYSTEM = ("You summarise the user's text faithfully, in your own short sentences, without adding "
                  'anything. Reply with a JSON object whose "summary" is the summary.')
KEYWORDS_SYSTEM = ("You list the key phrases of the user's text: short noun phrases copied from the text, most "
                   'important first, each once. Reply with a JSON object whose "keywords" is the list.')
ATOMS_SYSTEM = (
    "You extract atoms from the user's text: one short self-contained statement each.\n"
    '- "fact": something true (a finding, a definition, a property).\n'
    '- "event": something that happened, with "when" as an ISO date or date-time.\n'
    '- "plan": something intended, with "due" as an ISO date or date-time.\n'
    'Each atom has "quote": the sentence of the text it comes from, copied exactly. '
    "Resolve relative dates against the reference time. Leave out greetings, questions and headings.\n"
    'Reply with a JSON object whose "atoms" is the list of atoms, each with "type", "text", "quote", and "when" '
    'or "due" when it has one.'
)
CHAT_SUMMARY_SYSTEM = (
    "You update the running summary of a conversation with the messages being folded into it. Keep every "
    "decision, every question still open, and the names, numbers and dates later messages may need; say who "
    "said what; leave out greetings and small talk; add nothing that was not said. Write Markdown with the "
    "sections Decisions:, Open questions: and Points:, each a list. "
    'Reply with a JSON object whose "summary" is the new summary.'
)
DIGEST_SYSTEM = (
    "You write a short Markdown digest of one day's research material. Keep every link exactly as given, "
    "in the form [[id|text]], and group the material under headings. "
    'Reply with a JSON object whose "markdown" is the digest.'
)


class ModelGenerator:
    """A :class:`~vancetope_desktop.generation.base.Generator` that asks a :class:`ChatModel` for each item.

    Args:
        chat: the model.
        timeout_s: seconds one item may take (the chat model enforces it).
        max_input_chars: the longest text handed to the model (see :data:`MAX_INPUT_CHARS`).

    Every method raises ``GeneratorError`` instead of answering badly (the caller's fallback answers);
    ``BadGeneratorInput`` for arguments no generator could work on.
    """

    def __init__(self, chat: ChatModel, *, timeout_s: float = DEFAULT_TIMEOUT_S,
                 max_input_chars: int = MAX_INPUT_CHARS) -> None:
        self.chat = chat
        self.name = chat.name
        self.timeout_s = timeout_s
        self.max_input_chars = max_input_chars

    def summarize(self, text: str, max_words: int) -> str:
        """See ``Generator.summarize``; the reply is cut at ``max_words`` words."""
        text, max_words = check_text(text), check_count(max_words, "max_words")
        if not text.strip():
            return ""
        reply = self._ask(SUMMARY_SYSTEM, f"Summarise in at most {max_words} words:\n\n{self._bounded(text)}",
                          _bounded_summary(max_words), max_tokens=min(3 * max_words + 40, 2048))
        return " ".join(reply.summary.split()[:max_words])

    def keywords(self, text: str, k: int) -> list[str]:
        """See ``Generator.keywords``: blanks and repeats dropped, cut at ``k``."""
        text, k = check_text(text), check_count(k, "k")
        if not text.strip():
            return []
        reply = self._ask(KEYWORDS_SYSTEM, f"At most {k} key phrases of:\n\n{self._bounded(text)}",
                          _bounded_keywords(k), max_tokens=min(24 * k + 40, 1024))
        kept: dict[str, str] = {}
        for phrase in reply.keywords:
            phrase = " ".join(phrase.split())
            if phrase and phrase.casefold() not in kept:
                kept[phrase.casefold()] = phrase
        return list(kept.values())[:k]

    def extract_atoms(self, text: str, *, reference_time: datetime,
                      timezone: str | None = None) -> list[AtomDraft]:
        """See ``Generator.extract_atoms``: spans are where each atom's quote is found verbatim in ``text``
        (an atom whose quote is not found keeps no span); naive times are read in ``timezone``.

        Raises:
            BadGeneratorInput: a non-string text, a reference time that is not a datetime, an unknown zone.
            MalformedReply: a reply off the schema, or an event without a time / a plan without a due date.
        """
        text = check_text(text)
        if not isinstance(reference_time, datetime):
            raise BadGeneratorInput(f"reference_time must be a datetime, not {type(reference_time).__name__}")
        zone = resolve_zone(reference_time, timezone)
        if not text.strip():
            return []
        reference = reference_time if reference_time.tzinfo else reference_time.replace(tzinfo=zone)
        user = (f"Reference time: {reference.isoformat(timespec='minutes')} ({reference:%A}).\n\n"
                f"Text:\n{self._bounded(text)}")
        reply = self._ask(ATOMS_SYSTEM, user, AtomsReply, max_tokens=ATOMS_MAX_TOKENS)
        return drafts_from_reply(reply, text, zone)

    def write_digest(self, request: DigestRequest) -> str:
        """See ``Generator.write_digest``. A writeup that drops a link to one of the day's sources or atoms
        is refused (``MalformedReply``): the digest must reach all of the day's material."""
        if not isinstance(request, DigestRequest):
            raise BadGeneratorInput(f"a digest is written from a DigestRequest, not {type(request).__name__}")
        links = [f"[[{s.id}|{s.title or s.id}]]" + (f": {s.summary}" if s.summary else "") for s in request.sources]
        links += [f"[[{a.id}|{a.draft.text}]] ({a.draft.type.value}"
                  + (f", {(a.draft.when or a.draft.due).astimezone(UTC):%Y-%m-%d}" if a.draft.when or a.draft.due
                     else "") + ")" for a in request.atoms]
        user = self._bounded(f"Day: {request.day.isoformat()}, scope: {request.scope or '-'}\n\n" + "\n".join(links))
        reply = self._ask(DIGEST_SYSTEM, user, DigestReply, max_tokens=1024)
        missing = [item.id for item in (*request.sources, *request.atoms) if f"[[{item.id}|" not in reply.markdown]
        if missing:
            raise MalformedReply(f"{self.name}'s digest leaves out {len(missing)} of the day's items "
                                 f"(first: {missing[0]})")
        return reply.markdown

    def summarize_chat(self, request: ChatSummaryRequest) -> str:
        """See ``Generator.summarize_chat``: the previous summary, the topic and the turns (one line each,
        ``chat_summary.transcript_line``) in one turn; the reply is cut at ``max_words`` words. Not
        entity-guarded here: ``FallbackGenerator.summarize_chat`` guards every generator's answer.

        Raises:
            BadGeneratorInput: not a ChatSummaryRequest, or a non-positive ``max_words``.
            GeneratorError: the prompt is longer than ``max_input_chars`` (the built-in then folds the range).
        """
        request = check_chat_request(request)
        if not request.turns:
            return request.previous
        lines = [transcript_line(turn) for turn in request.turns]
        user = (f"Previous summary:\n{request.previous.strip() or '(none)'}\n\n"
                + (f"Topic of the folded messages: {request.topic}\n\n" if request.topic else "")
                + "Messages to fold in:\n" + "\n".join(lines)
                + f"\n\nWrite the new summary in at most {request.max_words} words.")
        reply = self._ask(CHAT_SUMMARY_SYSTEM, self._bounded(user), _bounded_summary(request.max_words),
                          max_tokens=min(3 * request.max_words + 40, 2048))
        return cut(reply.summary.strip(), request.max_words)

    def _bounded(self, text: str) -> str:
        if len(text) > self.max_input_chars:
            raise GeneratorError(f"{self.name}: the text is {len(text):,} characters, more than the "
                                 f"{self.max_input_chars:,} a model turn takes")
        return text

    def _ask(self, system: str, user: str, schema: type[BaseModel], *, max_tokens: int) -> BaseModel:
        raw = self.chat.complete(system, user, schema, max_tokens=max_tokens, timeout_s=self.timeout_s)
        return parse_reply(schema, _unfenced(raw), generator=self.name)


def _bounded_summary(max_words: int) -> type[SummaryReply]:
    """``SummaryReply`` whose summary holds at most ``max_words`` words' worth of characters (8 each): in the
    schema, so a grammar-held model closes its string there instead of looping (SmolLM2-135M repeated its
    summary's last sentence until the token limit on a corpus note)."""
    return create_model("SummaryReply", __base__=SummaryReply,
                        summary=(str, Field(max_length=8 * max_words)))  # type: ignore[call-overload]


def _bounded_keywords(k: int) -> type[KeywordsReply]:
    """``KeywordsReply`` with at most ``k`` phrases of at most 80 characters: the bounds go into the JSON
    schema, so a grammar-held model ends its list there instead of repeating phrases until its token limit
    (SmolLM2-135M does)."""
    phrase = Annotated[str, StringConstraints(max_length=80)]
    return create_model("KeywordsReply", __base__=KeywordsReply,
                        keywords=(list[phrase], Field(max_length=k)))  # type: ignore[valid-type]


def _unfenced(raw: str) -> str:
    """``raw`` without a Markdown code fence around it: models not held to a grammar (an endpoint without
    schema support, an MCP client's model) often wrap their JSON in ```json … ```."""
    text = raw.strip()
    if text.startswith("```") and text.endswith("```") and len(text) >= 6:
        text = text[3:-3]
        return text.split("\n", 1)[1] if text.lstrip().startswith(("json", "JSON")) and "\n" in text else text
    return raw
