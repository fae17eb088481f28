"""The `vancetope` command in-process (typer's runner): every seed §6.1 operation, JSON output, exit codes."""

import json


def as_json(result):
    return json.loads(result.stdout)


def test_add_search_list_tag_read_versions(cli):
    added = as_json(cli("memory", "add", "Deadline is June 15th", "--tags", "admin,#Deadlines", "--json"))
    assert added["id"].startswith("doc_") and added["tags"] == ["admin", "deadlines"]
    assert added["index_state"] == "indexed"
    hits = as_json(cli("memory", "search", "when is the due date", "--json"))["hits"]
    assert hits[0]["document"]["id"] == added["id"]
    listed = as_json(cli("memory", "list", "--tags", "admin", "--json"))
    assert [d["id"] for d in listed] == [added["id"]]
    tagged = as_json(cli("memory", "tag", added["id"], "--add", "important", "--remove", "admin", "--json"))
    assert tagged["tags"] == ["deadlines", "important"]
    repeated = as_json(cli("memory", "tag", added["id"], "--add", "jit,topic/a", "--add", "b", "--json"))
    assert repeated["tags"] == ["b", "deadlines", "important", "jit", "topic/a"]  # every --add, not the last one
    versions = as_json(cli("memory", "versions", added["id"], "--json"))
    assert versions[0]["tags"] == ["admin", "deadlines"]
    assert "Deadline is June 15th" in cli("memory", "read", added["id"]).stdout


def test_search_explains_each_hit_in_json_and_text(cli):
    wanted = as_json(cli("memory", "add", "Honeybee colonies collapse when varroa mites spread viruses.", "--json"))
    cli("memory", "add", "The Andromeda galaxy will merge with the Milky Way.")
    data = as_json(cli("memory", "search", '"varroa mites" in bee hives', "--json"))
    hit = data["hits"][0]
    assert hit["document"]["id"] == wanted["id"] and len(data["hits"]) == 1
    assert "content" not in hit["document"]  # the passages carry the text; a paper's whole content weighed 165 KB
    assert hit["matched"] == ["varroa mites"] and hit["unmatched"] == ["bee", "hives"]
    assert hit["passages"][0]["matched"] == ["varroa mites"] and hit["keyword"] > 0 and hit["meaning"] > 0
    assert "scope weight" in hit["explanation"] and hit["relevance"] <= 1
    text = cli("memory", "search", '"varroa mites" in bee hives', "--explain").stdout
    assert "matched varroa mites" in text and "not found: bee, hives" in text and "scope weight" in text


def test_scopes_and_promotion(cli):
    cli("scope", "create", "session", "sess_7", "--parent", "project/inbox")
    cli("scope", "create", "think-process", "tp_12", "--parent", "session/sess_7", "--name", "Hypothesis Check")
    cli("scope", "use", "think-process/tp_12")
    scopes = as_json(cli("scope", "list", "--json"))
    assert scopes["current"] == "think-process/tp_12"
    doc = as_json(cli("memory", "add", "Hypothesis 1 holds under restriction X", "--type", "result", "--json"))
    assert doc["scope"] == "think-process/tp_12"
    moved = as_json(cli("memory", "promote", doc["id"], "--to", "project", "--json"))
    assert moved["moved"][0]["scope"] == "project/inbox"
    assert moved["gains"] == ["project/inbox", "session/sess_7"] and moved["loses"] == []
    back = as_json(cli("memory", "demote", doc["id"], "--to", "think-process/tp_12", "--json"))
    assert back["moved"][0]["scope"] == "think-process/tp_12"
    assert back["loses"] == ["project/inbox", "session/sess_7"]


def test_seed_one_command_for_two_tags(cli):
    a = as_json(cli("memory", "add", "paper a", "--tags", "attention,efficiency", "--json"))["id"]
    cli("memory", "add", "paper b", "--tags", "attention", "--json")
    listed = as_json(cli("memory", "list", "--tags", "attention,efficiency", "--json"))
    assert [d["id"] for d in listed] == [a]
    listed = as_json(cli("memory", "list", "--where", "#attention and not #efficiency", "--json"))
    assert len(listed) == 1 and listed[0]["id"] != a


def test_errors_exit_non_zero_with_one_line(cli):
    result = cli("memory", "read", "doc_missing", ok=False)
    assert result.exit_code == 3 and "no document doc_missing" in result.stderr
    result = cli("scope", "use", "nonsense", ok=False)
    assert result.exit_code == 2
    result = cli("memory", "list", "--where", "(#a", ok=False)
    assert result.exit_code == 2 and "missing ')'" in result.stderr


def test_folders_browse_move_delete_restore(cli):
    folder = as_json(cli("memory", "mkdir", "Papers", "--json"))["id"]
    doc = as_json(cli("memory", "add", "a note", "--type", "note", "--json"))["id"]
    cli("memory", "move", doc, "--folder", folder)
    tree = cli("memory", "browse").stdout
    assert "Papers" in tree and "a note" in tree
    cli("memory", "delete", folder)
    assert as_json(cli("memory", "list", "--json")) == []
    cli("memory", "restore", folder)
    assert len(as_json(cli("memory", "list", "--json"))) == 2
    status = as_json(cli("index", "status", "--json"))
    assert status["states"]["indexed"] == 1 and status["queued_jobs"] == 0


