"""`vancetope digest run|show|undo` (issue 13): every pending scope digested once, shown with its change set,
undone in one step; a day to come or unreadable, or a scope that does not exist, is one line with its exit code."""

import json
from datetime import date, timedelta


def test_digest_from_the_terminal(cli):
    cli("memory", "add", "Heron survey notes: met Ana at the reserve.", "--type", "note", "--no-wait")
    runs = json.loads(cli("digest", "run", "--no-wait", "--json").stdout)
    assert [(r["scope"], r["outcome"]) for r in runs] == [("project/inbox", "digested")]
    assert "Nothing to digest" in cli("digest", "run", "--no-wait").stdout
    again = cli("digest", "run", "--scope", "project/inbox", "--no-wait").stdout
    assert "already digested" in again
    shown = cli("digest", "show").stdout
    assert f"Digest — {date.today().isoformat()}" in shown and "added" in shown and "the day's writeup" in shown
    assert "Undo Digest" in cli("digest", "undo", "--no-wait").stdout
    assert "Nothing to undo" in cli("digest", "undo").stdout
    assert "undone" in cli("digest", "show").stdout


def test_bad_days_and_scopes_are_one_line(cli):
    tomorrow = (date.today() + timedelta(days=1)).isoformat()
    for args, code, message in [
        (("digest", "run", "--scope", "project/inbox", "--day", tomorrow), 2, "is in the future"),
        (("digest", "run", "--day", "last blue moon"), 2, "cannot read the day"),
        (("digest", "run", "--scope", "project/nowhere"), 3, "nowhere"),
        (("digest", "show", "--day", "2020-01-01"), 3, "no digest of project/inbox on 2020-01-01"),
    ]:
        result = cli(*args, ok=False)
        assert result.exit_code == code and message in result.output, (args, result.output)
