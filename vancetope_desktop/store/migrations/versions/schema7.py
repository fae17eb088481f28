"""Schema 7: ``chat_message``, a message's place in its process's conversation (issue 15)."""

import sqlalchemy as sa
from alembic import op

from vancetope_desktop.store.migrations.checks import has_table

revision = "schema7"
down_revision = "schema6"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``chat_message`` if missing."""
    if has_table("chat_message"):
        return
    op.create_table(
        "chat_message",
        sa.Column("document_id", sa.String(), nullable=False),
        sa.Column("process_path", sa.String(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("strength", sa.String(), nullable=False),
        sa.Column("tokens", sa.Integer(), nullable=False),
        sa.Column("tool_call_id", sa.String(), nullable=True),
        sa.Column("after_seq", sa.Integer(), nullable=True),
        sa.Column("archived_in", sa.String(), nullable=True),
        sa.ForeignKeyConstraint(["archived_in"], ["document.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["document_id"], ["document.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["process_path"], ["scope.path"], ondelete="RESTRICT"),
        sa.PrimaryKeyConstraint("document_id"),
        sa.UniqueConstraint("process_path", "seq"),
    )
    op.create_index("ix_chat_message_archived_in", "chat_message", ["archived_in"])
