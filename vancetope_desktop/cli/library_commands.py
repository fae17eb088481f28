"""``vancetope library``: create a library (embedded, or a team library on servers), upgrade a team library's
database, and say what a library is and where its parts are (``services.team_library``, ``services.library_info``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from ..index.chroma_server import DEFAULT_TENANT
from ..services import library_info, team_library
from ..services.library import Library
from ..store import tables
from .apps import library_app
from .context import JsonOption, emit, guarded, library_path, open_library, out
from .team_options import (
    DEFAULT_TOKEN_HEADER,
    ChromaCaOption,
    ChromaDatabaseOption,
    ChromaInsecureOption,
    ChromaTenantOption,
    ChromaTokenHeaderOption,
    DbOption,
    FilesOption,
    TeamFlag,
    VectorsOption,
    create_descriptor,
)

PathArgument = Annotated[Path, typer.Argument(help="The library's folder.", show_default=False)]


@library_app.command("create")
def library_create(
    path: PathArgument,
    team: TeamFlag = False,
    db: DbOption = None,
    vectors: VectorsOption = None,
    files: FilesOption = None,
    chroma_tenant: ChromaTenantOption = DEFAULT_TENANT,
    chroma_database: ChromaDatabaseOption = None,
    chroma_token_header: ChromaTokenHeaderOption = DEFAULT_TOKEN_HEADER,
    chroma_ca: ChromaCaOption = None,
    chroma_insecure: ChromaInsecureOption = False,
    as_json: JsonOption = False,
) -> None:
    """Create a library at PATH: an embedded one (as opening PATH would), or with --team a team library's
    descriptor (no data, no secrets) after checking that both servers answer and let you in; nothing is written
    when one does not. Open it afterwards with --library PATH or VANCETOPE_LIBRARY=PATH.

    --json prints {path, backend, description, documents} (documents: those already in the database a team
    library's descriptor opens; 0 for a new library).
    """
    with guarded():
        create_descriptor(path, team, db, vectors, files, chroma_tenant=chroma_tenant, chroma_database=chroma_database,
                          chroma_token_header=chroma_token_header, chroma_ca=chroma_ca,
                          chroma_insecure=chroma_insecure)
        with Library.open(path) as lib:  # a team library's schema made now, not by the first member
            description, documents = lib.describe(), library_info.library_info(lib).documents
    # A second member's descriptor opens the library its first member made: said, so that nobody takes it for a
    # new, empty one (a tester, 3 Dec 2026).
    joined = f" (it opens the library already there: {documents} documents)" if documents else ""
    value = {"path": str(path.expanduser().resolve()), "backend": "team" if team else "embedded",
             "description": description, "documents": documents}
    emit(as_json, value, lambda: out.print(f"created: {description}{joined}", markup=False))


@library_app.command("upgrade")
def library_upgrade(path: PathArgument, as_json: JsonOption = False) -> None:
    """Bring a team library's database to this program's schema, once its operator has backed it up (pg_dump) and
    no older program uses it. An embedded library upgrades itself when opened (after copying itself to backups/).

    --json prints {path, backend, from_schema, to_schema} (from_schema null: nothing to do).
    """
    with guarded():
        root = path.expanduser().resolve()
        if team_library.read_descriptor(root) is None:
            value = {"path": str(root), "backend": "embedded", "from_schema": None, "to_schema": tables.SCHEMA_VERSION}
            emit(as_json, value, lambda: out.print(
                f"{root} is an embedded library: it upgrades itself when opened, after copying itself to its "
                "backups/ folder; nothing to do here", markup=False))
            return
        _descriptor, upgrade = team_library.upgrade_team_library(root)
    value = {"path": str(root), "backend": "team", "from_schema": upgrade.from_version if upgrade else None,
             "to_schema": tables.SCHEMA_VERSION}
    emit(as_json, value, lambda: out.print(
        f"upgraded the team library's database from schema {upgrade.from_version} to {upgrade.to_version}"
        if upgrade else f"the team library's database is at schema {tables.SCHEMA_VERSION} already", markup=False))


@library_app.command("info")
def library_info_command(
    path: Annotated[Path | None, typer.Argument(
        help="The library's folder (default: --library, $VANCETOPE_LIBRARY, your data directory).",
        show_default=False)] = None,
    as_json: JsonOption = False,
) -> None:
    """Which library this is: embedded or team, its schema, its documents and chunks, and where each part is
    (database, vectors, files, settings, locks, backups; never a password).

    --json prints {backend, description, root, schema_revision, documents, chunks, database, vectors, files,
    settings, locks, backups}.
    """
    with open_library(library_path(path)) as lib:
        info = library_info.library_info(lib)
    emit(as_json, info, lambda: _print_info(info))


def _print_info(info: library_info.LibraryInfo) -> None:
    out.print(escape(info.description))
    for label, value in (("schema", info.schema_revision or "none"), ("documents", info.documents),
                         ("chunks", info.chunks), ("database", info.database), ("vectors", info.vectors),
                         ("files", info.files), ("settings", info.settings), ("locks", info.locks),
                         ("backups", info.backups)):
        out.print(f"  {label + ':':<11}{value}", markup=False)

