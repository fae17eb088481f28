"""`vancetope demo`: the demo library from the terminal, as Help ▸ Load the demo library installs it."""

import json

import pytest
from typer.testing import CliRunner

from vancetope_desktop.cli.main import app


@pytest.mark.slow
def test_demo_installs_once_and_search_finds_its_papers(tmp_path):
    library = str(tmp_path / "lib")
    runner = CliRunner()
    first = runner.invoke(app, ["demo", "--library", library, "--json"])
    assert first.exit_code == 0, first.output + str(first.exception)
    report = json.loads(first.stdout)
    assert report["project"] == "project/transformer-efficiency" and report["failures"] == []
    assert {"vaswani2017.pdf", "dao2022_flashattention.pdf", "kitaev2020_reformer.pdf"} <= set(report["documents"])

    again = runner.invoke(app, ["demo", "--library", library])
    assert again.exit_code == 2 and "installed already" in again.output

    found = runner.invoke(app, ["memory", "search", "IO-aware exact attention", "--library", library, "--json"])
    assert found.exit_code == 0, found.output
    hits = json.loads(found.stdout)["hits"]
    assert hits[0]["document"]["id"] == report["documents"]["dao2022_flashattention.pdf"]
