"""Two processes on one library: the app (here a resident writer) open while the CLI writes and reads."""

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from vancetope_desktop.services import documents, search
from vancetope_desktop.services.library import Library

CLI = [sys.executable, "-m", "vancetope_desktop.cli.main"]
RESIDENT = Path(__file__).with_name("resident_writer.py")


@pytest.fixture
def resident(tmp_path):
    library = tmp_path / "lib"
    Library.open(library).close()
    process = subprocess.Popen([sys.executable, str(RESIDENT), str(library)], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "ready"
    yield library
    process.kill()
    process.wait()
    process.stdout.close()


def cli(library, *args):
    env = dict(os.environ, VANCETOPE_LIBRARY=str(library))
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=env, timeout=300)


def test_cli_writes_while_the_app_indexes_and_a_reader_sees_new_vectors(resident):
    with Library.open(resident) as reader:  # a long-lived reader, like an agent server
        assert not reader.writer_lock.try_acquire()
        assert search.search(reader, "glacier melt rates").hits == []  # opens its vector client now
        result = cli(resident, "memory", "add", "Greenland glaciers lost ice faster in 2023", "--json")
        assert result.returncode == 0, result.stderr
        doc_id = __import__("json").loads(result.stdout)["id"]
        assert documents.get_document(reader, doc_id).index_state.value == "indexed"
        deadline = time.monotonic() + 60  # a deadline for a loaded machine: the vectors are written already
        while True:
            hits = search.search(reader, "glacier melt rates").hits
            if hits and hits[0].vector is not None:
                break
            assert time.monotonic() < deadline, "the reader never saw the new vectors"
            time.sleep(0.5)
        assert hits[0].document.id == doc_id


def test_concurrent_writers_never_see_database_locked(resident):
    """Three CLI processes at a time write beside the app's writer, in two waves: each wave's three start together,
    so their writes meet (four waves cost 12 process start-ups, 27 of this test's CPU s, for the same claim)."""
    def add_many(prefix):
        codes = []
        for i in range(2):
            result = cli(resident, "memory", "add", f"{prefix} fact number {i}", "--no-wait")
            codes.append((result.returncode, result.stderr))
        return codes

    with ThreadPoolExecutor(3) as pool:
        results = [code for batch in pool.map(add_many, ["alpha", "beta", "gamma"]) for code in batch]
    assert all(code == 0 for code, _ in results), [err for code, err in results if code]
    assert not any("locked" in err for _, err in results)
    with Library.open(resident) as lib:
        deadline = time.monotonic() + 300  # a deadline for the niced indexing process on a loaded machine
        while any(d.index_state.value == "pending" for d in documents.list_documents(lib)):
            assert time.monotonic() < deadline
            time.sleep(0.5)
        assert len(documents.list_documents(lib)) == 6


@pytest.mark.slow
def test_index_run_while_the_app_indexes_waits_for_it_and_succeeds(resident):
    """Another process indexing the library is no failure: `index run` waits for it, or leaves it with --no-wait.
    The note is queued here, in the test's process (a `memory add --no-wait` process cost 2.4 CPU s to do the same)."""
    with Library.open(resident) as lib:
        doc_id = documents.add_text(lib, "Herons nest in colonies near lakes").id
    ran = cli(resident, "index", "run")
    assert ran.returncode == 0 and "indexed the queue" in ran.stdout, ran.stderr
    with Library.open(resident) as lib:
        assert documents.get_document(lib, doc_id).index_state.value == "indexed"
    left = cli(resident, "index", "run", "--no-wait", "--json")
    assert left.returncode == 0 and isinstance(json.loads(left.stdout)["indexing_process"], int), left.stderr
