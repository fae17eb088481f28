"""Shared CLI plumbing: the common options, opening the library, printing JSON or text, error → exit code."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Annotated, Any, ClassVar, TypeVar

import typer
import typer.main
from pydantic import BaseModel
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from typer.core import TyperCommand, TyperGroup

from ..core.errors import InvalidInput, VancetopeError
from ..core.memories import MEMORY_TYPE_GUIDANCE, MemoryType
from ..core.text import undecodable_message, undecodable_values
from ..services.library import Library

LibraryOption = Annotated[
    Path | None,
    typer.Option("--library", help="Library folder (default: the one before the command, `vancetope --library "
                 "PATH …`, else $VANCETOPE_LIBRARY, else your data directory).", show_default=False),
]
ScopeOption = Annotated[
    str | None, typer.Option("--scope", "-s", help="Act in this scope, e.g. project/proj_5 (default: current).")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
WaitOption = Annotated[bool, typer.Option(
    "--wait/--no-wait", help="Index the change now, so that search by meaning sees it when the command ends; "
    "--no-wait returns at once and leaves it to the open app or the next `index run` (words are found at once).")]
"""Every write command that indexes what it changed takes it (one help text; ``tests/cli`` checks that none
lacks it)."""
MemoryTypeOption = Annotated[list[MemoryType] | None, typer.Option(
    "--memory-type", case_sensitive=False, show_default=False,
    help="Only agent memories of this type (repeat for several). " + MEMORY_TYPE_GUIDANCE)]
ModeOption = Annotated[str, typer.Option(
    "--mode", help="auto (default): through the topic trees once one you see is consolidated, flat before (the cold "
    "start); tree: down the topic trees to the atoms under the best topics; flat: rank everything.")]
"""``memory search`` and ``topics search`` take it (``services.topic_search.parse_mode`` reads it)."""

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False, soft_wrap=True)

T = TypeVar("T")


class _CheckedParameters:
    """Refuses, as a usage error (exit 2), a text argument or option that is not valid UTF-8.

    Python hands such arguments over with lone surrogates (``core.text``); anything that reached the
    tokenizer, SQLite or the terminal would end in a traceback. Paths pass: they are ``Path`` values here,
    open the file as the OS named it, and the import shows the name :func:`~..core.text.readable`.
    """

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:
        rest = super().parse_args(ctx, args)  # type: ignore[misc]
        for param in self.get_params(ctx):  # type: ignore[attr-defined]
            for _where, text in undecodable_values({"value": ctx.params.get(param.name or "")}):
                raise typer.BadParameter(undecodable_message(text), ctx=ctx, param=param)
        return rest


class CheckedCommand(_CheckedParameters, TyperCommand):
    """Every ``vancetope`` command: typer's command with :class:`_CheckedParameters`."""


class CheckedGroup(_CheckedParameters, TyperGroup):
    """Every ``vancetope`` command group (its own options, e.g. the global ``--library``, are checked too).

    It imports the module of a command only when the command is run or listed (:class:`CommandGroup`'s
    ``commands``): a process imports what its one command needs, not the services of every command (the
    modules of all commands took 0.5 s of the 1.8 s a cold ``memory search`` took). Help and a mistyped
    name load every module of the group, so they list and suggest what they did when all were imported.
    """

    source: ClassVar[CommandGroup]
    """The ``typer.Typer`` this click group was built from (set on the subclass each CommandGroup makes)."""

    def get_command(self, ctx: typer.Context, cmd_name: str) -> Any:
        if cmd_name not in self.commands:
            modules = self.source.modules_of(cmd_name)
            self._load(modules if modules else self.source.modules_of(None))
        return self.commands.get(cmd_name)

    def list_commands(self, ctx: typer.Context) -> list[str]:
        self._load(self.source.modules_of(None))
        return sorted(self.commands, key=self.source.position)

    def _load(self, modules: Sequence[str]) -> None:
        """Import ``modules`` (their decorators register commands on ``source``), then add the click commands
        of what they registered: typer builds click commands from a ``Typer`` in one go, so the group is
        built again and the commands this one lacks are taken from it."""
        if not modules:
            return
        for module in modules:
            importlib.import_module(f"{__package__}.{module}")
        built = typer.main.get_group(self.source)
        for name, command in built.commands.items():
            self.commands.setdefault(name, command)


class CommandGroup(typer.Typer):
    """A ``typer.Typer`` whose commands and groups check their arguments (:class:`CheckedCommand`) and are
    imported when first needed (:class:`CheckedGroup`).

    The one place where undecodable arguments are refused, so a command added later cannot miss it.

    Args:
        commands: ``(name, module)`` for each command and sub-group of this group, in the order ``--help``
            lists them: ``module`` (in ``vancetope_desktop.cli``) registers it when imported. A new command
            is one pair here plus its ``@group.command(name)`` in that module; ``tests/cli/test_cli_tree.py``
            checks that the pairs and the modules agree.
        options: ``typer.Typer``'s.
    """

    def __init__(self, *, commands: Sequence[tuple[str, str]] = (), **options: Any) -> None:
        self.lazy_commands = tuple(commands)
        group_class = type("CheckedGroup", (CheckedGroup,), {"source": self, "__module__": __name__})
        super().__init__(cls=group_class, **options)

    def modules_of(self, name: str | None) -> list[str]:
        """The modules registering command ``name`` (None: every command of this group), in table order."""
        return list(dict.fromkeys(m for n, m in self.lazy_commands if name is None or n == name))

    def position(self, name: str) -> tuple[int, int]:
        """Where ``name`` goes in ``--help``: its place in ``commands`` (names not there come last)."""
        order = [n for n, _ in self.lazy_commands]
        return (0, order.index(name)) if name in order else (1, 0)

    def command(self, name: str | None = None, **options: Any) -> Callable[[Callable[..., T]], Callable[..., T]]:
        options.setdefault("cls", CheckedCommand)
        return super().command(name, **options)


