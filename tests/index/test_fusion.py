"""Fusion arithmetic: absolute meaning and keyword scales, documents without vectors, role and scope weights.

Plain numbers, no stores.
"""

import numpy as np
import pytest

from vancetope_desktop.core.documents import ChunkRole
from vancetope_desktop.index.fusion import ROLE_WEIGHTS, RankedChunk, fuse, meaning_score

SCALE = dict(meaning_floor=0.2, meaning_ceiling=0.7, dense_weight=0.5, lexical_weight=0.5)


def test_meaning_is_the_cosine_on_a_cut_linear_scale():
    assert meaning_score(0.45, 0.2, 0.7) == pytest.approx(0.5)
    assert meaning_score(0.1, 0.2, 0.7) == 0.0 and meaning_score(0.9, 0.2, 0.7) == 1.0
    # A batch of cosines (the topic beam's centroids) on the same scale.
    assert meaning_score(np.array([0.1, 0.45, 0.9]), 0.2, 0.7) == pytest.approx([0.0, 0.5, 1.0])


def test_relevance_is_the_weighted_sum_of_meaning_and_keywords():
    dense = [RankedChunk("a:0", "a", 0.7), RankedChunk("b:0", "b", 0.45), RankedChunk("a:1", "a", 0.3)]
    lexical = [RankedChunk("b:2", "b", 0.6), RankedChunk("c:0", "c", 0.2)]
    result = {d.document_id: d for d in fuse(dense, lexical, {}, **SCALE)}
    assert result["a"].relevance == pytest.approx(0.5 * 1.0)  # holds no query word: keywords 0
    assert result["b"].relevance == pytest.approx(0.5 * 0.5 + 0.5 * 0.6)
    # c has vectors but was not among the nearest chunks: at most the lowest meaning found (b's).
    assert result["c"].relevance == pytest.approx(0.5 * 0.5 + 0.5 * 0.2) and result["c"].meaning_basis == "beyond"
    assert result["b"].cosine == 0.45 and result["b"].keyword == 0.6 and result["a"].keyword_basis == "none"
    assert result["a"].keyword_chunk is None and result["b"].keyword_chunk == "b:2"
    assert [d.document_id for d in fuse(dense, lexical, {}, **SCALE)] == ["b", "a", "c"]


def test_a_document_the_keyword_ranking_cut_off_gets_at_most_the_lowest_keyword_score():
    dense = [RankedChunk("a:0", "a", 0.7)]
    lexical = [RankedChunk("b:0", "b", 0.6), RankedChunk("c:0", "c", 0.2)]
    full = {d.document_id: d for d in fuse(dense, lexical, {}, lexical_depth=2, **SCALE)}
    assert full["a"].keyword == pytest.approx(0.2) and full["a"].keyword_basis == "beyond"
    short = {d.document_id: d for d in fuse(dense, lexical, {}, lexical_depth=10, **SCALE)}
    assert short["a"].keyword == 0.0 and short["a"].keyword_basis == "none"


def test_a_single_keyword_hit_and_the_last_one_score_what_they_match():
    # The z-score shifted to the lowest gave the only (or the last) keyword hit 0 from its ranking.
    only = fuse([], [RankedChunk("a:0", "a", 0.4)], {}, no_vectors={"a"}, **SCALE)
    assert only[0].relevance == pytest.approx(0.4) and only[0].score > 0
    several = fuse([], [RankedChunk("a:0", "a", 0.4), RankedChunk("b:0", "b", 0.3)], {}, **SCALE)
    assert several[1].document_id == "b" and several[1].keyword == pytest.approx(0.3)


def test_a_document_without_vectors_gets_the_typical_meaning_not_the_lowest():
    # "ligature": 13 notes embedded and about other things, the one holding the word still pending.
    dense = [RankedChunk(f"n{i}:0", f"n{i}", 0.25 + i / 100) for i in range(13)]
    lexical = [RankedChunk("pending:0", "pending", 0.45)]
    ranked = fuse(dense, lexical, {}, no_vectors={"pending"}, **SCALE)
    assert ranked[0].document_id == "pending" and ranked[0].meaning_basis == "estimate"
    assert ranked[0].meaning == pytest.approx(meaning_score(0.31, 0.2, 0.7))  # the median of the 13
    assert ranked[0].relevance == pytest.approx(0.5 * ranked[0].meaning + 0.5 * 0.45)
    # The same document with vectors that the dense ranking did not retrieve was judged far.
    judged = {d.document_id: d for d in fuse(dense, lexical, {}, **SCALE)}
    assert judged["pending"].meaning == pytest.approx(meaning_score(0.25, 0.2, 0.7))
    assert judged["pending"].meaning_basis == "beyond"


def test_without_any_meaning_found_a_document_without_vectors_ranks_by_keywords_alone():
    ranked = fuse([], [RankedChunk("a:0", "a", 0.3)], {}, no_vectors={"a"}, **SCALE)
    assert ranked[0].meaning == pytest.approx(0.3) and ranked[0].relevance == pytest.approx(0.3)


def test_non_body_chunks_weigh_less_on_the_keyword_side():
    lexical = [RankedChunk("refs:9", "refs", 0.8, ChunkRole.REFERENCES),
               RankedChunk("authors:1", "authors", 0.7, ChunkRole.AUTHORS),
               RankedChunk("paper:3", "paper", 0.35)]
    ranked = fuse([], lexical, {}, **SCALE)
    assert ranked[0].document_id == "paper"
    refs = next(d for d in ranked if d.document_id == "refs")
    assert refs.keyword == pytest.approx(0.8 * ROLE_WEIGHTS[ChunkRole.REFERENCES]) and refs.role_weight < 1
    # A document's body passage beats its own reference list when it matches nearly as well.
    mixed = fuse([], [RankedChunk("p:9", "p", 0.6, ChunkRole.REFERENCES), RankedChunk("p:2", "p", 0.4)], {}, **SCALE)
    assert mixed[0].keyword_chunk == "p:2" and mixed[0].role_weight == 1.0


def test_scope_weight_multiplies_the_relevance_and_reorders():
    dense = [RankedChunk("grp:0", "grp", 0.7), RankedChunk("tp:0", "tp", 0.65)]
    ranked = fuse(dense, [], {"grp": 0.3, "tp": 1.0}, **SCALE)
    assert [d.document_id for d in ranked] == ["tp", "grp"]
    assert ranked[1].score == pytest.approx(0.3 * ranked[1].relevance) and ranked[1].scope_weight == 0.3


def test_passages_are_ordered_by_support_and_the_keyword_passage_is_kept():
    dense = [RankedChunk(f"a:{i}", "a", 0.7 - i / 20) for i in range(5)]
    doc = fuse(dense, [RankedChunk("a:4", "a", 0.05)], {}, chunks_per_document=2, **SCALE)[0]
    assert doc.chunks == ["a:0", "a:4"]  # a:1 supports more, but a:4 holds the words
    doc = fuse(dense, [RankedChunk("a:4", "a", 0.9)], {}, chunks_per_document=2, **SCALE)[0]
    assert doc.chunks[0] == "a:4"


def test_a_meaning_scale_upside_down_is_refused():
    with pytest.raises(ValueError):
        fuse([], [], {}, meaning_floor=0.7, meaning_ceiling=0.2)
