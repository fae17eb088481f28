"""Likely duplicates within what a scope sees, and merging them into one document.

Finding (:func:`find_duplicates`): two live documents of one type are paired when they have

* the same content (``content_hash``: the stored file's bytes, or a text's characters);
* the same DOI (``ingest.bibentry.normalize_doi``: bare and lowercase);
* the same title and year (``ingest.bibentry.title_key``: accents, case, punctuation and spacing
  ignored), unless the import's rule says they are two works all the same
  (``ingest.bibentry.different_works``: two DOIs, disjoint authors, two kinds of work).

For both keys a file and a reference count as one type, *works*: a bibliography entry with the DOI, or the
title and year, of a PDF paper is that paper's record, as a Zotero user keeps one item with its PDF
attached (a reference already linked to its PDF is not paired). A PDF without a DOI is thus paired with
its .bib entry by title and year.

These are the keys a bibliography import de-duplicates references by (``services.bibliography``); here
they are applied to every document, after the fact. Two documents linked to each other (a reference and
its attachment, a result and its input) are never paired. Pairs chain into groups (A~B by DOI, B~C by
title: one group), and each group lists every reason that joined it.

Merging (:func:`merge`, :func:`merge_groups`): the survivor (default: the one with a stored file, then
the oldest: :func:`default_survivor`) takes the others' tags, their folder when it has none, the metadata
fields it lacks (a reference merged into a file gives it its title and bibliographic fields, which win over
what was read from the PDF, and its citation key, the one a manuscript cites it by), their relations
(their own link lists, and other documents' links to them), the scopes
they were shared with, and the furthest reading status; their citation keys stay as
``citation_key_aliases``; ``merged_from`` lists their ids. Its previous state is kept as a version. The
others go to the trash (restorable), each with an audit entry "merged into <id> (<title>)" and
``merged_into`` in its metadata (re-importing its file then names the survivor instead of restoring it:
``services.imports``); metadata describing their own file (:data:`OWN_KEYS`) stays theirs. One
transaction per group: a group that fails (gone, in another scope, trashed meanwhile) is reported with
its reason and the other groups are merged all the same.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, computed_field
from sqlalchemy import text
from sqlmodel import Session, select

from ..core.documents import ANNOTATES, STRUCTURAL_VALUES, DocumentStatus, DocumentType
from ..core.errors import InvalidInput, VancetopeError
from ..core.reading import READING_ORDER
from ..core.tags import normalize_tags
from ..ingest.bibentry import (
    EXTRA_FIELDS,
    different_works,
    kind_family,
    normalize_doi,
    surname_keys,
    title_key,
    year_of,
)
from ..store import tables
from ..store.db import read_session, write_session
from ..store.tables import utcnow
from . import audit, notelinks, records, tagging
from .imports import MERGED_INTO
from .library import Library
from .relations import LINK_KEYS, session_linking_documents, session_neighbours, session_repoint
from .scopes import resolve_scope, visibility_filter
from .sharing import SHARED_KEY

_log = logging.getLogger(__name__)

OWN_KEYS = frozenset({"original_name", "source_path", "file_size", "file_suffix", "page_count", "import_warnings",
                      "title_from_content", "entry_count", "entry_types", MERGED_INTO})
"""Metadata that describes a document's own file or text, never taken by the survivor (another document's
``source_path`` would make a re-import of that path overwrite the survivor)."""
BIBLIOGRAPHIC_KEYS = frozenset({"authors", "year", "doi", "journal", "publisher", "abstract", "keywords", "editors",
                                "entry_type", *EXTRA_FIELDS})
"""A reference's record of its work (``ingest.bibentry.BibEntry.metadata``, the citation key aside): merged
into a file, they replace what was read from the PDF."""
WORK_TYPES = frozenset({DocumentType.FILE, DocumentType.REFERENCE})
"""Types paired by DOI and by title and year with each other: a paper's file and its bibliography entry are one
work."""
MERGE_ACTION = "merge"
"""The audit action of a merge: on each trashed duplicate ("merged into …") and on the survivor."""


class DuplicateDocument(BaseModel):
    """One member of a group, as the faces list it."""

    id: str
    title: str
    type: DocumentType
    scope: str
    folder_id: str | None = None
    created_at: datetime
    has_file: bool = Field(description="A stored original (blob) exists: preferred as the survivor.")
    year: int | None = None
    doi: str | None = None


class DuplicateMatch(BaseModel):
    """One reason a group holds together: ``kind`` ``content``, ``doi`` or ``title``, the documents it joins."""

    kind: str
    reason: str = Field(description="Readable: 'same file', 'same DOI 10.1/x', 'same title and year (2020)'.")
    document_ids: list[str]


class DuplicateGroup(BaseModel):
    """Documents that are likely one, the default survivor first, and why they were paired."""

    documents: list[DuplicateDocument]
    matches: list[DuplicateMatch]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def keep_id(self) -> str:
        """The default survivor (:func:`default_survivor`): the first document."""
        return self.documents[0].id

    @property
    def reason(self) -> str:
        """Every reason, once each: "same file; same DOI 10.1/x"."""
        return "; ".join(dict.fromkeys(m.reason for m in self.matches))


class MergeOutcome(BaseModel):
    """What became of one group: merged into ``keep_id``, or ``error`` says why not (nothing changed)."""

    keep_id: str
    merged_ids: list[str] = Field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        """True when the group was merged."""
        return self.error is None


class MergeReport(BaseModel):
    """The outcome of every group asked for, in the order asked."""

    outcomes: list[MergeOutcome] = Field(default_factory=list)

    @property
    def failed(self) -> list[MergeOutcome]:
        """Groups that could not be merged."""
        return [o for o in self.outcomes if not o.ok]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def summary(self) -> str:
        """One line: "3 groups merged (5 documents to the trash), 1 failed"."""
        done = [o for o in self.outcomes if o.ok]
        trashed = sum(len(o.merged_ids) for o in done)
        text_ = f"{len(done)} group{'s' if len(done) != 1 else ''} merged ({trashed} to the trash)"
        return text_ + (f", {len(self.failed)} failed" if self.failed else "")


# --- finding -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Candidate:
    """A document with the keys it is compared by."""

    doc: DuplicateDocument
    content_hash: str | None
    title_key: str | None
    surnames: frozenset[str]
    family: str | None
    links: frozenset[str]


def find_duplicates(lib: Library, *, scope: str | None = None, include_ancestors: bool = True) -> list[DuplicateGroup]:
    """Groups of likely duplicates among the live documents ``scope`` sees (default: the current scope).

    Returns:
        Groups with two or more documents each, the default survivor first, the oldest group first.

    Raises:
        ScopeNotFound.
    """
    scope_path = resolve_scope(lib, scope)
    with read_session(lib.engine) as session:
        where = visibility_filter(lib, scope_path, include_ancestors=include_ancestors)
        where.and_in("status", [DocumentStatus.ACTIVE.value, DocumentStatus.STALE.value])
        where.and_in("type", [t.value for t in DocumentType
                              if t.value not in STRUCTURAL_VALUES and t is not DocumentType.MESSAGE])
        forms = where.forms
        meta = forms.valid("d.metadata")
        rows = session.exec(text(
            "SELECT d.id, d.title, d.type, d.scope_path, d.folder_id, d.created_at, d.blob_hash, d.content_hash, "
            + ", ".join(forms.value(meta, key) for key in ("doi", "year", "authors", "entry_type", *LINK_KEYS))
            + f" FROM document d WHERE {where.sql} ORDER BY d.created_at, d.id"),
            params=where.params).all()
        edges = session_neighbours(session, [r[0] for r in rows])
    candidates = [_candidate(row, edges.get(row[0], set())) for row in rows]
    return _group(candidates)


def _candidate(row: Any, edges: set[str]) -> _Candidate:
    (doc_id, title, type_, scope_path, folder_id, created_at, blob_hash, content_hash,
     doi, year, authors, kind) = row[:12]
    links = frozenset({*(i for value in row[12:] for i in _json_list(value)), *edges})
    if isinstance(created_at, str):
        created_at = datetime.fromisoformat(created_at)
    doc = DuplicateDocument(id=doc_id, title=title, type=DocumentType(type_), scope=scope_path, folder_id=folder_id,
                            created_at=created_at, has_file=bool(blob_hash), year=year_of(year),
                            doi=normalize_doi(str(doi)) if doi else None)
    return _Candidate(doc=doc, content_hash=content_hash, title_key=title_key(title),
                      surnames=surname_keys(_json_list(authors)), family=kind_family(str(kind)) if kind else None,
                      links=links)


def _group(candidates: list[_Candidate]) -> list[DuplicateGroup]:
    """Union the pairs each key makes into groups (union-find), keeping every match as a reason."""
    by_id = {c.doc.id: c for c in candidates}
    parent = {i: i for i in by_id}

    def root(i: str) -> str:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    matches: list[DuplicateMatch] = []
    keyed: dict[tuple[str, str, str], list[str]] = {}
    for c in candidates:
        type_ = c.doc.type.value
        if c.content_hash:
            keyed.setdefault(("content", type_, c.content_hash), []).append(c.doc.id)
        work = "work" if c.doc.type in WORK_TYPES else type_
        if c.doc.doi:
            keyed.setdefault(("doi", work, c.doc.doi), []).append(c.doc.id)
        if c.title_key and c.doc.year is not None:
            keyed.setdefault(("title", work, f"{c.title_key}\x00{c.doc.year}"), []).append(c.doc.id)
    for (kind, _type, value), ids in keyed.items():
        for members in _cliques(kind, [by_id[i] for i in ids]):
            if len(members) < 2:
                continue
            matches.append(DuplicateMatch(kind=kind, reason=_reason(kind, value, by_id[members[0]]),
                                          document_ids=members))
            for other in members[1:]:
                parent[root(other)] = root(members[0])
    grouped: dict[str, list[str]] = {}
    for c in candidates:
        grouped.setdefault(root(c.doc.id), []).append(c.doc.id)
    groups = []
    for ids in grouped.values():
        if len(ids) < 2:
            continue
        members = sorted((by_id[i].doc for i in ids), key=_survivor_key)
        inside = set(ids)
        groups.append(DuplicateGroup(documents=members,
                                     matches=[m for m in matches if m.document_ids[0] in inside]))
    return sorted(groups, key=lambda g: min(d.created_at for d in g.documents))


def _cliques(kind: str, members: list[_Candidate]) -> list[list[str]]:
    """Split one key's documents into those that may be one work: linked documents are never paired, and a
    title match obeys :func:`~..ingest.bibentry.different_works` (first-come: each joins the first set it fits)."""
    sets: list[list[_Candidate]] = []
    for c in members:
        for chosen in sets:
            if any(c.doc.id in o.links or o.doc.id in c.links for o in chosen):
                continue
            if kind == "title" and any(different_works(c.doc.doi, o.doc.doi, c.surnames, o.surnames, c.family,
                                                       o.family) for o in chosen):
                continue
            chosen.append(c)
            break
        else:
            sets.append([c])
    return [[c.doc.id for c in chosen] for chosen in sets]


def _reason(kind: str, value: str, first: _Candidate) -> str:
    if kind == "content":
        return "same file" if first.doc.has_file else "same text"
    if kind == "doi":
        return f"same DOI {value}"
    return f"same title and year ({first.doc.year})"


def _survivor_key(doc: DuplicateDocument) -> tuple[bool, datetime, str]:
    return (not doc.has_file, doc.created_at, doc.id)


def default_survivor(documents: Iterable[DuplicateDocument]) -> str:
    """The document a merge keeps unless the user picks another: one with a stored file, then the oldest."""
    return min(documents, key=_survivor_key).id


def _json_list(value: Any) -> list[str]:
    """A metadata list from ``json_extract`` (JSON text), a list, or nothing; non-strings are dropped."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return [value]
    return [str(v) for v in value if isinstance(v, str | int)] if isinstance(value, list) else []


