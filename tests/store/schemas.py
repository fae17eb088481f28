"""Libraries taken back to an older schema, for the migration tests: as the program of that version left them,
without Alembic's ``alembic_version`` table (their version is in ``meta.schema_version``)."""

import sqlite3
from pathlib import Path


def as_written_before_alembic(con: sqlite3.Connection, version: int) -> None:
    """Mark the database of ``con`` as a library of schema ``version`` written by a program from before Alembic."""
    con.execute("DROP TABLE IF EXISTS alembic_version")
    con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))


def downgrade_to_schema_6(database: Path) -> None:
    """Take a library database back to schema 6: no ``chat_message`` table (nor what schema 8 added)."""
    downgrade_to_schema_7(database)
    with sqlite3.connect(database) as con:
        con.execute("DROP TABLE chat_message")
        as_written_before_alembic(con, 6)


def downgrade_to_schema_5(database: Path) -> None:
    """Take a library database back to before schema 6: the ``derived_from`` and ``links_to`` edges go back into
    their documents' metadata lists, as the code before schema 6 wrote them, and the ``relation`` table goes
    (the memory relations had no home before it: they are dropped)."""
    downgrade_to_schema_6(database)
    with sqlite3.connect(database) as con:
        for key in ("derived_from", "links_to"):
            rows = con.execute("SELECT source_id, json_group_array(target_id) FROM "
                               "(SELECT source_id, target_id FROM relation WHERE type = ? ORDER BY rowid) "
                               "GROUP BY source_id", (key,)).fetchall()
            for source, targets in rows:
                con.execute(f"UPDATE document SET metadata = json_set(metadata, '$.{key}', json(?)) WHERE id = ?",
                            (targets, source))
        con.execute("DROP TABLE relation")
        as_written_before_alembic(con, 5)


def downgrade_to_schema_4(database: Path) -> None:
    """Take a library database back to schema 4: documents without a memory type (nor its index), and
    what schema 6 changed undone first."""
    downgrade_to_schema_5(database)
    with sqlite3.connect(database) as con:
        con.execute("DROP INDEX ix_document_memory_type")
        con.execute("ALTER TABLE document DROP COLUMN memory_type")
        as_written_before_alembic(con, 4)


def downgrade_to_schema_3(database: Path) -> None:
    """Take a library database back to schema 3: audit entries without a payload (nor its indexes)."""
    downgrade_to_schema_4(database)
    with sqlite3.connect(database) as con:
        for index in ("ix_audit_entry_undo", "ix_audit_entry_group", "ix_audit_entry_target"):
            con.execute(f"DROP INDEX {index}")
        con.execute("ALTER TABLE audit_entry DROP COLUMN payload")
        as_written_before_alembic(con, 3)


def downgrade_to_schema_2(database: Path) -> None:
    """Take a library database back to schema 2: no chunk roles, no schema-3 indexes (nor what came later)."""
    downgrade_to_schema_3(database)
    with sqlite3.connect(database) as con:
        con.execute("DROP INDEX ix_index_job_kind")
        con.execute("DROP INDEX ix_chunk_document_role")
        con.execute("ALTER TABLE chunk DROP COLUMN role")
        as_written_before_alembic(con, 2)


def downgrade_to_schema_1(database: Path) -> None:
    """Take a library database back to schema 1: no review tables, the document index of version 1 (scope,
    status)."""
    downgrade_to_schema_2(database)
    with sqlite3.connect(database) as con:
        con.execute("DROP TABLE promotion_request")
        con.execute("DROP TABLE audit_entry")
        con.execute("DROP INDEX ix_document_scope_status_type")
        con.execute("CREATE INDEX ix_document_scope_status ON document (scope_path, status)")
        as_written_before_alembic(con, 1)


def downgrade_to_schema_7(database: Path) -> None:
    """Take a library database back to schema 7, as the first program with Alembic left it: no record of who made
    each state."""
    downgrade_to_schema_8(database)
    with sqlite3.connect(database) as con:
        con.execute("ALTER TABLE document DROP COLUMN updated_by")
        con.execute("ALTER TABLE document_version DROP COLUMN created_by")
        con.execute("UPDATE alembic_version SET version_num = 'schema7'")
        con.execute("UPDATE meta SET value = '7' WHERE key = 'schema_version'")



def downgrade_to_schema_8(database: Path) -> None:
    """Take a library database back to schema 8: on SQLite only its number changed (schema 9 made PostgreSQL's
    lexical tables)."""
    downgrade_to_schema_9(database)
    with sqlite3.connect(database) as con:
        con.execute("UPDATE alembic_version SET version_num = 'schema8'")
        con.execute("UPDATE meta SET value = '8' WHERE key = 'schema_version'")


def downgrade_to_schema_9(database: Path) -> None:
    """Take a library database back to schema 9: index jobs without their claim (one writer per library)."""
    with sqlite3.connect(database) as con:
        con.execute("ALTER TABLE index_job DROP COLUMN claimed_by")
        con.execute("ALTER TABLE index_job DROP COLUMN claimed_at")
        con.execute("UPDATE alembic_version SET version_num = 'schema9'")
        con.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")


DOWNGRADES = {1: downgrade_to_schema_1, 2: downgrade_to_schema_2, 3: downgrade_to_schema_3,
              4: downgrade_to_schema_4, 5: downgrade_to_schema_5, 6: downgrade_to_schema_6, 7: downgrade_to_schema_7,
              8: downgrade_to_schema_8, 9: downgrade_to_schema_9}
"""Schema version → the function that takes a library database back to it."""
