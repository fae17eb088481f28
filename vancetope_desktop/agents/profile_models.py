"""The source profile in the tools (issue 13): ``memory_profile``'s arguments and result, and the profile as
``memory_read`` gives it (run by :class:`.tools.MemoryTools` over ``services.source_profile``)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from ..core.documents import DocumentInfo
from ..core.profiles import is_current, profile_of, suggested_topics
from ..services.source_profile import ProfileOutcome
from .tool_input import ToolInput

MAX_PROFILES = 50
"""The most documents one ``memory_profile`` call profiles (each takes the generator a moment; a model seconds)."""


class ProfileInput(ToolInput):
    """``memory_profile``: write the summary, keywords and suggested topics of your sources."""

    doc_ids: list[str] = Field(default_factory=list, max_length=MAX_PROFILES,
                               description="Your documents to profile (again).")
    missing: bool = Field(default=False, description="Instead of doc_ids: your sources with no profile, or whose "
                          "text changed since theirs, newest first.")
    limit: int = Field(default=20, ge=1, le=MAX_PROFILES, description="With missing: at most this many.")


class SourceProfileView(BaseModel):
    """A source's profile as the tools show it."""

    summary: str = Field(description="A few sentences on what the source says.")
    keywords: list[str] = Field(default_factory=list, description="Its key phrases, most relevant first.")
    suggested_topics: list[str] = Field(default_factory=list, description="Topics in tag form it does not carry "
                                        "as tags yet (add one with memory_tag; it is then no longer suggested).")
    generator: str = Field(description="What wrote it: builtin, smollm2, openai:<model>, mcp.")
    fallback: bool = Field(default=False, description="True when the built-in generator answered part of it "
                           "because the model failed.")
    from_version: int = Field(description="The document version it describes.")
    current: bool = Field(description="False when the text changed since (memory_profile remakes it).")

    @classmethod
    def of(cls, doc: DocumentInfo) -> SourceProfileView | None:
        """``doc``'s profile, or None when it has none."""
        profile = profile_of(doc.metadata)
        if profile is None:
            return None
        return cls(summary=profile.summary, keywords=profile.keywords,
                   suggested_topics=suggested_topics(profile, doc.tags), generator=profile.generator,
                   fallback=profile.fallback, from_version=profile.from_version,
                   current=is_current(profile, doc.content_hash))


class ProfileResult(BaseModel):
    """What ``memory_profile`` did to each document, in order."""

    outcomes: list[ProfileOutcome] = Field(default_factory=list, description="Per document: made, current "
                                           "(already describes its text), skipped (not a source: atoms, "
                                           "annotations, digests; or no text) or failed, with the profile.")
    summary: str = Field(description="One line: how many were made, current, skipped, failed.")
