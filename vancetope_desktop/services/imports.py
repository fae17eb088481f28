"""Importing files and folders: store the original, extract, chunk, and queue indexing — or say why not.

Each file is handled on its own: its blob is written first (content addressed, atomic), then the
document, tags, chunks, lexical rows and index job commit in one transaction. A file that cannot
be read never leaves a half-written document and never stops the rest of a folder:

* empty, too large or unsupported files are refused with their reason (no document);
* encrypted (password-only) and damaged files are kept as documents in state ``failed`` with the
  reason, so the original is preserved and the import can be retried (e.g. with a password);
* image-only scans are kept, marked ``needs_ocr``, and not indexed as garbage;
* any other failure, wherever it is raised (extraction, hashing, the file store, chunking, the
  database), becomes that file's ``failed`` outcome with its reason, and the next file is tried.

Files are extracted in a worker process with a time limit per file
(:class:`~..ingest.process_pool.ProcessExtractor`): a PDF that makes MuPDF loop is stopped and
reported like a damaged one instead of blocking the import. A file whose bytes the scope already holds is
found by its SHA-256 before it is read, and reported as a ``duplicate`` without an extraction (re-uploading three
unchanged papers cost 2 CPU s of reading, and an extraction process, for nothing).

A bibliography file (BibTeX, RIS, CSL-JSON) is kept as a file document and its entries become
reference documents, with the files they name attached, in the same transaction: see
``services.bibliography``.
"""

from __future__ import annotations

import functools
import logging
import mimetypes
import os
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, field_validator
from sqlalchemy import text
from sqlmodel import Session

from ..core.documents import EMBEDDED_ROLES, DocumentStatus, DocumentType, IndexState, Source, SourceType
from ..core.errors import DamagedFile, DatabaseAway, EncryptedPdf, ImportFailed, InvalidInput
from ..core.ids import new_document_id
from ..core.profiles import SourceProfile
from ..core.tags import normalize_tags
from ..core.text import readable
from ..generation.base import Generator
from ..ingest.base import Extraction
from ..ingest.process_pool import ProcessExtractor
from ..ingest.registry import BIBTEX_EXTENSIONS, JSON_EXTENSIONS, RIS_EXTENSIONS, SUPPORTED_EXTENSIONS
from ..store import reconnect, tables
from ..store.blobs import hash_file
from ..store.db import read_session, write_session
from ..store.dialect_sql import SqlForms
from ..store.tables import utcnow
from . import bibliography, generators, notelinks, records, source_profile, tagging
from .folders import ensure_folder, namesake_folder, place_in_folder
from .library import Library
from .scopes import resolve_scope

_log = logging.getLogger(__name__)

MERGED_INTO = "merged_into"
"""Metadata key of a document merged away (``services.duplicates``): the id of the one it went into."""

Status = Literal["imported", "updated", "duplicate", "failed", "needs_ocr", "skipped"]
Namesakes = Literal["merge", "keep_both"]
"""What an uploaded folder does when a folder of the same name up to case is already in the same place:
go into it (``merge``, the default, said in the report's notices) or sit beside it (``keep_both``)."""


FOLDER_MERGED = "merged into the existing folder"
"""The words of the notice that an imported folder went into a namesake (the CLI adds how to keep both)."""


class ImportOutcome(BaseModel):
    """What happened to one file."""

    path: str
    status: Status
    document_id: str | None = None
    title: str | None = None
    reason: str | None = None
    chunks: int = 0
    embedded_chunks: int = Field(0, description="Of ``chunks``, those that get vectors (body text, "
                                 "``core.documents.EMBEDDED_ROLES``); the others (references, author lists, "
                                 "acknowledgements) are found by their words only.")
    pages: int | None = None
    warnings: list[str] = Field(default_factory=list)
    references: bibliography.BibliographyImport | None = Field(
        default=None, description="For a bibliography file: what became of its entries and attachments.")

    @field_validator("path", "title", "reason")
    @classmethod
    def _readable(cls, value: str | None) -> str | None:
        """A file name that is not valid UTF-8 shows readably (``core.text.readable``), never as lone surrogates."""
        return None if value is None else readable(value)


