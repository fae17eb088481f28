"""The CLI run in-process on a fresh library (typer's CliRunner): one fixture for every CLI test module."""

import pytest
from typer.testing import CliRunner

from vancetope_desktop.cli.main import app


@pytest.fixture
def cli(tmp_path, library_at):
    """``cli(*args, ok=True, stdin=None)`` runs ``vancetope *args --library <tmp>/lib`` (``stdin``: its standard
    input); with ``ok`` it asserts exit 0. The library is embedded, then a team library (``library_at``)."""
    runner = CliRunner()
    library = str(library_at(tmp_path / "lib"))

    def invoke(*args, ok=True, stdin=None):
        result = runner.invoke(app, [*args, "--library", library], input=stdin)
        if ok:
            assert result.exit_code == 0, result.output + str(result.exception)
        return result

    return invoke
