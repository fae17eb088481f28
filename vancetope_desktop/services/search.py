"""Hybrid, scope-aware search (seed §5.3–5.4): BM25 and vectors fused, weighted by scope proximity.

1. The acting scope's visible scopes (itself and its ancestors) and their proximity weights.
2. Two chunk rankings: BM25 over FTS5 (filtered by scope, status, type and tags in SQL) and cosine
   over each visible scope's Chroma collection. A query's quoted phrases are required: only the
   documents holding them are ranked.
3. The documents the rankings returned are checked against the filter in one query (the vector side
   is not filtered by SQL) — the candidates are never listed, unless a narrow filter (tags, types,
   quotes, ``within``) must go into the vector query itself.
4. Fusion of the two rankings per document (``index/fusion.py``), times the scope weight.
5. The relevance cut-off (:func:`relevant`); a document derived from a source this search found (a
   conversation turn from its session) ranks up by a share of that source's relevance
   (:func:`source_context`); then ``limit`` hits with their best passages, a
   snippet, the page, the query words each passage matched and every score part, explained.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Collection, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from pydantic import BaseModel, Field
from sqlalchemy import text
from sqlmodel import Session, select

from ..core.documents import (
    EMBEDDED_ROLES,
    STRUCTURAL_TYPES,
    ChunkInfo,
    ChunkRole,
    DocumentInfo,
    DocumentStatus,
    DocumentType,
)
from ..core.errors import VancetopeError
from ..core.memories import MemoryType, parse_memory_types
from ..core.relations import RelationType
from ..core.settings import Settings
from ..core.tags import TagFilter
from ..index.fusion import FusedDocument, KeywordBasis, MeaningBasis, RankedChunk, fuse
from ..index.lexical import QueryMatcher, TextMatch, find_matches
from ..index.lexical_backend import documents_with_quoted, search_chunks
from ..store import tables
from ..store.db import read_session
from ..store.dialect_sql import SqlForms
from ..store.filters import SqlFilter
from ..store.fulltext import ParsedQuery, parse_query
from . import indexing, records
from .library import Library
from .relations import conflicts_for
from .scopes import session_resolve_scope, session_visible_scopes

IN_FILTER_LIMIT = 5000
"""Above this many candidate documents, vector hits are filtered after the query instead of inside it."""
_DENSE = ThreadPoolExecutor(max_workers=2, thread_name_prefix="vancetope-search")
"""Runs each search's vector side beside its keyword side (two searches at once at most, then they queue)."""


class Passage(BaseModel):
    """A chunk that supports a hit, with a snippet around the query's words.

    Attributes:
        role: what part of the document it is (body text, a reference list…).
        matched: the query's words and quoted phrases this passage holds, in query order.
    """

    chunk_id: str
    page: int | None = None
    section: str | None = None
    role: ChunkRole = ChunkRole.BODY
    text: str
    snippet: str
    matched: list[str] = Field(default_factory=list)


