"""`vancetope atoms extract DOC…` and `atoms files-setting` (issue 13): a progress line per document on stderr, a
summary, --json; a second run adds nothing; a non-source is said; an uploaded note gets its atoms at import (said
in the report), a text file not (the scope's setting is off by default); the setting is shown and set."""

import json


def test_extract_from_the_terminal(cli, tmp_path):
    # ~5 s idle (9 s at load 8): the upload starts its extraction worker process, as `memory upload` does.
    note = tmp_path / "survey.md"
    note.write_text("# Survey\n\n## Site\n\nHerons nest in alder carr.\n\n## Plan\n\nWe will submit the survey report "
                    "by 15 December 2026.\n", encoding="utf-8")  # two sections: a note of one chunk gives no facts
    log = tmp_path / "log.txt"
    # a file of several chunks (one of a single chunk gives no facts): 40 statements
    log.write_text(" ".join(f"Egret {n} roosts in the willows near the pond." for n in range(40)), encoding="utf-8")
    uploaded = json.loads(cli("memory", "upload", str(note), str(log), "--no-wait", "--json").stdout)
    assert uploaded["atoms"]["outcomes"][0]["title"] == "Survey"  # the note read at import, the text file not
    assert [len(o["added"]) for o in uploaded["atoms"]["outcomes"]] == [2]
    assert any(n.startswith("Atoms read: 2 atoms from 1 document") for n in uploaded["notices"])
    note_id, log_id = (o["document_id"] for o in uploaded["outcomes"])

    result = cli("atoms", "extract", note_id, log_id, "--no-wait")
    assert "reading atoms 1/2" in result.stderr and "reading atoms 2/2" in result.stderr
    assert "40 atoms from 1 document; 1 had none new" in result.stdout  # the log's statements; the note's known
    again = json.loads(cli("atoms", "extract", note_id, log_id, "--no-wait", "--json").stdout)
    assert again["summary"] == "0 atoms from 0 documents; 2 had none new"

    atom_id = uploaded["atoms"]["outcomes"][0]["added"][0]
    refused = cli("atoms", "extract", atom_id, "doc_000000000000", "--no-wait", ok=False)
    assert refused.exit_code == 0 and "no document" in refused.stdout.lower()
    assert "skipped: it is an atom (a fact): atoms are read from sources" in refused.stdout

    added = cli("memory", "add", "## Otters\n\nOtters fish at dawn.\n\n## Bridge\n\nThey den under the bridge.",
                "--type", "note", "--no-wait")
    assert "2 atoms read from it" in added.stdout

    assert "off (the default)" in cli("atoms", "files-setting").stdout
    assert json.loads(cli("atoms", "files-setting", "on", "--json").stdout)["enabled"] is True  # imports: the
    assert "on (set here)" in cli("atoms", "files-setting").stdout  # service tests (a PDF read only where on)
    assert "off (the default)" in cli("atoms", "files-setting", "inherit").stdout
    assert cli("atoms", "files-setting", "maybe", ok=False).exit_code == 2
