"""`vancetope memory upload` with its output going to a file says how far it got, one line per file."""

from __future__ import annotations

from typer.testing import CliRunner

from vancetope_desktop.cli.main import app


def test_upload_not_on_a_terminal_prints_a_line_per_file(tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    for name in ("alpha", "beta", "gamma"):
        (notes / f"{name}.md").write_text(f"# {name}\n\nA short note about {name}.\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["memory", "upload", str(notes), "--no-wait", "--library", str(tmp_path / "lib")])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("importing ")]
    assert lines == ["importing 1/3: alpha.md", "importing 2/3: beta.md", "importing 3/3: gamma.md"]
