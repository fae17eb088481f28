"""A small think process, end to end, on the demo library (seed §6.2, §6.3, §7).

Think process ``tp_13`` ("Hypothesis Check") runs a three-node task tree:

    extract_hw  (extract)     inputs by hybrid search: "hardware requirements of Flash Attention"
        |
    analyze_hw  (analyze)     the extraction + every visible paper tagged #efficiency
        |
    synthesize  (synthesize)  the analysis + this think process's own #finding notes

Each node resolves its inputs, "does the work" with plain string processing (no LLM here: an agent
would call its model instead) and stores a result document that records ``derived_from`` its inputs.
Then the extract task changes: its result and everything derived from it become stale, two levels
down, until the nodes re-run. At the end the think process asks the user to promote its synthesis to
the project (``memory_request_promotion``, with a reason): the request waits in the review queue until
the user approves it (``vancetope review approve REQ``) or rejects it with a reason, which the think
process learns with ``memory_promotion_requests``.

Run it from the repository with the project's Python::

    python resources/examples/think_process.py                  # a fresh temporary library
    python resources/examples/think_process.py --library PATH    # installs the demo if PATH is empty
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

from vancetope_desktop.agents.context import context_block
from vancetope_desktop.agents.task_tree import TaskNode, mark_task_changed, memory_store_result, resolve_inputs
from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.core.documents import DocumentInfo
from vancetope_desktop.core.errors import ScopeNotFound
from vancetope_desktop.services import demo, documents, indexing, relations, scopes
from vancetope_desktop.services.library import Library

TP_ID = "tp_13"
SCOPE = f"think-process/{TP_ID}"
QUESTION = "hardware requirements of Flash Attention"

# The task tree. A node names its inputs three ways (seed §7.1): by id, by query, by tags. Ids of
# earlier results are only known once those nodes ran, so the tree is built step by step in run().
EXTRACT = TaskNode(node_id="extract_hw", node_type="extract", think_process_id=TP_ID, input_query=QUESTION)
TREE = ("extract_hw", "analyze_hw", "synthesize")


def heading(text: str) -> None:
    """Print a section heading."""
    print(f"\n=== {text} " + "=" * max(0, 72 - len(text)))


def text_of(lib: Library, doc: DocumentInfo) -> str:
    """A document's text: the body of a note/result, or the extracted chunks of a file (the PDF papers)."""
    if doc.content:
        return doc.content
    return " ".join(chunk.text for chunk in documents.list_chunks(lib, doc.id))


def best_sentences(text: str, question: str, count: int) -> list[str]:
    """The ``count`` sentences sharing the most words with ``question``: a stand-in for an LLM's reading."""
    words = {w for w in re.findall(r"[a-z]+", question.lower()) if len(w) > 3}
    # Paragraphs and bullets first (headings and title blocks stay apart), then sentence ends.
    pieces = (" ".join(p.split()) for p in re.split(r"\n\s*\n|•|(?<=[.!?])\s+", text))
    sentences = [p for p in pieces if 40 <= len(p) <= 400 and p[-1] in ".!?:" and not p.startswith("#")]
    scored = [(len(words & set(re.findall(r"[a-z]+", s.lower()))), -i, s) for i, s in enumerate(sentences)]
    return [s for _, _, s in sorted(scored, reverse=True)[:count]]


def run_extract(lib: Library, quotes: int) -> DocumentInfo:
    """Node 1: quote the best sentences of the two best search hits. ``quotes`` per paper (the "task")."""
    inputs = resolve_inputs(lib, EXTRACT, limit=5)
    # A re-run finds this tree's own earlier results among the hits: skip them, or the lineage would loop.
    inputs = [d for d in inputs if not (d.source.think_process_id == TP_ID and d.source.node_id in TREE)][:2]
    lines = [f"# {QUESTION.capitalize()}", ""]
    for doc in inputs:
        lines.append(f"From **{doc.title}** (`{doc.id}`):")
        lines += [f"> {s}" for s in best_sentences(text_of(lib, doc), QUESTION, quotes)]
        lines.append("")
    return memory_store_result(lib, EXTRACT.node_id, EXTRACT.node_type, "Extraction: hardware of Flash Attention",
                               "\n".join(lines), derived_from=[d.id for d in inputs], think_process_id=TP_ID,
                               tags=["hardware"])


