"""Superseded memories: after a fact is restated with a new value, does recall return only the new one?

Run: ``.venv/bin/python tests/benchmarks/bench_updates.py [--chains 500] [--seed 12] [--rebuild]``

* Data (generated, seeded): ``--chains`` chains of one fact each, a project's setting (its deploy
  region, database, owner…: 50 projects x 10 settings), stated 2-6 times with a changed value and in
  varied wording ("Update: Orion's deploy region is now eu-west-3."). Every statement is a memory, a
  ``note`` stored with ``documents.add_text`` in one namespace (``project/updates``), chains
  interleaved as facts arrive in a long-lived agent's memory; then ``indexing.try_drain`` embeds them.
* Each restatement supersedes the one before: :func:`supersede` (today ``documents.set_status`` to
  ``archived``; the relation ``updates`` replaces it, see there).
* Queries: one question per chain ("What is Orion's deploy region?"), through
  ``services.search.search`` restricted to the namespace, as recall runs it. Printed: archived
  memories among the top 5 (aim 0), the current version at rank 1 (aim >= 99 %), and, for contrast,
  the same with archived memories searched too (what recall would return without the archive).
* The library is cached under ``$TMPDIR/locomo-lib/updates-<hash>``; ``--rebuild`` builds it again.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from _common import percentile, table

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.relations import RelationType
from vancetope_desktop.core.settings import Settings
from vancetope_desktop.services import documents, graph, indexing, scopes
from vancetope_desktop.services import search as search_service
from vancetope_desktop.services.library import DEFAULT_GROUP, Library

NAMESPACE = "project/updates"
BUILD_RECIPE = "relate-updates-v1"
"""Bump when the way a chain is stored or superseded changes (e.g. to ``relate(…, "updates")``)."""

PROJECTS = (
    "Orion", "Vega", "Altair", "Rigel", "Deneb", "Sirius", "Castor", "Pollux", "Antares", "Arcturus",
    "Capella", "Procyon", "Achernar", "Betelgeuse", "Aldebaran", "Spica", "Fomalhaut", "Regulus", "Mimosa",
    "Shaula", "Bellatrix", "Elnath", "Miaplacidus", "Alnilam", "Alnair", "Alioth", "Dubhe", "Mirfak",
    "Wezen", "Sargas", "Kaus", "Avior", "Alkaid", "Menkalinan", "Atria", "Alhena", "Peacock", "Alsephina",
    "Mirzam", "Alphard", "Polaris", "Hamal", "Algieba", "Diphda", "Nunki", "Menkent", "Saiph", "Alpheratz",
    "Tiaki", "Acrux",
)
SETTINGS: dict[str, tuple[str, ...]] = {
    "deploy region": ("eu-west-1", "eu-west-3", "us-east-1", "us-west-2", "ap-south-1", "ap-northeast-1",
                      "eu-central-1", "ca-central-1"),
    "database": ("PostgreSQL 16", "MySQL 8", "SQLite", "MongoDB", "CockroachDB", "DynamoDB", "Cassandra",
                 "MariaDB"),
    "owner": ("Amara Okafor", "Lucas Moreau", "Priya Raman", "Jonas Weber", "Sofia Rossi", "Kenji Sato",
              "Elena Petrova", "Diego Alvarez"),
    "release day": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "the first of the month",
                    "the last Friday of the month", "every other Tuesday"),
    "test command": ("pytest -q", "make test", "tox -e py312", "nox -s tests", "npm test", "cargo test",
                     "go test ./...", "bazel test //..."),
    "main branch": ("main", "master", "trunk", "develop", "release", "stable", "next", "production"),
    "CI provider": ("GitHub Actions", "GitLab CI", "CircleCI", "Jenkins", "Buildkite", "Travis CI",
                    "Azure Pipelines", "Drone"),
    "log level": ("DEBUG", "INFO", "WARNING", "ERROR", "TRACE", "CRITICAL", "NOTICE", "VERBOSE"),
    "cache lifetime": ("30 seconds", "5 minutes", "15 minutes", "one hour", "six hours", "one day",
                       "one week", "90 seconds"),
    "API version": ("v1", "v2", "v3", "v2.1", "v4 beta", "2024-06-01", "2025-01-15", "v5"),
}
STATEMENTS = (
    "{project}'s {setting} is {value}.",
    "The {setting} of {project} is {value}.",
    "Update: {project}'s {setting} is now {value}.",
    "Changed {project}'s {setting} to {value} today.",
    "From now on the {setting} for {project} is {value}.",
    "Correction: {project} uses {value} as its {setting}.",
)
QUESTIONS = (
    "What is {project}'s {setting}?",
    "Which {setting} does {project} use?",
    "{project} {setting}",
)


@dataclass(frozen=True)
class Chain:
    """One fact restated: the project and setting, the values in the order they were stated."""

    project: str
    setting: str
    values: tuple[str, ...]

    def statement(self, version: int, rng: random.Random) -> str:
        """The text of ``version`` (0 = first); the first is a plain statement, the others updates."""
        template = STATEMENTS[0 if version == 0 else rng.randrange(1, len(STATEMENTS))]
        return template.format(project=self.project, setting=self.setting, value=self.values[version])


def generate(count: int, seed: int) -> list[Chain]:
    """``count`` chains of 2-6 distinct values each (at most ``len(PROJECTS) x len(SETTINGS)``)."""
    rng = random.Random(seed)
    pairs = [(p, s) for p in PROJECTS for s in SETTINGS]
    if count > len(pairs):
        sys.exit(f"at most {len(pairs)} chains")
    return [Chain(project, setting, tuple(rng.sample(SETTINGS[setting], rng.randint(2, 6))))
            for project, setting in rng.sample(pairs, count)]


def supersede(lib: Library, newer: str, older: str) -> None:
    """Store that memory ``newer`` updates ``older``: the product's ``updates`` relation
    (``services/graph.relate``), which archives ``older`` in the same transaction and keeps the edge."""
    graph.relate(lib, newer, older, RelationType.UPDATES, scope=NAMESPACE)


def build(folder: Path, chains: list[Chain], seed: int) -> None:
    """Store every statement in arrival order, superseding the previous version, then drain; atomically."""
    rng = random.Random(seed + 1)
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    lib = Library.open(partial / "library", settings=Settings())
    versions: list[list[str]] = [[] for _ in chains]
    try:
        scopes.create_scope(lib, "project", NAMESPACE.split("/", 1)[1], parent=DEFAULT_GROUP)
        # Facts arrive interleaved: each round states the next version of every chain that has one.
        arrivals = [(i, v) for v in range(6) for i, chain in enumerate(chains) if v < len(chain.values)]
        start = time.perf_counter()
        for index, version in arrivals:
            chain = chains[index]
            info = documents.add_text(lib, chain.statement(version, rng), doc_type=DocumentType.NOTE,
                                      title=f"{chain.project} {chain.setting}", scope=NAMESPACE)
            if versions[index]:
                supersede(lib, info.id, versions[index][-1])
            versions[index].append(info.id)
        stored = time.perf_counter() - start
        report = indexing.try_drain(lib)
        assert report is not None and not report.failed, report
        (partial / "versions.json").write_text(json.dumps(versions), encoding="utf-8")
        (partial / "build.json").write_text(json.dumps({
            "memories": len(arrivals), "store_seconds": stored, "drain_seconds": time.perf_counter() - start - stored,
            "load": os.getloadavg()[0]}))
    finally:
        lib.close()
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(partial, folder)


def measure(lib: Library, chains: list[Chain], versions: list[list[str]], statuses: tuple[DocumentStatus, ...],
            rng: random.Random) -> list[str]:
    """Ask one question per chain; a table row: archived in the top 5, current at rank 1, p50/p95."""
    archived = {doc for chain_versions in versions for doc in chain_versions[:-1]}
    in_top5 = questions_with = first = 0
    seconds = []
    for chain, chain_versions in zip(chains, versions, strict=True):
        query = rng.choice(QUESTIONS).format(project=chain.project, setting=chain.setting)
        start = time.perf_counter()
        hits = search_service.search(lib, query, scope=NAMESPACE, scopes=[NAMESPACE], statuses=statuses,
                                     limit=5).hits
        seconds.append(time.perf_counter() - start)
        stale = sum(h.document.id in archived for h in hits)
        in_top5 += stale
        questions_with += stale > 0
        first += bool(hits) and hits[0].document.id == chain_versions[-1]
    n = len(chains)
    return [" + ".join(s.value for s in statuses), str(in_top5), f"{questions_with} ({100 * questions_with / n:.1f} %)",
            f"{first} ({100 * first / n:.1f} %)",
            f"{1000 * percentile(seconds, 50):.0f} / {1000 * percentile(seconds, 95):.0f}"]


def main() -> None:
    """Generate the chains, build or open their library, measure, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chains", type=int, default=500)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--rebuild", action="store_true", help="build the cached library again")
    args = parser.parse_args()
    chains = generate(args.chains, args.seed)
    digest = hashlib.sha256(f"{BUILD_RECIPE}|{Settings().embedding_model}|{chains}".encode()).hexdigest()[:12]
    root = Path(os.environ.get("LOCOMO_LIB", Path(tempfile.gettempdir()) / "locomo-lib"))
    folder = root / f"updates-{digest}"
    if args.rebuild or not (folder / "versions.json").exists():
        print(f"building the updates library in {folder} …", file=sys.stderr)
        build(folder, chains, args.seed)
    versions = json.loads((folder / "versions.json").read_text(encoding="utf-8"))
    built = json.loads((folder / "build.json").read_text(encoding="utf-8"))
    lib = Library.open(folder / "library", settings=Settings())
    try:
        search_service.search(lib, "warm-up", scope=NAMESPACE, scopes=[NAMESPACE])
        rows = [measure(lib, chains, versions, (DocumentStatus.ACTIVE,), random.Random(args.seed + 2)),
                measure(lib, chains, versions, (DocumentStatus.ACTIVE, DocumentStatus.ARCHIVED),
                        random.Random(args.seed + 2))]
    finally:
        lib.close()
    lengths = [len(c.values) for c in chains]
    print(table(
        f"bench_updates: {len(chains)} chains of 2-6 versions (mean {sum(lengths) / len(lengths):.1f}), "
        f"{built['memories']} memories in {NAMESPACE} (store + supersede {built['store_seconds']:.0f} s, embed "
        f"{built['drain_seconds']:.0f} s, load {built['load']:.1f}); load now {os.getloadavg()[0]:.1f}",
        ["statuses searched", "archived in top 5", "questions with one", "current at rank 1", "p50 / p95 ms"],
        rows))


if __name__ == "__main__":
    main()
