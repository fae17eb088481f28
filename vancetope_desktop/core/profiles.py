"""A source's profile (issue 13, "The three layers"): its short summary, keywords and suggested topics.

Stored in the document's metadata under :data:`PROFILE_KEY` (no schema change), made by
``services.source_profile`` at import and on demand, and shown in the app's Details, ``vancetope memory read``
and the tools' ``memory_read``. Plain values: no store, no Qt.

**Which documents are sources** (:func:`is_source`): what a person or an agent brought in as material — files
(PDF, Word, HTML, text…), notes, results, structured data, and references with an abstract (a bare citation has
nothing to summarise). Not the atoms (fact, event, plan: they are one statement each, read *from* sources),
annotations (a highlight belongs to its PDF), folders, the digest's writeups (the compiled layer above the
sources) nor documents in the trash.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .documents import DocumentStatus, DocumentType
from .errors import InvalidInput
from .tags import normalize_tag

PROFILE_KEY = "profile"
"""Metadata key of a source's profile: a :class:`SourceProfile` as JSON."""

WRITEUP_KEY = "digest"
"""Metadata key that marks a digest's writeup (``services.digest.DIGEST_KEY``, which imports this layer's
services and so cannot be imported here; ``tests/services/test_source_profile.py`` checks they agree)."""

SOURCE_TYPES = frozenset({DocumentType.FILE, DocumentType.NOTE, DocumentType.RESULT, DocumentType.STRUCTURED,
                          DocumentType.REFERENCE})
"""Document types that may be sources (see the module doc; a reference only with an abstract)."""


class SourceProfile(BaseModel):
    """What a source is about, as made from one version of its text.

    Attributes:
        summary: a few sentences (at most ``services.source_profile.SUMMARY_WORDS`` words; "" when the text has
            no sentence worth keeping).
        keywords: key phrases, most relevant first (about eight).
        topics: three to five short labels (one to three words) in tag form (``life-events``), to be added as
            tags; labels the library already uses come first (``services.source_profile.choose_topics``).
        generator: the generator that was asked (``builtin``, ``smollm2``, ``openai:<model>``, ``mcp``).
        fallback: True when the built-in generator answered some of it because that generator failed.
        made_at: when it was made (UTC).
        from_version: the document version it describes.
        content_hash: the document's content hash at that version: a profile whose hash differs from the
            document's describes older text (:func:`is_current`).
    """

    model_config = ConfigDict(frozen=True)

    summary: str = ""
    keywords: list[str] = Field(default_factory=list)
    topics: list[str] = Field(default_factory=list)
    generator: str = "builtin"
    fallback: bool = False
    made_at: datetime
    from_version: int = 1
    content_hash: str | None = None


def is_source(doc_type: DocumentType | str, metadata: Mapping[str, Any], status: DocumentStatus | str) -> bool:
    """Whether a document is source material that gets a profile (see the module doc)."""
    try:
        kind, state = DocumentType(doc_type), DocumentStatus(status)
    except ValueError:
        return False
    if kind not in SOURCE_TYPES or state is DocumentStatus.DELETED:
        return False
    if isinstance(metadata.get(WRITEUP_KEY), dict):
        return False
    return kind is not DocumentType.REFERENCE or bool(str(metadata.get("abstract") or "").strip())


def profile_of(metadata: Mapping[str, Any]) -> SourceProfile | None:
    """The profile stored in ``metadata``, or None (none stored, or a value that is not a profile: an edit by
    hand or another program never breaks a reader)."""
    value = metadata.get(PROFILE_KEY)
    if not isinstance(value, dict):
        return None
    try:
        return SourceProfile.model_validate(value)
    except ValidationError:
        return None


def is_current(profile: SourceProfile | None, content_hash: str | None) -> bool:
    """Whether ``profile`` describes the text whose hash is ``content_hash`` (False for None)."""
    return profile is not None and profile.content_hash == content_hash


def suggested_topics(profile: SourceProfile | None, tags: Iterable[str]) -> list[str]:
    """The profile's topics the document does not carry as tags yet: a topic added as a tag (or any tag below
    it) stops being suggested."""
    if profile is None:
        return []
    carried = set(tags)
    return [t for t in profile.topics if t not in carried and not any(c.startswith(t + "/") for c in carried)]


def topic_tag(label: str) -> str | None:
    """``label`` in tag form (``"Life events"`` → ``life-events``), or None when it cannot be a tag."""
    try:
        return normalize_tag(label)
    except InvalidInput:
        return None
