"""BM25 ranking of chunks on PostgreSQL (issue 17): ``index/lexical``'s interface and scores over ``store/pg_fulltext``.

Everything but the SQL is ``index/lexical``'s and ``store/fulltext``'s: the query's parsing, stem prefixes, postings
budget, keyword ceiling, per-document cap and :class:`~vancetope_desktop.index.lexical.LexicalHit`. The score is
FTS5's ``bm25()`` computed in SQL from the postings table ``chunk_term``: for each query unit (a word, a stem prefix,
a quoted word or phrase) ``idf × f × (k1 + 1) / (f + k1 × (1 − b + b × len / avglen))``, summed, with ``f`` the
unit's count in the chunk, its title occurrences weighted ``title_weight`` (FTS5's column weights), ``len`` the
chunk's tokens (title and body) and ``idf`` FTS5's (:func:`~vancetope_desktop.index.lexical.bm25_idf`) over the chunks
holding the unit. So the keyword score keeps the 0-1 scale the fusion was tuned on, and the shipped fusion needs no
recalibration: on SciFact test the BM25-only and hybrid nDCG@10 equal FTS5's (tests/benchmarks/bench_pg_lexical.py).

Two departures from FTS5, both for quoted phrases only: a phrase's count in a chunk is its rarest word's (FTS5 counts
the phrase's occurrences), and its idf counts the chunks holding its rarest word; the chunks it matches are exactly
FTS5's (the GIN-indexed tsvector, words next to each other with ``<->``).
"""

from __future__ import annotations

from sqlalchemy import text
from sqlmodel import Session

from ..core.documents import ChunkRole
from ..store.filters import SqlFilter
from ..store.fulltext import ParsedQuery, fold, parse_query
from ..store.pg_fulltext import lexeme, tokens
from .lexical import (
    BM25_B,
    BM25_K1,
    DEFAULT_MAX_POSTINGS,
    OVERFETCH,
    PER_DOCUMENT,
    LexicalHit,
    bm25_idf,
    cap_per_document,
    saturated_ceiling,
    selective_terms,
    stem_prefix,
)

_LAST = "\U0010ffff"
"""Above every character in byte order: a prefix ``stem`` is the range [stem, stem + this] of ``chunk_term``."""


def _parts(unit: str) -> list[tuple[str, str]]:
    """A query unit as the index's terms, each a range (low, high) of ``chunk_term``: a stem prefix (``reduc*``) one
    range, a word its token(s) (``snake_case`` is the phrase snake case, as in FTS5), a phrase its words; empty when
    nothing of it could be indexed."""
    if unit.endswith("*"):
        stem = fold(unit[:-1])
        return [(stem, stem + _LAST)]
    return [(term, term) for term in tokens(unit)]


def _counts(session: Session, terms: list[str]) -> dict[str, tuple[int, int]]:
    """Per term (a unit of one part), its postings (summed over a prefix's expansions) and the chunks holding it;
    terms nothing holds are absent."""
    ranges = {term: parts[0] for term in dict.fromkeys(terms) if len(parts := _parts(term)) == 1}
    if not ranges:
        return {}
    postings, params = _postings([(number, 0, low, high) for number, (low, high) in enumerate(ranges.values())])
    rows = session.execute(
        text(f"SELECT unit, count(*), count(DISTINCT chunk_id) FROM ({postings}) AS t GROUP BY unit"), params).all()
    names = list(ranges)
    rows = [(names[unit], found, chunks) for unit, found, chunks in rows]
    return {term: (int(found), int(chunks)) for term, found, chunks in rows}


def _postings(parts: list[tuple[int, int, str, str]]) -> tuple[str, dict[str, str]]:
    """SQL selecting ``unit, part, chunk_id, title_tf, body_tf, length`` of the postings of each ``(unit, part, low,
    high)`` range, and its parameters: one index range scan per part, written out (``UNION ALL``) with its bounds as
    parameters the planner sees. Joined to an array of ranges instead, the planner could not see their sizes, guessed
    a third of the postings for each and scanned the whole table (1 s instead of 15 ms on SciFact)."""
    selects, params = [], {}
    for index, (unit, part, low, high) in enumerate(parts):
        params[f"l{index}"], params[f"h{index}"] = low, high
        selects.append(f"SELECT {int(unit)} AS unit, {int(part)} AS part, chunk_id, title_tf, body_tf, length "
                       f"FROM chunk_term WHERE term BETWEEN :l{index} AND :h{index}")
    return " UNION ALL ".join(selects), params


