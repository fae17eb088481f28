"""The digest's topic tree upkeep (issue 14, ``services.topic_upkeep``): what a digest pays per 1,000 new atoms once
the tree is consolidated, and its memory; and what a cold rebuild costs as the scope grows.

Run: ``.venv/bin/python tests/benchmarks/bench_topic_upkeep.py [--base 2000 10000] [--new 1000] [--cold 100 300
1000 3000]``

Atoms are SciFact sentences (real words for the keywords). Their **vectors are synthetic**: the bundled model
embeds ~10-30 statements a second on this shared machine, so 10,000 atoms would take the benchmark an hour; the
index is filled by the product's own indexing (``indexing.try_drain``) through an embedder whose model is replaced
by a fixed map (each abstract a point near one of 50 field centres, each sentence near its abstract), so every
read the upkeep makes (the index's vectors from Chroma, SQLite) is the product's. What the model would add is its
time to encode atoms the index does not hold yet: none here, as in the app, whose indexing process embeds an atom
within seconds of its writing.

For each base size: a scope of that many atoms, indexed, its tree built (``update_topics``: cold, consolidated at
once by setting the threshold to the base), then ``--new`` atoms written and indexed, and ``digest.run_digest`` of
the day timed whole and split into the tree's slow part (``plan_upkeep``: reads, vectors, attach / split / merge
plans) and its writes (``apply_upkeep`` in the digest's transaction); the rest is issue 13's digest (the
reconciliation over the newest 2,000 atoms, the writeup). Memory: the process's resident set before the run, when
the tree's part starts, and its peak from there to the end of the tree's writes (``VmHWM``, reset through
``/proc/self/clear_refs`` as the planning starts).

Cold rebuilds: ``update_topics(from_scratch=True)`` of scopes of ``--cold`` atoms, and what a rebuild after 5 % more
atoms changes (topics made / retired, atoms moved between topics): the cost that makes a scope stop rebuilding.
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
import zlib
from datetime import datetime
from pathlib import Path
from typing import ClassVar

import numpy as np
from _common import scifact_corpus, table

from vancetope_desktop.core.atoms import ATOM_KEY
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.index.embedder import Embedder
from vancetope_desktop.services import atoms, digest, documents, indexing, topic_upkeep
from vancetope_desktop.services import library as library_module
from vancetope_desktop.services.library import DEFAULT_PROJECT, Library
from vancetope_desktop.store.db import write_session

FIELDS = 50
"""Field centres the synthetic abstracts gather around (SciFact spans a few dozen biomedical fields)."""


class MapEmbedder(Embedder):
    """The library's embedder (its name, tokenizer and dimension) with the model replaced by ``vectors``."""

    vectors: ClassVar[dict[str, np.ndarray]] = {}
    centres: ClassVar[np.ndarray] = np.zeros((FIELDS, 1))

    def encode_documents(self, texts):  # type: ignore[override]
        return np.vstack([self._vector(t) for t in texts]).astype(np.float32)

    def _vector(self, text: str) -> np.ndarray:
        """The map's vector; a text stored otherwise than it was given (Markdown read as a note reads it) gets one
        near a field picked by its checksum."""
        found = self.vectors.get(" ".join(text.split()))
        if found is not None:
            return found
        rng = np.random.default_rng(zlib.crc32(text.encode()))
        vector = self.centres[zlib.crc32(text.encode()) % FIELDS] + 0.8 * rng.normal(size=self.centres.shape[1])
        return vector / np.linalg.norm(vector)

    def encode_queries(self, texts):  # type: ignore[override]
        return self.encode_documents(texts)


def _sentences(limit: int) -> list[tuple[str, int]]:
    """``(sentence, abstract number)`` of SciFact, distinct, 40-300 characters, in corpus order."""
    seen: set[str] = set()
    out = []
    for number, doc in enumerate(scifact_corpus()):
        for sentence in re.split(r"(?<=[.!?])\s+", doc["text"]):
            sentence = " ".join(sentence.split())
            if 40 <= len(sentence) <= 300 and sentence not in seen:
                seen.add(sentence)
                out.append((sentence, number))
                if len(out) == limit:
                    return out
    return out


