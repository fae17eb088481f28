"""A topic promoted with its subtree (issue 14, ``services.topics``' note "Promotion"): the topics, the atoms in them
and their edges move to the target scope under its tree's root (made when it has none), in one undo step; an atom
shared with a topic left behind moves and leaves it; a request goes through the review queue; the root is refused;
the scopes below the target see the promoted topic through their ancestor's tree."""

import numpy as np
import pytest

from tests.conftest import stored_counts
from tests.library_copies import build_template
from tests.topic_trees import small_tree, tree_copy
from vancetope_desktop.core.documents import DocumentStatus
from vancetope_desktop.core.errors import InvalidInput
from vancetope_desktop.core.topics import TOPIC_KEY
from vancetope_desktop.services import documents, moves, review, scopes, topics, undo
from vancetope_desktop.services.library import DEFAULT_PROJECT
from vancetope_desktop.store.db import write_session

P = DEFAULT_PROJECT
S1 = "session/s1"
ME = "user:tester"


def _sessions_and_tree(library):
    scopes.create_scope(library, "session", "s1", parent=P)
    scopes.create_scope(library, "session", "s2", parent=P)
    return small_tree(library, S1)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_template(tmp_path_factory, _sessions_and_tree)


@pytest.fixture
def tree(built, tmp_path):
    """(library, ids): :func:`tests.topic_trees.small_tree` in the session ``S1`` below ``P`` (which has no tree),
    and a sibling session ``session/s2``; a copy of the module's :func:`built`."""
    yield from tree_copy(built, tmp_path)


def _scope(lib, document_id):
    return documents.get_document(lib, document_id).scope


def _fields(lib, topic_id):
    return documents.get_document(lib, topic_id).metadata[TOPIC_KEY]


def _members(lib, topic_id):
    return {a.id for a in topics.topic_atoms(lib, topic_id)}


def _where(lib, ids):
    """Each of a0…a3 and the topics → its scope (a4 is in no topic and never moves)."""
    return {name: _scope(lib, ids[name]) for name in ("a0", "a1", "a2", "a3", "root", "herons", "alders", "nesting")}


def test_a_promoted_topic_takes_its_subtree_and_atoms_and_an_undo_puts_everything_back(tree):
    lib, ids = tree
    before = _where(lib, ids)
    herons_before = _fields(lib, ids["herons"])
    action = undo.user_action(lib, "Promote", [ids["herons"]], actor=ME)
    moved = moves.move_documents(lib, [ids["herons"]], P, "up", user_action=action)
    # the topic, the topic below it and the atoms in either, topics first
    assert [d.id for d in moved] == [ids["herons"], ids["nesting"], ids["a0"], ids["a1"], ids["a3"]]
    assert _where(lib, ids) == {**before, "herons": P, "nesting": P, "a0": P, "a1": P, "a3": P}
    # P had no tree: its root is made (named after the scope) and the subtree hangs under it, parent pinned
    target = topics.get_tree(lib, P)
    root = target.get(target.root_id)
    assert root.is_root and root.label == "Inbox" and root.children == [ids["herons"]]
    herons = target.get(ids["herons"])
    assert herons.parent_id == root.id and herons.path == ["Herons"] and herons.pinned == ["parent"]
    assert herons.surface == ["heron", "nest"] and herons.atoms == 3
    assert np.allclose(topics.centroids(lib, [ids["herons"]])[ids["herons"]], 0.5)
    assert target.get(ids["nesting"]).path == ["Herons", "Nesting"]
    # the edges inside the subtree stay; a0's edge to Alders (left behind) goes
    assert _members(lib, ids["herons"]) == {ids["a0"], ids["a1"]} and _members(lib, ids["nesting"]) == {ids["a3"]}
    assert _members(lib, ids["alders"]) == {ids["a2"]}
    assert topics.atom_paths(lib, [ids["a0"]]) == {ids["a0"]: [["Herons"]]}
    left = topics.get_tree(lib, S1)
    assert [t.label for t in left.topics] == ["Default project", "Alders"] and left.atoms == 1
    # visibility: the session it left and its sibling see it through the project's tree
    for scope in (S1, "session/s2"):
        seen = {v.scope: v.tree for v in topics.visible_trees(lib, scope)}
        assert seen[P].get(ids["nesting"]) is not None
    # one undo step puts everything back: scopes, parent and pins, the edge, and P without a tree
    undo.undo(lib, ME)
    assert _where(lib, ids) == before
    assert _fields(lib, ids["herons"]) == herons_before
    assert _members(lib, ids["alders"]) == {ids["a2"], ids["a0"]}
    assert topics.get_tree(lib, P).root_id is None
    assert documents.get_document(lib, root.id).status == DocumentStatus.DELETED
    assert [t.id for t in topics.get_tree(lib, S1).topics] == [t.id for t in left.topics[:1]] + \
        [ids["alders"], ids["herons"], ids["nesting"]]
    # and redo moves it again, under the same root
    undo.redo(lib, ME)
    assert _where(lib, ids) == {**before, "herons": P, "nesting": P, "a0": P, "a1": P, "a3": P}
    again = topics.get_tree(lib, P)
    assert again.root_id == root.id and again.get(ids["herons"]).parent_id == root.id
    assert _members(lib, ids["alders"]) == {ids["a2"]}


