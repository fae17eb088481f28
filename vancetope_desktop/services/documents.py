"""Documents: add text, read, list and count (smart views), edit (with versions and restore), tag, trash, purge."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import delete, text
from sqlmodel import Session, select

from ..core.atoms import ATOM_KEY, EDITED_BY_PERSON
from ..core.documents import (
    STRUCTURAL_TYPES,
    TEXT_TYPES,
    UNLISTED_TYPES,
    ChunkInfo,
    DocumentInfo,
    DocumentStatus,
    DocumentType,
    IndexState,
    Source,
    VersionInfo,
)
from ..core.errors import EditConflict, ImportFailed, InvalidInput, NotFound
from ..core.ids import new_document_id
from ..core.memories import MemoryType, parse_memory_type, parse_memory_types
from ..core.reading import READING_STATUS_KEY, ReadingStatus
from ..core.tags import TagFilter, normalize_tags
from ..core.undo import UserAction
from ..core.wikilinks import find_links
from ..generation.base import Generator
from ..index import lexical_backend
from ..ingest.base import Extraction
from ..ingest.registry import extract_text
from ..store import tables
from ..store.blobs import hash_text
from ..store.db import read_session, write_session
from ..store.filters import SqlFilter
from ..store.tables import utcnow
from . import audit, notelinks, records, relations, source_profile, tagging
from .bibliography import add_references
from .citation_keys import KEY_FIELD, check_key
from .folders import check_folder, folder_descendants, with_contents
from .library import Library
from .reading import and_reading
from .relations import LinkedDocument
from .scopes import resolve_scope, visibility_filter
from .sharing import check_read


def add_text(lib: Library, content: str, *, doc_type: DocumentType = DocumentType.FACT, title: str | None = None,
             tags: Iterable[str] = (), scope: str | None = None, folder_id: str | None = None,
             source: Source | None = None, metadata: dict[str, Any] | None = None,
             mime_type: str | None = None, derived_from: Sequence[str] = (),
             memory_type: MemoryType | str | None = None, generator: Generator | None = None,
             profile: bool = True) -> DocumentInfo:
    """Store typed text (a fact, note, result…) as a new document and queue its indexing.

    Facts and results are one chunk each (split only if longer than the model's limit); notes are
    chunked by ``##`` sections. The document, its chunks and its index job commit together, with its
    ``[[links]]`` resolved and the notes waiting for its title relinked (``services.notelinks``).

    A reference given as BibTeX, RIS or CSL-JSON becomes one reference document per entry, with its
    fields as metadata and its keywords as tags, de-duplicated and merged like an imported
    bibliography (:func:`services.bibliography.add_references`, which reports every entry); the
    document of the first entry is returned (an existing one when it was a duplicate), and
    ``metadata`` / ``mime_type`` are not used. Other reference text is one free-text citation.

    Args:
        content: the text; must not be blank.
        title: defaults to the first line (at most 80 characters).
        scope: scope path; None means the current scope.
        folder_id: a folder of the same scope, or None.
        derived_from: ids of the documents it was made from (``derived_from`` edges, written in the same
            transaction; the caller checked they are readable).
        memory_type: what an agent's memory is for (``core.memories.MemoryType``); memories are notes.
        generator: what writes a source's profile (``services.source_profile``, made before the write
            transaction and stored with the document); None: the library's.
        profile: False leaves the profile to the caller (the app makes it on its import lane, so that a model
            never holds up the person's next edit on the write lane).

    Raises:
        InvalidInput: blank content, a folder type, an annotation without ``metadata["annotates"]``, bad
            tags, a memory type on another type than a note. UnknownMemoryType. ScopeNotFound,
            DocumentNotFound (folder, or an id of ``derived_from``).
    """
    if doc_type not in TEXT_TYPES:
        raise InvalidInput(f"cannot add text as a {doc_type.value}")
    if doc_type is DocumentType.ANNOTATION and not (metadata or {}).get("annotates"):
        # An annotation without its PDF would be listed nowhere: they are made by services.annotations.
        raise InvalidInput("an annotation belongs to a PDF: use `memory annotate` (services.annotations)")
    if doc_type in (DocumentType.EVENT, DocumentType.PLAN) and not (metadata or {}).get(ATOM_KEY):
        # An event without its time or a plan without its due date would be half an atom: services.atoms.
        raise InvalidInput(f"a{'n' if doc_type is DocumentType.EVENT else ''} {doc_type.value} needs "
                           f"{'its time' if doc_type is DocumentType.EVENT else 'a due date'}: store it as an "
                           "atom (`vancetope atoms add`, memory_store with 'when' or 'due')")
    if not content.strip():
        raise InvalidInput("the content is empty")
    kind = None if memory_type is None else parse_memory_type(memory_type)
    if kind is MemoryType.ARCHIVED_CHAT:
        raise InvalidInput("an archived chat is written by a conversation's compaction (`chat compact`)")
    if kind is not None and doc_type != DocumentType.NOTE:
        raise InvalidInput(f"a memory is a note: a {DocumentType(doc_type).value} cannot have the memory type "
                           f"{kind.value}")
    scope_path = resolve_scope(lib, scope)
    wanted_tags = normalize_tags(tags)
    if doc_type is DocumentType.REFERENCE:
        entries = add_references(lib, content, scope=scope_path, folder_id=folder_id, tags=wanted_tags,
                                 source=source, title=title)
        if entries is not None:
            return get_document(lib, entries.entries[0].document_id)
    prepared = prepare_text(lib, content, doc_type, title)
    made = None if not profile else source_profile.profile_for(
        lib, source_profile.source_text(prepared.extraction.text or content,
                                        [(c.text, c.role) for c in prepared.chunks]),
        title=_title(title or prepared.extraction.title, content), doc_type=doc_type,
        metadata={**prepared.extraction.metadata, **(metadata or {})}, scope=scope_path, generator=generator)
    with write_session(lib.engine) as session:
        row = session_add_text(session, prepared, scope_path=scope_path, tags=wanted_tags, folder_id=folder_id,
                               source=source, metadata=metadata, mime_type=mime_type, derived_from=derived_from,
                               memory_type=kind)
        source_profile.attach(row, made)
        return records.info(lib, session, row.id)


@dataclass(frozen=True)
class PreparedText:
    """A text to store, extracted and cut into chunks that fit the model (:func:`prepare_text`), so that the
    slow part runs before the write transaction takes the lock."""

    content: str
    doc_type: DocumentType
    title: str | None
    extraction: Extraction
    chunks: list[Any]
    counts: list[int]


def prepare_text(lib: Library, content: str, doc_type: DocumentType, title: str | None = None) -> PreparedText:
    """``content`` extracted as ``doc_type`` and chunked for the library's model (no transaction).

    Raises:
        EmptyFile: blank content. InvalidInput: a type that holds no text.
    """
    extraction = extract_text(content, doc_type, title)
    chunks, counts = records.fit_chunks(lib, extraction.chunks)
    return PreparedText(content, doc_type, title, extraction, chunks, counts)


def session_add_text(session: Session, prepared: PreparedText, *, scope_path: str, tags: Sequence[str] = (),
                     folder_id: str | None = None, source: Source | None = None,
                     metadata: dict[str, Any] | None = None, mime_type: str | None = None,
                     derived_from: Sequence[str] = (), memory_type: MemoryType | None = None) -> tables.DocumentRow:
    """Write ``prepared`` as a new document inside the caller's write transaction (what :func:`add_text` does
    once its arguments are checked), so that several documents and their edges commit together: one document of
    :func:`session_add_texts`, whose arguments these are.

    Returns:
        The new row (flushed).
    """
    return session_add_texts(session, [(prepared, metadata)], scope_path=scope_path, tags=tags, folder_id=folder_id,
                             source=source, mime_type=mime_type, derived_from=derived_from,
                             memory_type=memory_type)[0]


def session_add_texts(session: Session, texts: Sequence[tuple[PreparedText, dict[str, Any] | None]], *,
                      scope_path: str, tags: Sequence[str] = (), folder_id: str | None = None,
                      source: Source | None = None, mime_type: str | None = None, derived_from: Sequence[str] = (),
                      memory_type: MemoryType | None = None) -> list[tables.DocumentRow]:
    """Write ``texts`` as new documents of one scope inside the caller's write transaction, in a few statements
    whatever their number: the rows, their ``derived_from`` edges, chunks, lexical rows and index jobs each in
    one batch; the ``[[links]]`` of those that have some, the notes waiting for their titles and their tags as
    :func:`add_text` does. A note's 200 atoms written one document at a time (16 statements each) held a team
    library's write lock for up to a minute on a loaded machine, and writers queued behind it timed out (issue
    17's load benchmark, 3 Dec 2026).

    Args:
        texts: (prepared text, its metadata or None) per document.
        tags: normalised tags for every document (each text's own are added). The rest: as :func:`add_text`, for
            every document.

    Returns:
        The new rows (flushed), in ``texts``' order.

    Raises:
        DocumentNotFound: the folder or an id of ``derived_from``. InvalidInput: a folder of another scope.
    """
    if not texts:
        return []
    if folder_id is not None:
        check_folder(session, folder_id, scope_path)
    inputs = list(dict.fromkeys(derived_from))
    if inputs:
        records.document_rows(session, inputs)  # DocumentNotFound names a missing input before the foreign key would
    start = utcnow()
    rows = []
    for number, (prepared, metadata) in enumerate(texts):
        # A microsecond apart, in ``texts``' order: lists "oldest first" (a source's atoms) keep the order given.
        now = start + timedelta(microseconds=number)
        extraction, title, content = prepared.extraction, prepared.title, prepared.content
        row = tables.DocumentRow(
            id=new_document_id(), scope_path=scope_path, type=prepared.doc_type.value,
            title=_title(title or extraction.title, content), content=extraction.text or content,
            mime_type=mime_type or extraction.mime_type,
            meta={**extraction.metadata, **(metadata or {}), "title_from_content": not (title and title.strip())},
            folder_id=folder_id, content_hash=hash_text(content), created_at=now, updated_at=now,
            index_state=IndexState.PENDING.value if prepared.chunks else IndexState.NOT_INDEXED.value,
            memory_type=memory_type.value if memory_type else None,
        )
        _apply_source(row, source or Source())
        row.updated_by = records.creator(row.source_think_process)
        rows.append(row)
    session.add_all(rows)
    session.flush()  # the rows exist before edges point from them (their foreign key)
    for row in rows:
        if find_links(row.content):  # a new text without links has no edges to drop
            notelinks.refresh_links(session, row)
            session.add(row)
    if inputs:
        relations.session_add_edges(session, [(row.id, i) for row in rows for i in inputs if i != row.id],
                                    relations.DERIVED_FROM, records.creator(rows[0].source_think_process))
    notelinks.relink_titles(session, *{row.title for row in rows})
    for row, (prepared, _metadata) in zip(rows, texts, strict=True):
        wanted = normalize_tags([*tags, *prepared.extraction.tags])
        if wanted:  # a new document has no tags to drop
            tagging.set_tags(session, row.id, wanted)
    fitted = [(row, prepared.chunks, prepared.counts) for row, (prepared, _m) in zip(rows, texts, strict=True)
              if prepared.chunks]
    records.add_chunks(session, fitted)
    records.enqueue_many(session, [row.id for row, _chunks, _counts in fitted], "embed")
    records.bump_change_counter(session)
    session.flush()
    return rows


def _title(title: str | None, content: str) -> str:
    if title and title.strip():
        return title.strip()
    first = next((line.strip() for line in content.splitlines() if line.strip()), "Untitled")
    first = first.lstrip("#").strip() or "Untitled"
    return first if len(first) <= 80 else first[:79].rstrip() + "…"


def _set_inputs(session: Session, row: tables.DocumentRow, inputs: Sequence[str]) -> None:
    """Make ``row``'s ``derived_from`` edges ``inputs`` (each must exist), authored by the think process that
    made it, else by the person at this computer."""
    records.document_rows(session, inputs)  # DocumentNotFound names a missing input before the foreign key would
    relations.session_set_targets(session, row.id, relations.DERIVED_FROM, inputs,
                                  records.creator(row.source_think_process))


def _apply_source(row: tables.DocumentRow, source: Source) -> None:
    row.source_type = source.type.value
    row.source_think_process = source.think_process_id
    row.source_node = source.node_id


def get_document(lib: Library, document_id: str, *, acting_scope: str | None = None) -> DocumentInfo:
    """One document by id.

    Args:
        acting_scope: when given, the document must be readable from it (its scope, an ancestor, or a
            document the user shared with it: ``services.sharing.check_read``).

    Raises:
        DocumentNotFound. ScopeNotVisible: the document lies outside what ``acting_scope`` may read.
    """
    with read_session(lib.engine) as session:
        doc = records.info(lib, session, document_id)
    if acting_scope is not None:
        check_read(lib, resolve_scope(lib, acting_scope), doc)
    return doc


def list_documents(lib: Library, *, scope: str | None = None, tag_filter: TagFilter | None = None,
                   types: Sequence[DocumentType] = (), statuses: Sequence[DocumentStatus] = (DocumentStatus.ACTIVE,),
                   include_ancestors: bool = True, folder_id: str | None = None, recursive: bool = False,
                   limit: int | None = None, unfiled: bool = False, index_states: Sequence[IndexState] = (),
                   added_since: datetime | None = None, reading_statuses: Sequence[ReadingStatus] = (),
                   memory_types: Sequence[MemoryType] = ()) -> list[DocumentInfo]:
    """Documents visible from ``scope`` (its own and, unless told otherwise, its ancestors' and, with the
    sibling-results setting, its sibling think processes' results), newest first.

    Args:
        tag_filter: see ``core.tags`` (AND / OR / NOT, hierarchical).
        types: restrict to these types (empty: all types, folders included, topics left out: they are
            structural, ``core.documents.STRUCTURAL_TYPES``, and listed by ``services.topics``).
        statuses: which lifecycle states to include (default: active only).
        folder_id: only documents in this folder (``recursive``: and in its subfolders).
        unfiled: only documents in no folder (top-level folders count as unfiled too: exclude them by ``types``).
        index_states: restrict to these indexing states (empty: any).
        added_since: only documents created at or after this time (naive means UTC).
        reading_statuses: only documents with one of these reading statuses (``services.reading``; empty: any).
        memory_types: only agent memories of these types (``core.memories``; empty: any document).

    The workbench's smart views are these filters: see :func:`smart_view_filters`.
    """
    with read_session(lib.engine) as session:
        where = _document_filter(lib, session, scope=scope, tag_filter=tag_filter, types=types, statuses=statuses,
                                 include_ancestors=include_ancestors, folder_id=folder_id, recursive=recursive,
                                 unfiled=unfiled, index_states=index_states, added_since=added_since,
                                 reading_statuses=reading_statuses, memory_types=memory_types)
        sql = f"SELECT d.id FROM document d WHERE {where.sql} ORDER BY d.created_at DESC, d.id"
        if limit:
            sql += f" LIMIT {int(limit)}"
        ids = [row[0] for row in session.exec(text(sql), params=where.params).all()]
        rows = {r.id: r for r in session.exec(select(tables.DocumentRow).where(tables.DocumentRow.id.in_(ids))).all()}  # type: ignore[attr-defined]
        tags = records.tags_by_document(session, ids)
        return [records.to_info(lib, rows[i], tags[i]) for i in ids]


def count_documents(lib: Library, *, scope: str | None = None, tag_filter: TagFilter | None = None,
                    types: Sequence[DocumentType] = (),
                    statuses: Sequence[DocumentStatus] = (DocumentStatus.ACTIVE,), include_ancestors: bool = True,
                    folder_id: str | None = None, recursive: bool = False, unfiled: bool = False,
                    index_states: Sequence[IndexState] = (), added_since: datetime | None = None,
                    reading_statuses: Sequence[ReadingStatus] = (), memory_types: Sequence[MemoryType] = ()) -> int:
    """How many documents :func:`list_documents` would return with the same filters (one ``COUNT`` query).

    Raises:
        ScopeNotFound: unknown scope.
    """
    with read_session(lib.engine) as session:
        where = _document_filter(lib, session, scope=scope, tag_filter=tag_filter, types=types, statuses=statuses,
                                 include_ancestors=include_ancestors, folder_id=folder_id, recursive=recursive,
                                 unfiled=unfiled, index_states=index_states, added_since=added_since,
                                 reading_statuses=reading_statuses, memory_types=memory_types)
        return int(session.exec(text(f"SELECT COUNT(*) FROM document d WHERE {where.sql}"),
                                params=where.params).one()[0])


def _document_filter(lib: Library, session, *, scope: str | None, tag_filter: TagFilter | None,
                     types: Sequence[DocumentType], statuses: Sequence[DocumentStatus], include_ancestors: bool,
                     folder_id: str | None, recursive: bool, unfiled: bool, index_states: Sequence[IndexState],
                     added_since: datetime | None, reading_statuses: Sequence[ReadingStatus] = (),
                     memory_types: Sequence[MemoryType] = ()) -> SqlFilter:
    """The WHERE clause shared by :func:`list_documents` and :func:`count_documents`."""
    where = visibility_filter(lib, resolve_scope(lib, scope), include_ancestors=include_ancestors)
    return _narrowed(where, session, tag_filter=tag_filter, types=types, statuses=statuses, folder_id=folder_id,
                     recursive=recursive, unfiled=unfiled, index_states=index_states, added_since=added_since,
                     reading_statuses=reading_statuses, memory_types=memory_types)


def _narrowed(where: SqlFilter, session, *, tag_filter: TagFilter | None = None, types: Sequence[DocumentType] = (),
              statuses: Sequence[DocumentStatus] = (DocumentStatus.ACTIVE,), folder_id: str | None = None,
              recursive: bool = False, unfiled: bool = False, index_states: Sequence[IndexState] = (),
              added_since: datetime | None = None, reading_statuses: Sequence[ReadingStatus] = (),
              memory_types: Sequence[MemoryType] = ()) -> SqlFilter:
    """``where`` with the filters of :func:`list_documents` but the scope's added (defaults as there)."""
    where.and_in("status", [s.value for s in statuses])
    if types:
        where.and_in("type", [t.value for t in types])
    else:  # topics and messages have their own views (Topics, Conversation), never among documents
        where.clauses.append(f"d.type NOT IN ({', '.join(repr(t.value) for t in UNLISTED_TYPES)})")
    if index_states:
        where.and_in("index_state", [s.value for s in index_states])
    if memory_types:
        where.and_in("memory_type", [t.value for t in parse_memory_types(memory_types)])
    if unfiled:
        where.clauses.append("d.folder_id IS NULL")
    if added_since is not None:
        # Times are stored as naive UTC text ('YYYY-MM-DD HH:MM:SS.ffffff'), which compares in time order.
        since = added_since.astimezone(UTC) if added_since.tzinfo else added_since
        where.params["added_since"] = since.strftime("%Y-%m-%d %H:%M:%S.%f")
        where.clauses.append("d.created_at >= :added_since")
    where.and_tags(tag_filter)
    and_reading(where, reading_statuses)
    if folder_id is not None:
        folders = folder_descendants(session, folder_id) if recursive else [folder_id]
        where.and_in("folder_id", folders)
    return where


SMART_VIEWS = ("all", "unfiled", "recent", "unread", "problems", "stale", "archived", "trash")
"""The workbench's built-in views, in display order (see :func:`smart_view_filters`)."""
LISTED_STATUSES = (DocumentStatus.ACTIVE, DocumentStatus.STALE)
"""What the workbench lists by default: live documents, stale ones included (marked)."""
RECENT_DAYS = 7
"""The ``recent`` view shows documents added in the last this many days."""
CONTENT_TYPES = tuple(t for t in DocumentType if t not in (*STRUCTURAL_TYPES, *UNLISTED_TYPES, DocumentType.ANNOTATION))
"""Every document type but the structural ones (folders, topics) and annotations: the smart views list
documents, not folders, and an
annotation is listed with its PDF (``services.annotations.list_annotations``), not beside it; search
finds both."""


def smart_view_filters(view: str, *, now: datetime | None = None) -> dict[str, Any]:
    """The :func:`list_documents` / :func:`count_documents` keyword filters behind a smart view.

    ``all``: live documents (:data:`LISTED_STATUSES`: active and stale); ``unfiled``: those in no
    folder; ``recent``: those added in the last :data:`RECENT_DAYS` days; ``problems``: those whose
    indexing failed or that need OCR; ``stale``: results marked out of date (``agents.task_tree``);
    ``archived``: documents taken out of lists and search but kept for the record (a memory superseded
    through ``updates``, ``services.lifecycle``, or archived by hand); ``trash``: deleted documents. Folders
    are left out, except from the trash (a trashed folder is restored or purged from there).

    Args:
        view: one of :data:`SMART_VIEWS`.
        now: the reference time for ``recent`` (default: now, UTC).

    Raises:
        InvalidInput: an unknown view.
    """
    if view == "trash":
        return {"statuses": (DocumentStatus.DELETED,)}
    if view == "stale":
        return {"statuses": (DocumentStatus.STALE,), "types": CONTENT_TYPES}
    if view == "archived":
        return {"statuses": (DocumentStatus.ARCHIVED,), "types": CONTENT_TYPES}
    # Stale results stay in the lists (with a badge) until their task is re-run: they are still the
    # latest output, only possibly out of date.
    filters: dict[str, Any] = {"statuses": LISTED_STATUSES, "types": CONTENT_TYPES}
    if view == "unfiled":
        filters["unfiled"] = True
    elif view == "recent":
        filters["added_since"] = (now or utcnow()) - timedelta(days=RECENT_DAYS)
    elif view == "unread":
        filters["reading_statuses"] = (ReadingStatus.UNREAD,)
    elif view == "problems":
        filters["index_states"] = (IndexState.FAILED, IndexState.NEEDS_OCR)
    elif view != "all":
        raise InvalidInput(f"unknown view {view!r} (use one of {', '.join(SMART_VIEWS)})")
    return filters


def smart_counts(lib: Library, scope: str | None = None, *, include_ancestors: bool = True) -> dict[str, int]:
    """Document counts of every smart view visible from ``scope``: ``{"all": …, "unfiled": …, "recent": …,
    "unread": …, "problems": …, "stale": …, "archived": …, "trash": …}``, each equal to
    ``count_documents(**smart_view_filters(view))``.

    Raises:
        ScopeNotFound: unknown scope.
    """
    # One query for all of them (the window reloads them with every refresh): eight COUNTs each resolved the
    # scope's visibility and opened a session, 40 ms a refresh.
    now = utcnow()
    with read_session(lib.engine) as session:
        where = visibility_filter(lib, resolve_scope(lib, scope), include_ancestors=include_ancestors)
        params, part, sums = dict(where.params), where, []
        for view in SMART_VIEWS:
            part = _narrowed(part.sibling(), session, **smart_view_filters(view, now=now))
            params.update(part.params)
            sums.append(f"COALESCE(SUM(CASE WHEN {part.sql} THEN 1 ELSE 0 END), 0)")
        counts = session.exec(text(f"SELECT {', '.join(sums)} FROM document d WHERE {where.sql}"),
                              params=params).one()
    return {view: int(count) for view, count in zip(SMART_VIEWS, counts, strict=True)}


def update_document(lib: Library, document_id: str, *, title: str | None = None, content: str | None = None,
                    metadata: dict[str, Any] | None = None, add_tags: Iterable[str] = (),
                    remove_tags: Iterable[str] = (), reason: str = "edited",
                    user_action: UserAction | None = None, derived_from: Sequence[str] | None = None,
                    link_rewrites: Sequence[PreparedRewrite] = (), expected_version: int | None = None,
                    refresh_profile: bool = True, author: str | None = None) -> DocumentInfo:
    """Change a document's title, text content, metadata or tags, keeping the previous state as one version.

    A content change re-chunks the document and queues it for re-embedding, and its tags follow the
    text as at creation (Obsidian's rule: a note has the tags its text has): tags found in the new
    text (inline ``#tags``, front matter) are added, tags that were in the old text and are no longer
    in the new one are removed, tags given by hand (not in the old text) stay. A document titled by
    its content takes the new text's title (front matter ``title``, title heading, else first line).
    A title change updates the lexical index and relinks the notes waiting for the new title; a content
    change re-resolves the text's ``[[links]]`` (``services.notelinks``). ``add_tags``/``remove_tags``
    apply last (they win over the text), as in :func:`tag_document`. Files keep their stored original:
    their content cannot be edited here. With ``user_action`` the change is recorded for undo (``rename``
    when only the title changed, else ``edit``: ``audit.record_user_action``), and an atom's text, title or
    metadata changed so is marked edited by a person (``core.atoms.EDITED_BY_PERSON``). ``derived_from``, when given,
    replaces the document's ``derived_from`` edges in the same transaction (a re-run's new inputs).
    ``link_rewrites`` (made by :func:`rename_document`) are the notes whose links follow the new title,
    written in the same transaction and recorded under the same ``user_action``. ``expected_version``, when
    given, is the version the edit was made on (the editor's, HTTP's If-Match): a change is refused when the
    document is at another version by then (an edit that changes nothing is not). A source's new text gets its
    profile remade after the edit's transaction (``services.source_profile.refresh``: the edit never waits for
    the write lock on a model) unless ``refresh_profile`` is False (the app remakes it on its import lane).
    The new state is recorded as ``user_action``'s actor's, else ``author``'s (a think process re-running a node),
    else the acting person's (``records.snapshot_version``).

    Raises:
        DocumentNotFound. InvalidInput: blank title/content, malformed tags, or editing the content of a
        file or folder, or of an annotation without its metadata (``services.annotations.edit_annotation``),
        or a note of ``link_rewrites`` changed since it was read (nothing is written then).
        EditConflict: the document is no longer at ``expected_version`` (nothing is written).
    """
    to_add, to_remove = normalize_tags(add_tags), normalize_tags(remove_tags)
    if title is not None and not title.strip():
        raise InvalidInput("a title cannot be empty")
    if content is not None and not content.strip():
        raise InvalidInput("the content is empty")
    prepared = extraction = None
    with read_session(lib.engine) as session:
        current = records.document_row(session, document_id)
        doc_type = DocumentType(current.type)
    if content is not None:
        if doc_type not in TEXT_TYPES:
            raise InvalidInput(f"the content of a {doc_type.value} cannot be edited")
        if doc_type is DocumentType.ANNOTATION and not metadata:
            # Its text is its quote and comment, kept in its metadata too: services.annotations edits both.
            raise InvalidInput("edit an annotation's note with `memory edit-annotation` (services.annotations)")
        extraction = extract_text(content, doc_type, title)
        prepared = records.fit_chunks(lib, extraction.chunks)
    with write_session(lib.engine) as session:
        row = records.document_row(session, document_id)
        changed_content = content is not None and hash_text(content) != row.content_hash
        changed_title = title is not None and title.strip() != row.title
        tags_before = records.tags_of(session, document_id)
        if changed_content and extraction is not None:
            gone = [t for t in _text_tags(row.content, doc_type) if t not in extraction.tags]
            kept = [t for t in tags_before if t not in gone]
            tags_following_text = edited_tags(kept, normalize_tags(extraction.tags), [])
        else:
            tags_following_text = tags_before
        tags_after = edited_tags(tags_following_text, to_add, to_remove)
        changed_tags = sorted(tags_after) != tags_before
        changed_inputs = derived_from is not None and \
            set(relations.session_targets(session, document_id, relations.DERIVED_FROM)) != set(derived_from) - {row.id}
        if not (changed_content or changed_title or metadata or changed_tags or changed_inputs):
            return records.info(lib, session, document_id)
        if expected_version is not None and row.version != expected_version:
            by = f", by {row.updated_by}" if row.updated_by else ""
            raise EditConflict(f"“{row.title}” changed since version {expected_version} (it is at version "
                               f"{row.version} now{by}): read it again and merge, or save without the version check",
                               expected=expected_version, current=row.version)
        if changed_inputs:
            _set_inputs(session, row, derived_from or [])
        kept_as = row.version
        records.snapshot_version(session, row, reason, author=user_action.actor if user_action else author)
        if changed_tags:
            tagging.set_tags(session, document_id, tags_after)
        if title is not None:
            row.meta = {**row.meta, "title_from_content": False}
        elif changed_content and row.meta.get("title_from_content") and extraction is not None:
            # A document titled by its text keeps following it (else the old text lingers in lists).
            new_title = _title(extraction.title, content or "")
            changed_title, title = new_title != row.title, new_title
        if changed_title:
            renamed_from, row.title = row.title, title.strip()  # type: ignore[union-attr]
            lexical_backend.retitle_document(session, row.id, row.title)
        if metadata:
            if KEY_FIELD in metadata:  # a key typed in Details: valid and the library's only one
                metadata = {**metadata, KEY_FIELD: check_key(session, document_id, metadata[KEY_FIELD])}
            row.meta = {**row.meta, **metadata}
        atom = row.meta.get(ATOM_KEY)
        if user_action is not None and isinstance(atom, dict) and (changed_content or changed_title or metadata):
            # A person's edit of an atom: a digest must never change it again (issue 13).
            row.meta = {**row.meta, ATOM_KEY: {**atom, EDITED_BY_PERSON: True}}
        if changed_content and prepared is not None:
            row.content = content
            row.content_hash = hash_text(content)  # type: ignore[arg-type]
            notelinks.refresh_links(session, row)
            records.replace_chunks(session, row, *prepared)
            row.index_state = IndexState.PENDING.value
            row.index_error = None
            records.enqueue(session, row.id, "embed")
        elif changed_title or changed_tags:
            records.enqueue(session, row.id, "refresh")
        session.add(row)
        if user_action is not None:
            only_title = changed_title and not (changed_content or metadata or changed_tags)
            audit.record_user_action(session, row, "rename" if only_title else "edit", user_action,
                                     {"version": [kept_as, row.version]})
        if changed_title:
            session.flush()
            notelinks.relink_titles(session, row.title, renamed_from, document_id=row.id)
            for rewrite in link_rewrites:
                _rewrite_note(session, rewrite, f"links to “{renamed_from}” now name “{row.title}”", user_action)
        records.bump_change_counter(session)
        session.flush()
        edited = records.info(lib, session, document_id)
    return _profiled(lib, edited) if changed_content and refresh_profile else edited


def _profiled(lib: Library, doc: DocumentInfo) -> DocumentInfo:
    """``doc`` after its profile was remade for its new text (as it is when it has none to remake)."""
    return get_document(lib, doc.id) if source_profile.refresh(lib, doc.id) is not None else doc


@dataclass(frozen=True)
class PreparedRewrite:
    """A note's text with its links retargeted (``notelinks.LinkRewrite``) and its chunks, ready to store."""

    rewrite: notelinks.LinkRewrite
    prepared: tuple[list[Any], list[int]]


class Renamed(BaseModel):
    """What a rename changed: the document, the notes whose ``[[…]]`` links were rewritten to its new title
    (``updated``), and the notes still linking to its old title because the renamer may not write them
    (``not_updated``: their link is now missing)."""

    document: DocumentInfo
    updated: list[LinkedDocument] = Field(default_factory=list)
    not_updated: list[LinkedDocument] = Field(default_factory=list)


def rename_document(lib: Library, document_id: str, title: str, *, content: str | None = None, reason: str = "edited",
                    user_action: UserAction | None = None, writer_scope: str | None = None,
                    update_links: bool | None = None, expected_version: int | None = None) -> Renamed:
    """Give a document a new title and, with ``update_links`` (default: the library setting
    ``update_links_on_rename``), point the ``[[Old title]]`` links that led to it at the new title
    (``services.notelinks``): each note rewritten as a new version, in the rename's transaction and undo
    step (``user_action``). A person (``writer_scope`` None) may write every note; an agent
    (``writer_scope`` its scope) only the notes of its own scope. Annotations are never rewritten.
    ``content``, ``reason`` and ``expected_version`` are passed to :func:`update_document` (a new text in
    the same version).

    Raises:
        DocumentNotFound. InvalidInput: a blank title, or a linking note changed during the rename (try again).
        EditConflict: the document is no longer at ``expected_version``.
    """
    if not title.strip():
        raise InvalidInput("a title cannot be empty")
    follow = lib.settings.update_links_on_rename if update_links is None else update_links
    with read_session(lib.engine) as session:
        old_title = records.document_row(session, document_id).title
        found = notelinks.link_rewrites(session, document_id, old_title, title) \
            if follow and title.strip() != old_title else []
    own = next((r for r in found if r.note.id == document_id), None)
    if own is not None and content is None:  # it links to itself: its own text follows, in the same version
        content = own.content
    writable = [r for r in found if r.editable and writer_scope in (None, r.scope) and r is not own]
    left = [r.note for r in found if r not in writable and r is not own]
    prepared = [PreparedRewrite(r, records.fit_chunks(lib, extract_text(r.content, DocumentType(r.note.type),
                                                                        r.note.title).chunks)) for r in writable]
    doc = update_document(lib, document_id, title=title, content=content, reason=reason, user_action=user_action,
                          link_rewrites=prepared, expected_version=expected_version)
    return Renamed(document=doc, updated=[r.note for r in writable], not_updated=left)


def _rewrite_note(session: Session, plan: PreparedRewrite, reason: str, user_action: UserAction | None) -> None:
    """Store a note's retargeted text as a new version (re-chunked, queued for embedding, links re-resolved)."""
    rewrite = plan.rewrite
    row = records.document_row(session, rewrite.note.id)
    if row.content_hash != rewrite.content_hash:
        raise InvalidInput(f"“{row.title}” changed while its links were being updated: rename again")
    kept_as = row.version
    records.snapshot_version(session, row, reason, author=user_action.actor if user_action else None)
    row.content, row.content_hash = rewrite.content, hash_text(rewrite.content)
    notelinks.refresh_links(session, row)
    records.replace_chunks(session, row, *plan.prepared)
    row.index_state, row.index_error = IndexState.PENDING.value, None
    records.enqueue(session, row.id, "embed")
    session.add(row)
    if user_action is not None:
        audit.record_user_action(session, row, "edit", user_action, {"version": [kept_as, row.version]})


def _text_tags(content: str | None, doc_type: DocumentType) -> list[str]:
    """The tags a document's stored text carries (as :func:`add_text` reads them), normalised."""
    if not content or not content.strip():
        return []
    try:
        return normalize_tags(extract_text(content, doc_type).tags)
    except (InvalidInput, ImportFailed):  # e.g. EmptyFile: text made only of invisible characters
        return []


def edited_tags(before: Sequence[str], add: Sequence[str], remove: Sequence[str]) -> list[str]:
    """``before`` without ``remove`` (and the tags below them: ``topic`` drops ``topic/x``), then ``add``."""
    after = [t for t in before if not any(t == r or t.startswith(r + "/") for r in remove)]
    return after + [t for t in add if t not in after]


def tag_document(lib: Library, document_id: str, *, add: Iterable[str] = (), remove: Iterable[str] = (),
                 reason: str | None = None, user_action: UserAction | None = None,
                 author: str | None = None) -> DocumentInfo:
    """Add and remove tags (a removed tag also removes the tags below it: ``-topic`` drops ``topic/x``).

    The previous tag set is kept as a version; vectors get the new tags through a ``refresh`` job.
    With ``user_action`` the change is recorded for undo (``tag``: ``audit.record_user_action``). The new state is
    ``user_action``'s actor's, else ``author``'s (an agent's tool call), else the acting person's.

    Raises:
        DocumentNotFound. InvalidInput: malformed tags.
    """
    to_add, to_remove = normalize_tags(add), normalize_tags(remove)
    with write_session(lib.engine) as session:
        row = records.document_row(session, document_id)
        before = records.tags_of(session, document_id)
        after = edited_tags(before, to_add, to_remove)
        if sorted(after) == before:
            return records.info(lib, session, document_id)
        added = [t for t in after if t not in before]
        removed = [t for t in before if t not in after]
        kept_as = row.version
        records.snapshot_version(session, row, reason or _tag_reason(added, removed),
                                 author=user_action.actor if user_action else author)
        tagging.set_tags(session, document_id, after)
        session.add(row)
        if user_action is not None:
            audit.record_user_action(session, row, "tag", user_action, {"version": [kept_as, row.version]})
        records.enqueue(session, row.id, "refresh")
        records.bump_change_counter(session)
        session.flush()
        return records.info(lib, session, document_id)


def _tag_reason(added: list[str], removed: list[str]) -> str:
    parts = [f"+#{t}" for t in added] + [f"-#{t}" for t in removed]
    return "tags " + " ".join(parts)


def set_status(lib: Library, document_id: str, status: DocumentStatus, *,
               user_action: UserAction | None = None) -> list[DocumentInfo]:
    """Move a document (and, for a folder, everything inside it) to ``status``.

    ``deleted`` is the trash: the document keeps its vectors and can be restored with ``active``; its
    pending promotion requests are withdrawn. With ``user_action`` each change is recorded for undo
    (``trash`` into the trash, ``untrash`` out of it, else ``status``: ``audit.record_user_action``).

    Returns:
        Every document whose status changed.
    """
    with write_session(lib.engine) as session:
        ids = with_contents(session, document_id)
        changed, statuses_before = [], set()
        for doc_id in ids:
            row = records.document_row(session, doc_id)
            if row.status != status.value:
                before = row.status
                statuses_before.add(before)
                apply_status(session, row, status.value, user_action.actor if user_action else audit.current_user())
                changed.append(doc_id)
                if user_action is not None:
                    audit.record_user_action(session, row, status_kind(before, status.value), user_action,
                                             {"status": [before, status.value]})
        records.bump_change_counter(session)
        session.flush()
        if changed and DocumentStatus.DELETED.value in (status.value, *statuses_before):
            # Into or out of the trash, a document stops or starts answering [[links]] by its title.
            notelinks.relink_documents(session, [records.document_row(session, i) for i in changed])
        return [records.info(lib, session, i) for i in changed]


def apply_status(session, row: tables.DocumentRow, status: str, actor: str) -> None:
    """Set one document's status inside the caller's transaction (no cascade to a folder's contents);
    into the trash, its pending promotion requests are withdrawn in ``actor``'s name."""
    row.status = status
    row.updated_at = utcnow()
    session.add(row)
    if status == DocumentStatus.DELETED.value:
        records.withdraw_requests(session, row, actor, why="moved to the trash")


def status_kind(before: str, after: str) -> str:
    """The audit action of a status change: ``trash``, ``untrash`` (out of the trash) or ``status``."""
    if after == DocumentStatus.DELETED.value:
        return "trash"
    return "untrash" if before == DocumentStatus.DELETED.value else "status"


def purge_document(lib: Library, document_id: str) -> list[str]:
    """Delete a trashed document for good (a folder with everything inside it): :func:`purge_documents`."""
    return purge_documents(lib, [document_id])


def purge_documents(lib: Library, document_ids: Sequence[str]) -> list[str]:
    """Delete trashed documents for good, folders with everything inside them, all or none (one transaction).

    Rows, chunks, lexical rows and versions go at once; vectors through ``drop`` jobs (the writer runs them).

    Returns:
        The ids deleted, contents of folders included.

    Raises:
        DocumentNotFound. InvalidInput: a document (or one inside a folder) is not in the trash; nothing
        is deleted.
    """
    with write_session(lib.engine) as session:
        doomed: list[str] = []
        for document_id in document_ids:
            if records.document_row(session, document_id).status != DocumentStatus.DELETED.value:
                raise InvalidInput(f"{document_id} is not in the trash; delete it first")
            doomed += with_contents(session, document_id)
        doomed = list(dict.fromkeys(doomed))
        _purge_rows(session, doomed)
        return doomed


def empty_trash(lib: Library, scope: str | None = None) -> list[str]:
    """Delete every trashed document of ``scope`` (default: the current scope; not its sub-scopes) for good,
    in one transaction, as :func:`purge_documents` does. Returns the ids deleted.

    Raises:
        ScopeNotFound. InvalidInput: a trashed folder holds documents not in the trash (nothing is deleted).
    """
    scope_path = resolve_scope(lib, scope)
    with write_session(lib.engine) as session:
        trashed = session.exec(
            select(tables.DocumentRow.id).where(tables.DocumentRow.scope_path == scope_path,
                                                tables.DocumentRow.status == DocumentStatus.DELETED.value)
        ).all()
        doomed = list(dict.fromkeys(i for doc_id in trashed for i in with_contents(session, doc_id)))
        _purge_rows(session, doomed)
        return doomed


def _purge_rows(session: Session, ids: list[str]) -> None:
    """Delete ``ids`` inside the caller's transaction; refuses (InvalidInput) if one is not in the trash,
    before deleting anything. (Contents of a folder lose it as their folder: ``folder_id`` is SET NULL.)"""
    rows = [records.document_row(session, i) for i in ids]
    kept = [r for r in rows if r.status != DocumentStatus.DELETED.value]
    if kept:
        names = ", ".join(f"{r.title} ({r.id})" for r in kept[:3])
        names += f" and {len(kept) - 3} more" if len(kept) > 3 else ""
        raise InvalidInput(f"a folder to delete holds documents not in the trash: {names}; move them out or "
                           "trash them first")
    for row in rows:
        lexical_backend.unindex_document(session, row.id)
        records.enqueue(session, row.id, "drop", scope=row.scope_path)
        session.exec(delete(tables.DocumentRow).where(tables.DocumentRow.id == row.id))
    if rows:
        records.bump_change_counter(session)


def list_versions(lib: Library, document_id: str) -> list[VersionInfo]:
    """Previous versions of a document, oldest first (the current state is not among them)."""
    with read_session(lib.engine) as session:
        records.document_row(session, document_id)
        rows = session.exec(
            select(tables.VersionRow).where(tables.VersionRow.document_id == document_id)
            .order_by(tables.VersionRow.number)  # type: ignore[arg-type]
        ).all()
        return [records.version_info(r) for r in rows]


def read_version(lib: Library, document_id: str, number: int) -> VersionInfo:
    """One previous version. Raises NotFound."""
    with read_session(lib.engine) as session:
        row = session.exec(
            select(tables.VersionRow).where(tables.VersionRow.document_id == document_id,
                                            tables.VersionRow.number == number)
        ).first()
        if row is None:
            raise NotFound(f"{document_id} has no version {number}")
        return records.version_info(row)


def restore_version(lib: Library, document_id: str, number: int, *, refresh_profile: bool = True) -> DocumentInfo:
    """Bring back version ``number``'s title, tags, metadata and, for text documents, content.

    The state being replaced is itself kept as a new version (reason ``restored version N``), so a
    restore can be undone the same way. Restored content is re-chunked and queued for embedding as in
    :func:`update_document`; a title or tag change alone queues a ``refresh`` job as in
    :func:`tag_document`. Files and folders keep their stored original: only title, tags and
    metadata come back. Restoring a version identical to the current state changes nothing. A source's profile
    comes back with its version's metadata; one that does not describe the restored text is remade afterwards,
    as after :func:`update_document` (``refresh_profile``).

    Raises:
        DocumentNotFound. NotFound: the document has no such version.
    """
    plan = prepare_restore(lib, document_id, number)
    with write_session(lib.engine) as session:
        changed = apply_restore(session, plan)
        if changed:
            records.bump_change_counter(session)
            session.flush()
        restored = records.info(lib, session, document_id)
    return _profiled(lib, restored) if changed and refresh_profile and plan.content is not None else restored


@dataclass(frozen=True)
class RestorePlan:
    """What :func:`apply_restore` writes: a version, and its content already chunked (None: not restored).

    Made by :func:`prepare_restore` outside the write transaction, since chunking to the model's token
    limit reads the tokenizer.
    """

    version: VersionInfo
    content: str | None
    prepared: tuple[list[Any], list[int]] | None


def prepare_restore(lib: Library, document_id: str, number: int) -> RestorePlan:
    """Read version ``number`` and chunk its content for :func:`apply_restore`.

    Raises:
        DocumentNotFound. NotFound: the document has no such version.
    """
    version = read_version(lib, document_id, number)
    with read_session(lib.engine) as session:
        doc_type = DocumentType(records.document_row(session, document_id).type)
    content = version.content if doc_type in TEXT_TYPES and version.content and version.content.strip() else None
    if doc_type is DocumentType.TOPIC:  # its summary, kept as it is (blank too) and never chunked
        content = version.content or ""
    prepared = None
    if content is not None and doc_type is not DocumentType.TOPIC:
        prepared = records.fit_chunks(lib, extract_text(content, doc_type, version.title).chunks)
    return RestorePlan(version, content, prepared)


def apply_restore(session, plan: RestorePlan) -> bool:
    """Restore ``plan``'s version inside the caller's write transaction, as :func:`restore_version` says.

    Returns:
        Whether anything changed (the replaced state is then kept as a version).

    Raises:
        DocumentNotFound.
    """
    version, content, prepared = plan.version, plan.content, plan.prepared
    row = records.document_row(session, version.document_id)
    before_tags = records.tags_of(session, row.id)
    # A file's metadata also says where its stored original is (file_suffix): that must not go back; nor
    # must the reading status, which says how far the user read, not what the document was.
    kept = ("file_suffix", READING_STATUS_KEY)
    metadata = {**{k: v for k, v in version.metadata.items() if k != READING_STATUS_KEY},
                **{k: v for k, v in row.meta.items() if k in kept}}
    changed_title = version.title != row.title
    changed_tags = sorted(version.tags) != before_tags
    changed_content = content is not None and content != row.content
    if not (changed_title or changed_tags or changed_content or metadata != row.meta):
        return False
    records.snapshot_version(session, row, f"restored version {version.number}")
    renamed_from, row.title, row.meta = row.title, version.title, metadata
    if changed_tags:
        tagging.set_tags(session, row.id, version.tags)
    if changed_content and prepared is not None:
        row.content = content
        row.content_hash = version.content_hash or hash_text(content or "")
        notelinks.refresh_links(session, row)
        records.replace_chunks(session, row, *prepared)  # indexes the chunks under the restored title
        row.index_state, row.index_error = IndexState.PENDING.value, None
        records.enqueue(session, row.id, "embed")
    elif row.type == DocumentType.TOPIC.value:  # structural: no chunks or vectors to follow the change
        if changed_content:
            row.content, row.content_hash = content, hash_text(content or "")
    elif changed_title or changed_tags:
        if changed_title:
            lexical_backend.retitle_document(session, row.id, row.title)
        records.enqueue(session, row.id, "refresh")
    session.add(row)
    if changed_title:  # an undone rename turns the links back (services.notelinks)
        session.flush()
        notelinks.relink_titles(session, row.title, renamed_from, document_id=row.id)
    return True


def list_chunks(lib: Library, document_id: str) -> list[ChunkInfo]:
    """A document's chunks in order (for reading, the viewer and agents). Raises DocumentNotFound."""
    with read_session(lib.engine) as session:
        records.document_row(session, document_id)
        rows = session.exec(
            select(tables.ChunkRow).where(tables.ChunkRow.document_id == document_id)
            .order_by(tables.ChunkRow.ordinal)  # type: ignore[arg-type]
        ).all()
        return [records.chunk_info(r) for r in rows]
