"""Schema 4: the audit entry's ``payload`` (what a user action changed, in a form undo can invert) and the three
indexes undo reads the trail by.

The indexes are on one key of the JSON payload: SQLite's ``json_extract(payload, '$.group')``, PostgreSQL's
``(payload ->> 'group')`` (``store.json_columns.json_field`` renders the same in the models); the undo index is
partial on both.
"""

import sqlalchemy as sa
from alembic import op

from vancetope_desktop.store.json_columns import JSON_VALUE
from vancetope_desktop.store.migrations.checks import has_column, is_sqlite

revision = "schema4"
down_revision = "schema3"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``audit_entry.payload`` (an empty object by default) and its indexes."""
    if not has_column("audit_entry", "payload"):
        op.add_column("audit_entry", sa.Column("payload", JSON_VALUE, nullable=False, server_default="{}"))
    sqlite = is_sqlite()
    group_set = sa.text(f"{_field('group', sqlite)} IS NOT NULL")
    op.create_index("ix_audit_entry_undo", "audit_entry", ["actor", "id"], if_not_exists=True,
                    **({"sqlite_where": group_set} if sqlite else {"postgresql_where": group_set}))
    for name, key in (("ix_audit_entry_group", "group"), ("ix_audit_entry_target", "target")):
        op.create_index(name, "audit_entry", [sa.text(_field(key, sqlite))], if_not_exists=True)


def _field(key: str, sqlite: bool) -> str:
    """The payload's ``key`` as SQL text, in the database's own JSON syntax."""
    return f"json_extract(payload, '$.{key}')" if sqlite else f"(payload ->> '{key}')"
