"""Which generator a library uses (issue 13): choosing it, checking it, and building it for a task.

The choice is part of the library's settings (``Settings.generator`` and its model path / endpoint fields,
saved in ``settings.json``); the endpoint's API key is the one thing kept outside the library, in the system
keyring (``generation.endpoint``). The app's Settings dialog, ``vancetope generator …`` and the tasks that
generate (summaries, atoms, digests) all come through here.
"""

from __future__ import annotations

from pydantic import BaseModel, ValidationError

from ..core.errors import InvalidInput
from ..core.settings import GeneratorKind, Settings
from ..generation.base import GeneratorUnavailable
from ..generation.choice import GeneratorChoice, build_generator
from ..generation.endpoint import check_endpoint_url, read_key, store_key
from ..generation.local_model import resolve_gguf
from ..generation.model import ChatModel
from .library import Library


class GeneratorStatus(BaseModel):
    """What a library's generator is, for Settings, ``vancetope generator show`` and tools.

    Attributes:
        generator: builtin, local, endpoint or mcp.
        model_path: the local GGUF file that would run ("" when not ``local`` or when it cannot be found).
        endpoint_url, endpoint_model: the endpoint (as set; "" when none).
        endpoint_key_stored: whether the keyring holds a key for that endpoint.
        timeout_s: the time limit of one model item.
        problem: why the chosen model would not run, so the built-in generator writes instead ("" when fine;
            ``mcp`` is only known to work when a client connects).
    """

    generator: GeneratorKind
    model_path: str = ""
    endpoint_url: str = ""
    endpoint_model: str = ""
    endpoint_key_stored: bool = False
    timeout_s: float
    problem: str = ""


def generator_status(lib: Library) -> GeneratorStatus:
    """The generator ``lib``'s settings choose, and whether it can run here (nothing is loaded or contacted)."""
    settings = lib.settings
    model_path, problem = "", ""
    if settings.generator == "local":
        try:
            model_path = str(resolve_gguf(settings.generator_model_path or None))
        except GeneratorUnavailable as error:
            problem = str(error)
    elif settings.generator != "mcp":
        problem = build_generator(settings).problem
    url = settings.generator_endpoint_url
    return GeneratorStatus(generator=settings.generator, model_path=model_path, endpoint_url=url,
                           endpoint_model=settings.generator_endpoint_model,
                           endpoint_key_stored=bool(url and read_key(url)), timeout_s=settings.generator_timeout_s,
                           problem=problem)


def checked_generator_settings(settings: Settings, **changes: object) -> Settings:
    """``settings`` with the generator ``changes`` (fields of :class:`Settings` named ``generator*``) applied
    and checked: a ``local`` model file must be a GGUF file, an ``endpoint`` needs a valid URL and a model name.

    Raises:
        InvalidInput: naming the field at fault.
    """
    unknown = [name for name in changes if not name.startswith("generator")]
    if unknown:
        raise InvalidInput(f"not a generator setting: {', '.join(unknown)}")
    try:
        chosen = Settings.model_validate({**settings.model_dump(), **changes})
    except ValidationError as error:
        first = error.errors()[0]
        raise InvalidInput(f"{'.'.join(map(str, first['loc']))}: {first['msg']}") from None
    if chosen.generator == "local":
        try:
            resolve_gguf(chosen.generator_model_path or None)
        except GeneratorUnavailable as error:
            raise InvalidInput(f"generator_model_path: {error}") from None
    if chosen.generator_endpoint_url.strip():
        url = check_endpoint_url(chosen.generator_endpoint_url)
        chosen = chosen.model_copy(update={"generator_endpoint_url": url})
    if chosen.generator == "endpoint" and not (chosen.generator_endpoint_url and
                                               chosen.generator_endpoint_model.strip()):
        raise InvalidInput("an endpoint generator needs the endpoint's URL and a model name")
    return chosen


def choose_generator(lib: Library, **changes: object) -> Settings:
    """Check the generator ``changes`` (see :func:`checked_generator_settings`), save them in the library's
    settings and return the new settings.

    Raises:
        InvalidInput: a bad value (nothing saved).
    """
    chosen = checked_generator_settings(lib.settings, **changes)
    lib.save_settings(chosen)
    return chosen


def set_endpoint_key(url: str, key: str | None) -> None:
    """Keep ``key`` for endpoint ``url`` in the system keyring (None or "" deletes it).

    Raises:
        InvalidInput: a bad URL. KeyringUnavailable: no keyring here (the key is not kept anywhere).
    """
    store_key(url, key)


def library_generator(lib: Library, *, sampling: ChatModel | None = None) -> GeneratorChoice:
    """The generator to use for ``lib``'s work now, with the built-in behind any model
    (``generation.choice.build_generator``); ``sampling`` is the MCP client's model inside an MCP tool call."""
    return build_generator(lib.settings, sampling=sampling)
