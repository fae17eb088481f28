"""Documents (seed §3.1): the value objects the services hand to the CLI, the app and agents.

These are plain pydantic models, detached from the database: adapters may keep them, send them
across threads, or dump them as JSON (``model_dump(mode="json")``).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from .memories import MemoryType


class DocumentType(StrEnum):
    """What a document is (seed §2 table, plus ``folder`` from §3.2, ``annotation``: a highlight or a page
    note on a PDF, kept as a document of its own so that search finds it (``services.annotations``), the
    atoms of issue 13: ``fact``, ``event`` and ``plan`` are the values of ``core.atoms.AtomType``, and
    ``topic``: a node of a scope's topic tree, structural like a folder (issue 14, ``core.topics``), and
    ``message``: one message of a process's conversation (issue 15, ``core.conversations``))."""

    NOTE = "note"
    FILE = "file"
    RESULT = "result"
    FACT = "fact"
    EVENT = "event"
    PLAN = "plan"
    REFERENCE = "reference"
    STRUCTURED = "structured"
    FOLDER = "folder"
    ANNOTATION = "annotation"
    TOPIC = "topic"
    MESSAGE = "message"


TEXT_TYPES = (DocumentType.NOTE, DocumentType.FACT, DocumentType.EVENT, DocumentType.PLAN, DocumentType.RESULT,
              DocumentType.REFERENCE, DocumentType.STRUCTURED, DocumentType.ANNOTATION)
"""Types whose content is text kept in the library (``services.documents.add_text`` makes them and their
content can be edited); files keep their bytes and folders have no content."""


STRUCTURAL_TYPES = (DocumentType.FOLDER, DocumentType.TOPIC)
"""Types that organise other documents instead of holding content of their own: a folder (§3.2) holds
documents, a topic (issue 14, ``core.topics``) groups atoms. Neither is chunked or embedded (``not_indexed``),
searched, a source of atoms or profiles, digest material, nor a duplicate of anything. Topics are also left
out of document lists (the Topics pane and ``vancetope topics`` show them); folders are listed, as folders."""

UNLISTED_TYPES = (DocumentType.TOPIC, DocumentType.MESSAGE)
"""Types left out of document lists and smart views (each has its own view: the Topics pane, a process's
Conversation) and out of the duplicate finder and the digest's material (a conversation is read through its
compaction summaries); search finds messages (the scope rule keeps them to their process and below)."""

STRUCTURAL_VALUES = tuple(t.value for t in STRUCTURAL_TYPES)
"""The values of :data:`STRUCTURAL_TYPES`, as the ``type`` column stores them."""

SUPERSEDED_BY = "superseded_by"
"""Metadata key of an archived memory holding the id of the document that updated it (the latest one;
written by ``services.lifecycle``, read by the atom cards of ``services.records``)."""

ANNOTATES = "annotates"
"""Metadata key of an annotation holding the id of the PDF document it is on (``services.annotations``)."""


class DocumentStatus(StrEnum):
    """Lifecycle: ``deleted`` is a restorable trash, purged only explicitly."""

    ACTIVE = "active"
    ARCHIVED = "archived"
    STALE = "stale"
    DELETED = "deleted"


class IndexState(StrEnum):
    """Where a document is in the indexing pipeline."""

    PENDING = "pending"
    INDEXED = "indexed"
    FAILED = "failed"
    NEEDS_OCR = "needs_ocr"
    NOT_INDEXED = "not_indexed"  # folders, and documents with nothing to index


class SourceType(StrEnum):
    """Where a document came from (seed §3.1 ``source.type``)."""

    USER_UPLOAD = "user_upload"
    THINK_PROCESS_RESULT = "think_process_result"
    TOOL_OUTPUT = "tool_output"
    MANUAL = "manual"


class Source(BaseModel):
    """Provenance: ``{type, think_process_id, node_id}``."""

    model_config = ConfigDict(frozen=True)

    type: SourceType = SourceType.MANUAL
    think_process_id: str | None = None
    node_id: str | None = None


class DocumentInfo(BaseModel):
    """A document as the services return it.

    ``content`` is the text body for notes, facts and results; for files it is None and
    ``file_path`` points at the stored original (under the library's ``files/``). ``memory_type``: what an
    agent's memory (a note) is for (``core.memories``); None for other documents. ``updated_by``: who made the
    current state (an actor string, ``services.identity``; None when not recorded: states made before schema 8).
    """

    model_config = ConfigDict(frozen=True)

    id: str
    scope: str
    type: DocumentType
    title: str
    content: str | None = None
    mime_type: str = "text/plain"
    tags: list[str] = Field(default_factory=list)
    source: Source = Field(default_factory=Source)
    created_at: datetime
    updated_at: datetime
    metadata: dict[str, Any] = Field(default_factory=dict)
    folder_id: str | None = None
    status: DocumentStatus = DocumentStatus.ACTIVE
    index_state: IndexState = IndexState.PENDING
    index_error: str | None = None
    file_path: str | None = None
    content_hash: str | None = None
    version: int = 1
    memory_type: MemoryType | None = None
    updated_by: str | None = None


class VersionInfo(BaseModel):
    """A previous state of a document, kept when its content, title or tags changed.

    ``created_at`` and ``created_by`` say when and by whom this state was made (``created_by``: an actor string,
    ``services.identity``; None when not recorded: states made before schema 8); ``reason`` says why it was
    replaced.
    """

    model_config = ConfigDict(frozen=True)

    document_id: str
    number: int
    title: str
    content: str | None
    tags: list[str]
    metadata: dict[str, Any]
    content_hash: str | None
    reason: str
    created_at: datetime
    created_by: str | None = None


class ChunkRole(StrEnum):
    """What part of a document a chunk is, recognised at ingest.

    Only ``body`` chunks are embedded (:data:`EMBEDDED_ROLES`); the others (a paper's reference list,
    its author and affiliation pages, its acknowledgements) stay keyword-searchable but are kept out
    of the dense index: their words match many queries by meaning ("dementia" in fifty cited titles)
    without being about anything, and they cost about a third of a paper's embedding time.
    """

    BODY = "body"
    REFERENCES = "references"
    AUTHORS = "authors"
    ACKNOWLEDGEMENTS = "acknowledgements"


EMBEDDED_ROLES = frozenset({ChunkRole.BODY})
"""Chunk roles that get vectors (see :class:`ChunkRole`)."""


class ChunkInfo(BaseModel):
    """One indexed piece of a document: its text, page (PDFs, 1-based), section and role."""

    model_config = ConfigDict(frozen=True)

    document_id: str
    ordinal: int
    text: str
    page: int | None = None
    section: str | None = None
    token_count: int = 0
    role: ChunkRole = ChunkRole.BODY

    @property
    def chunk_id(self) -> str:
        """The id shared by the vector store and the lexical index: ``doc_id:ordinal``."""
        return f"{self.document_id}:{self.ordinal}"
