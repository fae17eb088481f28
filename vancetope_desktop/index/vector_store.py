"""The vector store: Chroma, one persistent collection per scope (seed §5.2).

Every collection records the embedding model's name and dimension in its metadata, so vectors of
two models are never mixed. Collection names are derived from scope paths by :func:`collection_name`.

Other processes may write to the same store. Chroma caches its index in memory and does not see
those writes, so the store watches the library's *index generation* (a counter the writer bumps
in SQLite after each batch) and reopens its client when it moved. All operations run under the
cross-process ``chroma.lock`` (see ``index/locks.py``).
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import threading
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .locks import file_lock

_SLUG_UNSAFE = re.compile(r"[^a-zA-Z0-9]+")


def collection_name(scope_path: str) -> str:
    """A valid, collision-free Chroma collection name for any scope path.

    Chroma accepts 3–512 characters of ``[a-zA-Z0-9._-]`` starting and ending alphanumeric. The name
    is a readable ASCII slug (accents stripped, at most 40 characters) plus the first 16 hex digits
    of the path's SHA-256, so ``project/AI``, ``project/Über Attention (2023)``, ``project/日本語``
    and an 80-character id all map to distinct valid names.
    """
    ascii_form = unicodedata.normalize("NFKD", scope_path).encode("ascii", "ignore").decode()
    slug = _SLUG_UNSAFE.sub("-", ascii_form).strip("-")[:40].strip("-") or "scope"
    digest = hashlib.sha256(scope_path.encode("utf-8")).hexdigest()[:16]
    return f"s-{slug}-{digest}"


@dataclass(frozen=True)
class VectorHit:
    """One nearest chunk: its Chroma id (``doc_id:ordinal``), document id and cosine similarity in [-1, 1]."""

    chunk_id: str
    document_id: str
    similarity: float


@dataclass(frozen=True)
class CollectionInfo:
    """What a scope's collection holds: model name, dimension and number of vectors."""

    scope: str
    name: str
    model: str | None
    dimension: int | None
    count: int


