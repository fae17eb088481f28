"""Schema 9: the lexical index on PostgreSQL (issue 17): ``chunk_lexical`` and ``chunk_term`` with their indexes
(``store/pg_fulltext``, which ``index/lexical_backend`` writes and searches there). SQLite keeps its FTS5 table
``chunk_fts`` (schema 1): nothing changes in an embedded library but its version number."""

import sqlalchemy as sa
from alembic import op

from vancetope_desktop.store.migrations.checks import is_sqlite
from vancetope_desktop.store.pg_fulltext import SCHEMA

revision = "schema9"
down_revision = "schema8"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the PostgreSQL lexical tables where missing (``pg_fulltext.SCHEMA``: idempotent statements, so a
    repeated run changes nothing); nothing on SQLite."""
    if is_sqlite():
        return
    for statement in SCHEMA:
        op.execute(sa.text(statement))
