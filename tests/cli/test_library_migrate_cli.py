"""``vancetope library migrate``: an embedded library copied into a new folder, its verification printed (table and
--json), a target that is not empty refused."""

from __future__ import annotations

import json

import pytest
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


@pytest.mark.servers
@pytest.mark.slow
def test_migrate_to_a_new_team_library_and_back(tmp_path, postgres_database, chroma_server, chroma_server_url,
                                                monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # the team library's locks: this machine's
    note = _source(tmp_path / "source")
    runner = CliRunner()
    team = runner.invoke(app, ["library", "migrate", str(tmp_path / "source"), str(tmp_path / "team"), "--team",
                               "--db", postgres_database, "--vectors", chroma_server_url, "--files",
                               str(tmp_path / "shared"), "--chroma-tenant", chroma_server.tenant,
                               "--chroma-database", chroma_server.database, "--json"])
    assert team.exit_code == 0, team.output
    value = json.loads(team.stdout)
    assert value["ok"] and value["target"].startswith("postgresql+psycopg://")
    assert {row["what"]: row["target"] for row in value["counts"]}["document"] == 1

    # Into the same database again through a new folder: refused, and no descriptor is left there to open that
    # database without its files (a tester found one, 3 Dec 2026).
    again = runner.invoke(app, ["library", "migrate", str(tmp_path / "source"), str(tmp_path / "team2"), "--team",
                                "--db", postgres_database, "--vectors", chroma_server_url, "--files",
                                str(tmp_path / "shared2"), "--chroma-tenant", chroma_server.tenant,
                                "--chroma-database", chroma_server.database])
    assert again.exit_code == 1 and "is not empty (" in again.stderr
    assert not (tmp_path / "team2").exists() and not (tmp_path / "shared2").exists()

    back = runner.invoke(app, ["library", "migrate", str(tmp_path / "team"), str(tmp_path / "back"), "--json"])
    assert back.exit_code == 0, back.output
    assert json.loads(back.stdout)["ok"]
    found = runner.invoke(app, ["memory", "search", "salty water", "--json", "--library", str(tmp_path / "back")])
    assert json.loads(found.stdout)["hits"][0]["document"]["id"] == note


def test_team_options_without_team_are_refused_before_anything_is_written(tmp_path):
    _source(tmp_path / "source")
    result = CliRunner().invoke(app, ["library", "migrate", str(tmp_path / "source"), str(tmp_path / "copy"),
                                      "--db", "postgresql://nobody@127.0.0.1:1/x"])
    assert result.exit_code == 2 and "add --team" in result.stderr
    assert not (tmp_path / "copy").exists()


def test_a_source_that_is_no_library_is_refused_and_not_created(tmp_path):
    result = CliRunner().invoke(app, ["library", "migrate", str(tmp_path / "typo"), str(tmp_path / "copy")])
    assert result.exit_code == 3 and "holds no library to copy" in result.stderr
    assert not (tmp_path / "typo").exists() and not (tmp_path / "copy").exists()
