"""The user guide (Help ▸ User Guide) stays true: every `vancetope …` command, menu path and shortcut
it names exists in the CLI and the window."""

from __future__ import annotations

import re
import shlex

import pytest
import typer

from vancetope_desktop.cli.main import app
from vancetope_desktop.resources import resource_path
from vancetope_desktop.ui import help_dialogs

pytestmark = [pytest.mark.qt_log_ignore("This plugin does not support (propagateSizeHints|raise)")]

GUIDE = resource_path(*help_dialogs.GUIDE).read_text(encoding="utf-8")
COMMANDS = re.findall(r"`vancetope ([^`]+)`", GUIDE)
MENU_PATHS = re.findall(r"\*(File|Edit|View|Scope|Document|Help) ▸\s+([^*]+)\*", GUIDE)
KEYS = set(re.findall(r"\b(?:(?:Ctrl|Shift|Alt)\+)+(?:F\d+|[A-Z0-9,])|\bF\d+\b", GUIDE))


def test_the_guide_covers_what_a_zotero_and_obsidian_user_looks_for():
    # The trial's guide said nothing of highlights, notes, citations, duplicates, undo, saved searches,
    # backlinks or reading status.
    for topic in ("highlight", "Copy Citation", "Export", "Duplicates", "Undo", "Saved searches",
                  "Backlinks", "[[Title]]", "Reading status", "Add to Folder", "Add Tag"):
        assert topic.lower() in GUIDE.lower(), topic
    assert len(COMMANDS) >= 12 and len(MENU_PATHS) >= 8 and len(KEYS) >= 10


@pytest.mark.parametrize("line", COMMANDS)
def test_every_command_of_the_guide_exists_with_its_options(line):
    command = typer.main.get_command(app)
    words = shlex.split(line)
    # A group imports its commands' modules when asked for one (cli/apps.py): get_command, not ``commands``.
    while hasattr(command, "commands") and words and words[0] in command.list_commands(command.context_class(command)):
        command = command.get_command(command.context_class(command), words.pop(0))
    assert not hasattr(command, "commands"), f"`vancetope {line}` names no command"
    known = {option for param in command.params for option in (*param.opts, *param.secondary_opts)}
    assert {word for word in words if word.startswith("-")} <= known, line


def test_every_menu_path_and_shortcut_of_the_guide_exists_in_the_window(qtbot, make_window, library):
    window = make_window(library)
    menus = {help_dialogs.action_label(action): action.menu() for action in window.menuBar().actions()}
    for menu, item in MENU_PATHS:
        labels = {help_dialogs.action_label(a) for a in help_dialogs.menu_actions(menus[menu].actions())}
        assert item.strip().rstrip("…") in labels, f"{menu} ▸ {item}"
    window.shortcuts_action.trigger()
    sheet = next(w for w in window.findChildren(help_dialogs.ShortcutSheet) if w.isVisible())
    listed = {keys for row in sheet.rows() for keys in row[2].split(", ")}
    assert listed >= KEYS, KEYS - listed
    sheet.close()