class SearchHit(BaseModel):
    """One document found, with its score parts (see ``index/fusion.py``) and why it was found.

    Attributes:
        score: ``relevance × scope_weight``, the rank order; for a document derived from a source this
            search also found, ``(relevance + Settings.source_weight × source_relevance) × scope_weight``
            (:func:`source_context`).
        relevance: how well the document matches, 0-1: ``Settings.dense_weight · meaning +
            Settings.lexical_weight · keyword``.
        meaning: the meaning score, 0-1 (the best chunk's cosine on the calibrated scale).
        meaning_basis: ``passage`` (its best passage was among the nearest chunks), ``beyond`` (it was
            not: the lowest meaning found, an upper bound) or ``estimate`` (no vectors yet: the median
            meaning of the documents found, so that it ranks by its keywords).
        keyword: the keyword score, 0-1 (the best chunk's BM25 over the most the query could score,
            times ``role_weight``).
        keyword_basis: ``passage``, ``beyond`` (not among the keyword candidates, which were cut: the
            lowest found, an upper bound) or ``none`` (it holds none of the query's words).
        vector: the best chunk's cosine similarity, None if it was not among the nearest chunks.
        lexical: the best keyword chunk's BM25, None without a keyword match.
        keyword_chunk: the passage that gave the keyword score (``passage`` basis only), None otherwise.
        role_weight: that passage's role weight (a reference list counts less than body text).
        scope_weight / distance: the scope's proximity weight and its distance up the tree (0 = own).
        source / source_relevance: the document it is ``derived_from`` that this search found (the most
            relevant when several) and that source's relevance; None and 0 otherwise.
        matched / unmatched: the query's words and quoted phrases the passages or the title hold, and those
            neither holds.
        explanation: all of the above, readable: what matched, then how the score was made (two lines).
        conflicts_with: ids of the active documents it is in open conflict with (``contradicts`` either
            way, ``relations.conflicts_for``), among those the acting scope may read.
    """

    rank: int
    document: DocumentInfo
    score: float
    relevance: float
    meaning: float = 0.0
    meaning_basis: MeaningBasis = "passage"
    keyword: float = 0.0
    keyword_basis: KeywordBasis = "none"
    vector: float | None = None
    lexical: float | None = None
    keyword_chunk: str | None = None
    role_weight: float = 1.0
    scope_weight: float
    distance: int
    source: str | None = None
    source_relevance: float = 0.0
    matched: list[str] = Field(default_factory=list)
    unmatched: list[str] = Field(default_factory=list)
    explanation: str = ""
    passages: list[Passage] = Field(default_factory=list)
    conflicts_with: list[str] = Field(default_factory=list)

    @property
    def page(self) -> int | None:
        """The page of the best passage (PDFs), else None."""
        return self.passages[0].page if self.passages else None

    @property
    def snippet(self) -> str:
        """The best passage's snippet."""
        return self.passages[0].snippet if self.passages else ""


class SearchResponse(BaseModel):
    """Hits in rank order, the scopes searched, and warnings (e.g. vectors unavailable).

    Attributes:
        cut: documents found but left out by the relevance cut-off (:func:`relevant`).
    """

    query: str
    scope: str
    hits: list[SearchHit]
    scopes: list[str]
    vector_search: bool
    cut: int = 0
    warnings: list[str] = Field(default_factory=list)


