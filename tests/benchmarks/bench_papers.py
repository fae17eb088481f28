"""Questions about the real papers: where the right paper ranks, and what the chunk-role weight changes.

Run: ``.venv/bin/python tests/benchmarks/bench_papers.py [--rebuild] [--guess-roles] [--weights 1 0.5 0.3 0.1 0]
[--precision fp32]``

* Index: ``corpus/papers`` (18 PDFs) uploaded through ``imports.upload`` and drained, cached under
  ``$TMPDIR/vancetope-bench-papers-<hash>`` (hash of the PDFs, of the ingest code and of the embedding precision,
  so a change of the extractors rebuilds it). ``--precision`` (``Settings.embedding_precision``, default the
  product's) embeds documents and questions at fp32 or int8: the suite's paraphrase test runs the default only.
* Questions: the 18 hand-written paraphrases of ``tests/e2e/test_paper_retrieval.py`` and the issue's
  "does stress cause dementia in old age", each with the paper it is about.
* For each keyword weight of the non-body roles (``index/fusion.ROLE_WEIGHTS``: reference lists,
  author pages, acknowledgements), ``services.search.search`` as shipped otherwise: how many right
  papers come first and in the top 3, the mean reciprocal rank, and how many of the top-10 hits of all
  questions owe their keyword score to a non-body passage.
* ``--guess-roles``: before the PDF extractor tags roles, mark as references the chunks that look like
  a reference list (two cited years, DOIs or "et al." and four initials such as "C. M."). A rough
  stand-in, said so in the output.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from unittest.mock import patch

from _common import CORPUS, REPO, need, table
from sqlalchemy import text

from tests.e2e.test_paper_retrieval import PARAPHRASES
from vancetope_desktop.core.documents import ChunkRole
from vancetope_desktop.core.settings import Settings
from vancetope_desktop.index import fusion
from vancetope_desktop.services import imports, indexing
from vancetope_desktop.services import search as search_service
from vancetope_desktop.services.library import Library
from vancetope_desktop.store.db import read_session, write_session

RECIPE = "papers-upload-v1"
QUESTIONS = {**PARAPHRASES,
             "stressful-life-events-dementia-psychogeriatrics.pdf#issue": "does stress cause dementia in old age"}
NON_BODY = (ChunkRole.REFERENCES, ChunkRole.AUTHORS, ChunkRole.ACKNOWLEDGEMENTS)
_CITED_YEAR = re.compile(r"\((?:19|20)\d{2}[a-z]?\)|\bdoi:|\bet al\.|\b(?:19|20)\d{2}[a-z]?\.\s")
_INITIALS = re.compile(r"\b[A-Z]\.(?:\s?[A-Z]\.)*,?\s")


def library_folder(rebuild: bool, settings: Settings) -> Path:
    """The cached library of ``corpus/papers`` embedded with ``settings`` (built if missing or ``rebuild``)."""
    papers = sorted(need(CORPUS / "papers", "the papers corpus").glob("*.pdf"))
    digest = hashlib.sha256(f"{RECIPE}/{settings.embedding_precision}".encode())
    for path in papers:
        digest.update(path.name.encode() + path.read_bytes())
    for source in sorted((REPO / "vancetope_desktop" / "ingest").glob("*.py")):
        digest.update(source.read_bytes())
    folder = Path(tempfile.gettempdir()) / f"vancetope-bench-papers-{digest.hexdigest()[:12]}"
    if rebuild or not (folder / "library.sqlite").exists():
        print(f"building the papers library in {folder} …", file=sys.stderr)
        partial = folder.with_name(folder.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        with Library.open(partial, settings=settings) as lib:
            report = imports.upload(lib, papers)
            assert not report.failed, report.failed
            drained = indexing.try_drain(lib)
            assert drained is not None and not drained.failed, drained
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(partial, folder)
    return folder


def guess_roles(lib: Library) -> int:
    """Mark chunks that look like a reference list as ``references`` (see the module docstring); how many."""
    with read_session(lib.engine) as session:
        rows = session.exec(text("SELECT id, text FROM chunk WHERE role = 'body'")).all()
    marked = [chunk_id for chunk_id, body in rows
              if len(_CITED_YEAR.findall(body)) >= 2 and len(_INITIALS.findall(body)) >= 4]
    with write_session(lib.engine) as session:
        for chunk_id in marked:
            session.exec(text("UPDATE chunk SET role = 'references' WHERE id = :id"), params={"id": chunk_id})
    return len(marked)


def evaluate(lib: Library, ids: dict[str, str]) -> tuple[int, int, float, int]:
    """(right paper first, in the top 3, mean reciprocal rank, top-10 hits found through a non-body passage).

    The last count is taken without the relevance cut-off, which would hide most of the tail.
    """
    first = top3 = non_body = 0
    reciprocal = 0.0
    shipped = lib.settings
    uncut = shipped.model_copy(update={"min_relevance": 0.0, "relative_relevance": 0.0})
    for key, question in QUESTIONS.items():
        wanted = ids[key.split("#")[0]]
        order = [h.document.id for h in search_service.search(lib, question, limit=len(ids)).hits]
        rank = order.index(wanted) + 1 if wanted in order else None
        first += rank == 1
        top3 += rank is not None and rank <= 3
        reciprocal += 1 / rank if rank else 0.0
        lib.settings = uncut
        try:
            hits = search_service.search(lib, question, limit=10).hits
        finally:
            lib.settings = shipped
        roles = {p.chunk_id: p.role for h in hits for p in h.passages}
        non_body += sum(roles.get(h.keyword_chunk) in NON_BODY for h in hits)
    return first, top3, reciprocal / len(QUESTIONS), non_body


def main() -> None:
    """Build or open the papers library, then evaluate the questions for each role weight."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rebuild", action="store_true")
    parser.add_argument("--guess-roles", action="store_true", help="mark reference-list-like chunks first")
    parser.add_argument("--weights", type=float, nargs="+", default=[1.0, 0.5, 0.3, 0.1, 0.0])
    parser.add_argument("--precision", choices=["fp32", "int8"], default=Settings().embedding_precision)
    args = parser.parse_args()
    folder = library_folder(args.rebuild, Settings(embedding_precision=args.precision))
    work = Path(tempfile.mkdtemp(prefix="vancetope-bench-papers-run-"))
    try:
        shutil.copytree(folder, work / "library")  # roles may be guessed: never in the cached copy
        with Library.open(work / "library") as lib:
            guessed = guess_roles(lib) if args.guess_roles else 0
            with read_session(lib.engine) as session:
                ids = {Path(name).name: doc for doc, name in session.exec(text(
                    "SELECT id, json_extract(metadata, '$.original_name') FROM document WHERE type = 'file'")).all()}
                roles = dict(session.exec(text("SELECT role, count(*) FROM chunk GROUP BY role")).all())
            rows = []
            for weight in args.weights:
                with patch.dict(fusion.ROLE_WEIGHTS, dict.fromkeys(NON_BODY, weight)):
                    first, top3, mrr, non_body = evaluate(lib, ids)
                rows.append([f"{weight:g}", f"{first}/{len(QUESTIONS)}", f"{top3}/{len(QUESTIONS)}", f"{mrr:.3f}",
                             str(non_body)])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    how = f"{guessed} chunks guessed as references" if args.guess_roles else "roles as the extractor set them"
    print(table(f"bench_papers: {len(QUESTIONS)} questions about corpus/papers, {args.precision}; chunk roles {roles} "
                f"({how})",
                ["non-body weight", "right paper 1st", "in top 3", "MRR", "top-10 hits via a non-body passage"], rows))


if __name__ == "__main__":
    main()
