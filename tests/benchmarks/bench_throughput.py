"""Issue 13's throughput figures: atom extraction and the daily digest, built-in generator and local model.

Run: ``.venv/bin/python tests/benchmarks/bench_throughput.py [--generator builtin local] [--passages N]
[--atoms 500] [--skip-extraction] [--skip-digest]``

* **Extraction** (``extract_atoms`` through the library's generator as ``generation.choice.build_generator``
  makes it, the built-in behind the model): the 24 corpus notes (``corpus/notes``) cut at blank lines into
  passages of at most :data:`PASSAGE_CHARS` characters (what a model takes in one turn with room for its reply;
  a longer text goes whole to the built-in generator, ``generation.model.MAX_INPUT_CHARS``), and the LoCoMo
  sessions (``eval/locomo/locomo-dev.json``) in windows of :data:`WINDOW_TURNS` turns "Speaker: text", dated by
  the session. The local model reads the first ``--passages`` of each (it writes a few tokens a second); the
  built-in reads all. Figures: atoms/s, seconds per 1,000 words (whitespace-separated), how many items the
  built-in answered for the model (timeout, malformed reply) and how many atoms the model itself wrote.
* **Digest** (``digest.run_digest`` of one scope's day of ``--atoms`` new atoms, those the built-in generator
  reads from LoCoMo turns, each turn a note with its atoms ``derived_from`` it; storing is not timed): run with
  the atoms not yet embedded (a digest right after an import) and once the index holds them (the app's indexing
  process embeds new atoms within seconds, long before the day's digest), each with each generator; the run is
  undone between. Split: the reconciliation's embedding of the scope's atoms, the rest of the reconciliation, the
  writeup (``write_digest``), its preparation as a note (Markdown parsing, chunking) and the rest (reading the
  day's material, the one write transaction).

The load average is printed with each table: the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import tempfile
import time
from datetime import datetime
from pathlib import Path

from _common import SHARED, PhaseTimer, need, table
from bench_generator import LOCOMO, NOTES, REFERENCE, _turns

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.settings import Settings
from vancetope_desktop.generation.base import Generator
from vancetope_desktop.generation.builtin import BuiltinGenerator
from vancetope_desktop.generation.choice import build_generator
from vancetope_desktop.services import atoms, digest, documents, indexing
from vancetope_desktop.services.library import DEFAULT_PROJECT, Library

PASSAGE_CHARS = 1500
"""A passage's length at most: ~400 tokens, so SmolLM2's 4,096-token context holds the prompt, the passage and a
768-token atom list."""
WINDOW_TURNS = 8
"""LoCoMo turns per window (``bench_model_generators.py`` reads the same)."""

Text = tuple[str, datetime]


def _passages(text: str) -> list[str]:
    """``text`` cut at blank lines into passages of at most :data:`PASSAGE_CHARS` (a longer paragraph alone)."""
    out, current = [], ""
    for paragraph in (p.strip() for p in re.split(r"\n\s*\n", text)):
        if not paragraph:
            continue
        if current and len(current) + 2 + len(paragraph) > PASSAGE_CHARS:
            out.append(current)
            current = ""
        current = f"{current}\n\n{paragraph}" if current else paragraph
    return [*out, current] if current else out


def note_passages() -> list[Text]:
    """The corpus notes' passages (the reference time a fixed moment: notes carry no date of their own)."""
    notes = sorted(need(NOTES, "the corpus notes").glob("*.md"))
    return [(p, REFERENCE) for path in notes for p in _passages(path.read_text(encoding="utf-8", errors="replace"))]


def locomo_windows() -> list[Text]:
    """The LoCoMo sessions in windows of :data:`WINDOW_TURNS` turns, each dated by its session."""
    out = []
    for sample in json.loads(need(LOCOMO, "LoCoMo").read_text(encoding="utf-8")):
        conversation = sample["conversation"]
        for key, turns in conversation.items():
            if key.startswith("session_") and isinstance(turns, list) and turns:
                when = datetime.strptime(conversation[f"{key}_date_time"], "%I:%M %p on %d %B, %Y")
                for start in range(0, len(turns), WINDOW_TURNS):
                    window = turns[start:start + WINDOW_TURNS]
                    out.append(("\n".join(f"{t['speaker']}: {t['text']}" for t in window), when))
    return out


def generator_for(kind: str) -> Generator:
    """The generator the product builds for a library whose generator is ``kind`` (its default time limit)."""
    choice = build_generator(Settings(generator=kind))  # type: ignore[arg-type]
    if choice.problem:
        raise SystemExit(choice.problem)
    return choice.generator


def extraction_row(kind: str, name: str, texts: list[Text], generator: Generator) -> list[str]:
    """One table row: ``generator`` extracting the atoms of ``texts``."""
    words = sum(len(text.split()) for text, _ in texts)
    found, by_model, fallbacks, start = 0, 0, 0, time.perf_counter()
    for text, when in texts:
        before = getattr(generator, "fallbacks", 0)
        count = len(generator.extract_atoms(text, reference_time=when))
        failed = getattr(generator, "fallbacks", 0) > before
        found, by_model, fallbacks = found + count, by_model + (0 if failed else count), fallbacks + failed
    seconds = time.perf_counter() - start
    return [kind, name, str(len(texts)), f"{words:,}", f"{seconds:.1f}", f"{found} ({by_model})",
            f"{found / seconds:.2f}", f"{seconds / words * 1000:.2f}",
            f"{fallbacks} of {len(texts)}" if kind != "builtin" else "-"]