class ImportReport(BaseModel):
    """Every file's outcome, in the order handled, and the folders created for uploaded directories."""

    outcomes: list[ImportOutcome] = Field(default_factory=list)
    folders: list[str] = Field(default_factory=list)
    notices: list[str] = Field(default_factory=list, description="Things done that were not asked for in so "
                               "many words: 'papers/ went into the existing folder Papers (doc_…)'.")

    @property
    def failed(self) -> list[ImportOutcome]:
        """Outcomes that are failures (refused files and documents kept in state ``failed``)."""
        return [o for o in self.outcomes if o.status == "failed"]

    @property
    def document_ids(self) -> list[str]:
        """Ids of the documents created or updated, a bibliography's references and attachments
        included (for waiting on their indexing)."""
        ids = [o.document_id for o in self.outcomes if o.document_id and o.status in ("imported", "updated")]
        ids += [i for o in self.outcomes if o.references is not None for i in o.references.document_ids]
        return list(dict.fromkeys(ids))


class FolderNamesake(BaseModel):
    """A folder about to be uploaded whose name an existing folder in the same place has up to case."""

    path: str = Field(description="The folder being uploaded.")
    name: str
    existing_id: str
    existing_title: str


class ImportProgress(BaseModel):
    """Files handled so far out of those found, and the current file's name."""

    done: int
    total: int
    current: str
    reconnecting: bool = Field(False, description="True while the database's connection is being made again: "
                               "``current`` then says so (\"reconnecting to the database at host:port/db…\").")


def _walk(paths: Iterable[Path]) -> list[tuple[Path, tuple[str, ...]]]:
    """Files to import with the folder names (relative to the dropped folder) they sit in."""
    found: list[tuple[Path, tuple[str, ...]]] = []
    for path in paths:
        if path.is_dir():
            base = path.parent
            for directory, subdirectories, files in os.walk(path):
                subdirectories[:] = sorted(d for d in subdirectories if not d.startswith("."))
                relative = Path(directory).relative_to(base).parts
                for name in sorted(files):
                    if not name.startswith("."):
                        found.append((Path(directory) / name, relative))
        else:
            found.append((path, ()))
    return found


def _display_name(path: Path) -> str:
    return unicodedata.normalize("NFC", readable(path.name))


def _source_path(path: Path) -> str:
    """Where the file came from, as stored (and matched on re-import): readable, like its name."""
    return readable(str(path.resolve()))


