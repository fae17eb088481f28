"""Hybrid ranking: dense and BM25 chunk rankings fused into one document ranking, weighted by scope.

Both sides are put on an absolute scale from 0 (no match) to 1 before they are combined, so that a
score says how well a document matches, not where it stands among the others:

1. **meaning**, from the best chunk's cosine similarity: ``(cos - floor) / (ceiling - floor)``, cut
   to [0, 1] (:func:`meaning_score`; ``Settings.meaning_floor`` 0.1 / ``meaning_ceiling`` 0.7 for
   all-MiniLM-L6-v2: relevant SciFact abstracts have cosines 0.38-0.81, 5th to 95th percentile);
2. **keywords**, from the best chunk's BM25 over the most the query could score,
   ``Σ idf × (k1 + 1)`` (``index/lexical.LexicalHit.keyword``), times the chunk's role weight
   (:data:`ROLE_WEIGHTS`: a reference list or an author page matches words without being about them);
3. ``relevance = 0.3 · meaning + 0.7 · keywords`` (``Settings.dense_weight`` / ``lexical_weight``);
   ``score = relevance × scope weight`` (seed §5.3 proximity weight of the document's scope).

A document missing from one ranking:

* **no vectors yet** (pending, failed, or no embedded chunk): its meaning is unknown, not low. It
  gets the median meaning of the documents the dense ranking found (its keywords, when that found
  nothing), so an exact word match ranks by what it matches. On SciFact train with a fifth of the
  documents made vector-less: nDCG@10 0.717 this way, 0.704 counting them as far (as the previous
  fusion did, and as "ranked by keywords alone" nearly does: 0.705);
* **has vectors but was not retrieved**: judged and found far; it gets the lowest meaning retrieved
  (an upper bound on its own);
* **not among the keyword matches**: 0 when the keyword ranking returned fewer chunks than asked
  (it holds none of the words); the lowest keyword score retrieved when the list was full (it may
  hold some further down). Counting those as 0 cost 0.004 nDCG@10 on train and 0.006 Recall@100
  on test (table).

Why an absolute scale: the previous normalisation (a z-score shifted so that the lowest retrieved
document got 0) gave a single keyword hit, and the last one, 0 from their ranking, and a document
without vectors could then not rank at all (a note holding the one query word came 13th of 14).
Scores on one scale also make a relevance cut-off (``services/search.relevant``) and an explanation
of each hit possible, which rank-based or per-query normalisations are not.

Chosen by a grid search on the SciFact TRAIN split (809 claims, 5,183 abstracts indexed as notes
through the services: 9,140 chunks), never on test; ``tests/benchmarks/bench_scifact.py --tune``
reproduces it. nDCG@10 / Recall@100, with 100 candidates per ranking, Snowball stemming
(``index/lexical.stem_prefix``) and the postings budget unless said:

=========================================================  ===============  ===============
ranking                                                    train            test (300)
=========================================================  ===============  ===============
dense only (best chunk)                                    0.664 / 0.911    0.641 / 0.928
BM25 only, title weight 3, no stemming                     0.665 / 0.898
BM25 only, plural rules stemming (previous), title 2       0.686 / 0.919    0.667 / 0.902
BM25 only, Snowball stemming, title 3                      0.691 / 0.922    0.688 / 0.909
previous fusion: convex, z-score shifted to the lowest     0.733 / 0.947    0.728 / 0.955
  (0.5/0.5, plural rules, title 2)
absolute scales, 0.3/0.7, floor 0.1, ceiling 0.7,          0.742 / 0.945    0.730 / 0.960
  title 3 (shipped)
same, missed keyword documents counted as 0                0.739 / 0.944    0.731 / 0.951
=========================================================  ===============  ===============

The grid (title weight 1-3, meaning weight 0.2-0.5, floor 0-0.3, ceiling 0.6-1) is flat near the
top: the twelve best configurations lie within 0.0015 on train, and their test figures spread over
0.724-0.731, so the test figure is good to about ±0.005. A meaning weight of 0.3 beats 0.4 by
0.0007 and 0.5 by 0.0025 on train (keyword scores are the more discriminating here); 200
candidates per ranking instead of 100 change nothing (0.7423 against 0.7424). Summing a
document's two best chunks, or adding a share of the second, lost 0.006-0.03 on both splits. The
0.75 aim on test is not reached; the remaining gap is on the index side (titles are not embedded
with the chunks, 300-word abstracts are cut in two). The role weights are measured at
:data:`ROLE_WEIGHTS`, the relevance cut-off at ``services/search.relevant``.
"""

from __future__ import annotations

import statistics
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal, overload

import numpy as np

from ..core.documents import ChunkRole
from ..core.settings import Settings

