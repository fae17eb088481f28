"""MCP sampling as a generator (issue 13): the server asks the connected client's own model.

The protocol's ``sampling/createMessage`` request lets a server borrow the client's model, so an agent that
works over MCP brings its model to Vancetope's summaries, atoms and digests. :class:`SamplingChat` is the
:class:`~vancetope_desktop.generation.model.ChatModel` for it; :func:`sampling_chat` makes one for a tool
call when the client advertised the ``sampling`` capability. The server makes one per tool call and hands it to
``MemoryTools.call(…, sampling=…)``; a tool that generates takes ``MemoryTools.generator()``, which builds it into
the library's generator (``generation.choice.build_generator``) when that generator is ``mcp``.

The client's model cannot be held to a grammar: the reply's JSON schema goes in the system prompt, and the
reply is validated like any other (a malformed or late one falls back to the built-in generator).

Tool calls run on a worker thread (``mcp_server.build_server``), so :meth:`SamplingChat.complete` — called
synchronously by the generator there — sends the request on the server's event loop through
``anyio.from_thread``.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import anyio
import anyio.from_thread
import mcp_types as types
from mcp.server import ServerRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import BaseModel

from ..generation.base import GeneratorError, GeneratorTimeout, GeneratorUnavailable

NAME = "mcp"


def client_samples(ctx: ServerRequestContext[Any]) -> bool:
    """Whether the client of ``ctx`` advertised the sampling capability on a connection that carries
    server-initiated requests (the handshake-era protocol versions, up to 2025-11-25: on 2026-07-28 and later
    a server asks only by returning an input-required result, one round trip per tool call — SEP-2577)."""
    return ctx.protocol_version in HANDSHAKE_PROTOCOL_VERSIONS and ctx.session.check_client_capability(
        types.ClientCapabilities(sampling=types.SamplingCapability()))


def sampling_chat(ctx: ServerRequestContext[Any]) -> SamplingChat | None:
    """A :class:`SamplingChat` over the client of ``ctx`` (a request being handled), None when the client
    cannot be asked to sample mid-call (see :func:`client_samples`)."""
    return SamplingChat(ctx) if client_samples(ctx) else None


class SamplingChat:
    """One chat turn with the MCP client's model through ``sampling/createMessage``.

    Args:
        ctx: the server's context for the request being handled (its session and request id: the sampling
            request is sent as related to that request, as the protocol asks).

    Attributes:
        name: ``"mcp"``.
        models: the model names the client said answered, in order (for logs and tests).
    """

    def __init__(self, ctx: ServerRequestContext[Any]) -> None:
        self._session = ctx.session
        self._request_id = ctx.request_id
        self.name = NAME
        self.models: list[str] = []

    def complete(self, system: str, user: str, schema: type[BaseModel], *, max_tokens: int,
                 timeout_s: float) -> str:
        """See ``ChatModel.complete``; must be called from the server's worker thread (a tool call).

        Raises:
            GeneratorTimeout: the client's model did not answer within ``timeout_s``.
            GeneratorUnavailable: the client refused the request (its error message).
            GeneratorError: the reply is not text.
        """
        system = (f"{system}\nThe reply must be one JSON object matching this JSON schema, with nothing before "
                  f"or after it:\n{json.dumps(schema.model_json_schema(), separators=(',', ':'))}")
        try:
            result = anyio.from_thread.run(self._ask, system, user, max_tokens, timeout_s)
        except TimeoutError:
            raise GeneratorTimeout(f"the MCP client's model gave no answer within {timeout_s:g} s") from None
        except MCPError as error:
            raise GeneratorUnavailable(f"the MCP client refused to sample: {error}") from None
        content = result.content
        if isinstance(content, list):  # a client answering with several blocks: their text, in order
            content = next((block for block in content if isinstance(block, types.TextContent)), None)
        if not isinstance(content, types.TextContent):
            raise GeneratorError(f"the MCP client's model replied {type(content).__name__}, not text")
        self.models.append(result.model)
        return content.text

    async def _ask(self, system: str, user: str, max_tokens: int, timeout_s: float) -> Any:
        # The SDK marks server-initiated sampling deprecated by the 2026-07-28 protocol (SEP-2577: a tool
        # returns an input-required result instead), but every client that samples today speaks it, and a
        # generator asks many times within one tool call, which the input-required round trip cannot.
        with anyio.fail_after(timeout_s), warnings.catch_warnings():
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            return await self._session.create_message(
                [types.SamplingMessage(role="user", content=types.TextContent(type="text", text=user))],
                max_tokens=max_tokens, system_prompt=system, temperature=0.0, include_context="none",
                related_request_id=self._request_id)