# --- merging -------------------------------------------------------------------------------------------


def merge(lib: Library, keep_id: str, other_ids: Sequence[str], *, actor: str | None = None) -> MergeOutcome:
    """Merge ``other_ids`` into ``keep_id`` in one transaction (see the module docstring for what is kept).

    Args:
        actor: who merges, for the audit trail (default: the user at this computer).

    Returns:
        The outcome, with ``merged_ids`` the documents now in the trash.

    Raises:
        DocumentNotFound. InvalidInput: nothing to merge, the survivor among the others, a folder, a
        document in the trash, or documents in different scopes (move one first). Nothing is changed then.
    """
    others = list(dict.fromkeys(other_ids))
    if not others:
        raise InvalidInput("nothing to merge: give the documents to merge into the one kept")
    if keep_id in others:
        raise InvalidInput(f"{keep_id} is the document kept; it cannot be merged into itself")
    who = actor or audit.current_user()
    with write_session(lib.engine) as session:
        keep = records.document_row(session, keep_id)
        rows = [records.document_row(session, i) for i in others]
        for row in [keep, *rows]:
            if row.type in STRUCTURAL_VALUES:
                raise InvalidInput(f"{row.id} is a {row.type}; only documents are merged")
            if row.status == DocumentStatus.DELETED.value:
                raise InvalidInput(f"{row.id} ({row.title}) is in the trash")
            if row.scope_path != keep.scope_path:
                raise InvalidInput(f"{row.id} is in {row.scope_path} and {keep.id} in {keep.scope_path}: "
                                   "duplicates are merged within one scope (move one first)")
        names = ", ".join(f"{r.id} ({r.title})" for r in rows)
        records.snapshot_version(session, keep, f"merged with {names}")
        tags = records.tags_of(session, keep.id)
        for row in rows:
            tags += records.tags_of(session, row.id)
            _absorb(keep, row)
        _relink(session, keep.id, others)
        _reannotate(session, keep.id, others)
        _reshare(session, keep.id, others)
        session.add(keep)
        session.flush()
        tagging.set_tags(session, keep.id, normalize_tags(tags))
        audit.record(session, keep, MERGE_ACTION, actor=who, reason=f"merged {names} into this document")
        for row in rows:
            row.status = DocumentStatus.DELETED.value
            # A re-import of its file names the survivor; the key it gave the survivor is the survivor's alone
            # (else the older row would hold it and the survivor be exported under a suffixed one).
            row.meta = {**{k: v for k, v in row.meta.items()
                           if k != "citation_key" or v != keep.meta.get("citation_key")}, MERGED_INTO: keep.id}
            row.updated_at = utcnow()
            session.add(row)
            records.withdraw_requests(session, row, who, why=f"merged into {keep.id}")
            audit.record(session, row, MERGE_ACTION, actor=who, reason=f"merged into {keep.id} ({keep.title})")
        session.flush()
        notelinks.relink_documents(session, [keep, *rows])  # a title two of them answered now names one
        records.enqueue(session, keep.id, "refresh")
        records.bump_change_counter(session)
    return MergeOutcome(keep_id=keep_id, merged_ids=others)