ROLE_WEIGHTS: Mapping[ChunkRole, float] = {
    ChunkRole.BODY: 1.0,
    ChunkRole.REFERENCES: 0.2,
    ChunkRole.AUTHORS: 0.2,
    ChunkRole.ACKNOWLEDGEMENTS: 0.2,
}
"""Keyword score multiplier by chunk role.

Non-body chunks have no vectors, so only their keyword score needs weighing down. A reference list
names a dozen cited titles, so it can match every word of a question several times: its keyword
scores come near saturation (0.6-0.9) where a body passage that answers the question scores
0.2-0.5. At 0.2 a saturated reference list counts about as much as a modest body match, and stays
findable (a search for a cited title still finds the paper that cites it). Measured with
``tests/benchmarks/bench_papers.py --guess-roles`` (19 questions about ``corpus/papers``; roles
guessed for 49 reference chunks, before the PDF extractor set them): the right paper first for all
19 at every weight from 1 to 0; top-10 hits owing their keyword score to a reference list: 3 at
weight 1, 1 at 0.5 and 0.3, 0 at 0.2 and below. With the roles the extractor sets (225 reference,
267 author and 16 acknowledgement chunks of 1,541) and the body-first choice of a paper's keyword
chunks (``index/lexical.cap_per_document``), the same 19/19 at every weight and no top-10 hit through such a
passage (1 December 2026)."""

_DEFAULTS = Settings()

MeaningBasis = Literal["passage", "beyond", "estimate"]
"""Where a document's meaning score comes from: its best passage among the nearest chunks; beyond them
(it has vectors but was not retrieved: the lowest retrieved, an upper bound); an estimate (no vectors
yet: the median of the documents retrieved)."""
KeywordBasis = Literal["passage", "beyond", "none"]
"""Where a document's keyword score comes from: its best matching passage; beyond the keyword
candidates (the list was full: the lowest retrieved, an upper bound); none (it holds no query word)."""


@dataclass(frozen=True)
class RankedChunk:
    """A chunk from one ranking.

    Attributes:
        score: the dense ranking's cosine similarity, or the keyword ranking's ``keyword`` score in [0, 1].
        role: the chunk's role; only the keyword side weighs it (non-body chunks have no vectors).
        in_text: for the keyword side, whether the chunk's text holds a query word (False: it matched
            through its document's title alone; see ``index/lexical.LexicalHit``).
    """

    chunk_id: str
    document_id: str
    score: float
    role: ChunkRole = ChunkRole.BODY
    in_text: bool = True


@dataclass
class FusedDocument:
    """A document's fused score and its parts.

    Attributes:
        score: ``relevance × scope_weight``, the rank order.
        relevance: ``dense_weight · meaning + lexical_weight · keyword``, in [0, 1] when the weights sum to 1.
        meaning / meaning_basis: the meaning score in [0, 1] and where it comes from (:data:`MeaningBasis`).
        keyword / keyword_basis: the keyword score in [0, 1], after the role weight, and where it comes
            from (:data:`KeywordBasis`).
        cosine: the best chunk's cosine similarity, None if the dense ranking did not retrieve the document.
        keyword_chunk: the chunk that gave ``keyword``, None unless the basis is ``passage``.
        role_weight: that chunk's role weight (:data:`ROLE_WEIGHTS`).
        vector_rank / lexical_rank: 1-based document ranks in each ranking, None if missed.
        scope_weight: the proximity weight applied.
        chunks: chunk ids in order of support (best first, at most a few; the keyword chunk always among them).
    """

    document_id: str
    score: float = 0.0
    relevance: float = 0.0
    meaning: float = 0.0
    meaning_basis: MeaningBasis = "beyond"
    keyword: float = 0.0
    keyword_basis: KeywordBasis = "none"
    cosine: float | None = None
    keyword_chunk: str | None = None
    role_weight: float = 1.0
    vector_rank: int | None = None
    lexical_rank: int | None = None
    scope_weight: float = 1.0
    chunks: list[str] = field(default_factory=list)


@overload
def meaning_score(cosine: float, floor: float = ..., ceiling: float = ...) -> float: ...


@overload
def meaning_score(cosine: np.ndarray, floor: float = ..., ceiling: float = ...) -> np.ndarray: ...


def meaning_score(cosine: float | np.ndarray, floor: float = _DEFAULTS.meaning_floor,
                  ceiling: float = _DEFAULTS.meaning_ceiling) -> float | np.ndarray:
    """A cosine similarity on the meaning scale: 0 at ``floor`` and below, 1 at ``ceiling`` and above; an array
    of them gives an array (``index/topic_beam`` scores a batch of centroids at once)."""
    scaled = (cosine - floor) / (ceiling - floor)
    if isinstance(scaled, np.ndarray):
        return np.clip(scaled, 0.0, 1.0)
    return min(max(scaled, 0.0), 1.0)


