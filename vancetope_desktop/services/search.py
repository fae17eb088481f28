"""Hybrid, scope-aware search (seed §5.3–5.4): BM25 and vectors fused, weighted by scope proximity.

1. The acting scope's visible scopes (itself and its ancestors) and their proximity weights.
2. Candidate documents: visible, in the wanted statuses and types, matching the tag filter.
3. Two chunk rankings: BM25 over FTS5 and cosine over each visible scope's Chroma collection.
4. Fusion of the two rankings per document (``index/fusion.py``, as the settings say), times the scope weight.
5. Results: documents with their best passages, a snippet, the page, and every score part.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from pydantic import BaseModel, Field
from sqlalchemy import text
from sqlmodel import select

from ..core.documents import ChunkInfo, ChunkRole, DocumentInfo, DocumentStatus, DocumentType
from ..core.errors import VancetopeError
from ..core.tags import TagFilter
from ..index.fusion import RankedChunk, fuse
from ..index.lexical import search_chunks
from ..store import tables
from ..store.db import read_session
from ..store.filters import SqlFilter
from . import indexing, records
from .library import Library
from .scopes import resolve_scope, visible_scopes

IN_FILTER_LIMIT = 5000
"""Above this many candidate documents, vector hits are filtered after the query instead of inside it."""


class Passage(BaseModel):
    """A chunk that supports a hit, with a snippet around the query terms; ``role`` says whether it is
    body text or a reference list, author list or acknowledgements (matched by words only)."""

    chunk_id: str
    page: int | None = None
    section: str | None = None
    role: ChunkRole = ChunkRole.BODY
    text: str
    snippet: str


class SearchHit(BaseModel):
    """One document found, with its score parts (see ``index/fusion.FusedDocument``)."""

    rank: int
    document: DocumentInfo
    score: float
    fused: float
    vector: float | None
    lexical: float | None
    scope_weight: float
    distance: int
    passages: list[Passage] = Field(default_factory=list)

    @property
    def page(self) -> int | None:
        """The page of the best passage (PDFs), else None."""
        return self.passages[0].page if self.passages else None

    @property
    def snippet(self) -> str:
        """The best passage's snippet."""
        return self.passages[0].snippet if self.passages else ""


class SearchResponse(BaseModel):
    """Hits in rank order, the scopes searched, and warnings (e.g. vectors unavailable)."""

    query: str
    scope: str
    hits: list[SearchHit]
    scopes: list[str]
    vector_search: bool
    warnings: list[str] = Field(default_factory=list)


def search(lib: Library, query: str, *, scope: str | None = None, tag_filter: TagFilter | None = None,
           types: Sequence[DocumentType] = (), statuses: Sequence[DocumentStatus] = (DocumentStatus.ACTIVE,),
           scopes: Sequence[str] | None = None, limit: int = 10) -> SearchResponse:
    """Search what ``scope`` may see.

    Args:
        query: any text; odd syntax never raises.
        scope: the acting scope (default: the current one).
        tag_filter: documents must match it (e.g. ``all_of(["efficiency", "benchmark"])``: both tags).
        types: restrict to these document types; folders are never returned.
        statuses: by default only active documents (archived, stale and deleted are left out).
        scopes: restrict to these of the visible scopes (others are ignored, never added).
        limit: number of documents returned.

    Raises:
        ScopeNotFound: unknown scope.
    """
    acting = resolve_scope(lib, scope)
    visible = visible_scopes(lib, acting)
    if scopes is not None:
        wanted = set(scopes)
        visible = [v for v in visible if v.path in wanted]
    weight_of = {v.path: v.weight for v in visible}
    distance_of = {v.path: v.distance for v in visible}
    settings = lib.settings
    where = SqlFilter().and_scopes([v.path for v in visible if not v.results_only],
                                   [v.path for v in visible if v.results_only])
    where.and_in("status", [s.value for s in statuses])
    where.and_in("type", [t.value for t in (types or DocumentType) if t != DocumentType.FOLDER])
    where.and_tags(tag_filter)
    warnings: list[str] = []
    with read_session(lib.engine) as session:
        candidates = dict(session.exec(
            text(f"SELECT d.id, d.scope_path FROM document d WHERE {where.sql}"), params=where.params
        ).all())
        lexical = search_chunks(session, query, where, settings.candidates, title_weight=settings.title_weight,
                                max_postings=settings.lexical_max_postings,
                                stemming=settings.lexical_stemming) if query.strip() else []
        moving = _vectors_in_transit(session, candidates)
    dense: list[RankedChunk] = []
    vector_ok = False
    if query.strip() and candidates:
        try:
            restricted = tag_filter is not None or bool(types)
            dense = _dense(lib, query, candidates, list(weight_of), restricted=restricted, moving=moving)
            vector_ok = True
            warnings += indexing.missing_vector_warnings(lib, list(weight_of))
        except VancetopeError as error:
            warnings.append(f"vector search unavailable, keyword results only: {error}")
    fused = fuse(dense, [RankedChunk(h.chunk_id, h.document_id, h.score) for h in lexical],
                 {doc: weight_of[candidates[doc]] for doc in candidates},
                 method=settings.fusion, k=settings.rrf_k, dense_weight=settings.dense_weight,
                 lexical_weight=settings.lexical_weight, normalization=settings.fusion_normalization,
                 top_chunks=settings.top_chunks)
    hits = _materialise(lib, fused[:limit], query, distance_of)
    return SearchResponse(query=query, scope=acting, hits=hits, scopes=list(weight_of), vector_search=vector_ok,
                          warnings=warnings)


