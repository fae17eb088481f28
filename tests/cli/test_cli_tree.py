"""The command tree that ``cli/apps.py`` declares: each command imported only when it runs, the declarations
and the modules in agreement, and ``--help`` the same whichever commands a process loaded first."""

import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from vancetope_desktop.cli import apps
from vancetope_desktop.cli.main import app

REPO = Path(__file__).resolve().parents[2]
GROUPS = {"": apps.app, "memory": apps.memory, "memory episode": apps.episode_app, "scope": apps.scope_app,
          "scope rule": apps.rule_app, "index": apps.index_app, "review": apps.review_app, "search": apps.search_app,
          "atoms": apps.atoms_app, "chat": apps.chat_app, "digest": apps.digest_app,
          "generator": apps.generator_app, "topics": apps.topics_app, "settings": apps.settings_app,
          "library": apps.library_app}
WIDE = {"COLUMNS": "120", "TERM": "dumb"}


@pytest.mark.parametrize("path", list(GROUPS))
def test_each_declared_command_is_registered_by_its_module_and_every_registered_one_is_declared(path):
    group = GROUPS[path]
    for module in group.modules_of(None):
        importlib.import_module(f"vancetope_desktop.cli.{module}")
    registered = list(typer.main.get_group(group).commands)
    declared = list(dict.fromkeys(name for name, _ in group.lazy_commands))
    assert sorted(registered) == sorted(declared), f"`vancetope {path}`: declare each command in cli/apps.py"


def test_help_lists_the_commands_in_the_declared_order_whatever_ran_before():
    runner = CliRunner()
    for args in (["memory", "recall", "--help"], ["scope", "rule", "set", "--help"], ["topics", "search", "--help"]):
        assert runner.invoke(app, args, env=WIDE).exit_code == 0
    listed = runner.invoke(app, ["memory", "--help"], env=WIDE).output
    rows = [line.split()[1] for line in listed.splitlines() if line.startswith("│ ") and len(line.split()) > 2
            and not line.split()[1].startswith("-")]
    order = [name for name, _ in apps.memory.lazy_commands]
    assert [r for r in rows if r in order] == order
    typo = runner.invoke(app, ["memory", "serch"], env=WIDE)
    assert typo.exit_code == 2 and "Did you mean 'search'" in typo.output


@pytest.mark.slow
def test_every_group_is_declared_in_apps():
    def groups(group):
        yield group
        for info in group.registered_groups:
            yield from groups(info.typer_instance)

    for group in GROUPS.values():
        for module in group.modules_of(None):
            importlib.import_module(f"vancetope_desktop.cli.{module}")
    assert {id(g) for g in groups(app)} == {id(g) for g in GROUPS.values()}


def test_the_top_help_imports_no_command_module_that_holds_a_group():
    probe = ("import sys\nfrom typer.testing import CliRunner\nfrom vancetope_desktop.cli.main import app\n"
             "assert CliRunner().invoke(app, ['--help']).exit_code == 0\n"
             "print(sorted(m for m in sys.modules if m.startswith('vancetope_desktop.cli.')))")
    listed = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=600,
                            env=dict(os.environ, PYTHONPATH=str(REPO)), check=True)
    modules = {m.rsplit(".", 1)[1] for m in ast.literal_eval(listed.stdout.strip())}
    assert modules == {"about_commands", "apps", "citation_commands", "context", "demo_commands", "main",
                       "identity_commands", "mcp_commands", "undo_commands"}


def test_the_main_module_imports_nothing_of_the_command_line_until_it_runs():
    """A worker process started with ``spawn`` (an upload's extraction process) imports the main module again, which
    is this one under `python -m` and the console script's: it must not bring the commands and their services."""
    probe = ("import sys, vancetope_desktop.cli.main\n"
             "print(sorted(m for m in sys.modules if m.startswith(('vancetope_desktop', 'typer', 'sqlalchemy'))))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=600,
                            env=dict(os.environ, PYTHONPATH=str(REPO)), check=True)
    assert ast.literal_eval(loaded.stdout.strip()) == ["vancetope_desktop", "vancetope_desktop.cli",
                                                       "vancetope_desktop.cli.main"]


def test_a_search_imports_no_other_command_and_not_chromadb(tmp_path):
    """A cold ``memory search`` loads its own command module only: not the services of the other commands (atom
    extraction, the generators' HTTP clients), and the vector store is read without the ``chromadb`` package."""
    library = tmp_path / "lib"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    cli = [sys.executable, "-m", "vancetope_desktop.cli.main"]
    added = subprocess.run([*cli, "memory", "add", "Chronic stress raises the risk of dementia in old age.",
                            "--library", str(library), "--json"], capture_output=True, text=True, env=env,
                           timeout=600, cwd=REPO)
    assert added.returncode == 0, added.stderr
    probe = ("import runpy, sys\n"
             "sys.argv = ['vancetope', 'memory', 'search', 'does stress cause dementia', '--json', '--library', "
             f"{str(library)!r}]\n"
             "try:\n    runpy.run_module('vancetope_desktop.cli.main', run_name='__main__')\n"
             "except SystemExit as done:\n    assert not done.code, done.code\n"
             "print(sorted(sys.modules), file=sys.stderr)\n")
    searched = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=600,
                              cwd=REPO)
    assert searched.returncode == 0, searched.stderr
    assert json.loads(searched.stdout)["hits"][0]["document"]["id"] == json.loads(added.stdout)["id"]
    loaded = set(ast.literal_eval(searched.stderr.strip().splitlines()[-1]))
    commands = {m.rsplit(".", 1)[1] for m in loaded if m.startswith("vancetope_desktop.cli.")}
    assert commands == {"apps", "context", "filters", "memory_search_commands", "render"}  # main ran as __main__
    assert not loaded & {"chromadb", "vancetope_desktop.services.atom_extraction", "httpx", "torch"}
