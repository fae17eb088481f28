"""split_to_token_limit and fit_to_model with the real MiniLM tokenizer, and pack_paragraphs."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from vancetope_desktop.core.settings import Settings
from vancetope_desktop.index.embedder import Embedder
from vancetope_desktop.ingest.base import ChunkDraft
from vancetope_desktop.ingest.chunking import fit_to_model, pack_paragraphs, split_to_token_limit, word_count
from vancetope_desktop.ingest.registry import extract_file

MAX = 250
Counter = Callable[[str], int]
_WORDS = [
    "protein",
    "membrane",
    "signal",
    "receptor",
    "binding",
    "assay",
    "kinetics",
    "sample",
    "variance",
    "estimator",
    "gradient",
    "posterior",
    "likelihood",
    "spectrum",
    "photon",
    "detector",
    "calibration",
]


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(rng.randint(6, 22))).capitalize() + "."


def _long_section(words: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    paragraphs, total = [], 0
    while total < words:
        paragraph = " ".join(_sentence(rng) for _ in range(rng.randint(2, 6)))
        paragraphs.append(paragraph)
        total += len(paragraph.split())
    return "\n\n".join(paragraphs)


def _assert_within(chunks: list[ChunkDraft], count: Counter, limit: int = MAX) -> None:
    assert chunks
    for chunk in chunks:
        assert chunk.text.strip() == chunk.text and chunk.text
        assert count(chunk.text) <= limit, chunk.text[:80]


def test_short_chunks_pass_through_and_blank_ones_vanish(count_tokens: Counter) -> None:
    chunks = [ChunkDraft("  A short fact.  ", page=2, section="S"), ChunkDraft(" \n\t "), ChunkDraft("")]
    assert split_to_token_limit(chunks, count_tokens, MAX) == [ChunkDraft("A short fact.", page=2, section="S")]


def test_fact_at_end_of_5000_word_section_is_kept(count_tokens: Counter) -> None:
    fact = "The melting point of vancetopium is 1234 kelvin."
    text = _long_section(5000) + "\n\n" + fact
    tokenized = [0]

    def counting(piece: str) -> int:
        tokenized[0] += len(piece)
        return count_tokens(piece)

    out = split_to_token_limit([ChunkDraft(text, page=9, section="Results › Long")], counting, MAX)
    # The work stays linear in the text (measured: ~4× its length is tokenized, at 5,000 and 20,000
    # words); a split that re-counted the rest of the section at every cut would be quadratic.
    assert tokenized[0] <= 8 * len(text)
    _assert_within(out, count_tokens)
    assert any(fact in c.text for c in out)
    assert all(c.page == 9 and c.section == "Results › Long" for c in out)
    assert len(out) >= 5000 * 1.1 / MAX  # ≥ 1.1 word pieces per English word: many pieces


def test_no_text_is_lost(count_tokens: Counter) -> None:
    text = _long_section(1500, seed=3)
    out = split_to_token_limit([ChunkDraft(text)], count_tokens, 120)
    pieces = " ".join(c.text for c in out)
    for word_run in text.split("\n\n"):
        for sentence in word_run.split(". "):
            assert sentence.strip(".") in pieces


def test_one_huge_sentence_is_cut_by_words_with_overlap(count_tokens: Counter) -> None:
    rng = random.Random(1)
    words = [rng.choice(_WORDS) + str(i) for i in range(3000)]  # unique words to locate cuts
    out = split_to_token_limit([ChunkDraft(" ".join(words))], count_tokens, MAX, overlap_tokens=32)
    _assert_within(out, count_tokens)
    assert out[0].text.split()[0] == words[0] and out[-1].text.split()[-1] == words[-1]
    for first, second in itertools.pairwise(out):
        head = second.text.split()[0]
        assert head in first.text.split(), "consecutive pieces must overlap"
        shared = first.text.split()[first.text.split().index(head) :]
        assert 0 < count_tokens(" ".join(shared)) <= 32


def test_sentence_cut_between_pieces_is_whole_in_one(count_tokens: Counter) -> None:
    rng = random.Random(5)
    sentences = [_sentence(rng) for _ in range(200)]
    out = split_to_token_limit([ChunkDraft(" ".join(sentences))], count_tokens, 100, overlap_tokens=40)
    _assert_within(out, count_tokens, 100)
    for sentence in sentences:
        assert any(sentence in c.text for c in out)


def test_cjk_text_without_spaces_uses_character_windows(count_tokens: Counter) -> None:
    text = "日本語の文章には空白がありません" * 300  # 4,800 characters, no space, no full stop
    out = split_to_token_limit([ChunkDraft(text, section="CJK")], count_tokens, MAX)
    _assert_within(out, count_tokens)
    assert len(out) > 15
    assert out[0].text.startswith("日本語") and text.endswith(out[-1].text[-20:])


def test_overlong_single_token_run_is_cut(count_tokens: Counter) -> None:
    blob = "".join(f"{i:x}" for i in range(20000))  # one 'word' of ~80,000 characters
    out = split_to_token_limit([ChunkDraft(f"start {blob} end")], count_tokens, MAX)
    _assert_within(out, count_tokens)


def test_invalid_limits() -> None:
    with pytest.raises(ValueError):
        split_to_token_limit([ChunkDraft("x")], len, 0)
    with pytest.raises(ValueError):
        split_to_token_limit([ChunkDraft("x")], len, 10, overlap_tokens=10)


def test_pack_paragraphs() -> None:
    paragraphs = ["word " * 80, "", "word " * 80, "word " * 80, "word " * 300]
    packed = pack_paragraphs(paragraphs, max_words=200)
    assert [word_count(p) for p in packed] == [160, 80, 300]
    assert word_count("中文字符 and words") == 6


@pytest.mark.corpus
def test_japanese_note_fits_after_splitting(corpus: Path, count_tokens: Counter) -> None:
    extraction = extract_file(corpus / "notes/obsidian-basic-formatting-japanese.md")
    out = split_to_token_limit(extraction.chunks, count_tokens, MAX)
    _assert_within(out, count_tokens)
    assert sum(len(c.text) for c in out) >= sum(len(c.text) for c in extraction.chunks)
    assert any("シンタックスハイライト" in c.text for c in out)


@pytest.mark.corpus
def test_fit_to_model_uses_the_embedders_own_limit_and_counts(corpus: Path) -> None:
    """The one entry point the services call: the library's embedder is the token model."""
    embedder = Embedder.from_settings(Settings())
    extraction = extract_file(corpus / "notes/generative-flows-correction-guidance.md")
    chunks, counts = fit_to_model(extraction.chunks, embedder)
    assert len(chunks) > len(extraction.chunks)  # long sections were cut
    assert counts == [embedder.count_tokens(c.text) for c in chunks]
    assert max(counts) <= embedder.max_tokens == 254
    assert {c.section for c in chunks} == {c.section for c in extraction.chunks}
