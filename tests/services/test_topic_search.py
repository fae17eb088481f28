"""Search through the topic trees (issue 14, ``services.topic_search``): modes, breadcrumbs, explanations, the
cascade across scopes, and agreement with the flat search, on a real library with the real model."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import event

from tests.library_copies import build_template, copied_library
from vancetope_desktop.core.atoms import AtomType
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import InvalidInput
from vancetope_desktop.services import atoms, documents, indexing, records, scopes, topics
from vancetope_desktop.services.search import search
from vancetope_desktop.services.topic_search import ATOM_TYPES, parse_mode, topic_search
from vancetope_desktop.store.db import write_session

ALPHA = "project/alpha"
BETA = "project/beta"
LAB = "group/lab"

# scope → {first-level label: (surface, {second-level label: (surface, [atom texts])})}; a first-level topic's
# atoms hang on its children.
TREES = {
    ALPHA: {
        "Outdoors": (["hiking", "trail", "mountain"], {
            "Hiking": (["hiking", "trail", "summit"], [
                "Maya hiked the Eagle Ridge trail to the summit in four hours.",
                "The Eagle Ridge trail is closed in winter because of avalanches.",
                "Maya bought new hiking boots before the mountain trip.",
            ]),
            "Camping": (["tent", "campsite"], [
                "The campsite by the lake needs a reservation in July.",
                "Our tent leaked during the storm at the lake campsite.",
            ]),
        }),
        "Kitchen": (["recipe", "cooking", "bake"], {
            "Baking": (["bread", "sourdough", "bake"], [
                "The sourdough starter must be fed every twelve hours.",
                "Bake the bread at 230 degrees for forty minutes.",
            ]),
            "Soups": (["soup", "broth"], [
                "The lentil soup recipe uses cumin and smoked paprika.",
                "Chicken broth simmers for three hours before straining.",
            ]),
        }),
    },
    LAB: {
        "Equipment": (["gpu", "server", "hardware"], {
            "GPUs": (["gpu", "a100", "cuda"], [
                "The lab owns four GPU servers with A100 cards.",
                "CUDA 12 is installed on every lab GPU server.",
            ]),
        }),
    },
    BETA: {
        "Hiking": (["hiking", "trail"], {
            "Routes": (["trail", "route"], [
                "Beta's hiking group walks the Eagle Ridge trail every spring.",
            ]),
        }),
    },
}


def plant(lib, scope: str, tree: dict, *, consolidated: bool) -> dict[str, str]:
    """Store ``tree``'s atoms in ``scope`` and its topics and memberships (``services.topics``'s writes, as the
    digest makes them), each topic's centroid the mean of its atoms' vectors. Returns atom text → id."""
    made: dict[str, str] = {}
    for _, (_, children) in tree.items():
        for _, (_, texts) in children.items():
            for text in texts:
                made[text] = atoms.store_atom(lib, atoms.draft_atom(AtomType.FACT, text), scope=scope).id
    embedder = lib.embedder()

    def centroid(texts: list[str]) -> np.ndarray:
        mean = embedder.encode_documents(texts).mean(axis=0)
        return mean / np.linalg.norm(mean)

    with write_session(lib.engine) as session:
        root = topics.session_create_topic(session, None, scope_path=scope, label=scope, parent_id=None,
                                           root_fields={"consolidated": consolidated})
        for label, (surface, children) in tree.items():
            every = [t for _, (_, texts) in children.items() for t in texts]
            top = topics.session_create_topic(session, None, scope_path=scope, label=label, parent_id=root.id,
                                              surface=surface, centroid=centroid(every))
            for child, (child_surface, texts) in children.items():
                leaf = topics.session_create_topic(session, None, scope_path=scope, label=child, parent_id=top.id,
                                                   surface=child_surface, centroid=centroid(texts))
                for text in texts:
                    topics.session_add_member(session, made[text], leaf.id, None)
        records.bump_change_counter(session)
    return made


def set_consolidated(lib, scope: str, value: bool) -> None:
    """Mark ``scope``'s tree consolidated or not, as the digest does past ``Settings.topic_consolidate_at``."""
    tree = topics.get_tree(lib, scope, counts=False)
    with write_session(lib.engine) as session:
        topics.session_update_topic(session, records.document_row(session, tree.root_id), None,
                                    fields={"consolidated": value})
        records.bump_change_counter(session)


