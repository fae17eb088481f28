"""`vancetope memory purge` takes a trashed folder with its contents, and `memory empty-trash` empties a
scope's trash; both ask first unless --yes."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from vancetope_desktop.cli.main import app
from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.services import documents, folders
from vancetope_desktop.services.library import Library


@pytest.fixture
def cli(tmp_path, library_at):
    """``cli(*args, answer=typed input, code=expected exit code or None)`` on the library at ``tmp_path/lib``:
    embedded, then a team library (``library_at``)."""
    runner = CliRunner()
    library = str(library_at(tmp_path / "lib"))

    def invoke(*args, answer: str | None = None, code: int | None = 0):
        result = runner.invoke(app, [*args, "--library", library], input=answer)
        assert code is None or result.exit_code == code, result.output + str(result.exception)
        return result

    return invoke


@pytest.fixture
def trashed(cli, tmp_path):
    """Papers/ with a note, trashed together, and two loose trashed notes beside one kept (made through the
    services: `memory add` would embed each note), in ``cli``'s library (a team library's descriptor written first)."""
    with Library.open(tmp_path / "lib") as lib:
        folder = folders.create_folder(lib, "Papers")
        note = documents.add_text(lib, "Attention notes", doc_type=DocumentType.NOTE, folder_id=folder.id)
        documents.set_status(lib, folder.id, DocumentStatus.DELETED)
        loose = [documents.add_text(lib, f"Gone {n}", doc_type=DocumentType.NOTE).id for n in range(2)]
        for doc_id in loose:
            documents.set_status(lib, doc_id, DocumentStatus.DELETED)
        kept = documents.add_text(lib, "Kept", doc_type=DocumentType.NOTE).id
    return {"folder": folder.id, "note": note.id, "loose": loose, "kept": kept}


def _ids(result) -> list[str]:
    return json.loads(result.stdout)["deleted"]


def test_purge_takes_a_trashed_folder_with_its_contents_after_asking(cli, trashed):
    folder, note = trashed["folder"], trashed["note"]
    refused = cli("memory", "purge", folder, answer="n\n", code=1)
    assert "everything inside it" in refused.output and "nothing deleted" in refused.output
    cli("memory", "read", note)  # still there
    assert set(_ids(cli("memory", "purge", folder, "--yes", "--json"))) == {folder, note}
    assert cli("memory", "read", note, code=None).exit_code != 0


def test_empty_trash_asks_then_deletes_the_trash_of_the_scope(cli, trashed):
    asked = cli("memory", "empty-trash", answer="y\n")
    assert "Delete the 4 documents in the trash" in asked.output and "deleted 4 documents" in asked.output
    cli("memory", "read", trashed["kept"])
    assert cli("memory", "read", trashed["loose"][0], code=None).exit_code != 0
    assert _ids(cli("memory", "empty-trash", "--yes", "--json")) == []
