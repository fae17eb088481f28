"""Reciprocal rank fusion arithmetic and scope weighting (a unit test: plain numbers, no stores)."""

import pytest

from vancetope_desktop.index.fusion import RankedChunk, fuse


def test_rrf_sums_reciprocal_ranks_of_best_chunks():
    dense = [RankedChunk("a:0", "a", 0.9), RankedChunk("b:0", "b", 0.8), RankedChunk("a:1", "a", 0.7)]
    lexical = [RankedChunk("b:2", "b", 12.0), RankedChunk("c:0", "c", 3.0)]
    result = {d.document_id: d for d in fuse(dense, lexical, {}, k=60)}
    assert result["a"].fused == pytest.approx(1 / 61)
    assert result["b"].fused == pytest.approx(1 / 62 + 1 / 61)
    assert result["c"].fused == pytest.approx(1 / 62)
    assert result["b"].vector == 0.8 and result["b"].lexical == 12.0
    assert result["a"].lexical is None and result["a"].vector_rank == 1


def test_scope_weight_multiplies_and_reorders():
    dense = [RankedChunk("grp:0", "grp", 0.9), RankedChunk("tp:0", "tp", 0.8)]
    ranked = fuse(dense, [], {"grp": 0.3, "tp": 1.0})
    assert [d.document_id for d in ranked] == ["tp", "grp"]
    assert ranked[1].score == pytest.approx(0.3 / 61)


def test_passages_are_ordered_by_support_and_capped():
    dense = [RankedChunk(f"a:{i}", "a", 1 - i / 10) for i in range(5)]
    lexical = [RankedChunk("a:4", "a", 9.0)]
    doc = fuse(dense, lexical, {}, chunks_per_document=2)[0]
    assert doc.chunks[0] == "a:4" and len(doc.chunks) == 2
