"""Backups before migrations (issue 10): the database before a schema upgrade (SQLite's online backup API), the
vector store before a newer Chroma opens it; both said, with where they are; no copy, no migration."""

import sqlite3

import pytest
from typer.testing import CliRunner

from tests.store.schemas import downgrade_to_schema_2
from vancetope_desktop.cli.main import app
from vancetope_desktop.core.errors import LibraryError
from vancetope_desktop.index.vector_store import installed_chroma_version
from vancetope_desktop.services import documents, indexing, search
from vancetope_desktop.services.library import CHROMA_VERSION_KEY, Library
from vancetope_desktop.store.tables import SCHEMA_VERSION


def _meta(path, key):
    with sqlite3.connect(path / "library.sqlite") as con:
        row = con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else row[0]


def _set_meta(path, key, value):
    with sqlite3.connect(path / "library.sqlite") as con:
        con.execute("UPDATE meta SET value = ? WHERE key = ?", (value, key))


@pytest.fixture
def schema_2(tmp_path):
    """A library taken back to schema 2."""
    path = tmp_path / "lib"
    with Library.open(path) as lib:
        assert lib.notices == [] and not (path / "backups").exists()  # a new library: nothing to copy
        documents.add_text(lib, "An old note about herons", title="Old")
    downgrade_to_schema_2(path / "library.sqlite")
    return path


def test_the_database_is_copied_before_its_schema_is_upgraded(schema_2):
    result = CliRunner().invoke(app, ["memory", "list", "--library", str(schema_2)])
    assert result.exit_code == 0, result.output
    (copy,) = (schema_2 / "backups").glob("library-schema2-*.sqlite")
    assert f"note: the library was upgraded from schema 2 to {SCHEMA_VERSION}; a copy of it as it was is at {copy}" in (
        " ".join(result.stderr.split()))
    with sqlite3.connect(copy) as con:  # the library as it was: schema 2, no chunk roles, the note in it
        assert con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() == ("2",)
        assert "role" not in {row[1] for row in con.execute("PRAGMA table_info(chunk)")}
        assert con.execute("SELECT title FROM document WHERE type != 'folder'").fetchall() == [("Old",)]
    assert _meta(schema_2, "schema_version") == str(SCHEMA_VERSION)
    with Library.open(schema_2) as lib:
        assert lib.notices == []  # upgraded once, copied once


def test_no_copy_no_upgrade(schema_2):
    (schema_2 / "backups").write_text("a file where the backups folder should be")
    with pytest.raises(LibraryError, match=r"cannot copy the library database .* nothing was changed"):
        Library.open(schema_2)
    assert _meta(schema_2, "schema_version") == "2"


@pytest.fixture
def old_chroma(tmp_path):
    """An indexed library whose vector store was, as far as the library knows, written by Chroma 0.4.24."""
    path = tmp_path / "lib"
    with Library.open(path) as lib:
        doc = documents.add_text(lib, "Herons nest in colonies near lakes", title="Herons")
        indexing.try_drain(lib)
    assert _meta(path, CHROMA_VERSION_KEY) == installed_chroma_version()
    _set_meta(path, CHROMA_VERSION_KEY, "0.4.24")
    return path, doc.id


def test_the_vector_store_is_copied_before_a_newer_chroma_opens_it(old_chroma):
    path, doc_id = old_chroma
    with Library.open(path) as lib:
        (copy,) = (path / "backups").glob("chroma-0.4.24-*")
        assert lib.notices == [f"the vector store written by Chroma 0.4.24 is opened by Chroma "
                               f"{installed_chroma_version()}, which may upgrade it; a copy of it as it was is at "
                               f"{copy}"]
        assert (copy / "chroma.sqlite3").stat().st_size > 0
        assert search.search(lib, "where do wading birds breed").hits[0].document.id == doc_id
    assert _meta(path, CHROMA_VERSION_KEY) == installed_chroma_version()
    with Library.open(path) as lib:
        assert lib.notices == []


def test_an_old_vector_store_is_not_opened_without_its_copy(old_chroma):
    path, _ = old_chroma
    (path / "backups").write_text("a file where the backups folder should be")
    with pytest.raises(LibraryError, match=r"cannot copy the vector store .* written by Chroma 0\.4\.24"):
        Library.open(path)
    assert _meta(path, CHROMA_VERSION_KEY) == "0.4.24"


def test_a_store_of_a_newer_or_the_same_chroma_is_not_copied(old_chroma):
    path, _ = old_chroma
    _set_meta(path, CHROMA_VERSION_KEY, "99.0.0")
    with Library.open(path) as lib:
        assert lib.notices == []
    assert _meta(path, CHROMA_VERSION_KEY) == "99.0.0" and not (path / "backups").exists()
