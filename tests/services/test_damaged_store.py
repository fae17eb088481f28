"""A damaged vector store is noticed and repaired (issue 10): `index status` checks it against SQLite, search
warns and keeps working on keywords, and a rebuild makes it again from SQLite whatever state it is in.

Real libraries, real Chroma: the store is truncated (as a crash or a full disk leaves it), emptied (its
collections deleted) or deleted, then looked at by a new process would (the library is reopened).
"""

import shutil

import pytest
from typer.testing import CliRunner

from vancetope_desktop.cli.main import app
from vancetope_desktop.core.documents import ChunkRole
from vancetope_desktop.ingest.base import ChunkDraft
from vancetope_desktop.services import documents, indexing, records, search
from vancetope_desktop.services.library import Library
from vancetope_desktop.store.db import write_session

SCOPE = "project/inbox"


@pytest.fixture
def indexed(tmp_path):
    """Three indexed documents, one with a reference-list chunk (kept out of the vector store by design)."""
    root = tmp_path / "lib"
    with Library.open(root) as lib:
        heron = documents.add_text(lib, "Herons nest in colonies near lakes and rivers.", title="Herons")
        documents.add_text(lib, "Glaciers in Greenland melt faster every year.", title="Glaciers")
        paper = documents.add_text(lib, "placeholder", title="A paper")
        with write_session(lib.engine) as session:
            drafts = [ChunkDraft("Chronic stress raises the risk of dementia in old age."),
                      ChunkDraft("[1] Smith J. Stress and dementia. Lancet 2001.", role=ChunkRole.REFERENCES)]
            records.replace_chunks(session, records.document_row(session, paper.id), drafts, [11, 12])
        assert indexing.try_drain(lib).chunks == 3  # 1 + 1 + the paper's body chunk
        check = indexing.check_vectors(lib)
        assert check.problems == [] and [(s.scope, s.expected, s.stored) for s in check.scopes] == [(SCOPE, 3, 3)]
    return root, heron.id


def _damage(root, how):
    chroma = root / "chroma"
    if how == "truncate":
        database = chroma / "chroma.sqlite3"
        with database.open("r+b") as handle:
            handle.truncate(database.stat().st_size // 3)
    elif how == "empty":
        with Library.open(root) as lib:
            for info in lib.vectors.collections():
                lib.vectors.drop_collection(info.scope)
    else:
        shutil.rmtree(chroma)


@pytest.mark.slow
@pytest.mark.parametrize("how", ["truncate", "empty", "delete"])
def test_a_damaged_store_is_reported_searched_by_words_and_rebuilt(indexed, how):
    root, heron = indexed
    _damage(root, how)
    with Library.open(root) as lib:
        problems = indexing.index_status(lib).problems
        if how == "truncate":
            assert len(problems) == 1 and "vector store cannot be opened" in problems[0]
        else:
            assert problems == [f"{SCOPE}: 3 of 3 vectors missing (the store holds 0)"]
        response = search.search(lib, "heron colonies")
        assert [h.document.id for h in response.hits][:1] == [heron]  # the keywords still find it
        assert len(response.warnings) == 1 and "rebuild the search index" in response.warnings[0]

        rebuilt = indexing.rebuild_index(lib)
        assert rebuilt.queued == 3
        if how == "truncate":  # moved aside and kept, not deleted
            assert rebuilt.moved_aside is not None and rebuilt.moved_aside.startswith(str(root / "backups"))
            assert (root / "backups").joinpath(rebuilt.moved_aside.rsplit("/", 1)[1], "chroma.sqlite3").exists()
        else:
            assert rebuilt.moved_aside is None
        assert indexing.try_drain(lib).chunks == 3
    with Library.open(root) as lib:
        assert indexing.index_status(lib).problems == []
        response = search.search(lib, "where do wading birds breed")
        assert response.warnings == [] and response.hits[0].document.id == heron
        assert response.hits[0].vector is not None


@pytest.mark.slow
def test_the_cli_reports_and_rebuilds_a_truncated_store_without_a_traceback(indexed):
    root, heron = indexed
    _damage(root, "truncate")
    runner = CliRunner()

    def vancetope(*args):
        result = runner.invoke(app, [*args, "--library", str(root)])
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        return result

    status = vancetope("index", "status")
    assert status.exit_code == 0 and "vector store cannot be opened" in status.stdout
    found = vancetope("memory", "search", "heron colonies")
    assert found.exit_code == 0 and heron in found.stdout and "keyword results only" in found.stderr
    added = vancetope("memory", "add", "Storks migrate south in autumn")
    assert added.exit_code == 0 and "found by its words only for now" in added.stderr
    rebuilt = vancetope("index", "rebuild")
    assert rebuilt.exit_code == 0 and "damaged vector store was moved to" in rebuilt.stderr
    assert "indexed 4 document(s), 4 chunks" in rebuilt.stdout
    status = vancetope("index", "status", "--json")
    assert '"problems": []' in status.stdout
