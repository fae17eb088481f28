"""Arguments, standard input and file names that are not valid UTF-8: a clear error or a readable name, never a
traceback. The CLI runs as a real subprocess given raw bytes, as a shell passes ``$'caf\\xe9'``; the usage error of each
kind of parameter is checked in-process too, on the arguments as that process receives them."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from vancetope_desktop.cli.context import CheckedCommand, CheckedGroup
from vancetope_desktop.cli.main import app

REPO = Path(__file__).resolve().parents[2]


def _vancetope(library: Path, *args: str | bytes, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO), LANG="C.UTF-8", LC_ALL="C.UTF-8")
    return subprocess.run([sys.executable, "-m", "vancetope_desktop.cli.main", "--library", str(library), *args],
                          input=stdin, capture_output=True, env=env, timeout=300, cwd=REPO)


UNDECODABLE_ARGUMENTS = [
    (b"memory", b"search", b"caf\xe9"),
    (b"memory", b"add", b"\xff\xfeabc", b"--no-wait"),
    (b"memory", b"list", b"--tags", b"\xe9"),
    (b"memory", b"tag", b"doc_000000000000", b"--add", b"r\xe9sum\xe9"),
    (b"scope", b"create", b"project", b"caf\xe9"),
]


def _refused_as_usage(code: int, stderr: str) -> None:
    assert code == 2, stderr
    assert "Traceback" not in stderr and "not valid UTF-8" in stderr
    assert "\\xe9" in stderr or "\\xff" in stderr  # the offending bytes, shown


@pytest.mark.slow
def test_an_argument_that_is_not_utf8_from_a_shell_is_a_usage_error(tmp_path):
    """A real process given the raw bytes: the interpreter hands them to the command as lone surrogates."""
    result = _vancetope(tmp_path / "lib", *UNDECODABLE_ARGUMENTS[0])
    _refused_as_usage(result.returncode, result.stderr.decode("utf-8", "replace"))


@pytest.mark.parametrize("args", UNDECODABLE_ARGUMENTS)
def test_an_argument_that_is_not_utf8_is_a_usage_error(tmp_path, args):
    """Each kind of parameter (argument, option, a group's argument) as the process above receives it:
    ``os.fsdecode`` is the interpreter's decoding of ``argv`` (UTF-8 with ``surrogateescape``). In-process: the
    process start is the test above's, and the check is the command classes' (see the last test)."""
    result = CliRunner().invoke(app, ["--library", str(tmp_path / "lib"), *map(os.fsdecode, args)])
    _refused_as_usage(result.exit_code, result.stderr)
    assert not (tmp_path / "lib").exists()  # refused before the library was opened


@pytest.mark.slow
def test_files_named_in_latin1_import_with_readable_names(tmp_path, corpus):
    folder = tmp_path / "drop"
    (folder / os.fsdecode(b"sub\xe9")).mkdir(parents=True)
    (folder / os.fsdecode(b"caf\xe9 notes.txt")).write_text("Notes about espresso culture.", encoding="utf-8")
    (folder / os.fsdecode(b"r\xe9sum\xe9.md")).write_text("Stress and dementia in old age.\n", encoding="utf-8")
    pdf = folder / os.fsdecode(b"sub\xe9") / os.fsdecode(b"lig\xe9ture.pdf")
    pdf.write_bytes((corpus / "pdf-edge" / "ligature-fl-text.pdf").read_bytes())
    result = _vancetope(tmp_path / "lib", "memory", "upload", str(folder), "--no-wait", "--json")
    assert result.returncode == 0, result.stderr.decode("utf-8", "replace")
    outcomes = json.loads(result.stdout)["outcomes"]
    assert {o["status"] for o in outcomes} == {"imported"}
    assert sorted(Path(o["path"]).name for o in outcomes) == ["café notes.txt", "ligéture.pdf", "résumé.md"]
    listed = json.loads(CliRunner().invoke(app, ["memory", "list", "--json", "--library", str(tmp_path / "lib")])
                        .stdout)
    titles = {d["title"] for d in listed}
    assert {"café notes", "subé"} <= titles  # the file's stem and the mirrored folder
    assert all("\ufffd" not in t for t in titles)
    pdf_doc = next(d for d in listed if d["metadata"].get("file_suffix") == ".pdf")
    assert pdf_doc["metadata"]["original_name"] == "ligéture.pdf"
    assert pdf_doc["metadata"]["source_path"].endswith("subé/ligéture.pdf")


@pytest.mark.slow
def test_standard_input_in_latin1_is_read_and_a_library_path_that_is_not_utf8_is_refused(tmp_path):
    latin1 = "Caf\xe9 au lait".encode("cp1252")
    added = _vancetope(tmp_path / "lib", "memory", "add", "-", "--no-wait", "--json", stdin=latin1)
    assert added.returncode == 0, added.stderr.decode("utf-8", "replace")
    assert json.loads(added.stdout)["content"] == "Café au lait"
    bad_library = os.fsdecode(bytes(tmp_path) + b"/lib\xe9")
    env = dict(os.environ, PYTHONPATH=str(REPO), LANG="C.UTF-8", LC_ALL="C.UTF-8")
    refused = subprocess.run([sys.executable, "-m", "vancetope_desktop.cli.main", "memory", "list",
                              "--library", os.fsencode(bad_library)], capture_output=True, env=env, timeout=300)
    stderr = refused.stderr.decode("utf-8", "replace")
    assert refused.returncode == 1 and "Traceback" not in stderr and "not valid UTF-8" in stderr


def test_every_command_checks_its_arguments():
    """The guard lives in the command classes (``cli/context.py``): a command added later cannot miss it."""
    def walk(command):  # through list_commands: a group imports its commands' modules when they are listed
        yield command
        if isinstance(command, CheckedGroup):
            context = command.context_class(command)
            for name in command.list_commands(context):
                yield from walk(command.get_command(context, name))

    commands = list(walk(typer.main.get_command(app)))
    assert len(commands) > 30
    unchecked = [c.name for c in commands if not isinstance(c, CheckedCommand | CheckedGroup)]
    assert unchecked == []
