"""What a library is and where its parts are (``vancetope library info``): its backend, schema, size and places.

Every face answers "which library is this?" from here: an embedded one (a folder) or a team one (PostgreSQL, a
Chroma server, a shared files folder; ``team_library``). No secret is ever part of the answer.
"""

from __future__ import annotations

from pydantic import BaseModel
from sqlalchemy import func
from sqlmodel import select

from ..store import tables
from ..store.db import read_session, schema_state
from .library import Library


class LibraryInfo(BaseModel):
    """One library: ``backend`` ``"embedded"`` or ``"team"``, the one-line ``description`` (``Library.describe``),
    its schema revision (Alembic's, e.g. ``schema8``), its documents and chunks counted, and where each part is
    (``database``: a file's path or a URL without password; ``vectors``: a folder or a server with its tenant and
    database; ``settings``: a file or ``"the library's database"``)."""

    backend: str
    description: str
    root: str
    schema_revision: str | None
    documents: int
    chunks: int
    database: str
    vectors: str
    files: str
    settings: str
    locks: str
    backups: str


def library_info(lib: Library) -> LibraryInfo:
    """Describe the open library ``lib`` (two counts and the schema read in one snapshot)."""
    with read_session(lib.engine) as session:
        revision = schema_state(session.connection()).revision
        documents = session.exec(select(func.count()).select_from(tables.DocumentRow)).one()
        chunks = session.exec(select(func.count()).select_from(tables.ChunkRow)).one()
    team = lib.team
    if team is None:
        database, vectors, settings = str(lib.paths.database), str(lib.paths.chroma), str(lib.paths.settings)
    else:
        database = team.database.url
        vectors = (f"{team.vectors.url} (tenant {team.vectors.tenant}, database {team.vectors.database})")
        settings = "the library's database"
    return LibraryInfo(backend="team" if lib.is_team else "embedded", description=lib.describe(),
                       root=str(lib.paths.root), schema_revision=revision, documents=documents, chunks=chunks,
                       database=database, vectors=vectors, files=str(lib.paths.files), settings=settings,
                       locks=str(lib.paths.locks), backups=str(lib.paths.backups))