class VectorStore:
    """Per-scope Chroma collections under ``root``, safe to share between processes.

    Args:
        root: the Chroma persistence folder (the library's ``chroma/``).
        lock_path: the cross-process lock file.
        generation: returns the library's current index generation (read from SQLite).
    """

    def __init__(self, root: Path, lock_path: Path, generation: Callable[[], int]) -> None:
        self.root = root
        self._lock_path = lock_path
        self._generation = generation
        self._client: Any = None
        self._seen_generation: int | None = None
        self._mutex = threading.RLock()
        self._handles: dict[str, Any] = {}  # collection name → handle, valid until the client reopens

    # -- client lifecycle ------------------------------------------------------------------
    def _open(self) -> Any:
        import chromadb  # deferred: importing chromadb costs ~0.5 s, not needed by every command
        from chromadb.config import Settings as ChromaSettings

        self.root.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(
            path=str(self.root),
            settings=ChromaSettings(anonymized_telemetry=False, allow_reset=False),
        )

    def _drop_cached_system(self) -> None:
        from chromadb.api.client import SharedSystemClient

        # Chroma shares one System per path inside a process; drop ours so the next client reloads.
        SharedSystemClient._identifier_to_system.pop(str(self.root), None)
        SharedSystemClient._identifier_to_refcount.pop(str(self.root), None)

    def _client_for_read(self) -> Any:
        current = self._generation()
        if self._client is None or current != self._seen_generation:
            if self._client is not None:
                self._drop_cached_system()
            self._client = self._open()
            self._seen_generation = current
            self._handles.clear()
        return self._client

    def mark_written(self, generation: int) -> None:
        """Tell the store that ``generation`` includes this process's own writes (no reload needed)."""
        with self._mutex:
            self._seen_generation = generation

    def _collection(self, scope: str, *, create: bool = False, model: str | None = None,
                    dimension: int | None = None) -> Any:
        client = self._client_for_read()
        name = collection_name(scope)
        if create:
            return client.get_or_create_collection(
                name, embedding_function=None,
                metadata={"hnsw:space": "cosine", "scope": scope, "model": model or "", "dimension": dimension or 0},
            )
        handle = self._handles.get(name)
        if handle is None:
            try:
                handle = client.get_collection(name, embedding_function=None)
            except Exception:  # chromadb raises NotFoundError / ValueError depending on version
                return None
            self._handles[name] = handle
        return handle

    # -- writes ------------------------------------------------------------------------------
    def upsert(self, scope: str, model: str, ids: Sequence[str], embeddings: np.ndarray,
               metadatas: Sequence[dict[str, Any]]) -> None:
        """Insert or replace vectors in ``scope``'s collection (created on first use for ``model``).

        Raises:
            ValueError: the collection was made by another model or dimension (never mix vectors).
        """
        if not ids:
            return
        with self._mutex, file_lock(self._lock_path, shared=False):
            collection = self._collection(scope, create=True, model=model, dimension=int(embeddings.shape[1]))
            recorded = collection.metadata or {}
            if recorded.get("model") not in ("", model) or recorded.get("dimension") not in (0, embeddings.shape[1]):
                raise ValueError(
                    f"collection of {scope} holds vectors of {recorded.get('model')} "
                    f"({recorded.get('dimension')} dims), not {model}"
                )
            clean = [{k: v for k, v in m.items() if v is not None and v != []} for m in metadatas]
            vectors = embeddings.astype(np.float32)
            step = self._max_batch()
            for start in range(0, len(ids), step):  # Chroma refuses a single call above its batch limit
                collection.upsert(ids=list(ids[start : start + step]), embeddings=vectors[start : start + step],
                                  metadatas=clean[start : start + step])

    def _max_batch(self) -> int:
        try:
            return max(1, int(self._client.get_max_batch_size()))
        except Exception:  # older clients: Chroma's SQLite limit
            return 5000

    def delete_document(self, scope: str, document_id: str) -> None:
        """Remove every vector of a document from ``scope``'s collection (no error if there are none)."""
        self.delete_documents(scope, [document_id])

    def delete_documents(self, scope: str, document_ids: Sequence[str]) -> None:
        """Remove every vector of these documents from ``scope``'s collection, in one Chroma call."""
        if not document_ids:
            return
        with self._mutex, file_lock(self._lock_path, shared=False):
            collection = self._collection(scope)
            if collection is None:
                return
            ids = list(dict.fromkeys(document_ids))
            where = {"doc_id": ids[0]} if len(ids) == 1 else {"doc_id": {"$in": ids}}
            collection.delete(where=where)

    def update_metadata(self, scope: str, document_id: str, changes: dict[str, Any]) -> None:
        """Merge ``changes`` (e.g. new tags) into the metadata of a document's vectors."""
        with self._mutex, file_lock(self._lock_path, shared=False):
            collection = self._collection(scope)
            if collection is None:
                return
            found = collection.get(where={"doc_id": document_id}, include=["metadatas"])
            if not found["ids"]:
                return
            metadatas = [{**m, **changes} for m in found["metadatas"]]
            metadatas = [{k: v for k, v in m.items() if v is not None and v != []} for m in metadatas]
            collection.update(ids=found["ids"], metadatas=metadatas)

    def drop_collection(self, scope: str) -> None:
        """Delete ``scope``'s whole collection (used by a re-index with another model)."""
        with self._mutex, file_lock(self._lock_path, shared=False):
            client = self._client_for_read()
            self._handles.pop(collection_name(scope), None)
            with contextlib.suppress(Exception):  # a missing collection: nothing to drop
                client.delete_collection(collection_name(scope))

    # -- reads -------------------------------------------------------------------------------
    def document_vectors(self, scope: str, document_id: str) -> tuple[list[str], np.ndarray, list[dict[str, Any]]]:
        """``(ids, embeddings (n, dim) float32, metadatas)`` of one document in ``scope``; empty if none."""
        with self._mutex, file_lock(self._lock_path, shared=True):
            collection = self._collection(scope)
            if collection is None:
                return [], np.zeros((0, 0), np.float32), []
            found = collection.get(where={"doc_id": document_id}, include=["embeddings", "metadatas"])
            if not found["ids"]:
                return [], np.zeros((0, 0), np.float32), []
            return list(found["ids"]), np.asarray(found["embeddings"], np.float32), list(found["metadatas"])

    def query(self, scope: str, embedding: np.ndarray, limit: int,
              document_ids: Sequence[str] | None = None) -> list[VectorHit]:
        """The ``limit`` chunks of ``scope`` nearest to ``embedding`` (cosine), best first.

        Args:
            document_ids: when given, only chunks of these documents are considered.

        Only ids and distances are fetched: the document id is the chunk id's part before the last
        ``:`` (ids are ``doc_id:ordinal``), and reading the metadata back tripled a query's time.
        Chroma returns fewer than ``limit`` hits from a smaller collection, none from an empty one.
        """
        if document_ids is not None and not document_ids:
            return []
        with self._mutex, file_lock(self._lock_path, shared=True):
            collection = self._collection(scope)
            if collection is None:
                return []
            where = None if document_ids is None else {"doc_id": {"$in": list(document_ids)}}
            result = collection.query(
                query_embeddings=embedding.reshape(1, -1).astype(np.float32),
                n_results=limit, where=where, include=["distances"],
            )
        return [
            VectorHit(chunk_id, chunk_id.rsplit(":", 1)[0], 1.0 - float(distance))
            for chunk_id, distance in zip(result["ids"][0], result["distances"][0], strict=True)
        ]

    def collections(self) -> list[CollectionInfo]:
        """Every scope collection with its recorded model, dimension and vector count."""
        with self._mutex, file_lock(self._lock_path, shared=True):
            client = self._client_for_read()
            infos = []
            for collection in client.list_collections():
                if isinstance(collection, str):
                    collection = client.get_collection(collection, embedding_function=None)
                meta = collection.metadata or {}
                infos.append(CollectionInfo(
                    scope=meta.get("scope", ""), name=collection.name, model=meta.get("model") or None,
                    dimension=meta.get("dimension") or None, count=collection.count(),
                ))
            return infos
