"""Schema 5: the document's ``memory_type`` (what an agent's memory is for: ``core.memories.MemoryType``), indexed."""

import sqlalchemy as sa
from alembic import op

from vancetope_desktop.store.migrations.checks import has_column

revision = "schema5"
down_revision = "schema4"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``document.memory_type`` (nullable) and its index."""
    if not has_column("document", "memory_type"):
        op.add_column("document", sa.Column("memory_type", sa.String(), nullable=True))
    op.create_index("ix_document_memory_type", "document", ["memory_type"], if_not_exists=True)
