"""``vancetope memory profile`` and ``memory read`` (issue 13): a note's summary, keywords and suggested topics."""

import json

from vancetope_desktop.core.profiles import PROFILE_KEY
from vancetope_desktop.services.library import Library
from vancetope_desktop.store import tables
from vancetope_desktop.store.db import write_session

NOTE = ("Heron survey. We counted herons at the reserve on three mornings. The heron survey found 14 grey herons "
        "and two egrets; the heron survey repeats in spring.")


def test_memory_read_shows_a_profile_and_memory_profile_makes_missing_ones(cli, tmp_path):
    doc_id = json.loads(cli("memory", "add", NOTE, "--type", "note", "--no-wait", "--json").output)["id"]
    shown = cli("memory", "read", doc_id).output
    assert "summary: We counted herons at the reserve" in shown and "suggested topics: heron-survey" in shown
    as_json = json.loads(cli("memory", "read", doc_id, "--json").output)
    assert as_json["metadata"][PROFILE_KEY]["from_version"] == 1

    with Library.open(tmp_path / "lib") as lib, write_session(lib.engine) as session:  # an older library's note
        row = session.get(tables.DocumentRow, doc_id)
        row.meta = {k: v for k, v in row.meta.items() if k != PROFILE_KEY}
        session.add(row)
    assert "summary:" not in cli("memory", "read", doc_id).output
    made = cli("memory", "profile", "--missing").output
    assert "made Heron survey" in made and "1 profile made" in made
    assert "summary:" in cli("memory", "read", doc_id).output
    again = json.loads(cli("memory", "profile", "--missing", "--json").output)
    assert again["outcomes"] == [] and again["summary"] == "0 profiles made"
    assert cli("memory", "profile", ok=False).exit_code == 2  # neither ids nor --missing
