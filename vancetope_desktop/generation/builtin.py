"""The built-in generator (issue 13's default): no model, deterministic, offline, always available.

Sentences by segtok (``sentences``), dates by dateparser (``dates``), plan and event cues by rule
(``cues``, ``extract``), keywords by sentence TF-IDF over candidate phrases (``keywords``), summaries by
TextRank (``summary``), digests laid out from the atoms (``digest``), conversation summaries by
``chat_summary``. Each call is bounded: atoms read the
first ``extract.MAX_EXTRACT_CHARS`` characters, summaries and keywords the first ``summary.MAX_TEXT_CHARS``.
"""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..core.atoms import AtomDraft
from . import chat_summary, digest, extract, keywords, summary
from .base import BadGeneratorInput, ChatSummaryRequest, DigestRequest
from .fallback import check_chat_request, check_count, check_text
from .sentences import split_sentences
from .summary import MAX_TEXT_CHARS


def resolve_zone(reference_time: datetime, timezone: str | None) -> tzinfo:
    """The zone a text's times are read in: ``timezone`` when given, else the reference time's, else UTC.

    Raises:
        BadGeneratorInput: ``timezone`` is not an IANA zone name.
    """
    if timezone:
        try:
            return ZoneInfo(timezone)
        except (ZoneInfoNotFoundError, ValueError):
            raise BadGeneratorInput(f"unknown time zone {timezone!r} (use an IANA name such as Europe/Paris)") \
                from None
    return reference_time.tzinfo or UTC


class BuiltinGenerator:
    """The built-in :class:`~vancetope_desktop.generation.base.Generator` (see the module doc).

    Bad arguments raise :class:`BadGeneratorInput`; any string, however hostile (empty, binary-ish, one
    1 MB line, RTL, CJK), gets an answer, possibly empty.
    """

    name = "builtin"

    def summarize(self, text: str, max_words: int) -> str:
        """See ``Generator.summarize``: the most central whole sentences within ``max_words`` words."""
        text, max_words = check_text(text), check_count(max_words, "max_words")
        return summary.summarize(split_sentences(text[:MAX_TEXT_CHARS]), max_words)

    def keywords(self, text: str, k: int) -> list[str]:
        """See ``Generator.keywords``: at most ``k`` phrases of one to three words, best first."""
        text, k = check_text(text), check_count(k, "k")
        return keywords.keywords(split_sentences(text[:MAX_TEXT_CHARS]), k)

    def extract_atoms(self, text: str, *, reference_time: datetime,
                      timezone: str | None = None) -> list[AtomDraft]:
        """See ``Generator.extract_atoms``; a naive ``reference_time`` is read in ``timezone`` (else UTC).

        Raises:
            BadGeneratorInput: a text that is not a string, a reference time that is not a datetime, an
                unknown zone.
        """
        text = check_text(text)
        if not isinstance(reference_time, datetime):
            raise BadGeneratorInput(f"reference_time must be a datetime, not {type(reference_time).__name__}")
        zone = resolve_zone(reference_time, timezone)
        reference = reference_time if reference_time.tzinfo else reference_time.replace(tzinfo=zone)
        return extract.extract(text, reference, zone)

    def write_digest(self, request: DigestRequest) -> str:
        """See ``Generator.write_digest``: the day laid out by kind, linking every source and atom."""
        if not isinstance(request, DigestRequest):
            raise BadGeneratorInput(f"a digest is written from a DigestRequest, not {type(request).__name__}")
        return digest.write(request)

    def summarize_chat(self, request: ChatSummaryRequest) -> str:
        """See ``Generator.summarize_chat``: ``chat_summary.summarize`` (extractive; its names line is the
        entity guard's).

        Raises:
            BadGeneratorInput: ``request`` is not a ChatSummaryRequest, or its ``max_words`` is not positive.
        """
        return chat_summary.summarize(check_chat_request(request))
