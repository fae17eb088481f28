"""``vancetope library`` on an embedded library (the team library's commands: tests/services/test_team_library.py)."""

import json

from typer.testing import CliRunner

from vancetope_desktop.cli.main import app


def cli(*args, ok=True):
    result = CliRunner().invoke(app, list(args))  # the PATH argument, not --library
    if ok:
        assert result.exit_code == 0, result.output + str(result.exception)
    return result


def test_create_makes_an_embedded_library_and_info_says_where_its_parts_are(tmp_path):
    root = tmp_path / "made"
    created = cli("library", "create", str(root), "--json")
    assert json.loads(created.stdout) == {"path": str(root), "backend": "embedded",
                                          "description": f"embedded library at {root}", "documents": 0}
    assert (root / "library.sqlite").exists() and (root / "settings.json").exists()
    info = json.loads(cli("library", "info", str(root), "--json").stdout)
    assert info["backend"] == "embedded" and info["documents"] == 0 and info["schema_revision"].startswith("schema")
    assert (info["database"], info["vectors"], info["files"]) == (str(root / "library.sqlite"), str(root / "chroma"),
                                                                  str(root / "files"))
    refused = cli("library", "create", str(tmp_path / "other"), "--db", "postgresql://x@h/d", ok=False)
    assert refused.exit_code == 2 and "add --team" in refused.output and not (tmp_path / "other").exists()
    upgraded = cli("library", "upgrade", str(root))
    assert "upgrades itself when opened" in upgraded.stdout
