"""Text → vector for the index: documents and queries through numpy, other models through sentence-transformers.

* Whenever the model is a BERT that :class:`~vancetope_desktop.index.numpy_encoder.NumpyEncoder`
  reproduces (the bundled all-MiniLM-L6-v2 and most sentence-transformers BERTs), documents and
  queries are embedded by it: first vectors of a cold process after 0.6 CPU s and 230 MB peak (torch:
  ~10 CPU s and ~500 MB), a few ms per query, document chunks as fast as torch on one thread (300
  paper chunks, two runs: 10.0 / 9.4 chunks/s against 9.9 / 9.6, ONNX Runtime 9.0 / 9.2; peak 231 MB
  against 852; ``tests/benchmarks/bench_embedding_runtimes.py``), so indexing processes, the CLI and
  the tests never load torch.
* Other models go through sentence-transformers (torch), imported lazily on first use; the app can
  pay that in the background with :meth:`Embedder.warm_up`.
* :meth:`Embedder.count_tokens` uses only ``tokenizers`` so chunkers can size chunks cheaply.

Both paths give the same vectors to 1e-5 (``tests/index/test_numpy_encoder.py``), so a library indexed
by one is searched by the other without re-embedding.

Everything is offline: :func:`~vancetope_desktop.index.models.force_offline` runs before
sentence-transformers is imported and the model is loaded from a local path with ``local_files_only``.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from tokenizers import Tokenizer

from vancetope_desktop.core.errors import IndexUnavailable

from .models import ModelSpec, force_offline, resolve_model
from .numpy_encoder import NumpyEncoder, unsupported_reason

if TYPE_CHECKING:
    from vancetope_desktop.core.settings import Settings

__all__ = ["Embedder"]

_DEFAULT_SPECIAL_TOKENS = 2  # [CLS] + [SEP], BERT's single-sequence template


class Embedder:
    """Embeds chunks and queries with one configured model; safe to share between threads.

    Args:
        spec: the resolved model (:func:`~vancetope_desktop.index.models.resolve_model`).
        batch_size: texts per sentence-transformers forward pass in :meth:`encode_documents`
            (``Settings.embedding_batch_size``), for models the numpy path does not run (it batches
            by padded tokens, ``numpy_encoder.BATCH_TOKENS``). Measured on a 2-core CPU with
            ~250-word-piece chunks: 32 is within ~10 % of the best both on an idle host (16 best, 128
            20 % slower) and on a contended one (64 best, 8-16 20-30 % slower).

    All vectors are float32 with unit L2 norm, so a dot product is the cosine similarity.
    """

    def __init__(self, spec: ModelSpec, batch_size: int = 32) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.spec = spec
        self.batch_size = batch_size
        self._load_lock = threading.Lock()  # guards the lazy loads below
        self._encode_lock = threading.Lock()  # one torch batch at a time: the cores are already busy
        self._model: Any = None  # sentence_transformers.SentenceTransformer, typed loosely: no import here
        self._numpy: NumpyEncoder | None = None
        self._counter: Tokenizer | None = None
        self._numpy_unsupported = unsupported_reason(spec)

    @classmethod
    def from_settings(cls, settings: Settings) -> Embedder:
        """Resolve ``settings.embedding_model`` and use ``settings.embedding_batch_size``.

        Raises:
            IndexUnavailable: the model cannot be resolved locally (see ``resolve_model``).
        """
        return cls(resolve_model(settings.embedding_model), batch_size=settings.embedding_batch_size)

    # -- description ---------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The model name to display and to record with the vectors (``ModelSpec.name``)."""
        return self.spec.name

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
        """``"numpy"`` or ``"sentence-transformers"``: what embeds this model's documents and queries."""
        return "numpy" if self._numpy_unsupported is None else "sentence-transformers"

    def warm_up(self) -> None:
        """Load everything the encode methods need (~0.3 s for numpy, seconds for torch). Call from a worker."""
        self._token_counter()
        if self._numpy_unsupported is None:
            self._numpy_encoder()
        else:
            self._st_model()

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
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        if self._numpy_unsupported is None:
            return self._normalized(self._numpy_encoder().encode(list(texts)))
        model = self._st_model()
        with self._encode_lock:
            vectors = model.encode(
                list(texts),
                batch_size=self.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        return np.ascontiguousarray(vectors, dtype=np.float32)

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
        """Embed several queries (e.g. an evaluation set) like :meth:`encode_query`.

        Returns:
            float32 array ``(len(texts), dimension)``, rows of unit L2 norm.
        """
        return self.encode_documents(texts)

    @staticmethod
    def _normalized(vectors: np.ndarray) -> np.ndarray:
        # L2-normalise even a model without a Normalize module, as sentence-transformers is asked to above.
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), np.float32(1e-12))
        return vectors

    # -- lazy loading --------------------------------------------------------------------------

    def _numpy_encoder(self) -> NumpyEncoder:
        if self._numpy is None:
            with self._load_lock:
                if self._numpy is None:
                    self._numpy = NumpyEncoder(self.spec)
        return self._numpy

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
            raise IndexUnavailable(f"sentence-transformers is not installed: {exc}") from exc
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
