"""The generator a library chose (``Settings.generator``), built once per use, always with the built-in behind it.

``builtin`` gives the built-in generator. ``local``, ``endpoint`` and ``mcp`` give a
:class:`~vancetope_desktop.generation.fallback.FallbackGenerator`: the model answers each item, and the built-in
generator answers any item the model fails (unavailable, slow, malformed), logged. A model that cannot be set
up at all (a missing GGUF file, a bad URL, no MCP client that samples) leaves the built-in generator alone,
with the reason logged and returned in :attr:`GeneratorChoice.problem`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from ..core.errors import InvalidInput
from ..core.settings import Settings
from .base import Generator, GeneratorUnavailable
from .builtin import BuiltinGenerator
from .endpoint import EndpointChat, read_key
from .fallback import FallbackGenerator
from .local_model import LlamaCppChat
from .model import ChatModel, ModelGenerator

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GeneratorChoice:
    """What :func:`build_generator` made.

    Attributes:
        generator: the generator to use (the built-in one or a model with the built-in behind it).
        problem: why the chosen model is not in use ("" when it is, or when the built-in was chosen).
    """

    generator: Generator
    problem: str = ""


def build_generator(settings: Settings, *, sampling: ChatModel | None = None) -> GeneratorChoice:
    """The generator ``settings`` choose.

    Args:
        settings: the library's settings (``generator``, ``generator_model_path``, ``generator_endpoint_*``,
            ``generator_timeout_s``).
        sampling: the MCP client's model, when the caller is an MCP server whose client advertised sampling
            (``agents.mcp_sampling``); needed for ``generator = "mcp"``.

    Never raises for a model that cannot be set up: see :class:`GeneratorChoice`.
    """
    builtin = BuiltinGenerator()
    try:
        chat = _chat(settings, sampling)
    except (GeneratorUnavailable, InvalidInput) as error:
        problem = (f"the {settings.generator} generator is not available ({error}); "
                   "the built-in generator writes instead")
        log.warning("%s", problem)
        return GeneratorChoice(builtin, problem)
    if chat is None:
        return GeneratorChoice(builtin)
    return GeneratorChoice(FallbackGenerator(ModelGenerator(chat, timeout_s=settings.generator_timeout_s), builtin))


def _chat(settings: Settings, sampling: ChatModel | None) -> ChatModel | None:
    if settings.generator == "local":
        return LlamaCppChat(settings.generator_model_path or None)
    if settings.generator == "endpoint":
        if not settings.generator_endpoint_url.strip():
            raise InvalidInput("no endpoint URL is set")
        return EndpointChat(settings.generator_endpoint_url, settings.generator_endpoint_model,
                            api_key=read_key(settings.generator_endpoint_url))
    if settings.generator == "mcp":
        if sampling is None:
            raise GeneratorUnavailable("no MCP client that offers sampling is connected")
        return sampling
    return None
