"""`memory links`, `memory backlinks`, `memory reading-status`, `memory list --reading` and the saved
searches (`search save / list / run / rename / forget`) from the terminal."""

import json


def _json(result):
    return json.loads(result.stdout)


def _add(cli, *args):
    return _json(cli("memory", "add", *args, "--type", "note", "--no-wait", "--json"))["id"]


def test_links_and_backlinks(cli):
    target = _add(cli, "# Varroa\nMites on bees.")
    note = _add(cli, "Read [[varroa|the mite note]] and [[Nosema]].", "--title", "Hive log")
    mention = _add(cli, "Treat the varroa in spring.", "--title", "Spring")
    links = _json(cli("memory", "links", note, "--json"))
    assert [(link["state"], (link["document"] or {}).get("id")) for link in links] == [
        ("resolved", target), ("missing", None)]
    text = cli("memory", "links", note).stdout
    assert "the mite note → Varroa" in text and "missing" in text and "Nosema" in text
    back = _json(cli("memory", "backlinks", target, "--json"))
    assert [m["document"]["id"] for m in back["linked"]] == [note]
    assert [m["document"]["id"] for m in back["unlinked"]] == [mention]
    assert "Linked mentions (1)" in cli("memory", "backlinks", target).stdout
    assert "links to" in cli("memory", "read", note).stdout


def test_reading_status_is_set_shown_and_filtered(cli):
    ref = _json(cli("memory", "add", "Lee A. Bees and mites. J Apic. 2020.", "--type", "reference",
                    "--no-wait", "--json"))["id"]
    note = _add(cli, "A note of mine")
    shown = _json(cli("memory", "reading-status", ref, note, "--json"))
    assert [row["reading_status"] for row in shown] == ["unread", None]
    assert [d["id"] for d in _json(cli("memory", "list", "--reading", "unread", "--json"))] == [ref]
    cli("memory", "reading-status", ref, "--set", "read")
    assert "reading status: read" in cli("memory", "read", ref).stdout
    assert _json(cli("memory", "list", "--reading", "unread", "--json")) == []
    assert cli("memory", "reading-status", ref, "--set", "finished", ok=False).exit_code == 2


def test_saved_searches_round_trip(cli):
    note = _add(cli, "Bee notes", "--tags", "bees")
    cli("search", "save", "Bees", "--tags", "bees", "--type", "note")
    assert cli("search", "save", "Bees", ok=False).exit_code != 0  # taken
    assert [d["id"] for d in _json(cli("search", "run", "Bees", "--json"))] == [note]
    later = _add(cli, "More bees", "--tags", "bees")
    assert [d["id"] for d in _json(cli("search", "run", "Bees", "--json"))] == [later, note]
    assert [d["id"] for d in _json(cli("search", "run", "bees", "--json"))] == [later, note]  # any case
    assert cli("search", "save", "BEES", "--tags", "x", ok=False).exit_code == 2  # taken, up to case
    assert "tags bees" in cli("search", "list").stdout
    cli("search", "rename", "Bees", "Apiary")
    assert [s["name"] for s in _json(cli("search", "list", "--json"))] == ["Apiary"]
    cli("search", "forget", "Apiary")
    assert cli("search", "run", "Apiary", ok=False).exit_code != 0
    assert "No saved searches." in cli("search", "list").stdout


def test_the_link_lists_print_the_brackets_they_name(cli):
    # Rich read "[[links]]" as markup and printed "No []." (found by a new user).
    plain = _add(cli, "No link here.", "--title", "Plain")
    assert "No [[links]]." in cli("memory", "links", plain).output
    _add(cli, "one", "--title", "Twin")
    _add(cli, "two", "--title", "Twin")
    note = _add(cli, "See [[Twin]].", "--title", "Pointer")
    shown = cli("memory", "links", note).output
    assert "[[doc_…|text]]" in shown and "ambiguous, 2 documents titled 'Twin', none chosen" in shown


def test_the_json_listing_carries_every_column_the_app_shows(cli):
    # Found by a new user: `memory list --json` had no reading status (a derived value: not in metadata).
    bib = ("@article{doe2020, author={Doe, Jane and Roe, Rick}, title={Bees and mites}, journal={Apidologie}, "
           "year={2020}, doi={10.1000/bees.1}, pages={1--9}}")
    cli("memory", "add", bib, "--type", "reference", "--no-wait")
    _add(cli, "My own note", "--title", "Note")
    listed = {d["type"]: d for d in _json(cli("memory", "list", "--json"))}
    ref = listed["reference"]
    assert ref["reading_status"] == "unread" and listed["note"]["reading_status"] is None
    assert {k: ref["metadata"][k] for k in ("journal", "doi", "year", "pages")} == {
        "journal": "Apidologie", "doi": "10.1000/bees.1", "year": 2020, "pages": "1--9"}
    assert ref["metadata"]["citation_key"] and ref["metadata"]["authors"] == ["Jane Doe", "Rick Roe"]
    assert _json(cli("memory", "read", ref["id"], "--json"))["reading_status"] == "unread"


def test_memory_edit_title_rewrites_the_links_and_names_the_notes_updated(cli):
    target = json.loads(cli("memory", "add", "Mites.", "--type", "note", "--title", "Varroa", "--no-wait",
                            "--json").stdout)["id"]
    note = json.loads(cli("memory", "add", "See [[Varroa|the mites]].", "--type", "note", "--title", "Reading",
                          "--no-wait", "--json").stdout)["id"]
    printed = cli("memory", "edit", target, "--title", "Varroa mites", "--no-wait").stdout
    assert f"links updated in {note} Reading" in printed
    assert json.loads(cli("memory", "read", note, "--json").stdout)["content"] == "See [[Varroa mites|the mites]]."
    kept = json.loads(cli("memory", "edit", target, "--title", "Mites", "--keep-links", "--no-wait", "--json").stdout)
    assert kept["title"] == "Mites" and kept["links_updated"] == [] and kept["version"] == 3


def test_memory_edit_if_version_refuses_a_document_changed_since_and_writes_nothing(cli):
    note = _add(cli, "First text.")
    cli("memory", "edit", note, "--content", "Changed by someone else.", "--no-wait")  # now version 2
    refused = cli("memory", "edit", note, "--content", "My edit of version 1.", "--if-version", "1", "--no-wait",
                  ok=False)
    assert refused.exit_code == 6 and "changed since version 1 (it is at version 2 now, by user:" in refused.output
    assert "add `--merge` to merge your text with it" in refused.output and "leave out `--if-version`" in refused.output
    renamed = cli("memory", "edit", note, "--title", "Renamed", "--if-version", "1", "--no-wait", ok=False)
    assert renamed.exit_code == 6 and "--merge" not in renamed.output
    assert "read it again, or leave out" in renamed.output
    assert _json(cli("memory", "read", note, "--json"))["content"] == "Changed by someone else."
    done = _json(cli("memory", "edit", note, "--content", "My edit of version 2.", "--if-version", "2",
                     "--no-wait", "--json"))
    assert (done["content"], done["version"]) == ("My edit of version 2.", 3)
