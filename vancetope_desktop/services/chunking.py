"""Cut an extraction's chunks to the embedding model's input limit, counted with its own tokenizer."""

from __future__ import annotations

from ..index.embedder import Embedder
from ..ingest.base import ChunkDraft, Extraction
from ..ingest.chunking import split_to_token_limit
from .library import Library


def prepare_chunks(lib: Library, extraction: Extraction, *,
                   embedder: Embedder | None = None) -> tuple[list[ChunkDraft], list[int]]:
    """The extraction's chunks split so none exceeds the model's limit, with their token counts.

    The default model silently truncates after 256 word pieces; splitting here keeps a fact at the
    end of a long section inside some embedded chunk.

    Args:
        embedder: ``lib.embedder()``, when the caller prepares many extractions (looking it up reads
            the library's index model: a query each time).
    """
    embedder = embedder or lib.embedder()
    chunks = split_to_token_limit(extraction.chunks, embedder.count_tokens, embedder.max_tokens)
    return chunks, [embedder.count_tokens(c.text) for c in chunks]
