"""``--no-wait`` on every write command that indexes what it changed (found by a new user: `edit` and `tag`
lacked it, so a script could not skip the wait there)."""

import inspect
import json

import typer

from vancetope_desktop.cli.main import app


def _commands(group, prefix: str = ""):
    # Through list_commands/get_command: a group imports its commands' modules only when they are listed
    # (cli/apps.py), so its ``commands`` holds none of them before.
    context = group.context_class(group)
    for name in group.list_commands(context):
        command = group.get_command(context, name)
        if hasattr(command, "commands"):  # a group (typer's click, not necessarily the click package's)
            yield from _commands(command, f"{prefix}{name} ")
        else:
            yield f"{prefix}{name}", command


def test_every_command_that_indexes_takes_no_wait():
    sources = {name: (command, inspect.getsource(inspect.unwrap(command.callback)))
               for name, command in _commands(typer.main.get_command(app)) if command.callback}
    indexing = {name: command for name, (command, source) in sources.items()
                if "try_drain" in source or "_index_now" in source or "_step(" in source or "_move_scope(" in source}
    assert {"memory tag", "memory edit", "memory add", "memory upload", "memory purge", "undo", "memory promote"} \
        <= set(indexing)
    lacking = [name for name, command in indexing.items()
               if not any("--no-wait" in getattr(p, "secondary_opts", ()) for p in command.params)]
    assert lacking == []


def test_tag_and_edit_with_no_wait_leave_the_indexing_to_the_writer(cli):
    doc = json.loads(cli("memory", "add", "A short note.", "--type", "note", "--no-wait", "--json").stdout)["id"]
    edited = json.loads(cli("memory", "edit", doc, "--content", "A longer note now.", "--no-wait", "--json").stdout)
    assert edited["index_state"] == "pending"
    tagged = json.loads(cli("memory", "tag", doc, "--add", "bees", "--no-wait", "--json").stdout)
    assert tagged["tags"] == ["bees"] and tagged["index_state"] == "pending"