def upload(lib: Library, paths: Sequence[Path], *, scope: str | None = None, folder_id: str | None = None,
           tags: Iterable[str] = (), password: str | None = None,
           progress: Callable[[ImportProgress], None] | None = None,
           cancel: Callable[[], bool] | None = None, extractor: Callable[..., Extraction] | None = None,
           namesakes: Namesakes = "merge", before_commit: Callable[[], None] | None = None,
           bibliography_folder: bool | None = None, generator: Generator | None = None,
           stored: Callable[[list[str]], None] | None = None) -> ImportReport:
    """Import files and whole folders (mirrored as folders) into ``scope``.

    Args:
        paths: files and directories; hidden entries inside directories are skipped, and files in
            directories whose type no extractor knows are listed as ``skipped``.
        folder_id: the folder to import into (None: top level of the scope).
        tags: tags given to every imported document, besides those found in the files.
        password: tried on encrypted PDFs.
        progress: called after each file, and while a team library's database is reconnected (``reconnecting``).
        cancel: checked before each file; the files not reached are not mentioned in the report.
        extractor: what reads each file, with :func:`~..ingest.registry.extract_file`'s signature
            (default: a ``ProcessExtractor`` with the library's ``extraction_timeout_s``, for this call;
            the app passes its own, kept for the session).
        namesakes: an uploaded folder (or subfolder) named like an existing folder in the same place up
            to case: ``merge`` goes into the existing one (a notice in the report says so), ``keep_both``
            makes a new folder beside it (:data:`Namesakes`; the app asks first: :func:`folder_namesakes`).
            A folder of exactly the same name is always merged into.
        before_commit: called before each file is stored, after its extraction (the app blocks there
            while the user's own edits wait, so an import never delays them). An exception it raises
            ends the upload and propagates (the app's cancel): nothing of that file is written.
        bibliography_folder: a bibliography file named in ``paths`` (not one found in a folder, which has its
            folder already) is imported into a new folder named after the file, inside the target, with its
            references and the PDFs newly imported for them, as Zotero does; default: the library setting
            ``bibliography_folder`` (on). A re-import of the file updates its references where they are.
        generator: what writes each file's profile (``services.source_profile``: made after its extraction,
            before its transaction, stored with it); None: the library's. A bibliography's references get theirs
            later (``source_profile.missing_profiles``): hundreds of entries must not hold up the import.
        stored: called after each file's transaction committed, with the ids of the documents it created or
            updated (:attr:`ImportReport.document_ids` of that file: a bibliography's references and attachments
            too), so that their index jobs can be drained while the next file is extracted
            (``indexing.drain_alongside``); not called for a file that stored nothing to index.

    Raises:
        InvalidInput: bad tags or a missing path. ScopeNotFound. (Per-file problems go in the report.)
        DatabaseUnreachable: a team library's database did not answer within the reconnect budget
            (``store.reconnect``; a file it cut off is imported again from its start while within it): the files
            done are stored whole, the one it stopped at not at all; a later upload of the same files imports the rest.
    """
    scope_path = resolve_scope(lib, scope)
    extra_tags = normalize_tags(tags)
    missing = [readable(str(p)) for p in paths if not p.exists()]
    if missing:
        raise InvalidInput(f"no such file or folder: {', '.join(missing)}")
    own_folder = lib.settings.bibliography_folder if bibliography_folder is None else bibliography_folder
    generator = generator or generators.library_generator(lib).generator  # chosen once, not per file
    report = ImportReport()
    folder_ids: dict[tuple[str, ...], str | None] = {(): folder_id}
    # Bibliographies last: the PDFs they name are then already imported (into their own folders) and
    # are linked to their references instead of being imported beside the bibliography first.
    files = sorted(_walk(paths), key=lambda found: found[0].suffix.lower() in _BIBLIOGRAPHY_SUFFIXES)
    with _extraction(lib, extractor) as extract:
        for done, (path, relative) in enumerate(files, start=1):
            if cancel is not None and cancel():
                break
            explicit = not relative
            if not explicit and not _looks_supported(path):
                report.outcomes.append(ImportOutcome(path=str(path), status="skipped", reason="unsupported file type"))
            else:
                # A file whose transaction the database's connection cut off is imported again from its start
                # once the server answers (its extraction kept), saying so in the progress; a server away for
                # longer than the budget ends the upload with DatabaseUnreachable (the next run imports the rest).
                with reconnect.reporting(_waiting(progress, done - 1, len(files), _display_name(path))):
                    outcome = reconnect.resuming(lib.engine, functools.partial(
                        _folder_and_file, lib, path, relative, scope_path, folder_ids, report, namesakes, extra_tags,
                        password, functools.cache(extract), before_commit=before_commit,
                        own_folder=own_folder and explicit, generator=generator))
                report.outcomes.append(outcome)
                written = ImportReport(outcomes=[outcome]).document_ids
                if stored is not None and written:
                    stored(written)
            if progress is not None:
                progress(ImportProgress(done=done, total=len(files), current=_display_name(path)))
    return report


def _waiting(progress: Callable[[ImportProgress], None] | None, done: int, total: int,
             name: str) -> Callable[[str | None], None]:
    """What :func:`upload` tells ``progress`` while the database is away (``store.reconnect.reporting``): the
    reconnecting message as the current item, then the file's name again."""

    def tell(message: str | None) -> None:
        if progress is not None:
            progress(ImportProgress(done=done, total=total, current=message or name, reconnecting=message is not None))

    return tell


def _folder_and_file(lib: Library, path: Path, relative: tuple[str, ...], scope_path: str,
                     folder_ids: dict[tuple[str, ...], str | None], report: ImportReport, namesakes: Namesakes,
                     tags: list[str], password: str | None, extract: Callable[..., Extraction], *,
                     before_commit: Callable[[], None] | None, own_folder: bool,
                     generator: Generator | None) -> ImportOutcome:
    """One file of :func:`upload`: its folder (made if needed), then :func:`_import_one`. Re-runnable from its start
    (``store.reconnect.resuming``): each step commits whole or not at all.

    Raises:
        DatabaseAway: the database's connection was lost (every other failure is the outcome).
    """
    try:
        parent = _folder_for(lib, scope_path, relative, folder_ids, report, namesakes)
    except DatabaseAway:
        raise
    except Exception as error:  # the folder could not be made: its files say why, the rest go on
        return _unexpected(path, _display_name(path), "creating its folder", error)
    return _import_one(lib, path, scope_path, parent, tags, password, extract, before_commit=before_commit,
                       own_folder=own_folder, generator=generator)


