"""The vector store on a real Chroma server (issue 17): its address and login, its database, backups refused, a server
stopped and restarted mid-way, and two processes writing to one server. The contract shared with the embedded store
is tested in test_vector_store.py."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from tests.servers import harness, run_own_server, stop_server
from vancetope_desktop.core.errors import IndexUnavailable, InvalidInput
from vancetope_desktop.index.chroma_server import ChromaServer, ServerVectorStore

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("url", ["ftp://host:8000", "http://", "http://host:8000/chroma", "http://host:port",
                                 "http://user@host:8000", "host:8000"])
def test_a_bad_server_url_is_refused_with_a_clear_error(url):
    with pytest.raises(InvalidInput, match="not a Chroma server URL"):
        ChromaServer(url, "lab")


def test_the_address_login_and_tls_options_reach_chromas_settings():
    server = ChromaServer("https://chroma.lab.example", "lab", tenant="team", token="s3cret",
                          token_header="X-Chroma-Token", headers={"X-Proxy": "1"}, ssl_verify="/etc/lab-ca.pem")
    assert (server.host, server.port, server.ssl, server.address) == ("chroma.lab.example", 8000, True,
                                                                      "https://chroma.lab.example:8000")
    settings = server.settings()
    assert settings.chroma_client_auth_credentials == "s3cret"
    assert settings.chroma_auth_token_transport_header == "X-Chroma-Token"
    assert settings.chroma_server_ssl_verify == "/etc/lab-ca.pem"
    assert settings.chroma_server_headers == {"X-Proxy": "1"}
    assert "s3cret" not in repr(server)
    with pytest.raises(InvalidInput, match="token_header"):
        ChromaServer("http://h:1", "lab", token_header="Cookie")
    with pytest.raises(InvalidInput, match="database"):
        ChromaServer("http://h:1", " ")


def test_the_librarys_database_is_made_once_and_a_missing_one_is_named(chroma_server_url, chroma_server):
    server = ChromaServer(chroma_server_url, f"{chroma_server.database}_lab", tenant=chroma_server.tenant)
    store = ServerVectorStore(server, lambda: 0, retry_seconds=0)
    with pytest.raises(IndexUnavailable, match=f"database '{server.database}'.*not found"):
        store.counts(["project/p"])
    assert store.create_database() is True
    assert store.create_database() is False
    assert store.counts(["project/p"]) == {"project/p": 0}
    store.close()


def test_a_backup_of_server_vectors_is_refused_and_says_whose_job_it_is(chroma_server_url, chroma_server, tmp_path):
    store = ServerVectorStore(ChromaServer(chroma_server_url, chroma_server.database, tenant=chroma_server.tenant),
                              lambda: 0)
    with pytest.raises(OSError, match="back them up on the server"):
        store.back_up(tmp_path / "copy")
    assert not (tmp_path / "copy").exists()


class _OwnServer:
    """A bare ``chroma run`` on a port and folder of this test's own, stopped and started again at will."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.port = folder, harness.free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        log = (self.folder / "chroma.log").open("ab")
        self.process = subprocess.Popen(
            [str(Path(sys.executable).parent / "chroma"), "run", "--path", str(self.folder / "data"), "--host",
             "127.0.0.1", "--port", str(self.port)], stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env=dict(os.environ, ANONYMIZED_TELEMETRY="False"), preexec_fn=harness.die_with_parent)
        log.close()

    def wait_ready(self) -> None:
        deadline = time.monotonic() + harness.READY_SECONDS
        while not harness.chroma_answers(self.url):
            assert self.process.poll() is None, (self.folder / "chroma.log").read_text()[-2000:]
            assert time.monotonic() < deadline, f"chroma did not answer within {harness.READY_SECONDS} s"
            time.sleep(0.1)

    def stop(self) -> None:
        stop_server(self.process, signal.SIGTERM)


@pytest.fixture(scope="module")
def module_server(tmp_path_factory):
    """One bare ``chroma run`` for the module's tests that stop and restart it (a start costs some 1.5 CPU s)."""
    yield from run_own_server(_OwnServer(tmp_path_factory.mktemp("own-chroma")))


