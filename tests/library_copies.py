"""Build a library once, give each test its own copy: the embedding is paid once per module, not per test.

A library is one folder (``library.sqlite``, ``chroma/``, ``files/``, ``settings.json``, ``locks/``) with
paths relative to its root, and the app itself copies its vector store as a folder (``VectorStore.back_up``):
a closed library copied with ``shutil.copytree`` opens as the same library, with the same documents,
chunks, vectors and ids. Measured on the shared 2-core machine at load ~13 (one pytest process): building and
embedding the six notes of ``tests/services/test_search.py`` took 4-11 s per test, copying and opening the
built library 0.1-0.5 s.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import pytest

from vancetope_desktop.services.library import Library

T = TypeVar("T")


def build_template(tmp_path_factory: pytest.TempPathFactory, fill: Callable[[Library], T]) -> tuple[Path, T]:
    """Open a new library, ``fill(library)`` it (adding and indexing what the tests share), and close it.

    Returns:
        (the closed library's folder, what ``fill`` returned: usually the ids the tests look for).
    """
    root = tmp_path_factory.mktemp("template") / "library"
    with Library.open(root) as library:
        made = fill(library)
    return root, made


@contextmanager
def copied_library(template: Path, destination: Path) -> Iterator[Library]:
    """Copy the closed library folder ``template`` to ``destination`` (which must not exist) and open the copy;
    it is closed on leaving. Each test writes to its own copy only: tests never see each other's changes."""
    shutil.copytree(template, destination)
    with Library.open(destination) as library:
        yield library