def term_frequencies(session: Session, terms: list[str]) -> dict[str, int]:
    """How many postings each term has, as ``index/lexical.term_frequencies`` counts them: an exact term its
    chunks, a prefix (``cell*``) the summed chunks of every term it matches; unknown terms are absent."""
    return {term: postings for term, (postings, _chunks) in _counts(session, terms).items()}


def index_size(session: Session) -> tuple[int, float]:
    """The indexed chunks and their mean length in tokens (title and body), BM25's ``N`` and ``avgdl``."""
    chunks, total = session.execute(
        text("SELECT count(*), coalesce(sum(title_tokens + body_tokens), 0) FROM chunk_lexical")).one()
    return int(chunks), (float(total) / chunks if chunks else 1.0)


_SCORES = (
    # q: each unit's idf, number of parts and phrase (a tsquery); t: the postings of every part of every unit.
    "WITH q(unit, parts, idf, phrase) AS (SELECT * FROM unnest(CAST(:q_unit AS int[]), CAST(:q_parts AS int[]), "
    "CAST(:q_idf AS float8[]), CAST(:q_phrase AS text[]))), "
    "t AS ({postings}), "
    # w: a part's weighted count in each chunk holding it (a prefix sums its expansions); p: a unit's (its rarest part).
    "w AS (SELECT unit, part, chunk_id, sum(:wt * title_tf + :wb * body_tf) AS f, sum(body_tf) AS fb, "
    "max(length) AS length FROM t GROUP BY unit, part, chunk_id), "
    "p AS (SELECT unit, chunk_id, min(f) AS f, min(fb) AS fb, max(length) AS length, count(*) AS held FROM w "
    "GROUP BY unit, chunk_id), "
    "s AS (SELECT p.chunk_id, "
    "sum(q.idf * p.f * (:k1 + 1) / (p.f + :k1 * (1 - :b + :b * p.length / :avg))) AS score, "
    "sum(q.idf * p.fb * (:k1 + 1) / (p.fb + :k1 * (1 - :b + :b * p.length / :avg))) AS body "
    "FROM p JOIN q ON q.unit = p.unit WHERE p.held = q.parts AND (q.phrase IS NULL OR EXISTS (SELECT 1 FROM "
    "chunk_lexical l WHERE l.chunk_id = p.chunk_id AND l.tsv @@ CAST(q.phrase AS tsquery))) GROUP BY p.chunk_id) "
)