@pytest.fixture
def own_server(module_server):
    """The module's own server, running: started again if a test before stopped it and failed before its restart.
    Each test uses a Chroma database of its own on it."""
    if module_server.process.poll() is not None:
        module_server.start()
        module_server.wait_ready()
    return module_server


@pytest.mark.slow
def test_a_server_stopped_mid_way_gives_a_clear_error_then_a_restart_is_waited_for(own_server):
    server = ChromaServer(own_server.url, "lab")
    store = ServerVectorStore(server, lambda: 0, retry_seconds=0)
    store.create_database()
    vectors = np.eye(4, dtype=np.float32) + 0.01
    store.upsert("project/p", "m", ["a:0", "b:0"], vectors[:2], [{"doc_id": "a"}, {"doc_id": "b"}])

    own_server.stop()
    with pytest.raises(IndexUnavailable, match=f"cannot reach the Chroma server at {own_server.url}"):
        store.query("project/p", vectors[0], 5)
    with pytest.raises(IndexUnavailable, match="cannot reach the Chroma server"):
        store.upsert("project/p", "m", ["c:0"], vectors[2:3], [{"doc_id": "c"}])

    # The server comes back while a write waits for it: started at the first retry, waited for within the budget.
    notices: list[str | None] = []

    def restart(message: str | None) -> None:
        notices.append(message)
        if len(notices) == 1:
            own_server.start()

    patient = ServerVectorStore(server, lambda: 0, retry_seconds=harness.READY_SECONDS, on_retry=restart)
    patient.upsert("project/p", "m", ["c:0", "d:0"], vectors[2:], [{"doc_id": "c"}, {"doc_id": "d"}])
    # Each retry said, then None once the server answered (the window's "reconnecting…" ends).
    assert len(notices) >= 2 and notices[-1] is None
    assert all("cannot reach the Chroma server" in n for n in notices[:-1])
    # The store that failed recovers by itself: nothing was lost, nothing half-written.
    assert store.counts(["project/p"]) == {"project/p": 4}
    assert [h.chunk_id for h in store.query("project/p", vectors[3], 1)] == ["d:0"]
    store.close()
    patient.close()


_WRITER = textwrap.dedent("""
    import sys
    import numpy as np
    from vancetope_desktop.index.chroma_server import ChromaServer, ServerVectorStore

    url, tenant, database, scope, tag = sys.argv[1:]
    store = ServerVectorStore(ChromaServer(url, database, tenant=tenant), lambda: 0)
    rng = np.random.default_rng(abs(hash(tag)) % 2**32)
    for batch in range(5):
        ids = [f"{tag}{batch}_{i}:0" for i in range(100)]
        store.upsert(scope, "m", ids, rng.normal(size=(100, 16)).astype(np.float32),
                     [{"doc_id": i.split(":")[0]} for i in ids])
        store.upsert(scope, "m", ids[:10], rng.normal(size=(10, 16)).astype(np.float32),  # the same ids again
                     [{"doc_id": i.split(":")[0]} for i in ids[:10]])
""")


@pytest.mark.slow
def test_two_processes_write_disjoint_scopes_to_one_server(chroma_server_url, chroma_server):
    writers = [subprocess.Popen([sys.executable, "-c", _WRITER, chroma_server_url, chroma_server.tenant,
                                 chroma_server.database, scope, tag],
                                cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)), stderr=subprocess.PIPE)
               for scope, tag in (("project/one", "x"), ("project/two", "y"))]
    errors = [writer.communicate(timeout=600)[1].decode() for writer in writers]
    assert [writer.returncode for writer in writers] == [0, 0], errors
    store = ServerVectorStore(ChromaServer(chroma_server_url, chroma_server.database, tenant=chroma_server.tenant),
                              lambda: 0)
    assert store.counts(["project/one", "project/two"]) == {"project/one": 500, "project/two": 500}
    ones = store.query("project/one", np.ones(16, np.float32), 500)
    assert len(ones) == 500 and all(hit.chunk_id.startswith("x") for hit in ones)
    assert sorted(info.scope for info in store.collections()) == ["project/one", "project/two"]
    store.close()