def search(lib: Library, query: str, *, scope: str | None = None, tag_filter: TagFilter | None = None,
           types: Sequence[DocumentType] = (), statuses: Sequence[DocumentStatus] = (DocumentStatus.ACTIVE,),
           scopes: Sequence[str] | None = None, limit: int = 10,
           memory_types: Sequence[MemoryType] = (), within: Collection[str] | None = None,
           within_types: Sequence[DocumentType] | None = None,
           query_vector: np.ndarray | None = None) -> SearchResponse:
    """Search what ``scope`` may see.

    Args:
        query: any text; odd syntax never raises. Text in double quotes is a phrase the documents
            must hold (``"skimmed milk powder"``); the rest is matched by meaning and by words.
        scope: the acting scope (default: the current one).
        tag_filter: documents must match it (e.g. ``all_of(["efficiency", "benchmark"])``: both tags).
        types: restrict to these document types; folders and topics (``STRUCTURAL_TYPES``) are never
            returned (topics are searched by ``services.topic_search``).
        statuses: by default only active documents (archived, stale and deleted are left out).
        scopes: restrict to these of the visible scopes (others are ignored, never added).
        limit: the most documents returned; fewer when fewer are relevant (see :func:`relevant`).
        memory_types: restrict to agent memories of these types (``core.memories``; empty: no restriction).
        within: rank only these documents (ids; None: no restriction, an empty set: nothing is ranked). The
            topic tree's search (``services.topic_search``) passes the atoms under the paths its beam kept; the
            ids go into the SQL filter and into the vector query like the other narrow filters.
        within_types: ``within`` restricts only the documents of these types (None: every type); the others
            are ranked as without it (the tree search narrows the atoms, not the notes and papers).
        query_vector: the query's embedding when the caller has it already (``lib.embedder().encode_query``;
            the tree search encodes once for its beam and this search); None: encoded here.

    Raises:
        ScopeNotFound: unknown scope.
    """
    settings = lib.settings
    parsed = parse_query(query)
    warnings: list[str] = []
    lexical = []
    dense: list[tuple[str, RankedChunk]] = []
    vector_ok = False
    # One read transaction for the whole search: opening a session costs ~0.3 ms, and a search used
    # fourteen (scope chain, counters, filters, check, hits).
    with read_session(lib.engine) as session:
        acting = session_resolve_scope(session, scope)
        visible = session_visible_scopes(session, acting, settings.scope_weights)
        if scopes is not None:
            wanted = set(scopes)
            visible = [v for v in visible if v.path in wanted]
        where = SqlFilter(SqlForms.of(session)).and_scopes([v.path for v in visible if not v.results_only],
                                       [v.path for v in visible if v.results_only])
        where.and_in("status", [s.value for s in statuses])
        where.and_in("type", [t.value for t in (types or DocumentType) if t not in STRUCTURAL_TYPES])
        where.and_tags(tag_filter)
        if memory_types:
            where.and_in("memory_type", [t.value for t in parse_memory_types(memory_types)])
        narrow: dict[str, list[str]] | None = None
        quoted = documents_with_quoted(session, parsed)
        if quoted is not None:
            where.and_ids(quoted)
        if within is not None:
            where.and_ids(within, of_types=None if within_types is None else [t.value for t in within_types])
        if tag_filter is not None or types or quoted is not None or memory_types or within is not None:
            narrow = _candidates_by_scope(session, where)
        moving = _vectors_in_transit(session)
        # The vector side (query encoding, Chroma) runs in a worker while this thread ranks by BM25:
        # both wait mostly in C code (numpy, Chroma, SQLite) that releases the GIL.
        meaning = _DENSE.submit(_dense, lib, query, [v.path for v in visible], narrow, moving, query_vector) \
            if query.strip() and visible and (narrow is None or narrow) else None
        if parsed and (narrow is None or narrow):  # a narrow filter nothing passes: nothing to rank
            lexical = search_chunks(session, parsed, where, settings.candidates, title_weight=settings.title_weight,
                                    max_postings=settings.lexical_max_postings, stemming=settings.lexical_stemming)
        if meaning is not None:
            try:
                dense, vector_ok = meaning.result(), True
                warnings += indexing.missing_vector_warnings(lib, session, [v.path for v in visible])
            except VancetopeError as error:
                warnings.append(f"vector search unavailable, keyword results only: {error}")
        found = _check(session, where, {h.document_id for h in lexical} | {c.document_id for _, c in dense})
        weight_of = {v.path: v.weight for v in visible}
        distance_of = {v.path: v.distance for v in visible}
        dense_ok = [c for s, c in dense if c.document_id in found
                    and s in (found[c.document_id][0], moving.get(c.document_id))]
        no_vectors = {doc for doc, (_, embedded) in found.items() if not embedded or not vector_ok}
        fused = fuse(dense_ok, [RankedChunk(h.chunk_id, h.document_id, h.keyword, h.role, h.in_text) for h in lexical],
                     {doc: weight_of.get(scope_path, 0.0) for doc, (scope_path, _) in found.items()},
                     no_vectors=no_vectors, lexical_depth=settings.candidates, dense_weight=settings.dense_weight,
                     lexical_weight=settings.lexical_weight, meaning_floor=settings.meaning_floor,
                     meaning_ceiling=settings.meaning_ceiling)
        context = source_context(session, fused, settings.source_weight)
        kept = relevant(fused, settings, context)
        if context:
            kept.sort(key=lambda d: (-ranked_score(d, context, settings.source_weight), d.document_id))
        bm25 = {h.chunk_id: h.score for h in lexical}
        hits = _materialise(lib, session, kept[:limit], parsed, distance_of, bm25, settings, context)
    conflicts = conflicts_for(lib, [h.document.id for h in hits], scope=acting)
    for hit in hits:
        hit.conflicts_with = conflicts.get(hit.document.id, [])
    return SearchResponse(query=query, scope=acting, hits=hits, scopes=list(weight_of), vector_search=vector_ok,
                          cut=len(fused) - len(kept), warnings=warnings)


