"""An OpenAI-compatible chat endpoint the user runs (Ollama, LM Studio, llama.cpp's server, vLLM) as a generator.

``POST {url}/chat/completions`` with the model name, the two messages, ``temperature: 0`` and a
``response_format`` holding the reply's JSON schema; the reply's ``choices[0].message.content`` is the JSON.
Servers spell the schema format two ways: OpenAI's ``{"type": "json_schema", "json_schema": {...}}`` (vLLM,
LM Studio, Ollama) and llama.cpp's ``{"type": "json_object", "schema": {...}}`` (llama-cpp-python's server,
which refuses the first with an HTTP error naming it); such a refusal is retried once with the second, and the
choice is remembered for the endpoint.

httpx, no SDK: one request shape is all that is used. The endpoint is only ever the URL the user set: this
module opens no other connection.

The API key lives in the system keyring (the ``keyring`` package: macOS Keychain, Windows Credential
Locker, Secret Service on Linux), under :data:`KEYRING_SERVICE` and the endpoint's URL, never in the
library folder or a settings file. Where no keyring backend exists, storing a key fails with a clear
message and the endpoint is used without a key (local servers rarely need one).
"""

from __future__ import annotations

import contextlib
import logging
import os
from typing import TYPE_CHECKING

from pydantic import BaseModel

from ..core.errors import InvalidInput, VancetopeError
from .base import GeneratorError, GeneratorTimeout, GeneratorUnavailable

if TYPE_CHECKING:
    import httpx

log = logging.getLogger(__name__)

KEYRING_SERVICE = "vancetope-desktop/generator-endpoint"


def check_endpoint_url(text: str) -> str:
    """An endpoint base URL, normalised: ``http(s)://host[:port]/path`` without a trailing ``/`` (the part
    before ``/chat/completions``, e.g. ``http://localhost:11434/v1``).

    Raises:
        InvalidInput: empty, not http(s), or without a host.
    """
    import httpx  # here: 0.13 s of CPU to import, and every command that loads the services loads this module

    raw = str(text or "").strip().rstrip("/")
    try:
        url = httpx.URL(raw)
    except httpx.InvalidURL as error:
        raise InvalidInput(f"not a URL: {raw!r} ({error})") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise InvalidInput(f"an endpoint URL starts with http:// or https:// and names a host, not {raw!r}")
    return raw.removesuffix("/chat/completions")


