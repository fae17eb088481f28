"""Copy a whole library into a new, empty one: embedded → team and back (issue 17, ``vancetope library migrate``).

What is copied, source to target:

* the original files the rows name (``blob_hash`` columns), into the target's content-addressed store;
* the vectors, collection by collection, with their ids, embeddings and metadata as stored: nothing is embedded
  again (the collections keep the model and dimension they record);
* every row of every table of ``store/tables.py`` in foreign-key order with its ids (``store.table_copy``), the
  lexical index rebuilt on the target from the chunks, PostgreSQL's sequences moved past the copied ids; a NUL in a
  text (an embedded library may hold one, PostgreSQL refuses it) is copied as U+FFFD, the rule of every write
  (``core.text.without_nul``), and the report counts those values;
* the meta facts, the index model and precision among them (the vectors were made by that model), and the settings.

All or nothing. Files and vectors go first; then every row in ONE write transaction of the target, which ends by
recording where the library was copied from (``meta.copied_from``). A failure before that commit leaves the target's
database as empty as it was: it never looks like a library with part of the documents. The vectors the failed attempt
wrote are dropped (when the store cannot be reached then, the next copy into that target drops them first); its
files stay, unseen (no row names them), and are reused by the next copy (same content, same name). So no marker of
a partial copy and no ``--force``: a target either holds the whole copy or looks new.

The target must be empty (nothing but what ``Library.open`` creates); the source should be quiet: its index writer
lock is held during the copy (no process embeds into it), and a document added meanwhile shows as a count that
differs in the report.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import delete, select
from sqlmodel import Session

from ..core.errors import InvalidInput, LibraryBusy, LibraryError
from ..index import lexical_backend
from ..store import tables
from ..store.backups import timestamp
from ..store.db import read_session, write_session
from ..store.table_copy import BATCH_ROWS, clear_table, copy_table, library_tables, move_sequences_past_ids, row_counts
from .library import DEFAULT_GROUP, DEFAULT_PROJECT, SETTINGS_KEY, Library
from .team_library import LIBRARY_UUID_KEY

logger = logging.getLogger(__name__)

COPIED_FROM_KEY = "copied_from"
"""``meta`` key written last, in the rows' transaction: where the library was copied from, and when."""
TARGET_OWN_META = ("chroma_version", SETTINGS_KEY, LIBRARY_UUID_KEY)
"""``meta`` keys kept as the target had them: its own stores' (the Chroma release), a team library's settings
(``Library.save_settings`` writes the source's there after the rows, or in an embedded target's ``settings.json``)
and its id (its Chroma collections record it)."""
VECTOR_PAGE = 1_000
"""Vectors read and written per call (a 384-dimension page is 1.5 MB; the server's batch limit is larger)."""
NEW_LIBRARY_SCOPES = frozenset({DEFAULT_GROUP, DEFAULT_PROJECT})
"""The scopes ``Library.open`` creates in a new library: a target holding only these is empty."""


@dataclass(frozen=True)
class CopyProgress:
    """How far a copy is: ``stage`` (``files``, ``vectors``, ``rows``, ``words``, in this order; each starts with
    ``done`` 0), ``done`` of ``total`` (files, vectors, rows, chunks indexed) and what is being copied (``detail``: a
    file, a table or a collection's scope)."""

    stage: str
    done: int
    total: int
    detail: str = ""


@dataclass(frozen=True)
class CountCheck:
    """One line of the verification: rows of a table (``what`` = its name) or vectors of a collection (``what`` =
    ``vectors <scope>``) in the source and in the target."""

    what: str
    source: int
    target: int

    @property
    def equal(self) -> bool:
        """Whether the target holds as many as the source."""
        return self.source == self.target


@dataclass(frozen=True)
class CopyReport:
    """What a copy did: the two databases (as :func:`database_location` names them), the counts compared
    (:func:`verify_copy`), the number of original files copied and of text values whose NUL characters were copied
    as U+FFFD (``nul_replaced``)."""

    source: str
    target: str
    checks: tuple[CountCheck, ...]
    files: int
    nul_replaced: int = 0

    @property
    def ok(self) -> bool:
        """Whether every count is equal."""
        return all(check.equal for check in self.checks)