def search_chunks(session: Session, query: str | ParsedQuery, document_filter: SqlFilter, limit: int,
                  title_weight: float = 2.0, body_weight: float = 1.0,
                  max_postings: int | None = DEFAULT_MAX_POSTINGS, stemming: bool = True,
                  per_document: int | None = PER_DOCUMENT) -> list[LexicalHit]:
    """``index/lexical.search_chunks`` on PostgreSQL: the same arguments, the same hits (see the module docstring
    for the two differences on quoted phrases); never raises on odd query text."""
    parsed = query if isinstance(query, ParsedQuery) else parse_query(query)
    words = [stem_prefix(term) for term in parsed.words] if stemming else list(parsed.words)
    units = list(dict.fromkeys([*words, *parsed.exact, *(" ".join(p) for p in parsed.phrases)]))
    units = [unit for unit in units if _parts(unit)]  # a word too long to index matches nothing
    if not units:
        return []
    # The planner cannot see the ranges' sizes (unnest's parameters) and guesses tens of thousands of postings, which
    # turns JIT compilation on: 8 ms of compiling for 1-15 ms of work. Off for this transaction only.
    session.execute(text("SET LOCAL jit = off"))
    counts = _counts(session, [*words, *parsed.exact, *(t for p in parsed.phrases for t in p)])
    frequencies = {term: postings for term, (postings, _chunks) in counts.items()}
    if max_postings is not None and words:
        kept = set(selective_terms(words, frequencies, max_postings))
        units = [u for u in units if u in kept or u not in words]
    total, average = index_size(session)
    ceiling = saturated_ceiling(total, units, frequencies)
    params: dict = {"q_unit": [], "q_parts": [], "q_idf": [], "q_phrase": [], "wt": title_weight, "wb": body_weight,
                    "k1": BM25_K1, "b": BM25_B, "avg": average}
    ranges = []
    for number, unit in enumerate(units):
        parts = _parts(unit)
        ranges += [(number, part, low, high) for part, (low, high) in enumerate(parts)]
        # A unit's chunks: a one-part unit's exactly; a phrase's at most its rarest word's.
        held = min((counts.get(part, (0, 1))[1] for part in unit.split(" ")), default=1) if len(parts) > 1 else \
            counts.get(unit, (0, 1))[1]
        params["q_unit"].append(number)
        params["q_parts"].append(len(parts))
        params["q_idf"].append(bm25_idf(total, held))
        params["q_phrase"].append(" <-> ".join(lexeme(low) for low, _high in parts) if len(parts) > 1 else None)
    postings, bounds = _postings(ranges)
    params.update(bounds)
    scores = _SCORES.format(postings=postings)
    fetch = limit * OVERFETCH
    ranked = session.execute(text(scores + "SELECT chunk_id, score, body FROM s ORDER BY score DESC, chunk_id "
                                            "LIMIT :m"), {**params, "m": fetch}).all()
    if not ranked:
        return []
    allowed = {
        chunk_id: (doc, ordinal, role)
        for chunk_id, doc, ordinal, role in session.execute(
            text("SELECT c.id, c.document_id, c.ordinal, c.role FROM chunk c JOIN document d ON d.id = c.document_id "
                 f"WHERE c.id = ANY(CAST(:ids AS bigint[])) AND {document_filter.sql}"),
            {**document_filter.params, "ids": [row[0] for row in ranked]},
        ).all()
    }
    # cap_per_document reads FTS5's signs (negative is better, 0 no body match): the scores negated.
    hits = cap_per_document([(allowed[chunk_id], -score, -body) for chunk_id, score, body in ranked
                             if chunk_id in allowed], per_document)[:limit]
    if len(hits) < limit and len(ranked) == fetch:
        # The filter or the per-document cap removed too many: rank the allowed chunks only, each document's best few.
        rows = session.execute(
            text(scores + ", m AS (SELECT c.document_id, c.ordinal, c.role, s.score, s.body FROM s "
                 "JOIN chunk c ON c.id = s.chunk_id JOIN document d ON d.id = c.document_id "
                 f"WHERE {document_filter.sql}) SELECT document_id, ordinal, role, score, body FROM (SELECT *, "
                 "row_number() OVER (PARTITION BY document_id ORDER BY body = 0, role != 'body', score DESC) AS place "
                 "FROM m) AS ranked WHERE place <= :cap ORDER BY score DESC LIMIT :n"),
            {**params, **document_filter.params, "n": limit, "cap": per_document or limit},
        ).all()
        hits = [((doc, ordinal, role), -score, -body) for doc, ordinal, role, score, body in rows]
    return [LexicalHit(f"{doc}:{ordinal}", doc, -float(rank), min(-float(rank) / ceiling, 1.0), ChunkRole(role),
                       in_text=float(body) < 0) for (doc, ordinal, role), rank, body in hits]


def documents_with_quoted(session: Session, query: ParsedQuery) -> set[str] | None:
    """``index/lexical.documents_with_quoted`` on PostgreSQL: the documents holding every quoted phrase and quoted
    word of ``query`` (in a chunk or the title), or None when the query quotes nothing. One GIN lookup per unit."""
    quoted = [*query.exact, *(" ".join(p) for p in query.phrases)]
    if not quoted:
        return None
    found: set[str] | None = None
    for unit in quoted:
        parts = tokens(unit)
        if not parts:  # nothing of it can be in the index
            return set()
        documents = {row[0] for row in session.execute(
            text("SELECT DISTINCT c.document_id FROM chunk_lexical l JOIN chunk c ON c.id = l.chunk_id "
                 "WHERE l.tsv @@ CAST(:q AS tsquery)"),
            {"q": " <-> ".join(map(lexeme, parts))},
        ).all()}
        found = documents if found is None else found & documents
        if not found:
            break
    return found or set()
