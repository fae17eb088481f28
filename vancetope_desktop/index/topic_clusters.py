"""The topic tree's pure algorithms (issue 14): build a scope's tree from its atoms' vectors and texts, and
revise it locally once it is consolidated. numpy and scikit-learn only: no database, no Qt. Every function
returns a plan (plain dataclasses); ``services/topic_upkeep.py`` turns a plan into document writes.
"""

from __future__ import annotations

import numpy as np
from sklearn.cluster import KMeans

from ..core.errors import InvalidInput

SPLIT_SEED = 0
"""k-means' random seed: a split must come out the same on every run (the digest is replayed in tests)."""
SPLIT_RESTARTS = 4
"""k-means restarts per split (the best inertia wins): one restart sometimes cut a leaf 1 to 39."""


def split_members(vectors: np.ndarray, parts: int = 2) -> list[np.ndarray]:
    """Cut a topic's atoms into ``parts`` groups of like meaning (k-means on their unit vectors).

    Args:
        vectors: ``n × d`` float array, one row per atom (unit length as the embedder gives them).
        parts: how many groups (at least 2).

    Returns:
        ``parts`` sorted int arrays of row indices, each non-empty, together covering ``0..n-1`` once, ordered by
        their first row. Deterministic (fixed seed). Rows that k-means cannot tell apart (duplicate vectors)
        are dealt out in row order so that no group is left empty.

    Raises:
        InvalidInput: ``parts`` under 2, ``vectors`` not a 2-d array, fewer rows than ``parts``, or a value
        that is not finite.
    """
    matrix = np.asarray(vectors, dtype=np.float64)
    if parts < 2:
        raise InvalidInput(f"a topic is split into at least 2 parts, not {parts}")
    if matrix.ndim != 2:
        raise InvalidInput(f"split_members needs one vector per row (a 2-d array), not shape {matrix.shape}")
    rows = matrix.shape[0]
    if rows < parts:
        raise InvalidInput(f"cannot split {rows} atom{'s' if rows != 1 else ''} into {parts} parts")
    if not np.isfinite(matrix).all():
        raise InvalidInput("cannot split atoms whose vectors hold NaN or infinite values")
    if np.unique(matrix, axis=0).shape[0] >= parts:
        labels = KMeans(n_clusters=parts, n_init=SPLIT_RESTARTS, random_state=SPLIT_SEED).fit_predict(matrix)
        groups = [np.flatnonzero(labels == label) for label in np.unique(labels)]
        if len(groups) == parts:
            return sorted(groups, key=lambda group: int(group[0]))
    # Fewer distinct vectors than parts: k-means would leave a group empty, so the rows are dealt out in order.
    return list(np.array_split(np.arange(rows), parts))
