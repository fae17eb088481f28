"""The vector store: Chroma, one persistent collection per scope (seed §5.2).

Every collection records the embedding model's name and dimension in its metadata, so vectors of
two models are never mixed. Collection names are derived from scope paths by :func:`collection_name`.

Other processes may write to the same store. Chroma caches its index in memory and does not see
those writes, so the store watches the library's *index generation* (a counter the writer bumps
in SQLite after each batch) and reopens its client when it moved. All operations run under the
cross-process ``chroma.lock`` (see ``index/locks.py``).

A store that cannot be opened or read (a truncated ``chroma.sqlite3``, lost segment files) raises
:class:`IndexUnavailable`, never Chroma's own errors: search then answers by keywords, and
:meth:`VectorStore.reset` (``services.indexing.rebuild``) moves it aside so it can be rebuilt from SQLite.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import re
import shutil
import threading
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ..core.errors import IndexUnavailable
from ..store.backups import copy_folder
from .chroma_reader import ChromaReader
from .locks import file_lock

logger = logging.getLogger(__name__)

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


OWNER_KEY = "library"
"""Collection metadata: the id of the team library whose collection it is (``ServerVectorStore``'s owner)."""


def foreign(meta: dict[str, Any] | None, owner: str | None) -> bool:
    """Whether a collection with metadata ``meta`` belongs to another library than ``owner``: it records another id, or
    it records none while ``owner`` is None (a library not made yet, whose store must be empty). A collection without
    a record under an owner is taken as the owner's: one made before owners were recorded (3 Dec 2026)."""
    recorded = (meta or {}).get(OWNER_KEY)
    return recorded != owner if recorded is not None else owner is None


@functools.cache
def installed_chroma_version() -> str:
    """The version of the Chroma package installed (read from its metadata: importing chromadb costs ~0.5 s), read
    once per process: every library open asks, and parsing the metadata cost ~2 ms of CPU each time."""
    return metadata.version("chromadb")


def may_migrate(recorded: str | None, installed: str) -> bool:
    """True when Chroma ``installed`` may migrate a store written by Chroma ``recorded`` (None: unknown, e.g.
    a library from before versions were recorded): an older or unknown release. A newer one is not
    migrated down; Chroma refuses such a store by itself, and search then says the store is unavailable."""
    return recorded is None or _release(recorded) < _release(installed)


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])


_Result = TypeVar("_Result")


