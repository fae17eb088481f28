"""Shared fixtures: where the real corpus lives, temporary libraries, the real bundled model."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Qt must never try to reach a display in tests, whether pytest runs from dev.py or by hand.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("VANCETOPE_SHARED", REPO.parent / "shared"))


def _need(path: Path, what: str) -> Path:
    """Return ``path`` if it exists; otherwise fail under CI (CI=true) and skip elsewhere."""
    if path.exists():
        return path
    reason = f"{what} not found at {path} (set VANCETOPE_SHARED to the folder holding corpus/ and eval/)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The real input files: ``../shared/corpus`` (papers/, pdf-edge/, notes/, refs/, data/)."""
    return _need(SHARED / "corpus", "the shared corpus")


@pytest.fixture(scope="session")
def scifact() -> Path:
    """The SciFact benchmark in BEIR format: ``../shared/eval/scifact``."""
    return _need(SHARED / "eval" / "scifact", "the SciFact benchmark")


@pytest.fixture
def library(tmp_path):
    """A fresh library in a temporary folder (real SQLite, real Chroma, the bundled model)."""
    from vancetope_desktop.services.library import Library

    lib = Library.open(tmp_path / "library")
    yield lib
    lib.close()
