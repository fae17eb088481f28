"""The library schema on a real PostgreSQL server (issue 17): an empty database migrates to the head revision and
its schema is the models' (as ``test_migrations`` checks on SQLite), an older server schema is upgraded only when
asked (schema 6's link move included), a newer one is refused untouched, writes hold the database's write lock,
and rows and services round-trip through it."""

import math
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.operations import Operations
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, text
from sqlalchemy.exc import OperationalError
from sqlmodel import SQLModel

from vancetope_desktop.core.errors import LibraryError, LibraryNeedsUpgrade, LibraryTooNew
from vancetope_desktop.core.settings import Settings
from vancetope_desktop.services import scopes
from vancetope_desktop.services.library import Library, LibraryPaths
from vancetope_desktop.store import tables
from vancetope_desktop.store.db import (
    SchemaUpgrade,
    create_database_engine,
    ensure_schema,
    is_busy,
    read_session,
    write_session,
)
from vancetope_desktop.store.migrations import HEAD_REVISION
from vancetope_desktop.store.migrations.upgrade import script_directory
from vancetope_desktop.store.postgres import WRITE_LOCK_KEY
from vancetope_desktop.store.tables import SCHEMA_VERSION

LEXICAL_TABLES = {"chunk_lexical", "chunk_term"}
"""The lexical index's tables (``store/pg_fulltext``), made by schema 9 with SQL of their own, not models."""
JSON_COLUMNS = {("scope", "settings"), ("document", "metadata"), ("document_version", "tags"),
                ("document_version", "metadata"), ("index_job", "payload"), ("audit_entry", "payload")}


@pytest.fixture
def engine(postgres_url: str, tmp_path) -> Engine:
    """An engine on the module's database, emptied first (each test starts from a database with no tables)."""
    engine = create_database_engine(postgres_url.replace("postgresql://", "postgresql+psycopg://", 1))
    with engine.connect() as connection, connection.begin():
        connection.exec_driver_sql("DROP SCHEMA public CASCADE")
        connection.exec_driver_sql("CREATE SCHEMA public")
    yield engine
    engine.dispose()


def _scalars(engine: Engine, sql: str) -> list:
    with engine.connect() as connection:
        return connection.execute(text(sql)).scalars().all()


def _differences(engine: Engine) -> list:
    """``alembic check`` on the database: what the models have that it lacks, or the reverse (types, server
    defaults and expression indexes included)."""
    def ours(_object, name, kind, _reflected, _compare_to) -> bool:  # the lexical tables are schema 9's SQL
        return not (kind == "table" and name in LEXICAL_TABLES)

    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True, "compare_server_default": True,
                                                               "include_object": ours})
        return compare_metadata(context, SQLModel.metadata)


def _migrate_to(engine: Engine, revision: str) -> None:
    """Run the revisions from nothing to ``revision``, as a program of that schema left a new database."""
    script = script_directory()

    def steps(heads, _context):
        return script._upgrade_revs(revision, heads)

    with engine.connect() as connection, connection.begin():
        context = MigrationContext.configure(connection, opts={"script": script, "fn": steps})
        with Operations.context(context):
            context.run_migrations()


