"""Per-user preferences of the desktop app: which library to open, the theme, recently opened libraries.

These follow the user, not the library, so they live in the user's config directory
(``<user config dir>/vancetope-desktop/preferences.json``, platformdirs). What tunes a library
(embedding model, scope weights, ranking) is :class:`~vancetope_desktop.core.settings.Settings`,
saved inside the library by :func:`~vancetope_desktop.services.library.save_settings`.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Literal

from platformdirs import user_config_path
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..core.errors import InvalidInput, VancetopeError
from ..store.atomic import write_text_atomic

CONFIG_DIR_ENV = "VANCETOPE_CONFIG_DIR"
MAX_RECENT = 10
DEFAULT_CONTEXT_WINDOW = 8192
"""The context window the Conversation view measures a conversation against until one is chosen for a library
(tokens): a small local chat model's, so that the gauge warns early rather than late."""

Theme = Literal["system", "light", "dark"]

_log = logging.getLogger(__name__)


class Preferences(BaseModel):
    """What one user chose for the app, whatever library is open.

    Attributes:
        library_path: The library folder to open at start; None means the default
            (:func:`~vancetope_desktop.services.library.default_library_path`).
        theme: ``"system"`` follows the desktop's light/dark setting; ``"light"``/``"dark"`` force one.
        recent_libraries: Library folders opened before, most recent first (at most :data:`MAX_RECENT`).
        citation_style: The style "Copy citation" formats in (a key of ``services.citations.STYLES``).
        context_windows: The Conversation view's context window (tokens) per library folder (its path as text):
            the model a library's agents talk to is the library's, not the user's.
        identity: The name this person's changes are recorded under (``services.identity``); None: the OS login.
    """

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    library_path: Path | None = None
    theme: Theme = "system"
    recent_libraries: list[Path] = Field(default_factory=list)
    citation_style: str = "apa"
    context_windows: dict[str, int] = Field(default_factory=dict)
    identity: str | None = None

    def with_recent(self, path: Path) -> Preferences:
        """A copy with ``path`` moved to the front of :attr:`recent_libraries` (duplicates dropped, list capped)."""
        path = Path(path)
        recent = [path, *(p for p in self.recent_libraries if p != path)][:MAX_RECENT]
        return self.model_copy(update={"recent_libraries": recent})

    def context_window(self, library: Path) -> int:
        """The context window chosen for ``library`` (tokens), :data:`DEFAULT_CONTEXT_WINDOW` until one is."""
        return self.context_windows.get(str(Path(library)), DEFAULT_CONTEXT_WINDOW)

    def with_context_window(self, library: Path, tokens: int) -> Preferences:
        """A copy remembering ``tokens`` as ``library``'s context window."""
        return self.model_copy(update={"context_windows": {**self.context_windows, str(Path(library)): int(tokens)}})


def preferences_path() -> Path:
    """``$VANCETOPE_CONFIG_DIR/preferences.json`` if the variable is set (tests), else
    ``<platformdirs user config dir>/vancetope-desktop/preferences.json``."""
    override = os.environ.get(CONFIG_DIR_ENV)
    folder = Path(override).expanduser() if override else user_config_path("vancetope-desktop", appauthor=False)
    return folder / "preferences.json"


def load_preferences(path: Path | None = None) -> Preferences:
    """Read the preferences file (default :func:`preferences_path`).

    A missing file gives the defaults. So does an unreadable, corrupt or schema-breaking file, with a
    warning logged: a broken preferences file must never keep the app from starting.
    """
    path = path or preferences_path()
    if not path.exists():
        return Preferences()
    try:
        return Preferences.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, ValidationError) as error:
        _log.warning("ignoring unreadable preferences file %s: %s", path, error)
        return Preferences()


def save_preferences(prefs: Preferences, path: Path | None = None) -> None:
    """Write ``prefs`` to ``path`` (default :func:`preferences_path`) atomically, creating the folder.

    The JSON goes to a temporary file in the same folder, then ``os.replace`` swaps it in, so a crash
    mid-write leaves the old file intact.

    Raises:
        VancetopeError: the folder cannot be created or written.
    """
    path = path or preferences_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, prefs.model_dump_json(indent=2))
    except OSError as error:
        raise VancetopeError(f"cannot save preferences to {path}: {error}") from error


def check_library_location(text: str | os.PathLike[str]) -> Path:
    """Validate a folder chosen to hold a library and return it as an absolute path (``~`` expanded).

    The folder may exist (it must then be a writable folder) or not yet (its nearest existing
    ancestor must then be a writable folder, so that opening the library can create it).

    Raises:
        InvalidInput: empty, relative, a file, or in a place the user cannot write to.
    """
    raw = str(text).strip()
    if not raw:
        raise InvalidInput("the library location is empty")
    path = Path(raw).expanduser()
    if not path.is_absolute():
        raise InvalidInput(f"the library location must be a full path, not {raw!r}")
    existing = path
    while not existing.exists():
        if existing.parent == existing:
            break
        existing = existing.parent
    if not existing.is_dir():
        raise InvalidInput(f"{existing} is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        what = "folder" if existing == path else f"folder {existing} (where it would be created)"
        raise InvalidInput(f"cannot write to the {what}")
    return path
