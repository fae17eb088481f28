"""``vancetope whoami``: the identity this person's changes are recorded under, and choosing it
(``services.identity``; the app's Settings dialog sets the same preference)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape

from ..core.errors import InvalidInput
from ..services import identity
from .apps import app
from .context import JsonOption, emit, guarded, out

_ORIGINS = {"environment": f"from ${identity.IDENTITY_ENV}", "preferences": "your chosen name (preferences)",
            "login": "your OS login: choose a name with `vancetope whoami --set NAME`"}


@app.command("whoami")
def whoami(
    set_name: Annotated[str | None, typer.Option(
        "--set", help="Record your changes under this name from now on (yours, in every library).")] = None,
    reset: Annotated[bool, typer.Option("--reset", help="Back to your OS login name.")] = False,
    as_json: JsonOption = False,
) -> None:
    """Who your changes are recorded as (in versions, the audit trail and promotion requests), and where that
    comes from: $VANCETOPE_IDENTITY, else the name you chose (--set; the app's Settings), else your OS login.

    --json prints {"actor", "origin"}. Exit codes: 0; 2 a name that cannot be one (several lines,
    over 80 characters), or --set with --reset.
    """
    with guarded():
        if set_name is not None and reset:
            raise InvalidInput("give --set NAME or --reset, not both")
        now = identity.set_identity(None if reset else set_name) if set_name is not None or reset \
            else identity.current_identity()
    emit(as_json, now, lambda: out.print(f"{escape(now.actor)}  [dim]({_ORIGINS[now.origin]})[/dim]"))