def test_an_empty_database_is_created_at_the_head_revision_with_the_models_schema(engine, tmp_path):
    assert ensure_schema(engine, tmp_path / "backups") is None
    assert _scalars(engine, "SELECT version_num FROM alembic_version") == [HEAD_REVISION]
    assert _scalars(engine, "SELECT value FROM meta WHERE key = 'schema_version'") == [str(SCHEMA_VERSION)]
    assert _differences(engine) == []
    model_indexes = {index.name for table in SQLModel.metadata.tables.values() for index in table.indexes}
    assert model_indexes <= set(_scalars(engine, "SELECT indexname FROM pg_indexes WHERE schemaname = 'public'"))
    assert set(_scalars(engine, "SELECT indexdef FROM pg_indexes WHERE indexname = 'ix_audit_entry_undo'")) == {
        "CREATE INDEX ix_audit_entry_undo ON public.audit_entry USING btree (actor, id) "
        "WHERE ((payload ->> 'group'::text) IS NOT NULL)"}
    with engine.connect() as connection:
        types = set(connection.execute(text(
            "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = 'public' AND data_type IN ('jsonb', 'json', 'timestamp without time zone')")).all())
    assert types == {(table, column, "jsonb") for table, column in JSON_COLUMNS}  # and every time has its zone
    assert set(_scalars(engine, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
                                "AND tablename LIKE 'chunk\\_%'")) == LEXICAL_TABLES
    assert {"ix_chunk_lexical_tsv", "ix_chunk_term_chunk"} <= set(_scalars(
        engine, "SELECT indexname FROM pg_indexes WHERE schemaname = 'public'"))
    assert not (tmp_path / "backups").exists()
    assert ensure_schema(engine, tmp_path / "backups") is None  # at head: one read


def test_the_comparison_sees_a_wrong_expression_index(engine, tmp_path):
    """The check above can fail: an index on the wrong key of the payload is a difference."""
    ensure_schema(engine, tmp_path)
    with engine.connect() as connection, connection.begin():
        connection.exec_driver_sql("DROP INDEX ix_audit_entry_target")
        connection.exec_driver_sql("CREATE INDEX ix_audit_entry_target ON audit_entry ((payload ->> 'group'))")
    assert {kind for kind, *_ in _differences(engine)} == {"remove_index", "add_index"}


@pytest.mark.parametrize(("revision", "said"), [(f"schema{SCHEMA_VERSION + 1}", f"schema {SCHEMA_VERSION + 1};"),
                                                    ("e3f1a9c07b2d", "schema e3f1a9c07b2d;")])
def test_a_database_at_a_revision_this_program_does_not_know_is_refused_untouched(engine, tmp_path, revision, said):
    ensure_schema(engine, tmp_path)
    with engine.connect() as connection, connection.begin():
        connection.execute(text("UPDATE alembic_version SET version_num = :r"), {"r": revision})
    with pytest.raises(LibraryTooNew, match=f"newer Vancetope Desktop \\({said} this version reads up to "):
        ensure_schema(engine, tmp_path, upgrade_server=True)
    assert _scalars(engine, "SELECT version_num FROM alembic_version") == [revision]


