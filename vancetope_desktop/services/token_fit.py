"""Fitting text into a token budget: one line cut at a word boundary so that it fits, ending in ``…``.

Shared by the start-of-work blocks (``agents.context.context_block``, ``services.session_start``), which count
tokens with the embedding model's tokenizer (``Embedder.count_tokens``) and hand the counter in.
"""

from __future__ import annotations

from collections.abc import Callable

ELLIPSIS = "…"


def shorten(head: str, body: str, limit: int, count: Callable[[str], int]) -> tuple[str, bool] | None:
    """``(line, cut)``: ``head: body`` within ``limit`` tokens, whole, else the longest word prefix of body + ``…``.

    Args:
        head: what must stay whole (a bullet with the id); body: the text that may be cut (single spaces).
        limit: tokens at most, as ``count`` counts them.

    Returns:
        None when not even the head and an ellipsis fit. Binary search over the words: log2(n) counts.
    """
    full = f"{head}: {body}" if body else head
    if count(full) <= limit:
        return full, False
    words = body.split(" ")
    low, high = 0, len(words) - 1  # the longest prefix that fits has `low` words
    if count(f"{head}: {ELLIPSIS}") > limit:
        return None
    while low < high:
        middle = (low + high + 1) // 2
        if count(f"{head}: {' '.join(words[:middle])}{ELLIPSIS}") <= limit:
            low = middle
        else:
            high = middle - 1
    return f"{head}: {' '.join(words[:low])}{ELLIPSIS}", True
