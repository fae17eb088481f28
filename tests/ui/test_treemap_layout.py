"""The topic map's layout (issue 14), as plain arithmetic: areas proportional to the weights, inside the bounds,
no overlaps, tiles close to squares, nested levels inside their parent's tile below its label."""

from __future__ import annotations

import itertools
import random

import pytest

from vancetope_desktop.ui.treemap_layout import Rect, nested_tiles, squarify, tile_at

BOUNDS = Rect(10.0, 20.0, 600.0, 400.0)
EPS = 1e-6


def _overlap(a: Rect, b: Rect) -> float:
    w = min(a.x + a.w, b.x + b.w) - max(a.x, b.x)
    h = min(a.y + a.h, b.y + b.h) - max(a.y, b.y)
    return w * h if w > 0 and h > 0 else 0.0


def _inside(inner: Rect, outer: Rect) -> bool:
    return (inner.x >= outer.x - EPS and inner.y >= outer.y - EPS and inner.x + inner.w <= outer.x + outer.w + EPS
            and inner.y + inner.h <= outer.y + outer.h + EPS)


@pytest.mark.parametrize("weights", [[6, 6, 4, 3, 2, 2, 1], [1], [5, 1], [1, 1, 1, 1], [100, 1, 1, 1],
                                     [3, 0, 2, 7, 0]])
def test_areas_are_proportional_inside_the_bounds_and_do_not_overlap(weights):
    tiles = squarify(weights, BOUNDS)
    assert len(tiles) == len(weights)
    total = sum(weights)
    for weight, tile in zip(weights, tiles, strict=True):
        assert tile.area == pytest.approx(BOUNDS.area * weight / total, rel=1e-9, abs=1e-6)
        assert _inside(tile, BOUNDS)
    for a, b in itertools.combinations(tiles, 2):
        assert _overlap(a, b) == pytest.approx(0.0, abs=1e-6)
    assert sum(t.area for t in tiles) == pytest.approx(BOUNDS.area)  # filled: no gap


def test_random_weights_fill_the_bounds_exactly_with_near_square_tiles():
    rng = random.Random(14)
    for _ in range(50):
        weights = [rng.randint(1, 60) for _ in range(rng.randint(1, 30))]
        tiles = squarify(weights, BOUNDS)
        assert sum(t.area for t in tiles) == pytest.approx(BOUNDS.area)
        assert all(_inside(t, BOUNDS) for t in tiles)
        assert sum(_overlap(a, b) for a, b in itertools.combinations(tiles, 2)) == pytest.approx(0.0, abs=1e-6)
    # The squarified rows keep the paper's example close to squares (a slice layout of these weights would
    # give strips 600 wide and at most 100 high: ratios of 6 and more).
    ratios = [max(t.w / t.h, t.h / t.w) for t in squarify([6, 6, 4, 3, 2, 2, 1], Rect(0, 0, 600, 400))]
    assert max(ratios) < 3


def test_nothing_to_show_gives_empty_tiles():
    assert squarify([], BOUNDS) == []
    assert all(t.area == 0 for t in squarify([0, 0], BOUNDS))
    assert all(t.area == 0 for t in squarify([2, 3], Rect(0, 0, 0, 100)))


def test_nested_tiles_lie_in_their_parents_inner_rectangle_below_the_label_band():
    children = {"root": ["a", "b", "c"], "a": ["a1", "a2"], "b": ["b1"], "a1": ["deep"]}
    weights = {"a": 30, "b": 10, "c": 5, "a1": 20, "a2": 10, "b1": 10, "deep": 20, "empty": 0}
    tiles = nested_tiles("root", children, weights, BOUNDS, levels=2, margin=3, band=18)
    by_key = {t.key: t for t in tiles}
    assert set(by_key) == {"a", "b", "c", "a1", "a2", "b1"}  # two levels: "deep" is not drawn
    assert [t.depth for t in tiles].index(2) > 0 and by_key["a"].depth == 1 and by_key["a1"].depth == 2
    assert tiles.index(by_key["a"]) < tiles.index(by_key["a1"])  # parents first: painted under their children
    a = by_key["a"]
    assert a.inner == Rect(a.rect.x + 3, a.rect.y + 18, a.rect.w - 6, a.rect.h - 21)
    for key in ("a1", "a2"):
        assert _inside(by_key[key].rect, a.inner)
    assert by_key["a1"].rect.area == pytest.approx(2 * by_key["a2"].rect.area)
    assert by_key["c"].inner is None and by_key["a1"].inner is None  # a leaf; the last level
    assert by_key["a"].rect.area == pytest.approx(BOUNDS.area * 30 / 45)


def test_a_tile_too_small_for_its_children_shows_none_and_the_point_finds_the_deepest_tile():
    children = {"root": ["big", "small"], "big": ["x"], "small": ["y"]}
    weights = {"big": 1000, "small": 1, "x": 1, "y": 1}
    tiles = nested_tiles("root", children, weights, BOUNDS, smallest=24)
    by_key = {t.key: t for t in tiles}
    assert by_key["small"].inner is None and "y" not in by_key
    x = by_key["x"].rect
    assert [t.key for t in tile_at(tiles, x.x + 1, x.y + 1)] == ["big", "x"]
    assert tile_at(tiles, BOUNDS.x - 1, BOUNDS.y) == []
