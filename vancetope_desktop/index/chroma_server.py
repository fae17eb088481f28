"""The vector store on a Chroma server (issue 17: a team library keeps its vectors there).

:class:`ServerVectorStore` is :class:`~.vector_store.VectorStore` with an ``HttpClient`` instead of the embedded
``PersistentClient``: the same per-scope collections (:func:`~.vector_store.collection_name`), model records, batch
limits (the server's ``get_max_batch_size``), queries, deletes, counts and listing. What differs:

* no folder, no ``chroma.lock``: the server orders the writes of every process on every machine; no Rust reader
  (:mod:`.chroma_reader` reads a local folder);
* a library is one Chroma *database* (in a tenant): :meth:`ServerVectorStore.create_database` makes it, and every
  collection of that database belongs to the library (:meth:`~.vector_store.VectorStore.collections`, ``reset``);
* a server that does not answer (refused, reset, restarting) is retried with backoff for up to ``retry_seconds``
  (safe: every operation is idempotent, an upsert of the same ids included), then reported as
  :class:`IndexUnavailable` "cannot reach the Chroma server at …"; search answers by keywords meanwhile and the
  writer leaves its jobs queued;
* :meth:`ServerVectorStore.back_up` refuses: a server's collections are backed up by its operator (a copy of
  Chroma's persist directory while the server is stopped, or the server's own snapshots), not by a client;
* the index generation still clears the cached collection handles when it moves (another process may have
  dropped and re-created a collection under the same name), without reconnecting.

The token is never written anywhere by this module: the caller passes it (from the keyring or the environment).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..core.errors import IndexUnavailable, InvalidInput
from .vector_store import VectorStore, _attempted, _first_line, _Result, foreign

logger = logging.getLogger(__name__)

DEFAULT_TENANT = "default_tenant"
"""Chroma's default tenant (``chromadb.config.DEFAULT_TENANT``)."""
DEFAULT_PORT = 8000
"""``chroma run``'s default port, for a URL without one."""
RETRY_SECONDS = 30.0
"""How long a store keeps retrying an operation on a server that does not answer: a restarting Chroma server
answers again within 1-2 s on an idle machine and ~10 s on a loaded one (packaging/servers.py's figures)."""
FIRST_DELAY, MAX_DELAY = 0.25, 4.0
"""Backoff between tries, in seconds: doubled after each failed try, from the first up to the largest."""
TOKEN_HEADERS = ("Authorization", "X-Chroma-Token")
"""The headers Chroma's token authentication reads (``chromadb.auth.token_authn``): ``Authorization: Bearer T``
or ``X-Chroma-Token: T``."""


