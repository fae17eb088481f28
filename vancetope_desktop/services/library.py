"""The library: one folder holding the database, the vector store, the original files and settings.

``Library.open`` is the composition root of the core: paths → settings → database → blob store →
vector store. The embedding model loads lazily, on first use, so opening a library is cheap.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from platformdirs import user_data_path
from pydantic import ValidationError
from sqlalchemy import Engine, text
from sqlmodel import Session

from ..core.errors import EmbeddingModelMissing, IndexUnavailable, LibraryError, LibraryNeedsUpgrade
from ..core.scopes import ScopeKind
from ..core.settings import BUNDLED_MODEL, WEIGHT_SUM_TOLERANCE, Settings
from ..core.text import escaped, is_undecodable
from ..index.chroma_server import ServerVectorStore
from ..index.embedder import Embedder
from ..index.job_claims import SharedWriters
from ..index.locks import WriterLock
from ..index.models import BUNDLED_PREFIX, resolve_model
from ..index.vector_store import VectorStore, installed_chroma_version, may_migrate
from ..store import tables
from ..store.atomic import write_text_atomic
from ..store.backups import timestamp, unique_path
from ..store.blobs import BlobStore
from ..store.db import create_database_engine, ensure_schema, get_meta, read_session, set_meta, write_session
from . import team_library
from .team_library import TeamDescriptor

logger = logging.getLogger(__name__)

LIBRARY_ENV = "VANCETOPE_LIBRARY"
SETTINGS_KEY = "settings"
"""``meta`` key: a team library's settings (JSON, as an embedded library's ``settings.json``): one set for every
member (one embedding model per library)."""
CHROMA_VERSION_KEY = "chroma_version"
"""``meta`` key: the Chroma release that last opened the library's vector store (``installed_chroma_version``)."""
MODEL_HINT = ("Searching by meaning and indexing wait for it; documents are still stored and found by their words. "
              "Install the model, or point the library at one on this computer: `vancetope settings set "
              f"embedding_model PATH` (or Settings… in the app; the bundled one is {BUNDLED_MODEL}).")
"""What to do about a missing embedding model (:meth:`Library.embedder`'s errors end with it)."""
BUNDLED_MODEL_HINT = ("Searching by meaning and indexing wait for it; documents are still stored and found by their "
                      "words. Or point the library at another model on this computer: `vancetope settings set "
                      "embedding_model PATH` (or Settings… in the app).")
""":data:`MODEL_HINT` when the missing model is a bundled one: its message says what to install, and the bundled
model is not suggested instead of itself."""
DEFAULT_GROUP = "group/default"
DEFAULT_PROJECT = "project/inbox"
_BOOTSTRAPPED = text("SELECT (SELECT COUNT(*) FROM scope WHERE path IN (:group, :project)), "
                     "(SELECT COUNT(*) FROM meta WHERE key = 'current_scope')")
"""How many of the default group and project exist, and whether a current scope is set (``Library._bootstrap``)."""
_META_VALUE = text("SELECT value FROM meta WHERE key = :key")
"""One ``meta`` value read on opening (``Library._protect_vector_store``, a team library's settings)."""


def default_library_path() -> Path:
    """``$VANCETOPE_LIBRARY`` if set, else ``<user data dir>/Vancetope Desktop/library`` (platformdirs)."""
    if os.environ.get(LIBRARY_ENV):
        return Path(os.environ[LIBRARY_ENV]).expanduser()
    return user_data_path("Vancetope Desktop", appauthor=False) / "library"


@dataclass(frozen=True)
class LibraryPaths:
    """Where each part of a library lives, relative to its root folder."""

    root: Path

    @property
    def database(self) -> Path:
        return self.root / "library.sqlite"

    @property
    def chroma(self) -> Path:
        return self.root / "chroma"

    @property
    def files(self) -> Path:
        return self.root / "files"

    @property
    def settings(self) -> Path:
        return self.root / "settings.json"

    @property
    def locks(self) -> Path:
        return self.root / "locks"

    @property
    def backups(self) -> Path:
        """Copies made before migrations and damaged stores moved aside (``store/backups.py``)."""
        return self.root / "backups"


