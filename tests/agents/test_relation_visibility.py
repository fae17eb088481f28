"""Relations follow the visibility rule from every scope kind, agents and the sessions they run included (issue 12):
no edge to what the writer cannot read, and no face (``graph.relations_of``, which Details shows,
``graph.neighbourhood``, the tool ``memory_relations``, ``vancetope memory relations``) reveals what the reader
cannot read; edges survive promotion and demotion. Notes only, nothing embedded."""

import json

import pytest
from typer.testing import CliRunner

from tests.conftest import stored_counts
from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.cli.main import app
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import ScopeNotVisible
from vancetope_desktop.services import documents, graph, moves, scopes
from vancetope_desktop.services.library import Library

G, P, A, S1, T1, S2 = "group/default", "project/inbox", "agent/tau", "session/s1", "think-process/tp_1", "session/s2"
READABLE = {G: "G", P: "GP", A: "GPA", S1: "GPAS", T1: "GPAST", S2: "GPX"}
"""What each viewer may read, by the letters of :data:`NOTES`: tau runs s1 (and so tp_1); s2 is s1's sibling."""
NOTES = {"G": G, "P": P, "A": A, "S": S1, "T": T1, "X": S2}
EDGES = [("A", "supports", "P"), ("S", "extends", "A"), ("T", "relates_to", "A"), ("X", "contradicts", "P"),
         ("P", "derived_from", "G")]
"""Each made from the source's own scope (which reads the target)."""


def _web(root):
    """A library at ``root`` with a note per letter of :data:`NOTES` and the :data:`EDGES`: root, letter → id."""
    with Library.open(root) as lib:
        scopes.create_scope(lib, "agent", "tau", parent=P)
        scopes.create_scope(lib, "session", "s1", parent=P, agent=A)
        scopes.create_scope(lib, "think-process", "tp_1", parent=S1)
        scopes.create_scope(lib, "session", "s2", parent=P)
        ids = {k: documents.add_text(lib, f"Note {k}", doc_type=DocumentType.NOTE, title=f"Note {k}", scope=s).id
               for k, s in NOTES.items()}
        for source, kind, target in EDGES:
            graph.relate(lib, ids[source], ids[target], kind, scope=NOTES[source])
    return root, ids


@pytest.fixture(scope="module")
def web(tmp_path_factory):
    """:func:`_web` once for the tests that only read or are refused (they check that nothing was written)."""
    return _web(tmp_path_factory.mktemp("web") / "lib")


def _neighbours(letter: str, readable: str) -> set[str]:
    return {b if a == letter else a for a, _, b in EDGES if letter in (a, b)} & set(readable)


@pytest.mark.parametrize("viewer", list(READABLE))
def test_no_face_reveals_an_invisible_document(web, viewer):
    root, ids = web
    letter_of = {v: k for k, v in ids.items()}
    runner = CliRunner()
    with Library.open(root) as lib:
        tools = MemoryTools(lib, viewer)
        for letter, doc_id in ids.items():
            if letter not in READABLE[viewer]:
                with pytest.raises(ScopeNotVisible):
                    graph.relations_of(lib, doc_id, viewer)
                with pytest.raises(ScopeNotVisible):
                    tools.memory_neighbourhood(doc_id)
                continue
            wanted = _neighbours(letter, READABLE[viewer])
            found = graph.relations_of(lib, doc_id, viewer)  # what Details shows from this scope
            both = [*found.outgoing.values(), *found.incoming.values()]
            assert {letter_of[d.id] for ds in both for d in ds} == wanted, (viewer, letter)
            told = tools.memory_relations(doc_id)
            assert told.outgoing == found.outgoing and told.incoming == found.incoming
            picture = graph.neighbourhood(lib, doc_id, 3, viewer)
            assert {letter_of[n.id] for n in picture.nodes} <= set(READABLE[viewer])
            assert all({e.source_id, e.target_id} <= {n.id for n in picture.nodes} for e in picture.edges)
    for letter, doc_id in (("A", ids["A"]),):  # the terminal, acting as the viewer, on the agent's note
        result = runner.invoke(app, ["memory", "relations", doc_id, "--scope", viewer, "--json", "--library",
                                     str(root)])
        if letter not in READABLE[viewer]:
            assert result.exit_code == 4 and "cannot read" in result.output
            continue
        shown = json.loads(result.stdout)
        assert {letter_of[d["id"]] for side in ("outgoing", "incoming") for ds in shown[side].values()
                for d in ds} == _neighbours(letter, READABLE[viewer])


@pytest.mark.parametrize(("viewer", "source", "target"), [
    (G, "G", "P"),  # a group does not read its projects' memory
    (P, "P", "A"),  # nor a project its agent's
    (A, "A", "S"),  # nor an agent the sessions it runs
    (S2, "X", "A"),  # nor a session another session's agent
    (S1, "S", "X"),  # nor a sibling session
    (T1, "T", "X"),  # nor a think process its session's sibling
])
def test_no_edge_to_an_invisible_document(web, viewer, source, target):
    root, ids = web
    before = stored_counts(root)
    with Library.open(root) as lib:
        with pytest.raises(ScopeNotVisible):
            graph.relate(lib, ids[source], ids[target], "supports", scope=viewer)
        with pytest.raises(ScopeNotVisible):
            MemoryTools(lib, viewer).memory_store("x", relates_to={"target_id": ids[target], "type": "supports"})
    assert stored_counts(root) == before  # nothing half-written


def test_an_agent_s_edges_survive_promotion_and_demotion(tmp_path, library_at):
    root, ids = _web(library_at(tmp_path / "lib"))
    with Library.open(root) as lib:
        moves.move_to_scope(lib, ids["A"], P, "up", reason="the whole project needs it")
        incoming = graph.relations_of(lib, ids["A"], S2).incoming  # s2 reads it now, not s1's or tp_1's notes
        assert incoming == {} and graph.relations_of(lib, ids["A"], S2).outgoing.keys() == {"supports"}
        assert {d.id for ds in graph.relations_of(lib, ids["A"], T1).incoming.values() for d in ds} == {
            ids["S"], ids["T"]}
        moves.move_to_scope(lib, ids["A"], A, "down", reason="back to tau")
        with pytest.raises(ScopeNotVisible):
            graph.relations_of(lib, ids["A"], S2)
        assert [d.id for d in graph.relations_of(lib, ids["S"], S1).outgoing["extends"]] == [ids["A"]]
