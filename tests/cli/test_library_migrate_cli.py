"""``vancetope library migrate``: an embedded library copied into a new folder, its verification printed (table and
--json), a target that is not empty refused."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from vancetope_desktop.cli.main import app
from vancetope_desktop.services import documents, indexing
from vancetope_desktop.services.library import Library


def _source(root):
    with Library.open(root) as lib:
        note = documents.add_text(lib, "Mangrove palms tolerate brackish water.", title="Mangrove palms",
                                  tags=["botany"])
        documents.update_document(lib, note.id, content="Mangrove palms tolerate brackish and salty water.")
        indexing.try_drain(lib)
    return note.id


def test_migrate_copies_into_a_new_folder_and_prints_equal_counts(tmp_path):
    note = _source(tmp_path / "source")
    runner = CliRunner()
    result = runner.invoke(app, ["library", "migrate", str(tmp_path / "source"), str(tmp_path / "copy"), "--json"])
    assert result.exit_code == 0, result.output
    value = json.loads(result.stdout)
    counts = {row["what"]: (row["source"], row["target"]) for row in value["counts"]}
    assert value["ok"] and counts["document"] == (1, 1) and counts["document_version"] == (1, 1)
    assert [count for what, count in counts.items() if what.startswith("vectors ")] == [(1, 1)]
    assert value["target"].endswith("copy/library.sqlite")

    found = runner.invoke(app, ["memory", "search", "salty water", "--json", "--library", str(tmp_path / "copy")])
    assert found.exit_code == 0, found.output
    assert json.loads(found.stdout)["hits"][0]["document"]["id"] == note

    again = runner.invoke(app, ["library", "migrate", str(tmp_path / "source"), str(tmp_path / "copy")])
    assert again.exit_code == 1
    assert "is not empty (" in again.stderr and "a library is copied into a new one only" in again.stderr


def test_migrate_prints_the_verification_as_a_table(tmp_path):
    _source(tmp_path / "source")
    result = CliRunner().invoke(app, ["library", "migrate", str(tmp_path / "source"), str(tmp_path / "copy")])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("copied sqlite:///") and lines[-1] == "counts equal"
    assert any(line.replace("│", " ").split()[:3] == ["document", "1", "1"] for line in lines)


def test_a_source_that_is_no_library_is_refused_and_not_created(tmp_path):
    result = CliRunner().invoke(app, ["library", "migrate", str(tmp_path / "typo"), str(tmp_path / "copy")])
    assert result.exit_code == 3 and "holds no library to copy" in result.stderr
    assert not (tmp_path / "typo").exists() and not (tmp_path / "copy").exists()