def retry_import(lib: Library, document_id: str, *, password: str | None = None,
                 extractor: Callable[..., Extraction] | None = None,
                 before_commit: Callable[[], None] | None = None) -> ImportOutcome:
    """Extract a failed document's stored original again (e.g. with the PDF's password), in place.

    The document keeps its id, folder, tags, name and source path; the previous state is kept as a
    version ("import retried"). ``extractor``, ``before_commit``: as for :func:`upload`.

    Raises:
        DocumentNotFound. InvalidInput: the document has no stored file or did not fail.
    """
    with write_session(lib.engine) as session:
        row = records.document_row(session, document_id)
        if not row.blob_hash:
            raise InvalidInput(f"{document_id} has no stored file to import again")
        if row.index_state != IndexState.FAILED.value:
            raise InvalidInput(f"{document_id} did not fail to import; nothing to retry")
        meta = dict(row.meta)
        stored = lib.blobs.path_for(row.blob_hash, meta.get("file_suffix", ""))
        origin = (meta.get("original_name") or stored.name, meta.get("source_path") or str(stored))
        scope_path, folder_id = row.scope_path, row.folder_id
    with _extraction(lib, extractor) as extract:
        return _import_one(lib, stored, scope_path, folder_id, [], password, extract, origin=origin,
                           before_commit=before_commit)


@contextmanager
def _extraction(lib: Library, extractor: Callable[..., Extraction] | None) -> Iterator[Callable[..., Extraction]]:
    """The caller's extractor, or a time-limited worker process for the duration of the call."""
    if extractor is not None:
        yield extractor
        return
    # No window waits on this process (the CLI, a script): the worker is not niced. Its time limit is wall time,
    # and the upload's encoder runs beside it (indexing.drain_alongside): a niced worker fell behind on a busy
    # machine until a paper read in seconds alone ran past its limit (63 s).
    worker = ProcessExtractor(lib.settings.extraction_timeout_s, nice=0)
    try:
        yield worker
    finally:
        worker.close()


_BIBLIOGRAPHY_SUFFIXES = BIBTEX_EXTENSIONS | RIS_EXTENSIONS | JSON_EXTENSIONS
"""Suffixes that may be bibliographies (a ``.json`` may be CSL-JSON): imported last in an upload."""


def _looks_supported(path: Path) -> bool:
    return path.suffix.lower() in SUPPORTED_EXTENSIONS or _is_pdf(path)


def _is_pdf(path: Path) -> bool:
    """``%PDF-`` in the first 1024 bytes, where PDF readers look for it."""
    try:
        with path.open("rb") as handle:
            return b"%PDF-" in handle.read(1024)
    except OSError:
        return False


def _folder_for(lib: Library, scope_path: str, relative: tuple[str, ...],
                folder_ids: dict[tuple[str, ...], str | None], report: ImportReport,
                namesakes: Namesakes) -> str | None:
    if relative in folder_ids:
        return folder_ids[relative]
    parent = _folder_for(lib, scope_path, relative[:-1], folder_ids, report, namesakes)
    name = unicodedata.normalize("NFC", readable(relative[-1]))
    notice = None  # told once committed: a transaction the connection cut off runs again (upload)
    with write_session(lib.engine) as session:
        folder = namesake_folder(session, scope_path, name, parent) if namesakes == "merge" else None
        if folder is not None and folder.title != name.strip():
            notice = f"{'/'.join(relative)}: {FOLDER_MERGED} {folder.title} ({folder.id})"
        elif folder is None:
            folder = ensure_folder(session, scope_path, name, parent)
        records.bump_change_counter(session)
    if notice is not None:
        report.notices.append(notice)
    folder_ids[relative] = folder.id
    report.folders.append(folder.id)
    return folder.id


def folder_namesakes(lib: Library, paths: Sequence[Path], *, scope: str | None = None,
                     folder_id: str | None = None) -> list[FolderNamesake]:
    """The folders among ``paths`` that an existing folder at the destination is named like up to case
    only (``papers`` beside ``Papers``): what :func:`upload` merges by default, for the app to ask first.

    Raises:
        ScopeNotFound.
    """
    folders = [path for path in paths if path.is_dir()]
    if not folders:  # files only: no database read (the app asks this on the UI thread)
        return []
    scope_path = resolve_scope(lib, scope)
    found = []
    with read_session(lib.engine) as session:
        for path in folders:
            name = unicodedata.normalize("NFC", readable(path.name))
            existing = namesake_folder(session, scope_path, name, folder_id)
            if existing is not None and existing.title != name.strip():
                found.append(FolderNamesake(path=readable(str(path)), name=name, existing_id=existing.id,
                                            existing_title=existing.title))
    return found