def relevant(fused: list[FusedDocument], settings: Settings,
             context: dict[str, tuple[str, float]] | None = None) -> list[FusedDocument]:
    """The fused documents that pass the relevance cut-off, in order.

    A document is kept when its relevance (before the scope weight: a relevant document of a far
    scope is still relevant) is above 0 and at least ``settings.relative_relevance`` (0.4) × the best
    document's, and when its relevance before the role weight is at least ``settings.min_relevance``
    (0.1). The role weight orders a reference list below body text that matches as well; it does not
    make a match less real: a name found only in a paper's references ("Bratslavsky") is what a search
    for it should return, not a weak match to leave out.

    Measured on SciFact train (``bench_scifact.py --tune``, stage D): the judged-relevant documents
    have relevance 0.20 or more (1st percentile) and at least 0.43 × the query's best (1st
    percentile); the cut keeps 85 of the ~132 fused documents per claim, leaves nDCG@10 at 0.7424
    and costs 0.0007 Recall@100 (0.9447 against 0.9454). Stricter cuts cost more: a share of 0.5,
    0.022 Recall@100; a floor of 0.25, 0.04 and 12 claims with no answer. Among SciFact's abstracts
    nearly every candidate is on topic; in a library of mixed notes the floor removes what shares
    neither words nor meaning with the query (relevance 0), and the share the long tail.

    With a ``context`` (:func:`source_context`), the share compares each relevance plus
    ``settings.source_weight`` × its source's: a turn of the session that matches best is not cut for
    matching less than its whole session does; the floor still asks the document itself to match.
    """
    if not fused:
        return []
    context = context or {}
    share = settings.relative_relevance * max(ranked_relevance(d, context, settings.source_weight) for d in fused)
    return [d for d in fused if ranked_relevance(d, context, settings.source_weight) >= share and d.relevance > 0
            and _relevance_before_role_weight(d, settings) >= settings.min_relevance]


def source_context(session: Session, fused: Sequence[FusedDocument], weight: float) -> dict[str, tuple[str, float]]:
    """Document → (its source, the source's relevance) for the ``fused`` documents ``derived_from`` another
    document this same search found: a conversation turn and the session it was said in, an atom and the
    paper it was read from. Empty when ``weight`` is 0 or no document found has a source found. A source
    not found, or hidden from the search (another scope, archived), counts for nothing.

    Why: a part is judged alone (a turn of twenty words), its source as a whole: a session that speaks of
    the question's subject across several turns makes each of its turns likelier to be the answer, and a
    turn that answers by "yes, last Tuesday" holds none of the question's words itself. With several
    sources found, the most relevant counts.
    """
    if weight <= 0 or not fused:
        return {}
    relevance = {d.document_id: d.relevance for d in fused}
    # Driven by the documents found, one primary-key lookup each (source_id leads the key): an IN list
    # made SQLite scan the relation table (45 ms for 200 documents among 2,760 edges).
    forms = SqlForms.of(session)
    found = forms.listed("found", "j")
    rows = session.exec(
        text(f"SELECT r.source_id, r.target_id FROM {found} {forms.then_join} relation r "
             "ON r.source_id = j.value WHERE r.type = :t"),
        params={"t": RelationType.DERIVED_FROM.value, "found": json.dumps(sorted(relevance))},
    ).all()
    context: dict[str, tuple[str, float]] = {}
    for part, source in rows:
        if source not in relevance:
            continue
        if part not in context or relevance[source] > context[part][1]:
            context[part] = (source, relevance[source])
    return context


def ranked_relevance(doc: FusedDocument, context: dict[str, tuple[str, float]], weight: float) -> float:
    """``doc``'s relevance plus ``weight`` × its source's (:func:`source_context`), or its relevance alone."""
    found = context.get(doc.document_id)
    return doc.relevance if found is None else doc.relevance + weight * found[1]


def ranked_score(doc: FusedDocument, context: dict[str, tuple[str, float]], weight: float) -> float:
    """The rank order of a hit: :func:`ranked_relevance` × scope weight (without a source found, the fused
    score itself)."""
    return doc.score if doc.document_id not in context else ranked_relevance(doc, context, weight) * doc.scope_weight


