"""`memory_neighbourhood` (issue 12): the relation picture's data for an agent, as its scope sees it, through
the Python tools and their JSON call path; typed errors for a bad depth or an invisible document."""

import json

import pytest

from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import InvalidInput, ScopeNotVisible
from vancetope_desktop.services import documents, graph, scopes

TP1, TP2 = "think-process/tp_1", "think-process/tp_2"


def test_an_agent_reads_the_neighbourhood_its_scope_sees(library):
    scopes.create_scope(library, "session", "s_1", parent="project/inbox")
    for key in ("tp_1", "tp_2"):
        scopes.create_scope(library, "think-process", key, parent="session/s_1")

    def note(title, scope=None, memory_type="project"):
        return documents.add_text(library, title + ".", doc_type=DocumentType.NOTE, title=title, scope=scope,
                                  memory_type=memory_type).id

    old, new = note("Deploy with Docker"), note("Deploy with Nix")
    mine, theirs = note("Nix builds are slow on CI", TP1, "feedback"), note("Nix is fine", TP2)
    graph.relate(library, new, old, "updates")
    graph.relate(library, mine, new, "extends", scope=TP1)
    graph.relate(library, theirs, new, "supports", scope=TP2)
    tools = MemoryTools(library, TP1)
    near = tools.memory_neighbourhood(mine, depth=2)
    assert {n.id: (n.depth, n.status) for n in near.nodes} == {mine: (0, "active"), new: (1, "active"),
                                                              old: (2, "archived")}  # tp_2's note left out
    assert {(e.source_id, e.type.value, e.target_id) for e in near.edges} == {(mine, "extends", new),
                                                                           (new, "updates", old)}
    called = json.loads(tools.call("memory_neighbourhood", {"doc_id": new}).model_dump_json())
    assert {n["id"]: n["memory_type"] for n in called["nodes"]} == {new: "project", old: "project",
                                                                  mine: "feedback"}
    with pytest.raises(InvalidInput):
        tools.memory_neighbourhood(new, depth=7)
    with pytest.raises(ScopeNotVisible):
        tools.memory_neighbourhood(theirs)
