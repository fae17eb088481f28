"""Agent memory from the terminal: agent scopes, the agent that runs a session, memory types, recall, episodes."""

import json


def as_json(result):
    return json.loads(result.stdout)


def test_agent_scopes_and_the_agent_that_runs_a_session(cli):
    created = as_json(cli("scope", "create", "agent/tau", "--parent", "group/default", "--json"))
    assert created["kind"] == "agent" and created["parent"] == "group/default"
    run = as_json(cli("scope", "create", "session", "s1", "--parent", "project/inbox", "--agent", "agent/tau",
                      "--json"))
    assert run["agent"] == "agent/tau"
    assert "session/s1 is run by agent/tau" in cli("scope", "agent", "session/s1").stdout
    assert as_json(cli("scope", "agent", "session/s1", "--none", "--json"))["agent"] is None
    refused = cli("scope", "agent", "project/inbox", "agent/tau", ok=False)
    assert refused.exit_code == 2 and "an agent runs sessions and think processes" in refused.output
