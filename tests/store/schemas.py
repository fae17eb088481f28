"""Libraries taken back to an older schema, for the migration tests."""

import sqlite3
from pathlib import Path


def downgrade_to_schema_4(database: Path) -> None:
    """Take a library database back to schema 4: documents without a memory type (nor its index), and
    what schema 6 changed undone first."""
    downgrade_to_schema_5(database)
    with sqlite3.connect(database) as con:
        con.execute("DROP INDEX ix_document_memory_type")
        con.execute("ALTER TABLE document DROP COLUMN memory_type")
        con.execute("UPDATE meta SET value='4' WHERE key='schema_version'")


def downgrade_to_schema_3(database: Path) -> None:
    """Take a library database back to schema 3: audit entries without a payload (nor its indexes)."""
    downgrade_to_schema_4(database)
    with sqlite3.connect(database) as con:
        for index in ("ix_audit_entry_undo", "ix_audit_entry_group", "ix_audit_entry_target"):
            con.execute(f"DROP INDEX {index}")
        con.execute("ALTER TABLE audit_entry DROP COLUMN payload")
        con.execute("UPDATE meta SET value='3' WHERE key='schema_version'")


def downgrade_to_schema_2(database: Path) -> None:
    """Take a library database back to schema 2: no chunk roles, no schema-3 indexes (nor what came later)."""
    downgrade_to_schema_3(database)
    with sqlite3.connect(database) as con:
        con.execute("DROP INDEX ix_index_job_kind")
        con.execute("DROP INDEX ix_chunk_document_role")
        con.execute("ALTER TABLE chunk DROP COLUMN role")
        con.execute("UPDATE meta SET value='2' WHERE key='schema_version'")


def downgrade_to_schema_5(database: Path) -> None:
    """Take a library database back to before schema 6: the ``derived_from`` and ``links_to`` edges go back into
    their documents' metadata lists, as the code before schema 6 wrote them, and the ``relation`` table goes
    (the memory relations had no home before it: they are dropped)."""
    with sqlite3.connect(database) as con:
        for key in ("derived_from", "links_to"):
            rows = con.execute("SELECT source_id, json_group_array(target_id) FROM "
                               "(SELECT source_id, target_id FROM relation WHERE type = ? ORDER BY rowid) "
                               "GROUP BY source_id", (key,)).fetchall()
            for source, targets in rows:
                con.execute(f"UPDATE document SET metadata = json_set(metadata, '$.{key}', json(?)) WHERE id = ?",
                            (targets, source))
        con.execute("DROP TABLE relation")
        con.execute("UPDATE meta SET value='5' WHERE key='schema_version'")
