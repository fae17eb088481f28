"""Hybrid ranking: dense and BM25 chunk rankings fused into one document ranking, weighted by scope.

The shipped fusion (``Settings.fusion = "convex"``, ``fusion_normalization = "zscore"``) is a convex
combination of normalised scores (Bruch, Gai & Ingber, "An Analysis of Fusion Functions for Hybrid
Retrieval", ACM TOIS 2023):

1. each ranking's chunks are aggregated to documents by their best chunk (cosine, or BM25);
2. each ranking's document scores become ``(s - lowest) / std`` over that ranking's retrieved list
   (a z-score shifted so the lowest retrieved document, and any document the ranking missed, get 0:
   non-negative, so the scope weight can multiply it);
3. ``fused = 0.5 · dense + 0.5 · lexical``; the final score is ``fused × scope weight`` (seed §5.3
   proximity weight of the document's scope).

Why: unlike reciprocal rank fusion, the fused score keeps *how much* better a document is in each
ranking, not only its rank, which is what Bruch et al. found makes convex combinations beat RRF;
the z-score puts cosine similarities and BM25 (whose scale depends on the query and the
collection) on one scale better than min-max or theoretical-min normalisation did here.

Chosen by a grid search on the SciFact TRAIN split (809 claims, 5,183 abstracts indexed as notes
through the services: 9,140 chunks), never on test; ``tests/benchmarks/bench_scifact.py --tune``
reproduces it. nDCG@10 / Recall@100 (all lexical rows with the shipped light stemming,
``index/lexical.stem_prefix``, and title weight 2, unless said):

=====================================================  ===============  ===============
ranking                                                train            test (300)
=====================================================  ===============  ===============
dense only (best chunk)                                0.664 / 0.911    0.641 / 0.928
BM25 only, no stemming (previous)                      0.663 / 0.900    0.651 / 0.879
BM25 only                                              0.683 / 0.919    0.668 / 0.899
previous default: RRF k=60, weights 1/1, no stemming   0.691 / 0.949    0.671 / 0.958
best RRF: k=10, lexical weight 1.25, depth 200         0.719 / 0.950
convex, theoretical min-max (TMM), 0.5/0.5             0.699 / 0.947
convex, min-max, 0.5/0.5                               0.731 / 0.947
**convex, z-score, 0.5/0.5 (shipped)**                 0.733 / 0.947    0.729 / 0.955
best train config, scored by its 2 best chunks' sum    0.597 / 0.948
=====================================================  ===============  ===============

Dropping English stop words from keyword queries (``store/fulltext.STOP_WORDS``, added after this
grid for the sake of small libraries) leaves the test figures at 0.667 / 0.902 (BM25) and 0.728 / 0.955
(hybrid).

Dense weights 0.45-0.55 are within 0.002 of each other; title weights 1-5 within 0.003 in the
fusion (2 kept); 200 candidates per ranking instead of 100 add 0.0026 on train for twice the
Chroma and FTS work, so ``Settings.candidates`` stays 100. Summing a document's best chunks
(``top_chunks > 1``) favours documents cut into more chunks and costs 0.14 nDCG. The target of
0.75 on test is not reached with these components; the remaining gap is on the index side (FTS5
without a stemmer, titles not embedded with the chunks, 300-word abstracts cut into two chunks).

``method="rrf"`` (weighted reciprocal rank fusion, Cormack, Clarke & Büttcher, SIGIR 2009:
``Σ_r w_r / (k + rank_r(d))``) stays available through the settings.
"""

from __future__ import annotations

import math
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


MIN_RELATIVE_SPREAD = 0.05
"""The z-score's deviation is at least this fraction of the largest score (see :func:`normalize`)."""

NORMALIZATIONS = ("minmax", "theoretical", "zscore")
"""Score normalisations for ``method="convex"`` (see :func:`normalize`)."""

METHODS = ("rrf", "convex")


def _document_scores(chunks: Iterable[RankedChunk], top_chunks: int = 1) -> list[tuple[str, float, RankedChunk]]:
    """Documents of one ranking, best first: ``(id, score, best chunk)``.

    A document's score is its best chunk's (``top_chunks=1``) or the sum of its ``top_chunks`` best.
    """
    best: dict[str, RankedChunk] = {}
    sums: dict[str, list[float]] = {}
    for chunk in sorted(chunks, key=lambda c: -c.score):
        best.setdefault(chunk.document_id, chunk)
        scores = sums.setdefault(chunk.document_id, [])
        if len(scores) < top_chunks:
            scores.append(chunk.score)
    ranked = [(doc, sum(sums[doc]), chunk) for doc, chunk in best.items()]
    ranked.sort(key=lambda item: (-item[1], item[0]))
    return ranked


