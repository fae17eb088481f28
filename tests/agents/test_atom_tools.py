"""The atom tools (issue 13): memory_store takes events (when) and plans (due), atoms_list filters them, plan_update
and plan_happened change one's own plans; the MCP server runs the same calls; bad input is one typed line."""

import pytest

from vancetope_desktop.agents.mcp_server import ScopedMemory
from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.core.errors import AccessDenied, InvalidAtom
from vancetope_desktop.services import atoms, documents, scopes

TP = "think-process/tp_1"


@pytest.fixture
def agent(library):
    scopes.create_scope(library, "session", "s1", parent="project/inbox")
    scopes.create_scope(library, "think-process", "tp_1", parent="session/s1")
    return MemoryTools(library, TP)


def test_store_list_and_change_plans_through_the_tools(agent, library):
    plan = agent.memory_store("Send the heron counts to Ana.", type="plan", due="2026-12-15")
    assert (plan.type, plan.atom.due.isoformat(), plan.atom.plan_status) == ("plan", "2026-12-15T00:00:00", "planned")
    met = agent.memory_store("Met Ana at the reserve.", type="event", when="2026-12-01T10:00")
    assert met.atom.when.hour == 10
    assert [a.id for a in agent.atoms_list(type="plan").atoms] == [plan.doc_id]
    mcp = ScopedMemory(library, TP)
    missed = mcp.call("plan_update", {"plan_id": plan.doc_id, "status": "missed"})
    assert missed.plan_status == "missed"
    assert [a.id for a in mcp.call("atoms_list", {"status": "missed"}).atoms] == [plan.doc_id]
    event = agent.plan_happened(plan.doc_id, when="2026-12-16")
    assert agent.atoms_list(type="plan").atoms == []
    assert agent.atoms_list(type="plan", include_archived=True).atoms[0].happened_as == event.id
    # the project's plan is read-only for the think process
    theirs = atoms.store_atom(library, atoms.draft_atom("plan", "Book the boat.", due="2026-12-20"),
                              scope="project/inbox")
    with pytest.raises(AccessDenied):
        agent.plan_update(theirs.id, "canceled")


@pytest.mark.parametrize(("call", "message"), [
    ({"content": "Submit the report.", "type": "plan"}, "a plan atom needs a due date"),
    ({"content": "Met Ana.", "type": "event"}, "an event atom needs a time"),
    ({"content": "Met Ana.", "type": "event", "when": "sometime-ish"}, "cannot read the time 'sometime-ish'"),
    ({"content": "A note.", "due": "2026-12-20"}, "'due' is for a plan, not a note"),
])
def test_bad_atoms_are_refused_in_one_line_and_nothing_is_stored(agent, library, call, message):
    before = documents.count_documents(library, scope=TP)
    with pytest.raises(InvalidAtom, match=message) as raised:
        ScopedMemory(library, TP).call("memory_store", call)
    assert "\n" not in str(raised.value) and documents.count_documents(library, scope=TP) == before


def test_a_plan_is_never_completed(agent):
    plan = agent.memory_store("Ring Ana.", type="plan", due="2026-12-03")
    with pytest.raises(InvalidAtom, match="never 'completed': record the event"):
        agent.plan_update(plan.doc_id, "completed")
    with pytest.raises(InvalidAtom, match="unknown plan status 'paused'"):
        agent.plan_update(plan.doc_id, "paused")