@dataclass(frozen=True)
class TeamLibraryPaths(LibraryPaths):
    """A team library's layout: ``root`` holds only its descriptor (``team_library``); the files are in the shared
    ``shared_files`` folder; locks and backups are this machine's, under ``state`` (``team_library.state_folder``).
    The database and the vectors are on servers (``database``, ``chroma`` and ``settings`` are not used)."""

    shared_files: Path = Path()
    state: Path = Path()

    @property
    def files(self) -> Path:
        return self.shared_files

    @property
    def locks(self) -> Path:
        return self.state / "locks"

    @property
    def backups(self) -> Path:
        return self.state / "backups"


class Library:
    """An open library. Thread-safe for the services; close it when done.

    Attributes:
        paths: the folder layout.
        settings: the typed settings (``settings.json``).
        engine: the SQLAlchemy engine on ``library.sqlite``.
        blobs: the content-addressed file store.
        vectors: the per-scope Chroma collections.
        writer_lock: the lock electing the process that drains the index queue (a database on a server: every
            process drains, ``index.job_claims.SharedWriters``).
        team: a team library's descriptor (database on PostgreSQL, vectors on a Chroma server); None for an
            embedded library.
        notices: what opening did that the user should hear of, one sentence each (a backup made before
            a migration, and where it is); the CLI, the app and the MCP server show them.
    """

    def __init__(self, paths: LibraryPaths, settings: Settings, engine: Engine, *,
                 team: TeamDescriptor | None = None, owner: str | None = None) -> None:
        self.paths = paths
        self.settings = settings
        self.engine = engine
        self.team = team
        self.blobs = BlobStore(paths.files)
        self.vectors = VectorStore(paths.chroma, paths.locks / "chroma.lock", self.index_generation) if team is None \
            else ServerVectorStore(team_library.chroma_server(team), self.index_generation, owner=owner)
        self.writer_lock: WriterLock | SharedWriters = (
            WriterLock(paths.locks / "writer.lock") if engine.dialect.name == "sqlite" else SharedWriters(engine))
        self.notices: list[str] = []

    @classmethod
    def open(cls, root: Path | None = None, *, settings: Settings | None = None) -> Library:
        """Open the library at ``root`` (default: :func:`default_library_path`), creating it if needed.

        A new library gets one project group and one project, ``project/inbox``, as current scope. A folder holding
        a team library's descriptor (``team_library``) opens that team library (:meth:`_open_team`).

        Raises:
            LibraryError: the folder is not writable, its path is not valid UTF-8, or the database is unreadable.
            LibraryTooNew: the library was written by a newer version.
            LibraryNeedsUpgrade: a team library's database is of an older schema (``vancetope library upgrade``).

        Before a migration, of the database (``store.db.ensure_schema``) or of the vector store by a newer
        Chroma (:meth:`_protect_vector_store`), a copy is made in ``backups/`` (``notices`` says where);
        when it cannot be made the library is not opened (LibraryError).
        """
        paths = LibraryPaths((root or default_library_path()).expanduser().resolve())
        if is_undecodable(str(paths.root)):  # Chroma cannot store below it (its paths are UTF-8 strings)
            raise LibraryError(f"the library folder's path is not valid UTF-8 ('{escaped(str(paths.root))}'): "
                               "rename the folder or choose another")
        try:
            paths.root.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise LibraryError(f"cannot create the library folder {paths.root}: {error.strerror}") from error
        team = team_library.read_descriptor(paths.root)
        if team is not None:
            return cls._open_team(paths.root, team, settings)
        opening_notices: list[str] = []
        if settings is None:
            settings = load_settings(paths.settings, opening_notices)
        if not paths.settings.exists() or opening_notices:  # a corrected file is saved: said once
            save_settings(paths.settings, settings)
        engine = create_database_engine(paths.database)
        try:
            upgrade = ensure_schema(engine, paths.backups)
            library = cls(paths, settings, engine)
            for text in opening_notices:
                library._notify(text)
            if upgrade is not None:
                library._notify(f"the library was upgraded from schema {upgrade.from_version} to "
                                f"{upgrade.to_version}; a copy of it as it was is at {upgrade.backup}")
            library._protect_vector_store()
            library._bootstrap()
        except BaseException:
            engine.dispose()
            raise
        return library

    @classmethod
    def _open_team(cls, root: Path, team: TeamDescriptor, settings: Settings | None) -> Library:
        """Open the team library described in ``root``: the engine on its PostgreSQL database (the schema created in
        an empty one), the vectors on its Chroma server, the files in its shared folder, the settings in its
        database. No copy is made before anything: the servers' operator backs them up."""
        paths = TeamLibraryPaths(root, shared_files=Path(team.files), state=team_library.state_folder(team))
        team_library.check_files_folder(paths.files)
        engine = team_library.open_engine(team)
        try:
            try:
                ensure_schema(engine, paths.backups)
            except LibraryNeedsUpgrade as error:
                raise LibraryNeedsUpgrade(f"{error}: `vancetope library upgrade {root}`") from None
            notices: list[str] = []
            if settings is None:
                with read_session(engine) as session:  # a text query, as in _protect_vector_store
                    stored = session.exec(_META_VALUE, params={"key": SETTINGS_KEY}).scalar()
                settings = Settings() if stored is None else \
                    parse_settings(stored, f"the settings stored in the team library's database ({root})", notices)
            library = cls(paths, settings, engine, team=team, owner=team_library.library_uuid(engine))
            for text in notices:
                library._notify(text)
            if notices:
                library.save_settings(settings)
            library._bootstrap()
        except BaseException:
            engine.dispose()
            raise
        return library

    @property
    def is_team(self) -> bool:
        """Whether this is a team library (database and vectors on servers) rather than an embedded one."""
        return self.team is not None

    def describe(self) -> str:
        """Which backend this library is and where its parts are, in one line without secrets (every face shows it):
        "embedded library at PATH" or ``team_library.describe``'s "team library: PostgreSQL at …"."""
        return team_library.describe(self.team) if self.team is not None else f"embedded library at {self.paths.root}"

    def save_settings(self, settings: Settings) -> None:
        """Save ``settings`` as the library's (an embedded library's ``settings.json``, a team library's database:
        every member reads the same) and use them."""
        if self.team is None:
            save_settings(self.paths.settings, settings)
        else:
            with write_session(self.engine) as session:
                set_meta(session, SETTINGS_KEY, settings.model_dump_json(exclude_defaults=True))
        self.settings = settings

    def _protect_vector_store(self) -> None:
        """Copy the vector store before a newer Chroma than the one that wrote it opens (and migrates) it, and
        record the Chroma version in the library (``meta.chroma_version``).

        Raises:
            LibraryError: the copy cannot be made; the store is left as it was and the library is not opened.
        """
        installed = installed_chroma_version()
        with read_session(self.engine) as session:  # a text query: get_meta's ORM lookup is compiled anew per engine
            recorded = session.exec(_META_VALUE, params={"key": CHROMA_VERSION_KEY}).scalar()
        if recorded == installed:
            return
        if not may_migrate(recorded, installed):
            return  # written by a newer Chroma: not ours to migrate, and the record stays as it is
        copy = unique_path(self.paths.backups / f"chroma-{recorded or 'unknown'}-{timestamp()}")
        try:
            copied = self.vectors.back_up(copy)
        except OSError as error:
            raise LibraryError(f"cannot copy the vector store to {copy} before Chroma {installed} upgrades it "
                               f"(it was written by Chroma {recorded or 'of an unknown version'}): {error}; free "
                               "disk space or make the folder writable, then open the library again") from error
        with write_session(self.engine) as session:
            set_meta(session, CHROMA_VERSION_KEY, installed)
        if copied:
            self._notify(f"the vector store written by Chroma {recorded or 'of an unknown version'} is opened by "
                         f"Chroma {installed}, which may upgrade it; a copy of it as it was is at {copy}")

    def _notify(self, text: str) -> None:
        self.notices.append(text)
        logger.info("%s: %s", self.paths.root, text)

    def _bootstrap(self) -> None:
        """Give a new library its default group and project, and make the project the current scope.

        Every open asks first, in one read (:data:`_BOOTSTRAPPED`): the write transaction, which would wait behind
        another process's write (a large import) and costs each command three ORM lookups compiled anew for its new
        engine, is taken only when something is missing, and checks again inside it."""
        with read_session(self.engine) as session:
            scopes, current = session.exec(_BOOTSTRAPPED,
                                           params={"group": DEFAULT_GROUP, "project": DEFAULT_PROJECT}).one()
        if scopes == 2 and current:
            return
        with write_session(self.engine) as session:
            if session.get(tables.ScopeRow, DEFAULT_GROUP) is None:
                session.add(tables.ScopeRow(path=DEFAULT_GROUP, kind=ScopeKind.GROUP.value, key="default",
                                            name="My Research"))
                session.flush()
            if session.get(tables.ScopeRow, DEFAULT_PROJECT) is None:
                session.add(tables.ScopeRow(path=DEFAULT_PROJECT, kind=ScopeKind.PROJECT.value, key="inbox",
                                            name="Inbox", parent_path=DEFAULT_GROUP))
            if get_meta(session, "current_scope") is None:
                set_meta(session, "current_scope", DEFAULT_PROJECT)

    def close(self) -> None:
        """Release the writer lock, the vector store and the database connections."""
        self.writer_lock.release()
        self.vectors.close()
        self.engine.dispose()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- index bookkeeping ---------------------------------------------------------------
    def index_generation(self) -> int:
        """The counter the writer bumps after each batch of vector writes (see ``VectorStore``)."""
        with read_session(self.engine) as session:
            return self.index_counters(session)[0]

    def change_counter(self) -> int:
        """A counter every document change bumps (in any process): the open app polls it to notice edits."""
        with read_session(self.engine) as session:
            return self.index_counters(session)[1]

    @staticmethod
    def index_counters(session: Session) -> tuple[int, int]:
        """``(index generation, change counter)`` read in ``session``, in one query (see the two above)."""
        values = dict(session.exec(text(
            "SELECT key, value FROM meta WHERE key IN ('index_generation', 'change_counter')")).all())
        return int(values.get("index_generation") or 0), int(values.get("change_counter") or 0)

    def index_model(self) -> str:
        """The embedding model spec the library's vectors were made with (the settings' until set)."""
        return self.index_identity()[0]

    def index_precision(self) -> str:
        """The precision the library's vectors were made at: ``"fp32"`` or ``"int8"`` (see :meth:`index_identity`)."""
        return self.index_identity()[1]

    def index_identity(self) -> tuple[str, str]:
        """``(model spec, precision)`` of the library's vectors, read in one query.

        Both are recorded when the first vectors are written (``meta.index_model``, ``meta.index_precision``)
        and by a rebuild; until then the settings' apply. A library indexed before precisions existed has a
        model and no precision: its vectors are fp32.
        """
        with read_session(self.engine) as session:
            values = dict(session.exec(text(
                "SELECT key, value FROM meta WHERE key IN ('index_model', 'index_precision')")).all())
        model = values.get("index_model")
        precision = values.get("index_precision") or ("fp32" if model else self.settings.embedding_precision)
        return model or self.settings.embedding_model, precision

    def embedder(self, spec: str | None = None) -> Embedder:
        """The embedder for ``spec`` (default: :meth:`index_model`) at :meth:`index_precision`, with the settings'
        runtime; shared by every library of the process.

        Queries must be embedded at the precision of the library's documents, so the precision is the
        library's, not the settings' (a change of settings re-embeds: ``indexing.rebuild_index``).

        Raises:
            EmbeddingModelMissing: the model cannot be found locally, or cannot run at that precision or runtime
                (the message ends with what to do: :data:`MODEL_HINT`, :data:`BUNDLED_MODEL_HINT`).
        """
        model, precision = self.index_identity()
        spec = spec or model
        settings = self.settings
        key = (spec, settings.embedding_batch_size, precision, settings.embedding_runtime)
        with _EMBEDDERS_MUTEX:
            if key not in _EMBEDDERS:
                try:
                    _EMBEDDERS[key] = Embedder(resolve_model(spec), batch_size=settings.embedding_batch_size,
                                               precision=precision,  # type: ignore[arg-type]
                                               runtime=settings.embedding_runtime)
                except IndexUnavailable as error:
                    hint = BUNDLED_MODEL_HINT if spec.strip().startswith(BUNDLED_PREFIX) else MODEL_HINT
                    raise EmbeddingModelMissing(f"{error} {hint}") from error
            return _EMBEDDERS[key]

    def model_problem(self) -> str | None:
        """Why the library's embedding model cannot run here, with what to do (:meth:`embedder`'s message); None
        when it can. Cheap: the model's small JSON files are read, its weights are not loaded.

        Every face asks this one question: the demo's install refuses up front on it, ``index status`` and the
        app's index status line report it, the window's search pane shows it instead of "loading model…".
        """
        try:
            self.embedder()
        except EmbeddingModelMissing as error:
            return str(error)
        return None