def _vectors_in_transit(session, candidates: dict[str, str]) -> dict[str, list[str]]:
    """Scope → candidate documents whose vectors are still there: moved, and the writer has not run yet.

    A move commits the document's new scope at once and queues a ``move`` job for its vectors; until
    the writer runs it, they are looked up in the collection they came from, so a promoted document
    keeps its meaning score from the first second.
    """
    moving: dict[str, list[str]] = {}
    rows = session.exec(text("SELECT document_id, payload FROM index_job WHERE kind = 'move'")).all()
    for document_id, payload in rows:
        source = (json.loads(payload) if isinstance(payload, str) else payload or {}).get("from")
        if document_id in candidates and source and source != candidates[document_id]:
            moving.setdefault(source, []).append(document_id)
    return moving


def _dense(lib: Library, query: str, candidates: dict[str, str], scopes: list[str],
           restricted: bool, moving: dict[str, list[str]]) -> list[RankedChunk]:
    embedder = lib.embedder()
    vector = embedder.encode_query(query)
    by_scope: dict[str, list[str]] = {}
    for doc, scope in candidates.items():
        by_scope.setdefault(scope, []).append(doc)
    ranked: list[RankedChunk] = []
    for scope in scopes:
        docs = by_scope.get(scope)
        if not docs:
            continue
        # A narrow filter goes into the query so the nearest *matching* chunks come back.
        inside = docs if restricted and len(docs) <= IN_FILTER_LIMIT else None
        for hit in lib.vectors.query(scope, vector, lib.settings.candidates, inside):
            if hit.document_id in candidates and candidates[hit.document_id] == scope:
                ranked.append(RankedChunk(hit.chunk_id, hit.document_id, hit.similarity))
    seen = {r.chunk_id for r in ranked}  # a move half done by the writer has the vectors in both places
    for scope, docs in moving.items():
        for hit in lib.vectors.query(scope, vector, lib.settings.candidates, docs[:IN_FILTER_LIMIT]):
            if hit.document_id in candidates and hit.chunk_id not in seen:
                ranked.append(RankedChunk(hit.chunk_id, hit.document_id, hit.similarity))
    return sorted(ranked, key=lambda r: -r.score)


def _materialise(lib: Library, fused, query: str, distance_of: dict[str, int]) -> list[SearchHit]:
    if not fused:
        return []
    ids = [f.document_id for f in fused]
    wanted_chunks = {c for f in fused for c in f.chunks}
    with read_session(lib.engine) as session:
        rows = {r.id: r for r in session.exec(select(tables.DocumentRow).where(tables.DocumentRow.id.in_(ids))).all()}  # type: ignore[attr-defined]
        tags = records.tags_by_document(session, ids)
        chunks: dict[str, ChunkInfo] = {}
        for doc_id in ids:
            ordinals = [int(c.rsplit(":", 1)[1]) for c in wanted_chunks if c.rsplit(":", 1)[0] == doc_id]
            if ordinals:
                for row in session.exec(select(tables.ChunkRow).where(
                    tables.ChunkRow.document_id == doc_id, tables.ChunkRow.ordinal.in_(ordinals)  # type: ignore[attr-defined]
                )).all():
                    info = records.chunk_info(row)
                    chunks[info.chunk_id] = info
    terms = _terms(query)
    hits = []
    for rank, doc in enumerate(fused, start=1):
        row = rows[doc.document_id]
        passages = [
            Passage(chunk_id=c, page=chunks[c].page, section=chunks[c].section, role=chunks[c].role,
                    text=chunks[c].text, snippet=make_snippet(chunks[c].text, terms))
            for c in doc.chunks if c in chunks
        ]
        hits.append(SearchHit(
            rank=rank, document=records.to_info(lib, row, tags[row.id]), score=doc.score, fused=doc.fused,
            vector=doc.vector, lexical=doc.lexical, scope_weight=doc.scope_weight,
            distance=distance_of.get(row.scope_path, 0), passages=passages,
        ))
    return hits


_WORD = re.compile(r"\w+")


def _terms(query: str) -> list[str]:
    return [t for t in dict.fromkeys(w.lower() for w in _WORD.findall(query)) if len(t) > 1 or not t.isascii()]


def make_snippet(passage: str, terms: Sequence[str], width: int = 240) -> str:
    """About ``width`` characters of ``passage`` around the first query term found, whitespace collapsed.

    Ellipses mark cut ends. Without any term in the passage, its beginning is returned.
    """
    flat = " ".join(passage.split())
    lower = flat.lower()
    positions = [p for p in (lower.find(t) for t in terms) if p >= 0]
    start = max(0, min(positions) - width // 3) if positions else 0
    if start:
        space = flat.find(" ", start)
        start = space + 1 if 0 <= space < start + 20 else start
    end = min(len(flat), start + width)
    if end < len(flat):
        space = flat.rfind(" ", start, end)
        end = space if space > start + width // 2 else end
    return ("…" if start else "") + flat[start:end] + ("…" if end < len(flat) else "")
