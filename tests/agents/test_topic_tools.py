"""The topic tools (issue 14): topics_browse shows a tree the agent sees (and one topic's atoms and sources),
topics_edit changes a tree of its own scope only; both over the MCP server too (an in-memory client)."""

import anyio
import pytest
from mcp import Client

from tests.topic_trees import small_tree
from vancetope_desktop.agents.mcp_server import ScopedMemory, build_server
from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.core.errors import AccessDenied, InvalidInput
from vancetope_desktop.services import scopes, topics

P = "project/inbox"
TP = "think-process/tp_1"


@pytest.fixture
def tree(library):
    scopes.create_scope(library, "session", "s1", parent=P)
    scopes.create_scope(library, "think-process", "tp_1", parent="session/s1")
    return library, small_tree(library, P)


def test_browse_and_edit_through_the_tools(tree):
    lib, ids = tree
    agent = MemoryTools(lib, TP)
    own = agent.topics_browse()
    assert own.tree.root_id is None and own.visible_trees == [P]
    listed = {d.doc_id for d in agent.memory_list(limit=100).documents}  # topics are no documents to list
    assert ids["a0"] in listed and not listed & {ids["root"], ids["herons"], ids["alders"], ids["nesting"]}
    shown = agent.topics_browse(scope=P, depth=1)
    assert [t.label for t in shown.tree.topics] == ["Default project", "Alders", "Herons"]
    herons = agent.topics_browse(topic_id=ids["herons"], recursive=True)
    assert herons.topic.path == ["Herons"] and [a.id for a in herons.atoms] == [ids["a0"], ids["a1"], ids["a3"]]
    with pytest.raises(AccessDenied):  # the project's tree is read-only for a think process
        agent.topics_edit("rename", topic_id=ids["herons"], label="Birds")
    project = MemoryTools(lib, P)
    done = project.topics_edit("rename", topic_id=ids["herons"], label="Birds")
    assert done.topics[0].label == "Birds" and done.topics[0].pinned == ["label"]
    made = project.topics_edit("split", topic_id=ids["herons"], groups=[[ids["a0"]], [ids["a1"]]],
                               labels=["Adults", "Chicks"])
    assert [t.path for t in made.topics] == [["Birds", "Adults"], ["Birds", "Chicks"]]
    with pytest.raises(InvalidInput, match="needs parent_id"):
        project.topics_edit("move", topic_id=ids["nesting"])
    with pytest.raises(InvalidInput):
        project.topics_edit("prune", topic_id=ids["nesting"])


def test_topics_browse_round_trip_over_mcp(tree):
    lib, ids = tree

    async def scenario() -> tuple[dict, dict, object]:
        async with Client(build_server(ScopedMemory(lib, TP))) as client:
            listed = {t.name for t in (await client.list_tools()).tools}
            assert {"topics_browse", "topics_edit"} <= set(listed)
            whole = await client.call_tool("topics_browse", {"scope": P})
            one = await client.call_tool("topics_browse", {"topic_id": ids["alders"]})
            refused = await client.call_tool("topics_edit", {"action": "delete", "topic_id": ids["alders"]})
            return whole.structured_content, one.structured_content, refused

    whole, one, refused = anyio.run(scenario)
    assert [t["label"] for t in whole["tree"]["topics"]] == ["Default project", "Alders", "Herons", "Nesting"]
    assert whole["tree"]["unplaced"] == 1
    assert {a["id"] for a in one["atoms"]} == {ids["a0"], ids["a2"]} and one["topic"]["own_atoms"] == 2
    assert refused.is_error and topics.get_tree(lib, P).get(ids["alders"]) is not None