def _import_one(lib: Library, path: Path, scope_path: str, folder_id: str | None, tags: list[str],
                password: str | None, extractor: Callable[..., Extraction], *,
                origin: tuple[str, str] | None = None, before_commit: Callable[[], None] | None = None,
                own_folder: bool = False, generator: Generator | None = None) -> ImportOutcome:
    """Import one file; ``origin`` = (name, source path) when ``path`` is the stored copy (a retry);
    ``own_folder``: a new bibliography goes into a folder named after it (:func:`upload`).

    Never raises (but KeyboardInterrupt, what ``before_commit`` raises, and DatabaseAway: the database out of
    reach, for :func:`upload` to run the file again): every other failure is the returned outcome. The database work is
    one transaction, so a failure leaves no document, chunk or job behind; a blob already stored
    stays, complete, for the next import of the same bytes.
    """
    name = origin[0] if origin else _display_name(path)
    stage = "reading it"
    try:
        size = path.stat().st_size
        limit = lib.settings.max_import_mb * 1024 * 1024
        digest = hash_file(path)
        stage = "looking for a copy in the library"
        with read_session(lib.engine) as session:  # the commit below looks again, under the write lock
            duplicate = _find(session, scope_path, "content_hash", digest)
        retry = duplicate if duplicate is not None and (duplicate.index_state == IndexState.FAILED.value
                                                        or bibliography.is_opaque_bibliography(duplicate)) else None
        if duplicate is not None and retry is None:
            # Before the extraction: a re-upload of unchanged files reads none of them again (nor starts the
            # extraction process, which starts on its first file).
            return _duplicate(lib, duplicate, path)
        extraction: Extraction | None = None
        failure: ImportFailed | None = None
        stage = "extracting its text"
        try:
            extraction = extractor(path, password=password, max_bytes=limit)
        except (EncryptedPdf, DamagedFile) as error:
            failure = error  # kept as a failed document: the original is preserved for a retry
        stage = "cutting its text into chunks"
        chunks, counts = records.fit_chunks(lib, extraction.chunks) if extraction is not None else ([], [])
        references, prepared = None, []
        if extraction is not None and extraction.references is not None:
            stage = "reading its bibliography entries"
            references = bibliography.BibliographyImport(source=name)
            target = retry.folder_id if retry is not None else folder_id
            prepared = bibliography.prepare(
                lib, extraction.references, base_dir=Path(origin[1] if origin else path).parent, report=references,
                attach=lambda found: _attach(lib, found, scope_path, target, tags, extractor, before_commit))
        profile = _profile(lib, extraction, name, scope_path, generator)
        if before_commit is not None:
            try:
                before_commit()
            except BaseException as error:
                raise _Interrupted() from error
        stage = "storing the original in the library"
        lib.blobs.put(path, digest)
        stage = "saving it in the library"
        with write_session(lib.engine) as session:
            if retry is None:
                # Another process may have stored the same bytes since the look above (the same file uploaded by
                # two processes at once was taken for a changed file, and both read its atoms: a tester, 3 Dec 2026).
                late = _find(session, scope_path, "content_hash", digest)
                if late is not None:
                    raise _StoredMeanwhile(late.id)
            previous = (session.get(tables.DocumentRow, retry.id) if retry is not None
                        else _find(session, scope_path, "source_path", _source_path(path)))
            row = previous or tables.DocumentRow(id=new_document_id(), scope_path=scope_path, type="file", title=name)
            if previous is not None:
                records.snapshot_version(session, previous, "import retried" if retry is not None
                                         else "re-imported: the file changed")
            else:
                row.folder_id = folder_id
                row.created_at = row.updated_at = utcnow()
                row.updated_by = records.creator(None)
            _fill(row, origin[1] if origin else _source_path(path), name, size, digest, extraction, failure)
            source_profile.attach(row, profile)
            row.source_type = SourceType.USER_UPLOAD.value
            session.add(row)
            session.flush()  # the row exists before its link edges point from it (their foreign key)
            if Path(name).suffix.lower() in notelinks.NOTE_SUFFIXES:  # a vault's note: its [[links]]
                notelinks.refresh_links(session, row)
            notelinks.relink_titles(session, row.title, Path(name).stem)  # by title or by file name
            found_tags = extraction.tags if extraction is not None else []
            old_tags = records.tags_of(session, row.id) if previous is not None else []
            tagging.set_tags(session, row.id, normalize_tags([*old_tags, *tags, *found_tags]))
            records.replace_chunks(session, row, chunks, counts)
            if chunks:
                records.enqueue(session, row.id, "embed")
            elif previous is not None:  # its old chunks' vectors must go too (a bibliography has none now)
                records.enqueue(session, row.id, "drop", scope=row.scope_path)
            if references is not None and own_folder and previous is None:
                _into_own_folder(session, row, references, Path(name).stem or name)
            if references is not None:
                bibliography.write(lib, session, prepared, references, scope_path=scope_path, folder_id=row.folder_id,
                                   tags=tags, source=Source(type=SourceType.USER_UPLOAD), bibliography_id=row.id)
            records.bump_change_counter(session)
    except _Interrupted as stop:
        raise stop.__cause__ from None  # type: ignore[misc]  # the caller's own exception, as it raised it
    except _StoredMeanwhile as stored:  # nothing written: the write transaction rolled back
        with read_session(lib.engine) as session:
            first = records.document_row(session, stored.document_id)
        return _duplicate(lib, first, path)
    except DatabaseAway:
        raise  # the whole file again once the server answers (upload), or the server named
    except ImportFailed as error:
        return ImportOutcome(path=str(path), status="failed", reason=str(error))
    except OSError as error:
        if stage == "reading it":
            return ImportOutcome(path=str(path), status="failed", reason=f"cannot read {name}: {error.strerror}")
        return _unexpected(path, name, stage, error)
    except Exception as error:  # a bug, a damaged library, a worker's surprise: this file's outcome only
        return _unexpected(path, name, stage, error)
    if failure is not None:
        return ImportOutcome(path=str(path), status="failed", document_id=row.id, title=row.title,
                             reason=f"{failure} (kept as {row.id}, not indexed)")
    assert extraction is not None
    status: Status = "needs_ocr" if extraction.needs_ocr else ("updated" if previous is not None else "imported")
    return ImportOutcome(
        path=str(path), status=status, document_id=row.id, title=row.title, chunks=len(chunks),
        embedded_chunks=sum(chunk.role in EMBEDDED_ROLES for chunk in chunks),
        pages=extraction.metadata.get("page_count"), warnings=list(extraction.warnings),
        reason=("no text layer: stored, marked 'needs OCR', not indexed" if extraction.needs_ocr
                else references.summary if references is not None else None),
        references=references,
    )


