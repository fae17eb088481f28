"""Bibliographies as items: one reference document per entry, linked to its file, de-duplicated, PDF attached.

What a Zotero user expects when importing a ``.bib``, ``.ris`` or CSL-JSON file, and how it is done:

* **The file itself** is kept as a *file* document holding the original (its MIME type says which
  format) with no chunks of its own: its entries are indexed once, as themselves, not twice. Its
  metadata says ``entry_count`` and ``entry_types``; its entries are found by the link below
  (:func:`services.relations.document_links`). Re-importing it unchanged is a duplicate file, as for
  any file; re-importing it changed (same path) updates its entries instead of duplicating them.
* **Each entry** becomes a *reference* document: title, metadata from
  :meth:`~vancetope_desktop.ingest.bibentry.BibEntry.metadata` (authors, year, DOI, journal,
  publisher, abstract, keywords, entry type, citation key…), and one chunk reading like a citation
  followed by the abstract (also its content), so a search for the paper's topic or its authors
  finds it. Keywords become tags under ``keyword/`` (``core.tags.keyword_tags``: one branch of the tag tree),
  besides the tags given to the upload.
* **A folder of its own**: a bibliography file chosen by itself goes, with its references, into a new folder
  named after it (``services.imports.upload``, the setting ``bibliography_folder``), as Zotero's "Place
  imported collections and items into new collection" does.
* **Links** live in metadata lists, as ``derived_from`` does (``services.relations``), with no schema
  change: a reference's ``listed_in`` holds the ids of the bibliography files that list it, its
  ``attachments`` the ids of its file documents.
* **Attachments**: a ``file`` field (Zotero, JabRef, Mendeley forms), RIS ``L1``/``L4``, or a CSL
  ``file`` key naming a PDF that exists — as written, relative to the bibliography's folder, or by
  its name beside the bibliography — is imported as a file document like any upload (a PDF already
  in the library is linked, not imported twice) and linked to its reference; it takes the entry's
  authors, year, DOI and journal where it has none (:data:`ATTACHMENT_FIELDS`).
* **Duplicates** are looked for in the target scope (as files are: trashed ones are restored), in
  this order: the same bibliography and citation key (a re-import of that file, and only a reference
  that import made: a key used twice in one file names two works), the DOI, then the normalised
  title with the year (``ingest.bibentry.title_key``). As in Zotero, two different DOIs, authors on
  both sides with no surname in common, or two kinds of work (``ingest.bibentry.kind_family``) mean
  two works even with one title: in the corpus, a book and a journal's review of it (Mendeley file),
  a technical report and the article it became (AI file). Within a file, a later entry is compared
  with the earlier ones too.

  - An entry from a *previous import of the same file* is that file's view of the reference: the
    fields it states replace the stored ones, fields it no longer states are kept, and the previous
    state is kept as a version (so nothing is lost) → ``updated``, or ``unchanged``.
  - Any other duplicate (another file, a reference typed by hand, the same work twice in one file)
    is **merged**: fields the existing reference lacks are filled in, keywords, tags, links and
    attachments are united, nothing is overwritten → ``merged`` (something was added) or
    ``duplicate`` (nothing new). Zotero users expect no duplicates and no lost data.

  A reference's content is regenerated from its fields only while it is still the generated text: a
  content the user edited is kept.
* **Transactions**: the file document and all its references commit in one transaction (the caller's),
  so a crash never leaves half a file; attachments are imported before it, each as its own upload.
  The 1,000-entry AI library imports in a few seconds (figures in the README).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PureWindowsPath
from typing import Any, Literal

from pydantic import BaseModel, Field, computed_field
from sqlalchemy import text
from sqlmodel import Session, select

from ..core.documents import DocumentStatus, DocumentType, IndexState, Source, SourceType
from ..core.ids import new_document_id
from ..core.tags import keyword_tags, normalize_tags
from ..index import lexical_backend
from ..ingest.base import ChunkDraft
from ..ingest.bibentry import (
    BibEntry,
    different_works,
    kind_family,
    normalize_doi,
    surname_keys,
    title_key,
)
from ..ingest.bibliography import parse_reference_text
from ..ingest.references import reference_extraction
from ..store import tables
from ..store.blobs import hash_text
from ..store.db import write_session
from ..store.dialect_sql import SqlForms
from ..store.tables import utcnow
from . import records, tagging
from .citation_keys import KEY_FIELD
from .folders import check_folder
from .library import Library
from .relations import ATTACHMENTS, LISTED_IN
from .scopes import resolve_scope

EntryStatus = Literal["imported", "updated", "unchanged", "merged", "duplicate"]
ATTACHMENT_FIELDS = ("authors", "year", "doi", "journal")
"""Fields an attached file takes from its entry when it has none (the document table's columns)."""


class EntryOutcome(BaseModel):
    """What became of one entry: the reference document it is now, and how it got there."""

    key: str | None = None
    status: EntryStatus
    document_id: str
    title: str
    reason: str | None = None


class AttachmentOutcome(BaseModel):
    """One file an entry names: imported (or found) as ``document_id``, or why not."""

    path: str
    status: Literal["imported", "duplicate", "failed", "needs_ocr", "missing", "skipped"]
    document_id: str | None = None
    reason: str | None = None


class BibliographyImport(BaseModel):
    """The entries of one bibliography (a file or pasted text) and their attachments, in file order."""

    source: str = Field(description="The file name, or 'pasted text'.")
    folder: str | None = Field(default=None, description="The folder made for (or named after) the file that its "
                               "references went into (``services.imports.upload``); None: where the file went.")
    entries: list[EntryOutcome] = Field(default_factory=list)
    attachments: list[AttachmentOutcome] = Field(default_factory=list)

    def count(self, *statuses: str) -> int:
        """Entries with one of ``statuses``."""
        return sum(1 for e in self.entries if e.status in statuses)

    @property
    def document_ids(self) -> list[str]:
        """Documents created or changed (references and attached files), for waiting on their indexing."""
        ids = [e.document_id for e in self.entries if e.status in ("imported", "updated", "merged")]
        ids += [a.document_id for a in self.attachments if a.document_id and a.status == "imported"]
        return list(dict.fromkeys(ids))

    @computed_field  # type: ignore[prop-decorator]
    @property
    def summary(self) -> str:
        """One line: "506 references from x.bib (3 duplicates merged, 2 already there, 4 PDFs attached)"."""
        new = self.count("imported")
        parts = [f"{n} {label}" for n, label in (
            (self.count("updated"), "updated"), (self.count("unchanged"), "unchanged"),
            (self.count("merged"), "duplicates merged into existing references"),
            (self.count("duplicate"), "duplicates skipped (already there)"),
            (sum(1 for a in self.attachments if a.document_id), "files attached"),
            (sum(1 for a in self.attachments if not a.document_id), "attachments not found or not imported"),
        ) if n]
        noun = "reference" if new == 1 else "references"
        into = f" into folder “{self.folder}”" if self.folder else ""
        return f"{new} {noun} from {self.source}{into}" + (f" ({', '.join(parts)})" if parts else "")


Attach = Callable[[Path], AttachmentOutcome]
"""Imports one attachment file (the caller's file importer) and says what became of it."""


@dataclass
class PreparedEntry:
    """An entry ready to write: its extraction's chunks cut to the model's limit, tags, attached ids."""

    entry: BibEntry
    title: str
    text: str
    chunks: list[ChunkDraft]
    counts: list[int]
    tags: list[str]
    attachment_ids: list[str]


# --- outside the transaction ---------------------------------------------------------------------------


def prepare(lib: Library, entries: Sequence[BibEntry], *, base_dir: Path | None, attach: Attach | None,
            report: BibliographyImport) -> list[PreparedEntry]:
    """Chunk every entry and import the files they name (each attachment once), before the write.

    Args:
        base_dir: the bibliography's folder (relative paths and bare names are looked for there);
            None for pasted text, whose entries get no attachments.
        attach: imports one file; None to attach nothing.
        report: receives an :class:`AttachmentOutcome` per file named.
    """
    seen: dict[str, AttachmentOutcome] = {}
    prepared = []
    fit = records.chunk_fitter(lib)
    for entry in entries:
        extraction = reference_extraction(entry)
        chunks, counts = fit(extraction.chunks)
        attached = []
        if attach is not None and base_dir is not None:
            for written in entry.files:
                if written not in seen:
                    seen[written] = _attach(written, base_dir, attach)
                    report.attachments.append(seen[written])
                attached.append(seen[written].document_id)
        prepared.append(PreparedEntry(entry, extraction.title or "Untitled reference", extraction.text, chunks,
                                      counts, keyword_tags(entry.keywords),
                                      list(dict.fromkeys(i for i in attached if i))))
    return prepared


def _attach(written: str, base_dir: Path, attach: Attach) -> AttachmentOutcome:
    found = resolve_attachment(written, base_dir)
    if found is None:
        return AttachmentOutcome(path=written, status="missing", reason="no such file beside the bibliography")
    return attach(found)


def resolve_attachment(written: str, base_dir: Path) -> Path | None:
    """The existing file an entry's attachment path means, or None.

    Tried in order: the path as written when absolute (Zotero and Mendeley write absolute paths on
    the exporting machine); relative to the bibliography's folder (Zotero's "export with files",
    JabRef); Mendeley's Linux form without the leading ``/``; the file's name beside the
    bibliography (a bibliography sent with its PDFs from another machine).
    """
    windows = PureWindowsPath(written)
    name = windows.name if windows.drive or "\\" in written else Path(written).name
    path = Path(written).expanduser()
    candidates = [path] if path.is_absolute() else [base_dir / path, Path("/") / path]
    if name:
        candidates.append(base_dir / name)
    for candidate in candidates:
        try:
            if candidate.is_file():
                return candidate.resolve()
        except OSError:  # a name too long or unreadable: not this one
            continue
    return None


# --- inside the transaction ----------------------------------------------------------------------------


@dataclass
class _Known:
    """The references of a scope, indexed for the duplicate checks (updated as entries are written)."""

    by_doi: dict[str, str]
    by_title: dict[tuple[str, int | None], list[str]]
    by_key: dict[tuple[str, str], str]
    doi_of: dict[str, str | None]
    surnames_of: dict[str, frozenset[str]]
    family_of: dict[str, str | None]

    @classmethod
    def load(cls, session: Session, scope_path: str) -> _Known:
        fields = ", ".join(SqlForms.of(session).value("metadata", key) for key in (
            "doi", "year", "citation_key", "listed_in", "authors", "entry_type"))
        rows = session.exec(
            text(f"SELECT id, title, {fields} "
                 "FROM document WHERE scope_path = :scope AND type = 'reference' ORDER BY created_at, id"),
            params={"scope": scope_path},
        ).all()
        known = cls({}, {}, {}, {}, {}, {})
        for doc_id, title, doi, year, key, listed, authors, kind in rows:
            known.add(doc_id, title, doi, year, key, _json_list(listed), _json_list(authors), kind)
        return known

    def add(self, doc_id: str, title: str | None, doi: Any, year: Any, key: Any, listed_in: Iterable[str],
            authors: Iterable[str], kind: Any) -> None:
        doi = normalize_doi(str(doi)) if doi else None
        self.doi_of[doc_id] = doi
        self.surnames_of[doc_id] = surname_keys(authors)
        self.family_of[doc_id] = kind_family(str(kind)) if kind else None
        if doi:
            self.by_doi.setdefault(doi, doc_id)
        if (found := title_key(title)) is not None:
            year = year if isinstance(year, int) else int(year) if str(year).strip().isdigit() else None
            ids = self.by_title.setdefault((found, year), [])
            if doc_id not in ids:
                ids.append(doc_id)
        if key:
            for bibliography in listed_in:
                self.by_key.setdefault((bibliography, str(key)), doc_id)

    def candidates(self, entries: Iterable[BibEntry], bibliography: str | None) -> set[str]:
        """Every stored reference some of ``entries`` may match (to load them in one go)."""
        found: set[str] = set()
        for entry in entries:
            if bibliography and entry.key and (by_key := self.by_key.get((bibliography, entry.key))):
                found.add(by_key)
            if entry.doi and (by_doi := self.by_doi.get(entry.doi)):
                found.add(by_doi)
            if key := title_key(entry.title):
                found.update(self.by_title.get((key, entry.year), []))
        return found

    def match(self, entry: BibEntry, title: str, bibliography: str | None, touched: set[str]) -> str | None:
        """The id of the reference ``entry`` duplicates, or None (see the module docstring for the order).

        The citation key finds a reference of a previous import of the file only: not one this import
        wrote already (a key used twice in one file names two works), nor one with another DOI.
        """
        found = self.by_key.get((bibliography, entry.key)) if bibliography and entry.key else None
        if found and found not in touched and not (entry.doi and self.doi_of.get(found) not in (None, entry.doi)):
            return found
        if entry.doi and (found := self.by_doi.get(entry.doi)):
            return found
        key = title_key(entry.title or title)
        surnames, family = surname_keys(entry.authors), kind_family(entry.kind)
        for doc_id in self.by_title.get((key, entry.year), []) if key else []:
            if not different_works(entry.doi, self.doi_of.get(doc_id), surnames,
                                   self.surnames_of.get(doc_id, frozenset()), family, self.family_of.get(doc_id)):
                return doc_id
        return None


def _json_list(value: Any) -> list[str]:
    """A metadata list (ids, names) as stored: JSON text from ``json_extract``, a list, or nothing."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return []
    return [str(v) for v in value] if isinstance(value, list) else []


@dataclass
class _New:
    """A reference created by this import: written at the end in batches (rows, chunks, tags, jobs)."""

    row: tables.DocumentRow
    chunks: list[ChunkDraft]
    counts: list[int]
    tags: list[str]


def write(lib: Library, session: Session, prepared: Sequence[PreparedEntry], report: BibliographyImport, *,
          scope_path: str, folder_id: str | None, tags: Sequence[str], source: Source,
          bibliography_id: str | None) -> None:
    """Write the entries as reference documents in the caller's transaction (see the module docstring).

    New references are written in batches at the end (one flush for the rows, two statements for all
    chunks and their lexical rows), which keeps a 1,000-entry file to seconds.

    Args:
        tags: normalised tags for every reference (the upload's), besides each entry's keyword tags.
        bibliography_id: the file document the entries come from (linked by ``listed_in``), or None
            for pasted text.
        report: receives one :class:`EntryOutcome` per entry, in order.
    """
    known = _Known.load(session, scope_path)
    # The stored references the entries may meet, and their tags, in a few queries rather than two each.
    candidates = list(known.candidates((item.entry for item in prepared), bibliography_id))
    loaded = [row for start in range(0, len(candidates), 500)  # held: the session's identity map is weak
              for row in session.exec(select(tables.DocumentRow).where(
                  tables.DocumentRow.id.in_(candidates[start : start + 500]))).all()]  # type: ignore[attr-defined]
    stored_tags = records.tags_by_document(session, candidates)
    new: dict[str, _New] = {}
    author = records.creator(source.think_process_id)  # once: it reads the person's preferences file
    touched: set[str] = set()  # references this import already wrote: a match among them is a duplicate
    for item in prepared:
        match = known.match(item.entry, item.title, bibliography_id, touched)
        if match is None:
            created = _new(item, scope_path, folder_id, tags, source, bibliography_id, author)
            new[created.row.id] = created
            row = created.row
            outcome = EntryOutcome(key=item.entry.key, status="imported", document_id=row.id, title=row.title)
        else:
            row = new[match].row if match in new else records.document_row(session, match)
            same_file = (bibliography_id is not None and match not in touched
                         and bibliography_id in _json_list(row.meta.get(LISTED_IN)))
            outcome = _update(lib, session, row, item, tags, bibliography_id, replace=same_file,
                              pending=new.get(match), stored_tags=stored_tags)
        touched.add(row.id)
        known.add(row.id, row.title, row.meta.get("doi"), row.meta.get("year"), row.meta.get("citation_key"),
                  _json_list(row.meta.get(LISTED_IN)), _json_list(row.meta.get("authors")), row.meta.get("entry_type"))
        report.entries.append(outcome)
    del loaded
    session.add_all([n.row for n in new.values()])
    session.flush()
    records.add_chunks(session, [(n.row, n.chunks, n.counts) for n in new.values()])
    for created in new.values():
        if created.tags:
            tagging.set_tags(session, created.row.id, created.tags)
    records.enqueue_many(session, [n.row.id for n in new.values() if n.chunks], "embed")
    for item in prepared:
        for attachment_id in item.attachment_ids:
            _describe_attachment(session, attachment_id, item.entry)
    records.bump_change_counter(session)


def _describe_attachment(session: Session, document_id: str, entry: BibEntry) -> None:
    """Give an attached file the entry's :data:`ATTACHMENT_FIELDS` it lacks, so the document list shows
    its authors and year as Zotero shows a PDF under its item; what the file has stays."""
    row = session.get(tables.DocumentRow, document_id)
    if row is None or row.type != DocumentType.FILE.value:
        return
    stated = entry.metadata()
    missing = {k: stated[k] for k in ATTACHMENT_FIELDS if k in stated and row.meta.get(k) in (None, "", [])}
    if missing:
        records.snapshot_version(session, row, "bibliographic fields from its reference")
        row.meta = {**row.meta, **missing}
        session.add(row)


def _new(item: PreparedEntry, scope_path: str, folder_id: str | None, tags: Sequence[str], source: Source,
         bibliography_id: str | None, author: str) -> _New:
    now = utcnow()
    meta = item.entry.metadata()
    if bibliography_id:
        meta[LISTED_IN] = [bibliography_id]
    if item.attachment_ids:
        meta[ATTACHMENTS] = item.attachment_ids
    row = tables.DocumentRow(
        id=new_document_id(), scope_path=scope_path, type=DocumentType.REFERENCE.value, title=item.title,
        content=item.text, mime_type="text/plain", meta=meta, folder_id=folder_id,
        content_hash=hash_text(item.text), created_at=now, updated_at=now, source_type=source.type.value,
        source_think_process=source.think_process_id, source_node=source.node_id,
        index_state=IndexState.PENDING.value if item.chunks else IndexState.NOT_INDEXED.value,
        updated_by=author,
    )
    return _New(row, item.chunks, item.counts, normalize_tags([*tags, *item.tags]))


def _update(lib: Library, session: Session, row: tables.DocumentRow, item: PreparedEntry, tags: Sequence[str],
            bibliography_id: str | None, *, replace: bool, pending: _New | None,
            stored_tags: dict[str, list[str]]) -> EntryOutcome:
    """Bring an existing reference up to date with an entry: ``replace`` its stated fields (a re-import
    of its own file) or merge in what it lacks. A stored reference keeps its previous state as a
    version when it changes; one created by this import (``pending``) is simply changed before it is
    written."""
    entry = item.entry
    before_meta, before_title = dict(row.meta), row.title
    if pending is not None:
        before_tags = sorted(pending.tags)
    elif row.id in stored_tags:
        before_tags = stored_tags[row.id]
    else:
        before_tags = records.tags_of(session, row.id)
    generated = row.content == BibEntry.from_metadata(before_meta, title=before_title).text()
    stated = entry.metadata()
    if replace:
        meta = before_meta | stated  # a field the file no longer states is kept: no data lost
        if before_meta.get(KEY_FIELD):  # a citation key, once the document's, is kept (services.citation_keys)
            meta[KEY_FIELD] = before_meta[KEY_FIELD]
        title = item.title
    else:
        meta = dict(before_meta)
        for key, value in stated.items():
            if meta.get(key) in (None, "", []):
                meta[key] = value
        if stated.get("keywords"):
            meta["keywords"] = list(dict.fromkeys([*(before_meta.get("keywords") or []), *stated["keywords"]]))
        title = before_title
    for key, ids in ((LISTED_IN, [bibliography_id] if bibliography_id else []), (ATTACHMENTS, item.attachment_ids)):
        merged = list(dict.fromkeys([*_json_list(before_meta.get(key)), *ids]))
        if merged:
            meta[key] = merged
    after_tags = sorted(set(normalize_tags([*before_tags, *tags, *item.tags])))
    content = BibEntry.from_metadata(meta, title=title).text() if generated else row.content
    restored = row.status == DocumentStatus.DELETED.value
    changed = [name for name, old, now in (("fields", before_meta, meta), ("title", before_title, title),
                                             ("tags", before_tags, after_tags), ("text", row.content, content))
               if old != now]
    if not changed and not restored:
        return EntryOutcome(key=entry.key, status="unchanged" if replace else "duplicate", document_id=row.id,
                            title=row.title, reason=None if replace else f"same as {row.id}")
    if changed and pending is None:
        records.snapshot_version(session, row, "re-imported from its bibliography" if replace
                                 else "merged a duplicate bibliography entry")
    row.meta, row.title, row.updated_at = meta, title, utcnow()
    if restored:
        row.status = DocumentStatus.ACTIVE.value
    chunks: list[ChunkDraft] | None = None
    if content != row.content and content:
        row.content, row.content_hash = content, hash_text(content)
        if content == item.text:
            chunks, counts = item.chunks, item.counts
        else:  # merged fields make a new text: chunk it like prepare() does (CPU only, a few per file)
            merged = reference_extraction(BibEntry.from_metadata(meta, title=title))
            chunks, counts = records.fit_chunks(lib, merged.chunks)
    if pending is not None:
        pending.tags = after_tags
        if chunks is not None:
            pending.chunks, pending.counts = chunks, counts
    else:
        _store_update(session, row, chunks, counts if chunks is not None else [], retitled=title != before_title,
                      tags=after_tags if after_tags != before_tags else None)
        stored_tags[row.id] = after_tags
    added = [k for k in stated if before_meta.get(k) != meta.get(k)]
    if replace:
        status: EntryStatus = "updated"
        reason = f"updated from the file ({', '.join(changed)})"
    else:
        status = "merged"
        reason = f"duplicate of {row.id}: " + (f"added {', '.join(added)}" if added else "tags and links united")
    if restored:
        reason += ", restored from the trash"
    return EntryOutcome(key=entry.key, status=status, document_id=row.id, title=row.title, reason=reason)


def _store_update(session: Session, row: tables.DocumentRow, chunks: list[ChunkDraft] | None, counts: list[int], *,
                  retitled: bool, tags: list[str] | None) -> None:
    """Write a stored reference's changes: new chunks (re-embedded), else a new title or tags (refreshed)."""
    if tags is not None:
        tagging.set_tags(session, row.id, tags)
    if chunks is not None:
        records.replace_chunks(session, row, chunks, counts)
        row.index_state, row.index_error = IndexState.PENDING.value, None
        records.enqueue(session, row.id, "embed")
    elif retitled or tags is not None:
        if retitled:
            lexical_backend.retitle_document(session, row.id, row.title)
        records.enqueue(session, row.id, "refresh")
    session.add(row)


# --- typed or pasted references -----------------------------------------------------------------------


def add_references(lib: Library, content: str, *, scope: str | None = None, folder_id: str | None = None,
                   tags: Iterable[str] = (), source: Source | None = None,
                   title: str | None = None) -> BibliographyImport | None:
    """Store pasted BibTeX, RIS or CSL-JSON as one reference per entry, de-duplicated and merged as a
    file's entries are (without a file to link to, and without attachments).

    Args:
        title: replaces the entry's title when the text holds exactly one entry; ignored otherwise.

    Returns:
        The outcome per entry (``source`` "pasted text"), or None when the text holds no entry (a
        free-text citation: store it with ``documents.add_text``).

    Raises:
        InvalidInput: bad tags, a folder of another scope. DocumentNotFound: no such folder. ScopeNotFound.
    """
    bibliography = parse_reference_text(content)
    if bibliography is None:
        return None
    entries = bibliography.entries
    if title and title.strip() and len(entries) == 1:
        entries = [BibEntry.from_metadata(entries[0].metadata(), title=title.strip())]
    scope_path = resolve_scope(lib, scope)
    wanted = normalize_tags(tags)
    report = BibliographyImport(source="pasted text")
    prepared = prepare(lib, entries, base_dir=None, attach=None, report=report)
    with write_session(lib.engine) as session:
        if folder_id is not None:
            check_folder(session, folder_id, scope_path)
        write(lib, session, prepared, report, scope_path=scope_path, folder_id=folder_id, tags=wanted,
              source=source or Source(type=SourceType.MANUAL), bibliography_id=None)
    return report


def is_opaque_bibliography(row: tables.DocumentRow) -> bool:
    """True for a bibliography file imported before entries became documents: a stored file whose
    document is one reference holding every entry as a chunk. Importing the file again fans it out."""
    return row.type == DocumentType.REFERENCE.value and bool(row.blob_hash) and "entry_count" in row.meta