def normalize(scores: list[float], kind: str, floor: float | None = None) -> list[float]:
    """Map one ranking's document scores to comparable, non-negative values.

    * ``minmax``: ``(s - min) / (max - min)`` over the retrieved list, in [0, 1];
    * ``theoretical``: ``(s - floor) / (max - floor)`` with the score's theoretical minimum ``floor``
      (cosine: -1, BM25: 0), Bruch et al.'s TMM, in [0, 1];
    * ``zscore``: ``(s - min) / std``, the z-score shifted so the lowest retrieved score is 0
      (non-negative so that the scope weight can multiply it); ``std`` is at least
      :data:`MIN_RELATIVE_SPREAD` × the largest absolute score, so near-equal scores stay near-equal.

    A document a ranking did not retrieve gets 0 from that ranking.
    """
    if not scores:
        return []
    high, low = max(scores), min(scores)
    if kind == "theoretical" and floor is not None:
        low = min(low, floor)
    if kind == "zscore":
        mean = sum(scores) / len(scores)
        spread = math.sqrt(sum((s - mean) ** 2 for s in scores) / len(scores))
        # With a handful of candidates (a small library) the deviation can be tiny, and dividing by it
        # would blow noise (BM25 2.78 vs 2.72) up to the full scale: never divide by less than a
        # fraction of the scores' own size.
        spread = max(spread, MIN_RELATIVE_SPREAD * max(abs(high), abs(low)))
    else:
        spread = high - low
    if spread <= 0:
        return [1.0 for _ in scores]
    return [(s - low) / spread for s in scores]


def fuse(dense: Iterable[RankedChunk], lexical: Iterable[RankedChunk], scope_weights: Mapping[str, float],
         *, method: str = "convex", k: int = 60, dense_weight: float = 0.5, lexical_weight: float = 0.5,
         normalization: str = "zscore", top_chunks: int = 1, chunks_per_document: int = 3) -> list[FusedDocument]:
    """Fuse two chunk rankings into documents, best first.

    Args:
        dense: chunks with cosine similarity (any order; higher is better).
        lexical: chunks with BM25 score (any order; higher is better).
        scope_weights: document id → proximity weight; documents missing here weigh 1.0.
        method: ``rrf`` (weighted reciprocal rank fusion) or ``convex`` (weighted sum of normalised scores).
        k: the RRF constant; larger values flatten the head of each ranking.
        dense_weight / lexical_weight: the weight of each ranking in either method.
        normalization: for ``convex``, one of :data:`NORMALIZATIONS`.
        top_chunks: a document's score in one ranking is the sum of its ``top_chunks`` best chunks' scores.
        chunks_per_document: how many supporting chunk ids to keep per document.

    Returns:
        Documents sorted by ``score`` descending (ties broken by document id for stable output).
    """
    if method not in METHODS:
        raise ValueError(f"unknown fusion method {method!r}")
    if normalization not in NORMALIZATIONS:
        raise ValueError(f"unknown normalization {normalization!r}")
    dense, lexical = list(dense), list(lexical)
    documents: dict[str, FusedDocument] = {}
    chunk_scores: dict[str, dict[str, float]] = {}
    sides = ((dense, dense_weight, "vector", -1.0), (lexical, lexical_weight, "lexical", 0.0))
    for ranking, weight, attr, floor in sides:
        ranked = _document_scores(ranking, top_chunks)
        if method == "rrf":
            contributions = [weight / (k + rank) for rank in range(1, len(ranked) + 1)]
        else:
            contributions = [weight * n for n in normalize([s for _, s, _ in ranked], normalization, floor)]
        for rank, ((document_id, _, best), part) in enumerate(zip(ranked, contributions, strict=True), start=1):
            doc = documents.setdefault(document_id, FusedDocument(document_id))
            doc.fused += part
            setattr(doc, attr, best.score)
            setattr(doc, f"{attr}_rank", rank)
        for position, chunk in enumerate(sorted(ranking, key=lambda c: -c.score), start=1):
            # A chunk's own support: RRF over the chunk rankings, to order a document's passages.
            scores = chunk_scores.setdefault(chunk.document_id, {})
            scores[chunk.chunk_id] = scores.get(chunk.chunk_id, 0.0) + weight / (k + position)
    for doc in documents.values():
        doc.scope_weight = scope_weights.get(doc.document_id, 1.0)
        doc.score = doc.fused * doc.scope_weight
        ranked_chunks = sorted(chunk_scores.get(doc.document_id, {}).items(), key=lambda item: -item[1])
        doc.chunks = [chunk_id for chunk_id, _ in ranked_chunks[:chunks_per_document]]
    return sorted(documents.values(), key=lambda d: (-d.score, d.document_id))
