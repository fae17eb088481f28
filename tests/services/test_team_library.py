"""A team library (issue 17) created, opened and upgraded on the real PostgreSQL and Chroma servers: the descriptor,
the credentials (keyring, PGPASSFILE; never in the library folder), ``Library.open``, ``vancetope library``.

The test cluster trusts every role on loopback (packaging/servers.py's initdb --auth=trust), which would let a wrong
or missing password through. The :func:`password_role` fixture therefore adds a pg_hba.conf rule requiring
scram-sha-256 for a role of its own and reloads the server: a library of that role opens only when its password
really reaches psycopg.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import keyring
import pytest
from filelock import FileLock
from keyrings.alt.file import PlaintextKeyring

from vancetope_desktop.core.errors import IndexUnavailable, InvalidInput, LibraryError, LibraryNeedsUpgrade
from vancetope_desktop.generation.endpoint import KeyringUnavailable
from vancetope_desktop.services import team_library
from vancetope_desktop.services.library import Library
from vancetope_desktop.services.library_info import library_info
from vancetope_desktop.services.library_settings import set_setting
from vancetope_desktop.store.tables import SCHEMA_VERSION

pytestmark = pytest.mark.servers

CLI = [sys.executable, "-m", "vancetope_desktop.cli.main"]
FILE_KEYRING = "keyrings.alt.file.PlaintextKeyring"
"""A real keyring backend (keyrings.alt, a dev dependency) that keeps its secrets in a file under XDG_DATA_HOME."""


def _connects(url: str, password: str | None = None) -> bool:
    import psycopg

    try:
        with psycopg.connect(url, password=password, connect_timeout=5) as connection:
            connection.execute("SELECT 1")
        return True
    except psycopg.OperationalError:
        return False


@pytest.fixture
def password_role(postgres_server_url):
    """``(url without password, password)`` of a database owned by a new role that must give its password
    (scram-sha-256 by a pg_hba.conf rule of its own, removed afterwards with the role and the database)."""
    import psycopg
    from psycopg import sql

    role, password = f"vt_role_{uuid.uuid4().hex[:12]}", f"pw-{uuid.uuid4().hex}"
    with psycopg.connect(postgres_server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(sql.Identifier(role), sql.Literal(password)))
        admin.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(role), sql.Identifier(role)))
        hba = Path(admin.execute("SHOW hba_file").fetchone()[0])
    rule = f"host all {role} 127.0.0.1/32 scram-sha-256\n"
    url = urlsplit(postgres_server_url)._replace(netloc=f"{role}@{urlsplit(postgres_server_url).netloc.split('@')[1]}",
                                                  path=f"/{role}").geturl()

    def edit(change) -> None:
        with FileLock(Path(tempfile.gettempdir()) / "vancetope-test-pg-hba.lock"):  # other workers' rules
            text = hba.read_text()
            with hba.open("w") as file:  # in place: the file keeps its owner (the cluster's user)
                file.write(change(text))
        with psycopg.connect(postgres_server_url, autocommit=True) as admin:
            admin.execute("SELECT pg_reload_conf()")

    edit(lambda text: rule + text)
    deadline = time.monotonic() + 60
    while _connects(url):  # the server reloads its rules on SIGHUP, soon after
        assert time.monotonic() < deadline, "the server never applied the scram-sha-256 rule"
        time.sleep(0.1)
    try:
        yield url, password
    finally:
        edit(lambda text: text.replace(rule, ""))
        with psycopg.connect(postgres_server_url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE {} WITH (FORCE)").format(sql.Identifier(role)))
            admin.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))


@pytest.fixture
def file_keyring(tmp_path, monkeypatch):
    """keyrings.alt's file backend, its file under ``tmp_path``, as this process's keyring (the suite's "fail"
    backend comes back afterwards); returns the file."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    before = keyring.get_keyring()  # first, while the variable still names the suite's "fail" backend
    # Named as a member accepting that file would name it: a plain-text backend is refused otherwise.
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", FILE_KEYRING)
    ring = PlaintextKeyring()
    keyring.set_keyring(ring)
    try:
        yield Path(ring.file_path)
    finally:
        keyring.set_keyring(before)


