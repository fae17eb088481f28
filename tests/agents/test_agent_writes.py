"""An agent writes its own namespace from the sessions it runs (issue 12, seed 001: tau stores its own state at the
end of a session): ``sharing.write_grant`` decides, the tools and the MCP server follow it, and no session writes
another agent's namespace or a sibling's."""

import json

import anyio
import pytest
from mcp.client.client import Client

from tests.conftest import stored_counts
from vancetope_desktop.agents.mcp_server import ScopedMemory, build_server
from vancetope_desktop.agents.tools import MemoryTools
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.errors import AccessDenied, ScopeNotVisible
from vancetope_desktop.services import documents, episodes, review, scopes, sharing
from vancetope_desktop.services.sharing import WriteGrant

EPISODE = {"context": "Deploying Convex schema changes", "goal": "Add vector index to memories table",
           "action": "Ran npx convex deploy", "outcome": "Deploy failed", "insight": "Deploy the schema first",
           "severity": "major"}


@pytest.fixture
def team(library):
    """tau (under project/inbox) runs session s1 and, through it, think process tp_1; s2 runs alone; pi (under the
    group) runs s3."""
    scopes.create_scope(library, "agent", "tau", parent="project/inbox")
    scopes.create_scope(library, "agent", "pi", parent="group/default")
    scopes.create_scope(library, "session", "s1", parent="project/inbox", agent="agent/tau")
    scopes.create_scope(library, "think-process", "tp_1", parent="session/s1")
    scopes.create_scope(library, "session", "s2", parent="project/inbox")
    scopes.create_scope(library, "session", "s3", parent="project/inbox", agent="agent/pi")
    return library


def test_the_write_rule_is_own_scope_and_the_running_agent_s(team):
    grants = {(acting, target): sharing.write_grant(team, acting, target)
              for acting in ("session/s1", "think-process/tp_1", "session/s2", "session/s3", "agent/tau")
              for target in ("agent/tau", "agent/pi", "session/s1", "project/inbox")}
    assert {k: v for k, v in grants.items() if v is not None} == {
        ("session/s1", "agent/tau"): WriteGrant.AGENT, ("think-process/tp_1", "agent/tau"): WriteGrant.AGENT,
        ("session/s3", "agent/pi"): WriteGrant.AGENT, ("agent/tau", "agent/tau"): WriteGrant.OWN,
        ("session/s1", "session/s1"): WriteGrant.OWN}
    with pytest.raises(AccessDenied, match="asks for promotion to an ancestor"):  # it sees the project
        sharing.check_write(team, "session/s1", "project/inbox")
    with pytest.raises(ScopeNotVisible, match=r"that of the agent that runs it \(agent/tau\)"):
        sharing.check_write(team, "session/s1", "agent/pi")
    with pytest.raises(ScopeNotVisible, match="not a sibling's"):
        sharing.check_write(team, "session/s2", "session/s1")


def test_a_session_and_its_think_process_write_their_agent_s_namespace(team):
    session, think = MemoryTools(team, "session/s1"), MemoryTools(team, "think-process/tp_1")
    old = session.memory_store("Current work: the deploy checklist", scope="agent", memory_type="project",
                               on_duplicate="store")
    assert (old.scope, old.promotion_request) == ("agent/tau", None)
    new = think.call("memory_store", {"content": "Current work: the index migration", "scope": "agent/tau",
                                      "memory_type": "project", "on_duplicate": "store",
                                      "relates_to": {"target_id": old.doc_id, "type": "updates"}})
    assert new.scope == "agent/tau" and new.archived == [old.doc_id] and "thinkprocess:tp_1" in new.tags
    lesson = think.memory_store_episode(**EPISODE, namespace="agent")
    assert (lesson.namespace, lesson.created_by) == ("agent/tau", "think-process/tp_1")
    assert episodes.list_episodes(team, "agent/tau") == [lesson]
    # From the session itself, the agent that runs it is who acts.
    noted = session.memory_store_episode(**{**EPISODE, "goal": "Ship the index migration"}, namespace="agent")
    assert noted.created_by == "agent/tau"
    # The agent's documents are written from its session: relate, tag, restore; a relation may point at the
    # session's own note (read from the agent's scope, that end stays invisible).
    finding = session.memory_store("Deploys fail without the schema", on_duplicate="store")
    edge = session.memory_relate(lesson.id, finding.doc_id, "supports")
    assert edge.created and "deploy" in session.memory_tag(lesson.id, ["deploy"]).tags
    assert session.memory_restore(old.doc_id).status == "active"
    assert review.list_requests(team, status=None) == []  # written directly, nothing asked of the user
    assert MemoryTools(team, "agent/tau").memory_relations(lesson.id).outgoing == {}


