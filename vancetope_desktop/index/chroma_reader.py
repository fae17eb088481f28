"""Nearest-neighbour queries on the Chroma store through Chroma's Rust engine, without the ``chromadb`` package.

``import chromadb`` cost 0.4-0.6 s of CPU, a third of a cold ``vancetope memory search``: the package loads its
telemetry (OpenTelemetry with its gRPC exporter), HTTP clients, an async client and a registry of embedding
functions for every vendor. The vectors are stored and searched by the compiled ``chromadb_rust_bindings``
module (10 ms to import), which ``chromadb.PersistentClient`` drives. :class:`ChromaReader` opens that engine
as the client does (Chroma 1.x ``chromadb/api/rust.py``, ``RustBindingsAPI.start``: migrations applied, MD5
migration hashes, an HNSW cache of a fifth of the file-handle limit) and asks the query the client asks
(``Collection.query`` → ``RustBindingsAPI._query``), so the hits and distances are the client's.

Queries, counts and the list of collections (``vancetope index status`` checks the store by it) only: every write,
and every other read, goes through the client (``vector_store.VectorStore``),
which also answers whenever this reader cannot be opened (another Chroma release's bindings included).
``tests/index/test_chroma_reader.py`` checks that both answer the same.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

TENANT = "default_tenant"
DATABASE = "default_database"
"""Chroma's default tenant and database (``chromadb.config.DEFAULT_TENANT`` / ``DEFAULT_DATABASE``), where
``PersistentClient`` keeps its collections."""


def _file_handle_limit() -> int:
    """The process's open-file limit, as Chroma reads it to size its HNSW cache."""
    if sys.platform == "win32":
        import ctypes

        return int(ctypes.windll.msvcrt._getmaxstdio())  # type: ignore[attr-defined]
    import resource

    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class ChromaReader:
    """Read-only queries and counts on the persistent Chroma store in ``root`` (the library's ``chroma/``).

    Opening lists the collections once; a collection created afterwards (by another process) is seen by a new
    reader (``VectorStore`` opens one when the index generation moves).

    Raises:
        Exception: whatever Chroma's engine raises when the store cannot be opened (``VectorStore`` falls back
            to the client then, which reports it as ``IndexUnavailable``).
    """

    def __init__(self, root: Path) -> None:
        import chromadb_rust_bindings as engine  # ships in the chromadb wheel: the engine alone

        root.mkdir(parents=True, exist_ok=True)
        config = engine.SqliteDBConfig(hash_type=engine.MigrationHash.MD5, migration_mode=engine.MigrationMode.Apply,
                                       url=str(root / "chroma.sqlite3"))
        self._bindings: Any = engine.Bindings(allow_reset=False, sqlite_db_config=config, persist_path=str(root),
                                              hnsw_cache_size=_file_handle_limit() // 5)
        listed = self._bindings.list_collections(None, None, TENANT, DATABASE)
        self._ids = {c.name: str(c.id) for c in listed}
        self._metadata = {c.name: dict(c.metadata or {}) for c in listed}

    def query(self, name: str, embedding: np.ndarray, limit: int,
              document_ids: Sequence[str] | None = None) -> tuple[list[str], list[float]]:
        """``(chunk ids, cosine distances)`` of the ``limit`` nearest vectors of collection ``name``, nearest first
        (empty when it does not exist).

        Args:
            embedding: the query vector, shape ``(1, dim)`` float32.
            document_ids: when given, only vectors whose ``doc_id`` metadata is one of them (Chroma's ``$in``).
        """
        if name not in self._ids:
            return [], []
        where = None if document_ids is None else json.dumps({"doc_id": {"$in": list(document_ids)}})
        found = self._bindings.query(self._ids[name], None, embedding, limit, where, None, ["distances"],
                                     TENANT, DATABASE)
        return list(found.ids[0]), [float(d) for d in found.distances[0]]

    def count(self, name: str) -> int:
        """The number of vectors in collection ``name`` (0 when it does not exist)."""
        return int(self._bindings.count(self._ids[name], TENANT, DATABASE)) if name in self._ids else 0

    def collections(self) -> list[tuple[str, dict[str, Any], int]]:
        """``(name, metadata, vector count)`` of every collection, in the order the client lists them."""
        return [(name, dict(self._metadata[name]), self.count(name)) for name in self._ids]

    def close(self) -> None:
        """Let the engine go (its SQLite connections and cached indexes)."""
        self._bindings = None
        self._ids, self._metadata = {}, {}
