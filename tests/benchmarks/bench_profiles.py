"""What a source's profile costs at import (issue 13): ``source_profile.make_profile`` on the corpus.

Run: ``.venv/bin/python tests/benchmarks/bench_profiles.py [--local [--limit N]]``

* Inputs: the 23 corpus notes that are not empty (read whole), the 18 papers and the 352-page book of
  ``corpus/pdf-edge`` (extracted once, outside the timing, their body chunks joined as
  ``source_profile.source_text`` does).
* Timed per source, with the built-in generator, and with ``--local`` SmolLM2-135M through llama.cpp behind the
  built-in (as ``Settings.generator = "local"`` runs it) on the first ``--limit`` notes: a model sees its window of
  6,000 characters, and takes 15-60 s a note on a loaded machine. Figures: mean and largest seconds per source,
  and the characters read. The visible tags are left out (a read of the library, measured with the import).
"""

from __future__ import annotations

import argparse
import statistics
import time

from _common import CORPUS, need, table

from vancetope_desktop.generation.builtin import BuiltinGenerator
from vancetope_desktop.ingest.registry import extract_file
from vancetope_desktop.services import source_profile


def _texts() -> dict[str, list[tuple[str, str]]]:
    notes = [p for p in sorted((need(CORPUS, "the corpus") / "notes").glob("*.md")) if p.stat().st_size]
    groups: dict[str, list[tuple[str, str]]] = {"notes": [], "papers": [], "book": []}
    for path in notes:
        extraction = extract_file(path)
        groups["notes"].append((path.stem, source_profile.source_text(
            extraction.text, [(c.text, c.role) for c in extraction.chunks])))
    for group, paths in (("papers", sorted((CORPUS / "papers").glob("*.pdf"))),
                         ("book", [CORPUS / "pdf-edge" / "long-book-352-pages.pdf"])):
        for path in paths:
            extraction = extract_file(path)
            groups[group].append((path.stem, source_profile.source_text(
                extraction.text, [(c.text, c.role) for c in extraction.chunks])))
    return groups


def _measure(name: str, texts: list[tuple[str, str]], generator) -> list[str]:
    seconds = []
    for title, text in texts:
        start = time.perf_counter()
        source_profile.make_profile(text, title=title, generator=generator)
        seconds.append(time.perf_counter() - start)
    chars = [len(t) for _, t in texts]
    return [name, str(len(texts)), f"{statistics.mean(seconds):.3f}", f"{max(seconds):.3f}",
            f"{statistics.mean(chars) / 1000:.0f}", f"{max(chars) / 1000:.0f}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--local", action="store_true", help="also the local model (SmolLM2) on the notes")
    parser.add_argument("--limit", type=int, default=5, help="notes given to the local model (default 5)")
    args = parser.parse_args()
    groups = _texts()
    builtin = BuiltinGenerator()
    source_profile.make_profile(groups["notes"][0][1], title="warm-up", generator=builtin)
    rows = [_measure(f"builtin, {group}", texts, builtin) for group, texts in groups.items()]
    if args.local:
        from vancetope_desktop.core.settings import Settings
        from vancetope_desktop.generation.choice import build_generator

        local = build_generator(Settings(generator="local")).generator
        rows.append(_measure("local model, notes", groups["notes"][:args.limit], local))
        rows[-1][0] += f" ({getattr(local, 'fallbacks', 0)} items answered by the built-in)"
    print(table("make_profile per source (summary 60 words, 8 keywords, topics)",
                ["generator, sources", "n", "mean s", "max s", "mean kchars", "max kchars"], rows))


if __name__ == "__main__":
    main()