def _relevance_before_role_weight(doc: FusedDocument, settings: Settings) -> float:
    """``doc.relevance`` with its keyword score as its passage matched, before the role weight."""
    keyword = doc.keyword / doc.role_weight if doc.keyword_basis == "passage" and doc.role_weight > 0 else doc.keyword
    return settings.dense_weight * doc.meaning + settings.lexical_weight * keyword


def _candidates_by_scope(session, where: SqlFilter) -> dict[str, list[str]]:
    """Scope → the documents passing ``where`` (for a narrow filter that goes into the vector query)."""
    by_scope: dict[str, list[str]] = {}
    for doc, scope_path in session.exec(text(f"SELECT d.id, d.scope_path FROM document d WHERE {where.sql}"),
                                        params=where.params).all():
        by_scope.setdefault(scope_path, []).append(doc)
    return by_scope


def _check(session, where: SqlFilter, documents: Collection[str]) -> dict[str, tuple[str, bool]]:
    """The ``documents`` passing ``where``: id → (scope, whether it has chunks that get vectors).

    A document without vectors (still pending, failed, or with no embedded chunk) cannot be judged
    by meaning; the fusion ranks it by its keywords.
    """
    if not documents:
        return {}
    embedded = [role.value for role in EMBEDDED_ROLES]
    forms = where.forms
    rows = session.exec(
        text("SELECT d.id, d.scope_path, d.index_state = 'indexed' AND EXISTS (SELECT 1 FROM chunk c "
             f"WHERE c.document_id = d.id AND c.role IN ({forms.rows('roles')})) FROM document d "
             f"WHERE d.id IN ({forms.rows('docs')}) AND {where.row_sql}"),
        params={**where.params, "docs": json.dumps(sorted(documents)), "roles": json.dumps(embedded)},
    ).all()
    return {doc: (scope_path, bool(has_vectors)) for doc, scope_path, has_vectors in rows}


def _vectors_in_transit(session) -> dict[str, str]:
    """Document → the scope its vectors are still in: moved, and the writer has not run yet.

    A move commits the document's new scope at once and queues a ``move`` job for its vectors; until
    the writer runs it, they are looked up in the collection they came from, so a promoted document
    keeps its meaning score from the first second.
    """
    moving: dict[str, str] = {}
    rows = session.exec(text("SELECT document_id, payload FROM index_job WHERE kind = 'move'")).all()
    for document_id, payload in rows:
        source = (json.loads(payload) if isinstance(payload, str) else payload or {}).get("from")
        if source:
            moving[document_id] = source
    return moving


def _dense(lib: Library, query: str, scopes: list[str], narrow: dict[str, list[str]] | None,
           moving: dict[str, str], vector: np.ndarray | None = None) -> list[tuple[str, RankedChunk]]:
    """``(collection scope, chunk)`` of the nearest chunks in each scope's collection, not yet filtered.

    ``narrow``: scope → the only documents wanted (a narrow filter goes into the query so the nearest
    *matching* chunks come back), or None for no such filter. ``vector``: the query's embedding, or None to
    encode it here.
    """
    vector = lib.embedder().encode_query(query) if vector is None else vector
    requests: list[tuple[str, list[str] | None]] = []
    for scope in scopes:
        docs = None if narrow is None else narrow.get(scope)
        if narrow is None or docs:
            requests.append((scope, docs if docs is None or len(docs) <= IN_FILTER_LIMIT else None))
    # A move half done by the writer has the vectors in both places: its source collection is asked too.
    sources: dict[str, list[str]] = {}
    for doc, source in moving.items():
        sources.setdefault(source, []).append(doc)
    requests += [(source, docs[:IN_FILTER_LIMIT]) for source, docs in sources.items()]
    ranked: list[tuple[str, RankedChunk]] = []
    seen: set[str] = set()
    for scope, hit in lib.vectors.query_scopes(requests, vector, lib.settings.candidates):
        if hit.chunk_id not in seen:
            seen.add(hit.chunk_id)
            ranked.append((scope, RankedChunk(hit.chunk_id, hit.document_id, hit.similarity)))
    return ranked


