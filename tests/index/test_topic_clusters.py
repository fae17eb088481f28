"""The topic tree's pure algorithms (index/topic_clusters.py): split, cold build, attach, splits, merges, pins."""

from __future__ import annotations

import numpy as np
import pytest

from vancetope_desktop.core.errors import InvalidInput
from vancetope_desktop.index.topic_clusters import split_members


def _blobs(sizes: list[int], dim: int = 16, spread: float = 0.05, seed: int = 1) -> np.ndarray:
    """Unit vectors in tight groups of ``sizes`` around random directions (group after group, in order)."""
    rng = np.random.default_rng(seed)
    rows = []
    for size in sizes:
        centre = rng.normal(size=dim)
        rows.append(centre / np.linalg.norm(centre) + rng.normal(scale=spread, size=(size, dim)))
    matrix = np.vstack(rows).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def test_split_members_separates_two_groups_deterministically() -> None:
    vectors = _blobs([7, 5])[[0, 7, 1, 8, 2, 9, 3, 10, 4, 11, 5, 6]]  # the two groups interleaved
    parts = split_members(vectors)
    assert [p.tolist() for p in parts] == [[0, 2, 4, 6, 8, 10, 11], [1, 3, 5, 7, 9]]
    assert [p.tolist() for p in split_members(vectors)] == [p.tolist() for p in parts]


def test_split_members_into_three_covers_every_row_once() -> None:
    parts = split_members(_blobs([4, 6, 5]), parts=3)
    assert sorted(int(i) for p in parts for i in p) == list(range(15))
    assert sorted(len(p) for p in parts) == [4, 5, 6]


def test_split_members_of_duplicate_vectors_leaves_no_part_empty() -> None:
    vectors = np.tile(_blobs([1]), (5, 1))
    assert [p.tolist() for p in split_members(vectors, 2)] == [[0, 1, 2], [3, 4]]


@pytest.mark.parametrize(("rows", "parts", "message"), [
    (1, 2, "cannot split 1 atom into 2 parts"),
    (0, 2, "cannot split 0 atoms into 2 parts"),
    (3, 1, "at least 2 parts"),
])
def test_split_members_refuses_too_few_rows_or_parts(rows: int, parts: int, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        split_members(np.ones((rows, 4), dtype=np.float32), parts)


def test_split_members_refuses_a_flat_or_broken_array() -> None:
    with pytest.raises(InvalidInput, match="2-d"):
        split_members(np.ones(4, dtype=np.float32))
    with pytest.raises(InvalidInput, match="NaN"):
        split_members(np.array([[1.0, 0.0], [np.nan, 1.0]]))