@pytest.fixture
def local_state(tmp_path, monkeypatch):
    """This machine's state folder (a team library's locks and backups) under ``tmp_path``."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state"


def _files_holding(folder: Path, secret: str) -> list[Path]:
    return [path for path in folder.rglob("*") if path.is_file() and secret.encode() in path.read_bytes()]


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    """A `vancetope` process with ``args``, this environment updated with ``env``."""
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env={**os.environ, **env}, timeout=600)


def _in_process(*args: str, env: dict[str, str]):
    """The CLI's app run in this process with ``args`` (``typer.testing.CliRunner``; ``env`` set for the call), for
    commands after a first `vancetope` process: each command opens the library anew, and a process more costs some
    3 CPU s of start-up and proves nothing more."""
    from typer.testing import CliRunner

    from vancetope_desktop.cli.main import app

    return CliRunner().invoke(app, list(args), env=env)


@pytest.mark.slow
def test_create_then_open_by_library_option_and_variable_with_the_password_in_the_keyring_only(
        tmp_path, password_role, chroma_server_url, file_keyring):
    """Three `vancetope` processes, each choosing its keyring as a member's would (PYTHON_KEYRING_BACKEND): create,
    open by --library, refused without the keyring; the variable and `library info` in this process, on the same
    keyring file (``file_keyring``)."""
    url, password = password_role
    with_password = url.replace("@", f":{password}@", 1)
    root, files = tmp_path / "team", tmp_path / "share" / "files"
    env = {"PYTHON_KEYRING_BACKEND": FILE_KEYRING, "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_STATE_HOME": str(tmp_path / "state")}

    created = _cli("library", "create", str(root), "--team", "--db", with_password, "--vectors", chroma_server_url,
                   "--files", str(files), "--json", env=env)
    assert created.returncode == 0, created.stderr
    said = json.loads(created.stdout)
    assert said["backend"] == "team" and password not in created.stdout + created.stderr
    assert said["description"].startswith("team library: PostgreSQL at 127.0.0.1:")
    assert [path.name for path in root.iterdir()] == ["team.json"]
    encoded = base64.b64encode(password.encode()).decode()  # how keyrings.alt's file keeps it
    assert [_files_holding(folder, secret) for folder in (root, files) for secret in (password, encoded)] == [[]] * 4
    assert _files_holding(tmp_path / "data", encoded)  # the keyring's file, outside the library, holds it

    made = _cli("--library", str(root), "scope", "create", "project", "lab", "--name", "Lab", env=env)
    assert made.returncode == 0, made.stderr
    listed = _in_process("scope", "list", "--json", env={**env, "VANCETOPE_LIBRARY": str(root)})
    assert listed.exit_code == 0, listed.output
    assert "project/lab" in listed.stdout
    info = _in_process("library", "info", str(root), "--json", env=env)
    assert info.exit_code == 0, info.output
    assert {k: v for k, v in json.loads(info.stdout).items() if k in ("backend", "documents", "schema_revision")} \
        == {"backend": "team", "documents": 0, "schema_revision": f"schema{SCHEMA_VERSION}"}
    assert password not in info.stdout
    assert not (root / "settings.json").exists() and [p.name for p in root.iterdir()] == ["team.json"]

    # Without the keyring the password is nowhere to be found: the scram rule turns the member away.
    refused = _cli("library", "info", str(root), env={**env, "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"})
    assert refused.returncode == 1 and "cannot open the library database" in refused.stderr
    assert password not in refused.stderr


def test_a_password_without_a_keyring_is_refused_with_advice_and_nothing_is_written(
        tmp_path, password_role, chroma_server_url):
    url, password = password_role
    root = tmp_path / "team"
    with pytest.raises(KeyringUnavailable, match="PGPASSFILE"):
        team_library.create_team_library(root, url.replace("@", f":{password}@", 1), chroma_server_url,
                                         tmp_path / "files")
    assert not root.exists() and not (tmp_path / "files").exists()


def test_the_pgpassfile_gives_the_password_and_settings_live_in_the_database(
        tmp_path, password_role, chroma_server_url, monkeypatch, local_state):
    url, password = password_role
    parts = urlsplit(url)
    passfile = tmp_path / "pgpass"
    passfile.write_text(f"{parts.hostname}:{parts.port}:*:{parts.username}:{password}\n")
    passfile.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(passfile))
    root = tmp_path / "team"
    descriptor = team_library.create_team_library(root, url, chroma_server_url, tmp_path / "files")
    assert descriptor.database.url == url
    with Library.open(root) as lib:
        assert lib.is_team and lib.paths.files == tmp_path / "files"
        assert str(lib.paths.locks).startswith(str(local_state))
        set_setting(lib, "max_import_mb", "7")
    with Library.open(root) as again:  # another member would read the same: the database holds them
        assert again.settings.max_import_mb == 7
    assert sorted(p.name for p in root.iterdir()) == ["team.json"]
    monkeypatch.delenv("PGPASSFILE")
    with pytest.raises(LibraryError, match="cannot open the library database"):
        Library.open(root)


def test_a_url_with_query_options_keeps_them_and_the_descriptor_refuses_a_password(tmp_path):
    url, password = team_library.split_password("postgresql://ann:s3cret@db.lab:5433/lib?sslmode=verify-full"
                                                "&sslrootcert=/etc/ca.pem")
    assert (url, password) == ("postgresql://ann@db.lab:5433/lib?sslmode=verify-full&sslrootcert=/etc/ca.pem",
                               "s3cret")
    (tmp_path / "team.json").write_text(json.dumps({
        "library_id": "x", "name": "x", "database": {"url": "postgresql://ann:s3cret@db.lab/lib"},
        "vectors": {"url": "http://chroma:8000", "database": "lib"}, "files": "/mnt/share"}))
    with pytest.raises(LibraryError, match=r"database\.url: Value error, the database URL holds a password") as caught:
        Library.open(tmp_path)
    assert "s3cret" not in str(caught.value)
    (tmp_path / "team.json").write_text('{"format": 2}')
    with pytest.raises(LibraryError, match="written by a newer Vancetope Desktop"):
        Library.open(tmp_path)
    (tmp_path / "a-file").write_text("not a folder")
    team_library.write_descriptor(tmp_path, team_library.TeamDescriptor(
        library_id="x", name="x", database=team_library.DatabasePart(url="postgresql://ann@db.lab/lib"),
        vectors=team_library.VectorsPart(url="http://chroma:8000", database="lib"), files=str(tmp_path / "a-file")))
    with pytest.raises(LibraryError, match=r"cannot create the team library's files folder .*a-file"):
        Library.open(tmp_path)  # refused before any server is asked


def test_an_unreachable_server_is_said_clearly_and_nothing_is_written(tmp_path, postgres_database, chroma_server_url):
    from tests.servers import harness

    closed = f"127.0.0.1:{harness.free_port()}"  # nothing listens there
    root, files = tmp_path / "team", tmp_path / "files"
    nowhere = urlsplit(postgres_database)._replace(netloc=f"vancetope@{closed}").geturl()
    with pytest.raises(LibraryError, match=f"cannot open the library database postgresql://vancetope@{closed}"):
        team_library.create_team_library(root, nowhere, chroma_server_url, files)
    with pytest.raises(IndexUnavailable, match=f"cannot reach the Chroma server at http://{closed}"):
        team_library.create_team_library(root, postgres_database, f"http://{closed}", files)
    result = _cli("library", "create", str(root), "--team", "--db", postgres_database, "--vectors",
                  f"http://{closed}", "--files", str(files), env={})
    assert result.returncode == 1 and f"error: cannot reach the Chroma server at http://{closed}" in result.stderr
    assert not root.exists() and not files.exists()


def test_create_refuses_a_folder_holding_a_library_and_half_given_options(tmp_path, postgres_database,
                                                                           chroma_server_url):
    Library.open(tmp_path / "embedded").close()
    with pytest.raises(InvalidInput, match="already holds a library"):
        team_library.create_team_library(tmp_path / "embedded", postgres_database, chroma_server_url, tmp_path / "f")
    with pytest.raises(InvalidInput, match="not a Chroma server URL"):
        team_library.create_team_library(tmp_path / "t", postgres_database, "chroma:8000", tmp_path / "f")
    result = _cli("library", "create", str(tmp_path / "t"), "--team", "--db", postgres_database, env={})
    assert result.returncode == 2 and "needs --db URL, --vectors URL and --files DIR" in result.stderr
    assert not (tmp_path / "t").exists() and not (tmp_path / "f").exists()


def test_upgrade_an_older_team_database_only_when_asked(tmp_path, postgres_database, chroma_server, chroma_server_url,
                                                        local_state):
    from tests.store.test_postgres_schema import _migrate_to
    from vancetope_desktop.store.db import create_database_engine

    engine = create_database_engine(postgres_database)
    try:
        _migrate_to(engine, f"schema{SCHEMA_VERSION - 1}")
    finally:
        engine.dispose()
    root = tmp_path / "team"
    team_library.create_team_library(root, postgres_database, chroma_server_url, tmp_path / "files",
                                     tenant=chroma_server.tenant, chroma_database=chroma_server.database)
    with pytest.raises(LibraryNeedsUpgrade, match=f"`vancetope library upgrade {root}`"):
        Library.open(root)
    upgraded = _cli("library", "upgrade", str(root), env={"XDG_STATE_HOME": str(local_state)})
    assert upgraded.returncode == 0, upgraded.stderr
    assert f"from schema {SCHEMA_VERSION - 1} to {SCHEMA_VERSION}" in upgraded.stdout
    with Library.open(root) as lib:
        assert lib.describe().startswith("team library:")
    again = _in_process("library", "upgrade", str(root), env={"XDG_STATE_HOME": str(local_state)})
    assert again.exit_code == 0 and "already" in again.stdout
    embedded = _in_process("library", "upgrade", str(tmp_path / "embedded"), env={})
    assert embedded.exit_code == 0 and "upgrades itself when opened" in embedded.stdout


def test_the_keyring_password_reaches_psycopg_and_no_string_shown_holds_it(tmp_path, password_role, chroma_server_url,
                                                                           file_keyring, local_state):
    url, password = password_role
    root = tmp_path / "team"
    team_library.create_team_library(root, url.replace("@", f":{password}@", 1), chroma_server_url, tmp_path / "files")
    user = team_library.database_keyring_user(url)
    assert keyring.get_password(team_library.DATABASE_KEYRING_SERVICE, user) == password
    with Library.open(root) as lib:
        shown = [str(lib.engine.url), repr(lib.engine), lib.describe(), library_info(lib).model_dump_json()]
        assert lib.is_team and not any(password in text for text in shown)
    keyring.delete_password(team_library.DATABASE_KEYRING_SERVICE, user)
    with pytest.raises(LibraryError, match="cannot open the library database") as caught:
        Library.open(root)
    assert password not in str(caught.value)


@pytest.mark.slow
def test_a_note_added_to_a_team_library_is_found_by_its_words(tmp_path, postgres_database, chroma_server,
                                                               chroma_server_url):
    root = tmp_path / "team"
    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    created = _cli("library", "create", str(root), "--team", "--db", postgres_database, "--vectors", chroma_server_url,
                   "--files", str(tmp_path / "files"), "--chroma-tenant", chroma_server.tenant, "--chroma-database",
                   chroma_server.database, env=env)
    assert created.returncode == 0, created.stderr
    added = _in_process("--library", str(root), "memory", "add", "Sea ice retreat measured by the Cryosat mission",
                        "--no-wait", "--json", env=env)
    assert added.exit_code == 0, added.output
    found = _in_process("memory", "search", "Cryosat", "--json", env={**env, "VANCETOPE_LIBRARY": str(root)})
    assert found.exit_code == 0, found.output
    assert json.loads(added.stdout)["id"] in found.stdout

    # A second member writes a descriptor of their own: it says it opens the library already there.
    joined = _in_process("library", "create", str(tmp_path / "member2"), "--team", "--db", postgres_database,
                         "--vectors", chroma_server_url, "--files", str(tmp_path / "files"), "--chroma-tenant",
                         chroma_server.tenant, "--chroma-database", chroma_server.database, env=env)
    assert joined.exit_code == 0, joined.output
    assert "(it opens the library already there: 1 documents)" in joined.stdout


def test_the_team_library_fixture_is_a_descriptor_opened_by_library_open(team_library, tmp_path):
    from vancetope_desktop.index.chroma_server import ServerVectorStore

    assert team_library.is_team and isinstance(team_library.vectors, ServerVectorStore)
    assert team_library.paths.files == tmp_path / "team-library-files" and team_library.paths.files.is_dir()
    assert (tmp_path / "team-library" / "team.json").is_file()
    assert team_library.vectors.server.database == team_library.team.vectors.database


def test_the_chroma_token_goes_from_the_variable_to_the_keyring_and_never_into_the_descriptor(
        tmp_path, postgres_database, chroma_server, chroma_server_url, file_keyring, monkeypatch):
    token = f"tok-{uuid.uuid4().hex}"
    monkeypatch.setenv(team_library.CHROMA_TOKEN_VARIABLE, token)
    root = tmp_path / "team"
    descriptor = team_library.create_team_library(root, postgres_database, chroma_server_url, tmp_path / "files",
                                                  tenant=chroma_server.tenant, chroma_database=chroma_server.database,
                                                  token_header="X-Chroma-Token")
    assert token not in (root / "team.json").read_text() and descriptor.vectors.token_header == "X-Chroma-Token"
    assert keyring.get_password(team_library.CHROMA_KEYRING_SERVICE,
                                team_library.chroma_keyring_user(descriptor.vectors)) == token
    monkeypatch.delenv(team_library.CHROMA_TOKEN_VARIABLE)
    server = team_library.chroma_server(descriptor)  # from the keyring now
    assert server.token == token and server.settings().chroma_auth_token_transport_header == "X-Chroma-Token"
    assert token not in repr(server)


def test_a_second_library_never_writes_or_drops_the_vectors_of_the_first_in_its_chroma_database(
        tmp_path, postgres_database, postgres_server_url, chroma_server, chroma_server_url, monkeypatch):
    """Found by a new user's trial: a library created or migrated onto the Chroma database of another (named by
    ``--chroma-database``, or two PostgreSQL databases of one name on one Chroma server) replaced that library's
    vectors. Now ``create`` refuses such a database and nothing is written; a descriptor pointing there anyway (made
    by hand) can neither write into the first library's collections nor drop them; the first is found as before."""
    import numpy as np

    from tests.servers import fresh_database
    from vancetope_desktop.services import documents, indexing
    from vancetope_desktop.services import search as search_service

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    chroma = {"tenant": chroma_server.tenant, "chroma_database": chroma_server.database}
    team_library.create_team_library(tmp_path / "first", postgres_database, chroma_server_url, tmp_path / "f1",
                                     **chroma)
    with Library.open(tmp_path / "first") as first:
        note = documents.add_text(first, "Herons nest in colonies near lakes and rivers.", title="Herons")
        indexing.try_drain(first)
        infos = first.vectors.collections()
        scopes, model = [info.scope for info in infos], infos[0].model  # as recorded: an upsert of that model
        vectors = first.vectors.counts(scopes)
    assert sum(vectors.values()) > 0

    with fresh_database(postgres_server_url) as second_database:
        with pytest.raises(LibraryError, match=r"already holds another library's vectors.*--chroma-database"):
            team_library.create_team_library(tmp_path / "second", second_database, chroma_server_url,
                                             tmp_path / "f2", **chroma)
        assert not (tmp_path / "second").exists() and not (tmp_path / "f2").exists()

        by_hand = team_library.read_descriptor(tmp_path / "first").model_copy(
            update={"database": team_library.DatabasePart(url=second_database), "files": str(tmp_path / "f2")})
        (tmp_path / "second").mkdir()
        team_library.write_descriptor(tmp_path / "second", by_hand)
        with Library.open(tmp_path / "second") as second:
            with pytest.raises(IndexUnavailable, match="another library's collections"):
                second.vectors.upsert(scopes[0], model, ["intruder"], np.ones((1, 384), dtype=np.float32),
                                      [{"doc_id": "intruder"}])
            with pytest.raises(IndexUnavailable, match="another library's collections"):
                second.vectors.reset(tmp_path / "aside")
            with pytest.raises(IndexUnavailable, match="another library's collections"):
                second.vectors.drop_collection(scopes[0])

    with Library.open(tmp_path / "first") as first:
        assert first.vectors.counts(scopes) == vectors
        hits = search_service.search(first, "where do wading birds breed", limit=3).hits
        assert hits and hits[0].document.id == note.id and hits[0].meaning > 0
