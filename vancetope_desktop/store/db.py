"""The SQLite database: engine set-up (WAL, foreign keys, busy timeout), schema creation, sessions.

Several processes share one library (the app, the CLI, an agent server). SQLite in WAL mode lets
readers run beside one writer; write transactions start with ``BEGIN IMMEDIATE`` so that two writers
queue on the busy timeout instead of failing with "database is locked" when a read transaction is
upgraded (SQLite cannot wait in that case, see https://www.sqlite.org/lang_transaction.html).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.schema import CreateIndex
from sqlmodel import Session, SQLModel

from ..core.errors import LibraryError, LibraryTooNew
from . import tables
from .backups import backup_database, timestamp, unique_path
from .fulltext import analyze, create_fulltext_table
from .json_columns import dump_json, json_or_empty, load_json, repair_json_columns

BUSY_TIMEOUT_MS = 60_000
"""How long a writer waits for another process's write transaction (a large import commits in batches)."""


def create_database_engine(path: Path) -> Engine:
    """Open (creating if needed) the SQLite file at ``path`` with the library's connection settings.

    Raises:
        LibraryError: when the file cannot be opened as a database.
    """
    engine = create_engine(
        f"sqlite:///{path}",
        connect_args={"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False},
        json_serializer=dump_json,  # NaN, dates… converted: every JSON column stays valid JSON
        json_deserializer=load_json,
    )

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection, _record) -> None:
        # The driver must not open transactions itself; "begin" below does it (IMMEDIATE for writes).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        # NORMAL is crash-safe in WAL mode (a process crash loses nothing committed).
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection) -> None:
        mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")

    try:
        with engine.connect() as connection:
            connection.exec_driver_sql("SELECT 1")
    except Exception as error:  # sqlite3.DatabaseError and friends: the file is not a database
        raise LibraryError(f"cannot open the library database {path}: {error}") from error
    return engine


def schema_version(engine: Engine) -> int | None:
    """The schema version recorded in the library, None for a new (empty) database."""
    with read_session(engine) as session:
        found = session.exec(text("SELECT name FROM sqlite_master WHERE type='table' AND name='meta'")).first()
        if not found:
            return None
        row = session.get(tables.MetaRow, "schema_version")
        return None if row is None else int(row.value)


@dataclass(frozen=True)
class SchemaUpgrade:
    """A migration :func:`ensure_schema` made: from which schema version, to which, and the copy made first."""

    from_version: int
    to_version: int
    backup: Path


def ensure_schema(engine: Engine, backups: Path) -> SchemaUpgrade | None:
    """Create missing tables, migrate older schemas, record the version; refuse a newer library.

    Before migrating a library of an older schema, the database is copied to ``backups`` (SQLite's
    online backup API, see ``store/backups.py``): a migration that goes wrong, or a newer program
    the user wants to leave, costs nothing.

    Returns:
        The :class:`SchemaUpgrade` made, or None (a new library, or one at the current version).

    Raises:
        LibraryTooNew: the library's schema version is higher than this program's.
        LibraryError: the copy cannot be made; nothing was migrated.
    """
    version = schema_version(engine)
    if version is not None and version > tables.SCHEMA_VERSION:
        raise LibraryTooNew(
            f"this library was written by a newer Vancetope Desktop (schema {version}; this version "
            f"reads up to {tables.SCHEMA_VERSION}); update the program to open it"
        )
    upgrade = None
    if version is not None and version < tables.SCHEMA_VERSION:
        copy = unique_path(backups / f"library-schema{version}-{timestamp()}.sqlite")
        try:
            backup_database(engine, copy)
        except (OSError, sqlite3.Error) as error:
            raise LibraryError(f"cannot copy the library database to {copy} before upgrading it from schema "
                               f"{version} to {tables.SCHEMA_VERSION} ({error}); nothing was changed: free disk "
                               "space or make the folder writable, then open the library again") from error
        upgrade = SchemaUpgrade(version, tables.SCHEMA_VERSION, copy)
    SQLModel.metadata.create_all(engine, tables=[t.__table__ for t in _TABLES])
    with write_session(engine) as session:
        create_fulltext_table(session)
        if version is not None:
            for step in range(version + 1, tables.SCHEMA_VERSION + 1):
                for statement in _MIGRATIONS.get(step, ()):
                    statement(session)
        set_meta(session, "schema_version", str(tables.SCHEMA_VERSION))
    return upgrade


def _add_chunk_role(session: Session) -> None:
    columns = {row[1] for row in session.exec(text("PRAGMA table_info(chunk)")).all()}
    if "role" not in columns:
        session.exec(text("ALTER TABLE chunk ADD COLUMN role VARCHAR NOT NULL DEFAULT 'body'"))


def _add_indexes(session: Session) -> None:
    session.exec(text("CREATE INDEX IF NOT EXISTS ix_index_job_kind ON index_job (kind, document_id)"))
    session.exec(text("CREATE INDEX IF NOT EXISTS ix_chunk_document_role ON chunk (document_id, role)"))


_RTL_TEXT = re.compile("[\u0591-\u05c7\u0610-\u06ed\ufb50-\ufdff\ufe70-\ufefe]")


