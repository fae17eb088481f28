"""The generator interface (issue 13): what turns text into summaries, keywords, atom drafts and digest writeups.

Every implementation — the built-in one (``generation.builtin``: no model, deterministic, always there), a
local GGUF model, an OpenAI-compatible endpoint, MCP sampling — follows :class:`Generator`. Callers hold a
:class:`~vancetope_desktop.generation.fallback.FallbackGenerator` around the chosen one, so that a model
that fails, times out or replies garbage costs one item its model answer, never the item itself.

Model implementations ask for JSON matching the ``*Reply`` schemas below and validate the reply with
:func:`parse_reply`; a reply that does not validate raises :class:`MalformedReply` (a ``GeneratorError``),
which the fallback wrapper answers with the built-in generator for that call.

Pure Python: no Qt, no services, no store. Offsets are Python ``str`` indices (code points).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..core.atoms import AtomDraft, AtomType, PlanStatus
from ..core.errors import VancetopeError


class GeneratorError(VancetopeError):
    """A generator could not answer for one item (the message says which generator and why).

    The fallback wrapper catches it and answers with the built-in generator; anything else a generator
    raises is a bug in it, and is caught and logged the same way (never lost input).
    """


class GeneratorUnavailable(GeneratorError):
    """The generator cannot run at all here (a model file missing, an endpoint unreachable, no MCP client)."""


class GeneratorTimeout(GeneratorError):
    """The generator took longer than its time limit for one item and was given up on."""


class MalformedReply(GeneratorError):
    """A model's reply was not JSON matching the schema asked for (the message quotes the first problem)."""


class BadGeneratorInput(GeneratorError):
    """The input itself cannot be worked on (not a string, a non-positive size); the built-in raises it too."""


# --- The digest's input: the day's material, as plain values (the digest service fills them from the store).

class DigestSource(BaseModel):
    """One source document that arrived or changed on the digest's day.

    Attributes:
        id: the document id (``doc_…``); the writeup links it as ``[[id|title]]``.
        title: its title.
        summary: its stored summary ("" when it has none yet).
        keywords: its stored keywords, most relevant first.
    """

    model_config = ConfigDict(frozen=True)

    id: str = Field(min_length=1)
    title: str = ""
    summary: str = ""
    keywords: tuple[str, ...] = ()


class DigestAtom(BaseModel):
    """One atom of the day (new or changed), with the source it came from.

    Attributes:
        id: the atom's document id; linked as ``[[id|text]]``.
        draft: the atom itself (type, text, when / due, status).
        source_id: the id of the source it was read from, when known.
    """

    model_config = ConfigDict(frozen=True)

    id: str = Field(min_length=1)
    draft: AtomDraft
    source_id: str | None = None


class DigestRequest(BaseModel):
    """What a digest writeup is drafted from: one scope's material of one day.

    Attributes:
        day: the day written up (the scope's local calendar day).
        scope: the scope's path, for the heading.
        sources: the day's sources, in the order they arrived.
        atoms: the day's atoms, in the order they were drafted.
    """

    model_config = ConfigDict(frozen=True)

    day: date
    scope: str = ""
    sources: tuple[DigestSource, ...] = ()
    atoms: tuple[DigestAtom, ...] = ()


# --- A conversation's summary (issue 15): a range of chat turns folded into the rolling ARCHIVED_CHAT summary.

class ChatTurn(BaseModel):
    """One chat message to fold into a summary.

    Attributes:
        seq: its position in the conversation (the store's sequence number; only the order matters here).
        role: "user", "assistant", "tool", "system", or "stitch" (a topic stitch written by a range compaction).
        text: the message. A speaker's name may open it as a label (``"Caroline: I went…"``); the summary then
            attributes the turn's sentences to that name rather than to the role.
    """

    model_config = ConfigDict(frozen=True)

    seq: int
    role: str
    text: str


class ChatSummaryRequest(BaseModel):
    """What a conversation summary is made of: the folded range and the summary it rolls up.

    Attributes:
        turns: the folded range, in conversation order.
        previous: the active summary the new one replaces and must carry forward ("" the first time).
        topic: a range recompaction's topic label; None for the sliding window.
        max_words: the summary's bound in words (whitespace-separated tokens), at least 1.
    """

    model_config = ConfigDict(frozen=True)

    turns: tuple[ChatTurn, ...] = ()
    previous: str = ""
    topic: str | None = None
    max_words: int