def _fill(lib) -> dict[str, str]:
    scopes.create_scope(lib, "group", "lab", name="Lab")
    scopes.create_scope(lib, "project", "alpha", parent=LAB, name="Alpha")
    scopes.create_scope(lib, "project", "beta", parent=LAB, name="Beta")
    made = {}
    for scope, tree in TREES.items():
        made.update(plant(lib, scope, tree, consolidated=False))
    # Atoms of alpha stored after its tree was built: in no topic until the next digest places them.
    made["late"] = atoms.store_atom(lib, atoms.draft_atom(AtomType.FACT, "Maya plans a hike on the Eagle Ridge trail "
                                                          "next autumn."), scope=ALPHA).id
    indexing.try_drain(lib)
    return made


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return build_template(tmp_path_factory, _fill)


@pytest.fixture
def forest(template, tmp_path):
    root, made = template
    with copied_library(root, tmp_path / "library") as lib:
        yield lib, made


def test_a_tree_search_over_every_type_keeps_documents_with_no_atoms(forest):
    """The tree routes atoms only: a note no atom was read from is ranked beside the paths' atoms, as memory_query
    and the search pane ask (every type), never dropped (it was, before ``within_types``)."""
    lib, _ = forest
    note = documents.add_text(lib, "Packing list for the Eagle Ridge summit hike: boots, water, map.",
                              doc_type=DocumentType.NOTE, title="Summit packing list", scope=ALPHA)
    indexing.try_drain(lib)
    found = topic_search(lib, "Eagle Ridge summit hike packing", scope=ALPHA, mode="tree", types=None)
    assert found.mode == "tree"
    hit = next(h for h in found.hits if h.document.id == note.id)
    assert "not an atom" in hit.explanation.splitlines()[0]
    assert any(h.document.type in ATOM_TYPES for h in found.hits)
    # The atoms are still narrowed to the paths: a tree search scores fewer than all of them.
    assert found.atoms_scored < found.atoms


def test_parse_mode_accepts_the_three_modes_and_refuses_others():
    assert [parse_mode(m) for m in ("auto", " Tree ", "FLAT", None)] == ["auto", "tree", "flat", "auto"]
    with pytest.raises(InvalidInput, match="auto, tree or flat"):
        parse_mode("beam")


def test_auto_is_flat_before_the_tree_is_consolidated_and_tree_after(forest):
    lib, _ = forest
    query = "Which trail did Maya hike to the summit?"
    cold = topic_search(lib, query, scope=ALPHA)
    assert cold.mode == "flat" and "cold start" in cold.mode_reason
    assert cold.atoms_scored == cold.atoms and cold.topics_scored == 0
    set_consolidated(lib, ALPHA, True)
    warm = topic_search(lib, query, scope=ALPHA)
    assert warm.mode == "tree" and ALPHA in warm.mode_reason
    assert warm.topics_scored > 0 and 0 < warm.atoms_scored < warm.atoms
    # The filters decide too: memory types leave atoms out, so auto stays flat.
    assert topic_search(lib, query, scope=ALPHA, memory_types=["episode"]).mode == "flat"
    # Asked for explicitly, flat is flat and tree is tree, whatever the state.
    assert topic_search(lib, query, scope=ALPHA, mode="flat").mode == "flat"
    set_consolidated(lib, ALPHA, False)
    assert topic_search(lib, query, scope=ALPHA, mode="tree").mode == "tree"


def test_tree_hits_carry_breadcrumbs_source_and_an_explanation_of_the_path(forest):
    lib, made = forest
    response = topic_search(lib, "Which trail did Maya hike to the summit?", scope=ALPHA, mode="tree")
    best = response.hits[0]
    assert best.document.id == made["Maya hiked the Eagle Ridge trail to the summit in four hours."]
    assert best.breadcrumbs[0] == "Outdoors › Hiking"
    assert best.paths[0].scope == ALPHA and response.paths[0].score > 0
    route, *score_lines = best.explanation.split("\n")
    assert route.startswith("topic path Outdoors › Hiking") and "trail" in route and "summit" in route
    assert score_lines[-1].startswith("relevance ")  # the product's score line follows, unchanged
    assert response.paths and response.paths[0].breadcrumb == "Outdoors › Hiking"
    # Cooking is nowhere near the query: its atoms were never ranked.
    soup = made["The lentil soup recipe uses cumin and smoked paprika."]
    assert soup not in {h.document.id for h in response.hits}


def test_flat_hits_show_the_topics_their_atoms_are_in(forest):
    lib, made = forest
    response = topic_search(lib, "sourdough starter feeding", scope=ALPHA, mode="flat")
    assert response.hits[0].document.id == made["The sourdough starter must be fed every twelve hours."]
    assert response.hits[0].breadcrumbs == ["Kitchen › Baking"]
    assert not response.hits[0].explanation.startswith("topic path")


