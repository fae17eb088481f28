"""Typed relations (issue 12): every type, the visibility rule from every scope kind, grouping by type, the
neighbourhood, moves, and the typed errors (missing, invisible, trashed, unknown type, links_to by hand)."""

import pytest

from vancetope_desktop.core.documents import DocumentStatus, DocumentType
from vancetope_desktop.core.errors import DocumentNotFound, RelationRefused, ScopeNotVisible, UnknownRelationType
from vancetope_desktop.core.relations import DERIVED_TYPES, RelationType
from vancetope_desktop.services import audit, documents, graph, moves, relations, scopes
from vancetope_desktop.services.library import DEFAULT_PROJECT

S, TP1, TP2 = "session/s_1", "think-process/tp_1", "think-process/tp_2"


@pytest.fixture
def library(any_library):
    """Each test on the embedded library and on one whose database is PostgreSQL (issue 17)."""
    return any_library


@pytest.fixture
def tree(library):
    scopes.create_scope(library, "session", "s_1", parent=DEFAULT_PROJECT)
    scopes.create_scope(library, "think-process", "tp_1", parent=S)
    scopes.create_scope(library, "think-process", "tp_2", parent=S)
    return library


def _note(lib, text, scope=None):
    return documents.add_text(lib, text, doc_type=DocumentType.NOTE, title=text, scope=scope)


def test_every_type_groups_both_ways_and_is_audited(tree):
    hub = _note(tree, "Hub")
    others = {t: _note(tree, f"Other {t.value}") for t in RelationType if t not in DERIVED_TYPES}
    for kind, other in others.items():
        if kind is not RelationType.UPDATES:  # updates archives its target: tested in test_lifecycle
            outcome = graph.relate(tree, hub.id, other.id, kind.value.replace("_", "-"), "agent/tau")
            assert outcome.created and outcome.edge.created_by == "agent/tau"
    assert not graph.relate(tree, hub.id, others[RelationType.CITES].id, "cites").created  # twice: one edge
    mine = graph.relations_of(tree, hub.id)
    assert {t: [d.id for d in ds] for t, ds in mine.outgoing.items()} == {
        t: [o.id] for t, o in others.items() if t is not RelationType.UPDATES}
    theirs = graph.relations_of(tree, others[RelationType.SUPPORTS].id)
    assert theirs.rows() == [("supported by", theirs.incoming[RelationType.SUPPORTS])]
    assert [e.action for e in audit.document_history(tree, hub.id)].count("relate") == 6
    assert graph.unrelate(tree, hub.id, others[RelationType.CITES].id, RelationType.CITES)
    assert not graph.unrelate(tree, hub.id, others[RelationType.CITES].id, RelationType.CITES)
    assert RelationType.CITES not in graph.relations_of(tree, hub.id).outgoing


def test_typed_errors_write_nothing(tree):
    a, b = _note(tree, "A"), _note(tree, "B")
    with pytest.raises(UnknownRelationType, match="relates_to"):
        graph.relate(tree, a.id, b.id, "likes")
    with pytest.raises(DocumentNotFound):
        graph.relate(tree, a.id, "doc_missing", "supports")
    with pytest.raises(RelationRefused):
        graph.relate(tree, a.id, a.id, "supports")
    with pytest.raises(RelationRefused, match="links"):
        graph.relate(tree, a.id, b.id, "links_to")
    with pytest.raises(RelationRefused, match="move-atom"):
        graph.relate(tree, a.id, b.id, "in-topic")
    documents.set_status(tree, b.id, DocumentStatus.DELETED)
    with pytest.raises(DocumentNotFound, match="trash"):
        graph.relate(tree, a.id, b.id, "supports")
    assert graph.relations_of(tree, a.id) == graph.DocumentRelations(document_id=a.id)


def test_the_visibility_rule_from_every_scope_kind(tree):
    group_doc = _note(tree, "Group convention", scope="group/default")
    project_doc = _note(tree, "Project decision")
    tp1_doc, tp2_doc = _note(tree, "tp_1 finding", scope=TP1), _note(tree, "tp_2 secret", scope=TP2)
    # No edge to what the writer cannot see: a sibling's memory, or a descendant's from above.
    with pytest.raises(ScopeNotVisible):
        graph.relate(tree, tp1_doc.id, tp2_doc.id, "contradicts", scope=TP1)
    with pytest.raises(ScopeNotVisible):
        graph.relate(tree, project_doc.id, tp1_doc.id, "relates_to", scope=DEFAULT_PROJECT)
    graph.relate(tree, tp1_doc.id, project_doc.id, "extends", scope=TP1)
    graph.relate(tree, tp2_doc.id, project_doc.id, "contradicts", scope=TP2)
    graph.relate(tree, project_doc.id, group_doc.id, "derived_from", scope=DEFAULT_PROJECT)
    # Reading never reveals an invisible document: each scope sees the edges to what it may read.
    seen = {scope: {d.id for ds in graph.relations_of(tree, project_doc.id, scope).incoming.values() for d in ds}
            for scope in (DEFAULT_PROJECT, S, TP1, TP2)}
    assert seen == {DEFAULT_PROJECT: set(), S: set(), TP1: {tp1_doc.id}, TP2: {tp2_doc.id}}
    assert [d.id for d in graph.relations_of(tree, project_doc.id, TP1).outgoing[RelationType.DERIVED_FROM]] == [
        group_doc.id]
    with pytest.raises(ScopeNotVisible):
        graph.relations_of(tree, project_doc.id, "group/default")
    # A conflict names only what the reader may read.
    assert relations.conflicts_for(tree, [project_doc.id], scope=TP1) == {}
    assert relations.conflicts_for(tree, [project_doc.id], scope=TP2) == {project_doc.id: [tp2_doc.id]}
    picture = graph.neighbourhood(tree, group_doc.id, 2, TP1)
    assert {n.id: n.depth for n in picture.nodes} == {group_doc.id: 0, project_doc.id: 1, tp1_doc.id: 2}
    assert {(e.source_id, e.type.value, e.target_id) for e in picture.edges} == {
        (project_doc.id, "derived_from", group_doc.id), (tp1_doc.id, "extends", project_doc.id)}


def test_edges_survive_promotion_and_demotion(tree):
    claim, evidence = _note(tree, "Claim", scope=TP1), _note(tree, "Evidence", scope=TP1)
    graph.relate(tree, evidence.id, claim.id, "supports", scope=TP1)
    moves.move_to_scope(tree, claim.id, DEFAULT_PROJECT, "up", reason="relevant")
    assert [d.id for d in graph.relations_of(tree, claim.id, TP1).incoming[RelationType.SUPPORTS]] == [evidence.id]
    assert graph.relations_of(tree, claim.id, DEFAULT_PROJECT).incoming == {}  # the evidence stayed below
    moves.move_to_scope(tree, claim.id, TP1, "down", reason="back")
    assert [d.id for d in graph.relations_of(tree, evidence.id, TP1).outgoing[RelationType.SUPPORTS]] == [claim.id]
