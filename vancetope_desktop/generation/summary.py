"""Extractive summaries: the text's most central sentences, in their order, within a word budget.

TextRank (Mihalcea & Tarau 2004): sentences are nodes, the cosine similarity of their TF-IDF vectors (stemmed
content words) the edge weights, and PageRank the centrality. Each score is multiplied by ``1 + 1/(2 + i)``
for the i-th sentence, since notes and abstracts tend to say what they are about first. Deterministic: no
sampling, ties broken by position.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from .cues import clean, worth_keeping
from .keywords import STOP_WORDS, content_runs, stemmer
from .sentences import BlockKind, Sentence

MAX_TEXT_CHARS = 200_000
"""Summaries and keywords (``builtin``) and conversation summaries (``chat_summary``: turns and previous
summary together) read the first 200,000 characters (about 35,000 words): the opening of a longer
text says what it is about, and the bound keeps one call near a second on this machine."""
MAX_SUMMARY_SENTENCES = 400
"""Only the first 400 statements are ranked (the similarity matrix grows with their square; the corpus
notes' longest has 330)."""
CHARS_PER_WORD = 8
"""A summary also stays within ``max_words * 8`` characters: a CJK sentence is one "word" between blanks, and
English words average about 6 characters with their space, so the cap only bites on such text."""
ITEM_WEIGHT = 0.5
"""List items count half: short and alike, they are central to each other, while the prose around a list
says what it is about (measured on the seed texts, whose summaries were otherwise their bullet lists)."""
DAMPING = 0.85
ITERATIONS = 50


_ENDS = ".!?…。！？\"'”’)"


def _stems(text: str) -> list[str]:
    stem = stemmer().stemWord
    return [stem(word.casefold()) for run in content_runs(text) for word in run if word.casefold() not in STOP_WORDS]


def tfidf_rows(texts: Sequence[str]) -> np.ndarray:
    """``texts``' TF-IDF vectors over their stemmed content words, one unit-length row each (all zeros for a text
    without any), an ``(len(texts), terms)`` float64 array, columns in order of first appearance.

    scikit-learn's ``TfidfVectorizer`` with its defaults (raw counts, smoothed idf ``ln((1 + n) / (1 + df)) + 1``,
    rows scaled to unit length: ``tests/generation/test_stop_words.py`` compares the two), written out in numpy:
    importing scikit-learn and SciPy cost 1.2 s of CPU, more than the summaries of a whole upload, in every
    process that summarised (the CLI's upload, the demo, the MCP server).
    """
    counts = [Counter(_stems(text)) for text in texts]
    columns: dict[str, int] = {}
    for row in counts:
        for term in row:
            columns.setdefault(term, len(columns))
    vectors = np.zeros((len(texts), len(columns)))
    for index, row in enumerate(counts):
        vectors[index, [columns[term] for term in row]] = list(row.values())
    vectors *= np.log((1 + len(texts)) / (1 + np.count_nonzero(vectors, axis=0))) + 1
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def centrality(texts: Sequence[str]) -> np.ndarray:
    """Each of ``texts``' centrality: PageRank over their TF-IDF cosine graph (:func:`tfidf_rows`), an array
    of ``len(texts)`` scores summing to 1 (uniform when no two texts share a word). Also ranks a chat
    range's sentences (``chat_summary``)."""
    n = len(texts)
    if n <= 2:  # one sentence, or two that can only link to each other: uniform, without building a matrix
        return np.full(n, 1.0 / n)
    vectors = tfidf_rows(texts)
    similarity = vectors @ vectors.T
    np.fill_diagonal(similarity, 0.0)
    totals = similarity.sum(axis=1, keepdims=True)
    # A sentence that shares no word with any other links to all alike (no dangling node).
    transition = np.divide(similarity, totals, out=np.full_like(similarity, 1.0 / n), where=totals > 0)
    rank = np.full(n, 1.0 / n)
    for _ in range(ITERATIONS):
        rank = (1 - DAMPING) / n + DAMPING * (transition.T @ rank)
    return rank


def summarize(sentences: Sequence[Sentence], max_words: int) -> str:
    """A summary of at most ``max_words`` words made of whole sentences of the text ("" when it has none).

    The summary also holds at most ``max_words * CHARS_PER_WORD`` characters. When even the most central
    sentence is longer than the budget, its opening within the budget is given, ending with "…".
    """
    statements = [s for s in sentences if s.kind is not BlockKind.HEADING and worth_keeping(s)]
    statements = statements[:MAX_SUMMARY_SENTENCES]
    if not statements:
        return ""
    texts = [clean(s.text) for s in statements]
    rank = centrality(texts)
    items = np.array([s.kind is BlockKind.ITEM for s in statements])
    weights = rank * (1 + 1 / (2 + np.arange(len(texts)))) * np.where(items, ITEM_WEIGHT, 1.0)
    order = sorted(range(len(texts)), key=lambda i: (-weights[i], i))
    chosen, used, length = [], 0, 0
    for index in order:
        words = len(texts[index].split())
        if used + words <= max_words and length + len(texts[index]) <= max_words * CHARS_PER_WORD:
            chosen.append(index)
            used += words
            length += len(texts[index]) + 1
    if not chosen:
        return " ".join(texts[order[0]].split()[:max_words])[:max_words * CHARS_PER_WORD] + "…"
    # A list item or a title has no full stop: give it one, so the summary reads as sentences.
    return " ".join(texts[i] if texts[i][-1] in _ENDS else texts[i] + "." for i in sorted(chosen))
