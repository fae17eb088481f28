"""The CLI's click command built once per process for ``typer.testing.CliRunner``: used by tests/conftest.py in
every test process and by the load test's CLI drivers (tests/e2e/team_load.py), which run many commands in one
process as the suite does."""

from __future__ import annotations


def build_cli_commands_once() -> None:
    """Let ``typer.testing.CliRunner.invoke`` build the click command of an app once per test process.

    typer builds the whole command tree (every command's parameters from its signature and type hints) at each
    ``invoke``: 0.25-0.5 s each, and the suite invokes the CLI in-process some 500 times (22 invocations of
    tests/cli/test_topic_commands.py's first test spent 10.9 of its 19.3 s there). The tree is the same for the
    same ``Typer`` app, and click makes a new context for each call; a real ``vancetope`` process builds it once
    too. Keyed by the app object, which the tests import from the product (``cli.main.app``).
    """
    import typer.main
    import typer.testing

    built: dict[int, tuple[object, object]] = {}

    def command_of(app):
        app_and_command = built.get(id(app))
        if app_and_command is None or app_and_command[0] is not app:
            app_and_command = built[id(app)] = (app, typer.main.get_command(app))
        return app_and_command[1]

    typer.testing._get_command = command_of