def run_analyze(lib: Library, extraction: DocumentInfo) -> DocumentInfo:
    """Node 2: how often each #efficiency paper talks about memory hardware, next to the extraction."""
    node = TaskNode(node_id="analyze_hw", node_type="analyze", think_process_id=TP_ID,
                    input_docs=[extraction.id], input_tags=["efficiency"])
    inputs = resolve_inputs(lib, node)
    terms = ("gpu", "sram", "hbm", "memory")
    lines = ["# Which efficiency method is about hardware?", "", "| document | " + " | ".join(terms) + " |",
             "|---|" + "---|" * len(terms)]
    for doc in inputs:
        text = text_of(lib, doc).lower()
        lines.append(f"| {doc.title} (`{doc.id}`) | " + " | ".join(str(text.count(t)) for t in terms) + " |")
    return memory_store_result(lib, node.node_id, node.node_type, "Analysis: hardware focus of efficiency papers",
                               "\n".join(lines), derived_from=[d.id for d in inputs], think_process_id=TP_ID)


def run_synthesize(lib: Library, analysis: DocumentInfo) -> DocumentInfo:
    """Node 3: put the analysis next to the hypothesis findings this think process already holds."""
    node = TaskNode(node_id="synthesize", node_type="synthesize", think_process_id=TP_ID,
                    input_docs=[analysis.id], input_tags=["finding"])
    inputs = resolve_inputs(lib, node)
    lines = ["# Synthesis: hardware and Hypothesis 1", ""]
    lines += [f"- {d.title} (`{d.id}`): {text_of(lib, d).splitlines()[0].lstrip('# ')}" for d in inputs]
    return memory_store_result(lib, node.node_id, node.node_type, "Synthesis: hardware and Hypothesis 1",
                               "\n".join(lines), derived_from=[d.id for d in inputs], think_process_id=TP_ID)


def show_states(lib: Library, results: dict[str, DocumentInfo]) -> None:
    """One line per result as the library has it now: node, id, status, version."""
    for node_id, stored in results.items():
        doc = documents.get_document(lib, stored.id)
        print(f"  {node_id:<11} {doc.id}  {doc.status.value:<6}  version {doc.version}")


