"""The library schema (SQLite and PostgreSQL alike) as SQLModel tables. Plain rows only: services turn them into core
value objects.

Schema version 10 (version 2 added ``promotion_request`` and ``audit_entry``; version 3 the chunk
``role``, indexes on ``index_job.kind`` and ``chunk(document_id, role)``; version 4 the audit entry's
``payload``, what a user action changed, in a form that undo can invert; version 5 the document's
``memory_type``, what an agent's memory is for: ``core.memories.MemoryType``; version 6 the ``relation``
table, into which the ``derived_from`` and ``links_to`` metadata lists moved; version 7 the ``chat_message`` table, a
message's place in its process's conversation; version 8 who made each state: the document's ``updated_by`` and
the kept version's ``created_by``; version 9 the lexical index's tables on PostgreSQL, ``store/pg_fulltext``:
none on SQLite; version 10 the index job's claim, ``claimed_by`` and ``claimed_at``: several writer processes share
a team library's queue).

Each version is an Alembic revision in ``store/migrations/versions/`` (``schema1`` … ``schema10``). Any change
to these tables, even a new table or index, is a new version: raise :data:`SCHEMA_VERSION` to N, add
``versions/schemaN.py`` with ``down_revision = "schemaN-1"`` whose ``upgrade()`` makes the change with ``op.*``
and its own column definitions (not these models: a revision must build what it built when written), SQL of one
database under ``checks.is_sqlite()`` with the other's (PostgreSQL's) branch beside it; then add the downgrade of a
library to N-1 to ``tests/store/schemas.py``, which ``tests/store/test_migrations.py`` upgrades and compares with
these models (``tests/store/test_postgres_schema.py`` does the same on PostgreSQL). ``meta.schema_version`` is
written as N too, so that older programs refuse the library.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Column, ForeignKey, Index, String, UniqueConstraint
from sqlmodel import Field, SQLModel

from .json_columns import JSON_VALUE, json_field

SCHEMA_VERSION = 10
"""This program's schema version: its head revision is ``schema10`` (``store/migrations``), and the number is
mirrored in ``meta.schema_version`` for programs from before Alembic."""


def utcnow() -> datetime:
    """Timezone-aware current time in UTC (all stored times are UTC)."""
    return datetime.now(UTC)


class MetaRow(SQLModel, table=True):
    """Key/value facts about the library: schema version, current scope, index generation."""

    __tablename__ = "meta"
    key: str = Field(primary_key=True)
    value: str


class ScopeRow(SQLModel, table=True):
    """One node of the scope tree, identified by its path ``kind/key``."""

    __tablename__ = "scope"
    path: str = Field(primary_key=True)
    kind: str = Field(index=True)
    key: str
    name: str
    parent_path: str | None = Field(
        default=None, sa_column=Column(String, ForeignKey("scope.path", ondelete="RESTRICT"), index=True)
    )
    archived: bool = False
    settings: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON_VALUE, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


class DocumentRow(SQLModel, table=True):
    """A document (seed §3.1). Files keep their bytes in the blob store under ``blob_hash``."""

    __tablename__ = "document"
    # Covering index for search's candidate query (scope, status, type → id): index-only at 100k chunks.
    __table_args__ = (Index("ix_document_scope_status_type", "scope_path", "status", "type", "id"),)
    id: str = Field(primary_key=True)
    scope_path: str = Field(sa_column=Column(String, ForeignKey("scope.path", ondelete="RESTRICT"), nullable=False))
    type: str
    title: str
    content: str | None = None
    mime_type: str = "text/plain"
    source_type: str = "manual"
    source_think_process: str | None = None
    source_node: str | None = None
    meta: dict[str, Any] = Field(default_factory=dict, sa_column=Column("metadata", JSON_VALUE, nullable=False))
    folder_id: str | None = Field(
        default=None, sa_column=Column(String, ForeignKey("document.id", ondelete="SET NULL"), index=True)
    )
    status: str = "active"
    index_state: str = "pending"
    index_error: str | None = None
    blob_hash: str | None = Field(default=None, index=True)
    content_hash: str | None = Field(default=None, index=True)
    version: int = 1
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    # Who made the current state (an actor string: ``services.identity``); None before schema 8.
    updated_by: str | None = None
    # A column, not metadata: recall and the lists filter on it in SQL (``core.memories.MemoryType``; None
    # for documents that are not agent memories).
    memory_type: str | None = Field(default=None, index=True)


class TagRow(SQLModel, table=True):
    """One (document, tag) pair; tags are stored normalised (see ``core.tags.normalize_tag``)."""

    __tablename__ = "document_tag"
    document_id: str = Field(
        sa_column=Column(String, ForeignKey("document.id", ondelete="CASCADE"), primary_key=True)
    )
    tag: str = Field(sa_column=Column(String, primary_key=True, index=True))


class VersionRow(SQLModel, table=True):
    """A previous state of a document, written before its content, title or tags change."""

    __tablename__ = "document_version"
    __table_args__ = (UniqueConstraint("document_id", "number"),)
    id: int | None = Field(default=None, primary_key=True)
    document_id: str = Field(sa_column=Column(String, ForeignKey("document.id", ondelete="CASCADE"), index=True))
    number: int
    title: str
    content: str | None = None
    tags: list[str] = Field(default_factory=list, sa_column=Column(JSON_VALUE, nullable=False))
    meta: dict[str, Any] = Field(default_factory=dict, sa_column=Column("metadata", JSON_VALUE, nullable=False))
    content_hash: str | None = None
    blob_hash: str | None = None
    reason: str = ""
    created_at: datetime = Field(default_factory=utcnow)
    # Who made this state (the document's ``updated_by`` when it was current); None before schema 8.
    created_by: str | None = None


class ChunkRow(SQLModel, table=True):
    """A chunk of a document's text; its integer id is also its rowid in the FTS5 table ``chunk_fts``."""

    __tablename__ = "chunk"
    # (document, role) covers the count of chunks that should have vectors (index status, search's
    # missing-vector check) without reading chunk texts: 176 → 35 ms at 100,000 chunks.
    __table_args__ = (
        UniqueConstraint("document_id", "ordinal"), Index("ix_chunk_document_role", "document_id", "role"),
    )
    id: int | None = Field(default=None, primary_key=True)
    document_id: str = Field(sa_column=Column(String, ForeignKey("document.id", ondelete="CASCADE"), index=True))
    ordinal: int
    text: str
    page: int | None = None
    section: str | None = None
    token_count: int = 0
    role: str = Field(default="body", sa_column=Column(String, nullable=False, server_default="body"))


