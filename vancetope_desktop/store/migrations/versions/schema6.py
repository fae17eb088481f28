"""Schema 6: the ``relation`` table (typed edges between documents), into which the ``derived_from`` and
``links_to`` metadata lists move.

The move is written for each database: SQLite's ``json_each``, ``json_remove`` and ``INSERT OR IGNORE``;
PostgreSQL's ``jsonb_array_elements_text``, ``-`` and ``ON CONFLICT DO NOTHING`` (a server database made by this
program starts empty, but one brought here from schema 5 keeps its links).
"""

import sqlalchemy as sa
from alembic import op

from vancetope_desktop.store.json_columns import json_or_empty
from vancetope_desktop.store.migrations.checks import has_table, is_sqlite

revision = "schema6"
down_revision = "schema5"
branch_labels = None
depends_on = None

MOVED_LINK_KEYS = ("derived_from", "links_to")
"""Metadata lists of related ids that schema 6 moved into the ``relation`` table (same names as the types)."""


def upgrade() -> None:
    """Create ``relation`` if missing; on SQLite, move the metadata lists into it."""
    if not has_table("relation"):
        op.create_table(
            "relation",
            sa.Column("source_id", sa.String(), nullable=False),
            sa.Column("target_id", sa.String(), nullable=False),
            sa.Column("type", sa.String(), nullable=False),
            sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
            sa.Column("created_by", sa.String(), nullable=False),
            sa.ForeignKeyConstraint(["source_id"], ["document.id"], ondelete="CASCADE"),
            sa.ForeignKeyConstraint(["target_id"], ["document.id"], ondelete="CASCADE"),
            sa.PrimaryKeyConstraint("source_id", "target_id", "type"),
        )
        op.create_index("ix_relation_target", "relation", ["target_id", "type"])
    if is_sqlite():
        _move_links_to_relations()
    else:
        _move_links_to_relations_postgresql()


def _move_links_to_relations() -> None:
    """Turn each document's ``derived_from`` and ``links_to`` metadata lists into ``relation`` rows, then drop
    the lists from the documents and their kept versions (one home for an edge: restoring an old version
    must not bring back a list nobody reads). Ids that name no document any more (purged inputs) and
    self-links are left out, as the table's foreign keys require; the edge's time is the document's last
    change, its author ``migration:schema-6``."""
    for key in MOVED_LINK_KEYS:
        op.execute(sa.text(
            "INSERT OR IGNORE INTO relation (source_id, target_id, type, created_at, created_by) "
            f"SELECT DISTINCT d.id, j.value, '{key}', d.updated_at, 'migration:schema-6' "
            f"FROM (SELECT id, updated_at, {json_or_empty('metadata')} AS metadata FROM document "
            f"WHERE instr(metadata, '\"{key}\"')) d, "
            f"json_each(CASE WHEN json_type(d.metadata, '$.{key}') = 'array' THEN json_extract(d.metadata, '$.{key}') "
            "ELSE '[]' END) j "
            "WHERE j.value != d.id AND j.value IN (SELECT id FROM document)"))
        for table in ("document", "document_version"):
            op.execute(sa.text(f"UPDATE {table} SET metadata = json_remove(metadata, '$.{key}') "
                               f"WHERE instr(metadata, '\"{key}\"') AND json_valid(metadata)"))


def _move_links_to_relations_postgresql() -> None:
    """:func:`_move_links_to_relations` on PostgreSQL's JSONB: the same rows, the same lists dropped (JSONB holds
    only valid JSON, so there is no malformed value to step over)."""
    for key in MOVED_LINK_KEYS:
        op.execute(sa.text(
            "INSERT INTO relation (source_id, target_id, type, created_at, created_by) "
            f"SELECT DISTINCT d.id, j.value, '{key}', d.updated_at, 'migration:schema-6' "
            f"FROM document d CROSS JOIN LATERAL jsonb_array_elements_text(CASE WHEN jsonb_typeof(d.metadata -> "
            f"'{key}') = 'array' THEN d.metadata -> '{key}' ELSE '[]'::jsonb END) AS j(value) "
            f"WHERE d.metadata ? '{key}' AND j.value <> d.id AND j.value IN (SELECT id FROM document) "
            "ON CONFLICT DO NOTHING"))
        for table in ("document", "document_version"):
            op.execute(sa.text(f"UPDATE {table} SET metadata = metadata - '{key}' WHERE metadata ? '{key}'"))