def copy_library(source: Library, target: Library, *,
                 progress: Callable[[CopyProgress], None] | None = None) -> CopyReport:
    """Copy the open library ``source`` into the open, empty library ``target`` (see the module's docstring), then
    compare their counts.

    Args:
        progress: called after each file, each page of vectors, each batch of rows and of chunks indexed.

    Returns:
        The :class:`CopyReport`; its ``ok`` is False when a count differs (the source changed during the copy).

    Raises:
        InvalidInput: source and target are the same library.
        LibraryError: the target is not empty (nothing was written), or a vector collection was copied short.
        LibraryBusy: another process is indexing the source (its writer lock is taken): nothing was written.
        IndexUnavailable: a vector store cannot be read or written; OSError: a file cannot be copied. Either way,
            and on any failure, the target's database is left empty.
    """
    if database_location(source) == database_location(target):
        raise InvalidInput(f"the source and the target are the same library ({database_location(source)})")
    _refuse_unless_empty(target)
    report = progress or (lambda _step: None)
    took_lock = not source.writer_lock.held
    # A team library elects no single writer (try_acquire always succeeds): its live claims say who indexes.
    if not source.writer_lock.try_acquire() or (source.is_team and source.writer_lock.holder_pid() is not None):
        if took_lock and source.writer_lock.held:
            source.writer_lock.release()
        raise LibraryBusy(f"another process (pid {source.writer_lock.holder_pid()}) is indexing "
                          f"{database_location(source)}: close it (the app, `vancetope index run`) and migrate again")
    try:
        files = _copy_files(source, target, report)
        try:
            _copy_vectors(source, target, report)
            nul_replaced = _copy_rows(source, target, report)
        except BaseException:
            _drop_vectors(target)
            raise
    finally:
        if took_lock:
            source.writer_lock.release()
    target.save_settings(source.settings)
    return CopyReport(database_location(source), database_location(target), verify_copy(source, target), files,
                      nul_replaced)


def verify_copy(source: Library, target: Library) -> tuple[CountCheck, ...]:
    """The rows of every table but ``meta`` (each library's own bookkeeping) and the vectors of every collection of
    ``source``, counted in both libraries.

    Raises:
        IndexUnavailable: a vector store cannot be read.
    """
    counted = [table for table in library_tables() if table.name != tables.MetaRow.__tablename__]
    with read_session(source.engine) as session:
        before = row_counts(session, counted)
    with read_session(target.engine) as session:
        after = row_counts(session, counted)
    checks = [CountCheck(name, before[name], after[name]) for name in before]
    scopes = sorted(info.scope for info in source.vectors.collections())
    vectors_before, vectors_after = source.vectors.counts(scopes), target.vectors.counts(scopes)
    checks += [CountCheck(f"vectors {scope}", vectors_before[scope], vectors_after[scope]) for scope in scopes]
    return tuple(checks)


def database_location(lib: Library) -> str:
    """The library's database as messages name it: its URL without a password, or ``sqlite:///path``."""
    return lib.engine.url.render_as_string(hide_password=True)


def _refuse_unless_empty(target: Library) -> None:
    """Raise LibraryError naming what ``target`` holds unless it holds no more than a new library."""
    scope_table = tables.ScopeRow.__table__  # type: ignore[attr-defined]
    others = [table for table in library_tables() if table.name not in (tables.MetaRow.__tablename__, scope_table.name)]
    with read_session(target.engine) as session:
        held = {name: count for name, count in row_counts(session, others).items() if count}
        scopes = set(session.execute(select(scope_table.c.path)).scalars()) - NEW_LIBRARY_SCOPES
    if scopes:
        held["scope"] = len(scopes)
    if held:
        listed = ", ".join(f"{count} {name}" for name, count in sorted(held.items()))
        raise LibraryError(f"the target library {database_location(target)} is not empty ({listed} rows): a "
                           "library is copied into a new one only")


def _copy_files(source: Library, target: Library, report: Callable[[CopyProgress], None]) -> int:
    """Copy every original file a row names (any ``blob_hash`` column) into the target's store; returns how many.

    Raises:
        LibraryError: a named file is missing from the source's store (the source is damaged: nothing is copied).
    """
    digests: set[str] = set()
    with read_session(source.engine) as session:
        for table in library_tables():
            if "blob_hash" in table.c:
                column = table.c.blob_hash
                digests.update(session.execute(select(column).where(column.is_not(None)).distinct()).scalars())
    found = {digest: sorted(source.blobs.path_for(digest).parent.glob(f"{digest}*")) for digest in sorted(digests)}
    missing = [digest for digest, paths in found.items() if not paths]
    if missing:
        raise LibraryError(f"{len(missing)} original file(s) named by the source are missing from "
                           f"{source.blobs.root} (first: {missing[0]}): nothing was copied")
    paths = [(digest, path) for digest, each in found.items() for path in each]  # one per suffix stored
    report(CopyProgress("files", 0, len(paths)))
    for done, (digest, path) in enumerate(paths, 1):
        target.blobs.put(path, digest)  # the same name as in the source; a file already there is kept
        report(CopyProgress("files", done, len(paths), path.name))
    return len(paths)