def test_an_atom_in_no_topic_yet_is_still_found_by_the_tree_search(forest):
    lib, made = forest
    response = topic_search(lib, "When does Maya plan her next hike?", scope=ALPHA, mode="tree")
    late = next(h for h in response.hits if h.document.id == made["late"])
    assert late.paths == [] and late.explanation.startswith("in no topic yet")


def test_a_child_scope_walks_its_own_and_its_ancestors_trees_never_a_siblings(forest):
    lib, made = forest
    query = "Eagle Ridge trail hiking GPU servers"
    response = topic_search(lib, query, scope=ALPHA, mode="tree")
    assert response.trees == [ALPHA, LAB]
    found = {h.document.id for h in response.hits}
    assert made["The lab owns four GPU servers with A100 cards."] in found  # the group's tree, one up
    beta = made["Beta's hiking group walks the Eagle Ridge trail every spring."]
    assert beta not in found
    assert all(p.scope in (ALPHA, LAB) for p in response.paths)
    gpu = next(h for h in response.hits if h.document.id == made["The lab owns four GPU servers with A100 cards."])
    assert gpu.breadcrumbs[0] == "Equipment › GPUs" and gpu.distance == 1
    # From beta the same query walks beta's tree and the group's, not alpha's.
    other = topic_search(lib, query, scope=BETA, mode="tree")
    assert other.trees == [BETA, LAB] and beta in {h.document.id for h in other.hits}
    assert not {h.document.id for h in other.hits} & {made[t] for t in TREES[ALPHA]["Outdoors"][1]["Hiking"][1]}


@pytest.mark.parametrize("query", ["Bake the bread at what temperature?", "tent leaked in the storm",
                                   "CUDA version on the lab servers"])
def test_the_tree_search_finds_the_atom_the_flat_search_ranks_first(forest, query):
    lib, _ = forest
    flat = search(lib, query, scope=ALPHA, types=ATOM_TYPES)
    tree = topic_search(lib, query, scope=ALPHA, mode="tree")
    assert tree.hits[0].document.id == flat.hits[0].document.id
    assert tree.hits[0].relevance == pytest.approx(flat.hits[0].relevance)  # the same scoring, restricted


def test_no_tree_to_walk_searches_flat_and_says_so(forest):
    """Also: finding there is no tree costs a few statements beside the flat search's (one read session: the scopes'
    atom counts and whether any topic exists), not a read of each scope's empty tree (17 statements in five sessions
    for a think process's four scopes, each a round trip to a team library's server)."""
    lib, _ = forest
    scopes.create_scope(lib, "group", "empty", name="Empty")
    statements = []
    event.listen(lib.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    for _ in range(2):  # the second flat search: its caches warm, as the tree search's will find them
        statements.clear()
        search(lib, "anything at all", scope="group/empty")
    flat = len(statements)
    statements.clear()
    response = topic_search(lib, "anything at all", scope="group/empty", mode="tree")
    assert response.mode == "flat" and response.warnings and "no topic tree" in response.warnings[-1]
    assert len(statements) <= flat + 6, statements[:len(statements) - flat]


def test_the_agent_tools_search_by_the_tree_with_paths_sources_and_counts(forest):
    from vancetope_desktop.agents.tools import MemoryTools

    lib, made = forest
    tools = MemoryTools(lib, ALPHA)
    found = tools.call("topics_search", {"query": "Which trail did Maya hike to the summit?", "mode": "tree"})
    assert found.mode == "tree" and found.trees == [ALPHA, LAB] and found.paths[0].breadcrumb == "Outdoors › Hiking"
    best = found.hits[0]
    assert best.doc_id == made["Maya hiked the Eagle Ridge trail to the summit in four hours."]
    assert best.topics[0] == "Outdoors › Hiking" and best.why.startswith("topic path Outdoors › Hiking")
    assert 0 < found.atoms_scored < found.atoms
    # memory_query and memory_recall take the same mode; without a consolidated tree, auto is today's search.
    query = tools.memory_query("Which trail did Maya hike to the summit?", mode="tree")
    assert query.mode == "tree" and query.hits[0].topics[0] == "Outdoors › Hiking"
    assert tools.memory_query("Which trail did Maya hike to the summit?").mode == "flat"
    recalled = tools.memory_recall("Which trail did Maya hike to the summit?", mode="tree")
    assert recalled.mode == "tree" and recalled.memories[0].topics == ["Outdoors › Hiking"]
    with pytest.raises(InvalidInput, match="mode"):
        tools.call("topics_search", {"query": "trail", "mode": "beam"})
