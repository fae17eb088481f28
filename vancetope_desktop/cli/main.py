"""``vancetope``: the library from the terminal (seed §6.1), over the same services as the app.

The entry point and the error handling. The command groups and the global options live in ``apps``, and the
commands in the modules ``apps`` names, each imported only when its command runs (a cold ``memory search`` imports
no other command's services). This module imports none of them until :func:`run` runs: a worker process started
with ``spawn`` (an upload's extraction process) imports the main module again, and the command tree with its
services took 0.7 s of CPU there for nothing (``tests/cli/test_cli_tree.py`` checks it).
"""

from __future__ import annotations

import gc
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .apps import app

__all__ = ["app", "run"]


def run() -> None:
    """Console-script entry point.

    When the command is done (its library closed, its output written), the objects it leaves are frozen out of the
    garbage collector (``gc.freeze``): the interpreter's exit then frees them without the collections it runs while
    it tears the modules down, which cost a `vancetope mcp` session 0.8-1.1 s of CPU (the MCP SDK's, pydantic's,
    SQLAlchemy's and Chroma's objects) and a plain command 0.3 s, a fifth of either. The exit handlers still run and
    every file is still closed; only objects left in reference cycles are not finalized, which Python does not
    promise at exit anyway.
    """
    from ..core.errors import InvalidInput
    from .apps import app
    from .context import err, guarded

    try:
        with guarded():
            try:
                app()
            except InvalidInput as error:  # typer may surface ours from parameter callbacks
                err.print(f"error: {error}")
                raise SystemExit(error.exit_code) from None
            except BrokenPipeError:  # `vancetope memory read DOC | head`: the reader has what it wanted
                sys.stderr.close()
                raise SystemExit(0) from None
    finally:
        gc.freeze()


def __getattr__(name: str) -> Any:
    """``app``, the ``vancetope`` command group (``apps.app``), imported when first asked for."""
    if name == "app":
        from .apps import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":
    run()
