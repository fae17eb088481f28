"""Changing a library's settings (``core.settings.Settings``, saved as ``settings.json``): one rule for every face.

The rule, which the app's Settings dialog (``ui.workbench.save_settings``) and ``vancetope settings set`` both
follow: the new settings are checked whole by the schema (and a generator's by ``generators``), saved, made the
open library's, and a new embedding model or precision re-embeds the library (``indexing.rebuild_index``), since a
library's vectors are all of one model at one precision. There is no agent tool for it: an agent works in a library,
it does not retune it.
"""

from __future__ import annotations

import json
from contextlib import suppress
from typing import Any, get_origin

from pydantic import BaseModel, ValidationError

from ..core.errors import IndexUnavailable, InvalidInput
from ..core.settings import Settings
from ..index.embedder import Embedder
from ..index.models import resolve_model
from . import generators, indexing
from .library import Library

REINDEXING_KEYS = ("embedding_model", "embedding_precision")
"""Settings whose change re-embeds the library (the identity of its vectors: ``Library.index_identity``)."""
_EMBEDDING_KEYS = (*REINDEXING_KEYS, "embedding_runtime")


class SettingInfo(BaseModel):
    """One setting: its key, value and default (JSON values), whether it differs from the default, its meaning."""

    key: str
    value: Any
    default: Any
    changed: bool
    description: str


class SettingsSaved(BaseModel):
    """What :func:`apply_settings` did: the keys whose value changed, and the documents queued for re-embedding
    (``None``: no re-index was needed)."""

    changed: list[str]
    reindexed: int | None = None


def describe_settings(lib: Library) -> list[SettingInfo]:
    """Every setting of the library, in the schema's order (``vancetope settings show``)."""
    values, defaults = lib.settings.model_dump(mode="json"), Settings().model_dump(mode="json")
    return [SettingInfo(key=key, value=values[key], default=defaults[key], changed=values[key] != defaults[key],
                        description=field.description or "") for key, field in Settings.model_fields.items()]


def parse_setting(settings: Settings, key: str, text: str) -> Settings:
    """``settings`` with ``key`` set from ``text`` as typed on a command line, checked by the schema.

    ``text`` is read as the field's type (``32``, ``0.5``, ``true``, ``int8``, a path); when that fails, as JSON
    (``[0.7, 0.85, 0.95]`` for a tuple, ``null`` for "none"), then as comma-separated values (``0.7,0.85,0.95``).
    One of the two fusion weights set alone sets the other to the rest of 1 (:data:`WEIGHT_PARTNERS`).

    Raises:
        InvalidInput: an unknown key (the known ones are listed), or a value the schema refuses (its reason; for a
        list, the form expected).
    """
    if key not in Settings.model_fields:
        raise InvalidInput(f"no setting {key!r}; the settings are: {', '.join(Settings.model_fields)}")
    current = settings.model_dump()
    readings: list[Any] = [text]
    with suppress(ValueError):
        readings.append(json.loads(text))
    is_list = get_origin(Settings.model_fields[key].annotation) is tuple
    if is_list and "," in text and not text.lstrip().startswith("["):
        readings.append([part.strip() for part in text.split(",")])
    errors: list[ValidationError] = []
    for value in readings:
        try:
            return Settings.model_validate({**current, key: value, **_partner(key, value)})
        except ValidationError as error:
            errors.append(error)
    # A list's last reading is the one that got furthest; any other field's first is read as its type.
    reasons = "; ".join(e["msg"] for e in (errors[-1] if is_list else errors[0]).errors())
    form = f" (expected: {json.dumps(Settings.model_fields[key].default)} or the numbers with commas)" \
        if is_list else ""
    raise InvalidInput(f"{key} cannot be {text!r}: {reasons}{form}")


WEIGHT_PARTNERS = {"dense_weight": "lexical_weight", "lexical_weight": "dense_weight"}
"""The fusion weights, which sum to 1 (``Settings``): either set alone sets the other to ``1 - value``."""


def _partner(key: str, value: Any) -> dict[str, float]:
    """The other fusion weight's value when ``key`` is one of them and ``value`` a number in [0, 1]; else none."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return {}
    return {WEIGHT_PARTNERS[key]: round(1.0 - number, 6)} if key in WEIGHT_PARTNERS and 0 <= number <= 1 else {}


def check_embedding(settings: Settings) -> None:
    """Refuse an embedding model, precision and runtime that cannot run together here (nothing is loaded).

    Raises:
        InvalidInput: the model does not resolve on this computer, or the combination cannot run (the reason).
    """
    try:
        Embedder(resolve_model(settings.embedding_model), batch_size=settings.embedding_batch_size,
                 precision=settings.embedding_precision, runtime=settings.embedding_runtime)
    except IndexUnavailable as error:
        raise InvalidInput(f"embedding settings refused: {error}") from None


def apply_settings(lib: Library, settings: Settings) -> SettingsSaved:
    """Save ``settings`` as the library's and use them; a new embedding model or precision re-embeds the library.

    Embedding and generator settings that change are checked first (:func:`check_embedding`,
    ``generators.checked_generator_settings``): nothing is saved when they cannot run.

    Returns:
        The keys changed, and how many documents were queued for re-embedding (the writer embeds them: the app's
        indexing process or ``vancetope index run``).

    Raises:
        InvalidInput: see above.
    """
    before, after = lib.settings.model_dump(), settings.model_dump()
    changed = [key for key in Settings.model_fields if before[key] != after[key]]
    if any(key in _EMBEDDING_KEYS for key in changed):
        check_embedding(settings)
    generator_changes = {key: after[key] for key in changed if key.startswith("generator")}
    if generator_changes:
        settings = generators.checked_generator_settings(settings, **generator_changes)
    lib.save_settings(settings)
    reindexed = indexing.rebuild_index(lib).queued if any(key in REINDEXING_KEYS for key in changed) else None
    return SettingsSaved(changed=changed, reindexed=reindexed)


def set_setting(lib: Library, key: str, text: str) -> SettingsSaved:
    """``vancetope settings set KEY VALUE``: :func:`parse_setting`, then :func:`apply_settings`.

    Raises:
        InvalidInput: an unknown key, a bad value, or embedding/generator settings that cannot run (nothing saved).
    """
    return apply_settings(lib, parse_setting(lib.settings, key, text))
