"""Links between notes: ``[[Title]]`` targets resolved to documents, stored as ``links_to`` relations, and
the backlinks of a document (linked and unlinked mentions).

The one rule (:func:`_resolve`, behind the CLI's ``memory links``, the agent tools, the app's viewer, its
link banner and Backlinks): a link resolves among the documents its note can see, the note's own scope and
its ancestors, any type but folders, not in the trash, by their *current* titles. Titles compare
case-insensitively (:func:`core.wikilinks.title_key`); an imported Obsidian note also answers to its file
name; a ``[[doc_…]]`` target names a document by id, whatever its title. One match resolves the link; none
leaves it *missing*; two or more (two documents with the same title) leave it *ambiguous*, with every
candidate named, oldest first: a link is never guessed, an ambiguous link is a linked mention of none of
them (link by id to choose: ``[[doc_…|text]]``).

A link names a title, as the text says. Renaming a document therefore rewrites the links that led to it by
its old title, as Obsidian's "Automatically update internal links" does (:func:`link_rewrites`, applied by
``services.documents.rename_document`` when the library setting ``update_links_on_rename`` is on, the
default): in every note whose ``[[Old]]``, ``[[Old#Heading]]`` or ``[[Old|shown]]`` resolved to it, the
target becomes the new title (heading and shown text kept), each note as a new version, in the rename's
transaction and undo step. ``[[doc_…]]`` links and links by an Obsidian note's file name still lead to it
and are left as written. The notes the renamer may not write (another scope's, for an agent; annotations,
whose text is their quote) keep ``[[Old]]``, which is then missing (or leads to another document titled
*Old*); the rename lists them. With the setting off, no note is rewritten and every ``[[Old]]`` is missing.
Undoing the rename turns the title and the rewritten notes back together.

What a note links to is kept as ``links_to`` edges of the relation table (``services.relations``, so "what
links here" is one indexed query), and in its metadata :data:`LINK_PROBLEMS` (the missing and ambiguous
targets, each with its :func:`title_key`) and :data:`LINK_TITLES` (the keys of every title it names). They
are refreshed whenever the note's text is stored (:func:`refresh_links`), whenever a document appears or
changes its title (:func:`relink_titles`), and whenever it moves to another scope or into or out of the trash
(:func:`relink_documents`): then every note naming the new or the old title, or linking to that document, is
resolved again, so the stored links and the rule always agree.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field
from sqlalchemy import text
from sqlmodel import Session

from ..core.documents import STRUCTURAL_VALUES, DocumentStatus, DocumentType
from ..core.errors import InvalidInput
from ..core.text import without_nul
from ..core.wikilinks import WikiLink, find_links, linkable, retarget_links, title_key
from ..index import lexical_backend
from ..store import tables
from ..store.db import read_session
from ..store.dialect_sql import SqlForms
from ..store.fulltext import analyze
from ..store.json_columns import dump_json
from . import records
from .library import Library
from .relations import LINKS_TO, LinkedDocument, linking_documents, session_set_targets, session_sources
from .scopes import resolve_scope, session_ancestry, visibility_filter

LINK_PROBLEMS = "link_problems"
"""Metadata key of a note holding its unresolved links: ``[{"target", "key", "problem", "candidates"}]``."""
LINK_TITLES = "link_titles"
"""Metadata key of a note holding the :func:`title_key` of every title its links name (ids left out): the
notes a document appearing or renamed under one of them must re-resolve (:func:`relink_titles`)."""
_FEW_KEYS = 16  # up to this many title keys, one holds() per key per row beats parsing every linking note
UNLINKED_LIMIT = 50
"""At most this many unlinked mentions are listed (a one-word title can be mentioned everywhere)."""
LINKS_AUTHOR = "system:links"
"""The ``created_by`` of ``links_to`` edges: the product made them from the note's text."""
NOTE_SUFFIXES = (".md", ".markdown")
"""Imported files whose name (without this suffix) is also their link target, as in an Obsidian vault."""
_ID = re.compile(r"doc_[0-9A-Za-z_-]+")

LinkState = Literal["resolved", "missing", "ambiguous"]