def test_a_request_for_a_topic_is_approved_through_review_and_moves_the_subtree(tree):
    lib, ids = tree
    with write_session(lib.engine) as session:  # the project has a tree already: the subtree joins it
        root = topics.session_create_topic(session, None, scope_path=P, label="Default project", parent_id=None)
    request = review.request_promotion(lib, ids["herons"], P, reason="the whole project needs it")
    assert _scope(lib, ids["herons"]) == S1  # nothing moves before the review
    [approved] = review.approve(lib, [request.id], reason="yes")
    assert approved.status.value == "approved"
    target = topics.get_tree(lib, P)
    assert target.root_id == root.id and target.get(ids["herons"]).parent_id == root.id
    assert {_scope(lib, ids[n]) for n in ("herons", "nesting", "a0", "a1", "a3")} == {P}
    assert _members(lib, ids["nesting"]) == {ids["a3"]} and _members(lib, ids["alders"]) == {ids["a2"]}


def test_a_topic_is_demoted_with_its_subtree(library):
    ids = small_tree(library, P)
    scopes.create_scope(library, "session", "s1", parent=P)
    moves.move_documents(library, [ids["alders"]], S1, "down")
    below = topics.get_tree(library, S1)
    assert below.get(ids["alders"]).parent_id == below.root_id and _members(library, ids["alders"]) == \
        {ids["a0"], ids["a2"]}
    assert _members(library, ids["herons"]) == {ids["a1"]}  # a0 went down with Alders
    assert [v.scope for v in topics.visible_trees(library, P)] == [P]  # the project no longer sees it


def test_the_root_is_refused_and_nothing_is_written(tree):
    lib, ids = tree
    counts = stored_counts(lib.paths.root)
    with pytest.raises(InvalidInput, match=r"root of session/s1's topic tree.*promote its topics"):
        moves.move_documents(lib, [ids["root"]], P, "up")
    with pytest.raises(InvalidInput, match="root of session/s1's topic tree"):
        review.request_promotion(lib, ids["root"], P)
    assert stored_counts(lib.paths.root) == counts
    assert _scope(lib, ids["root"]) == S1 and topics.get_tree(lib, P).root_id is None


def test_a_selection_moves_each_topic_with_the_topic_above_it_and_its_atoms(tree):
    lib, ids = tree
    # Nesting and a3 are under Herons: listed first, they still go along with it, not alone
    moves.move_documents(lib, [ids["a3"], ids["nesting"], ids["herons"], ids["alders"]], P, "up")
    target = topics.get_tree(lib, P)
    assert target.get(target.root_id).children == [ids["alders"], ids["herons"]]
    assert target.get(ids["nesting"]).parent_id == ids["herons"] and _members(lib, ids["nesting"]) == {ids["a3"]}
    assert _members(lib, ids["alders"]) == {ids["a0"], ids["a2"]}  # both its topics moved: a0 keeps both edges
    assert [t.id for t in topics.get_tree(lib, S1).topics] == [ids["root"]]


def test_topics_moved_together_keep_a_shared_atom_in_both_and_come_back_together(tree):
    lib, ids = tree
    action = undo.user_action(lib, "Promote", [ids["herons"], ids["alders"]], actor=ME)
    moves.move_documents(lib, [ids["herons"], ids["alders"]], P, "up", user_action=action)
    assert topics.atom_paths(lib, [ids["a0"]]) == {ids["a0"]: [["Alders"], ["Herons"]]}
    undo.undo(lib, ME)
    assert {_scope(lib, ids[n]) for n in ("herons", "alders", "nesting", "a0", "a1", "a2", "a3")} == {S1}
    assert topics.atom_paths(lib, [ids["a0"]]) == {ids["a0"]: [["Alders"], ["Herons"]]}
    undo.redo(lib, ME)
    assert topics.atom_paths(lib, [ids["a0"]]) == {ids["a0"]: [["Alders"], ["Herons"]]}
    assert _scope(lib, ids["a0"]) == P