def _attempted(method: Callable[..., _Result]) -> Callable[..., _Result]:
    """A public operation of the store, run through :meth:`VectorStore._attempt` (once for the embedded store; the
    server's store retries it when the server does not answer: every operation is idempotent)."""

    @functools.wraps(method)
    def run(self: VectorStore, *args: Any, **kwargs: Any) -> _Result:
        return self._attempt(lambda: method(self, *args, **kwargs))

    return run


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

    :class:`~.chroma_server.ServerVectorStore` is the same store on a Chroma server (a team library).

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
        self._reader: ChromaReader | None = None  # queries while no client is open: see query_scopes
        self._reader_failed = False
        self._seen_generation: int | None = None
        self._mutex = threading.RLock()
        self._handles: dict[str, Any] = {}  # collection name → handle, valid until the client reopens
        # The library whose collections these are, recorded in each one it creates (a team library's id:
        # ``ServerVectorStore``; None for an embedded library, whose folder is its own).
        self.owner: str | None = None

    # -- client lifecycle ------------------------------------------------------------------
    def _lock(self, *, shared: bool) -> contextlib.AbstractContextManager[Any]:
        """The cross-process lock around one operation (``chroma.lock``: one engine writes the folder at a time)."""
        return file_lock(self._lock_path, shared=shared)

    def _attempt(self, operation: Callable[[], _Result]) -> _Result:
        """Run one public operation (see :func:`_attempted`): here once, as it is."""
        return operation()

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
            self._close()  # the reader too: one engine on the store per process at a time
            try:
                self._client = self._open()
            except Exception as error:
                self._drop_cached_system()  # Chroma keeps a half-made system per path: the next try starts anew
                raise IndexUnavailable(f"the vector store cannot be opened ({_first_line(error)}): "
                                       "rebuild the search index") from error
            self._seen_generation = current
        return self._client

    def close(self) -> None:
        """Let the Chroma client go; the next operation opens the store again (as it is on disk then)."""
        with self._mutex:
            self._close()

    def _close(self) -> None:
        if self._client is not None:
            self._drop_cached_system()
        if self._reader is not None:
            self._reader.close()
        self._client = None
        self._reader = None
        self._handles.clear()

    def _reader_for_query(self) -> ChromaReader | None:
        """For a search's reads (:meth:`query_scopes`, :meth:`counts`): the engine-only reader
        (:mod:`.chroma_reader`), opened or reopened at the current index generation; None when the client is open
        (it answers then) or the reader cannot be opened (the client will, or will say why not)."""
        if self._client is not None or self._reader_failed:
            return None
        current = self._generation()
        if self._reader is None or current != self._seen_generation:
            self._close()
            try:
                self._reader = ChromaReader(self.root)
            except Exception as error:  # e.g. another Chroma release's bindings: the client is the reference
                logger.info("querying the vector store through the chromadb client: %s", _first_line(error))
                self._reader_failed = True
                return None
            self._seen_generation = current
        return self._reader

    @contextlib.contextmanager
    def _readable(self) -> Iterator[None]:
        """Turn Chroma's failures while reading (a damaged file, a lost segment) into IndexUnavailable."""
        try:
            yield
        except IndexUnavailable:
            raise
        except Exception as error:
            self._close()
            failure = self._unreadable(error)
            if failure is error:
                raise
            raise failure from error

    def _unreadable(self, error: Exception) -> Exception:
        """What a failure while reading becomes (the server's store lets a transient one through as it is, to its
        retries)."""
        return IndexUnavailable(f"the vector store cannot be read ({_first_line(error)}): rebuild the search index")

    def mark_written(self, generation: int) -> None:
        """Tell the store that ``generation`` includes this process's own writes (no reload needed)."""
        with self._mutex:
            self._seen_generation = generation

    def _collection(self, scope: str, *, create: bool = False, model: str | None = None,
                    dimension: int | None = None, checked: bool = False) -> Any:
        """``scope``'s collection (None when it does not exist, unless ``create``); ``checked``: the caller
        has just brought the client up to the index generation (:meth:`_client_for_read`)."""
        client = self._client if checked and self._client is not None else self._client_for_read()
        name = collection_name(scope)
        if create:
            return client.get_or_create_collection(
                name, embedding_function=None,
                metadata={"hnsw:space": "cosine", "scope": scope, "model": model or "", "dimension": dimension or 0,
                          **({OWNER_KEY: self.owner} if self.owner else {})},
            )
        handle = self._handles.get(name)
        if handle is None:
            from chromadb.errors import NotFoundError

            try:
                handle = client.get_collection(name, embedding_function=None)
            except (NotFoundError, ValueError):  # no such collection (ValueError in older releases)
                return None
            self._handles[name] = handle
        return handle

    # -- writes ------------------------------------------------------------------------------
    @_attempted
    def upsert(self, scope: str, model: str, ids: Sequence[str], embeddings: np.ndarray,
               metadatas: Sequence[dict[str, Any]]) -> None:
        """Insert or replace vectors in ``scope``'s collection (created on first use for ``model``).

        Raises:
            ValueError: the collection was made by another model or dimension (never mix vectors).
            IndexUnavailable: the collection is another library's (:func:`foreign`): nothing is written.
        """
        if not ids:
            return
        with self._mutex, self._lock(shared=False):
            collection = self._collection(scope, create=True, model=model, dimension=int(embeddings.shape[1]))
            recorded = collection.metadata or {}
            self._refuse_foreign([collection])
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

    @_attempted
    def delete_documents(self, scope: str, document_ids: Sequence[str]) -> None:
        """Remove every vector of these documents from ``scope``'s collection, in one Chroma call."""
        if not document_ids:
            return
        with self._mutex, self._lock(shared=False):
            collection = self._collection(scope)
            if collection is None:
                return
            ids = list(dict.fromkeys(document_ids))
            where = {"doc_id": ids[0]} if len(ids) == 1 else {"doc_id": {"$in": ids}}
            collection.delete(where=where)

    @_attempted
    def update_metadata(self, scope: str, document_id: str, changes: dict[str, Any]) -> None:
        """Merge ``changes`` (e.g. new tags) into the metadata of a document's vectors."""
        with self._mutex, self._lock(shared=False):
            collection = self._collection(scope)
            if collection is None:
                return
            found = collection.get(where={"doc_id": document_id}, include=["metadatas"])
            if not found["ids"]:
                return
            metadatas = [{**m, **changes} for m in found["metadatas"]]
            metadatas = [{k: v for k, v in m.items() if v is not None and v != []} for m in metadatas]
            collection.update(ids=found["ids"], metadatas=metadatas)

    @_attempted
    def drop_collection(self, scope: str) -> None:
        """Delete ``scope``'s whole collection (used by a re-index with another model)."""
        with self._mutex, self._lock(shared=False):
            client = self._client_for_read()
            self._handles.pop(collection_name(scope), None)
            from chromadb.errors import NotFoundError

            with contextlib.suppress(NotFoundError, ValueError):  # a missing collection (ValueError in older releases)
                self._refuse_foreign([client.get_collection(collection_name(scope), embedding_function=None)])
                client.delete_collection(collection_name(scope))

    def _refuse_foreign(self, collections: Sequence[Any]) -> None:
        """Raise IndexUnavailable naming those of ``collections`` that are another library's (:func:`foreign`); a
        store without an owner (an embedded library's) checks nothing."""
        if self.owner is None:
            return
        names = [c.name for c in collections if foreign(c.metadata, self.owner)]
        if names:
            raise IndexUnavailable(
                f"the vector store holds another library's collections ({', '.join(names[:3])}"
                f"{', …' if len(names) > 3 else ''}): this library's vectors need a store of their own "
                "(a team library: a Chroma database of its own, `--chroma-database`); nothing was changed there")

    # -- reads -------------------------------------------------------------------------------
    @_attempted
    def document_vectors(self, scope: str, document_id: str) -> tuple[list[str], np.ndarray, list[dict[str, Any]]]:
        """``(ids, embeddings (n, dim) float32, metadatas)`` of one document in ``scope``; empty if none.

        Raises:
            IndexUnavailable: the store cannot be opened or read.
        """
        with self._mutex, self._lock(shared=True), self._readable():
            collection = self._collection(scope)
            if collection is None:
                return [], np.zeros((0, 0), np.float32), []
            return _vectors_of(collection.get(where={"doc_id": document_id}, include=["embeddings", "metadatas"]))

    @_attempted
    def vectors_page(self, scope: str, offset: int, limit: int) -> tuple[list[str], np.ndarray, list[dict[str, Any]]]:
        """``(ids, embeddings (n, dim) float32, metadatas)`` of at most ``limit`` vectors of ``scope``'s collection,
        from the ``offset``-th in the collection's own order (stable while nobody writes it): a whole collection read
        page by page (``services.library_copy``); empty past the end or when there is no collection.

        Raises:
            IndexUnavailable: the store cannot be opened or read.
        """
        with self._mutex, self._lock(shared=True), self._readable():
            collection = self._collection(scope)
            if collection is None:
                return [], np.zeros((0, 0), np.float32), []
            return _vectors_of(collection.get(offset=offset, limit=limit, include=["embeddings", "metadatas"]))

    @_attempted
    def chunk_vectors(self, scope: str, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of ``chunk_ids`` (``doc_id:ordinal``) in ``scope``'s collection, by chunk id; ids it
        does not hold are left out.

        Raises:
            IndexUnavailable: the store cannot be opened or read.
        """
        if not chunk_ids:
            return {}
        with self._mutex, self._lock(shared=True), self._readable():
            collection = self._collection(scope)
            if collection is None:
                return {}
            found = collection.get(ids=list(chunk_ids), include=["embeddings"])
        return {chunk_id: np.asarray(vector, np.float32)
                for chunk_id, vector in zip(found["ids"], found["embeddings"], strict=True)}

    def query(self, scope: str, embedding: np.ndarray, limit: int,
              document_ids: Sequence[str] | None = None) -> list[VectorHit]:
        """The ``limit`` chunks of ``scope`` nearest to ``embedding`` (cosine), best first.

        Args:
            document_ids: when given, only chunks of these documents are considered.

        Chroma returns fewer than ``limit`` hits from a smaller collection, none from an empty one.

        Raises:
            IndexUnavailable: the store cannot be opened or read.
        """
        return [hit for _, hit in self.query_scopes([(scope, document_ids)], embedding, limit)]

    @_attempted
    def query_scopes(self, requests: Sequence[tuple[str, Sequence[str] | None]], embedding: np.ndarray,
                     limit: int) -> list[tuple[str, VectorHit]]:
        """``(scope, hit)`` for the ``limit`` nearest chunks of each requested scope, scope by scope, best first.

        Args:
            requests: ``(scope, document_ids)`` pairs; ``document_ids`` None for the whole collection,
                else only chunks of these documents (an empty list asks for nothing).

        One lock and one look at the index generation for every scope (a search queries four
        collections). Only ids and distances are fetched: the document id is the chunk id's part
        before the last ``:`` (ids are ``doc_id:ordinal``), and reading the metadata back tripled a
        query's time. Until this process opens the Chroma client (to write, or for another read), the
        queries go through :class:`~.chroma_reader.ChromaReader`, Chroma's engine without the ``chromadb``
        package (the same answers; a cold CLI search does not pay the package's import).

        Raises:
            IndexUnavailable: the store cannot be opened or read.
        """
        wanted = [(scope, docs) for scope, docs in requests if docs is None or docs]
        if not wanted:
            return []
        query = embedding.reshape(1, -1).astype(np.float32)
        results: list[tuple[str, list[str], list[float]]] = []
        with self._mutex, self._lock(shared=True), self._readable():
            reader = self._reader_for_query()  # a process that has not opened the client need not import chromadb
            if reader is not None:
                for scope, docs in wanted:
                    ids, distances = reader.query(collection_name(scope), query, limit, docs)
                    results.append((scope, ids, distances))
            else:
                self._client_for_read()
                for scope, docs in wanted:
                    collection = self._collection(scope, checked=True)
                    if collection is not None:
                        where = None if docs is None else {"doc_id": {"$in": list(docs)}}
                        found = collection.query(query_embeddings=query, n_results=limit, where=where,
                                                 include=["distances"])
                        results.append((scope, found["ids"][0], found["distances"][0]))
        return [
            (scope, VectorHit(chunk_id, chunk_id.rsplit(":", 1)[0], 1.0 - float(distance)))
            for scope, ids, distances in results
            for chunk_id, distance in zip(ids, distances, strict=True)
        ]

    @_attempted
    def collections(self) -> list[CollectionInfo]:
        """Every scope collection with its recorded model, dimension and vector count.

        Raises:
            IndexUnavailable: the store cannot be opened or read.
        """
        with self._mutex, self._lock(shared=True), self._readable():
            reader = self._reader_for_query()  # an index check need not import chromadb either: see query_scopes
            if reader is not None:
                return [CollectionInfo(scope=meta.get("scope", ""), name=name, model=meta.get("model") or None,
                                       dimension=meta.get("dimension") or None, count=count)
                        for name, meta, count in reader.collections()]
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

    @_attempted
    def counts(self, scopes: Sequence[str]) -> dict[str, int]:
        """The number of vectors in each scope's collection (0 for a scope without one).

        Raises:
            IndexUnavailable: the store cannot be opened or read.
        """
        with self._mutex, self._lock(shared=True), self._readable():
            reader = self._reader_for_query()  # a search checks the counts: see query_scopes
            if reader is not None:
                return {scope: reader.count(collection_name(scope)) for scope in scopes}
            self._client_for_read()  # one look at the index generation for every scope, as in query_scopes
            found = {scope: self._collection(scope, checked=True) for scope in scopes}
            return {scope: 0 if collection is None else int(collection.count()) for scope, collection in found.items()}

    # -- backup and repair -------------------------------------------------------------------
    def back_up(self, destination: Path) -> bool:
        """Copy the store's folder to ``destination`` while no process writes it; False when there is no store.

        Raises:
            OSError: the copy cannot be made (a partial copy is removed).
        """
        with self._mutex, self._lock(shared=False):
            if not self.root.exists():
                return False
            copy_folder(self.root, destination)
            return True

    @_attempted
    def reset(self, aside: Path) -> Path | None:
        """Empty the store for a rebuild: drop every collection, or, when the store cannot be opened or
        emptied (damaged), move its folder to ``aside`` (kept for inspection) so a new one starts.

        Returns:
            ``aside`` when the folder was moved there, else None.

        Raises:
            OSError: the damaged folder cannot be moved (the caller reports it; nothing was changed).
        """
        with self._mutex, self._lock(shared=False):
            if not self.root.exists():
                return None
            try:
                client = self._client_for_read()
                for collection in client.list_collections():
                    client.delete_collection(collection if isinstance(collection, str) else collection.name)
                self._handles.clear()
                return None
            except Exception:  # whatever Chroma says about it, the store is not usable: start a new one
                self._close()
            aside.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(self.root, aside)
            return aside


def _vectors_of(found: Any) -> tuple[list[str], np.ndarray, list[dict[str, Any]]]:
    """A Chroma ``get`` answer (with embeddings and metadatas) as ``(ids, embeddings (n, dim) float32, metadatas)``;
    an empty one as empty lists and a (0, 0) array."""
    if not found["ids"]:
        return [], np.zeros((0, 0), np.float32), []
    return list(found["ids"]), np.asarray(found["embeddings"], np.float32), list(found["metadatas"])


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
