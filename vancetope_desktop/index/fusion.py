"""Hybrid ranking: dense and BM25 chunk rankings fused into one document ranking, weighted by scope.

Fusion is weighted reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009):
``score(d) = Σ_r w_r / (k + rank_r(d))`` over the two rankings, a document's rank being that of its
best chunk. RRF needs no score calibration between cosine similarities and BM25 (whose scale
depends on the query and the collection), is robust when one ranking misses a document, and is the
usual baseline hybrid systems ship. The fused score is then multiplied by the seed §5.3 scope
proximity weight of the document's scope.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RankedChunk:
    """A chunk from one ranking: ids and that ranking's raw score (cosine or BM25)."""

    chunk_id: str
    document_id: str
    score: float


@dataclass
class FusedDocument:
    """A document's fused score and its parts.

    Attributes:
        score: final score = ``fused * scope_weight``.
        fused: the RRF sum before the scope weight.
        vector: best chunk cosine similarity, None if the dense ranking missed the document.
        lexical: best chunk BM25 score, None if the lexical ranking missed it.
        vector_rank / lexical_rank: 1-based document ranks in each ranking, None if missed.
        scope_weight: the proximity weight applied.
        chunks: chunk ids in order of relevance (best first, at most a few).
    """

    document_id: str
    score: float = 0.0
    fused: float = 0.0
    vector: float | None = None
    lexical: float | None = None
    vector_rank: int | None = None
    lexical_rank: int | None = None
    scope_weight: float = 1.0
    chunks: list[str] = field(default_factory=list)


def _document_ranking(chunks: Iterable[RankedChunk]) -> list[tuple[str, RankedChunk]]:
    best: dict[str, RankedChunk] = {}
    for chunk in sorted(chunks, key=lambda c: -c.score):
        best.setdefault(chunk.document_id, chunk)
    return list(best.items())


def fuse(dense: Iterable[RankedChunk], lexical: Iterable[RankedChunk], scope_weights: Mapping[str, float],
         *, k: int = 60, dense_weight: float = 1.0, lexical_weight: float = 1.0,
         chunks_per_document: int = 3) -> list[FusedDocument]:
    """Fuse two chunk rankings into documents, best first.

    Args:
        dense: chunks with cosine similarity (any order; higher is better).
        lexical: chunks with BM25 score (any order; higher is better).
        scope_weights: document id → proximity weight; documents missing here weigh 1.0.
        k: the RRF constant; larger values flatten the head of each ranking.
        chunks_per_document: how many supporting chunk ids to keep per document.

    Returns:
        Documents sorted by ``score`` descending (ties broken by document id for stable output).
    """
    dense, lexical = list(dense), list(lexical)
    documents: dict[str, FusedDocument] = {}
    chunk_scores: dict[str, dict[str, float]] = {}
    for ranking, weight, attr in ((dense, dense_weight, "vector"), (lexical, lexical_weight, "lexical")):
        for rank, (document_id, best) in enumerate(_document_ranking(ranking), start=1):
            doc = documents.setdefault(document_id, FusedDocument(document_id))
            doc.fused += weight / (k + rank)
            setattr(doc, attr, best.score)
            setattr(doc, f"{attr}_rank", rank)
        for position, chunk in enumerate(sorted(ranking, key=lambda c: -c.score), start=1):
            # A chunk's own support: RRF over the chunk rankings, to order a document's passages.
            scores = chunk_scores.setdefault(chunk.document_id, {})
            scores[chunk.chunk_id] = scores.get(chunk.chunk_id, 0.0) + weight / (k + position)
    for doc in documents.values():
        doc.scope_weight = scope_weights.get(doc.document_id, 1.0)
        doc.score = doc.fused * doc.scope_weight
        ranked = sorted(chunk_scores.get(doc.document_id, {}).items(), key=lambda item: -item[1])
        doc.chunks = [chunk_id for chunk_id, _ in ranked[:chunks_per_document]]
    return sorted(documents.values(), key=lambda d: (-d.score, d.document_id))
