"""``vancetope``: the library from the terminal (seed §6.1), over the same services as the app.

The entry point: the global options and the error handling. The commands live in the modules ``apps`` names,
each imported only when its command runs (a cold ``memory search`` imports no other command's services).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from ..core.errors import InvalidInput
from .apps import app
from .context import err, guarded, set_global_library

__all__ = ["app", "run"]


@app.callback()
def global_options(
    ctx: typer.Context,
    library: Annotated[Path | None, typer.Option(
        "--library", help="Library folder for the command that follows: `vancetope --library PATH review list` "
        "(a command's own --library wins; default $VANCETOPE_LIBRARY, else your data directory).",
        show_default=False,
    )] = None,
) -> None:
    """Vancetope: scoped research memory from the terminal (options before the command apply to it)."""
    set_global_library(ctx, library)


def run() -> None:
    """Console-script entry point."""
    with guarded():
        try:
            app()
        except InvalidInput as error:  # typer may surface ours from parameter callbacks
            err.print(f"error: {error}")
            raise SystemExit(error.exit_code) from None
        except BrokenPipeError:  # `vancetope memory read DOC | head`: the reader has what it wanted
            sys.stderr.close()
            raise SystemExit(0) from None


if __name__ == "__main__":
    run()