class JobRow(SQLModel, table=True):
    """Queued index work, drained by the writers. Not a foreign key: jobs outlive purged documents.

    kinds: ``embed`` (embed a document's chunks into its scope's collection), ``drop`` (remove a
    document's vectors from ``payload["scope"]``), ``move`` (carry vectors from ``payload["from"]`` to
    the document's current scope), ``refresh`` (rewrite chunk metadata such as tags).

    ``claimed_by`` names the writer working on the job (``index.job_claims``: ``host:pid:token``), None while it
    waits; ``claimed_at`` is when that writer last renewed its claim (the database server's clock): a claim older
    than the lease is a dead writer's, and another takes the job over.
    """

    __tablename__ = "index_job"
    # Search reads the pending ``move`` jobs on every query; the writer and status count ``embed`` jobs.
    __table_args__ = (Index("ix_index_job_kind", "kind", "document_id"),)
    id: int | None = Field(default=None, primary_key=True)
    document_id: str = Field(index=True)
    kind: str
    payload: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON_VALUE, nullable=False))
    attempts: int = 0
    last_error: str | None = None
    created_at: datetime = Field(default_factory=utcnow)
    claimed_by: str | None = None
    claimed_at: datetime | None = None


class PromotionRequestRow(SQLModel, table=True):
    """A request to move a document up the scope tree, waiting for (or given) the user's decision.

    ``requested_by`` is an actor string (``user:alice``, ``think-process/tp_12``, ``rule:project-relevant``);
    ``status`` is ``pending``, ``approved``, ``rejected`` or ``withdrawn``. Not a foreign key to the
    document: a decided request stays in the history after its document is purged.
    """

    __tablename__ = "promotion_request"
    __table_args__ = (Index("ix_promotion_request_status_source", "status", "source_scope"),)
    id: str = Field(primary_key=True)
    document_id: str = Field(index=True)
    title: str
    source_scope: str
    target_scope: str
    requested_by: str
    reason: str = ""
    status: str = "pending"
    decided_by: str | None = None
    decided_at: datetime | None = None
    decision_reason: str | None = None
    final_scope: str | None = None
    created_at: datetime = Field(default_factory=utcnow)


