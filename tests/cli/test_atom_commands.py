"""`vancetope atoms` (issue 13): add, list with filters, plan-update (no 'completed'), happened; bad input is one
line and exit 2, nothing stored."""

import json


def test_atoms_from_the_terminal(cli):
    plan = json.loads(cli("atoms", "add", "Submit the survey report.", "--type", "plan", "--due", "2026-12-15",
                          "--no-wait", "--json").stdout)
    assert (plan["type"], plan["due"], plan["plan_status"]) == ("plan", "2026-12-15T00:00:00", "planned")
    cli("atoms", "add", "Herons nest in alder carr.", "--no-wait")
    missed = json.loads(cli("atoms", "plan-update", plan["id"], "missed", "--json").stdout)
    assert missed["plan_status"] == "missed" and missed["edited_by_person"]
    listed = json.loads(cli("atoms", "list", "--type", "plan", "--status", "missed", "--json").stdout)
    assert [a["id"] for a in listed] == [plan["id"]]
    assert "Herons nest in alder carr." in cli("atoms", "list", "--type", "fact").stdout
    event = json.loads(cli("atoms", "happened", plan["id"], "--when", "2026-12-16T09:00", "--no-wait",
                           "--json").stdout)
    assert event["type"] == "event" and event["when"] == "2026-12-16T09:00:00"
    assert "No atoms." in cli("atoms", "list", "--type", "plan").stdout
    assert f"happened ({event['id']})" in cli("atoms", "list", "--type", "plan", "--include-archived").stdout


def test_bad_atoms_are_one_line_with_exit_2(cli):
    plan = json.loads(cli("atoms", "add", "Ring Ana.", "--type", "plan", "--due", "2026-12-03", "--no-wait",
                          "--json").stdout)
    for args, message in [
        (("atoms", "add", "Ring Ana.", "--type", "plan", "--no-wait"), "a plan atom needs a due date"),
        (("atoms", "add", "Met Ana.", "--type", "event", "--no-wait"), "an event atom needs a time"),
        (("atoms", "add", "Met Ana.", "--type", "event", "--when", "whenever-ish", "--no-wait"), "cannot read"),
        (("atoms", "plan-update", plan["id"], "completed"), "never 'completed'"),
        (("atoms", "plan-update", plan["id"], "paused"), "unknown plan status 'paused'"),
        (("memory", "add", "Met Ana.", "--type", "event", "--no-wait"), "an event needs its time"),
    ]:
        result = cli(*args, ok=False)
        assert result.exit_code == 2 and message in result.output, (args, result.output)
    assert len(json.loads(cli("atoms", "list", "--json").stdout)) == 1
