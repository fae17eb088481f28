"""Text → vector for the index: ONNX Runtime or numpy for BERT models, sentence-transformers (torch) for others.

* Whenever the model is a BERT that :class:`~vancetope_desktop.index.numpy_encoder.NumpyEncoder` and
  :class:`~vancetope_desktop.index.onnx_encoder.OnnxEncoder` reproduce (the bundled all-MiniLM-L6-v2 and
  most sentence-transformers BERTs), nothing imports torch. With ``embedding_runtime = "auto"``:

  - documents go through ONNX Runtime (fp32 or int8, ``Settings.embedding_precision``): the fastest per
    CPU second on 300 paper chunks (README figures, "document embedding runtimes");
  - fp32 queries go through numpy: a cold process has its first query vector without paying
    onnxruntime's import and session creation (README figures, "cold query"); int8 queries go through
    ONNX int8, since a query must be embedded at the precision of the library's documents.

  If ONNX Runtime cannot run an fp32 model (no graph can be built, e.g. ``onnx`` missing and none
  prebuilt), documents fall back to numpy: the same vectors.
* Other models (and ``embedding_runtime = "sentence-transformers"``) go through sentence-transformers,
  the optional ``vancetope-desktop[torch]`` extra, imported lazily on first use; the app can pay that in
  the background with :meth:`Embedder.warm_up`.
* :meth:`Embedder.count_tokens` uses only ``tokenizers`` so chunkers can size chunks cheaply.

fp32 vectors are the same to 1e-5 whichever runtime makes them (``tests/index/test_numpy_encoder.py``,
``tests/index/test_onnx_encoder.py``), so a library indexed by one is searched by another without
re-embedding; int8 vectors are not, which is why the library records the precision with its vectors.

Everything is offline: :func:`~vancetope_desktop.index.models.force_offline` runs before
sentence-transformers is imported and the model is loaded from a local path with ``local_files_only``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, get_args

import numpy as np
from tokenizers import Tokenizer

from vancetope_desktop.core.errors import IndexUnavailable
from vancetope_desktop.core.settings import EmbeddingPrecision, EmbeddingRuntime

from .models import ModelSpec, force_offline, resolve_model
from .numpy_encoder import NumpyEncoder, unsupported_reason

if TYPE_CHECKING:
    from vancetope_desktop.core.settings import Settings

    from .onnx_encoder import OnnxEncoder

__all__ = ["TORCH_EXTRA_HINT", "Embedder"]

TORCH_EXTRA_HINT = "install the optional extra: pip install 'vancetope-desktop[torch]'"
"""How to get sentence-transformers (and torch) when a model or setting needs them."""

_DEFAULT_SPECIAL_TOKENS = 2  # [CLS] + [SEP], BERT's single-sequence template


class Embedder:
    """Embeds chunks and queries with one configured model; safe to share between threads.

    Args:
        spec: the resolved model (:func:`~vancetope_desktop.index.models.resolve_model`).
        batch_size: texts per sentence-transformers forward pass in :meth:`encode_documents`
            (``Settings.embedding_batch_size``), for models the torch-free paths do not run (they batch
            by padded tokens, ``numpy_encoder.BATCH_TOKENS``, ``onnx_encoder.BATCH_TOKENS``). Measured on a
            2-core CPU with ~250-word-piece chunks: 32 is within ~10 % of the best both on an idle host (16 best, 128
            20 % slower) and on a contended one (64 best, 8-16 20-30 % slower).
        precision: ``"fp32"`` or ``"int8"`` (``Settings.embedding_precision``; for a library, the precision
            its vectors were made at: ``Library.embedder``).
        runtime: ``Settings.embedding_runtime`` (see the module).

    All vectors are float32 with unit L2 norm, so a dot product is the cosine similarity.

    Raises:
        ValueError: an unknown precision or runtime, or ``batch_size`` below 1.
        IndexUnavailable: a combination that cannot run: int8 with the numpy or sentence-transformers
            runtime, int8 or ``"onnx"``/``"numpy"`` for a model they do not support (the reason is given).
    """

    def __init__(self, spec: ModelSpec, batch_size: int = 32, precision: EmbeddingPrecision = "fp32",
                 runtime: EmbeddingRuntime = "auto") -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if precision not in get_args(EmbeddingPrecision) or runtime not in get_args(EmbeddingRuntime):
            raise ValueError(f"unknown embedding precision {precision!r} or runtime {runtime!r}")
        self.spec = spec
        self.batch_size = batch_size
        self.precision = precision
        self.runtime = runtime
        self._load_lock = threading.Lock()  # guards the lazy loads below
        self._encode_lock = threading.Lock()  # one torch batch at a time: the cores are already busy
        self._model: Any = None  # sentence_transformers.SentenceTransformer, typed loosely: no import here
        self._numpy: NumpyEncoder | None = None
        self._onnx: OnnxEncoder | None = None
        self._counter: Tokenizer | None = None
        self._documents, self._queries = self._choose_backends(unsupported_reason(spec))

    def _choose_backends(self, unsupported: str | None) -> tuple[str, str]:
        """``(document backend, query backend)``, each ``"numpy"``, ``"onnx"`` or ``"sentence-transformers"``."""
        runtime, precision = self.runtime, self.precision
        if precision == "int8":
            if runtime in ("numpy", "sentence-transformers"):
                raise IndexUnavailable(f"int8 embeddings run on ONNX Runtime only, not on {runtime}: set "
                                       "embedding_runtime to auto or onnx, or embedding_precision to fp32.")
            if unsupported is not None:
                raise IndexUnavailable(f"int8 embeddings need a model ONNX Runtime runs here; {self.name} has "
                                       f"{unsupported}: set embedding_precision to fp32.")
            return "onnx", "onnx"
        if runtime == "sentence-transformers":
            return runtime, runtime
        if unsupported is not None:
            if runtime != "auto":
                raise IndexUnavailable(f"The {runtime} runtime cannot run {self.name} ({unsupported}): set "
                                       "embedding_runtime to auto or sentence-transformers.")
            return "sentence-transformers", "sentence-transformers"
        if runtime == "auto":
            return "onnx", "numpy"
        return runtime, runtime

    @classmethod
    def from_settings(cls, settings: Settings) -> Embedder:
        """Resolve ``settings.embedding_model`` with the settings' batch size, precision and runtime.

        Raises:
            IndexUnavailable: the model cannot be resolved locally (see ``resolve_model``), or the
                combination cannot run (see the class).
        """
        return cls(resolve_model(settings.embedding_model), batch_size=settings.embedding_batch_size,
                   precision=settings.embedding_precision, runtime=settings.embedding_runtime)

    # -- description ---------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The model name to display and to record with the vectors (``ModelSpec.name``)."""
        return self.spec.name

    @property
    def vector_identity(self) -> str:
        """What the vector store records with these vectors: :attr:`name`, plus ``" int8"`` at int8 precision.

        fp32 vectors are the same whatever runtime makes them, so their identity is the model's name (as
        libraries indexed before precisions existed recorded it); int8 vectors differ (cosine ~0.99), so a
        collection of one precision refuses vectors of the other (``VectorStore.upsert``).
        """
        return self.name if self.precision == "fp32" else f"{self.name} {self.precision}"

    @property
    def dimension(self) -> int:
        """Length of every vector (384 for all-MiniLM-L6-v2)."""
        return self.spec.dimension

    @property
    def max_tokens(self) -> int:
        """Most word pieces a chunk may have without being truncated (254 for all-MiniLM-L6-v2).

        The model's ``max_seq_length`` (256, ``sentence_bert_config.json``) minus the special tokens the
        tokenizer adds to a single text (``[CLS]``/``[SEP]``: 2, from ``tokenizer.json``'s post-processor).
        Compare with :meth:`count_tokens`.
        """
        counter = self._token_counter()
        special = counter.num_special_tokens_to_add(False) if counter is not None else _DEFAULT_SPECIAL_TOKENS
        return self.spec.max_tokens - special

    @property
    def loaded(self) -> bool:
        """Whether sentence-transformers (torch) is loaded in this process."""
        return self._model is not None

    @property
    def backend(self) -> str:
        """What embeds documents: ``"numpy"``, ``"onnx-fp32"``, ``"onnx-int8"`` or ``"sentence-transformers"``.

        Before the first document batch this is the choice; after it, what ran (``"numpy"`` when ONNX
        Runtime could not load an fp32 graph under ``embedding_runtime = "auto"``).
        """
        return self._label(self._documents)

    @property
    def query_backend(self) -> str:
        """What embeds queries, named as :attr:`backend`."""
        return self._label(self._queries)

    def _label(self, backend: str) -> str:
        return f"onnx-{self.precision}" if backend == "onnx" else backend

    def warm_up(self) -> None:
        """Load everything the encode methods need (~0.5 s for ONNX, seconds for torch). Call from a worker."""
        self._token_counter()
        for backend in {self._documents, self._queries}:
            self._encoder(backend)

    # -- tokens --------------------------------------------------------------------------------

    def count_tokens(self, text: str) -> int:
        """Number of word pieces in ``text``, special tokens excluded, never truncated.

        Uses the model's ``tokenizer.json`` via ``tokenizers`` only (microseconds per sentence,
        thread-safe: the tokenizer is configured once and never mutated afterwards). Models without a
        ``tokenizer.json`` fall back to the sentence-transformers tokenizer (loads torch).
        """
        counter = self._token_counter()
        if counter is not None:
            return len(counter.encode(text, add_special_tokens=False).ids)
        tokenizer = self._st_model().tokenizer
        return len(tokenizer(text, add_special_tokens=False, truncation=False)["input_ids"])

    def _token_counter(self) -> Tokenizer | None:
        if self._counter is None:
            path = self.spec.transformer_path / "tokenizer.json"
            if not path.is_file():
                return None
            with self._load_lock:
                if self._counter is None:
                    counter = Tokenizer.from_file(str(path))
                    # tokenizer.json may set truncation/padding (MiniLM: 128, fixed); counting needs neither.
                    counter.no_truncation()
                    counter.no_padding()
                    self._counter = counter
        return self._counter

    # -- encoding ------------------------------------------------------------------------------

    def encode_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed chunks (CPU, offline) with :attr:`backend`, loaded on first call.

        Args:
            texts: chunk texts; each should have at most :attr:`max_tokens` word pieces (longer ones
                are truncated, as sentence-transformers does). Order does not matter for speed: both
                paths sort by length internally and return the input order.

        Returns:
            float32 array ``(len(texts), dimension)``, rows of unit L2 norm.

        Raises:
            IndexUnavailable: the model cannot be loaded.
        """
        return self._encode(self._documents, texts)

    def _encode(self, backend: str, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        encoder = self._encoder(backend)
        if backend == "sentence-transformers":
            with self._encode_lock:
                vectors = encoder.encode(
                    list(texts),
                    batch_size=self.batch_size,
                    convert_to_numpy=True,
                    normalize_embeddings=True,
                    show_progress_bar=False,
                )
            return np.ascontiguousarray(vectors, dtype=np.float32)
        return self._normalized(encoder.encode(list(texts)))

    def encode_query(self, text: str) -> np.ndarray:
        """Embed a search query, exactly as :meth:`encode_documents` would embed it as a chunk.

        A document batch running in another thread of this process delays it by at most one forward
        pass (``numpy_encoder.BATCH_TOKENS`` tokens, ~0.1-0.2 s): numpy's BLAS thread limit is
        process-wide, so passes take turns.

        Returns:
            float32 array ``(dimension,)`` of unit L2 norm.
        """
        return self.encode_queries([text])[0]

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed several queries (e.g. an evaluation set) like :meth:`encode_query`, with :attr:`query_backend`.

        Returns:
            float32 array ``(len(texts), dimension)``, rows of unit L2 norm.
        """
        return self._encode(self._queries, texts)

    @staticmethod
    def _normalized(vectors: np.ndarray) -> np.ndarray:
        # L2-normalise even a model without a Normalize module, as sentence-transformers is asked to above.
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), np.float32(1e-12))
        return vectors

    # -- lazy loading --------------------------------------------------------------------------

    def _encoder(self, backend: str) -> Any:
        """The loaded encoder of ``backend`` (NumpyEncoder, OnnxEncoder or SentenceTransformer)."""
        if backend == "numpy":
            return self._numpy_encoder()
        if backend == "onnx":
            return self._onnx_encoder() or self._numpy_encoder()
        return self._st_model()

    def _numpy_encoder(self) -> NumpyEncoder:
        if self._numpy is None:
            with self._load_lock:
                if self._numpy is None:
                    self._numpy = NumpyEncoder(self.spec)
        return self._numpy

    def _onnx_encoder(self) -> OnnxEncoder | None:
        """The ONNX encoder; ``None`` once it failed under ``auto`` in fp32 (numpy then runs, same vectors)."""
        if self._onnx is None and self._documents == "onnx":
            with self._load_lock:
                if self._onnx is None and self._documents == "onnx":
                    from .onnx_encoder import OnnxEncoder  # onnxruntime: ~0.3 s to import, only when used

                    try:
                        self._onnx = OnnxEncoder(self.spec, self.precision)
                    except IndexUnavailable:
                        if self.runtime != "auto" or self.precision != "fp32":
                            raise
                        self._documents = "numpy"
                        if self._queries == "onnx":
                            self._queries = "numpy"
        return self._onnx

    def _st_model(self) -> Any:
        if self._model is None:
            with self._load_lock:
                if self._model is None:
                    self._model = self._load_sentence_transformer()
        return self._model

    def _load_sentence_transformer(self) -> Any:
        force_offline()  # before the import: huggingface_hub/transformers read it once, at import
        # The fast tokenizer's thread pool would compete with torch's threads for the same cores, and
        # once used, every later fork() (QProcess, subprocess) prints a warning; tokenizing is cheap.
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        try:
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging
        except ImportError as exc:
            raise IndexUnavailable(
                f"Embedding model {self.name} needs sentence-transformers (torch), which is not installed "
                f"({exc}): {TORCH_EXTRA_HINT}, or choose a BERT model the built-in runtimes run."
            ) from exc
        hf_logging.disable_progress_bar()  # transformers 5 draws a "Loading weights" bar on stderr
        try:
            model = SentenceTransformer(str(self.spec.path), device="cpu", local_files_only=True)
        except Exception as exc:  # OSError, ValueError, RuntimeError… from a broken or partial copy
            raise IndexUnavailable(
                f"Cannot load embedding model {self.name} from {self.spec.path}: {exc}"
            ) from exc
        # Truncate exactly where the numpy encoder and max_tokens say (ST's own default may differ).
        model.max_seq_length = self.spec.max_tokens
        model.eval()
        # Renamed in sentence-transformers 6 (the old name warns); pyproject still allows >= 3.0.
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        produced = getter()
        if produced is not None and produced != self.dimension:
            raise IndexUnavailable(
                f"Embedding model {self.name} produces {produced}-dimensional vectors, "
                f"but its configuration says {self.dimension}."
            )
        return model