def _materialise(lib: Library, session: Session, fused: list[FusedDocument], query: ParsedQuery,
                 distance_of: dict[str, int], bm25: dict[str, float], settings: Settings,
                 context: dict[str, tuple[str, float]]) -> list[SearchHit]:
    if not fused:
        return []
    ids = [f.document_id for f in fused]
    wanted = [(chunk_id.rsplit(":", 1)[0], int(chunk_id.rsplit(":", 1)[1])) for f in fused for chunk_id in f.chunks]
    rows = {r.id: r for r in session.exec(select(tables.DocumentRow).where(tables.DocumentRow.id.in_(ids))).all()}  # type: ignore[attr-defined]
    tags = records.tags_by_document(session, ids)
    chunks: dict[str, ChunkInfo] = {}
    if wanted:
        # One lookup in the unique (document, ordinal) index per pair, driven by the pairs: a row-value
        # IN list made SQLite scan the whole chunk table (75 ms at 100,000 chunks).
        forms = SqlForms.of(session)
        pairs = text(f"SELECT c.* FROM {forms.listed_lists('pairs', 'j')} {forms.then_join} chunk c ON "
                     f"c.document_id = {forms.at('j', 0)} AND c.ordinal = {forms.at('j', 1, integer=True)}")
        statement = select(tables.ChunkRow).from_statement(pairs.bindparams(pairs=json.dumps(wanted)))
        for row in session.execute(statement).scalars():
            info = records.chunk_info(row)
            chunks[info.chunk_id] = info
    units = [*query.words, *query.exact, *(" ".join(p) for p in query.phrases)]
    matcher = QueryMatcher(query)
    hits = []
    for rank, doc in enumerate(fused, start=1):
        row = rows[doc.document_id]
        passages = [_passage(chunks[c], matcher) for c in doc.chunks if c in chunks]
        # The title counts: a word all through a paper and in its title is not "not found" because the
        # passages shown spell it otherwise (the keyword ranking matches the title too).
        held = {unit for p in passages for unit in p.matched} | {m.unit for m in matcher.find(_flat(row.title or ""))}
        source, source_relevance = context.get(doc.document_id, (None, 0.0))
        hit = SearchHit(
            rank=rank, document=records.to_info(lib, row, tags[row.id]),
            score=ranked_score(doc, context, settings.source_weight), relevance=doc.relevance,
            source=source, source_relevance=source_relevance,
            meaning=doc.meaning, meaning_basis=doc.meaning_basis, keyword=doc.keyword,
            keyword_basis=doc.keyword_basis, vector=doc.cosine,
            lexical=bm25.get(doc.keyword_chunk) if doc.keyword_chunk else None, keyword_chunk=doc.keyword_chunk,
            role_weight=doc.role_weight,
            scope_weight=doc.scope_weight, distance=distance_of.get(row.scope_path, 0),
            matched=[u for u in units if u in held], unmatched=[u for u in units if u not in held], passages=passages,
        )
        hit.explanation = explain(hit, settings)
        hits.append(hit)
    return hits


def _passage(chunk: ChunkInfo, matcher: QueryMatcher) -> Passage:
    flat = _flat(chunk.text)
    matches = matcher.find(flat)
    return Passage(chunk_id=chunk.chunk_id, page=chunk.page, section=chunk.section, role=chunk.role, text=chunk.text,
                   snippet=_snippet(flat, matches), matched=list(dict.fromkeys(m.unit for m in matches)))


_ROLE_NAMES = {ChunkRole.REFERENCES: "a reference list", ChunkRole.AUTHORS: "an author list",
               ChunkRole.ACKNOWLEDGEMENTS: "acknowledgements"}


