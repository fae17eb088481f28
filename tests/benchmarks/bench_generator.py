"""The built-in generator's throughput: atoms, summaries and keywords on the corpus notes and LoCoMo turns.

Run: ``.venv/bin/python tests/benchmarks/bench_generator.py [--turns N]``

* Inputs: the 24 corpus notes (``corpus/notes``, 241 KB, read whole) and the turns of
  ``eval/locomo/locomo-dev.json`` (each turn one text, its session's date as the reference time).
* Phases, each timed on its own after one warm-up call (dateparser loads its language data and compiles its
  patterns on first use, 2-4 s once per process, reported apart): ``extract_atoms``, ``summarize(60 words)``,
  ``keywords(10)``. Figures: texts/s, characters/s, atoms/s, and the atoms found by type.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from datetime import datetime

from _common import SHARED, need, table

from vancetope_desktop.generation.builtin import BuiltinGenerator

NOTES = SHARED / "corpus" / "notes"
LOCOMO = SHARED / "eval" / "locomo" / "locomo-dev.json"
REFERENCE = datetime.fromisoformat("2026-12-02T09:30:00+00:00")


def _turns(limit: int | None) -> list[tuple[str, datetime]]:
    out = []
    for sample in json.loads(need(LOCOMO, "LoCoMo").read_text(encoding="utf-8")):
        conversation = sample["conversation"]
        for key, turns in conversation.items():
            if key.startswith("session_") and isinstance(turns, list):
                when = datetime.strptime(conversation[f"{key}_date_time"], "%I:%M %p on %d %B, %Y")
                out += [(turn["text"], when) for turn in turns]
    return out[:limit]


def _measure(name: str, texts: list[tuple[str, datetime]], generator: BuiltinGenerator) -> list[list[str]]:
    chars = sum(len(text) for text, _ in texts)
    kinds: Counter[str] = Counter()
    start = time.perf_counter()
    for text, when in texts:
        kinds.update(atom.type.value for atom in generator.extract_atoms(text, reference_time=when))
    extract_s = time.perf_counter() - start
    start = time.perf_counter()
    for text, _ in texts:
        generator.summarize(text, 60)
    summary_s = time.perf_counter() - start
    start = time.perf_counter()
    for text, _ in texts:
        generator.keywords(text, 10)
    keywords_s = time.perf_counter() - start
    atoms = sum(kinds.values())
    found = ", ".join(f"{kinds[k]} {k}s" for k in ("fact", "event", "plan"))
    return [
        [name, "extract_atoms", f"{len(texts) / extract_s:.0f}", f"{chars / extract_s / 1000:.0f}",
         f"{atoms / extract_s:.0f}", f"{atoms} ({found})"],
        [name, "summarize(60)", f"{len(texts) / summary_s:.0f}", f"{chars / summary_s / 1000:.0f}", "", ""],
        [name, "keywords(10)", f"{len(texts) / keywords_s:.0f}", f"{chars / keywords_s / 1000:.0f}", "", ""],
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=None, help="only the first N LoCoMo turns")
    args = parser.parse_args()
    generator = BuiltinGenerator()
    start = time.perf_counter()
    generator.extract_atoms("We met yesterday at 10:30.", reference_time=REFERENCE)
    print(f"warm-up (dateparser's first search): {time.perf_counter() - start:.1f} s")
    notes = [(path.read_text(encoding="utf-8", errors="replace"), REFERENCE)
             for path in sorted(need(NOTES, "the corpus notes").glob("*.md"))]
    rows = _measure(f"notes ({len(notes)})", notes, generator)
    turns = _turns(args.turns)
    rows += _measure(f"LoCoMo turns ({len(turns)})", turns, generator)
    print(table("bench_generator: the built-in generator, one process, one thread",
                ["inputs", "call", "texts/s", "k chars/s", "atoms/s", "atoms found"], rows))


if __name__ == "__main__":
    main()