def _reanalyze_rtl_fulltext(session: Session) -> None:
    """Re-analyse the lexical rows of chunks with Arabic or Hebrew marks or presentation forms, which the
    analysis now folds (``core.rtl.fold_for_matching``): analysed the old way, they never match a query
    typed with plain letters. SQLite has no regular expressions, so chunk texts are scanned here once."""
    rows = session.exec(text(
        "SELECT c.id, c.text, d.title FROM chunk c JOIN document d ON d.id = c.document_id")).all()
    for chunk_id, body, title in rows:
        if _RTL_TEXT.search(body) or _RTL_TEXT.search(title):
            session.exec(text("UPDATE chunk_fts SET title = :title, body = :body WHERE rowid = :id"),
                         params={"id": chunk_id, "title": analyze(title), "body": analyze(body)})


def _repair_json(session: Session) -> None:
    """Rewrite invalid JSON values (NaN…) that versions before schema 3 could store (``json_columns``).

    A migration step, so it runs once, behind the backup: the scan costs 0.27 s for 2,000 documents of
    100 KB, too much for every CLI command, and since schema 3 every JSON write goes through
    ``json_columns.dump_json``."""
    repair_json_columns(session, [t.__table__ for t in _TABLES])


def _add_audit_payload(session: Session) -> None:
    columns = {row[1] for row in session.exec(text("PRAGMA table_info(audit_entry)")).all()}
    if "payload" not in columns:
        session.exec(text("ALTER TABLE audit_entry ADD COLUMN payload JSON NOT NULL DEFAULT '{}'"))
    for index in tables.AuditRow.__table__.indexes:  # type: ignore[attr-defined]
        # IF NOT EXISTS, not checkfirst: SQLAlchemy cannot reflect expression indexes (and warns).
        session.connection().execute(CreateIndex(index, if_not_exists=True))


def _add_memory_type(session: Session) -> None:
    columns = {row[1] for row in session.exec(text("PRAGMA table_info(document)")).all()}
    if "memory_type" not in columns:
        session.exec(text("ALTER TABLE document ADD COLUMN memory_type VARCHAR"))
    session.exec(text("CREATE INDEX IF NOT EXISTS ix_document_memory_type ON document (memory_type)"))


MOVED_LINK_KEYS = ("derived_from", "links_to")
"""Metadata lists of related ids that schema 6 moved into the ``relation`` table (same names as the types)."""


def _move_links_to_relations(session: Session) -> None:
    """Turn each document's ``derived_from`` and ``links_to`` metadata lists into ``relation`` rows, then drop
    the lists from the documents and their kept versions (one home for an edge: restoring an old version
    must not bring back a list nobody reads). Ids that name no document any more (purged inputs) and
    self-links are left out, as the table's foreign keys require; the edge's time is the document's last
    change, its author ``migration:schema-6``. Depends on no other step (the ``relation`` table is made
    by ``create_all`` before the steps run)."""
    for key in MOVED_LINK_KEYS:
        session.exec(text(
            "INSERT OR IGNORE INTO relation (source_id, target_id, type, created_at, created_by) "
            f"SELECT DISTINCT d.id, j.value, '{key}', d.updated_at, 'migration:schema-6' "
            f"FROM (SELECT id, updated_at, {json_or_empty('metadata')} AS metadata FROM document "
            f"WHERE instr(metadata, '\"{key}\"')) d, "
            f"json_each(CASE WHEN json_type(d.metadata, '$.{key}') = 'array' THEN json_extract(d.metadata, '$.{key}') "
            "ELSE '[]' END) j "
            "WHERE j.value != d.id AND j.value IN (SELECT id FROM document)"))
        for table in ("document", "document_version"):
            session.exec(text(f"UPDATE {table} SET metadata = json_remove(metadata, '$.{key}') "
                              f"WHERE instr(metadata, '\"{key}\"') AND json_valid(metadata)"))


_MIGRATIONS = {
    # 2: promotion_request and audit_entry, new tables that create_all makes.
    3: (_add_chunk_role, _add_indexes, _reanalyze_rtl_fulltext, _repair_json),
    4: (_add_audit_payload,),
    5: (_add_memory_type,),
    6: (_move_links_to_relations,),
    # 7: chat_message, a new table that create_all makes.
}
"""Schema version → the steps that bring the previous version to it (inside one write transaction)."""


_TABLES = (
    tables.MetaRow, tables.ScopeRow, tables.DocumentRow, tables.TagRow,
    tables.VersionRow, tables.ChunkRow, tables.JobRow, tables.PromotionRequestRow, tables.AuditRow,
    tables.RelationRow, tables.ChatMessageRow,
)


@contextmanager
def write_session(engine: Engine) -> Iterator[Session]:
    """A session whose transaction takes the write lock at once and commits on success, rolls back on error."""
    with Session(engine.execution_options(sqlite_begin="IMMEDIATE"), expire_on_commit=False) as session, \
            session.begin():
        yield session


@contextmanager
def read_session(engine: Engine) -> Iterator[Session]:
    """A session for reads (a deferred transaction: it never blocks writers in WAL mode)."""
    with Session(engine, expire_on_commit=False) as session, session.begin():
        yield session


def get_meta(session: Session, key: str, default: str | None = None) -> str | None:
    """Read one ``meta`` value."""
    row = session.get(tables.MetaRow, key)
    return default if row is None else row.value


def set_meta(session: Session, key: str, value: str) -> None:
    """Write one ``meta`` value (inside the caller's write transaction)."""
    row = session.get(tables.MetaRow, key)
    if row is None:
        session.add(tables.MetaRow(key=key, value=value))
    else:
        row.value = value
        session.add(row)
