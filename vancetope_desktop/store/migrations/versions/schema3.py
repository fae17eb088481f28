"""Schema 3: the chunk's ``role`` (body, references…: only body chunks get vectors), indexes on
``index_job(kind, document_id)`` and ``chunk(document_id, role)``; the lexical rows of Arabic and Hebrew text
analysed again, and invalid JSON values repaired.

The last two are data steps on SQLite's own features (the FTS5 table, ``json_valid``), with no PostgreSQL branch: a
server database has no lexical table at this schema (schema 1), and its JSONB columns refuse invalid JSON on the way
in, so it has nothing to repair.
"""

import re

import sqlalchemy as sa
from alembic import op

from vancetope_desktop.store import tables
from vancetope_desktop.store.fulltext import analyze
from vancetope_desktop.store.json_columns import repair_json_columns
from vancetope_desktop.store.migrations.checks import has_column, is_sqlite

revision = "schema3"
down_revision = "schema2"
branch_labels = None
depends_on = None

_RTL_TEXT = re.compile("[\u0591-\u05c7\u0610-\u06ed\ufb50-\ufdff\ufe70-\ufefe]")


def upgrade() -> None:
    """Add the chunk role and the two indexes; on SQLite, re-analyse RTL chunks and repair JSON."""
    if not has_column("chunk", "role"):
        op.add_column("chunk", sa.Column("role", sa.String(), nullable=False, server_default="body"))
    op.create_index("ix_index_job_kind", "index_job", ["kind", "document_id"], if_not_exists=True)
    op.create_index("ix_chunk_document_role", "chunk", ["document_id", "role"], if_not_exists=True)
    if is_sqlite():  # SQLite only: chunk_fts (FTS5) and json_valid
        _reanalyze_rtl_fulltext()
        _repair_json()


def _reanalyze_rtl_fulltext() -> None:
    """Re-analyse the lexical rows of chunks with Arabic or Hebrew marks or presentation forms, which the
    analysis now folds (``core.rtl.fold_for_matching``): analysed the old way, they never match a query
    typed with plain letters. SQLite has no regular expressions, so chunk texts are scanned here once."""
    bind = op.get_bind()
    rows = bind.execute(sa.text(
        "SELECT c.id, c.text, d.title FROM chunk c JOIN document d ON d.id = c.document_id")).all()
    for chunk_id, body, title in rows:
        if _RTL_TEXT.search(body) or _RTL_TEXT.search(title):
            bind.execute(sa.text("UPDATE chunk_fts SET title = :title, body = :body WHERE rowid = :id"),
                         {"id": chunk_id, "title": analyze(title), "body": analyze(body)})


def _repair_json() -> None:
    """Rewrite invalid JSON values (NaN…) that versions before schema 3 could store (``json_columns``).

    A migration step, so it runs once, behind the backup: the scan costs 0.27 s for 2,000 documents of
    100 KB, too much for every CLI command, and since schema 3 every JSON write goes through
    ``json_columns.dump_json``. Columns a later schema adds are skipped (not there yet)."""
    repair_json_columns(op.get_bind(), [model.__table__ for model in (  # type: ignore[attr-defined]
        tables.ScopeRow, tables.DocumentRow, tables.VersionRow, tables.JobRow, tables.AuditRow)])