def _absorb(keep: tables.DocumentRow, other: tables.DocumentRow) -> None:
    """Take from ``other`` what ``keep`` lacks; overwrite nothing ``keep`` has, unless ``other`` is the
    reference of the file ``keep``: then its title, citation key and :data:`BIBLIOGRAPHIC_KEYS` win."""
    meta = dict(keep.meta)
    theirs = dict(other.meta)
    record = keep.type == DocumentType.FILE.value and other.type == DocumentType.REFERENCE.value
    if record:
        keep.title = other.title
        meta |= {k: v for k, v in theirs.items() if k in BIBLIOGRAPHIC_KEYS and v not in (None, "", [])}
    if keep.folder_id is None and other.folder_id is not None:
        keep.folder_id = other.folder_id
    for key in LINK_KEYS:
        united = [*_json_list(meta.get(key)), *_json_list(theirs.pop(key, None))]
        united = [i for i in dict.fromkeys(united) if i not in (keep.id, other.id)]
        if united:
            meta[key] = united
    key = theirs.pop("citation_key", None)
    aliases = [*_json_list(meta.get("citation_key_aliases")), *_json_list(theirs.pop("citation_key_aliases", None))]
    if key and (record or meta.get("citation_key") in (None, "")):
        if meta.get("citation_key") not in (None, "", key):
            aliases.append(str(meta["citation_key"]))
        meta["citation_key"] = key
    elif key and key != meta.get("citation_key"):
        aliases.append(str(key))
    if aliases:
        meta["citation_key_aliases"] = list(dict.fromkeys(aliases))
    # A merge keeps the furthest reading status (READING_ORDER: least to most advanced).
    statuses = [s for s in (meta.get("reading_status"), theirs.pop("reading_status", None)) if s in READING_ORDER]
    if statuses:
        meta["reading_status"] = max(statuses, key=READING_ORDER.index)
    merged_from = [*_json_list(meta.get("merged_from")), other.id, *_json_list(theirs.pop("merged_from", None))]
    for field, value in theirs.items():
        if field not in OWN_KEYS and meta.get(field) in (None, "", [], {}):
            meta[field] = value
    meta["merged_from"] = list(dict.fromkeys(merged_from))
    keep.meta = meta


