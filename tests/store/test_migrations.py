"""The schema evolved with Alembic (issue 17): a new library is created at the head revision, a library of any
older schema upgrades in place behind a copy, one of a schema this program does not know is refused untouched, and
the migrated schema is the one the models (``store/tables.py``) describe."""

import sqlite3
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import MetaData, create_engine
from sqlmodel import SQLModel

from tests.store.schemas import DOWNGRADES, as_written_before_alembic
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import LibraryError, LibraryTooNew
from vancetope_desktop.services import audit, documents, moves, relations, scopes
from vancetope_desktop.services.library import Library
from vancetope_desktop.store.migrations import HEAD_REVISION
from vancetope_desktop.store.migrations.upgrade import script_directory
from vancetope_desktop.store.tables import SCHEMA_VERSION

ME = "user:ana"


def _query(database: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(database) as con:
        return con.execute(sql).fetchall()


def _revision(database: Path) -> list[tuple]:
    return _query(database, "SELECT version_num FROM alembic_version")


def _meta_version(database: Path) -> str:
    return _query(database, "SELECT value FROM meta WHERE key = 'schema_version'")[0][0]


def _dump(database: Path) -> list[str]:
    with sqlite3.connect(database) as con:
        return list(con.iterdump())


def _schema(database: Path) -> dict:
    """Tables with their columns, indexes, unique constraints and foreign keys as SQLAlchemy reflects them, and
    every index name (SQLAlchemy skips expression indexes: sqlite_master names them)."""
    engine = create_engine(f"sqlite:///{database}")
    try:
        reflected = MetaData()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Skipped unsupported reflection of expression-based index"
            reflected.reflect(engine)
        tables = {
            table.name: (
                {(c.name, str(c.type), c.nullable, None if c.server_default is None else str(c.server_default.arg),
                  c.primary_key) for c in table.columns},
                {(i.name, tuple(c.name for c in i.columns), i.unique) for i in table.indexes},
                {tuple(sorted(c.name for c in u.columns)) for u in table.constraints if type(u).__name__ ==
                 "UniqueConstraint"},
                {(tuple(fk.parent.name for fk in k.elements), k.referred_table.name, k.ondelete)
                 for k in table.foreign_key_constraints},
            )
            for table in reflected.sorted_tables
        }
    finally:
        engine.dispose()
    indexes = {name for (name,) in _query(database, "SELECT name FROM sqlite_master WHERE type = 'index'")}
    return {"tables": tables, "indexes": indexes}


@pytest.fixture(scope="module")
def fresh_schema(tmp_path_factory) -> dict:
    """The schema of a library this program creates."""
    root = tmp_path_factory.mktemp("fresh") / "lib"
    Library.open(root).close()
    return _schema(root / "library.sqlite")


def test_a_new_library_is_created_at_the_head_revision_without_a_copy(tmp_path):
    root = tmp_path / "lib"
    with Library.open(root) as lib:
        assert lib.notices == []
    database = root / "library.sqlite"
    assert _revision(database) == [(HEAD_REVISION,)] and _meta_version(database) == str(SCHEMA_VERSION)
    assert script_directory().get_current_head() == HEAD_REVISION  # versions/ ends at this program's schema
    assert not (root / "backups").exists()
    assert _query(database, "SELECT name FROM sqlite_master WHERE name = 'chunk_fts'") == [("chunk_fts",)]


def test_the_migrated_schema_is_the_models_schema(tmp_path):
    """``alembic check``: the revisions from nothing to head make exactly the tables of ``store/tables.py``."""
    root = tmp_path / "lib"
    Library.open(root).close()
    engine = create_engine(f"sqlite:///{root / 'library.sqlite'}")

    def ours(obj, name, kind, _reflected, _compare_to):  # the FTS5 table and its shadow tables are not models
        return not (kind == "table" and name.startswith("chunk_fts"))

    try:
        with engine.connect() as connection, warnings.catch_warnings():
            warnings.simplefilter("ignore")  # expression indexes cannot be compared on SQLite (they are, below)
            context = MigrationContext.configure(connection, opts={
                "compare_type": True, "compare_server_default": True, "include_object": ours})
            assert compare_metadata(context, SQLModel.metadata) == []
    finally:
        engine.dispose()
    model_indexes = {index.name for table in SQLModel.metadata.tables.values() for index in table.indexes}
    assert model_indexes <= _schema(root / "library.sqlite")["indexes"]


def _old_library(root: Path) -> dict:
    """A library with documents, tags, a lineage edge, a wiki link and an audit entry; what it holds, to compare."""
    with Library.open(root) as lib:
        scopes.create_scope(lib, "session", "s1", parent="project/inbox")
        paper = documents.add_text(lib, "Attention replaces recurrence.", title="Paper", tags=["nlp"])
        result = documents.add_text(lib, "Claim: attention suffices.", doc_type=DocumentType.RESULT, title="Claims",
                                    derived_from=[paper.id], scope="session/s1")
        note = documents.add_text(lib, "Builds on [[Claims]].", doc_type=DocumentType.NOTE, title="Reading")
        moves.move_to_scope(lib, result.id, "project", actor=ME)
        return {"paper": paper.id, "result": result.id, "note": note.id,
                "titles": sorted(d.title for d in documents.list_documents(lib))}


@pytest.mark.parametrize("version", sorted(DOWNGRADES))
def test_a_library_of_each_older_schema_upgrades_in_place_behind_a_copy(tmp_path, version, fresh_schema):
    root = tmp_path / "lib"
    held = _old_library(root)
    database = root / "library.sqlite"
    DOWNGRADES[version](database)
    before = _dump(database)
    with Library.open(root) as lib:
        (copy,) = (root / "backups").glob(f"library-schema{version}-*.sqlite")
        assert lib.notices == [f"the library was upgraded from schema {version} to {SCHEMA_VERSION}; a copy of it "
                               f"as it was is at {copy}"]
        assert sorted(d.title for d in documents.list_documents(lib)) == held["titles"]
        assert documents.get_document(lib, held["paper"]).tags == ["nlp"]
        assert relations.derived_from(lib, held["result"]) == [held["paper"]]
        assert documents.get_document(lib, held["result"]).scope == "project/inbox"
        if version >= 2:  # the trail began with schema 2
            assert [e.action for e in audit.document_history(lib, held["result"])] == ["promote"]
    assert _dump(copy) == before  # the copy is the library as it was
    assert _revision(database) == [(HEAD_REVISION,)] and _meta_version(database) == str(SCHEMA_VERSION)
    assert _schema(database) == fresh_schema
    with Library.open(root) as lib:
        assert lib.notices == []  # upgraded once, copied once
    assert len(list((root / "backups").iterdir())) == 1


def test_a_library_of_the_last_schema_before_alembic_is_only_stamped(tmp_path, fresh_schema):
    root = tmp_path / "lib"
    _old_library(root)
    database = root / "library.sqlite"
    with sqlite3.connect(database) as con:
        as_written_before_alembic(con, SCHEMA_VERSION)
    with Library.open(root) as lib:
        assert lib.notices == []  # nothing changed but the revision's record: no copy
    assert _revision(database) == [(HEAD_REVISION,)] and not (root / "backups").exists()
    assert _schema(database) == fresh_schema


@pytest.mark.parametrize(("revision", "said"), [(f"schema{SCHEMA_VERSION + 1}", f"schema {SCHEMA_VERSION + 1};"),
                                                    ("e3f1a9c07b2d", "schema e3f1a9c07b2d;")])
def test_a_library_at_a_revision_this_program_does_not_know_is_refused_untouched(tmp_path, revision, said):
    root = tmp_path / "lib"
    Library.open(root).close()
    database = root / "library.sqlite"
    with sqlite3.connect(database) as con:  # as a newer program leaves it: its revision, the mirror raised
        con.execute("UPDATE alembic_version SET version_num = ?", (revision,))
        con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),))
    before = _dump(database)
    with pytest.raises(LibraryTooNew, match=f"newer Vancetope Desktop \\({said} this version reads up to "
                                            f"{SCHEMA_VERSION}\\); update the program"):
        Library.open(root)
    assert _dump(database) == before and not (root / "backups").exists()


