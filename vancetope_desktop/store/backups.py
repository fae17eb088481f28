"""Copies kept in the library's ``backups/`` folder: the database before a schema migration, the vector
store before a newer Chroma migrates it, and a damaged vector store moved aside by a rebuild.

Nothing here deletes a backup: they are the user's to remove once the library is known to be fine.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from pathlib import Path

from sqlalchemy import Engine


def timestamp() -> str:
    """Local time as ``20250131-142501``, for backup names that sort by date."""
    return time.strftime("%Y%m%d-%H%M%S")


def unique_path(path: Path) -> Path:
    """``path`` if nothing is there yet, else ``path-2``, ``path-3``… (two backups in one second)."""
    candidate, number = path, 1
    while candidate.exists():
        number += 1
        candidate = path.with_name(f"{path.name}-{number}")
    return candidate


def backup_database(engine: Engine, destination: Path) -> None:
    """Copy the database of ``engine`` to ``destination`` with SQLite's online backup API.

    The copy is consistent (WAL content included) even while other processes read or write, and it
    appears under its name only once complete.

    Raises:
        OSError, sqlite3.Error: the copy cannot be written (disk full, no permission).
    """
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.with_name(destination.name + ".partial")
    source = engine.raw_connection()
    try:
        target = sqlite3.connect(partial)
        try:
            source.driver_connection.backup(target)  # type: ignore[union-attr]
        finally:
            target.close()
    finally:
        source.close()
    os.replace(partial, destination)


def copy_folder(source: Path, destination: Path) -> None:
    """Copy the folder ``source`` to ``destination``, which appears only once the copy is complete.

    Raises:
        OSError: the copy cannot be made (disk full, no permission); a partial copy is removed.
    """
    partial = destination.with_name(destination.name + ".partial")
    try:
        shutil.copytree(source, partial)
    except OSError:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    os.replace(partial, destination)
