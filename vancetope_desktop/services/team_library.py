"""A team library's descriptor (issue 17): the small file in a team library's folder that says where its parts are
— the PostgreSQL database, the Chroma server, the shared files folder — and never holds a secret.

``vancetope library create PATH --team …`` (:func:`create_team_library`) writes :data:`DESCRIPTOR_NAME` in PATH;
``Library.open(PATH)`` finds it and opens the library on those servers. The descriptor holds no data and no
credentials:

- the **database password** is taken out of the URL given to ``create`` and kept in the system keyring, under
  service :data:`DATABASE_KEYRING_SERVICE` and user ``role@host:port/database`` (:func:`database_keyring_user`);
  without a keyring, a URL with a password is refused, and libpq's own mechanisms serve instead (``PGPASSFILE``,
  ``PGPASSWORD``, read by libpq when the keyring has nothing). libpq's query options (``sslmode``,
  ``sslrootcert``, ``sslcert``, ``sslkey``…) stay in the URL as given.
- the **Chroma token** is read from :data:`CHROMA_TOKEN_VARIABLE` when set, else from the keyring under service
  :data:`CHROMA_KEYRING_SERVICE` and user ``tenant/database@scheme://host:port`` (``create`` keeps the variable's
  value there when a keyring exists).

The descriptor is JSON, written atomically, validated on reading (pydantic) with the field at fault named.
"""

from __future__ import annotations

import logging
import os
import uuid
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from platformdirs import user_state_path
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator
from sqlalchemy import Engine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from ..core.errors import InvalidInput, LibraryError
from ..index.chroma_server import DEFAULT_TENANT, ChromaServer, ServerVectorStore
from ..store.atomic import write_text_atomic
from ..store.db import SchemaUpgrade, create_database_engine, ensure_schema
from ..store.postgres import SCHEMES

logger = logging.getLogger(__name__)

DESCRIPTOR_NAME = "team.json"
"""The descriptor's file name in a team library's folder."""
FORMAT_VERSION = 1
"""The descriptor's format; a newer one is refused (written by a newer program)."""
DATABASE_KEYRING_SERVICE = "Vancetope Desktop team database"
"""The keyring service under which a team database's password is kept (user: :func:`database_keyring_user`)."""
CHROMA_KEYRING_SERVICE = "Vancetope Desktop team Chroma"
"""The keyring service under which a Chroma server's token is kept (user: :func:`chroma_keyring_user`)."""
CHROMA_TOKEN_VARIABLE = "VANCETOPE_CHROMA_TOKEN"
"""The environment variable that gives the Chroma token (before the keyring)."""
NO_KEYRING_ADVICE = ("leave the password out of the URL and give it to libpq instead: a password file (PGPASSFILE, "
                     "default ~/.pgpass) or the PGPASSWORD variable")
"""What to do when a URL carries a password and no keyring can keep it."""