def digest_title(day: date) -> str:
    """The title of a day's writeup: ``"Digest — 2026-12-01"`` (issue 13; one per scope and day)."""
    return f"Digest — {day.isoformat()}"


@runtime_checkable
class Generator(Protocol):
    """What every generator does. Each method works on one item and either answers or raises
    :class:`GeneratorError`; none touches the network unless it is an endpoint the user configured.

    Attributes:
        name: a short name for logs and Settings ("builtin", "smollm2", "openai:<model>", "mcp").
    """

    name: str

    def summarize(self, text: str, max_words: int) -> str:
        """A summary of ``text`` in at most ``max_words`` words ("" for a text with nothing to summarise)."""
        ...

    def keywords(self, text: str, k: int) -> list[str]:
        """At most ``k`` keywords or key phrases of ``text``, most relevant first, without duplicates."""
        ...

    def extract_atoms(self, text: str, *, reference_time: datetime,
                      timezone: str | None = None) -> list[AtomDraft]:
        """The atoms stated in ``text``, in text order.

        Args:
            text: the source text (a note, a chunk, a turn).
            reference_time: when the text was written (relative dates such as "last Tuesday" or "by
                Friday" resolve against it). A naive value is read in ``timezone``.
            timezone: an IANA zone name ("Europe/Paris") for naive times in the text; None: UTC.

        Returns:
            Drafts whose ``span`` offsets index ``text`` (``text[span.start:span.end]`` is the passage read);
            ``document_id``, ``chunk_index`` and ``page`` are left for the caller.
        """
        ...

    def write_digest(self, request: DigestRequest) -> str:
        """The Markdown body of the day's writeup (the title is :func:`digest_title`), linking the day's
        sources and atoms by ``[[id|shown text]]``."""
        ...

    def summarize_chat(self, request: ChatSummaryRequest) -> str:
        """The Markdown summary of ``request.turns`` rolled up with ``request.previous``, at most
        ``request.max_words`` words: the range's decisions, open questions and main points, and a last
        ``Names and numbers:`` line (see ``generation.chat_summary``). Empty turns give ``previous`` back.
        """
        ...


# --- What a model is asked to reply (JSON schema: ``Model.model_json_schema()``), validated by parse_reply.

class SummaryReply(BaseModel):
    """A model's summary, of a text or of a conversation: ``{"summary": "…"}``."""

    model_config = ConfigDict(extra="ignore")

    summary: str


class KeywordsReply(BaseModel):
    """A model's keywords: ``{"keywords": ["…", …]}``."""

    model_config = ConfigDict(extra="ignore")

    keywords: list[str]


class AtomReply(BaseModel):
    """One atom as a model states it. Models are poor at character offsets, so they quote the passage and
    :func:`~vancetope_desktop.generation.fallback.drafts_from_reply` finds it in the text.

    Attributes:
        type: "fact", "event" or "plan".
        text: the statement.
        quote: the passage of the source it was read from, copied verbatim.
        when: an event's time, ISO 8601 (date or date-time).
        due: a plan's due date, ISO 8601.
        status: a plan's status ("planned" when absent).
    """

    model_config = ConfigDict(extra="ignore")

    type: AtomType
    text: str = Field(min_length=1)
    quote: str = ""
    when: datetime | None = None
    due: datetime | None = None
    status: PlanStatus | None = None


class AtomsReply(BaseModel):
    """A model's atoms: ``{"atoms": [AtomReply, …]}``."""

    model_config = ConfigDict(extra="ignore")

    atoms: list[AtomReply]


class DigestReply(BaseModel):
    """A model's writeup: ``{"markdown": "…"}``."""

    model_config = ConfigDict(extra="ignore")

    markdown: str = Field(min_length=1)


Reply = TypeVar("Reply", bound=BaseModel)


def parse_reply(schema: type[Reply], raw: str | bytes, *, generator: str = "model") -> Reply:
    """A model's raw JSON reply validated against ``schema``.

    Raises:
        MalformedReply: the reply is not JSON, or does not match ``schema`` (naming ``generator`` and the
            first problem found).
    """
    try:
        return schema.model_validate_json(raw)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ())) or "reply"
        raise MalformedReply(f"{generator} replied malformed JSON for {schema.__name__} "
                             f"({where}: {first.get('msg', 'invalid')})") from None
