"""`vancetope export`, `vancetope cite` and `vancetope memory citekey`, in-process (typer's runner)."""

import json

import pytest
from typer.testing import CliRunner

from vancetope_desktop.cli.main import app
from vancetope_desktop.ingest.bibliography import parse_ris
from vancetope_desktop.ingest.bibtex import parse_bibtex

BIB = """@article{smith2020,
  author = {Smith, Jane and {World Glacier Monitoring Service}},
  title = {Glacier melt and sea level},
  journal = {Journal of Ice},
  year = {2020},
}
"""


@pytest.fixture
def cli(tmp_path):
    runner = CliRunner()
    library = str(tmp_path / "lib")

    def invoke(*args, ok=True, stdin=None):
        result = runner.invoke(app, [*args, "--library", library], input=stdin)
        if ok:
            assert result.exit_code == 0, result.output + str(result.exception)
        return result

    return invoke


def test_export_cite_and_edit_a_key(cli, tmp_path):
    ref = json.loads(cli("memory", "add", "-", "--type", "reference", "--no-wait", "--json", stdin=BIB).stdout)
    ref_id = ref["entries"][0]["document_id"]
    folder = json.loads(cli("memory", "mkdir", "Thesis", "--json").stdout)["id"]
    note = json.loads(cli("memory", "add", "Ice shelves thin from below.", "--type", "note", "--title",
                          "Shelf notes", "--folder", folder, "--no-wait", "--json").stdout)

    # the format follows the file's suffix; the summary goes to stderr
    target = tmp_path / "out" / "refs.ris"
    target.parent.mkdir()
    result = cli("export", ref_id, note["id"], "-o", str(target))
    assert "exported 2 entries as RIS" in result.stderr
    entries = parse_ris(target.read_text(encoding="utf-8")).entries
    assert [e.key for e in entries] == ["smith2020", f"shelf{note['created_at'][:4]}"]

    bibtex = cli("export", "--folder", folder, "--format", "bibtex").stdout
    assert [e.title for e in parse_bibtex(bibtex).entries] == ["Shelf notes"]
    everything = json.loads(cli("export", "--format", "csl-json").stdout)
    assert {i["id"] for i in everything} == {"smith2020", f"shelf{note['created_at'][:4]}"}

    cited = cli("cite", ref_id, "--style", "ieee").stdout
    assert "J. Smith and World Glacier Monitoring Service" in cited and "2020" in cited
    assert "<i>Journal of Ice</i>" in cli("cite", ref_id, "--style", "ieee", "--html").stdout

    assert cli("memory", "citekey", ref_id, "glacier20").stdout.strip() == "glacier20"
    assert cli("memory", "citekey", ref_id).stdout.strip() == "glacier20"
    refused = cli("memory", "citekey", note["id"], "glacier20", ok=False)
    assert refused.exit_code == 2 and "already the key of" in refused.output
    assert cli("export", ref_id, "-o", str(tmp_path / "refs.docx"), ok=False).exit_code == 2
    assert cli("cite", ok=False).exit_code == 2