class DatabasePart(BaseModel):
    """Where the database is: a ``postgresql://role@host:port/database?sslmode=…`` URL without its password."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    url: str

    @field_validator("url")
    @classmethod
    def _no_password(cls, url: str) -> str:
        try:
            parsed = make_url(url)
        except ArgumentError:
            raise ValueError("not a database URL") from None  # the text may hold a password: not repeated
        if parsed.drivername not in SCHEMES:
            raise ValueError(f"a team library's database URL starts with postgresql://, not {parsed.drivername}://")
        if parsed.password is not None:
            raise ValueError("the database URL holds a password: a descriptor never does (keyring, PGPASSFILE or "
                             "PGPASSWORD)")
        return url


class VectorsPart(BaseModel):
    """Where the vectors are: a Chroma server (``ChromaServer``'s fields, the token left out)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    url: str
    tenant: str = DEFAULT_TENANT
    database: str
    token_header: Literal["Authorization", "X-Chroma-Token"] = "Authorization"
    ssl_verify: bool | str = True
    """True (the system's CAs), False, or a CA bundle's path."""

    @model_validator(mode="after")
    def _a_server(self) -> VectorsPart:
        try:
            ChromaServer(self.url, self.database, tenant=self.tenant)
        except InvalidInput as error:
            raise ValueError(str(error)) from None
        return self


class TeamDescriptor(BaseModel):
    """A team library's descriptor (:data:`DESCRIPTOR_NAME`): its id and name, and where its parts are."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    format: Literal[1] = FORMAT_VERSION
    library_id: str
    name: str
    database: DatabasePart
    vectors: VectorsPart
    files: str
    """The shared files folder (an absolute path, the same on every member's machine: a mounted share)."""

    @field_validator("files")
    @classmethod
    def _absolute(cls, files: str) -> str:
        if not Path(files).is_absolute():
            raise ValueError(f"the files folder must be an absolute path, not {files!r}")
        return files


def descriptor_path(root: Path) -> Path:
    """Where a team library's descriptor is in the library folder ``root``."""
    return root / DESCRIPTOR_NAME


def read_descriptor(root: Path) -> TeamDescriptor | None:
    """The descriptor in ``root``; None when there is none (an embedded library's folder).

    Raises:
        LibraryError: the file cannot be read, is not JSON, breaks the schema (the field at fault), or was written by
            a newer program (its format).
    """
    path = descriptor_path(root)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise LibraryError(f"cannot read the team library's descriptor {path}: {error}") from error
    try:
        return TeamDescriptor.model_validate_json(text)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'file'}: {e['msg']}" for e in error.errors())
        newer = " (written by a newer Vancetope Desktop? update the program)" if "format" in problems else ""
        raise LibraryError(f"invalid team library descriptor {path}: {problems}{newer}") from None


def write_descriptor(root: Path, descriptor: TeamDescriptor) -> Path:
    """Write ``descriptor`` in ``root`` atomically (temporary file, then rename), readable by all (it holds no
    secret, and every member of a shared folder opens it); returns its path."""
    path = descriptor_path(root)
    write_text_atomic(path, descriptor.model_dump_json(indent=2) + "\n")
    path.chmod(0o644)  # the temporary file was made 0600 (mkstemp)
    return path


def state_folder(descriptor: TeamDescriptor) -> Path:
    """This machine's folder for the library's local parts (locks, backups): the user's state directory
    (platformdirs), keyed by the library's id."""
    return user_state_path("Vancetope Desktop", appauthor=False) / "team-libraries" / descriptor.library_id


def database_keyring_user(url: str) -> str:
    """The keyring user name of a database's password: ``role@host:port/database`` (port 5432 when left out)."""
    parsed = make_url(url)
    return f"{parsed.username or ''}@{parsed.host or ''}:{parsed.port or 5432}/{parsed.database or ''}"


def chroma_keyring_user(vectors: VectorsPart) -> str:
    """The keyring user name of a Chroma token: ``tenant/database@scheme://host:port``."""
    return f"{vectors.tenant}/{vectors.database}@{ChromaServer(vectors.url, vectors.database).address}"


def _read_secret(service: str, user: str) -> str | None:
    """A secret from the keyring; None when there is none, no keyring, or a broken one (logged)."""
    # Imported here, as in the two below: endpoint brings httpx, which opening an embedded library never needs.
    from ..generation.endpoint import KeyringUnavailable, system_keyring

    try:
        return system_keyring().get_password(service, user)
    except KeyringUnavailable:
        return None
    except Exception as error:  # a locked or broken keyring: libpq's own mechanisms may still serve
        logger.warning("cannot read %s from the keyring: %s", service, error)
        return None


def chroma_server(descriptor: TeamDescriptor) -> ChromaServer:
    """The library's Chroma server, with its token (:data:`CHROMA_TOKEN_VARIABLE`, else the keyring).

    Raises:
        InvalidInput: the descriptor's Chroma URL is not http(s)://host:port.
    """
    vectors = descriptor.vectors
    token = os.environ.get(CHROMA_TOKEN_VARIABLE) or _read_secret(CHROMA_KEYRING_SERVICE, chroma_keyring_user(vectors))
    return ChromaServer(vectors.url, vectors.database, tenant=vectors.tenant, token=token,
                        token_header=vectors.token_header, ssl_verify=vectors.ssl_verify)


def open_engine(descriptor: TeamDescriptor) -> Engine:
    """An engine on the library's database, the password from the keyring passed to psycopg apart from the URL
    (without one, libpq reads PGPASSFILE / PGPASSWORD).

    Raises:
        LibraryError: the server cannot be reached or refuses (the message names it without a password).
    """
    url = descriptor.database.url
    return create_database_engine(url, password=_read_secret(DATABASE_KEYRING_SERVICE, database_keyring_user(url)))


def describe(descriptor: TeamDescriptor) -> str:
    """One line naming where each part is, without secrets: "team library: PostgreSQL at host:port/db (role), Chroma
    at …, files at …"."""
    url = make_url(descriptor.database.url)
    vectors = descriptor.vectors
    return (f"team library: PostgreSQL at {url.host or 'localhost'}:{url.port or 5432}/{url.database} "
            f"({url.username or 'default role'}), Chroma at {ChromaServer(vectors.url, vectors.database).address} "
            f"(tenant {vectors.tenant}, database {vectors.database}), files at {descriptor.files}")


def split_password(url: str) -> tuple[str, str | None]:
    """``(url without its password, the password or None)``; query options (sslmode…) are kept as given.

    Raises:
        InvalidInput: not a PostgreSQL URL (the text is not repeated: it may hold a password).
    """
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise InvalidInput("--db is not a database URL (postgresql://role@host:port/database)") from None
    if parsed.drivername not in SCHEMES:
        raise InvalidInput(f"--db must be a postgresql:// URL, not {parsed.drivername}://")
    if not parsed.database:
        raise InvalidInput("--db must name the database (postgresql://role@host:port/DATABASE)")
    if parsed.password is None:
        return url, None
    parts = urlsplit(url)  # the text as given, but for the password (SQLAlchemy would re-encode the query)
    userinfo, _, hostport = parts.netloc.rpartition("@")
    return parts._replace(netloc=f"{userinfo.split(':', 1)[0]}@{hostport}").geturl(), parsed.password


def create_team_library(root: Path, database_url: str, vectors_url: str, files: Path, *,
                        tenant: str = DEFAULT_TENANT, chroma_database: str | None = None,
                        token_header: str = "Authorization", ssl_verify: bool | str = True) -> TeamDescriptor:
    """Write a team library's descriptor at ``root`` after checking that both servers answer and accept us.

    The password in ``database_url``, if any, goes to the keyring (refused without one: :data:`NO_KEYRING_ADVICE`);
    the token in :data:`CHROMA_TOKEN_VARIABLE`, if set, too when a keyring exists. The Chroma tenant and database are
    created when missing (``chroma_database`` defaults to the PostgreSQL database's name); the files folder too.

    Returns:
        The descriptor written (its tables are made when the library is first opened: ``Library.open``).

    Raises:
        InvalidInput: bad URLs or options, or ``root`` already holds a library.
        KeyringUnavailable: the URL holds a password and no keyring exists here.
        LibraryError: the database cannot be reached or refuses; the files folder cannot be made or written; the
            Chroma database holds another library's collections (``ServerVectorStore.foreign_collections``: any
            collection when the PostgreSQL database holds no library yet).
        IndexUnavailable: the Chroma server cannot be reached or refuses.
        Nothing is written (descriptor, keyring) when any of these is raised.
    """
    from ..generation.endpoint import KeyringUnavailable, system_keyring

    root = root.expanduser().resolve()
    if descriptor_path(root).exists() or (root / "library.sqlite").exists():
        raise InvalidInput(f"{root} already holds a library")
    url, password = split_password(database_url)
    token = os.environ.get(CHROMA_TOKEN_VARIABLE)
    server = ChromaServer(vectors_url, chroma_database or make_url(url).database or "", tenant=tenant, token=token,
                          token_header=token_header, ssl_verify=ssl_verify)  # InvalidInput for bad values
    vectors = VectorsPart(url=server.url, tenant=server.tenant, database=server.database,
                          token_header=server.token_header, ssl_verify=server.ssl_verify)  # type: ignore[arg-type]
    ring = system_keyring("the database password", NO_KEYRING_ADVICE) if password else None
    files = files.expanduser().resolve()
    descriptor = TeamDescriptor(library_id=uuid.uuid4().hex, name=root.name or "team library",
                                database=DatabasePart(url=url), vectors=vectors, files=str(files))
    engine = create_database_engine(url, password=password)  # reachable, and the role is let in
    try:
        owner = recorded_library_uuid(engine)
    finally:
        engine.dispose()
    store = ServerVectorStore(server, lambda: 0, retry_seconds=0, owner=owner)
    try:
        store.create_database()
        foreign = store.foreign_collections()
    finally:
        store.close()
    if foreign:
        raise LibraryError(
            f"the Chroma database {server.database!r} (tenant {server.tenant!r}) at {server.address} already holds "
            f"another library's vectors ({', '.join(foreign[:3])}{', …' if len(foreign) > 3 else ''}): give this "
            "library a database of its own with --chroma-database")
    check_files_folder(files)
    try:
        if ring is not None:
            ring.set_password(DATABASE_KEYRING_SERVICE, database_keyring_user(url), password)
        if token:
            _keep_token(vectors, token)
    except Exception as error:  # keyring.errors.KeyringError: locked, refused
        raise KeyringUnavailable(f"the keyring refused the database password: {error}") from None
    root.mkdir(parents=True, exist_ok=True)
    write_descriptor(root, descriptor)
    return descriptor


LIBRARY_UUID_KEY = "team_library_uuid"
"""``meta`` key: the team library's own id, made at its first opening and recorded in each of its Chroma collections
(``ServerVectorStore``'s owner). Unlike a descriptor's ``library_id`` (one per member's descriptor), every member
reads the same."""


def recorded_library_uuid(engine: Engine) -> str | None:
    """The team library's id in the database behind ``engine`` (:data:`LIBRARY_UUID_KEY`); None for a database that
    holds no library yet, or one whose first opening has not made it."""
    from sqlalchemy import inspect, text

    with engine.connect() as connection:
        if not inspect(connection).has_table("meta"):
            return None
        return connection.execute(text("SELECT value FROM meta WHERE key = :key"),
                                  {"key": LIBRARY_UUID_KEY}).scalar_one_or_none()


def library_uuid(engine: Engine) -> str:
    """The team library's id (:data:`LIBRARY_UUID_KEY`), made now when its database has none: at its first opening,
    or a library made before ids were recorded (3 Dec 2026). Two processes opening it at once keep one id: the key
    is the table's primary key, so the second insert fails and the first's value is read."""
    from sqlalchemy import text
    from sqlalchemy.exc import IntegrityError

    from ..store.db import get_meta, read_session, set_meta, write_session

    with read_session(engine) as session:  # a text query: get_meta's ORM lookup is compiled anew for each engine
        recorded = session.exec(text("SELECT value FROM meta WHERE key = :key"),
                                params={"key": LIBRARY_UUID_KEY}).scalar()
    if recorded is not None:
        return recorded
    try:
        with write_session(engine) as session:
            if get_meta(session, LIBRARY_UUID_KEY) is None:
                set_meta(session, LIBRARY_UUID_KEY, uuid.uuid4().hex)
    except IntegrityError:
        pass  # another process's first opening wrote it meanwhile
    with read_session(engine) as session:
        return get_meta(session, LIBRARY_UUID_KEY) or ""


def _keep_token(vectors: VectorsPart, token: str) -> None:
    """Keep the Chroma token in the keyring when one exists; without one, the variable must be set at each run."""
    from ..generation.endpoint import KeyringUnavailable, system_keyring

    try:
        ring = system_keyring("the Chroma token", f"set {CHROMA_TOKEN_VARIABLE} for each run")
    except KeyringUnavailable as error:
        logger.info("%s", error)
        return
    ring.set_password(CHROMA_KEYRING_SERVICE, chroma_keyring_user(vectors), token)


def check_files_folder(files: Path) -> None:
    """Create the shared files folder when missing and check that it is writable.

    Raises:
        LibraryError: it cannot be created, or is not writable.
    """
    try:
        files.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise LibraryError(f"cannot create the team library's files folder {files}: {error.strerror}") from error
    if not os.access(files, os.W_OK | os.X_OK):
        raise LibraryError(f"the team library's files folder {files} is not writable by this user: mount the share "
                           "read-write or fix its permissions")


def upgrade_team_library(root: Path) -> tuple[TeamDescriptor, SchemaUpgrade | None]:
    """Bring the team library described in ``root`` to this program's schema (``vancetope library upgrade``): the
    explicit step ``Library.open`` asks for when the database is older (``store.db.ensure_schema`` with
    ``upgrade_server``). The database must have been backed up by its operator first (``pg_dump``).

    Returns:
        The descriptor, and the upgrade made (from and to which schema), or None when it was at this schema.

    Raises:
        LibraryError: ``root`` holds no team library's descriptor, the server cannot be reached, or a step fails
            (nothing changed).
        LibraryTooNew: the database is of a newer schema than this program's.
    """
    root = root.expanduser().resolve()
    descriptor = read_descriptor(root)
    if descriptor is None:
        raise LibraryError(f"{root} holds no team library ({DESCRIPTOR_NAME})")
    engine = open_engine(descriptor)
    try:
        return descriptor, ensure_schema(engine, state_folder(descriptor) / "backups", upgrade_server=True)
    finally:
        engine.dispose()