def _vectors(sentences: list[tuple[str, int]], dimension: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(14)
    fields = MapEmbedder.centres = rng.normal(size=(FIELDS, dimension))
    abstracts: dict[int, np.ndarray] = {}
    out = {}
    for sentence, number in sentences:
        if number not in abstracts:
            abstracts[number] = fields[number % FIELDS] + 0.6 * rng.normal(size=dimension)
        vector = abstracts[number] + 0.5 * rng.normal(size=dimension)
        out[sentence] = (vector / np.linalg.norm(vector)).astype(np.float32)
    return out


def _open(root: Path) -> Library:
    lib = Library.open(root)
    spec = lib.index_model()
    real = lib.embedder(spec)
    key = (spec, lib.settings.embedding_batch_size)
    fake = MapEmbedder(real.spec, batch_size=lib.settings.embedding_batch_size)
    library_module._EMBEDDERS[key] = fake
    return lib


def _write(lib: Library, texts: list[str]) -> None:
    """Store ``texts`` as facts of the default project in one transaction each 2,000, then index them."""
    for start in range(0, len(texts), 2000):
        prepared = [documents.prepare_text(lib, t, DocumentType.FACT) for t in texts[start:start + 2000]]
        fields = atoms.atom_metadata("fact", "x")[ATOM_KEY]  # type: ignore[index]
        with write_session(lib.engine) as session:
            for ready in prepared:
                documents.session_add_text(session, ready, scope_path=DEFAULT_PROJECT,
                                           metadata={ATOM_KEY: dict(fields)})
    indexing.try_drain(lib)


def _peak_mb() -> float:
    status = Path("/proc/self/status").read_text().splitlines()
    return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024


def _rss_mb() -> float:
    status = Path("/proc/self/status").read_text().splitlines()
    return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024


def _consolidated_digest(base: int, new: int, pool: list[str]) -> list[object]:
    with tempfile.TemporaryDirectory() as folder:
        lib = _open(Path(folder) / "lib")
        lib.settings = lib.settings.model_copy(update={"topic_consolidate_at": base})
        _write(lib, pool[:base])
        start = time.perf_counter()
        built = topic_upkeep.update_topics(lib, DEFAULT_PROJECT)
        cold_s = time.perf_counter() - start
        assert built.mode == "cold" and built.changes, built
        _write(lib, pool[base:base + new])
        phases: dict[str, float] = {}
        plan, apply = topic_upkeep.plan_upkeep, topic_upkeep.apply_upkeep

        peaks: dict[str, float] = {}

        def timed(name, function):
            def call(*args, **kwargs):
                if name == "plan":  # the tree's own peak: from its planning to the end of its writes
                    peaks["rss"] = _rss_mb()
                    Path("/proc/self/clear_refs").write_text("5")
                begin = time.perf_counter()
                try:
                    return function(*args, **kwargs)
                finally:
                    phases[name] = phases.get(name, 0.0) + time.perf_counter() - begin
                    if name == "apply":
                        peaks["tree"] = _peak_mb()
            return call

        topic_upkeep.plan_upkeep, topic_upkeep.apply_upkeep = timed("plan", plan), timed("apply", apply)
        rss = _rss_mb()
        begin = time.perf_counter()
        try:
            run = digest.run_digest(lib, DEFAULT_PROJECT, datetime.now().date())
        finally:
            topic_upkeep.plan_upkeep, topic_upkeep.apply_upkeep = plan, apply
        total = time.perf_counter() - begin
        tree_lines = [c for c in run.changes if c.kind != "kept" and "writeup" not in c.what
                      and "near-duplicate" not in c.what and "contradicts" not in c.what]
        lib.close()
    return [base, new, f"{cold_s:.1f}", f"{total:.1f}", f"{phases.get('plan', 0):.2f}",
            f"{phases.get('apply', 0):.2f}", f"{total - sum(phases.values()):.1f}", len(tree_lines),
            f"{rss:.0f}", f"{peaks['rss']:.0f}", f"{peaks['tree']:.0f}"]


def _cold(size: int, pool: list[str]) -> list[object]:
    with tempfile.TemporaryDirectory() as folder:
        lib = _open(Path(folder) / "lib")
        _write(lib, pool[:size])
        begin = time.perf_counter()
        first = topic_upkeep.update_topics(lib, DEFAULT_PROJECT)
        seconds = time.perf_counter() - begin
        topics_made = sum(c.kind == "added" and "new topic" in c.what for c in first.changes)
        _write(lib, pool[size:size + size // 20])
        again = topic_upkeep.update_topics(lib, DEFAULT_PROJECT)
        made = sum(c.kind == "added" and "new topic" in c.what for c in again.changes)
        retired = sum(c.kind == "deleted" for c in again.changes)
        moved = sum(int(m.group(1)) for c in again.changes if (m := re.match(r"(\d+) atoms? moved in", c.what)))
        lib.close()
    return [size, f"{seconds:.2f}", topics_made, made, retired, moved, f"{moved / size:.0%}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", type=int, nargs="+", default=[2000, 10000])
    parser.add_argument("--new", type=int, default=1000)
    parser.add_argument("--cold", type=int, nargs="*", default=[100, 300, 1000, 3000])
    args = parser.parse_args()
    wanted = max([b + args.new for b in args.base] + [c + c // 20 for c in args.cold])
    sentences = _sentences(wanted)
    if len(sentences) < wanted:
        raise SystemExit(f"SciFact gives {len(sentences)} sentences, {wanted} wanted")
    with tempfile.TemporaryDirectory() as folder:
        probe = Library.open(Path(folder) / "lib")
        dimension = probe.embedder().dimension
        probe.close()
    MapEmbedder.vectors = _vectors(sentences, dimension)
    pool = [s for s, _ in sentences]
    rows = [_cold(size, pool) for size in args.cold]
    if rows:
        print(table("Cold rebuilds (update_topics from scratch), then a rebuild after 5 % more atoms",
                    ["atoms", "rebuild s", "topics", "+5%: made", "retired", "atoms moved", "moved share"], rows))
    rows = [_consolidated_digest(base, args.new, pool) for base in args.base]
    print(table(f"Digest of a day of {args.new} new atoms, tree consolidated (seconds; MB)",
                ["base atoms", "new", "cold build s", "digest s", "tree plan s", "tree write s", "rest s",
                 "tree lines", "RSS before", "RSS at tree", "tree peak RSS"], rows))


if __name__ == "__main__":
    main()
