"""Schema 8: who made each state of a document (issue 17): ``document.updated_by`` (the current state's) and
``document_version.created_by`` (a kept version's), actor strings (``services.identity``). Both nullable: the
states made before were not recorded, and a guess would put a name on someone else's change."""

import sqlalchemy as sa
from alembic import op

from vancetope_desktop.store.migrations.checks import has_column

revision = "schema8"
down_revision = "schema7"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``document.updated_by`` and ``document_version.created_by`` (nullable strings) where missing."""
    for table, column in (("document", "updated_by"), ("document_version", "created_by")):
        if not has_column(table, column):
            op.add_column(table, sa.Column(column, sa.String(), nullable=True))
