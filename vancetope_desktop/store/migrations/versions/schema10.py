"""Schema 10: the index job's claim (issue 17): ``index_job.claimed_by`` (the writer working on the job,
``index.job_claims``) and ``index_job.claimed_at`` (when it last renewed the claim), both nullable: a job waits
unclaimed. On PostgreSQL several writer processes claim jobs with ``SELECT … FOR UPDATE SKIP LOCKED``; the embedded
library has the same columns (one schema serves both), written by its one writer."""

import sqlalchemy as sa
from alembic import op

from vancetope_desktop.store.migrations.checks import has_column

revision = "schema10"
down_revision = "schema9"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add ``index_job.claimed_by`` (string) and ``index_job.claimed_at`` (time with zone), nullable, where missing."""
    for column, kind in (("claimed_by", sa.String()), ("claimed_at", sa.DateTime(timezone=True))):
        if not has_column("index_job", column):
            op.add_column("index_job", sa.Column(column, kind, nullable=True))
