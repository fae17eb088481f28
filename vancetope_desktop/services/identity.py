"""Who acts: the identity a person's changes are recorded under (versions, audit entries, promotion requests).

Issue 17: "every person and process acts under an identity (the OS login by default, configurable)". In order:
the ``VANCETOPE_IDENTITY`` environment variable (a script, a cron job, a test), else the name the person chose in
their preferences (a name follows the person, not the library: ``services.preferences``), else the OS login.
Agents and think processes keep their own actor strings (``think-process/<id>``, an agent's scope path): they
never come here. An identity is a label, not a credential: nothing here authenticates anyone.
"""

from __future__ import annotations

import getpass
import os
from typing import Literal

from pydantic import BaseModel, ConfigDict

from ..core.errors import InvalidInput
from .preferences import Preferences, load_preferences, save_preferences

IDENTITY_ENV = "VANCETOPE_IDENTITY"
PERSON_PREFIX = "user:"
"""The actor kind of a person (``user:<name>``), beside ``think-process/<id>`` and ``rule:<tag>`` (``audit``)."""
MAX_NAME = 80
"""The longest name accepted (characters): a label shown in lists and history, not a biography."""

Origin = Literal["environment", "preferences", "login"]


class Identity(BaseModel):
    """The acting identity and where it came from.

    Attributes:
        actor: What is recorded: ``user:<name>`` (or a value of ``VANCETOPE_IDENTITY`` that names its own kind,
            such as ``service:nightly-import``).
        origin: ``environment`` (``VANCETOPE_IDENTITY``), ``preferences`` (the name chosen in Settings or by
            ``vancetope whoami --set``) or ``login`` (the OS login name; ``unknown`` without one).
    """

    model_config = ConfigDict(frozen=True)

    actor: str
    origin: Origin


def check_name(text: str) -> str:
    """``text`` as an identity name: stripped, one line, at most :data:`MAX_NAME` characters.

    Raises:
        InvalidInput: blank, a control character (a line break…), or too long.
    """
    name = text.strip()
    if not name:
        raise InvalidInput("an identity cannot be empty")
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise InvalidInput("an identity is one line of text, without control characters")
    if len(name) > MAX_NAME:
        raise InvalidInput(f"an identity has at most {MAX_NAME} characters, not {len(name)}")
    return name


def actor_of(name: str) -> str:
    """The actor string recorded for ``name``: ``user:<name>``, or ``name`` itself when it names its kind
    (``user:ada``, ``service:nightly``: a word, then a colon). Raises InvalidInput as :func:`check_name`."""
    name = check_name(name)
    kind, colon, rest = name.partition(":")
    return name if colon and rest.strip() and kind.isidentifier() else PERSON_PREFIX + name


def _login() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name in a bare container
        return "unknown"


def current_identity(prefs: Preferences | None = None) -> Identity:
    """The acting identity now (see the module's docstring for the order).

    Args:
        prefs: the preferences to read (default: the user's file, ``preferences.load_preferences``).

    Raises:
        InvalidInput: ``VANCETOPE_IDENTITY`` is set to something that is not a name (a blank value is ignored).
    """
    override = os.environ.get(IDENTITY_ENV, "")
    if override.strip():
        try:
            return Identity(actor=actor_of(override), origin="environment")
        except InvalidInput as error:
            raise InvalidInput(f"{IDENTITY_ENV}: {error}") from None
    chosen = (prefs or load_preferences()).identity
    if chosen:
        return Identity(actor=actor_of(chosen), origin="preferences")
    return Identity(actor=PERSON_PREFIX + _login(), origin="login")


def current_user() -> str:
    """The actor string of the person at this computer (:func:`current_identity`'s ``actor``)."""
    return current_identity().actor


def set_identity(name: str | None) -> Identity:
    """Save ``name`` as the person's identity in their preferences (None or blank: back to the OS login).

    Returns:
        The identity now in force (``VANCETOPE_IDENTITY`` still wins over the saved name).

    Raises:
        InvalidInput: not a name (:func:`check_name`). VancetopeError: the preferences cannot be saved.
    """
    chosen = check_name(name) if name is not None and name.strip() else None
    prefs = load_preferences().model_copy(update={"identity": chosen})
    save_preferences(prefs)
    return current_identity(prefs)