def test_scope_option_enforces_visibility(cli):
    cli("scope", "create", "session", "s1", "--parent", "project/inbox")
    cli("scope", "create", "think-process", "tp_a", "--parent", "session/s1")
    cli("scope", "create", "think-process", "tp_b", "--parent", "session/s1")
    doc = as_json(cli("memory", "add", "private to a", "--scope", "think-process/tp_a", "--json", "--no-wait"))["id"]
    result = cli("memory", "read", doc, "--scope", "think-process/tp_b", ok=False)
    assert result.exit_code == 4 and "cannot read" in result.stderr and "not a sibling" in result.stderr
    result = cli("memory", "tag", doc, "--add", "x", "--scope", "think-process/tp_b", ok=False)
    assert result.exit_code == 4
    assert "private to a" in cli("memory", "read", doc, "--scope", "think-process/tp_a").stdout
    listed = as_json(cli("memory", "list", "--scope", "think-process/tp_b", "--json"))
    assert doc not in [d["id"] for d in listed]


def test_current_scope_is_the_acting_scope_and_moves_have_a_direction(cli):
    cli("scope", "create", "session", "s1", "--parent", "project/inbox")
    cli("scope", "create", "think-process", "tp_a", "--parent", "session/s1")
    cli("scope", "create", "think-process", "tp_b", "--parent", "session/s1")
    cli("scope", "use", "think-process/tp_b")
    doc = as_json(cli("memory", "add", "b's private result", "--json", "--no-wait"))["id"]
    cli("scope", "use", "think-process/tp_a")
    assert cli("memory", "read", doc, ok=False).exit_code == 4
    assert cli("memory", "tag", doc, "--add", "leaked", ok=False).exit_code == 4
    assert cli("memory", "promote", doc, "--to", "project", ok=False).exit_code == 4
    cli("scope", "use", "think-process/tp_b")
    result = cli("memory", "demote", doc, "--to", "project/inbox", ok=False)
    assert result.exit_code == 2 and "promotion, not a demotion" in result.stderr
    cli("memory", "promote", doc, "--to", "session")
    cli("scope", "use", "session/s1")
    result = cli("memory", "promote", doc, "--to", "think-process/tp_a", ok=False)
    assert result.exit_code == 2 and "demotion, not a promotion" in result.stderr


def test_empty_query_is_bad_input(cli):
    result = cli("memory", "search", "  ", ok=False)
    assert result.exit_code == 2 and "query is empty" in result.stderr


def test_pasted_bibtex_and_an_uploaded_bibliography_become_references(cli, tmp_path):
    pasted = ("@article{a1, title={Tundra fires}, author={Roe, Ann}, year=2001, keywords={fire; arctic}}\n"
              "@article{a2, title={Taiga soils}, author={Poe, Bo}, year=2002}\n")
    added = as_json(cli("memory", "add", pasted, "--type", "reference", "--no-wait", "--json"))
    assert [e["status"] for e in added["entries"]] == ["imported", "imported"]
    assert added["summary"] == "2 references from pasted text"
    human = cli("memory", "add", pasted, "--type", "reference", "--no-wait").stdout
    assert "0 references from pasted text (2 duplicates skipped (already there))" in human
    bib = tmp_path / "more.bib"
    bib.write_text(pasted + "@book{a3, title={Permafrost}, author={{Polar Institute of Science and Law}}, year=1999,"
                   " file={:missing.pdf:PDF}}\n", encoding="utf-8")
    uploaded = cli("memory", "upload", str(bib), "--no-wait").stdout
    assert "1 reference from more.bib into folder “more” (2 duplicates merged into existing references, 1 " \
        "attachments not found" in uploaded
    assert "attachment missing: missing.pdf" in uploaded
    references = as_json(cli("memory", "list", "--type", "reference", "--json"))
    assert sorted(r["title"] for r in references) == ["Permafrost", "Taiga soils", "Tundra fires"]
    permafrost = next(r for r in references if r["title"] == "Permafrost")
    shown = cli("memory", "read", permafrost["id"]).stdout
    assert "authors: Polar Institute of Science and Law" in shown and "listed in: more" in shown


def test_an_uploaded_bibliography_is_searchable_by_meaning_when_the_upload_returns(cli, tmp_path):
    # The upload embedded the files it was given but not the references a .bib became: 504 references
    # stayed pending until `index run`.
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{b1, title={Wildfire smoke and asthma in children}, author={Roe, Ann}, year=2011}\n"
                   "@article{b2, title={Glacier retreat in the Alps}, author={Poe, Bo}, year=2015}\n", encoding="utf-8")
    cli("memory", "upload", str(bib))
    assert "pending" not in as_json(cli("index", "status", "--json"))["states"]
    hit = as_json(cli("memory", "search", "children breathing problems from forest fires", "--json"))["hits"][0]
    assert hit["document"]["title"] == "Wildfire smoke and asthma in children" and hit["meaning"] is not None


def test_a_search_says_how_it_searched_only_when_it_walked_a_tree_or_is_asked(cli):
    cli("memory", "add", "Honeybee colonies collapse when varroa mites spread viruses.", "--type", "note")
    assert "atoms scored" not in cli("memory", "search", "varroa mites").stdout  # no atom anywhere: nothing to say
    assert "0 of 0 atoms scored" in cli("memory", "search", "varroa mites", "--explain").stdout
    cli("memory", "add", "The Andromeda galaxy will merge with the Milky Way.")  # a fact: an atom
    # A flat search over atoms is the ordinary search: nothing to say unless asked.
    assert "atoms scored" not in cli("memory", "search", "varroa mites").stdout
    explained = cli("memory", "search", "varroa mites", "--explain").stdout
    assert "no topic tree yet" in explained and "of 1 atoms scored" in explained
