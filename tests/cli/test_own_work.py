"""A small write does its own indexing and returns: the rest of the queue is the writer's (issue 10).

With an agent storing memories faster than they are embedded, `memory tag` used to drain the whole queue
when it won the writer lock (a median of 157 s for a tag). Measured here in work, not seconds: which
documents got embedded, and how many chunks.
"""

import json
import re

import pytest
from typer.testing import CliRunner

from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.cli.main import app
from vancetope_desktop.services import documents, indexing
from vancetope_desktop.services.library import Library

BACKLOG = 30


@pytest.fixture
def backlog(tmp_path, library_at):
    """A library with one indexed note, then BACKLOG documents queued by "another process" (not embedded); embedded,
    then a team library (``library_at``)."""
    root = library_at(tmp_path / "lib")
    with Library.open(root) as lib:
        mine = documents.add_text(lib, "Heron counts at the lake in spring", title="Herons")
        assert indexing.try_drain(lib, documents=[mine.id]).indexed == [mine.id]
        others = [documents.add_text(lib, f"Agent memory {i}: reading {i} of the sensor.").id for i in range(BACKLOG)]
    return root, mine.id, others


def _cli(root, *args):
    result = CliRunner().invoke(app, [*args, "--library", str(root)])
    assert result.exit_code == 0, result.output + str(result.exception)
    return result


def _states(root, ids):
    with Library.open(root) as lib:
        return {documents.get_document(lib, i).index_state.value for i in ids}


def test_tag_and_add_embed_only_their_own_documents(backlog):
    root, mine, others = backlog
    with Library.open(root) as lib:
        assert indexing.pending_work(lib) == (BACKLOG, BACKLOG)
    tagged = json.loads(_cli(root, "memory", "tag", mine, "--add", "birds", "--json").stdout)
    assert tagged["tags"] == ["birds"]
    with Library.open(root) as lib:
        assert indexing.pending_work(lib) == (BACKLOG, BACKLOG)  # not one chunk of the backlog embedded
        assert not indexing.has_jobs(lib, [mine])  # its own refresh (the tags in its vectors) is done
        ids, _, metadatas = lib.vectors.document_vectors("project/inbox", mine)
        assert ids and metadatas[0]["tags"] == ["birds"]

    added = _cli(root, "memory", "add", "Grebes nest on floating platforms")
    new = re.search(r"doc_[0-9a-f]{12}", added.stdout).group()
    assert _states(root, [new]) == {"indexed"}
    assert "indexed 1 document(s), 1 chunks" in added.stderr
    assert f"{BACKLOG} other document(s) wait for indexing" in added.stderr
    with Library.open(root) as lib:
        assert indexing.pending_work(lib) == (BACKLOG, BACKLOG)
    assert _states(root, others) == {"pending"}

    run = json.loads(_cli(root, "index", "run", "--json").stdout)  # the writer drains everyone's work
    assert run["indexed"] == BACKLOG and run["chunks"] == BACKLOG
    assert _states(root, others) == {"indexed"}


def test_the_tool_api_indexes_only_what_the_call_stored(backlog):
    root, mine, _others = backlog
    with Library.open(root) as lib:
        tools = MemoryTools(lib, "project/inbox", index_now=True)
        stored = tools.memory_store("The deadline is June 15th", type="fact")
        assert stored.index_state == "indexed"
        assert tools.memory_tag(mine, ["lake"]).index_state == "indexed"
        assert indexing.pending_work(lib) == (BACKLOG, BACKLOG)


def test_the_writer_drains_given_documents_only(backlog):
    root, _mine, others = backlog
    with Library.open(root) as lib:
        report = indexing.try_drain(lib, documents=others[:3])
        assert sorted(report.indexed) == sorted(others[:3]) and report.chunks == 3
        assert indexing.pending_work(lib) == (BACKLOG - 3, BACKLOG - 3)
        assert indexing.pending_work(lib, others[:5]) == (2, 2)
        assert indexing.try_drain(lib, documents=[]).chunks == 0
