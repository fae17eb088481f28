"""Helpers shared by the benchmark scripts: where the shared data lives, timers, percentiles, tables.

Not a test module: the scripts import it as ``_common`` (they run with ``tests/benchmarks`` on
``sys.path``), and ``conftest.py`` here keeps pytest away from this folder.
"""

from __future__ import annotations

import gzip
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("VANCETOPE_SHARED", REPO.parent / "shared"))
CORPUS = SHARED / "corpus"
SCIFACT = SHARED / "eval" / "scifact"

if str(REPO) not in sys.path:  # running from a checkout without the editable install
    sys.path.insert(0, str(REPO))


def need(path: Path, what: str) -> Path:
    """``path`` if it exists, else exit with a one-line reason (benchmarks need the real data)."""
    if not path.exists():
        sys.exit(f"{what} not found at {path} (set VANCETOPE_SHARED to the folder holding corpus/ and eval/)")
    return path


class PhaseTimer:
    """Accumulates wall time per named phase; :meth:`wrap` times every call of a function."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.calls: dict[str, int] = {}

    def add(self, name: str, seconds: float) -> None:
        """Add ``seconds`` (and one call) to phase ``name``."""
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds
        self.calls[name] = self.calls.get(name, 0) + 1

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        """Time the ``with`` block into phase ``name``."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - start)

    def wrap(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        """``function`` timed into phase ``name`` on every call."""

        def timed(*args: Any, **kwargs: Any) -> Any:
            with self.phase(name):
                return function(*args, **kwargs)

        return timed


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of ``values``, linear interpolation between closest ranks."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def median(values: Sequence[float]) -> float:
    """The median of ``values``."""
    return statistics.median(values)


def table(title: str, header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A compact fixed-width text table (numbers formatted by the caller)."""
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = [title, "  ".join(h.ljust(w) for h, w in zip(cells[0], widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in cells[1:]]
    return "\n".join(lines)


def scifact_corpus() -> list[dict[str, Any]]:
    """The SciFact abstracts (BEIR ``corpus.jsonl.gz``), in file order."""
    path = need(SCIFACT / "corpus.jsonl.gz", "the SciFact corpus")
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def scifact_queries(split: str) -> dict[str, str]:
    """SciFact claims of ``split`` (train or test): query id → text."""
    out = {}
    with open(need(SCIFACT / "queries.jsonl", "the SciFact queries"), encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                query = json.loads(line)
                if query["metadata"]["split"] == split:
                    out[str(query["_id"])] = query["text"]
    return out


def scifact_qrels(split: str) -> dict[str, dict[str, int]]:
    """SciFact judgements of ``split``: query id → {corpus id → relevance}."""
    qrels: dict[str, dict[str, int]] = {}
    with open(need(SCIFACT / "qrels" / f"{split}.tsv", "the SciFact qrels"), encoding="utf-8") as handle:
        next(handle)
        for line in handle:
            parts = line.split()
            if len(parts) == 3:
                qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    return qrels