def test_a_library_from_before_alembic_with_a_newer_schema_number_is_refused(tmp_path):
    root = tmp_path / "lib"
    Library.open(root).close()
    with sqlite3.connect(root / "library.sqlite") as con:
        as_written_before_alembic(con, SCHEMA_VERSION + 1)
    with pytest.raises(LibraryTooNew, match=f"schema {SCHEMA_VERSION + 1}; this version reads up to"):
        Library.open(root)
    assert _revision_table_absent(root / "library.sqlite")


def _revision_table_absent(database: Path) -> bool:
    return _query(database, "SELECT name FROM sqlite_master WHERE name = 'alembic_version'") == []


def test_opening_a_library_at_head_imports_neither_alembic_nor_postgresql(tmp_path):
    """Start-up cost: a library at head is checked with one read; Alembic is imported only to create or upgrade.
    Nor does a SQLite library load psycopg or SQLAlchemy's PostgreSQL dialect (``json_columns.JsonValue`` names
    JSONB only for a PostgreSQL engine; creating a library imports Alembic, and with it every dialect). One
    process checks both (test_postgres_schema.py checked the second in a process of its own)."""
    root = tmp_path / "lib"
    Library.open(root).close()
    probe = ("import sys; from pathlib import Path; from vancetope_desktop.services.library import Library; "
             f"Library.open(Path({str(root)!r})).close(); "
             "print(sorted(m for m in ('alembic', 'psycopg', 'sqlalchemy.dialects.postgresql') if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"


def test_a_failing_revision_leaves_the_library_as_it_was(tmp_path):
    """The revisions run in one transaction: a step that fails (here schema 6's move, on a damaged library whose
    ``relation`` table lacks its columns) changes nothing, and the copy made first is said."""
    root = tmp_path / "lib"
    _old_library(root)
    database = root / "library.sqlite"
    DOWNGRADES[4](database)
    with sqlite3.connect(database) as con:
        con.execute("CREATE TABLE relation (source_id VARCHAR)")
    before = _dump(database)
    with pytest.raises(LibraryError, match=r"cannot bring the library database to schema \d+ \(table relation has no "
                                           r"column named target_id\); nothing was changed; a copy of it as it "
                                           r"was is at .*library-schema4-"):
        Library.open(root)
    assert _dump(database) == before and _meta_version(database) == "4"


def test_processes_opening_an_old_library_at_once_upgrade_it_once(tmp_path):
    """The state is read again under the write lock: one process copies and upgrades, the others find it done
    (two copies in one second once raced for one file name)."""
    root = tmp_path / "lib"
    _old_library(root)
    DOWNGRADES[2](root / "library.sqlite")
    probe = ("import sys; from pathlib import Path; from vancetope_desktop.services.library import Library; "
             "lib = Library.open(Path(sys.argv[1])); print(len(lib.notices)); lib.close()")
    runs = [subprocess.Popen([sys.executable, "-c", probe, str(root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for _ in range(3)]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0, 0], [err for _, err in outputs]
    assert sorted(out.strip() for out, _ in outputs) == ["0", "0", "1"]
    assert len(list((root / "backups").iterdir())) == 1
    assert _revision(root / "library.sqlite") == [(HEAD_REVISION,)]
