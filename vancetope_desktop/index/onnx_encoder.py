"""Sentence embeddings through ONNX Runtime: the graph ``onnx_export`` builds from the safetensors, no torch.

Tokenizing, truncation, padding and batching are ``batching``'s, the same as the numpy encoder's; ONNX
Runtime runs the forward pass. In fp32 the vectors equal sentence-transformers' to 1e-5
(``tests/index/test_onnx_encoder.py``); int8 (dynamically quantised weights) is faster and close, not
equal (cosine ~0.99), which is why a library records the precision of its vectors
(``services/indexing.py``).

The session never touches the network and writes nothing outside the graph cache: ONNX Runtime's telemetry (its 1DS
events on every platform, ETW events on Windows) is switched off before ``onnxruntime`` is imported
(``onnx_export.TELEMETRY_ENV``) and again here; it runs on the CPU provider only.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from vancetope_desktop.core.errors import IndexUnavailable

from .batching import SentenceTokenizer, length_batches
from .models import ModelSpec
from .numpy_encoder import model_config, unsupported_reason
from .onnx_export import Precision, ensure_graph

__all__ = ["BATCH_TOKENS", "ENCODE_STREAMS", "INTRA_OP_THREADS", "OnnxEncoder"]

BATCH_TOKENS = 512
"""Most padded tokens per ``session.run`` (2 chunks of 256 tokens), as for the numpy encoder
(``numpy_encoder.BATCH_TOKENS``): on 120 corpus-note texts of 120-200 words, three interleaved rounds on the busy
2-core machine, 512 took 9.7-10.1 CPU s, 2048 10.7-11.3 s, 8192 11.8-12.3 s (the temporaries of a small batch
stay in the CPU caches)."""

INTRA_OP_THREADS = 1
"""Threads of a session's matrix products. One: on the shared 2-core machine at load 6-7, two threads embedded
300 paper chunks at 6.2 chunks/s for 18.5 CPU s against 8.8 chunks/s for 17.0 CPU s on one (int8: 10.0 against
8.0 chunks/s, but 14.1 against 11.9 CPU s); the indexing process runs beside the app, and the upload pipeline
extracts the next files on the other core (``tests/benchmarks/bench_embedding_runtimes.py``)."""

ENCODE_STREAMS = min(2, os.cpu_count() or 1)
"""Batches of one :meth:`OnnxEncoder.encode` call run at once, each on its own thread with one intra-op thread
(``InferenceSession.run`` is thread-safe and releases the GIL): the way to use a second core without the intra-op
threads' barriers, which lose time whenever the machine is busy (:data:`INTRA_OP_THREADS`). Two streams need no
synchronisation between runs, so on a busy machine they cost no more CPU than one; on a quiet one they keep both
cores busy. Queries (one text) take one run on the calling thread. Figures: README, ``bench_vs_peer.py``."""


class OnnxEncoder:
    """Sentence embeddings of a BERT sentence-transformers model through ONNX Runtime (CPU).

    Args:
        spec: a model :func:`~vancetope_desktop.index.numpy_encoder.unsupported_reason` accepts.
        precision: ``"fp32"`` (equal to sentence-transformers to 1e-5) or ``"int8"``.
        threads: intra-op threads (:data:`INTRA_OP_THREADS`).
        streams: batches run at once by one :meth:`encode` call (:data:`ENCODE_STREAMS`); 1 runs them in turn on
            the calling thread.

    Building the session finds or builds the graph (``onnx_export.ensure_graph``: first use of a model
    builds it, ~3-6 s; a cached graph ONNX Runtime cannot read is built again once). :meth:`encode` is
    thread-safe (``InferenceSession.run`` is, and the tokenizer is immutable).

    Raises:
        IndexUnavailable: the model is not a supported BERT, onnxruntime is missing, or the graph cannot be
            built or loaded.
    """

    def __init__(self, spec: ModelSpec, precision: Precision = "fp32", threads: int = INTRA_OP_THREADS,
                 streams: int = ENCODE_STREAMS) -> None:
        reason = unsupported_reason(spec)
        if reason is not None:
            raise IndexUnavailable(f"The ONNX encoder cannot run {spec.name}: {reason}.")
        try:
            import onnxruntime
        except ImportError as exc:
            raise IndexUnavailable(f"onnxruntime is not installed: {exc}") from exc
        self.spec = spec
        self.precision = precision
        self._tokenizer = SentenceTokenizer(spec, model_config(spec.transformer_path))
        self._session = self._open(onnxruntime, threads)
        self._streams = max(1, streams)
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def _open(self, onnxruntime: Any, threads: int) -> Any:
        # Windows ETW events; the 1DS telemetry files are stopped only by onnx_export.TELEMETRY_ENV, before the import.
        onnxruntime.disable_telemetry_events()
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = max(1, threads)
        options.inter_op_num_threads = 1
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        # Worker threads that spin while waiting steal the core other processes need (the numpy encoder's
        # BLAS did the same: numpy_encoder.blas_threads); with one thread there is nothing to wait for.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3  # errors only: its warnings about unused initialisers are noise
        graph = ensure_graph(self.spec, self.precision)
        for attempt in (1, 2):
            try:
                return onnxruntime.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
            except Exception as exc:  # InvalidProtobuf, Fail…: a truncated or foreign file
                if attempt == 2:
                    raise IndexUnavailable(f"ONNX Runtime cannot load {graph}: {exc}") from exc
                graph = ensure_graph(self.spec, self.precision, rebuild=True)
        raise AssertionError("unreachable")

    @property
    def dimension(self) -> int:
        """Length of the output vectors."""
        return self.spec.dimension

    def tokenize(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Token ids and attention mask as sentence-transformers makes them (``batching.SentenceTokenizer``)."""
        return self._tokenizer.tokenize(texts)

    def encode(self, texts: str | Sequence[str]) -> np.ndarray:
        """Embed one text or many, in length-sorted batches of at most :data:`BATCH_TOKENS` padded tokens (int8:
        one text per run, so that a text's vector never depends on the texts embedded with it).

        Returns:
            float32 ``(dimension,)`` for a string, ``(len(texts), dimension)`` for a sequence, in input
            order; unit L2 norm when the model ends with Normalize.
        """
        single = isinstance(texts, str)
        batch = [texts] if single else list(texts)
        out = np.empty((len(batch), self.dimension), dtype=np.float32)
        encoded = [self._tokenizer.ids(text) for text in batch]
        # int8 runs one text at a time: its activations are quantised with one scale per run, so a batch would
        # make a text's vector depend on its neighbours (cosine ~0.99 between a chunk embedded in a batch and
        # the same text as a query); alone, a text always gets the same vector, for the same CPU (one text per
        # run 6.7 CPU s, 512-token batches 6.8 s, on 120 corpus-note texts).
        batches = list(length_batches(encoded, 1 if self.precision == "int8" else BATCH_TOKENS))

        def run(rows: list[int]) -> None:
            ids, mask = self._tokenizer.pad([encoded[i] for i in rows])
            out[rows] = self._session.run(None, {"input_ids": ids, "attention_mask": mask})[0]

        if len(batches) == 1 or self._streams == 1:
            for rows in batches:
                run(rows)
        else:
            # Every run's error reaches the caller (list() re-raises the first); rows are disjoint, so the runs
            # write to ``out`` without a lock.
            list(self._stream_pool().map(run, batches))
        return out[0] if single else out

    def _stream_pool(self) -> ThreadPoolExecutor:
        """The threads of :data:`ENCODE_STREAMS`, started at the first multi-batch call (queries never need them)."""
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._streams, thread_name_prefix="onnx-encode")
            return self._pool