MODEL_PROBLEM_LINE = "the embedding model cannot run here (see `vancetope index status`)"
"""What a command that only warns says of a missing embedding model, in place of the paragraph
``Library.model_problem`` holds (``index status``, ``index run`` and ``demo`` print that one)."""
_model_warned: ContextVar[bool] = ContextVar("vancetope_model_warned", default=False)


def short_model_warnings(warnings: Sequence[str], problem: str | None) -> list[str]:
    """``warnings`` with the model's problem (``problem``: ``Library.model_problem()``) cut to
    :data:`MODEL_PROBLEM_LINE`, said once per command: a later warning about it is left out."""
    shown = []
    for warning in warnings:
        if problem and problem in warning:
            if _model_warned.get():
                continue
            _model_warned.set(True)
            warning = warning.replace(problem, MODEL_PROBLEM_LINE)
        shown.append(warning)
    return shown


def key_column(table: Table, name: str, values: list[str]) -> None:
    """Add a column of keys other commands take (document ids, setting names): never wrapped nor cut, as wide as
    its longest value, so a narrow terminal squeezes the other columns (titles, descriptions) instead."""
    table.add_column(name, no_wrap=True, overflow="ignore", min_width=max((len(v) for v in values), default=len(name)))


@contextmanager
def open_library(path: Path | None) -> Iterator[Library]:
    """Open the library for one command (see :func:`library_path`) and close it afterwards (errors become a
    one-line exit)."""
    _model_warned.set(False)  # a new command (the tests run several in one process)
    with guarded():
        library = Library.open(library_path(path))
        for notice in library.notices:  # e.g. the copy made before a migration, and where it is
            err.print(f"note: {notice}", markup=False)
        try:
            yield library
        finally:
            library.close()


_global_library: ContextVar[Path | None] = ContextVar("vancetope_global_library", default=None)


def set_global_library(ctx: typer.Context, path: Path | None) -> None:
    """Remember the global ``--library`` (``vancetope --library PATH COMMAND``) until ``ctx`` closes.

    Called by the app callback, which runs before the command; a context variable rather than a module
    global, so that a second in-process run (tests, an embedding program) does not inherit it.
    """
    token = _global_library.set(path)
    ctx.call_on_close(lambda: _global_library.reset(token))


def library_path(path: Path | None) -> Path | None:
    """The library folder of the running command, given its own ``--library`` value ``path``.

    Precedence: the command's own ``--library``, then the global one before the command
    (:func:`set_global_library`), then None: ``Library.open`` then takes ``$VANCETOPE_LIBRARY``, else
    the default data directory.
    """
    return path if path is not None else _global_library.get()


@contextmanager
def guarded() -> Iterator[None]:
    """Turn a :class:`VancetopeError` into ``error: …`` on stderr and its exit code."""
    try:
        yield
    except VancetopeError as error:
        # The message is text, not markup: `pip install 'vancetope-desktop[team]'` would lose its "[team]".
        err.print(f"[red]error:[/red] {escape(str(error))}", markup=True)
        raise typer.Exit(error.exit_code) from None
    except KeyboardInterrupt:
        err.print("interrupted")
        raise typer.Exit(130) from None


def to_jsonable(value: Any) -> Any:
    """Pydantic models, lists and dicts of them → plain JSON values."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: to_jsonable(v) for k, v in value.items()}
    return value


def print_json(value: Any) -> None:
    """Write ``value`` as indented JSON on stdout."""
    sys.stdout.write(json.dumps(to_jsonable(value), ensure_ascii=False, indent=2) + "\n")


def emit(as_json: bool, value: Any, human: Callable[[], None]) -> None:
    """Print ``value`` as JSON, or call ``human`` to print it for people."""
    if as_json:
        print_json(value)
    else:
        human()


def read_stdin() -> str:
    """Standard input as text, decoded as an imported text file is (UTF-8, else the encoding detected), so
    bytes that are not UTF-8 are read rather than ending in a traceback."""
    from ..ingest.encoding import decode_text_bytes  # charset detection: for the commands that read stdin

    return decode_text_bytes(sys.stdin.buffer.read())[0]


def required_reason(reason: str | None, usage: str) -> str:
    """``reason`` stripped, or InvalidInput (exit 2) showing ``usage`` when it is missing or blank."""
    if reason is None or not reason.strip():
        with guarded():
            raise InvalidInput(f'give a reason: {usage} --reason "…" (the history keeps it)')
    return reason.strip()