_EMBEDDERS: dict[tuple[str, int, str, str], Embedder] = {}
_EMBEDDERS_MUTEX = threading.Lock()


def load_settings(path: Path, notices: list[str] | None = None) -> Settings:
    """Read ``settings.json``; defaults when missing.

    Fusion weights saved before they had to sum to 1 (``Settings``) are scaled to sum to 1, which keeps the ranking
    they gave; both at 0 (no ranking at all) take the defaults. Either is said in ``notices`` when given.

    Raises:
        LibraryError: the file is not valid JSON or breaks the schema (with the field at fault).
    """
    if not path.exists():
        return Settings()
    return parse_settings(path.read_text(encoding="utf-8"), f"settings file {path}", notices)


def parse_settings(text: str, where: str, notices: list[str] | None = None) -> Settings:
    """Settings from their JSON ``text`` (a ``settings.json``, or a team library's ``meta.settings``), read as
    :func:`load_settings` says; ``where`` names them in the error.

    Raises:
        LibraryError: ``text`` is not valid JSON or breaks the schema (with the field at fault).
    """
    try:
        data = json.loads(text)
        if isinstance(data, dict):
            data = _fusion_weights_summing_to_one(data, notices if notices is not None else [])
        return Settings.model_validate(data)
    except (json.JSONDecodeError, ValidationError) as error:
        raise LibraryError(f"invalid {where}: {error}") from error