def test_a_database_without_its_revision_record_is_stamped_from_its_schema_number(engine, tmp_path):
    """The stamp logic of libraries from before Alembic, on the server: ``meta.schema_version`` names the revision,
    recorded without running anything (at head: no upgrade to ask for)."""
    ensure_schema(engine, tmp_path)
    with engine.connect() as connection, connection.begin():
        connection.exec_driver_sql("DROP TABLE alembic_version")
    assert ensure_schema(engine, tmp_path) is None
    assert _scalars(engine, "SELECT version_num FROM alembic_version") == [HEAD_REVISION]
    with engine.connect() as connection, connection.begin():  # one schema further than this program: refused
        connection.exec_driver_sql("DROP TABLE alembic_version")
        connection.execute(text("UPDATE meta SET value = :v WHERE key = 'schema_version'"),
                           {"v": str(SCHEMA_VERSION + 1)})
    with pytest.raises(LibraryTooNew, match=f"schema {SCHEMA_VERSION + 1}; this version reads up to"):
        ensure_schema(engine, tmp_path, upgrade_server=True)
    assert _scalars(engine, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'alembic_version'") \
        == [0]


def _schema5_library(engine: Engine) -> None:
    """A database as a program of schema 5 left it: lineage and wiki links in the documents' metadata lists (one to
    a purged document, one to itself), in a kept version's too."""
    _migrate_to(engine, "schema5")
    now = datetime.now(UTC)
    with engine.connect() as connection, connection.begin():
        connection.execute(text("INSERT INTO scope (path, kind, key, name, archived, settings, created_at) "
                                "VALUES ('project/p', 'project', 'p', 'P', false, '{}', :now)"), {"now": now})
        for doc, meta in (("a", '{}'), ("b", '{"derived_from": ["a", "gone", "b"], "links_to": ["a", "a"], "k": 1}'),
                          ("c", '{"links_to": "a"}')):
            connection.execute(text(
                "INSERT INTO document (id, scope_path, type, title, mime_type, source_type, metadata, status, "
                "index_state, version, created_at, updated_at) VALUES (:id, 'project/p', 'note', :id, 'text/plain', "
                "'manual', CAST(:meta AS jsonb), 'active', 'pending', 1, :now, :now)"),
                {"id": doc, "meta": meta, "now": now})
        connection.execute(text(
            "INSERT INTO document_version (document_id, number, title, tags, metadata, reason, created_at) "
            "VALUES ('b', 1, 'b', '[]', '{\"links_to\": [\"a\"]}', 'edit', :now)"), {"now": now})


def test_an_older_server_schema_is_upgraded_only_when_asked_and_its_links_move(engine, tmp_path):
    _schema5_library(engine)
    with pytest.raises(LibraryNeedsUpgrade, match="database is at schema 5; this version of Vancetope Desktop uses "
                                                  f"schema {SCHEMA_VERSION}: back the database up"):
        ensure_schema(engine, tmp_path)
    assert _scalars(engine, "SELECT version_num FROM alembic_version") == ["schema5"]
    assert ensure_schema(engine, tmp_path, upgrade_server=True) == SchemaUpgrade(5, SCHEMA_VERSION, None)
    with engine.connect() as connection:
        edges = set(connection.execute(text("SELECT source_id, target_id, type, created_by FROM relation")).all())
        metadata = dict(connection.execute(text("SELECT id, metadata FROM document")).all())
        kept = connection.execute(text("SELECT metadata FROM document_version")).scalar_one()
    assert edges == {("b", "a", "derived_from", "migration:schema-6"), ("b", "a", "links_to", "migration:schema-6")}
    assert metadata == {"a": {}, "b": {"k": 1}, "c": {}} and kept == {}  # "c" held no list: dropped, not moved
    assert _scalars(engine, "SELECT version_num FROM alembic_version") == [HEAD_REVISION]
    assert _differences(engine) == [] and not (tmp_path / "backups").exists()


def test_processes_creating_a_database_at_once_create_it_once(engine, postgres_url):
    """The state is read again under the write lock: one process runs the revisions, the others wait for it and
    find the database at head (without the lock, the second ``CREATE TABLE meta`` fails)."""
    probe = ("import sys; from pathlib import Path; from vancetope_desktop.store.db import create_database_engine, "
             "ensure_schema; engine = create_database_engine(sys.argv[1]); "
             "print(ensure_schema(engine, Path(sys.argv[2]))); engine.dispose()")
    runs = [subprocess.Popen([sys.executable, "-c", probe, postgres_url, "/nonexistent"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0, 0], [err for _, err in outputs]
    assert [out.strip() for out, _ in outputs] == ["None"] * 3
    assert _scalars(engine, "SELECT version_num FROM alembic_version") == [HEAD_REVISION]
    assert _differences(engine) == []


def _holds_write_lock_elsewhere(engine: Engine) -> bool:
    """Whether another connection finds the database's write lock taken."""
    with engine.connect() as other:
        free = other.execute(text("SELECT pg_try_advisory_xact_lock(:k)"), {"k": WRITE_LOCK_KEY}).scalar_one()
        other.rollback()
    return not free


def test_a_write_transaction_holds_the_write_lock_and_a_read_one_a_snapshot(engine, tmp_path):
    ensure_schema(engine, tmp_path)
    with write_session(engine) as session:
        session.exec(text("SELECT 1"))
        assert _holds_write_lock_elsewhere(engine)
    assert not _holds_write_lock_elsewhere(engine)
    with read_session(engine) as session:
        assert session.exec(text("SHOW transaction_isolation")).scalar_one() == "repeatable read"
        before = session.exec(text("SELECT count(*) FROM meta")).scalar_one()
        with write_session(engine) as writer:  # another transaction commits meanwhile
            writer.add(tables.MetaRow(key="k", value="v"))
        assert not _holds_write_lock_elsewhere(engine)
        assert session.exec(text("SELECT count(*) FROM meta")).scalar_one() == before  # the snapshot holds


def test_a_writer_waiting_past_the_lock_timeout_is_told_busy(engine, tmp_path):
    """What the digest and the topic upkeep turn into "the library stayed locked…": PostgreSQL's lock timeout
    (shortened here from a minute) is recognised as SQLite's "database is locked" is."""
    ensure_schema(engine, tmp_path)
    with write_session(engine) as session, engine.connect() as other:
        session.exec(text("SELECT 1"))
        other.exec_driver_sql("SET LOCAL lock_timeout = '50ms'")
        with pytest.raises(OperationalError) as waited:
            other.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": WRITE_LOCK_KEY})
        other.rollback()
    assert is_busy(waited.value)
    with engine.connect() as connection, pytest.raises(OperationalError) as failed:  # another operational failure
        connection.exec_driver_sql("SET LOCAL statement_timeout = '10ms'")
        connection.exec_driver_sql("SELECT pg_sleep(5)")
    assert not is_busy(failed.value)


def test_rows_and_the_scope_services_round_trip(engine, tmp_path):
    ensure_schema(engine, tmp_path)
    library = Library(LibraryPaths(tmp_path / "lib"), Settings(), engine)
    library._bootstrap()
    made = datetime(2026, 1, 31, 14, 25, 1, 123456, tzinfo=UTC)
    meta = {"score": math.nan, "when": made, "title": "Ünïcode ✓ 日本語", "nested": {"list": [1, 2.5, None]}}
    with write_session(engine) as session:
        session.add(tables.DocumentRow(id="d1", scope_path="project/inbox", type="note", title="T", meta=meta,
                                       created_at=made, updated_by="user:ana"))
    with read_session(engine) as session:
        row = session.get(tables.DocumentRow, "d1")
    assert row.meta == {"score": None, "when": made.isoformat(), "title": "Ünïcode ✓ 日本語",
                        "nested": {"list": [1, 2.5, None]}}  # NaN and the date made JSON, as on SQLite
    assert row.created_at == made and row.created_at.utcoffset().total_seconds() == 0
    scopes.create_scope(library, "session", "s1", parent="project/inbox", name="First")
    listed = {info.path: info.name for info in scopes.list_scopes(library)}
    assert listed == {"group/default": "My Research", "project/inbox": "Inbox", "session/s1": "First"}
    assert scopes.current_scope(library) == "project/inbox"


def test_a_database_url_that_is_not_postgresql_or_not_answering_is_a_clear_error(postgres_url):
    with pytest.raises(LibraryError, match="postgresql:// \\(or postgres://\\), not mysql://") as raised:
        create_database_engine("mysql://someone:secret@localhost/db")
    assert "secret" not in str(raised.value)
    # libpq's short scheme is PostgreSQL too (a tester's `--db postgres://…` was refused, 3 Dec 2026)
    create_database_engine(postgres_url.replace("postgresql://", "postgres://", 1)).dispose()
    closed = postgres_url.replace("@", ":s3cret@", 1).rsplit(":", 1)[0] + ":1/nowhere"
    with pytest.raises(LibraryError, match="cannot open the library database postgresql://") as raised:
        create_database_engine(closed)
    assert "s3cret" not in str(raised.value)
    missing = postgres_url.rsplit("/", 1)[0] + "/no_such_library"
    with pytest.raises(LibraryError) as raised:
        create_database_engine(missing)
    assert "administrator creates it (e.g. `createdb --owner vancetope no_such_library`)" in str(raised.value)


def test_paths_are_still_sqlite(tmp_path):
    engine = create_database_engine(Path(tmp_path / "library.sqlite"))
    try:
        assert engine.dialect.name == "sqlite"
    finally:
        engine.dispose()