def fuse(dense: Iterable[RankedChunk], lexical: Iterable[RankedChunk], scope_weights: Mapping[str, float],
         *, no_vectors: Collection[str] = (), lexical_depth: int | None = None,
         dense_weight: float = _DEFAULTS.dense_weight, lexical_weight: float = _DEFAULTS.lexical_weight,
         meaning_floor: float = _DEFAULTS.meaning_floor, meaning_ceiling: float = _DEFAULTS.meaning_ceiling,
         role_weights: Mapping[ChunkRole, float] = ROLE_WEIGHTS, chunks_per_document: int = 3) -> list[FusedDocument]:
    """Fuse two chunk rankings into documents, best first (see the module docstring).

    Args:
        dense: chunks with cosine similarity (any order).
        lexical: chunks with their keyword score in [0, 1] (any order).
        scope_weights: document id → proximity weight; documents missing here weigh 1.0.
        no_vectors: documents the dense ranking could not judge (no vectors yet); their meaning is estimated.
        lexical_depth: how many chunks the keyword ranking was asked for: when it returned that many,
            a document it missed may hold the words further down (it gets the lowest keyword score
            retrieved); None or fewer returned: a missed document holds none of them (0).
        dense_weight / lexical_weight: the weight of meaning and of keywords in the relevance.
        meaning_floor / meaning_ceiling: the cosine similarities that map to meaning 0 and 1.
        role_weights: keyword score multiplier per chunk role (roles missing here weigh 1).
        chunks_per_document: how many supporting chunk ids to keep per document.

    Returns:
        Documents sorted by ``score`` descending (ties broken by document id for stable output).

    Raises:
        ValueError: ``meaning_ceiling`` not above ``meaning_floor``.
    """
    if meaning_ceiling <= meaning_floor:
        raise ValueError("meaning_ceiling must be above meaning_floor")
    lexical = list(lexical)
    documents: dict[str, FusedDocument] = {}
    support: dict[str, dict[str, float]] = {}  # document → chunk → its own weighted score, to order passages

    def meaning(cosine: float) -> float:
        return meaning_score(cosine, meaning_floor, meaning_ceiling)

    best_cosine: dict[str, float] = {}
    for chunk in sorted(dense, key=lambda c: -c.score):
        best_cosine.setdefault(chunk.document_id, chunk.score)
        passages = support.setdefault(chunk.document_id, {})
        passages[chunk.chunk_id] = passages.get(chunk.chunk_id, 0.0) + dense_weight * meaning(chunk.score)
    for rank, (document_id, cosine) in enumerate(best_cosine.items(), start=1):
        documents[document_id] = FusedDocument(document_id, meaning=meaning(cosine), meaning_basis="passage",
                                               cosine=cosine, vector_rank=rank)
    found = sorted(doc.meaning for doc in documents.values())
    lowest = found[0] if found else 0.0
    typical = statistics.median(found) if found else None

    best_keyword: dict[str, tuple[float, RankedChunk]] = {}
    for chunk in lexical:
        value = chunk.score * role_weights.get(chunk.role, 1.0)
        passages = support.setdefault(chunk.document_id, {})
        if chunk.in_text:  # a chunk matched by its document's title alone holds none of the words
            passages[chunk.chunk_id] = passages.get(chunk.chunk_id, 0.0) + lexical_weight * value
        best = best_keyword.get(chunk.document_id)
        # A document's keyword score is that of its best passage holding the words; a title-only match
        # counts only when no passage does.
        if best is None or (chunk.in_text, value) > (best[1].in_text, best[0]):
            best_keyword[chunk.document_id] = (value, chunk)
    ordered = sorted(best_keyword.items(), key=lambda item: (-item[1][0], item[0]))
    for rank, (document_id, (value, chunk)) in enumerate(ordered, start=1):
        doc = documents.get(document_id)
        if doc is None:
            doc = documents[document_id] = FusedDocument(document_id, meaning=lowest)
            if document_id in no_vectors:
                # Unknown, not far: the typical meaning of what was found (its keywords when nothing was).
                doc.meaning, doc.meaning_basis = (value if typical is None else typical), "estimate"
        doc.keyword, doc.keyword_basis, doc.keyword_chunk, doc.lexical_rank = value, "passage", chunk.chunk_id, rank
        doc.role_weight = role_weights.get(chunk.role, 1.0)
    full = lexical_depth is not None and len(lexical) >= lexical_depth and bool(ordered)
    beyond = min(value for value, _ in best_keyword.values()) if full else 0.0

    for doc in documents.values():
        if doc.keyword_basis == "none" and beyond > 0:
            doc.keyword, doc.keyword_basis = beyond, "beyond"
        doc.relevance = dense_weight * doc.meaning + lexical_weight * doc.keyword
        doc.scope_weight = scope_weights.get(doc.document_id, 1.0)
        doc.score = doc.relevance * doc.scope_weight
        passages = sorted(support.get(doc.document_id, {}).items(), key=lambda item: (-item[1], item[0]))
        doc.chunks = [chunk_id for chunk_id, _ in passages[:chunks_per_document]]
        if doc.keyword_chunk is not None and doc.keyword_chunk not in doc.chunks:
            # The passage that matched the words is always shown (it explains the keyword score).
            doc.chunks = [*doc.chunks[: chunks_per_document - 1], doc.keyword_chunk]
    return sorted(documents.values(), key=lambda d: (-d.score, d.document_id))