def _fusion_weights_summing_to_one(data: dict[str, Any], notices: list[str]) -> dict[str, Any]:
    """``data`` (a ``settings.json``) with ``dense_weight`` and ``lexical_weight`` scaled to sum to 1 when they are
    non-negative numbers that do not; a notice in ``notices`` says so. Anything else is left to the schema."""
    defaults = Settings()
    dense = data.get("dense_weight", defaults.dense_weight)
    lexical = data.get("lexical_weight", defaults.lexical_weight)
    if not all(isinstance(w, int | float) and not isinstance(w, bool) and w >= 0 for w in (dense, lexical)):
        return data
    total = dense + lexical
    if abs(total - 1.0) <= WEIGHT_SUM_TOLERANCE:
        return data
    if total == 0:
        scaled = defaults.dense_weight, defaults.lexical_weight
    else:
        scaled = round(dense / total, 6), round(1.0 - round(dense / total, 6), 6)
    notices.append(f"the search weights dense_weight {dense:g} and lexical_weight {lexical:g} did not sum to 1 "
                   f"(relevance runs from 0 to 1): they are read as {scaled[0]:g} and {scaled[1]:g}")
    return {**data, "dense_weight": scaled[0], "lexical_weight": scaled[1]}


def save_settings(path: Path, settings: Settings) -> None:
    """Write ``settings.json`` atomically (temporary file, then rename).

    Only values that differ from the defaults are written, so a library follows improved defaults
    (e.g. search tuning) of later versions unless the user chose otherwise.
    """
    write_text_atomic(path, settings.model_dump_json(indent=2, exclude_defaults=True))