@dataclass(frozen=True)
class ChromaServer:
    """Where a team library's vectors are: a Chroma server's URL, its tenant and database, and how to log in.

    Args:
        url: ``http://host:port`` or ``https://host:port`` (port 8000 when left out); no path.
        database: the library's database on the server (one library, one database).
        tenant: the database's tenant.
        token: the token for Chroma's token authentication (``chroma run`` with ``CHROMA_SERVER_AUTHN_*``), or None;
            never stored by this module, never shown in ``repr``.
        token_header: ``Authorization`` (sent as ``Bearer <token>``) or ``X-Chroma-Token``.
        headers: further HTTP headers for every request (e.g. a proxy's).
        ssl_verify: for https: True (the system's CAs), False, or the path of a CA bundle.
        timeout_seconds: how long one request may wait for the server (for each read; to connect, 5 s at most)
            before it counts as not answering (and is retried): chromadb's own client waits forever.

    Raises:
        InvalidInput: a URL that is not http(s)://host[:port], an empty database or tenant, an unknown token header.
    """

    url: str
    database: str
    tenant: str = DEFAULT_TENANT
    token: str | None = field(default=None, repr=False)
    token_header: str = "Authorization"
    headers: Mapping[str, str] = field(default_factory=dict)
    ssl_verify: bool | str = True
    timeout_seconds: float = 30.0

    def __post_init__(self) -> None:
        parts = urlsplit(self.url)
        try:
            port = parts.port
        except ValueError:
            port = -1
        if parts.scheme not in ("http", "https") or not parts.hostname or port == -1 or parts.path not in ("", "/") \
                or parts.query or parts.username:
            raise InvalidInput(f"not a Chroma server URL: {self.url!r} (expected http://host:port or https://host:port)")
        if not self.database.strip() or not self.tenant.strip():
            raise InvalidInput("a Chroma server's database and tenant must be named")
        if not self.timeout_seconds > 0:
            raise InvalidInput(f"timeout_seconds must be positive, not {self.timeout_seconds!r}")
        if self.token_header not in TOKEN_HEADERS:
            raise InvalidInput(f"token_header must be one of {', '.join(TOKEN_HEADERS)}, not {self.token_header!r}")

    @property
    def host(self) -> str:
        """The server's host name or address."""
        return urlsplit(self.url).hostname or ""

    @property
    def port(self) -> int:
        """The server's port (:data:`DEFAULT_PORT` when the URL has none)."""
        return urlsplit(self.url).port or DEFAULT_PORT

    @property
    def ssl(self) -> bool:
        """Whether the server is reached over https."""
        return urlsplit(self.url).scheme == "https"

    @property
    def address(self) -> str:
        """The server as messages name it: ``scheme://host:port``."""
        return f"{urlsplit(self.url).scheme}://{self.host}:{self.port}"

    def settings(self) -> Any:
        """Chroma client ``Settings`` for this server (``HttpClient``'s and ``AdminClient``'s): its address, headers,
        TLS verification, the token through Chroma's own token provider, telemetry off (a client takes its Settings
        over: a new one each time).

        For an http:// server verification is off: no request to it uses TLS, and with it on each client's
        ``httpx.Client`` loads the system's CA bundle all the same (31 ms of CPU per client, and opening a library's
        vectors makes three: ``client``; measured on the shared 2-core machine, 3 Dec 2026)."""
        from chromadb.config import Settings

        options: dict[str, Any] = {
            "chroma_api_impl": "chromadb.api.fastapi.FastAPI", "chroma_server_host": self.host,
            "chroma_server_http_port": self.port, "chroma_server_ssl_enabled": self.ssl,
            "chroma_server_headers": dict(self.headers),
            "chroma_server_ssl_verify": self.ssl_verify if self.ssl else False,
            "anonymized_telemetry": False, "allow_reset": False,
        }
        if self.token is not None:
            options.update(chroma_client_auth_provider="chromadb.auth.token_authn.TokenAuthClientProvider",
                           chroma_client_auth_credentials=self.token,
                           chroma_auth_token_transport_header=self.token_header)
        return Settings(**options)

    @contextlib.contextmanager
    def admin(self) -> Iterator[Any]:
        """A ``chromadb.AdminClient`` on this server (tenants and databases), let go on the way out."""
        import chromadb

        admin = chromadb.AdminClient(self.settings())
        self._limit_waits(admin)
        try:
            yield admin
        finally:
            close_client(admin)

    def client(self) -> Any:
        """A ``chromadb.HttpClient`` on this server's tenant and database.

        Both are looked up first by an admin client of this module's own: chromadb's own check, when it fails
        inside ``HttpClient``, leaves that half-made client's connections open.

        Raises:
            httpx.TransportError: the server does not answer; chromadb's errors: refused, no such tenant or database.
        """
        import chromadb

        with self.admin() as admin:
            admin.get_database(self.database, tenant=self.tenant)
        client = chromadb.HttpClient(host=self.host, port=self.port, ssl=self.ssl, headers=dict(self.headers),
                                     settings=self.settings(), tenant=self.tenant, database=self.database)
        self._limit_waits(client)
        return client

    def _limit_waits(self, client: Any) -> None:
        """Give the client's HTTP session :attr:`timeout_seconds` (chromadb 1.5 makes its ``httpx.Client`` with
        ``timeout=None`` and has no setting for it)."""
        import httpx

        # Connecting is quick or not at all; a server that accepts and then says nothing (stopped, hung) shows as a
        # read that times out: 120 s each kept a tester's commands silent for two minutes (3 Dec 2026). The slowest
        # request under issue 17's load benchmark took a few seconds.
        client._server._session.timeout = httpx.Timeout(self.timeout_seconds, connect=min(self.timeout_seconds, 5.0))