def _profile(lib: Library, extraction: Extraction | None, name: str, scope_path: str,
             generator: Generator | None) -> SourceProfile | None:
    """The profile of a file just extracted (None: no text, a scan, a failure): never raises, since a
    summary that cannot be written must not cost the import (``source_profile.make_profile`` logs why)."""
    if extraction is None or extraction.needs_ocr:
        return None
    text = source_profile.source_text(extraction.text, [(c.text, c.role) for c in extraction.chunks])
    try:
        return source_profile.profile_for(lib, text, title=extraction.title or Path(name).stem,
                                          doc_type=extraction.doc_type, metadata=extraction.metadata,
                                          scope=scope_path, generator=generator)
    except DatabaseAway:
        raise  # the database, not the profile: the file waits for it
    except Exception:  # reading the visible tags failed (a busy or damaged library): the file comes in without
        _log.exception("no profile for %s", name)
        return None


def _into_own_folder(session: Session, row: tables.DocumentRow, references: bibliography.BibliographyImport,
                     folder_name: str) -> None:
    """Put a new bibliography file, and the PDFs its import brought in, into a folder named after the file
    (reused when that place already has one of that name), where its references will be written."""
    folder = ensure_folder(session, row.scope_path, folder_name, row.folder_id)
    place_in_folder(session, row, folder.id)
    for attached in references.attachments:
        if attached.status == "imported" and attached.document_id:
            place_in_folder(session, records.document_row(session, attached.document_id), folder.id)
    references.folder = folder.title


class _Interrupted(Exception):
    """Carries (as ``__cause__``) what ``before_commit`` raised past the per-file failure handling."""


