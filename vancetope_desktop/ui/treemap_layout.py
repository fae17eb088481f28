"""The topic map's geometry (issue 14): a squarified treemap, as plain arithmetic (no Qt), so it is tested alone.

:func:`squarify` splits a rectangle into one tile per weight, each tile's area proportional to its weight, in rows
whose tiles stay close to squares (Bruls, Huizing and van Wijk, "Squarified Treemaps", 2000: lay the weights out
largest first; add the next one to the current row while that does not make the row's worst aspect ratio
worse, else start a new row in what is left). :func:`nested_tiles` applies it to a tree a few levels deep, each
parent's tile inset by a margin and a band for its label; :func:`tile_at` finds the tile under a point.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle: top-left corner (``x``, ``y``) and size (``w``, ``h``), in any unit (pixels here)."""

    x: float
    y: float
    w: float
    h: float

    @property
    def area(self) -> float:
        """``w × h``."""
        return self.w * self.h

    def contains(self, px: float, py: float) -> bool:
        """Whether the point (``px``, ``py``) lies inside (the right and bottom edges excluded)."""
        return self.x <= px < self.x + self.w and self.y <= py < self.y + self.h

    def inset(self, left: float, top: float, right: float, bottom: float) -> Rect | None:
        """The rectangle shrunk by these margins, or None when nothing is left of it."""
        w, h = self.w - left - right, self.h - top - bottom
        return Rect(self.x + left, self.y + top, w, h) if w > 0 and h > 0 else None


def squarify(weights: Sequence[float], bounds: Rect) -> list[Rect]:
    """Tiles filling ``bounds``, one per weight, each tile's area ``bounds.area × weight / sum(weights)``.

    Args:
        weights: non-negative numbers (atom counts); a weight of 0 or less gets an empty tile (``w = h = 0``
            at ``bounds``' corner): it has nothing to show.
        bounds: the rectangle to fill.

    Returns:
        One :class:`Rect` per weight, in the order of ``weights`` (the layout itself goes largest first). The
        tiles do not overlap and lie inside ``bounds``; with every weight 0 (or none) all tiles are empty.
    """
    empty = Rect(bounds.x, bounds.y, 0.0, 0.0)
    tiles = [empty] * len(weights)
    order = sorted((i for i, w in enumerate(weights) if w > 0), key=lambda i: -weights[i])
    total = sum(weights[i] for i in order)
    if not order or bounds.area <= 0:
        return tiles
    scale = bounds.area / total
    areas = [weights[i] * scale for i in order]
    x, y, w, h = bounds.x, bounds.y, bounds.w, bounds.h
    start = 0
    while start < len(order):
        side = min(w, h)
        end = start + 1
        while end < len(order) and _worst(areas[start:end + 1], side) <= _worst(areas[start:end], side):
            end += 1
        row = areas[start:end]
        last_row = end == len(order)
        thickness = sum(row) / side
        if w >= h:  # a column on the left, tiles stacked downward
            thickness = w if last_row else min(thickness, w)
            _stack(row, order[start:end], tiles, x, y, h, thickness, across=False)
            x, w = x + thickness, w - thickness
        else:  # a row along the top, tiles side by side
            thickness = h if last_row else min(thickness, h)
            _stack(row, order[start:end], tiles, x, y, w, thickness, across=True)
            y, h = y + thickness, h - thickness
        start = end
    return tiles


def _worst(row: Sequence[float], side: float) -> float:
    """The largest aspect ratio (≥ 1) of ``row``'s tiles laid along a side of length ``side``."""
    total = sum(row)
    return max(max(row) * side * side / (total * total), total * total / (side * side * min(row)))


def _stack(row: Sequence[float], keys: Sequence[int], tiles: list[Rect], x: float, y: float, length: float,
           thickness: float, *, across: bool) -> None:
    """Place ``row``'s areas one after the other along a strip ``length`` long and ``thickness`` thick; the last
    tile ends exactly at the strip's end (no gap or overlap from rounding)."""
    total, at = sum(row), 0.0
    for n, (area, key) in enumerate(zip(row, keys, strict=True)):
        size = length - at if n == len(row) - 1 else length * area / total
        tiles[key] = Rect(x + at, y, size, thickness) if across else Rect(x, y + at, thickness, size)
        at += size


@dataclass(frozen=True)
class Tile:
    """One node's tile in a nested treemap.

    Attributes:
        key: the node (a topic id). depth: 1 for the children of the node laid out, 2 for theirs…
        rect: where it is drawn. inner: where its own children were laid out (inside ``rect``, below its label
            band); None when they were not (a leaf, the last level, or too small).
    """

    key: str
    depth: int
    rect: Rect
    inner: Rect | None = None


def nested_tiles(root: str, children: Mapping[str, Sequence[str]], weights: Mapping[str, float], bounds: Rect, *,
                 levels: int = 2, margin: float = 3.0, band: float = 18.0, smallest: float = 24.0) -> list[Tile]:
    """A treemap of ``root``'s subtree: its children fill ``bounds``, and each child's children fill its tile (down
    to ``levels`` levels) below a ``band`` left for its label.

    Args:
        root: the node whose children are laid out. children: node → its children (a node missing: a leaf).
        weights: node → its area's weight (a subtree's atom count); a missing node or 0 gets no tile.
        bounds: the rectangle to fill.
        levels: how many levels to draw (1: the children only).
        margin: the gap kept between a parent's edge and its children's tiles (pixels).
        band: the height kept at a parent's top for its label (pixels).
        smallest: a tile narrower or lower than this (after margins) shows no children (too small to read).

    Returns:
        Parents before their children (the order to paint them in), tiles of weight 0 left out. At each level the
        tiles of one parent do not overlap and lie inside its ``inner`` rectangle (``bounds`` for the first).
    """
    found: list[Tile] = []

    def lay(node: str, area: Rect, depth: int) -> None:
        keys = [k for k in children.get(node, ()) if weights.get(k, 0) > 0]
        for key, rect in zip(keys, squarify([weights[k] for k in keys], area), strict=True):
            inner = None
            if depth < levels and children.get(key):
                inner = rect.inset(margin, band, margin, margin)
                if inner is not None and min(inner.w, inner.h) < smallest:
                    inner = None
            found.append(Tile(key, depth, rect, inner))
            if inner is not None:
                lay(key, inner, depth + 1)

    lay(root, bounds, 1)
    return found


def tile_at(tiles: Sequence[Tile], px: float, py: float) -> list[Tile]:
    """The tiles under the point (``px``, ``py``), outermost first ([] when none): the first is the child of the
    laid-out root, the last the deepest one drawn there."""
    return sorted((t for t in tiles if t.rect.contains(px, py)), key=lambda t: t.depth)
