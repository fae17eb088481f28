"""``memory_duplicates``: likely duplicates among what the acting scope sees, read-only, with why."""

from __future__ import annotations

import pytest

from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.core.errors import ScopeNotVisible
from vancetope_desktop.services import scopes


def test_an_agent_sees_the_duplicates_of_its_branch_only_and_why(library):
    scopes.create_scope(library, "session", "s1", parent="project/inbox")
    scopes.create_scope(library, "think-process", "tp_1", parent="session/s1")
    scopes.create_scope(library, "think-process", "tp_2", parent="session/s1")
    project = MemoryTools(library, "project/inbox")
    first = project.memory_store("Coral bleaches at 31 degrees.", type="fact")
    agent = MemoryTools(library, "think-process/tp_1")
    second = agent.memory_store("Coral bleaches at 31 degrees.", type="fact")
    MemoryTools(library, "think-process/tp_2").memory_store("Coral bleaches at 31 degrees.", type="fact")

    found = agent.call("memory_duplicates", {})

    assert [(g.reason, [d.doc_id for d in g.documents]) for g in found.groups] == [
        ("same text", [first.doc_id, second.doc_id])]  # tp_2's copy is another branch's
    assert agent.memory_duplicates(scope="project").groups == []  # the project's own: one copy
    with pytest.raises(ScopeNotVisible):
        agent.memory_duplicates(scope="think-process/tp_2")