def _attach(lib: Library, path: Path, scope_path: str, folder_id: str | None, tags: list[str],
            extractor: Callable[..., Extraction],
            before_commit: Callable[[], None] | None) -> bibliography.AttachmentOutcome:
    """Import the PDF a bibliography entry names, as an upload of its own (a file already in the library
    is found by its content and linked, not imported again). Only PDFs: an entry's snapshot pages and
    other files are left alone, and a path in a bibliography from elsewhere can bring in nothing else."""
    if not _is_pdf(path):
        return bibliography.AttachmentOutcome(path=str(path), status="skipped", reason="not a PDF")
    outcome = _import_one(lib, path, scope_path, folder_id, tags, None, extractor, before_commit=before_commit)
    status = "imported" if outcome.status == "updated" else outcome.status
    return bibliography.AttachmentOutcome(path=str(path), status=status, document_id=outcome.document_id,  # type: ignore[arg-type]
                                          reason=outcome.reason)


def _unexpected(path: Path, name: str, stage: str, error: Exception) -> ImportOutcome:
    """A failure no extractor foresaw, as a ``failed`` outcome; the traceback goes to the log."""
    _log.error("importing %s failed while %s", path, stage, exc_info=error)
    detail = getattr(error, "orig", None) or error  # SQLAlchemy wraps the database's own message
    message = getattr(error, "strerror", None) or str(detail) or type(error).__name__
    return ImportOutcome(path=str(path), status="failed",
                         reason=f"{name} failed while {stage}: {type(detail).__name__}: {message}")


class _StoredMeanwhile(Exception):
    """Raised inside an import's write transaction when another process stored the same file first."""

    def __init__(self, document_id: str) -> None:
        super().__init__(document_id)
        self.document_id = document_id


def _find(session: Session, scope_path: str, key: str, value: str) -> tables.DocumentRow | None:
    forms = SqlForms.of(session)
    column = ("d.content_hash" if key == "content_hash"
              else forms.text(forms.valid("d.metadata"), "source_path"))
    row = session.exec(
        text(f"SELECT d.id FROM document d WHERE d.scope_path = :scope AND d.type != 'folder' AND {column} = :value "
             "ORDER BY d.created_at LIMIT 1"),
        params={"scope": scope_path, "value": value},
    ).first()
    return None if row is None else session.get(tables.DocumentRow, row[0])


def _duplicate(lib: Library, row: tables.DocumentRow, path: Path) -> ImportOutcome:
    """The file is ``row``'s: say so. A copy in the trash comes back, unless it was merged into a document
    still there (``services.duplicates``): that one is named instead."""
    restored = ""
    if row.status == DocumentStatus.DELETED.value:
        with write_session(lib.engine) as session:
            stored = records.document_row(session, row.id)
            survivor = session.get(tables.DocumentRow, stored.meta.get(MERGED_INTO) or "")
            if survivor is not None and survivor.status != DocumentStatus.DELETED.value:
                stored = survivor
            else:
                stored.status = DocumentStatus.ACTIVE.value
                session.add(stored)
                records.bump_change_counter(session)
                restored = ", restored from the trash"
            doc_id, title = stored.id, stored.title
    else:
        doc_id, title = row.id, row.title
    return ImportOutcome(path=str(path), status="duplicate", document_id=doc_id, title=title,
                         reason=f"already in your library: {title} ({doc_id}){restored}")


def _fill(row: tables.DocumentRow, source_path: str, name: str, size: int, digest: str,
          extraction: Extraction | None, failure: ImportFailed | None) -> None:
    meta = {"original_name": name, "source_path": source_path, "file_size": size,
            "file_suffix": Path(name).suffix.lower()}
    if extraction is not None:
        meta.update(extraction.metadata)
        if extraction.warnings:
            meta["import_warnings"] = list(extraction.warnings)
        row.type = extraction.doc_type.value
        row.mime_type = extraction.mime_type
        row.title = extraction.title or Path(name).stem
        row.content = extraction.text
        if extraction.needs_ocr:
            row.index_state, row.index_error = IndexState.NEEDS_OCR.value, "no text layer (needs OCR)"
        else:
            row.index_state = IndexState.PENDING.value if extraction.chunks else IndexState.NOT_INDEXED.value
            row.index_error = None
    else:
        row.type = DocumentType.FILE.value
        row.mime_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
        row.title = Path(name).stem
        row.index_state, row.index_error = IndexState.FAILED.value, readable(str(failure))
    row.meta = meta
    row.blob_hash = digest
    row.content_hash = digest
    row.status = DocumentStatus.ACTIVE.value
    row.updated_at = utcnow()