class ResolvedLink(BaseModel):
    """One ``[[…]]`` link of a note and what it leads to.

    ``document`` is set when ``state`` is ``resolved``; ``candidates`` lists the documents an
    ``ambiguous`` target could mean.
    """

    target: str
    shown: str
    heading: str = ""
    state: LinkState
    document: LinkedDocument | None = None
    candidates: list[LinkedDocument] = Field(default_factory=list)


class Mention(BaseModel):
    """A document that mentions another: by a link (``linked``) or by its title in the text."""

    document: LinkedDocument
    scope: str
    snippet: str = Field(default="", description="The text around an unlinked mention (one line, ≤ 160 chars).")


class Backlinks(BaseModel):
    """What mentions a document: linked mentions (documents whose ``[[…]]`` links resolve to it) and
    unlinked mentions (documents whose text holds its title without a link), oldest first."""

    document_id: str
    title: str
    linked: list[Mention] = Field(default_factory=list)
    unlinked: list[Mention] = Field(default_factory=list)


def _resolve(session: Session, scope_path: str, links: Iterable[WikiLink]) -> list[ResolvedLink]:
    """Resolve ``links`` among the documents ``scope_path`` and its ancestors hold (folders and trash left out)."""
    links = list(links)
    if not links:
        return []
    scopes = session_ancestry(session, scope_path)
    params: dict[str, object] = {"scopes": json.dumps(scopes), "deleted": DocumentStatus.DELETED.value,
                                 "structural": json.dumps(STRUCTURAL_VALUES)}
    # +d.scope_path: the titles are compared on every visible row, and one pass over the table is faster than
    # the (scope, …) index followed by a row lookup each (56 against 240 ms at 20,000 documents).
    forms = SqlForms.of(session)
    live = (f"{forms.unindexed('d.scope_path')} IN ({forms.rows('scopes')}) AND d.status != :deleted "
            f"AND d.type NOT IN ({forms.rows('structural')})")
    keys = {link.key for link in links if not _ID.fullmatch(link.target)}
    ids = {link.target for link in links if _ID.fullmatch(link.target)}
    # SQLite's lower() folds ASCII only: titles with other letters are compared in Python.
    ascii_keys = [k for k in keys if k.isascii()]
    # An imported Obsidian note is linked by its file name, whatever heading titles it.
    # holds() first: parsing every document's metadata as JSON cost 250 ms at 20,000 documents.
    file_name = forms.text(forms.valid("d.metadata"), "original_name")
    a_note_file = " OR ".join(forms.holds("d.metadata", f"'{suffix}\"'") for suffix in NOTE_SUFFIXES)
    by_name = [f"lower({file_name}) IN ({forms.rows('names')})"]
    where = [f"lower(trim(d.title)) IN ({forms.rows('keys')})", f"d.id IN ({forms.rows('ids')})"]
    if len(ascii_keys) < len(keys):
        where.append(forms.non_ascii("d.title"))
        by_name.append(forms.non_ascii(file_name))
    where.append(f"(({a_note_file}) AND ({' OR '.join(by_name)}))")
    # dump_json: a key may hold a NUL (text not yet flushed), stored as U+FFFD (store.nul_guard).
    params |= {"keys": dump_json(ascii_keys), "ids": json.dumps(sorted(ids)),
               "names": dump_json([k + suffix for k in ascii_keys for suffix in NOTE_SUFFIXES])}
    rows = session.exec(text(f"SELECT d.id, d.title, d.type, CASE WHEN {a_note_file} THEN {file_name} END "
                             f"FROM document d WHERE {live} AND "
                             f"({' OR '.join(where)}) ORDER BY d.created_at, d.id"), params=params).all()
    by_key: dict[str, list[LinkedDocument]] = {}
    by_id: dict[str, LinkedDocument] = {}
    for doc_id, title, doc_type, original in rows:
        found = LinkedDocument(id=doc_id, title=title, type=doc_type)
        by_id[doc_id] = found
        for key in {title_key(title), *_note_file_key(original)}:
            by_key.setdefault(key, []).append(found)
    resolved = []
    for link in links:
        matches = [by_id[link.target]] if link.target in by_id else by_key.get(link.key, [])
        state: LinkState = "resolved" if len(matches) == 1 else "missing" if not matches else "ambiguous"
        resolved.append(ResolvedLink(target=link.target, shown=link.shown, heading=link.heading, state=state,
                                     document=matches[0] if state == "resolved" else None,
                                     candidates=matches if state == "ambiguous" else []))
    return resolved


