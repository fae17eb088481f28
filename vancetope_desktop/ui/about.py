"""The About box: name, version, what the app is, the Qt it runs on and the open library."""

from __future__ import annotations

import html
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import PySide6
from PySide6.QtCore import qVersion
from PySide6.QtWidgets import QMessageBox, QWidget

APP_NAME = "Vancetope Desktop"
DESCRIPTION = "A local-first knowledge workbench: scoped document memory for scientists and Think Processes."


def app_version() -> str:
    """The installed version of the ``vancetope-desktop`` distribution, or ``"development"`` if not installed."""
    try:
        return version("vancetope-desktop")
    except PackageNotFoundError:
        return "development"


def about_text(library_path: Path | None = None) -> str:
    """The About box's rich text (HTML); ``library_path`` adds a line naming the open library."""
    lines = [
        f"<h3>{APP_NAME} {html.escape(app_version())}</h3>",
        f"<p>{html.escape(DESCRIPTION)}</p>",
        f"<p>Qt {html.escape(qVersion())} · PySide6 {html.escape(PySide6.__version__)}</p>",
    ]
    if library_path is not None:
        lines.append(f"<p>Library: <code>{html.escape(str(library_path))}</code></p>")
    return "\n".join(lines)


def show_about(parent: QWidget | None, library_path: Path | None = None) -> None:
    """Show the modal About box over ``parent`` (its icon is the application's window icon)."""
    QMessageBox.about(parent, f"About {APP_NAME}", about_text(library_path))