def _copy_vectors(source: Library, target: Library, report: Callable[[CopyProgress], None]) -> None:
    """Copy every collection of the source into the target's store, page by page, as stored (no embedding); vectors
    left in the target by an earlier failed copy are dropped first (its database is empty: nothing names them).

    Raises:
        LibraryError: a collection of the target does not hold as many vectors as the source's afterwards.
    """
    if target.vectors.collections():
        target.vectors.reset(target.paths.backups / f"chroma-before-copy-{timestamp()}")
    infos = [info for info in source.vectors.collections() if info.count]
    total = sum(info.count for info in infos)
    done = 0
    report(CopyProgress("vectors", 0, total))
    for info in infos:
        model = info.model or source.index_model()
        for offset in range(0, info.count, VECTOR_PAGE):
            ids, embeddings, metadatas = source.vectors.vectors_page(info.scope, offset, VECTOR_PAGE)
            target.vectors.upsert(info.scope, model, ids, embeddings, metadatas)
            done += len(ids)
            report(CopyProgress("vectors", done, total, info.scope))
    copied = target.vectors.counts([info.scope for info in infos])
    short = [f"{info.scope}: {copied[info.scope]} of {info.count}"
             for info in infos if copied[info.scope] != info.count]
    if short:
        raise LibraryError(f"vectors copied short ({'; '.join(short)}): was the source written meanwhile? Nothing "
                           "else was copied")


def _drop_vectors(target: Library) -> None:
    """After a failed copy, drop the vectors it wrote (no row names them), as far as the store lets us: when it does
    not (a server gone), the next copy into this target drops them first (:func:`_copy_vectors`)."""
    try:
        target.vectors.reset(target.paths.backups / f"chroma-failed-copy-{timestamp()}")
    except Exception as error:  # the copy's own failure is what the caller must hear of
        logger.warning("the vectors of the failed copy stay in %s until the next copy: %s",
                       database_location(target), error)


def _copy_rows(source: Library, target: Library, report: Callable[[CopyProgress], None]) -> int:
    """Copy every row in one snapshot of the source and one write transaction of the target (see the module's
    docstring), the target's own meta facts kept, then rebuild the lexical index and record ``copied_from``.
    Returns how many text values held a NUL (copied as U+FFFD)."""
    ordered = library_tables()
    with read_session(source.engine) as reading, write_session(target.engine) as writing:
        kept = _meta_values(writing, TARGET_OWN_META)
        for table in reversed(ordered):  # what a new library holds: its meta facts, its two scopes
            clear_table(writing, table)
        totals = row_counts(reading, ordered)
        total, before, nul_replaced = sum(totals.values()), 0, 0
        report(CopyProgress("rows", 0, total))
        for table in ordered:
            nul_replaced += copy_table(reading, writing, table, progress=lambda n, t=table, b=before: report(
                CopyProgress("rows", b + n, total, t.name))).nul_replaced
            before += totals[table.name]
        for key in TARGET_OWN_META:
            _put_meta(writing, key, kept.get(key))
        move_sequences_past_ids(writing, ordered)
        _index_words(reading, writing, totals[tables.ChunkRow.__tablename__], report)
        # Every process with the target open drops its cached vector handles (see VectorStore).
        generation = _meta_values(writing, ("index_generation",)).get("index_generation")
        _put_meta(writing, "index_generation", str(int(generation or 0) + 1))
        _put_meta(writing, COPIED_FROM_KEY, f"{database_location(source)} at {timestamp()}")
    return nul_replaced


def _meta_values(session: Session, keys: Sequence[str]) -> dict[str, str]:
    """The ``meta`` values of those of ``keys`` the database holds (Core, as the rows are copied: the ORM's identity
    map would not see them)."""
    meta = tables.MetaRow.__table__  # type: ignore[attr-defined]
    return dict(session.execute(select(meta.c.key, meta.c.value).where(meta.c.key.in_(keys))).all())


def _put_meta(session: Session, key: str, value: str | None) -> None:
    """Set ``meta[key]`` to ``value``, or remove it when None."""
    meta = tables.MetaRow.__table__  # type: ignore[attr-defined]
    session.execute(delete(meta).where(meta.c.key == key))
    if value is not None:
        session.execute(meta.insert().values(key=key, value=value))


def _index_words(reading: Session, writing: Session, total: int, report: Callable[[CopyProgress], None]) -> None:
    """Index every chunk's words on the target (its document's title and the chunk's text, as
    ``records.add_chunks`` does), read from the source (the ids are the same)."""
    chunk, document = tables.ChunkRow.__table__, tables.DocumentRow.__table__  # type: ignore[attr-defined]
    query = (select(chunk.c.id, document.c.title, chunk.c.text).join(document, chunk.c.document_id == document.c.id)
             .order_by(chunk.c.id).execution_options(yield_per=BATCH_ROWS))
    done = 0
    report(CopyProgress("words", 0, total))
    for rows in reading.execute(query).partitions(BATCH_ROWS):
        lexical_backend.index_chunks(writing, [(row[0], row[1], row[2]) for row in rows])
        done += len(rows)
        report(CopyProgress("words", done, total))