def _note_file_key(original_name: object) -> list[str]:
    """The link key of an imported note's file name (``Plan.md`` → ``plan``); none for other files."""
    if not isinstance(original_name, str):
        return []
    stem, dot, suffix = original_name.rpartition(".")
    return [title_key(stem)] if dot and f".{suffix.lower()}" in NOTE_SUFFIXES and stem.strip() else []


def refresh_links(session: Session, row: tables.DocumentRow) -> None:
    """Re-resolve the ``[[…]]`` links of ``row``'s text: its ``links_to`` edges and its metadata's
    :data:`LINK_PROBLEMS` and :data:`LINK_TITLES` (inside the caller's write transaction; the row must be
    flushed already, as the edges refer to it, and the caller adds it again). A text without links drops them."""
    links = find_links(row.content)
    resolved = _resolve(session, row.scope_path, links)
    meta = {k: v for k, v in row.meta.items() if k not in (LINK_PROBLEMS, LINK_TITLES)}
    titles = sorted({link.key for link in links if not _ID.fullmatch(link.target)})
    targets = list(dict.fromkeys(r.document.id for r in resolved if r.document is not None))
    problems = {title_key(r.target): {"target": r.target, "key": title_key(r.target), "problem": r.state,
                                      "candidates": [c.id for c in r.candidates]}
                for r in resolved if r.state != "resolved"}
    session_set_targets(session, row.id, LINKS_TO, targets, LINKS_AUTHOR)
    if problems:
        meta[LINK_PROBLEMS] = list(problems.values())
    if titles:
        meta[LINK_TITLES] = titles
    if meta != row.meta:
        row.meta = meta


def link_problem_text(metadata: dict) -> str | None:
    """One sentence naming a note's missing and ambiguous links (its stored :data:`LINK_PROBLEMS`), for a
    banner; None when every link resolves."""
    problems = [p for p in metadata.get(LINK_PROBLEMS) or [] if isinstance(p, dict) and p.get("target")]
    missing = [f"[[{p['target']}]]" for p in problems if p.get("problem") == "missing"]
    ambiguous = [f"[[{p['target']}]] ({len(p.get('candidates') or [])} documents)" for p in problems
                 if p.get("problem") == "ambiguous"]
    parts = ([f"no document for {', '.join(missing)} (click to create it)"] if missing else []) + \
            ([f"several documents for {', '.join(ambiguous)} (click to choose, or link by id)"] if ambiguous else [])
    return ("Links: " + "; ".join(parts) + ".") if parts else None


def relink_titles(session: Session, *titles: str, document_id: str | None = None) -> list[str]:
    """Re-resolve, in the caller's write transaction, the notes whose links may now lead elsewhere because a
    document appeared under ``titles`` or was renamed (give its new and old titles, and its id): the notes
    naming one of those titles, and those whose links lead to ``document_id``.

    Call it after the change is flushed (it reads the titles as they are now).

    Returns:
        The ids of the notes re-resolved, sorted.
    """
    ids = _naming(session, {title_key(t) for t in titles if t and t.strip()})
    if document_id is not None:
        ids.update(session_sources(session, LINKS_TO, [document_id]))
    return _refresh(session, ids)


def relink_documents(session: Session, rows: Iterable[tables.DocumentRow]) -> list[str]:
    """Re-resolve, in the caller's write transaction, what ``rows`` changing where or whether they can be
    linked touches: they moved to another scope, or into or out of the trash. The notes naming their titles
    (or an imported note's file name) or linking to them, and the rows' own links (a moved note resolves
    from its new scope). Folders are skipped. Call it after the change is flushed.

    Returns:
        The ids of the notes re-resolved, sorted.
    """
    rows = [r for r in rows if r.type not in STRUCTURAL_VALUES]
    if not rows:
        return []
    keys = {title_key(r.title) for r in rows if r.title and r.title.strip()}
    keys.update(k for r in rows for k in _note_file_key(r.meta.get("original_name")))
    ids = _naming(session, keys) | set(session_sources(session, LINKS_TO, [r.id for r in rows]))
    ids.update(r.id for r in rows if "[[" in (r.content or ""))
    return _refresh(session, ids)


