"""Schema 1: scopes, documents with their tags and versions, chunks and their full-text index, index jobs, meta.

The tables as version 1 made them: later revisions add what came after (the chunk's role in 3, the document's
memory type in 5…). A new library runs this and every later revision.
"""

import sqlalchemy as sa
from alembic import op

from vancetope_desktop.store.json_columns import JSON_VALUE
from vancetope_desktop.store.migrations.checks import is_sqlite

revision = "schema1"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the tables of schema 1."""
    op.create_table(
        "meta",
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("value", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_table(
        "scope",
        sa.Column("path", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("parent_path", sa.String(), nullable=True),
        sa.Column("archived", sa.Boolean(), nullable=False),
        sa.Column("settings", JSON_VALUE, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["parent_path"], ["scope.path"], ondelete="RESTRICT"),
        sa.PrimaryKeyConstraint("path"),
    )
    op.create_index("ix_scope_kind", "scope", ["kind"])
    op.create_index("ix_scope_parent_path", "scope", ["parent_path"])
    op.create_table(
        "document",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("scope_path", sa.String(), nullable=False),
        sa.Column("type", sa.String(), nullable=False),
        sa.Column("title", sa.String(), nullable=False),
        sa.Column("content", sa.String(), nullable=True),
        sa.Column("mime_type", sa.String(), nullable=False),
        sa.Column("source_type", sa.String(), nullable=False),
        sa.Column("source_think_process", sa.String(), nullable=True),
        sa.Column("source_node", sa.String(), nullable=True),
        sa.Column("metadata", JSON_VALUE, nullable=False),
        sa.Column("folder_id", sa.String(), nullable=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("index_state", sa.String(), nullable=False),
        sa.Column("index_error", sa.String(), nullable=True),
        sa.Column("blob_hash", sa.String(), nullable=True),
        sa.Column("content_hash", sa.String(), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["folder_id"], ["document.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["scope_path"], ["scope.path"], ondelete="RESTRICT"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_document_blob_hash", "document", ["blob_hash"])
    op.create_index("ix_document_content_hash", "document", ["content_hash"])
    op.create_index("ix_document_folder_id", "document", ["folder_id"])
    op.create_index("ix_document_scope_status", "document", ["scope_path", "status"])  # widened by schema 2
    op.create_table(
        "document_tag",
        sa.Column("document_id", sa.String(), nullable=False),
        sa.Column("tag", sa.String(), nullable=False),
        sa.ForeignKeyConstraint(["document_id"], ["document.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("document_id", "tag"),
    )
    op.create_index("ix_document_tag_tag", "document_tag", ["tag"])
    op.create_table(
        "document_version",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("document_id", sa.String(), nullable=True),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(), nullable=False),
        sa.Column("content", sa.String(), nullable=True),
        sa.Column("tags", JSON_VALUE, nullable=False),
        sa.Column("metadata", JSON_VALUE, nullable=False),
        sa.Column("content_hash", sa.String(), nullable=True),
        sa.Column("blob_hash", sa.String(), nullable=True),
        sa.Column("reason", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["document_id"], ["document.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("document_id", "number"),
    )
    op.create_index("ix_document_version_document_id", "document_version", ["document_id"])
    op.create_table(
        "chunk",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("document_id", sa.String(), nullable=True),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.Column("text", sa.String(), nullable=False),
        sa.Column("page", sa.Integer(), nullable=True),
        sa.Column("section", sa.String(), nullable=True),
        sa.Column("token_count", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["document_id"], ["document.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("document_id", "ordinal"),
    )
    op.create_index("ix_chunk_document_id", "chunk", ["document_id"])
    op.create_table(
        "index_job",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("document_id", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("payload", JSON_VALUE, nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.String(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_index_job_document_id", "index_job", ["document_id"])
    if is_sqlite():
        # SQLite only: the lexical index is an FTS5 table whose rowid is chunk.id (store/fulltext.py reads and
        # writes it). PostgreSQL has no lexical table at schema 1 to 8: its own (a tsvector table with a GIN index,
        # store/fulltext.py's PostgreSQL side) comes in a revision of its own after schema 8, made on both
        # databases' branches; until then a PostgreSQL library has no lexical search.
        op.execute("CREATE VIRTUAL TABLE IF NOT EXISTS chunk_fts USING fts5("
                   "title, body, tokenize = 'unicode61 remove_diacritics 2')")
