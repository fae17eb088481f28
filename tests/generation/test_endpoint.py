"""The OpenAI-compatible endpoint generator, against a real server: llama.cpp's (llama-cpp-python's) on loopback."""

from __future__ import annotations

import logging
import socket
import subprocess
import sys
import time

import httpx
import keyring
import pytest

from vancetope_desktop.core.errors import InvalidInput
from vancetope_desktop.core.settings import Settings
from vancetope_desktop.generation.base import GeneratorUnavailable
from vancetope_desktop.generation.builtin import BuiltinGenerator
from vancetope_desktop.generation.choice import build_generator
from vancetope_desktop.generation.endpoint import (
    EndpointChat,
    KeyringUnavailable,
    check_endpoint_url,
    read_key,
    store_key,
)
from vancetope_desktop.generation.local_model import bundled_gguf
from vancetope_desktop.generation.model import ModelGenerator


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_endpoint_urls_are_checked():
    assert check_endpoint_url(" http://localhost:11434/v1/ ") == "http://localhost:11434/v1"
    assert check_endpoint_url("http://127.0.0.1:8080/v1/chat/completions") == "http://127.0.0.1:8080/v1"
    for bad in ("", "localhost:11434", "ftp://host/v1", "http://"):
        with pytest.raises(InvalidInput):
            check_endpoint_url(bad)
    with pytest.raises(InvalidInput, match="model name"):
        EndpointChat("http://localhost:11434/v1", " ")


def test_an_unreachable_endpoint_costs_the_item_nothing(caplog):
    url = f"http://127.0.0.1:{_free_port()}/v1"  # nothing listens there
    with pytest.raises(GeneratorUnavailable, match="cannot reach"):
        EndpointChat(url, "smollm2").complete("s", "u", Settings, max_tokens=5, timeout_s=5)
    choice = build_generator(Settings(generator="endpoint", generator_endpoint_url=url,
                                      generator_endpoint_model="smollm2"))
    text = "The survey compares multilevel and spectral graph partitioning on road networks."
    with caplog.at_level(logging.WARNING, logger="vancetope_desktop.generation.fallback"):
        assert choice.generator.keywords(text, 3) == BuiltinGenerator().keywords(text, 3)
    assert any("cannot reach" in r.getMessage() for r in caplog.records)


def test_without_a_keyring_the_key_is_refused_clearly_and_never_written(tmp_path, monkeypatch):
    """This machine has no keyring backend (keyring's 'fail' backend): storing says so, reading finds none."""
    if keyring.get_keyring().priority > 0:
        pytest.skip("a real keyring backend is present here; the no-keyring path is what this checks")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(KeyringUnavailable, match="no system keyring"):
        store_key("http://localhost:11434/v1", "sk-secret")
    assert read_key("http://localhost:11434/v1") is None
    assert not any("sk-secret" in p.read_text(errors="ignore") for p in tmp_path.rglob("*") if p.is_file())


@pytest.fixture
def plaintext_keyring(tmp_path, monkeypatch):
    """keyrings.alt's plain-text file backend as this process's keyring, as keyring picks it by itself where no
    keyring service runs (no ``PYTHON_KEYRING_BACKEND``, no ``keyringrc.cfg``); returns it."""
    from keyrings.alt.file import PlaintextKeyring

    before = keyring.get_keyring()  # first, while the variable still names the suite's "fail" backend
    monkeypatch.delenv("PYTHON_KEYRING_BACKEND")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no keyringrc.cfg of the user's
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    ring = PlaintextKeyring()
    keyring.set_keyring(ring)
    yield ring
    keyring.set_keyring(before)


def test_a_plain_text_keyring_chosen_by_keyring_itself_is_refused_and_nothing_written(
        tmp_path, monkeypatch, plaintext_keyring):
    """Found by a new user's trial: in a development environment (keyrings.alt installed, no Secret Service) the key
    went as base64 into ~/.local/share/python_keyring. Refused unless the user names that backend, alone or as the
    first member of a chain."""
    from keyring.backends.chainer import ChainerBackend
    from keyring.backends.fail import Keyring as FailKeyring

    with pytest.raises(KeyringUnavailable, match=r"plain text.*PYTHON_KEYRING_BACKEND"):
        store_key("http://localhost:11434/v1", "sk-secret")
    assert read_key("http://localhost:11434/v1") is None
    assert not any("c2stc2VjcmV0" in p.read_text(errors="ignore")  # base64 of the key
                   for p in tmp_path.rglob("*") if p.is_file())

    class Chain(ChainerBackend):  # keyring's chain as it would be with a second backend: judged by its writer
        backends = (plaintext_keyring, FailKeyring())

    keyring.set_keyring(Chain())
    with pytest.raises(KeyringUnavailable, match="plain text"):
        store_key("http://localhost:11434/v1", "sk-secret")

    keyring.set_keyring(plaintext_keyring)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyrings.alt.file.PlaintextKeyring")  # the user accepts it
    store_key("http://localhost:11434/v1", "sk-secret")
    assert read_key("http://localhost:11434/v1") == "sk-secret"


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory):
    """llama-cpp-python's OpenAI-compatible server on a loopback port, serving the bundled SmolLM2, on one thread
    for prompts too (its default reads them on every core, spinning: ``local_model.THREADS``)."""
    port = _free_port()
    log = tmp_path_factory.mktemp("llama_server") / "server.log"
    with log.open("wb") as sink:
        server = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(bundled_gguf()),
                                   "--model_alias", "smollm2", "--host", "127.0.0.1", "--port", str(port),
                                   "--n_ctx", "4096", "--n_threads", "1", "--n_threads_batch", "1"],
                                  stdout=subprocess.DEVNULL, stderr=sink)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if server.poll() is not None:
                pytest.fail(f"llama_cpp.server exited: {log.read_text(errors='replace')[-2000:]}")
            try:
                if httpx.get(f"{url}/models", timeout=2, trust_env=False).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        else:
            pytest.fail("llama_cpp.server did not answer within 120 s")
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.mark.slow
def test_a_real_llama_cpp_server_answers_in_the_schema(llama_server):
    chat = EndpointChat(llama_server, "smollm2")
    model = ModelGenerator(chat, timeout_s=120)
    text = ("Graph partitioning splits a graph into parts of nearly equal size while cutting few edges. "
            "Multilevel methods coarsen the graph, partition the small graph, then refine while uncoarsening.")
    keywords = model.keywords(text, 4)  # validated against the schema, or it would raise
    assert len(keywords) <= 4 and all(k.strip() for k in keywords)
    # llama-cpp-python's server refuses OpenAI's json_schema form (HTTP 500); the chat switched to its form.
    assert chat._schema_style == "json_object"
    summary = model.summarize(text, 30)
    assert len(summary.split()) <= 30
    # What a 135M model writes is weak (README, "Generators"); the point here is the path: a real server,
    # the schema sent, a reply that validated.
