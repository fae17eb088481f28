"""Create a library's schema or bring it to :data:`~.HEAD_REVISION` with Alembic, copying the database first.

Programmatic Alembic, without ``env.py`` or ``alembic.ini``: the revisions are read from the package's
``versions/`` folder and run on the library's own engine, inside one write transaction (``BEGIN IMMEDIATE`` on
SQLite, the advisory write lock on PostgreSQL, as every write; both make DDL transactional): a failing step leaves
the library as it was, and two processes opening an old library at once upgrade it once (the second finds it at
head under the lock).
"""

from __future__ import annotations

import sqlite3
from functools import cache
from pathlib import Path

from alembic.operations import Operations
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Connection, Engine, insert, update
from sqlalchemy.exc import SQLAlchemyError

from ...core.errors import LibraryError, LibraryNeedsUpgrade, LibraryTooNew
from .. import tables
from ..backups import backup_database, timestamp, unique_path
from ..db import SchemaState, SchemaUpgrade, schema_state
from ..postgres import WRITE_OPTION
from . import HEAD_REVISION, revision_for, scripts_folder, version_of


@cache
def script_directory() -> ScriptDirectory:
    """The revisions, read once per process (the files are compiled on first read)."""
    return ScriptDirectory(str(scripts_folder()))


def upgrade_schema(engine: Engine, backups: Path, found: SchemaState, *,
                   upgrade_server: bool = False) -> SchemaUpgrade | None:
    """Bring the library of ``engine``, found in state ``found`` (``store.db.schema_state``), to the head revision.

    A new (empty) database runs every revision from ``schema1``. A library from before Alembic is first stamped
    with the revision of its ``meta.schema_version``. An embedded library at an older revision is copied to
    ``backups`` (``library-schemaN-<time>.sqlite``) before anything changes; a server database at an older revision
    is upgraded only with ``upgrade_server`` (its copy is the operator's: ``store.db.ensure_schema``). The copy and
    the revisions are made under the write lock, the state read again there: of several processes opening an old
    library at once, one copies and upgrades it, the others wait and find it upgraded.

    Returns:
        The :class:`~..db.SchemaUpgrade` made, or None (a new library, one only stamped, or one another process
        upgraded meanwhile).

    Raises:
        LibraryTooNew: the library's revision (or, before Alembic, its schema version) is unknown to this program.
        LibraryNeedsUpgrade: a server database at an older revision, without ``upgrade_server``; it is unchanged.
        LibraryError: the copy cannot be made, or a revision fails; the library is unchanged in both cases.
    """
    script = script_directory()
    known = {revision.revision for revision in script.walk_revisions()}
    server = engine.dialect.name != "sqlite"
    _refuse_unknown(_start(found), known)  # before the write lock: a newer library may be on a read-only disk
    upgrade = None
    try:
        with engine.execution_options(**{WRITE_OPTION: True}).connect() as connection, connection.begin():
            found = schema_state(connection)
            start = _start(found)
            _refuse_unknown(start, known)
            if start == HEAD_REVISION and found.revision is not None:
                return None
            if start is not None and start != HEAD_REVISION:
                if server and not upgrade_server:
                    raise LibraryNeedsUpgrade(_needs_upgrade(start))
                upgrade = SchemaUpgrade(_version(start), tables.SCHEMA_VERSION, None) if server else \
                    _copy_first(engine, backups, start)
            _run(connection, script, start if found.revision is None else None)
    except (SQLAlchemyError, CommandError) as error:  # CommandError: e.g. two rows in alembic_version
        kept = f"; a copy of it as it was is at {upgrade.backup}" if upgrade and upgrade.backup else ""
        cause = getattr(error, "orig", None) or error  # the database's own words, not the SQL statement
        raise LibraryError(f"cannot bring the library database to schema {tables.SCHEMA_VERSION} ({cause}); "
                           f"nothing was changed{kept}") from error
    return upgrade


def _start(found: SchemaState) -> str | None:
    """The revision the library is at: recorded by Alembic, or that of its schema version from before Alembic."""
    if found.revision is None and found.legacy_version is not None:
        return revision_for(found.legacy_version)
    return found.revision


def _refuse_unknown(start: str | None, known: set[str]) -> None:
    if start is not None and start not in known:
        raise LibraryTooNew(
            f"this library was written by a newer Vancetope Desktop (schema {_label(start)}; this version "
            f"reads up to {tables.SCHEMA_VERSION}); update the program to open it")


def _label(revision: str) -> str:
    version = version_of(revision)
    return revision if version is None else str(version)


def _version(start: str) -> int:
    version = version_of(start)
    assert version is not None, start  # every revision of versions/ is named schemaN
    return version


def _needs_upgrade(start: str) -> str:
    return (f"the team library's database is at schema {_version(start)}; this version of Vancetope Desktop uses "
            f"schema {tables.SCHEMA_VERSION}: back the database up (pg_dump), make sure no older version of the "
            "program still uses it, then upgrade it explicitly")


def _copy_first(engine: Engine, backups: Path, start: str) -> SchemaUpgrade:
    version = _version(start)
    copy = unique_path(backups / f"library-schema{version}-{timestamp()}.sqlite")
    try:
        backup_database(engine, copy)
    except (OSError, sqlite3.Error) as error:
        raise LibraryError(f"cannot copy the library database to {copy} before upgrading it from schema "
                           f"{version} to {tables.SCHEMA_VERSION} ({error}); nothing was changed: free disk "
                           "space or make the folder writable, then open the library again") from error
    return SchemaUpgrade(version, tables.SCHEMA_VERSION, copy)


def _run(connection: Connection, script: ScriptDirectory, stamp: str | None) -> None:
    """Run the revisions from the library's current one to head, inside the caller's transaction; ``stamp``: the
    revision to record first in a library from before Alembic."""

    def steps(heads, _context):
        return script._upgrade_revs("head", heads)  # what ``alembic upgrade head`` runs (alembic.command.upgrade)

    # Configured inside the transaction: Alembic then opens none of its own (it commits DDL itself on SQLite).
    context = MigrationContext.configure(connection, opts={"script": script, "fn": steps})
    if stamp is not None:
        context.stamp(script, stamp)
    with Operations.context(context):
        context.run_migrations()
    _mirror_version(connection)


def _mirror_version(connection: Connection) -> None:
    """Write ``meta.schema_version``: programs from before Alembic refuse a library whose number exceeds theirs."""
    meta = tables.MetaRow.__table__  # type: ignore[attr-defined]
    value = str(tables.SCHEMA_VERSION)
    if connection.execute(update(meta).where(meta.c.key == "schema_version").values(value=value)).rowcount == 0:
        connection.execute(insert(meta).values(key="schema_version", value=value))