class EndpointChat:
    """A :class:`~vancetope_desktop.generation.model.ChatModel` over an OpenAI-compatible endpoint.

    Args:
        url: the base URL (see :func:`check_endpoint_url`).
        model: the model name the server knows (``llama3.2``, ``qwen2.5:1.5b``…).
        api_key: sent as ``Authorization: Bearer …`` when given.

    Raises:
        InvalidInput: a bad URL or an empty model name.
    """

    def __init__(self, url: str, model: str, *, api_key: str | None = None) -> None:
        self.url = check_endpoint_url(url)
        self.model = str(model or "").strip()
        if not self.model:
            raise InvalidInput("the endpoint needs a model name")
        self.name = f"openai:{self.model}"
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._schema_style = "json_schema"

    def complete(self, system: str, user: str, schema: type[BaseModel], *, max_tokens: int,
                 timeout_s: float) -> str:
        """See ``ChatModel.complete``.

        Raises:
            GeneratorUnavailable: the server cannot be reached, or refuses the key (401/403).
            GeneratorTimeout: no answer within ``timeout_s`` seconds.
            GeneratorError: any other HTTP error or a reply without a message (quoting the server).
        """
        body = {"model": self.model, "temperature": 0, "max_tokens": max_tokens, "stream": False,
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]}
        response = self._post(body, schema, timeout_s)
        if response.status_code >= 400 and self._schema_style == "json_schema" and "json_schema" in response.text:
            # llama-cpp-python's server knows only {"type": "json_object", "schema": …}, and refuses the other
            # form with HTTP 500 naming it ('Input should be 'text' or 'json_object'', input 'json_schema').
            self._schema_style = "json_object"
            response = self._post(body, schema, timeout_s)
        if response.status_code in (401, 403):
            raise GeneratorUnavailable(f"{self.url} refused the API key (HTTP {response.status_code})")
        if response.status_code >= 400:
            raise GeneratorError(f"{self.url} answered HTTP {response.status_code}: {response.text[:200]}")
        try:
            choice = response.json()["choices"][0]
            content = choice["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise GeneratorError(f"{self.url} replied without a chat message: {response.text[:200]}") from None
        if choice.get("finish_reason") == "length":
            raise GeneratorError(f"{self.name}'s reply ran past {max_tokens} tokens")
        return content or ""

    def _post(self, body: dict, schema: type[BaseModel], timeout_s: float) -> httpx.Response:
        import httpx

        json_schema = schema.model_json_schema()
        if self._schema_style == "json_schema":
            response_format = {"type": "json_schema",
                               "json_schema": {"name": schema.__name__, "schema": json_schema}}
        else:
            response_format = {"type": "json_object", "schema": json_schema}
        try:
            # trust_env=False: no proxy from the environment stands between the app and the user's server.
            with httpx.Client(timeout=timeout_s, trust_env=False) as client:
                return client.post(f"{self.url}/chat/completions", json={**body, "response_format": response_format},
                                   headers=self._headers)
        except httpx.TimeoutException:
            raise GeneratorTimeout(f"{self.url} gave no answer within {timeout_s:g} s") from None
        except httpx.HTTPError as error:
            raise GeneratorUnavailable(f"cannot reach {self.url}: {error}") from None


# --- The API key, in the system keyring -------------------------------------------------------------------

class KeyringUnavailable(VancetopeError):
    """No system keyring here (e.g. a headless Linux without Secret Service): a key cannot be kept safely."""


def system_keyring(what: str = "the endpoint key", instead: str = "use an endpoint without a key"):
    """The keyring backend that keeps secrets here (the endpoint's key, a team library's database password and
    Chroma token: ``services.team_library``): ``get_password``, ``set_password`` and ``delete_password`` as the
    ``keyring`` module's.

    A backend that writes secrets as plain text (:data:`PLAINTEXT_BACKENDS`) is used only when the user named it
    in keyring's own configuration (``PYTHON_KEYRING_BACKEND`` or ``keyringrc.cfg``): keyring picks keyrings.alt's
    file backend by itself wherever no keyring service runs, and it is installed beside the app in a development
    environment. A chain of backends (keyring's ``ChainerBackend``) is judged by its first member, the one it writes
    to.

    Args:
        what: the secret, as the refusal names it ("the endpoint key").
        instead: what the user can do without a keyring, as the refusal advises it.

    Raises:
        KeyringUnavailable: keyring's "fail" backend (or one of priority 0 or less) is all there is, or the backend
            it chose by itself writes plain text.
    """
    import keyring
    from keyring.backends.chainer import ChainerBackend
    from keyring.backends.fail import Keyring as FailKeyring

    backend = keyring.get_keyring()
    writer = backend.backends[0] if isinstance(backend, ChainerBackend) and backend.backends else backend
    if isinstance(writer, FailKeyring) or getattr(backend, "priority", 1) <= 0:
        raise KeyringUnavailable(f"no system keyring is available here, so {what} cannot be stored safely; "
                                 f"{instead}, or install a keyring service (Secret Service / KWallet on Linux)")
    name = f"{type(writer).__module__}.{type(writer).__name__}"
    if name in PLAINTEXT_BACKENDS and not _named_by_user(writer, name):
        raise KeyringUnavailable(f"the only keyring here ({name}) keeps secrets as plain text in a file, so {what} "
                                 f"is not stored in it; {instead}, install a keyring service (Secret Service / "
                                 f"KWallet on Linux), or accept that file by naming it in PYTHON_KEYRING_BACKEND")
    return backend


PLAINTEXT_BACKENDS = frozenset({"keyrings.alt.file.PlaintextKeyring", "keyrings.alt.pyfs.PlaintextKeyring"})
"""keyring backends that keep secrets as plain (base64) text: keyrings.alt's, by its own description "less secure"."""


def _named_by_user(backend: object, name: str) -> bool:
    """Whether keyring's configuration names ``backend`` (whose dotted class name is ``name``): the
    ``PYTHON_KEYRING_BACKEND`` variable, or ``keyringrc.cfg``'s ``default-keyring`` (``keyring.core.load_config``)."""
    from keyring.core import load_config

    if os.environ.get("PYTHON_KEYRING_BACKEND"):
        return os.environ["PYTHON_KEYRING_BACKEND"] == name
    try:
        configured = load_config()
    except Exception:  # an unreadable or wrong keyringrc.cfg names nothing usable
        return False
    return configured is not None and type(configured) is type(backend)


def read_key(url: str) -> str | None:
    """The API key stored for endpoint ``url``, None when there is none or no keyring exists (logged)."""
    try:
        return system_keyring().get_password(KEYRING_SERVICE, check_endpoint_url(url))
    except KeyringUnavailable as error:
        log.info("%s", error)
        return None
    except Exception as error:  # a locked or broken keyring: the endpoint is tried without a key
        log.warning("cannot read the endpoint key from the keyring: %s", error)
        return None


def store_key(url: str, key: str | None) -> None:
    """Keep ``key`` for endpoint ``url`` in the system keyring; an empty or None key deletes it.

    Raises:
        InvalidInput: a bad URL.
        KeyringUnavailable: no keyring backend, or the keyring refused (its message).
    """
    from keyring.errors import KeyringError, PasswordDeleteError

    url = check_endpoint_url(url)
    ring = system_keyring()
    try:
        if key and key.strip():
            ring.set_password(KEYRING_SERVICE, url, key.strip())
            return
        with contextlib.suppress(PasswordDeleteError):  # nothing stored: deleting is done
            ring.delete_password(KEYRING_SERVICE, url)
    except KeyringError as error:
        raise KeyringUnavailable(f"the keyring refused: {error}") from None
