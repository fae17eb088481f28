"""The digest tools (issue 13): digest_run writes up the agent's own scope, digest_show reads it back, the MCP
server runs the same calls, and a bad day is one typed line."""

import pytest

from vancetope_desktop.agents.mcp_server import ScopedMemory
from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.core.errors import InvalidInput, NotFound
from vancetope_desktop.services import scopes

TP = "think-process/tp_1"


def test_digest_through_the_tools(library):
    scopes.create_scope(library, "session", "s1", parent="project/inbox")
    scopes.create_scope(library, "think-process", "tp_1", parent="session/s1")
    agent = MemoryTools(library, TP)
    with pytest.raises(NotFound):
        agent.digest_show()
    agent.memory_store("Counted 14 herons at the reserve.", type="fact", on_duplicate="store")
    run = agent.digest_run()
    assert run.outcome == "digested" and run.scope == TP and run.writeup_id
    mcp = ScopedMemory(library, TP)
    assert mcp.call("digest_run", {}).outcome == "already digested"
    shown = mcp.call("digest_show", {"day": "today"})
    assert shown.writeup_id == run.writeup_id and "Counted 14 herons" in shown.content
    with pytest.raises(InvalidInput, match="cannot read the day"):
        mcp.call("digest_run", {"day": "someday"})


def test_topics_rebuild_through_the_tools(library):
    """topics_rebuild keeps the acting scope's tree (issue 14) as the digest does, over the tools and MCP alike."""
    scopes.create_scope(library, "session", "s1", parent="project/inbox")
    scopes.create_scope(library, "think-process", "tp_1", parent="session/s1")
    agent = MemoryTools(library, TP)
    agent.memory_store("Counted 14 herons at the reserve.", type="fact", on_duplicate="store")
    done = agent.topics_rebuild()
    assert done.scope == TP and done.mode == "cold" and any("1 atom attached" in c.what for c in done.changes)
    assert ScopedMemory(library, TP).call("topics_rebuild", {}).changes == []