def _naming(session: Session, keys: set[str]) -> set[str]:
    """The notes whose links name one of ``keys`` (title keys), resolved or not."""
    if not keys:
        return set()
    keys = set(without_nul(sorted(keys))[0])  # a title not flushed yet may hold a NUL: U+FFFD as stored
    forms = SqlForms.of(session)
    meta = forms.valid("d.metadata")
    # holds() first: only notes naming a key (as their JSON stores it) are parsed, not every document's
    # metadata; for many keys at once (a folder moved), the notes with links at all. LINK_PROBLEMS also for
    # notes stored before LINK_TITLES existed.
    needles = [forms.stored(k) for k in sorted(keys)] if len(keys) <= _FEW_KEYS else \
        [f'"{LINK_TITLES}"', f'"{LINK_PROBLEMS}"']
    params: dict[str, object] = {f"n{i}": n for i, n in enumerate(needles)} | {"keys": json.dumps(sorted(keys))}
    prefilter = " OR ".join(forms.holds("metadata", f":n{i}") for i in range(len(needles)))
    return {r[0] for r in session.exec(
        text(f"SELECT d.id FROM (SELECT id, metadata FROM document WHERE {prefilter}) d "
             f"WHERE EXISTS (SELECT 1 FROM {forms.elements(meta, LINK_TITLES, 'j')} "
             f"WHERE j.value IN ({forms.rows('keys')})) "
             f"OR EXISTS (SELECT 1 FROM {forms.elements(meta, LINK_PROBLEMS, 'j')} "
             f"WHERE {forms.element_text('j', 'key')} IN ({forms.rows('keys')}))"),
        params=params).all()}


def _refresh(session: Session, ids: set[str]) -> list[str]:
    for doc_id in sorted(ids):
        row = records.document_row(session, doc_id)
        refresh_links(session, row)
        session.add(row)
    return sorted(ids)


@dataclass(frozen=True)
class LinkRewrite:
    """A note whose ``[[…]]`` links led to a renamed document by its old title, and its text rewritten.

    ``content_hash`` is the hash of the text the rewrite was made from (a note changed since is not
    overwritten); ``editable`` is False for types whose text is not the author's to rewrite (annotations).
    """

    note: LinkedDocument
    scope: str
    content_hash: str | None
    content: str
    editable: bool


def link_rewrites(session: Session, document_id: str, old_title: str, new_title: str) -> list[LinkRewrite]:
    """The notes whose links lead to ``document_id`` by ``old_title`` (its title before a rename), each with
    its text pointing those links at ``new_title`` instead (:func:`core.wikilinks.retarget_links`; by id,
    ``[[doc_…]]``, when the new title cannot stand in a link). Oldest note first, the document itself (a link
    to itself) last; trashed notes too (restored later, they must lead to it still). Reads the stored
    ``links_to`` edges, so call it before the rename is applied.
    """
    old_key = title_key(old_title)
    target = new_title.strip() if linkable(new_title) else document_id
    found = []
    # The document itself too: a link to itself resolves (by title) but is kept as no edge.
    linking = [*session_sources(session, LINKS_TO, [document_id]), document_id]
    for row in records.document_rows(session, linking):
        content = retarget_links(row.content, old_key, target) if row.content else None
        if content is not None and content != row.content:
            found.append(LinkRewrite(note=LinkedDocument(id=row.id, title=row.title, type=row.type),
                                     scope=row.scope_path, content_hash=row.content_hash, content=content,
                                     editable=row.type != DocumentType.ANNOTATION.value))
    return found


