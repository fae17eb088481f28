"""Token ids as sentence-transformers makes them, and length-sorted batches under a padded-token budget.

Shared by the two torch-free encoders (``numpy_encoder.NumpyEncoder``, ``onnx_encoder.OnnxEncoder``) so
that both tokenize, truncate, pad and batch exactly alike; only the forward pass differs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from tokenizers import Tokenizer

from .models import ModelSpec

__all__ = ["TOKENIZER_FILE", "SentenceTokenizer", "length_batches"]

TOKENIZER_FILE = "tokenizer.json"


class SentenceTokenizer:
    """A model's ``tokenizer.json``, truncating and padding as sentence-transformers does.

    Immutable after construction (the ``tokenizers`` object is configured once), so thread-safe.

    Args:
        spec: the resolved model; its ``transformer_path`` must hold ``tokenizer.json``.
        config: the model's ``config.json`` (for ``pad_token_id`` when the tokenizer names none).
    """

    def __init__(self, spec: ModelSpec, config: dict[str, Any]) -> None:
        tokenizer = Tokenizer.from_file(str(spec.transformer_path / TOKENIZER_FILE))
        # tokenizer.json may carry its own truncation/padding (all-MiniLM-L6-v2's: 128, fixed width);
        # sentence-transformers overrides both per call: truncate at max_seq_length (special tokens
        # included), pad on the right to the longest text of the batch (done in pad()).
        padding = tokenizer.padding or {}
        self.pad_id = int(padding.get("pad_id", config.get("pad_token_id") or 0))
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=spec.max_tokens, strategy="longest_first", direction="right")
        self._tokenizer = tokenizer

    def ids(self, text: str) -> list[int]:
        """Token ids of one text, ``[CLS]``/``[SEP]`` included, truncated at the model's ``max_tokens``."""
        # One encode() per text rather than encode_batch(): the batch call starts the tokenizers thread
        # pool, after which any fork() prints a warning to stderr; tokenizing is ~1 % of the forward pass.
        return self._tokenizer.encode(text).ids

    def pad(self, encoded: Sequence[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        """Token ids and attention mask, both ``(len(encoded), longest)`` int64, padded on the right."""
        longest = max((len(e) for e in encoded), default=0)
        ids = np.full((len(encoded), longest), self.pad_id, dtype=np.int64)
        mask = np.zeros((len(encoded), longest), dtype=np.int64)
        for row, tokens in enumerate(encoded):
            ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1
        return ids, mask

    def tokenize(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`pad` of :meth:`ids` of each text."""
        return self.pad([self.ids(text) for text in texts])


def length_batches(encoded: Sequence[list[int]], budget: int) -> Iterator[list[int]]:
    """Row indices of ``encoded`` sorted by length, cut into batches of at most ``budget`` padded tokens.

    Sorting keeps padding small; a batch ends where rows × its longest row would pass ``budget``
    (always at least one row, however long). Callers scatter each batch's output back to these rows.
    """
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))
    start = 0
    while start < len(order):
        # Sorted ascending: the last row of a batch is its longest.
        end = start + 1
        while end < len(order) and (end - start + 1) * len(encoded[order[end]]) <= budget:
            end += 1
        yield order[start:end]
        start = end
