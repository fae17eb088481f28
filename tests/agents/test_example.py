"""The think process example (resources/examples/think_process.py) runs end to end and leaves what it says."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from vancetope_desktop.core.documents import DocumentStatus, DocumentType, SourceType
from vancetope_desktop.core.promotion import RequestStatus
from vancetope_desktop.services import documents, relations, review
from vancetope_desktop.services.library import Library

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "resources" / "examples" / "think_process.py"
TP = "think-process/tp_13"
NODES = {"extract_hw": "extraction", "analyze_hw": "analysis", "synthesize": "synthesis"}


@pytest.mark.slow
def test_example_plays_a_think_process_on_the_demo_library(tmp_path):
    library = tmp_path / "library"
    run = subprocess.run([sys.executable, str(SCRIPT), "--library", str(library)], cwd=REPO, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    out = run.stdout

    assert "installed the demo" in out
    assert "## Memory — Think Process: Hypothesis Check (`think-process/tp_13`)" in out
    stored = dict(re.findall(r"^stored (doc_[0-9a-f]{12}) \((\w+), version 1\)", out, re.MULTILINE))
    ids = {node: doc_id for doc_id, node in stored.items()}
    assert set(ids) == set(NODES)
    # The memory query prints the new results with their ids.
    assert all(re.search(rf"^  \d\. {ids[n]}  \[result, active\]", out, re.MULTILINE) for n in NODES)
    # The stale mark travels two levels: extract -> analyze -> synthesize.
    assert f"marked stale: {ids['extract_hw']} (extract_hw): the changed node's own result" in out
    assert f"marked stale: {ids['analyze_hw']} (analyze_hw): derived from {ids['extract_hw']}" in out
    assert f"marked stale: {ids['synthesize']} (synthesize): derived from {ids['analyze_hw']}" in out
    # The re-run clears the mark on the re-run node only; its dependents stay stale until re-run.
    assert f"re-ran extract_hw: {ids['extract_hw']} is now version 2, active" in out
    after_extract = out.split("re-ran extract_hw:")[1].split("re-ran analyze_hw")[0]
    assert re.search(rf"synthesize\s+{ids['synthesize']}\s+stale\s+version 1", after_extract)
    assert "stale now: none" in out
    # The review step: the synthesis waits for the user, who is shown how to approve it.
    request_id, requested_doc = re.search(r"^requested (req_[0-9a-f]{12}): (doc_[0-9a-f]{12}) ", out,
                                          re.MULTILINE).groups()
    assert requested_doc == ids["synthesize"]
    assert f"vancetope --library {library} review approve {request_id}" in out
    assert f"memory_promotion_requests tells the think process the decision later: {request_id} pending" in out

    with Library.open(library) as lib:
        results = {n: documents.get_document(lib, ids[n]) for n in NODES}
        for node, doc in results.items():
            assert doc.scope == TP and doc.type is DocumentType.RESULT
            assert doc.source.type is SourceType.THINK_PROCESS_RESULT
            assert (doc.source.think_process_id, doc.source.node_id) == ("tp_13", node)
            assert {"thinkprocess:tp_13", f"auto:{node}", NODES[node]} <= set(doc.tags)
            assert doc.status is DocumentStatus.ACTIVE and "stale" not in doc.tags
            assert doc.version == 2  # stored once, re-run once
            assert relations.node_results(lib, "tp_13", node) == [doc]
        extract, analyze, synthesize = results.values()
        assert "hardware" in extract.tags
        # The extraction quotes search hits from the project (the Flash Attention paper among them).
        sources = [documents.get_document(lib, d) for d in relations.derived_from(lib, extract.id)]
        assert sources and any(d.scope == "project/transformer-efficiency" and d.file_path for d in sources)
        assert all(f"`{d.id}`" in (extract.content or "") for d in sources)
        # Analysis: the extraction first (by id), then the project's #efficiency papers (by tag).
        analysis_inputs = relations.derived_from(lib, analyze.id)
        assert analysis_inputs[0] == extract.id
        papers = [documents.get_document(lib, d) for d in analysis_inputs[1:]]
        assert len(papers) == 2 and all("efficiency" in d.tags and d.file_path for d in papers)
        # Synthesis: the analysis, then tp_13's own #finding note.
        synthesis_inputs = relations.derived_from(lib, synthesize.id)
        assert synthesis_inputs[0] == analyze.id
        finding = documents.get_document(lib, synthesis_inputs[1])
        assert finding.scope == TP and "finding" in finding.tags
        # Two levels of lineage from the extraction down to the synthesis (the atoms read from each result are
        # derived from it too).
        lineage = [d for d in relations.derivation_closure(lib, [extract.id])
                   if documents.get_document(lib, d).type is DocumentType.RESULT]
        assert lineage == [extract.id, analyze.id, synthesize.id]
        # The stale content of the first run is kept as a version without the stale tag.
        first = documents.list_versions(lib, extract.id)
        assert first and all("stale" not in v.tags for v in first)
        request = review.get_request(lib, request_id)
        assert (request.document_id, request.source_scope, request.target_scope) == (
            synthesize.id, TP, "project/transformer-efficiency")
        assert (request.status, request.requested_by) == (RequestStatus.PENDING, TP)
        assert request.reason.startswith("The synthesis ties the hardware needs of Flash Attention")
        assert request_id in [r.id for r in review.list_requests(lib)]  # the demo queues a few of its own too