def _relink(session: Session, keep_id: str, gone: Sequence[str]) -> None:
    """Every other document's links to the merged ones point at the survivor instead (no self-links), and
    the merged ones' relation edges start or end at the survivor (``relations.session_repoint``)."""
    session_repoint(session, keep_id, gone)
    gone_set = set(gone)
    for key in LINK_KEYS:
        for doc_id in session_linking_documents(session, key, gone):
            if doc_id == keep_id or doc_id in gone_set:
                continue
            row = records.document_row(session, doc_id)
            ids = [keep_id if i in gone_set else i for i in _json_list(row.meta.get(key))]
            row.meta = {**row.meta, key: list(dict.fromkeys(ids))}
            session.add(row)


def _reannotate(session: Session, keep_id: str, gone: Sequence[str]) -> None:
    """The merged documents' annotations (``services.annotations``) annotate the survivor; the next listing
    finds their quotes again in its file (a different file's are flagged when their words are not there)."""
    for annotation_id in records.annotations_of(session, gone):
        row = records.document_row(session, annotation_id)
        row.meta = {**row.meta, ANNOTATES: keep_id}
        session.add(row)


def _reshare(session: Session, keep_id: str, gone: Sequence[str]) -> None:
    """Scopes a merged document was shared with (``services.sharing``) are shared the survivor instead."""
    gone_set = set(gone)
    for scope in session.exec(select(tables.ScopeRow)).all():
        shared = _json_list(scope.settings.get(SHARED_KEY))
        if gone_set.intersection(shared):
            ids = [keep_id if i in gone_set else i for i in shared]
            scope.settings = {**scope.settings, SHARED_KEY: list(dict.fromkeys(ids))}
            session.add(scope)


