"""Fusion arithmetic (the default convex z-score fusion and RRF) and scope weighting: plain numbers, no stores."""

import math

import pytest

from vancetope_desktop.index.fusion import RankedChunk, fuse


def test_rrf_sums_reciprocal_ranks_of_best_chunks():
    dense = [RankedChunk("a:0", "a", 0.9), RankedChunk("b:0", "b", 0.8), RankedChunk("a:1", "a", 0.7)]
    lexical = [RankedChunk("b:2", "b", 12.0), RankedChunk("c:0", "c", 3.0)]
    result = {d.document_id: d for d in fuse(dense, lexical, {}, method="rrf", k=60, dense_weight=1.0,
                                             lexical_weight=1.0)}
    assert result["a"].fused == pytest.approx(1 / 61)
    assert result["b"].fused == pytest.approx(1 / 62 + 1 / 61)
    assert result["c"].fused == pytest.approx(1 / 62)
    assert result["b"].vector == 0.8 and result["b"].lexical == 12.0
    assert result["a"].lexical is None and result["a"].vector_rank == 1


def test_default_fusion_is_the_even_sum_of_min_shifted_z_scores():
    dense = [RankedChunk("a:0", "a", 0.9), RankedChunk("b:0", "b", 0.8), RankedChunk("a:1", "a", 0.7),
             RankedChunk("c:0", "c", 0.5)]
    lexical = [RankedChunk("b:2", "b", 12.0), RankedChunk("c:1", "c", 3.0)]
    result = {d.document_id: d for d in fuse(dense, lexical, {})}
    # Documents' best chunks: dense a 0.9, b 0.8, c 0.5 (mean 0.7333, population std 0.16997);
    # lexical b 12, c 3 (std 4.5). Each becomes (score - lowest) / std; a missing document gets 0.
    dense_std = math.sqrt(((0.9 - 2.2 / 3) ** 2 + (0.8 - 2.2 / 3) ** 2 + (0.5 - 2.2 / 3) ** 2) / 3)
    assert result["a"].fused == pytest.approx(0.5 * 0.4 / dense_std)
    assert result["b"].fused == pytest.approx(0.5 * 0.3 / dense_std + 0.5 * 9.0 / 4.5)
    assert result["c"].fused == pytest.approx(0.0)
    assert result["b"].vector == 0.8 and result["b"].lexical == 12.0 and result["a"].lexical is None


def test_scope_weight_multiplies_and_reorders():
    dense = [RankedChunk("grp:0", "grp", 0.9), RankedChunk("tp:0", "tp", 0.8)]
    ranked = fuse(dense, [], {"grp": 0.3, "tp": 1.0}, method="rrf", k=60, dense_weight=1.0)
    assert [d.document_id for d in ranked] == ["tp", "grp"]
    assert ranked[1].score == pytest.approx(0.3 / 61)


def test_scope_weight_multiplies_the_default_fusion_and_reorders():
    dense = [RankedChunk("grp:0", "grp", 0.9), RankedChunk("tp:0", "tp", 0.85), RankedChunk("x:0", "x", 0.1)]
    ranked = fuse(dense, [], {"grp": 0.3, "tp": 1.0})
    assert [d.document_id for d in ranked] == ["tp", "grp", "x"]
    std = math.sqrt(((0.9 - 0.6166667) ** 2 + (0.85 - 0.6166667) ** 2 + (0.1 - 0.6166667) ** 2) / 3)
    assert ranked[0].score == pytest.approx(0.5 * 0.75 / std, rel=1e-5)
    assert ranked[1].fused == pytest.approx(0.5 * 0.8 / std, rel=1e-5)
    assert ranked[1].score == pytest.approx(0.3 * ranked[1].fused)


def test_passages_are_ordered_by_support_and_capped():
    dense = [RankedChunk(f"a:{i}", "a", 1 - i / 10) for i in range(5)]
    lexical = [RankedChunk("a:4", "a", 9.0)]
    doc = fuse(dense, lexical, {}, chunks_per_document=2)[0]
    assert doc.chunks[0] == "a:4" and len(doc.chunks) == 2


def test_convex_minmax_sums_weighted_normalised_scores():
    dense = [RankedChunk("a:0", "a", 0.9), RankedChunk("b:0", "b", 0.5), RankedChunk("c:0", "c", 0.7)]
    lexical = [RankedChunk("b:1", "b", 10.0), RankedChunk("c:1", "c", 4.0), RankedChunk("d:0", "d", 2.0)]
    result = {d.document_id: d for d in fuse(dense, lexical, {}, method="convex", normalization="minmax",
                                             dense_weight=0.6, lexical_weight=0.4)}
    # dense min-max: a 1.0, c 0.5, b 0.0; lexical min-max: b 1.0, c 0.25, d 0.0; a missing lexically → 0.
    assert result["a"].fused == pytest.approx(0.6)
    assert result["b"].fused == pytest.approx(0.4)
    assert result["c"].fused == pytest.approx(0.6 * 0.5 + 0.4 * 0.25)
    assert result["d"].fused == pytest.approx(0.0)


def test_convex_theoretical_uses_score_floors():
    dense = [RankedChunk("a:0", "a", 0.5), RankedChunk("b:0", "b", 0.0)]
    lexical = [RankedChunk("a:1", "a", 8.0), RankedChunk("b:1", "b", 2.0)]
    result = {d.document_id: d for d in fuse(dense, lexical, {}, method="convex", normalization="theoretical",
                                             dense_weight=0.5, lexical_weight=0.5)}
    # cosine floor -1: a (0.5+1)/1.5 = 1, b 1/1.5; BM25 floor 0: a 1, b 0.25.
    assert result["a"].fused == pytest.approx(1.0)
    assert result["b"].fused == pytest.approx(0.5 * (1 / 1.5) + 0.5 * 0.25)


def test_top_chunks_sums_a_documents_best_chunks():
    dense = [RankedChunk("a:0", "a", 0.9), RankedChunk("b:0", "b", 0.8), RankedChunk("b:1", "b", 0.7),
             RankedChunk("b:2", "b", 0.1)]
    ranked = fuse(dense, [], {}, top_chunks=2)
    assert [d.document_id for d in ranked] == ["b", "a"]  # b: 0.8 + 0.7 > a: 0.9
    assert ranked[0].vector == 0.8  # the reported score stays the best chunk's


def test_convex_scope_weight_multiplies_final_score():
    dense = [RankedChunk("grp:0", "grp", 0.9), RankedChunk("tp:0", "tp", 0.8), RankedChunk("x:0", "x", 0.1)]
    ranked = {d.document_id: d for d in fuse(dense, [], {"grp": 0.3}, method="convex", dense_weight=1.0,
                                             lexical_weight=0.0)}
    assert ranked["grp"].score == pytest.approx(0.3 * ranked["grp"].fused)
    assert ranked["tp"].score == pytest.approx(ranked["tp"].fused)


def test_unknown_method_is_refused():
    with pytest.raises(ValueError):
        fuse([], [], {}, method="magic")