def test_a_token_is_sent_by_chromas_own_token_provider(chroma_server_url, chroma_server):
    # The test server does not check tokens (`chroma run` has no authentication of its own: a proxy in front does it);
    # what is checked here is that the client logs in with the token, in the header asked for.
    for header, sent in (("Authorization", "Bearer s3cret"), ("X-Chroma-Token", "s3cret")):
        server = ChromaServer(chroma_server_url, chroma_server.database, tenant=chroma_server.tenant, token="s3cret",
                              token_header=header)
        store = ServerVectorStore(server, lambda: 0, retry_seconds=0)
        assert store.counts(["project/p"]) == {"project/p": 0}
        headers = {name.lower(): value for name, value in store._client._server.get_request_headers().items()}
        assert headers[header.lower()] == sent
        store.close()


def test_a_server_that_accepts_but_never_answers_times_out_into_a_clear_error():
    with socket.socket() as silent:  # connections are queued by the kernel, never read nor answered
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        store = ServerVectorStore(ChromaServer(url, "lab", timeout_seconds=0.5), lambda: 0, retry_seconds=0)
        with pytest.raises(IndexUnavailable, match=f"cannot reach the Chroma server at {url} .*timed out.*Search "
                           "answers by keywords"):
            store.counts(["project/p"])
        with pytest.raises(IndexUnavailable, match=r"timed out.* Nothing was written"):  # `library create --team`
            store.create_database()
    with pytest.raises(InvalidInput, match="timeout_seconds"):
        ChromaServer(url, "lab", timeout_seconds=0)


@pytest.mark.slow
def test_the_writer_keeps_its_jobs_while_the_server_is_down_and_writes_each_vector_once_after(own_server, tmp_path):
    # The library's own writer and queue (SQLite here) with its vectors on the server: the swap below is the seam
    # Library.open takes for a team library.
    from vancetope_desktop.services import documents, indexing
    from vancetope_desktop.services.library import Library

    with Library.open(tmp_path / "lib") as lib:
        lib.vectors.close()
        lib.vectors = ServerVectorStore(ChromaServer(own_server.url, "lab_writer"), lib.index_generation,
                                        retry_seconds=0)
        lib.vectors.create_database()
        documents.add_text(lib, "Herons nest in colonies near lakes and rivers.", title="Herons")
        indexing.try_drain(lib)
        own_server.stop()
        added = [documents.add_text(lib, text, title=text.split()[0]) for text in
                 ("Glaciers in Greenland melt faster every year.", "Chronic stress raises the risk of dementia.")]
        with pytest.raises(IndexUnavailable, match="cannot reach the Chroma server"):
            indexing.try_drain(lib)
        assert indexing.index_status(lib).queued_jobs == len(added)  # nothing lost: the jobs wait for the server
        own_server.start()
        own_server.wait_ready()
        indexing.try_drain(lib)
        check = indexing.check_vectors(lib)
        assert check.problems == [] and [(s.expected, s.stored) for s in check.scopes] == [(3, 3)]
        lib.vectors.close()


def test_the_servers_own_database_is_locked_is_retried_and_other_internal_errors_are_not(chroma_server_url,
                                                                                          chroma_server):
    """A single-node Chroma server answers "database is locked" (HTTP 500) when its SQLite is busy with other
    writers: retried like a server not answering; any other internal error passes through at once."""
    from chromadb.errors import InternalError

    said: list[str | None] = []
    store = ServerVectorStore(ChromaServer(chroma_server_url, chroma_server.database, tenant=chroma_server.tenant),
                              lambda: 0, retry_seconds=5, on_retry=said.append)
    answers = iter([InternalError("error returned from database: (code: 5) database is locked"), "stored"])

    def busy_once():
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert store._attempt(busy_once) == "stored"
    assert len(said) == 2 and "database is locked" in said[0] and said[1] is None

    def broken():
        raise InternalError("no such collection")

    with pytest.raises(InternalError, match="no such collection"):
        store._attempt(broken)
    store.close()
