"""Schema 4: the audit entry's ``payload`` (what a user action changed, in a form undo can invert) and the three
indexes undo reads the trail by.

The indexes are on SQLite's JSON functions (``json_extract``); PostgreSQL: the same on ``payload->>'group'``…
(a partial index takes ``postgresql_where``).
"""

import sqlalchemy as sa
from alembic import op

from vancetope_desktop.store.migrations.checks import has_column, is_sqlite

revision = "schema4"
down_revision = "schema3"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``audit_entry.payload`` (an empty object by default) and, on SQLite, its indexes."""
    if not has_column("audit_entry", "payload"):
        op.add_column("audit_entry", sa.Column("payload", sa.JSON(), nullable=False, server_default="{}"))
    if is_sqlite():  # SQLite only: json_extract in the index definitions
        op.create_index("ix_audit_entry_undo", "audit_entry", ["actor", "id"], if_not_exists=True,
                        sqlite_where=sa.text("json_extract(payload, '$.group') IS NOT NULL"))
        op.create_index("ix_audit_entry_group", "audit_entry", [sa.text("json_extract(payload, '$.group')")],
                        if_not_exists=True)
        op.create_index("ix_audit_entry_target", "audit_entry", [sa.text("json_extract(payload, '$.target')")],
                        if_not_exists=True)
