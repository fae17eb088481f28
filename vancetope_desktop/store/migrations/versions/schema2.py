"""Schema 2: the review queue's ``promotion_request`` and the ``audit_entry`` trail (without the payload schema 4
adds); the document index widened to (scope, status, type, id), covering search's candidate query.

The widened index came in just before version 2 without a step of its own, so libraries of version 1 kept the
narrow one; here they get it. Repeatable (``checks``): the old upgrade code made these tables with
``create_all``.
"""

import sqlalchemy as sa
from alembic import op

from vancetope_desktop.store.migrations.checks import has_table

revision = "schema2"
down_revision = "schema1"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the review tables if missing; replace the narrow document index with the covering one."""
    if not has_table("promotion_request"):
        op.create_table(
            "promotion_request",
            sa.Column("id", sa.String(), nullable=False),
            sa.Column("document_id", sa.String(), nullable=False),
            sa.Column("title", sa.String(), nullable=False),
            sa.Column("source_scope", sa.String(), nullable=False),
            sa.Column("target_scope", sa.String(), nullable=False),
            sa.Column("requested_by", sa.String(), nullable=False),
            sa.Column("reason", sa.String(), nullable=False),
            sa.Column("status", sa.String(), nullable=False),
            sa.Column("decided_by", sa.String(), nullable=True),
            sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
            sa.Column("decision_reason", sa.String(), nullable=True),
            sa.Column("final_scope", sa.String(), nullable=True),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("id"),
        )
        op.create_index("ix_promotion_request_document_id", "promotion_request", ["document_id"])
        op.create_index("ix_promotion_request_status_source", "promotion_request", ["status", "source_scope"])
    if not has_table("audit_entry"):
        op.create_table(
            "audit_entry",
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("document_id", sa.String(), nullable=False),
            sa.Column("title", sa.String(), nullable=False),
            sa.Column("action", sa.String(), nullable=False),
            sa.Column("from_scope", sa.String(), nullable=True),
            sa.Column("to_scope", sa.String(), nullable=True),
            sa.Column("actor", sa.String(), nullable=False),
            sa.Column("reason", sa.String(), nullable=False),
            sa.Column("request_id", sa.String(), nullable=True),
            sa.Column("at", sa.DateTime(timezone=True), nullable=False),
            sa.PrimaryKeyConstraint("id"),
        )
        op.create_index("ix_audit_entry_document_id", "audit_entry", ["document_id"])
    op.drop_index("ix_document_scope_status", "document", if_exists=True)
    op.create_index("ix_document_scope_status_type", "document", ["scope_path", "status", "type", "id"],
                    if_not_exists=True)
