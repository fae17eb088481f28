"""`vancetope undo` / `redo` (``--list``): the CLI face of ``services.undo``, over a library the commands share."""

import json

from typer.testing import CliRunner

from vancetope_desktop.cli.main import app
from vancetope_desktop.services import documents, folders
from vancetope_desktop.services.library import Library


def _run(library, *args, code=0):
    result = CliRunner().invoke(app, [*args, "--library", str(library)])
    assert result.exit_code == code, result.output + str(result.exception)
    return result


def test_a_trash_and_a_tag_from_the_terminal_are_listed_undone_and_redone(tmp_path, library_at):
    path = library_at(tmp_path / "lib")
    with Library.open(path) as lib:  # a folder: nothing for the commands' index drains to embed
        note = folders.create_folder(lib, "Reading")
    _run(path, "memory", "tag", note.id, "--add", "todo")
    _run(path, "memory", "delete", note.id)
    listing = _run(path, "undo", "--list").stdout
    assert "Undo (next first):\n  Trash “Reading”" in listing and "Tag “Reading”" in listing
    assert "Nothing to redo." in listing

    assert _run(path, "undo").stdout.startswith("Undo Trash “Reading”: 1 document")
    listed = json.loads(_run(path, "undo", "--list", "--json").stdout)
    assert [s["label"] for s in listed["undo"]] == ["Tag “Reading”"]
    assert [s["label"] for s in listed["redo"]] == ["Trash “Reading”"]
    _run(path, "undo")
    shown = json.loads(_run(path, "memory", "read", note.id, "--json").stdout)
    assert (shown["status"], shown["tags"]) == ("active", [])
    assert _run(path, "redo").stdout.startswith("Redo Tag “Reading”")


def test_an_undo_over_a_later_change_is_refused_with_exit_code_5(tmp_path, library_at):
    path = library_at(tmp_path / "lib")
    with Library.open(path) as lib:
        note = folders.create_folder(lib, "Reading")
    _run(path, "memory", "tag", note.id, "--add", "todo")
    with Library.open(path) as lib:
        documents.tag_document(lib, note.id, add=["agent-added"])  # another actor, after the user
    refused = _run(path, "undo", code=5)
    assert "“Reading” was changed" in refused.output and "would overwrite that change" in refused.output
    assert _run(path, "redo").stdout == "Nothing to redo.\n"


def test_nothing_to_undo_is_said_calmly_with_exit_code_0(tmp_path, library_at):
    path = library_at(tmp_path / "lib")
    assert _run(path, "undo").stdout == "Nothing to undo.\n"
    assert _run(path, "redo", "--json").stdout.strip() == "null"
