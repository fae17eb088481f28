"""The options that describe a new team library, shared by ``library create --team`` and ``library migrate --team``,
and the creation of its descriptor from them (``services.team_library``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..core.errors import InvalidInput
from ..index.chroma_server import DEFAULT_TENANT
from ..services import team_library

TeamFlag = Annotated[bool, typer.Option("--team", help="A team library: its database on PostgreSQL, its vectors on "
                                        "a Chroma server, its files in a shared folder.")]
DbOption = Annotated[str | None, typer.Option("--db", help="The PostgreSQL database: postgresql://ROLE[:PASSWORD]@HOST"
                                              ":PORT/DATABASE[?sslmode=…]. A password goes to the system keyring, "
                                              "never into PATH; without a keyring give it by PGPASSFILE or "
                                              "PGPASSWORD instead.", show_default=False)]
VectorsOption = Annotated[str | None, typer.Option("--vectors", help="The Chroma server: http(s)://HOST:PORT.",
                                                   show_default=False)]
FilesOption = Annotated[Path | None, typer.Option("--files", help="The shared files folder (the same path on every "
                                                  "member's machine; created if missing).", show_default=False)]
ChromaTenantOption = Annotated[str, typer.Option("--chroma-tenant", help="The Chroma tenant.")]
ChromaDatabaseOption = Annotated[str | None, typer.Option(
    "--chroma-database", help="The Chroma database (default: the PostgreSQL database's name).", show_default=False)]
ChromaTokenHeaderOption = Annotated[str, typer.Option(
    "--chroma-token-header", help="How the token (VANCETOPE_CHROMA_TOKEN) is sent: Authorization or X-Chroma-Token.")]
ChromaCaOption = Annotated[Path | None, typer.Option("--chroma-ca", help="A CA bundle to verify an https Chroma "
                                                     "server with.", show_default=False)]
ChromaInsecureOption = Annotated[bool, typer.Option("--chroma-insecure", help="Do not verify an https Chroma "
                                                    "server's certificate.")]
DEFAULT_TOKEN_HEADER = "Authorization"
"""``--chroma-token-header``'s default (``ChromaServer.token_header``'s)."""


def create_descriptor(path: Path, team: bool, db: str | None, vectors: str | None, files: Path | None, *,
                      chroma_tenant: str = DEFAULT_TENANT, chroma_database: str | None = None,
                      chroma_token_header: str = DEFAULT_TOKEN_HEADER, chroma_ca: Path | None = None,
                      chroma_insecure: bool = False) -> None:
    """With ``team``, write the team library's descriptor at ``path`` from the options
    (``team_library.create_team_library``: both servers checked first); without, refuse team options (an embedded
    library is created by ``Library.open``).

    Raises:
        InvalidInput: team options without --team, a team library without --db, --vectors and --files, or both
            --chroma-ca and --chroma-insecure; and ``create_team_library``'s errors. Nothing is written then.
    """
    if not team:
        if db or vectors or files:
            raise InvalidInput("--db, --vectors and --files make a team library: add --team")
        return
    if not (db and vectors and files):
        raise InvalidInput("a team library needs --db URL, --vectors URL and --files DIR")
    if chroma_ca is not None and chroma_insecure:
        raise InvalidInput("give --chroma-ca or --chroma-insecure, not both")
    ssl_verify: bool | str = str(chroma_ca.expanduser().resolve()) if chroma_ca else not chroma_insecure
    team_library.create_team_library(path, db, vectors, files, tenant=chroma_tenant, chroma_database=chroma_database,
                                     token_header=chroma_token_header, ssl_verify=ssl_verify)