def merge_groups(lib: Library, choices: Sequence[tuple[str, Sequence[str]]], *,
                 actor: str | None = None) -> MergeReport:
    """Merge many groups, each ``(keep_id, other_ids)`` in its own transaction (:func:`merge`).

    A group that fails (an error of ours or an unexpected one) becomes an outcome with its reason and
    leaves its documents as they were; the next groups are merged all the same.
    """
    report = MergeReport()
    for keep_id, other_ids in choices:
        try:
            report.outcomes.append(merge(lib, keep_id, other_ids, actor=actor))
        except VancetopeError as error:
            report.outcomes.append(MergeOutcome(keep_id=keep_id, error=str(error)))
        except Exception as error:  # a bug or a damaged row: this group's outcome only
            _log.error("merging into %s failed", keep_id, exc_info=error)
            report.outcomes.append(MergeOutcome(keep_id=keep_id, error=f"{type(error).__name__}: {error}"))
    return report


def group_choices(groups: Iterable[DuplicateGroup], keep: Iterable[str] = ()) -> list[tuple[str, list[str]]]:
    """``(keep_id, other_ids)`` for each group: the survivor named in ``keep`` when one of its members is,
    else the group's default survivor (what :func:`merge_groups` takes)."""
    chosen = set(keep)
    result = []
    for group in groups:
        ids = [d.id for d in group.documents]
        keep_id = next((i for i in ids if i in chosen), group.keep_id)
        result.append((keep_id, [i for i in ids if i != keep_id]))
    return result
