"""The library schema's history as Alembic revisions (``versions/``), one per schema version: ``schema1`` builds the
tables of version 1 and each ``schemaN`` brings version N-1 to N. Alembic records a library's revision in its
``alembic_version`` table; ``meta.schema_version`` mirrors the version number for programs older than Alembic.

This module is what the start-up path reads (:data:`HEAD_REVISION`), so it imports no Alembic: Alembic is imported
by :mod:`.upgrade` only when a library must be created or upgraded. There are no downgrades: the copy made in
``backups/`` before an upgrade is the way back.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from ..tables import SCHEMA_VERSION

_PREFIX = "schema"


def revision_for(version: int) -> str:
    """The revision id of schema ``version`` (``7`` → ``"schema7"``)."""
    return f"{_PREFIX}{version}"


def version_of(revision: str) -> int | None:
    """The schema version of a revision id (``"schema7"`` → 7), None for an id not of that form."""
    number = revision.removeprefix(_PREFIX)
    return int(number) if revision.startswith(_PREFIX) and number.isdigit() else None


HEAD_REVISION = revision_for(SCHEMA_VERSION)
"""The revision a library opened by this program ends at (``versions/`` holds it: ``test_migrations`` checks)."""


def scripts_folder() -> Path:
    """The folder Alembic reads the revisions from (``versions/`` below it): package data, a real folder in the
    installed wheel and in the frozen bundle alike (``installer/vancetope.spec`` collects its ``.py`` files)."""
    return Path(str(files(__package__)))
