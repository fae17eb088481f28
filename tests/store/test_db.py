"""The library database: WAL, foreign keys, schema version, refusal of newer libraries."""

import sqlite3

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

from vancetope_desktop.core.errors import LibraryError, LibraryTooNew
from vancetope_desktop.services.library import Library
from vancetope_desktop.store import tables
from vancetope_desktop.store.db import is_busy, write_session


def test_database_settings_and_layout(library):
    root = library.paths.root
    assert (root / "library.sqlite").exists() and (root / "files").is_dir() and (root / "settings.json").exists()
    with library.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    with sqlite3.connect(root / "library.sqlite") as con:
        version = con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0]
    assert int(version) == tables.SCHEMA_VERSION


def test_a_library_from_a_newer_version_is_refused(tmp_path):
    Library.open(tmp_path / "lib").close()
    with sqlite3.connect(tmp_path / "lib" / "library.sqlite") as con:  # as a newer program leaves it
        con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(tables.SCHEMA_VERSION + 1),))
        con.execute("UPDATE alembic_version SET version_num = ?", (f"schema{tables.SCHEMA_VERSION + 1}",))
    with pytest.raises(LibraryTooNew, match="newer Vancetope Desktop"):
        Library.open(tmp_path / "lib")


def test_a_file_that_is_not_a_database_is_a_clear_error(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "library.sqlite").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(LibraryError, match="cannot open the library database"):
        Library.open(tmp_path / "lib")


def test_invalid_settings_file_names_the_problem(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "settings.json").write_text('{"embedding_batch_size": 0}')
    with pytest.raises(LibraryError, match="embedding_batch_size"):
        Library.open(tmp_path / "lib")


def test_a_write_lock_wait_past_the_timeout_is_told_busy(library):
    """SQLite's side of ``is_busy`` (PostgreSQL's: ``test_postgres_schema``): the lock wait, not other failures."""
    impatient = create_engine(f"sqlite:///{library.paths.database}", connect_args={"timeout": 0})
    try:
        with write_session(library.engine) as session, impatient.connect() as other:
            session.exec(text("INSERT INTO meta (key, value) VALUES ('k', 'v')"))
            with pytest.raises(OperationalError) as waited:
                other.exec_driver_sql("BEGIN IMMEDIATE")
        assert is_busy(waited.value)
        with impatient.connect() as other, pytest.raises(OperationalError) as failed:
            other.exec_driver_sql("SELECT * FROM no_such_table")
        assert not is_busy(failed.value)
    finally:
        impatient.dispose()