@pytest.mark.parametrize(("acting", "call"), [
    ("session/s2", {"content": "x", "scope": "agent/tau"}),  # a sibling session tau does not run
    ("session/s3", {"content": "x", "scope": "agent/tau"}),  # another agent's session
    ("session/s1", {"content": "x", "scope": "agent/pi"}),  # tau's session, pi's namespace
    ("session/s1", {"content": "x", "scope": "session/s2"}),  # a sibling
    ("agent/tau", {"content": "x", "scope": "session/s1"}),  # the agent does not write the sessions it runs
    ("session/s1", {**EPISODE, "namespace": "agent/pi"}),
    ("session/s2", {**EPISODE, "namespace": "agent/tau"}),
])
def test_no_session_writes_another_agent_s_namespace_or_a_sibling_s(team, acting, call):
    before = stored_counts(team.paths.root)
    tool = "memory_store_episode" if "goal" in call else "memory_store"
    with pytest.raises(ScopeNotVisible, match="cannot write to"):
        MemoryTools(team, acting).call(tool, call)
    assert stored_counts(team.paths.root) == before


def test_documents_of_the_agent_are_read_only_from_a_session_it_does_not_run(team):
    state = documents.add_text(team, "Current work: the checklist", doc_type=DocumentType.NOTE, scope="agent/tau",
                               memory_type="project")
    with pytest.raises(ScopeNotVisible):
        MemoryTools(team, "session/s2").memory_tag(state.id, ["x"])
    sharing.share_document(team, state.id, "session/s2")  # readable by id now, still not writable
    with pytest.raises(AccessDenied, match="shared with it"):
        MemoryTools(team, "session/s2").memory_tag(state.id, ["x"])


def test_over_mcp_a_session_writes_its_agent_s_namespace(team):
    """Through the SDK's client (in process; nothing embedded: what the tool stores is shown above)."""
    old, new = (documents.add_text(team, text, doc_type=DocumentType.NOTE, scope="agent/tau", memory_type="project").id
                for text in ("Current work: the checklist", "Current work: the MCP prompt"))
    server = build_server(ScopedMemory(team, "session/s1"))

    async def scenario():
        async with Client(server, mode="legacy") as client:
            related = await client.call_tool("memory_relate", {"source_id": new, "target_id": old, "type": "updates"})
            refused = await client.call_tool("memory_store_episode", {**EPISODE, "namespace": "agent/pi"})
            return related, refused

    related, refused = anyio.run(scenario)
    assert not related.is_error and related.structured_content["archived"] == [old]
    # The same JSON twice, as the specification asks: structured, and as text for clients that read only content.
    assert [json.loads(part.text) for part in related.content] == [related.structured_content]
    assert refused.is_error and refused.content[0].text.startswith("ScopeNotVisible: session/s1 cannot write to")


def test_the_terminal_writes_the_agent_s_namespace_acting_as_its_session(team):
    """The person at the terminal writes any scope (``--scope`` / ``--namespace`` say where); relating as the session
    follows the same visibility rule as its tools."""
    from typer.testing import CliRunner

    from vancetope_desktop.cli.main import app

    def run(*args):
        return CliRunner().invoke(app, [*args, "--json", "--library", str(team.paths.root)])

    added = [json.loads(run("memory", "add", text, "--memory-type", "project", "--scope", "agent/tau",
                            "--no-wait").stdout)["id"] for text in ("Current work: A", "Current work: B")]
    related = run("memory", "relate", added[1], added[0], "--type", "updates", "--scope", "session/s1")
    assert related.exit_code == 0 and json.loads(related.stdout)["archived"] == [added[0]]
    refused = run("memory", "relate", added[1], added[0], "--type", "supports", "--scope", "session/s2")
    assert refused.exit_code == 4 and "an agent's only when it runs it" in refused.output