class AuditRow(SQLModel, table=True):
    """One entry of the audit trail: what happened to which document, from where to where, who, when, why.

    ``action``: ``promote``, ``demote``, ``request``, ``approve``, ``reject``, ``update`` (an approved
    request merged into an existing document), and the user actions undo can invert (``trash``,
    ``untrash``, ``file``, ``tag``, ``rename``, ``edit``) with ``undo`` / ``redo`` themselves; the relation
    changes ``relate`` / ``unrelate`` (on the edge's source) and the lifecycle's ``archive`` (superseded by an
    ``updates`` edge) and ``restore`` (``services.graph``, ``services.lifecycle``).
    ``payload``: for those, the action's group and what it changed (``services.audit.record``);
    empty otherwise. Not a foreign key: the trail outlives purged documents.
    """

    __tablename__ = "audit_entry"
    # services.undo reads a person's latest actions newest first, then the entries of a few actions and of
    # their undos: the stacks took 215 ms with 100,000 entries by a full scan, 22 ms with these, as with 10,000
    # (tests/benchmarks/bench_undo.py, load average 7 on 2 cores).
    # The undo index is partial on PostgreSQL too (schema 4; test_postgres_schema checks its definition): no
    # ``postgresql_where`` here, which would import SQLAlchemy's PostgreSQL dialect at every start.
    __table_args__ = (
        Index("ix_audit_entry_undo", "actor", "id", sqlite_where=json_field("payload", "group").is_not(None)),
        Index("ix_audit_entry_group", json_field("payload", "group")),
        Index("ix_audit_entry_target", json_field("payload", "target")),
    )
    id: int | None = Field(default=None, primary_key=True)
    document_id: str = Field(index=True)
    title: str
    action: str
    from_scope: str | None = None
    to_scope: str | None = None
    actor: str
    reason: str = ""
    request_id: str | None = None
    at: datetime = Field(default_factory=utcnow)
    payload: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON_VALUE, nullable=False,
                                                                           server_default="{}"))


class RelationRow(SQLModel, table=True):
    """A typed edge from ``source_id`` to ``target_id`` (``core.relations.RelationType``), one per
    (source, target, type).

    Both ends are foreign keys with ON DELETE CASCADE: purging a document takes its edges (the trash
    keeps them, so an untrashed document has its relations back). ``created_by`` is an actor string as
    in the audit trail (``user:alice``, ``think-process/tp_12``, ``agent/tau``).
    """

    __tablename__ = "relation"
    # The primary key serves "edges from a source"; the target index "edges to a target" (backlinks,
    # what was derived from X, who updates X).
    __table_args__ = (Index("ix_relation_target", "target_id", "type"),)
    source_id: str = Field(
        sa_column=Column(String, ForeignKey("document.id", ondelete="CASCADE"), primary_key=True))
    target_id: str = Field(
        sa_column=Column(String, ForeignKey("document.id", ondelete="CASCADE"), primary_key=True))
    type: str = Field(sa_column=Column(String, primary_key=True))
    created_at: datetime = Field(default_factory=utcnow)
    created_by: str = ""


class ChatMessageRow(SQLModel, table=True):
    """A message's place in its process's conversation (issue 15, ``core.conversations``); its text is the
    ``message`` document ``document_id``.

    ``archived_in`` is the ``archived_chat`` memory it was folded into (purging that memory returns the message to
    the live conversation rather than losing it: ON DELETE SET NULL); ``after_seq`` places a topic stitch after the
    last message of the range it stands for.
    """

    __tablename__ = "chat_message"
    # (process, seq) orders a conversation and numbers its messages; the archive index finds a summary's originals.
    __table_args__ = (UniqueConstraint("process_path", "seq"), Index("ix_chat_message_archived_in", "archived_in"))
    document_id: str = Field(
        sa_column=Column(String, ForeignKey("document.id", ondelete="CASCADE"), primary_key=True))
    process_path: str = Field(
        sa_column=Column(String, ForeignKey("scope.path", ondelete="RESTRICT"), nullable=False))
    seq: int
    role: str
    kind: str = "message"
    strength: str = "normal"
    tokens: int = 0
    tool_call_id: str | None = None
    after_seq: int | None = None
    archived_in: str | None = Field(
        default=None, sa_column=Column(String, ForeignKey("document.id", ondelete="SET NULL"), nullable=True))