def close_client(client: Any) -> None:
    """Let a chromadb HTTP client (``HttpClient`` or ``AdminClient``) go with its connections: chromadb 1.5's
    ``close`` releases the client's System, but its ``FastAPI`` never closes its ``httpx.Client`` (the sockets would
    stay open until garbage collection, with a ResourceWarning), nor that of the ``AdminClient`` an ``HttpClient``
    makes for itself (a System of its own); an ``AdminClient`` has no ``close`` at all."""
    sessions = [getattr(getattr(each, "_server", None), "_session", None)
                for each in (client, getattr(client, "_admin_client", None))]
    if hasattr(client, "close"):
        client.close()
    for session in sessions:
        if session is not None:
            session.close()


SERVER_BUSY = "database is locked"
"""What a Chroma server's InternalError says when its own SQLite is busy: retried (see ``_transient_cause``)."""


def _transient_errors() -> tuple[type[Exception], ...]:
    """The failures worth another try: the server did not answer (refused, reset, timed out: httpx's transport
    errors, which chromadb lets through)."""
    import httpx

    return (httpx.TransportError,)


class ServerVectorStore(VectorStore):
    """The vector store on a Chroma server: :class:`~.vector_store.VectorStore`'s operations and answers, for
    writers and readers in any number of processes on any number of machines.

    Args:
        server: where the vectors are, and how to log in.
        generation: returns the library's current index generation; when it moves, the cached collection handles
            are dropped (see the module's docstring).
        retry_seconds: how long an operation keeps retrying, from its first failure, a server that does not answer
            (0: one try).
        on_retry: called with a message ("cannot reach the Chroma server at …; retrying in 0.5 s") before each
            retry, and with None when an operation succeeds after retries: the app's "reconnecting…" state. Also
            settable later as :attr:`on_retry` (the window sets it on the library it opens).
        owner: the team library's id (``team_library.library_uuid``), recorded in each collection this store makes;
            a collection recording another is never written or dropped (two libraries given one Chroma database).
    """

    def __init__(self, server: ChromaServer, generation: Callable[[], int], *, retry_seconds: float = RETRY_SECONDS,
                 on_retry: Callable[[str | None], None] | None = None, owner: str | None = None) -> None:
        super().__init__(Path(), Path(), generation)  # no folder, no lock file: the methods using them are replaced
        self.owner = owner
        self.server = server
        self._retry_seconds = retry_seconds
        self.on_retry = on_retry
        self._transient = _transient_errors()

    # -- what differs from the embedded store ----------------------------------------------------
    def _lock(self, *, shared: bool) -> contextlib.AbstractContextManager[Any]:
        return contextlib.nullcontext()  # the server orders its writers' calls itself

    def _reader_for_query(self) -> None:
        return None  # the Rust reader reads a local folder: every query goes to the server

    def _client_for_read(self) -> Any:
        if self._client is None:
            try:
                self._client = self.server.client()
            except Exception as error:  # refused login, no such tenant or database: no retry helps
                if self._transient_cause(error) is not None:
                    raise  # chromadb's "Could not connect to a Chroma server", over httpx's error: retried
                raise self._unusable(error) from error
        current = self._generation()
        if current != self._seen_generation:
            self._handles.clear()
            self._seen_generation = current
        return self._client

    def _close(self) -> None:
        if self._client is not None:
            close_client(self._client)  # the next operation connects again
        self._client = None
        self._handles.clear()

    def _unreadable(self, error: Exception) -> Exception:
        return error if self._transient_cause(error) is not None else self._unusable(error)

    def _transient_cause(self, error: BaseException) -> BaseException | None:
        """The transient failure (see :func:`_transient_errors`) that ``error`` is or was raised from, else None
        (chromadb turns a refused connection while the client starts into a ValueError raised from it).

        Also transient: the server's own "database is locked" (an InternalError, HTTP 500), which a single-node
        Chroma server answers when its SQLite is busy with other writers' requests (seen with several processes
        writing at once on a loaded machine, 3 Dec 2026); every operation here is idempotent, so it is retried.
        """
        chain: list[BaseException] = []
        link: BaseException | None = error
        while link is not None and link not in chain:
            if isinstance(link, self._transient) or (type(link).__name__ == "InternalError"
                                                      and SERVER_BUSY in str(link)):
                return link
            chain.append(link)
            link = link.__cause__ or link.__context__
        return None

    def _unusable(self, error: Exception) -> IndexUnavailable:
        return IndexUnavailable(f"the Chroma server at {self.server.address} answered with an error for database "
                                f"{self.server.database!r} (tenant {self.server.tenant!r}): {_first_line(error)}")

    def _attempt(self, operation: Callable[[], _Result], *,
                 meanwhile: str = "Search answers by keywords, and indexing waits, until it is") -> _Result:
        """Run ``operation``, again after a backoff while the server does not answer, until ``retry_seconds`` have
        passed since its first failure; then raise IndexUnavailable, its message ending with ``meanwhile`` (what goes
        on without the server). A login or authorisation refusal is IndexUnavailable at once; other errors (a model
        mismatch, a bad argument) pass through."""
        from chromadb.errors import AuthorizationError, ChromaAuthError

        deadline: float | None = None  # counted from the first failure: a request that timed out still gets retries
        delay = FIRST_DELAY
        retried = False
        while True:
            try:
                result = operation()
            except (AuthorizationError, ChromaAuthError) as error:
                raise self._unusable(error) from error
            except Exception as error:
                cause = self._transient_cause(error)
                if cause is None:
                    raise
                with self._mutex:
                    self._close()  # a restarted server: new connections, collections looked up again
                message = f"cannot reach the Chroma server at {self.server.address} ({_first_line(cause)})"
                deadline = deadline if deadline is not None else time.monotonic() + self._retry_seconds
                if time.monotonic() + delay > deadline:
                    raise IndexUnavailable(f"{message}: is it running and reachable from this machine? "
                                           f"{meanwhile}") from error
                logger.warning("%s; retrying in %.2g s", message, delay)
                if self.on_retry is not None:
                    self.on_retry(f"{message}; retrying in {delay:.2g} s")
                retried = True
                time.sleep(delay)
                delay = min(delay * 2, MAX_DELAY)
                continue
            if retried and self.on_retry is not None:
                self.on_retry(None)  # reached again
            return result

    # -- the library's database ------------------------------------------------------------------
    def create_database(self) -> bool:
        """Create the library's tenant and database on the server when missing (``library create --team``).

        Returns:
            True when the database was created, False when it existed.

        Raises:
            IndexUnavailable: the server cannot be reached or refuses.
        """

        def create() -> bool:
            from chromadb.errors import NotFoundError

            with self.server.admin() as admin:
                try:
                    admin.get_tenant(self.server.tenant)
                except NotFoundError:
                    admin.create_tenant(self.server.tenant)
                try:
                    admin.get_database(self.server.database, tenant=self.server.tenant)
                    return False
                except NotFoundError:
                    admin.create_database(self.server.database, tenant=self.server.tenant)
                    return True

        with self._mutex:
            return self._attempt(create, meanwhile="Nothing was written")

    @_attempted
    def foreign_collections(self) -> list[str]:
        """The names of the database's collections that belong to another library than :attr:`owner`
        (``vector_store.foreign``: with no owner yet, every collection).

        Raises:
            IndexUnavailable: the server cannot be reached or refuses.
        """
        with self._mutex:
            return [c.name for c in self._client_for_read().list_collections() if foreign(c.metadata, self.owner)]

    # -- backup and repair -----------------------------------------------------------------------
    def back_up(self, destination: Path) -> bool:
        """Refused: the vectors are on a server, backed up by its operator (see the module's docstring).

        Raises:
            OSError: always, saying so (the caller reports OSError as "the copy cannot be made").
        """
        raise OSError(f"the vectors are on the Chroma server at {self.server.address} (database "
                      f"{self.server.database!r}): back them up on the server (stop it and copy its persist "
                      "directory, or use its snapshots); a client cannot copy them to " + str(destination))

    @_attempted
    def reset(self, aside: Path) -> None:
        """Empty the store for a rebuild: drop every collection of the library's database. Nothing is moved aside
        (``aside`` is not used: there is no folder); a server that cannot be reached raises, see below.

        Raises:
            IndexUnavailable: the server cannot be reached or refuses (nothing, or only part, was dropped: a
                rebuild started again drops the rest); the database holds another library's collections (nothing
                is dropped).
        """
        with self._mutex:
            client = self._client_for_read()
            collections = client.list_collections()
            self._refuse_foreign(collections)
            for collection in collections:
                client.delete_collection(collection.name)
            self._handles.clear()
        return None