def run(lib: Library) -> None:
    """Play the think process on ``lib`` (installing the demo first when the library is empty)."""
    heading("1. Library")
    try:
        scopes.get_scope(lib, SCOPE)
    except ScopeNotFound:
        if not demo.is_library_empty(lib):
            sys.exit(f"{lib.paths.root} has documents but not the demo's {SCOPE}: use an empty folder")
        report = demo.install_demo(lib)
        print(f"installed the demo: {len(report.documents)} documents in {len(report.scopes)} scopes")
    drained = indexing.try_drain(lib)  # embeds what is queued, so search finds documents by meaning
    print(f"library {lib.paths.root}: " + ("index busy in another process" if drained is None
                                           else f"{drained.chunks} chunks embedded"))

    # Seed §6.2 "on think process start": the most relevant memory, bounded by a token budget.
    heading(f"2. Context block for {SCOPE}")
    block = context_block(lib, SCOPE, token_budget=400, query=QUESTION, max_item_tokens=80)
    print(block.markdown)
    print(f"({block.tokens} tokens, {len(block.documents)} documents, truncated: {block.truncated})")

    heading("3. Running the task tree")
    results: dict[str, DocumentInfo] = {}
    results["extract_hw"] = run_extract(lib, quotes=2)
    results["analyze_hw"] = run_analyze(lib, results["extract_hw"])
    results["synthesize"] = run_synthesize(lib, results["analyze_hw"])
    for node_id, doc in results.items():
        print(f"stored {doc.id} ({node_id}, version {doc.version}): {doc.title}")
        print(f"    tags {', '.join('#' + t for t in doc.tags)}")
        print(f"    derived_from {', '.join(relations.derived_from(lib, doc.id))}")
    print("\nthe extraction as stored:")
    print("\n".join("    " + line for line in (results["extract_hw"].content or "").splitlines()))

    # The same tools an MCP client gets: bound to one scope, which they cannot read past.
    heading("4. Querying the think process's memory")
    indexing.try_drain(lib)
    tools = MemoryTools(lib, scope=SCOPE)
    answer = tools.memory_query("GPU hardware", tags=[f"thinkProcess:{TP_ID}"], limit=5)
    for hit in answer.hits:
        print(f"  {hit.rank}. {hit.doc_id}  [{hit.type}, {hit.status}]  {hit.title}")
    print(f"  (searched {', '.join(answer.scopes)})")

    heading("5. The extract task changed")
    stale = mark_task_changed(lib, "extract_hw", think_process_id=TP_ID)
    # Show how the mark travelled: each stale document and the stale input it was derived from.
    for doc_id in stale:
        doc = documents.get_document(lib, doc_id)
        via = [d for d in relations.derived_from(lib, doc_id) if d in stale]
        how = f"derived from {', '.join(via)}" if via else "the changed node's own result"
        print(f"marked stale: {doc_id} ({doc.source.node_id}): {how}")
    print("memory_list(tags=['stale']):",
          ", ".join(d.doc_id for d in tools.memory_list(tags=["stale"], type="result").documents))
    show_states(lib, results)

    heading("6. Re-running the changed node")
    results["extract_hw"] = run_extract(lib, quotes=3)  # the changed task: one more quote per paper
    print(f"re-ran extract_hw: {results['extract_hw'].id} is now version {results['extract_hw'].version}, "
          f"{results['extract_hw'].status.value}; its dependents stay stale until they re-run:")
    show_states(lib, results)
    results["analyze_hw"] = run_analyze(lib, results["extract_hw"])
    results["synthesize"] = run_synthesize(lib, results["analyze_hw"])
    print("re-ran analyze_hw and synthesize:")
    show_states(lib, results)

    # Seed §4.3: nothing reaches the project by itself; the think process asks, the user decides.
    heading("7. Asking the user to promote the synthesis")
    request = tools.memory_request_promotion(
        results["synthesize"].id, "project",
        "The synthesis ties the hardware needs of Flash Attention to Hypothesis 1: the whole project should see it.")
    print(f"requested {request.id}: {request.doc_id} ({request.title}) from {request.source_scope} "
          f"to {request.target_scope}, {request.status}")
    print("the user decides in the app's Review pane, or from the terminal:")
    where = f"vancetope --library {lib.paths.root}"
    print(f"    {where} review show {request.id}")
    print(f"    {where} review approve {request.id}")
    print(f'    {where} review reject {request.id} --reason "…"')
    asked = tools.memory_promotion_requests(doc_id=request.doc_id).requests
    print("memory_promotion_requests tells the think process the decision later: "
          + ", ".join(f"{r.id} {r.status}" for r in asked))

    heading("Summary")
    still_stale = [d.doc_id for d in tools.memory_list(tags=["stale"]).documents]
    print(f"3 results stored in {SCOPE}, {len(stale)} marked stale by one task change, "
          f"all re-run; stale now: {', '.join(still_stale) or 'none'}; "
          f"promotion of the synthesis waiting for review: {request.id}")


def main(argv: list[str] | None = None) -> int:
    """Parse the arguments, open (or create) the library and run the think process; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", type=Path, help="library folder (default: a fresh temporary one)")
    args = parser.parse_args(argv)
    with (tempfile.TemporaryDirectory(prefix="vancetope-example-") as temporary,
          Library.open(args.library or Path(temporary) / "library") as lib):
        run(lib)
    if args.library:
        print(f"open it in the app: vancetope-desktop --library {args.library}")
    else:
        print("(the temporary library is gone: run with --library PATH to keep it and try the review commands)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
