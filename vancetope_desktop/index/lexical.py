"""BM25 ranking of chunks with SQLite FTS5, restricted to visible scopes and document filters."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import text
from sqlmodel import Session

from ..store.filters import SqlFilter
from ..store.fulltext import match_expression


@dataclass(frozen=True)
class LexicalHit:
    """One chunk matched by the query, with its BM25 score (higher is better; FTS5's sign flipped)."""

    chunk_id: str
    document_id: str
    score: float


def search_chunks(session: Session, query: str, document_filter: SqlFilter, limit: int,
                  title_weight: float = 2.0, body_weight: float = 1.0) -> list[LexicalHit]:
    """Top ``limit`` chunks by BM25 for any query string; never raises on odd syntax.

    The chunk's document title is a second FTS column weighted ``title_weight`` (BM25F-style field
    weighting), so a query naming a paper ranks that paper's chunks up.

    Returns:
        Hits best first; chunk ids are ``doc_id:ordinal`` like the vector store's.
    """
    expression = match_expression(query)
    if expression is None:
        return []
    params = dict(document_filter.params, q=expression, n=limit, wt=title_weight, wb=body_weight)
    rows = session.exec(
        text(
            "SELECT c.document_id, c.ordinal, bm25(chunk_fts, :wt, :wb) AS rank "
            "FROM chunk_fts JOIN chunk c ON c.id = chunk_fts.rowid JOIN document d ON d.id = c.document_id "
            f"WHERE chunk_fts MATCH :q AND {document_filter.sql} ORDER BY rank LIMIT :n"
        ),
        params=params,
    ).all()
    return [LexicalHit(f"{doc}:{ordinal}", doc, -float(rank)) for doc, ordinal, rank in rows]
