"""`memory graph` (issue 12): a document's neighbourhood from the terminal, as text, JSON and Graphviz DOT, with
the depth chosen and the typed errors as exit codes."""

import json

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.services import documents, graph
from vancetope_desktop.services.library import Library


def test_memory_graph_prints_nodes_and_edges(cli, tmp_path):
    with Library.open(tmp_path / "lib") as lib:  # the CLI's library, filled without the duplicate guard's model
        def add(text, memory_type):
            return documents.add_text(lib, text, doc_type=DocumentType.NOTE, title=text, memory_type=memory_type).id

        old, new = add("Colours use hex codes", "project"), add('Colours use "OKLCH" tokens', "project")
        tip = add("Check contrast on dark themes", "feedback")
        graph.relate(lib, new, old, "updates")
        graph.relate(lib, tip, new, "supports")
    near = json.loads(cli("memory", "graph", old, "--json").output)
    assert {n["id"]: (n["depth"], n["memory_type"], n["status"]) for n in near["nodes"]} == {
        old: (0, "project", "archived"), new: (1, "project", "active")}
    assert [(e["source_id"], e["type"], e["target_id"]) for e in near["edges"]] == [(new, "updates", old)]
    far = json.loads(cli("memory", "graph", old, "--depth", "2", "--json").output)
    assert {n["id"] for n in far["nodes"]} == {old, new, tip} and len(far["edges"]) == 2
    text = cli("memory", "graph", new).output
    assert "2 related document(s) within 1 step(s)" in text and "—supports→" in text and "[archived]" in text
    dot = cli("memory", "graph", new, "--dot").output
    assert dot.startswith("digraph neighbourhood {") and dot.rstrip().endswith("}")
    assert f'"{new}" -> "{old}" [label="updates"];' in dot and r'\"OKLCH\" tokens\nproject' in dot
    assert cli("memory", "graph", new, "--depth", "9", ok=False).exit_code == 2
    assert cli("memory", "graph", "doc_missing", ok=False).exit_code == 3
    assert cli("memory", "graph", new, "--dot", "--json", ok=False).exit_code == 2