def note_links(lib: Library, document_id: str) -> list[ResolvedLink]:
    """The ``[[…]]`` links of a document's text, in order, resolved now from its scope.

    Raises:
        DocumentNotFound.
    """
    with read_session(lib.engine) as session:
        row = records.document_row(session, document_id)
        return _resolve(session, row.scope_path, find_links(row.content))


def resolve_link(lib: Library, document_id: str, target: str) -> ResolvedLink:
    """What ``target`` (the inside of a ``[[…]]``, e.g. ``Title|shown``) in document ``document_id`` leads to.

    Raises:
        DocumentNotFound: no document ``document_id``. InvalidInput: ``target`` is not a link.
    """
    links = find_links(f"[[{target}]]")
    if not links:
        raise InvalidInput(f"not a link target: {target!r}")
    with read_session(lib.engine) as session:
        row = records.document_row(session, document_id)
        return _resolve(session, row.scope_path, links)[0]


def backlinks(lib: Library, document_id: str, *, scope: str | None = None,
              limit: int = UNLINKED_LIMIT) -> Backlinks:
    """The documents that mention ``document_id``, among those the acting ``scope`` sees (default: the current
    scope), not in the trash.

    Linked mentions come from the stored ``links_to`` relations; unlinked mentions from the full-text
    index (the title as a phrase in a chunk's text, not its title), without the document itself and its
    linked mentions, at most ``limit``.

    Raises:
        DocumentNotFound. ScopeNotFound.
    """
    acting = resolve_scope(lib, scope)
    where = visibility_filter(lib, acting)
    where.clauses.append(f"d.status != '{DocumentStatus.DELETED.value}'")
    linkers = set(linking_documents(lib, LINKS_TO, [document_id], live_only=True))
    with read_session(lib.engine) as session:
        row = records.document_row(session, document_id)
        title = row.title
        found = session.exec(
            text(f"SELECT d.id, d.title, d.type, d.scope_path FROM document d WHERE {where.sql} AND "
                 f"d.id IN ({where.forms.rows('ids')}) ORDER BY d.created_at, d.id"),
            params={**where.params, "ids": json.dumps(sorted(linkers))}).all()
        linked = [Mention(document=LinkedDocument(id=i, title=t, type=k), scope=s) for i, t, k, s in found]
        unlinked = _unlinked(session, title, where.sql, where.params, {document_id, *linkers}, limit)
    return Backlinks(document_id=document_id, title=title, linked=linked, unlinked=unlinked)


def _unlinked(session: Session, title: str, where_sql: str, params: dict, skip: set[str], limit: int) -> list[Mention]:
    """Documents matching ``where_sql`` whose chunk text holds ``title`` as a phrase (the keyword index), each with a
    snippet."""
    phrase = " ".join(analyze(title).split())
    if not any(ch.isalnum() for ch in phrase):
        return []
    source, condition, match = lexical_backend.body_phrase(session, phrase)
    rows = session.exec(
        text(f"SELECT d.id, d.title, d.type, d.scope_path, c.text FROM {source} "
             f"JOIN document d ON d.id = c.document_id WHERE {condition} AND {where_sql} "
             "ORDER BY d.created_at, d.id, c.ordinal LIMIT :n"),
        params={**params, **match, "n": (limit + len(skip)) * 4}).all()
    mentions: dict[str, Mention] = {}
    for doc_id, doc_title, doc_type, scope_path, chunk_text in rows:
        if doc_id in skip or doc_id in mentions:
            continue
        mentions[doc_id] = Mention(document=LinkedDocument(id=doc_id, title=doc_title, type=doc_type),
                                   scope=scope_path, snippet=_around(chunk_text, title))
        if len(mentions) >= limit:
            break
    return list(mentions.values())


def _around(passage: str, title: str, width: int = 160) -> str:
    """One line of ``passage`` around the first case-insensitive occurrence of ``title`` (its start if absent)."""
    flat = " ".join(passage.split())
    at = flat.casefold().find(" ".join(title.split()).casefold())
    start = max(0, at - (width - len(title)) // 2) if at > 0 else 0
    piece = flat[start : start + width]
    return ("…" if start else "") + piece + ("…" if start + width < len(flat) else "")