def explain(hit: SearchHit, settings: Settings) -> str:
    """Two lines saying how ``hit`` scored: its meaning and keyword parts with the words it matched and
    where, then how they combine with the scope weight into its score."""
    if hit.meaning_basis == "estimate":
        meaning = f"meaning not judged yet (no vectors): counted as {hit.meaning:.2f}, the median of those found"
    elif hit.meaning_basis == "beyond":
        meaning = f"meaning ≤ {hit.meaning:.2f} (not among the nearest passages)"
    else:
        meaning = f"meaning {hit.meaning:.2f} (cosine {hit.vector:.2f})"
    passage = next((p for p in hit.passages if p.chunk_id == hit.keyword_chunk), None)
    if passage is not None and hit.lexical is not None:
        where = "" if passage.page is None else f" on p. {passage.page}"
        role = "" if hit.role_weight == 1 else f", × {hit.role_weight:g} for {_ROLE_NAMES.get(passage.role, 'it')}"
        words = (f"keywords {hit.keyword:.2f} (BM25 {hit.lexical:.2f}{role}; matched "
                 f"{', '.join(passage.matched) or '–'}{where})")
    elif hit.keyword_basis == "beyond":
        words = f"keywords ≤ {hit.keyword:.2f} (not among the best keyword matches)"
    else:
        words = "keywords 0 (no query word in it)"
    missing = f"; not found: {', '.join(hit.unmatched)}" if hit.unmatched and hit.matched else ""
    scope = "own scope" if hit.distance == 0 else f"{hit.distance} up: {hit.document.scope}"
    source = "" if hit.source is None else \
        f"; + {settings.source_weight:g} × relevance {hit.source_relevance:.2f} of its source {hit.source}"
    return (f"{meaning}; {words}{missing}\n"
            f"relevance {hit.relevance:.2f} = {settings.dense_weight:g} × meaning {hit.meaning:.2f} + "
            f"{settings.lexical_weight:g} × keywords {hit.keyword:.2f}{source}; × scope weight {hit.scope_weight:g} "
            f"({scope}) = score {hit.score:.2f}")


def make_snippet(passage: str, query: str | ParsedQuery, width: int = 240) -> str:
    """About ``width`` characters of ``passage`` around the first match of the query's words or phrases
    (``index/lexical.find_matches``), whitespace collapsed; its beginning when nothing matches.

    Ellipses mark cut ends.
    """
    flat = _flat(passage)
    return _snippet(flat, find_matches(flat, query), width)


def passage_highlight(passage: str, query: str | ParsedQuery) -> str:
    """What a viewer looks for when a hit opens: ``passage`` from the query's words onwards, then its start.

    The passage (whitespace collapsed) is turned to begin at the first place of the longest of the query's
    units it holds — a quoted phrase as a whole, else one free word (``index/lexical.find_matches``, stems
    included) — with the words before that place moved to its end. A viewer takes the first run of words
    it finds on the hit's page (``ui/viewer/phrases.pick_search_phrase``), so it marks the query's words
    and what follows them; when they sit on another page than the passage's first (a chunk spans pages)
    or the text layer splits them, it still finds a later run of the passage, and the passage's start
    last. Marking the passage's first words instead boxed the running header a chunk starts with
    (new-user trial, issue 11); marking the bare query word found nothing when that word was on the next
    page. The passage unchanged when it holds none of the query's units (a hit by meaning only).

    Returns:
        The passage's words, rotated; "" for an empty passage.
    """
    flat = _flat(passage)
    matches = find_matches(flat, query)
    if not matches:
        return flat
    best = max(matches, key=lambda m: (len(m.unit.split()), m.end - m.start, -m.start))
    start = flat.rfind(" ", 0, best.start) + 1  # the whole word the match is in
    return f"{flat[start:]} {flat[:start]}".strip()


def _flat(passage: str) -> str:
    return unicodedata.normalize("NFC", " ".join(passage.split()))


def _snippet(flat: str, matches: Sequence[TextMatch], width: int = 240) -> str:
    start = max(0, matches[0].start - width // 3) if matches else 0
    if start:
        space = flat.find(" ", start)
        start = space + 1 if 0 <= space < start + 20 else start
    end = min(len(flat), start + width)
    if end < len(flat):
        space = flat.rfind(" ", start, end)
        end = space if space > start + width // 2 else end
    return ("…" if start else "") + flat[start:end] + ("…" if end < len(flat) else "")
