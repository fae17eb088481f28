"""Storing a memory without silent twins or lost facts (issue 12): the write-time duplicate guard and the
``relates_to`` of ``memory_store``.

Before a memory (a note or a fact) is stored, its text is embedded with the library's model and compared with
the active documents of the same type in the same scope (cosine ≥ ``Settings.memory_duplicate_threshold``). When some
are that close the caller's ``on_duplicate`` decides (:class:`OnDuplicate`): ``return`` stores nothing and
names the existing document and the candidates; ``store`` stores it without looking (nothing is embedded);
``update`` stores it and makes it ``update`` the closest candidate, which is archived.

Two failures reported of other memory layers cannot happen here: adding a memory twice never removes it
(``return`` leaves the existing one as it was; ``update`` archives the old copy only after the new one is
stored, so one active copy always remains), and a contradicting memory never removes the old one without
adding itself (everything that could refuse the call is checked before anything is written, and the old
one is archived, never deleted, only once the new one is committed).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any

import numpy as np
from pydantic import BaseModel, Field
from sqlmodel import select

from ..core.documents import DocumentInfo, DocumentStatus, DocumentType, IndexState, Source
from ..core.errors import EmbeddingModelMissing, IndexUnavailable, InvalidInput, VancetopeError
from ..core.memories import MemoryType, parse_memory_type
from ..core.relations import RelationType
from ..generation.base import Generator
from ..store import tables
from ..store.blobs import hash_text
from ..store.db import read_session
from . import atom_extraction, bibliography, documents, graph
from .graph import Edge
from .library import Library
from .scopes import resolve_scope

NEAREST_CHUNKS = 50
"""Nearest chunks of the scope's collection read per check (other types' chunks among them are skipped)."""
GUARDED_TYPES = (DocumentType.NOTE, DocumentType.FACT)
"""The memory-like types the guard compares (a result is replaced by its node's re-run, a reference is merged by
the bibliography's own de-duplication)."""
PENDING_LIMIT = 200
"""At most this many not yet embedded memories of the scope (the newest) are embedded for the check."""


class OnDuplicate(StrEnum):
    """What ``memory_store`` does when the new text is a near-duplicate of an active memory."""

    RETURN = "return"
    STORE = "store"
    UPDATE = "update"


class SimilarMemory(BaseModel):
    """An active memory close to the text being stored: its id, title and cosine similarity (0-1)."""

    id: str
    title: str
    similarity: float


class Remembered(BaseModel):
    """What :func:`remember` did.

    ``stored`` False: nothing was written, ``document`` is the existing near-duplicate (``return``).
    ``entries``: for a pasted bibliography, every reference it became, in entry order (``document`` is the first;
    a duplicate is the existing reference it was merged into); else just ``document``'s id.
    ``duplicates``: the near-duplicates found, closest first (also when stored anyway). ``relations``: the
    edges made from the new documents; ``archived``: the documents their ``updates`` archived; ``atoms``: the atoms
    read from the new note or result (``services.atom_extraction``); ``warnings``: a relation that could not be
    made, or atoms that could not be read, after the documents were stored (they stay stored).
    """

    document: DocumentInfo
    stored: bool
    entries: list[str] = Field(default_factory=list)
    duplicates: list[SimilarMemory] = Field(default_factory=list)
    relations: list[Edge] = Field(default_factory=list)
    archived: list[str] = Field(default_factory=list)
    atoms: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


def parse_on_duplicate(value: OnDuplicate | str) -> OnDuplicate:
    """The :class:`OnDuplicate` named by ``value``. Raises InvalidInput for another word."""
    try:
        return OnDuplicate(str(value).strip().lower())
    except ValueError:
        raise InvalidInput(f"unknown on_duplicate {value!r} (use {', '.join(OnDuplicate)})") from None


def similar_memories(lib: Library, content: str, scope: str, doc_type: DocumentType = DocumentType.NOTE, *,
                     threshold: float | None = None, limit: int = 5) -> list[SimilarMemory]:
    """The active documents of ``doc_type`` in ``scope`` (that scope only) whose text is within ``threshold``
    (default ``Settings.memory_duplicate_threshold``) of ``content``, closest first (the newest among equals),
    at most ``limit``.

    Embedded ones are found through the scope's vector collection, those still waiting for indexing are
    embedded here (the newest :data:`PENDING_LIMIT`); an identical text always counts (similarity 1), even
    when the vector store cannot be read.

    Raises:
        ScopeNotFound. IndexUnavailable: the model cannot be loaded.
    """
    cut = lib.settings.memory_duplicate_threshold if threshold is None else threshold
    scope_path = resolve_scope(lib, scope)
    doc = tables.DocumentRow
    with read_session(lib.engine) as session:
        rows = session.exec(select(doc.id, doc.title, doc.content, doc.index_state, doc.content_hash).where(
            doc.scope_path == scope_path, doc.type == DocumentType(doc_type).value,
            doc.status == DocumentStatus.ACTIVE.value).order_by(doc.created_at.desc())).all()  # type: ignore[attr-defined]
    if not rows:
        return []
    titles = {r[0]: r[1] for r in rows}
    best: dict[str, float] = {r[0]: 1.0 for r in rows if r[4] == hash_text(content)}
    try:
        embedder = lib.embedder()
    except EmbeddingModelMissing:
        embedder = None  # storing must not need the model: without it only an identical text is a duplicate
    if embedder is not None:
        vector = embedder.encode_query(content)
        pending = [r for r in rows if r[3] != IndexState.INDEXED.value and r[2]][:PENDING_LIMIT]
        if pending:
            for (doc_id, *_), similarity in zip(pending, embedder.encode_queries([r[2] for r in pending]) @ vector,
                                                strict=True):
                best[doc_id] = max(best.get(doc_id, 0.0), float(similarity))
        try:
            for hit in lib.vectors.query(scope_path, vector, NEAREST_CHUNKS):
                if hit.document_id in titles:
                    best[hit.document_id] = max(best.get(hit.document_id, 0.0), hit.similarity)
        except IndexUnavailable:
            pass  # the identical texts and the pending memories were still compared
    newest_first = {r[0]: n for n, r in enumerate(rows)}  # ties (identical texts): the latest copy first
    # Ranked by the similarity shown (clipped, 4 decimals): an identical text's vector may score 1 + 1e-7 or
    # 1 - 1e-7 depending on the pass that embedded it, which must not outrank a newer identical copy.
    shown = {i: round(float(np.clip(s, 0.0, 1.0)), 4) for i, s in best.items() if s >= cut}
    close = sorted(shown, key=lambda i: (-shown[i], newest_first[i]))
    return [SimilarMemory(id=i, title=titles[i], similarity=shown[i]) for i in close[:limit]]


def remember(lib: Library, content: str, *, scope: str, doc_type: DocumentType = DocumentType.NOTE,
             title: str | None = None, tags: Iterable[str] = (), source: Source | None = None,
             folder_id: str | None = None, on_duplicate: OnDuplicate | str = OnDuplicate.RETURN,
             relates_to: tuple[str, RelationType | str] | None = None, created_by: str | None = None,
             memory_type: MemoryType | str | None = None, acting: str | None = None,
             metadata: dict[str, Any] | None = None, generator: Generator | None = None) -> Remembered:
    """Store ``content`` in ``scope`` as ``documents.add_text`` does, guarded against near-duplicates (see the
    module's note), and relate it to ``relates_to`` = ``(target_id, type)`` (the seed's ``relatesTo``:
    ``updates`` archives the target). ``memory_type`` makes it an agent memory of that type
    (``core.memories``; memories are notes); ``metadata`` is stored with it (an atom's, ``services.atoms``).
    A reference given as BibTeX, RIS or CSL-JSON becomes one reference per entry
    (``bibliography.add_references``, de-duplicated there, not here), each related to ``relates_to``.

    Everything that can refuse the call is checked before anything is written: the arguments, the target
    (exists, not trashed, readable from ``acting``) and the relation type.

    Args:
        acting: the writer's scope, whose visibility rule the ``relates_to`` target follows (default: ``scope``;
            a session storing into the agent scope that runs it: the session, ``sharing.write_grant``).
        generator: what writes a new note's or result's profile and reads its atoms (default: the library's;
            an MCP tool passes one that samples its client's model).

    Raises:
        InvalidInput: blank content, a bad ``on_duplicate``, tag or type. UnknownRelationType.
        UnknownMemoryType.
        RelationRefused: ``links_to``. DocumentNotFound / ScopeNotVisible: the ``relates_to`` target.
        ScopeNotFound. IndexUnavailable: the model cannot be loaded.
    """
    choice = parse_on_duplicate(on_duplicate)
    kind = None if memory_type is None else parse_memory_type(memory_type)  # refused before anything is written
    if not content.strip():
        raise InvalidInput("the content is empty: give the text to remember")
    scope_path = resolve_scope(lib, scope)
    writer = scope_path if acting is None else resolve_scope(lib, acting)
    wanted: tuple[str, RelationType] | None = None
    if relates_to is not None:
        target_id = relates_to[0].strip()
        wanted = (target_id, graph.check_relation(lib, writer, relates_to[1], [target_id]))
    guarded = doc_type in GUARDED_TYPES and choice is not OnDuplicate.STORE  # store: no need to look (nor to embed)
    duplicates = similar_memories(lib, content, scope_path, doc_type) if guarded else []
    if duplicates and choice is OnDuplicate.RETURN:
        return Remembered(document=documents.get_document(lib, duplicates[0].id), stored=False, duplicates=duplicates,
                          entries=[duplicates[0].id])
    pasted = doc_type is DocumentType.REFERENCE and kind is None  # a memory type is refused by add_text
    listing = bibliography.add_references(lib, content, scope=scope_path, folder_id=folder_id, tags=tags,
                                          source=source, title=title) if pasted else None
    if listing is not None:
        entries = list(dict.fromkeys(e.document_id for e in listing.entries))
    else:
        entries = [documents.add_text(lib, content, doc_type=doc_type, title=title, tags=tags, scope=scope_path,
                                      source=source, folder_id=folder_id, memory_type=kind,
                                      metadata=metadata, generator=generator).id]
    links = ([(duplicates[0].id, RelationType.UPDATES)] if duplicates and choice is OnDuplicate.UPDATE else []) + \
        ([wanted] if wanted else [])
    done = Remembered(document=documents.get_document(lib, entries[0]), stored=True, duplicates=duplicates,
                      entries=entries)
    for doc_id in entries:
        for target_id, relation in dict.fromkeys(links):
            try:
                outcome = graph.relate(lib, doc_id, target_id, relation, created_by, scope=writer)
            except VancetopeError as error:  # changed since the checks: the memory stays stored, and says so
                done.warnings.append(f"stored {doc_id}, but not related ({relation.value} {target_id}): {error}")
                continue
            done.relations.append(outcome.edge)
            done.archived += outcome.archived
    read = atom_extraction.extract_at_import(lib, entries, generator=generator)
    done.atoms = read.added
    done.warnings += [f"stored {o.document_id}, but its atoms were not read: {o.reason}" for o in read.outcomes
                      if o.status == "failed"]
    if done.relations:
        done.document = documents.get_document(lib, entries[0])
    return done