def extraction(kinds: list[str], model_passages: int) -> None:
    rows = []
    notes, windows = note_passages(), locomo_windows()
    for kind in kinds:
        generator = generator_for(kind)
        # One warm-up item, not timed: dateparser's first search (2-4 s), the model's load (~1 s).
        generator.extract_atoms("We met yesterday at 10:30.", reference_time=REFERENCE)
        limit = None if kind == "builtin" else model_passages
        for name, texts in ((f"notes ({len(notes)} passages)", notes), (f"LoCoMo ({len(windows)} windows)", windows)):
            rows.append(extraction_row(kind, name, texts[:limit], generator))
            print(" | ".join(rows[-1]), flush=True)  # a long model run keeps what it measured so far
    print(table(f"Atom extraction, one process (load average {os.getloadavg()[0]:.1f})",
                ["generator", "input", "texts", "words", "s", "atoms (the model's)", "atoms/s", "s / 1,000 words",
                 "built-in answered"], rows))


def _library(folder: Path, wanted: int) -> Library:
    """A library whose inbox holds ``wanted`` atoms of today, read by the built-in generator from LoCoMo turns."""
    lib = Library.open(folder / "library")
    builtin, stored = BuiltinGenerator(), 0
    for text, when in _turns(None):
        drafts = builtin.extract_atoms(text, reference_time=when)
        if drafts:
            note = documents.add_text(lib, text, doc_type=DocumentType.NOTE, scope=DEFAULT_PROJECT)
            stored += len(atoms.store_atoms(lib, drafts[:wanted - stored], note.id))
        if stored >= wanted:
            return lib
    return lib


def _timed_digest(lib: Library, generator: Generator) -> tuple[float, dict[str, float], str]:
    """One digest of today's inbox with ``generator``, its phases, and its change set; then undone."""
    phases = PhaseTimer()
    patched = [(lib.embedder(), "encode_queries", "embedding"), (indexing, "stored_vectors", "embedding"),
               (digest, "reconcile", "reconcile"), (documents, "prepare_text", "note"),
               (type(generator), "write_digest", "writeup")]
    originals = [(owner, attribute, vars(owner).get(attribute)) for owner, attribute, _ in patched]
    for owner, attribute, phase in patched:
        setattr(owner, attribute, phases.wrap(phase, getattr(owner, attribute)))
    try:
        start = time.perf_counter()
        run = digest.run_digest(lib, DEFAULT_PROJECT, generator=generator)
        total = time.perf_counter() - start
    finally:
        for owner, attribute, original in originals:
            if original is None:  # a method of the instance's class: drop the instance's timed copy
                delattr(owner, attribute)
            else:
                setattr(owner, attribute, original)
    kinds = {k: sum(c.kind == k for c in run.changes) for k in ("kept", "added", "modified", "deleted")}
    change_set = ", ".join(f"{n} {k}" for k, n in kinds.items()) + (" (built-in wrote it)" if run.fallback else "")
    digest.undo_digest(lib, DEFAULT_PROJECT)
    return total, phases.seconds, change_set


def digests(kinds: list[str], sizes: list[int]) -> None:
    rows = []
    for size in sizes:
        with tempfile.TemporaryDirectory() as folder:
            lib = _library(Path(folder), size)
            lib.embedder().encode_query("warm-up")  # the model's load is the app's start, not the digest's
            for indexed in (False, True):
                for kind in kinds:
                    if indexed:  # undoing a run queues the atoms it had archived again
                        indexing.try_drain(lib)
                    generator = generator_for(kind)
                    if kind != "builtin":
                        generator.summarize("Warm-up: the model loads once per process.", 5)
                    total, phase, change_set = _timed_digest(lib, generator)
                    embedding = phase.get("embedding", 0.0)
                    rest = total - phase.get("reconcile", 0.0) - phase.get("writeup", 0.0) - phase.get("note", 0.0)
                    rows.append([str(size), "yes" if indexed else "no", kind, f"{total:.1f}", f"{embedding:.1f}",
                                 f"{phase.get('reconcile', 0.0) - embedding:.1f}", f"{phase.get('writeup', 0.0):.1f}",
                                 f"{phase.get('note', 0.0):.1f}", f"{rest:.1f}", change_set])
                    print(" | ".join(rows[-1]), flush=True)
            lib.close()
    print(table(f"Daily digest of N new atoms (load average {os.getloadavg()[0]:.1f})",
                ["atoms", "indexed", "generator", "digest s", "embedding s", "reconcile rest s", "writeup s", "note s",
                 "the rest s", "change set"], rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generator", nargs="+", choices=("builtin", "local"), default=["builtin", "local"])
    parser.add_argument("--passages", type=int, default=12, help="texts of each input the local model reads")
    parser.add_argument("--atoms", type=int, nargs="+", default=[500], help="new atoms of the digested day")
    parser.add_argument("--skip-extraction", action="store_true")
    parser.add_argument("--skip-digest", action="store_true")
    args = parser.parse_args()
    need(SHARED, "the shared data")
    if not args.skip_extraction:
        extraction(args.generator, args.passages)
    if not args.skip_digest:
        digests(args.generator, args.atoms)


if __name__ == "__main__":
    main()
