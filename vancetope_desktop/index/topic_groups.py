"""Atom vectors cut into groups of like meaning, for the topic tree (issue 14): Ward agglomerative clustering
(:func:`split_members`, :func:`like_groups`), k-means first past :data:`WARD_MAX` atoms, groups bounded in size
(:func:`bounded_groups`) and cut where their halves are clearly distinct (:func:`distinct_parts`), and unit
centroids. numpy and scikit-learn only.
"""

from __future__ import annotations

import math

import numpy as np

from ..core.errors import InvalidInput

WARD_MAX = 5_000
"""Most atoms one Ward clustering takes (its distance matrix is ``n² / 2`` float64: 100 MB here); more are
first cut into chunks of at most this many by k-means."""


DISTINCT_COSINE = 0.35
"""A cold build's leaf is cut in two when the centroids of its Ward halves have a cosine under this, however
small it is (:func:`distinct_parts`), so a small library on unrelated themes gets a topic per theme. Measured with
the bundled model (all-MiniLM-L6-v2), 2 December 2026, on the Ward halves (recursively) of the 12 statements of
tests/index/test_topic_tree.py's ``THEMES``: halves on different themes 0.03 (transformers against the rest) and
0.30 (sleep against coffee), halves within one theme 0.48-0.79 (0.38 for a lone statement against its theme's
three others). On the leaves of a cold build by size alone (leaves aimed at 20 atoms) the halves' cosine was
under 0.35 for 1.4% of 284 leaves of 600 SciFact abstracts (median 0.65) and for none of LoCoMo's conversations 0
and 1 (median 0.77-0.81, lowest 0.52). bench_topic_clusters.py (``--part build``, the "ward by size only" row):
SciFact 300 / 600 abstracts go from 145 / 284 leaves to 151 / 292 with the same routing (0.929 / 0.968 / 0.994
and 0.962 / 0.988 / 0.997 of the claims' abstracts at 5 / 10 / 25% of the atoms) and a little better pair
precision; LoCoMo's trees are unchanged."""


DISTINCT_PART = 2
"""The fewest atoms each half of a :data:`DISTINCT_COSINE` cut holds: a single odd statement stays with its
leaf rather than becoming a topic of one."""


SPLIT_SEED = 0
"""k-means' random seed: a split must come out the same on every run (the digest is replayed in tests)."""


SPLIT_RESTARTS = 4
"""k-means restarts per cut of more than WARD_MAX atoms (the best inertia wins)."""


def split_members(vectors: np.ndarray, parts: int = 2) -> list[np.ndarray]:
    """Cut a topic's atoms into ``parts`` groups of like meaning.

    Ward agglomerative clustering of their unit vectors (the cold build's method; deterministic, and it always
    gives ``parts`` groups, duplicate vectors or not); past :data:`WARD_MAX` atoms, k-means (seeded).

    Args:
        vectors: ``n × d`` float array, one row per atom (unit length as the embedder gives them).
        parts: how many groups (at least 2).

    Returns:
        ``parts`` sorted int arrays of row indices, each non-empty, together covering ``0..n-1`` once, ordered by
        their first row. Deterministic.

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
    # Imported here: every process that reads topics (the CLI, the MCP server) imports this module, and
    # scikit-learn costs ~1 s of CPU to import; only splitting needs it.
    from sklearn.cluster import AgglomerativeClustering, KMeans

    if rows <= WARD_MAX:
        return _by_label(AgglomerativeClustering(n_clusters=parts, linkage="ward").fit_predict(matrix))
    if np.unique(matrix, axis=0).shape[0] >= parts:
        labels = KMeans(n_clusters=parts, n_init=SPLIT_RESTARTS, random_state=SPLIT_SEED).fit_predict(matrix)
        groups = _by_label(labels)
        if len(groups) == parts:
            return groups
    # Fewer distinct vectors than parts: k-means would leave a group empty, so the rows are dealt out in order.
    return list(np.array_split(np.arange(rows), parts))


def _by_label(labels: np.ndarray) -> list[np.ndarray]:
    """Row indices per label, ordered by their first row."""
    return sorted((np.flatnonzero(labels == label) for label in np.unique(labels)), key=lambda g: int(g[0]))


def bounded_groups(vectors: np.ndarray, rows: np.ndarray, most: int) -> list[np.ndarray]:
    """``rows`` (indices into ``vectors``) cut by :func:`split_members` until no group holds more than ``most``."""
    pending, done = [rows], []
    while pending:
        group = pending.pop()
        if len(group) <= most:
            done.append(group)
            continue
        parts = max(2, math.ceil(len(group) / most))
        pending.extend(group[part] for part in split_members(vectors[group], parts))
    return sorted(done, key=lambda group: int(group.min()))


def like_groups(vectors: np.ndarray, count: int) -> list[np.ndarray]:
    """Rows of ``vectors`` in ``count`` groups of like meaning (Ward; k-means chunks first past WARD_MAX)."""
    rows = len(vectors)
    if count <= 1 or rows <= 1:
        return [np.arange(rows)]
    count = min(count, rows)
    if rows > WARD_MAX:
        chunks = bounded_groups(vectors, np.arange(rows), WARD_MAX)
        out = []
        for chunk in chunks:
            share = max(1, round(count * len(chunk) / rows))
            out.extend(chunk[group] for group in like_groups(vectors[chunk], share))
        return sorted(out, key=lambda group: int(group.min()))
    return split_members(vectors, count)


def distinct_parts(vectors: np.ndarray, rows: np.ndarray) -> list[np.ndarray]:
    """``rows`` cut in two by :func:`split_members` while both halves hold at least :data:`DISTINCT_PART` atoms
    and their centroids' cosine is under :data:`DISTINCT_COSINE`, recursively; ``[rows]`` when they are not."""
    if len(rows) < 2 * DISTINCT_PART:
        return [rows]
    halves = [rows[half] for half in split_members(vectors[rows], 2)]
    if min(len(half) for half in halves) < DISTINCT_PART \
            or float(unit_centroid(vectors[halves[0]]) @ unit_centroid(vectors[halves[1]])) >= DISTINCT_COSINE:
        return [rows]
    return sorted((part for half in halves for part in distinct_parts(vectors, half)), key=lambda g: int(g.min()))


def unit_vector(vector: np.ndarray) -> np.ndarray:
    norm = float(np.linalg.norm(vector))
    return (vector / norm if norm > 0 else vector).astype(np.float32)


def unit_centroid(vectors: np.ndarray) -> np.ndarray:
    """The unit mean of ``vectors`` (rows)."""
    return unit_vector(vectors.astype(np.float64).mean(axis=0))
