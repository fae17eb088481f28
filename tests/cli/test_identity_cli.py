"""`vancetope whoami`, `memory edit --merge` and the authors `memory versions` lists (issue 17)."""

import getpass
import json

import pytest
from typer.testing import CliRunner

from vancetope_desktop.cli.main import app
from vancetope_desktop.services import identity

TEXT = "# Trial plan\n\nRecruit 40 patients.\n\nAnalyse with a t-test.\n\nReport in May.\n"


@pytest.fixture(autouse=True)
def _own_config(tmp_path, monkeypatch):
    monkeypatch.setenv("VANCETOPE_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.delenv(identity.IDENTITY_ENV, raising=False)


def test_whoami_shows_sets_and_resets_the_name(monkeypatch):
    runner = CliRunner()

    def cli(*args, ok=True):  # no --library: an identity is the person's, in every library
        result = runner.invoke(app, list(args))
        assert not ok or result.exit_code == 0, result.output
        return result

    first = json.loads(cli("whoami", "--json").stdout)
    assert first["origin"] == "login" and first["actor"].startswith("user:")
    assert "Ada Lovelace" in cli("whoami", "--set", "Ada Lovelace").stdout
    assert json.loads(cli("whoami", "--json").stdout) == {"actor": "user:Ada Lovelace", "origin": "preferences"}
    monkeypatch.setenv(identity.IDENTITY_ENV, "service:import")
    assert "service:import" in cli("whoami").stdout and "VANCETOPE_IDENTITY" in cli("whoami").stdout
    monkeypatch.delenv(identity.IDENTITY_ENV)
    refused = cli("whoami", "--set", "x" * 81, ok=False)
    assert refused.exit_code == 2 and "at most 80 characters" in refused.output
    assert json.loads(cli("whoami", "--reset", "--json").stdout)["origin"] == "login"


def test_edit_merge_writes_a_clean_merge_and_refuses_a_conflict_showing_it(cli, monkeypatch):
    note = json.loads(cli("memory", "add", TEXT, "--type", "note", "--title", "Plan", "--no-wait", "--json").stdout)
    monkeypatch.setenv(identity.IDENTITY_ENV, "bob")
    cli("memory", "edit", note["id"], "--content", TEXT.replace("t-test", "mixed model"), "--no-wait")
    monkeypatch.setenv(identity.IDENTITY_ENV, "ada")
    merged = json.loads(cli("memory", "edit", note["id"], "--content", TEXT.replace("40", "60"), "--if-version", "1",
                            "--merge", "--no-wait", "--json").stdout)
    assert "Recruit 60 patients." in merged["content"] and "mixed model" in merged["content"]
    assert (merged["version"], merged["updated_by"]) == (3, "user:ada")
    refused = cli("memory", "edit", note["id"], "--content", TEXT.replace("t-test", "Wilcoxon test"),
                  "--if-version", "1", "--merge", "--no-wait", ok=False)
    assert refused.exit_code == 6
    assert "conflict at line 5 of the merge" in refused.stderr and "Wilcoxon" in refused.stderr
    assert "left 1 conflict" in refused.stderr and "version 3 by user:ada" in refused.stderr
    assert json.loads(cli("memory", "read", note["id"], "--json").stdout)["version"] == 3  # nothing written
    wrong = cli("memory", "edit", note["id"], "--content", "x", "--merge", ok=False)
    assert wrong.exit_code == 2 and "--if-version" in wrong.output

    versions = json.loads(cli("memory", "versions", note["id"], "--json").stdout)
    assert [(v["number"], v["created_by"]) for v in versions] == [(1, f"user:{getpass.getuser()}"), (2, "user:bob")]
    assert "user:bob" in cli("memory", "versions", note["id"]).stdout
