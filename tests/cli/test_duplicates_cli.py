"""`memory duplicates` (list, merge, per-group failures), and `memory upload` on a file or folder already there."""

import json


def _add(cli, text, title):
    return json.loads(cli("memory", "add", text, "--type", "note", "--title", title, "--no-wait", "--json").stdout)


def test_duplicates_are_listed_with_why_and_merged_into_the_chosen_document(cli):
    first = _add(cli, "Coral bleaches at 31 degrees.", "Coral")
    second = _add(cli, "Coral bleaches at 31 degrees.", "Coral (copy)")
    _add(cli, "Something else entirely.", "Other")

    listing = cli("memory", "duplicates").stdout
    assert "1. same text" in listing and f"keep {first['id']}" in listing and second["id"] in listing
    groups = json.loads(cli("memory", "duplicates", "--json").stdout)
    assert [[d["id"] for d in g["documents"]] for g in groups] == [[first["id"], second["id"]]]

    merged = cli("memory", "duplicates", "--merge", "--keep", second["id"], "--no-wait").stdout
    assert f"merged {first['id']} into {second['id']}" in merged
    trashed = json.loads(cli("memory", "list", "--status", "deleted", "--json").stdout)
    assert [d["id"] for d in trashed] == [first["id"]]
    assert "No likely duplicates." in cli("memory", "duplicates").stdout


def test_an_unknown_group_or_survivor_is_refused(cli):
    _add(cli, "same", "A")
    _add(cli, "same", "B")
    result = cli("memory", "duplicates", "--merge", "--group", "3", ok=False)
    assert result.exit_code == 2 and "no group 3: there are 1" in result.output
    result = cli("memory", "duplicates", "--merge", "--keep", "doc_elsewhere", ok=False)
    assert result.exit_code == 2 and "--keep doc_elsewhere: not in the groups to merge" in result.output


def test_upload_says_a_file_is_already_there_and_merges_a_folder_named_like_one_there(cli, tmp_path):
    for place, name in (("a", "Papers"), ("b", "papers")):
        (tmp_path / place / name).mkdir(parents=True)
        (tmp_path / place / name / "one.md").write_text("# One\n\nfirst", encoding="utf-8")
    (tmp_path / "b" / "papers" / "two.md").write_text("# Two\n\nsecond", encoding="utf-8")
    first = json.loads(cli("memory", "upload", str(tmp_path / "a" / "Papers"), "--no-wait", "--json").stdout)
    again = " ".join(cli("memory", "upload", str(tmp_path / "b" / "papers"), "--no-wait").stdout.split())
    assert f"already in your library: One ({first['outcomes'][0]['document_id']})" in again
    assert "papers: merged into the existing folder Papers" in again
    assert "(--keep-both-folders keeps a folder of its own)" in again
    folders = [d["title"] for d in json.loads(cli("memory", "list", "--type", "folder", "--json").stdout)]
    assert folders == ["Papers"]


def test_only_a_folder_merge_is_told_how_to_keep_both():
    # The hint trailed every notice ("Atoms read: 2 atoms from 1 document (--keep-both-folders …)").
    from vancetope_desktop.cli import render
    from vancetope_desktop.cli.context import out
    from vancetope_desktop.services.imports import ImportReport

    report = ImportReport(notices=["Atoms read: 2 atoms from 1 document",
                                   "papers: merged into the existing folder Papers (doc_1)"])
    with out.capture() as captured:
        render.import_report(report)
    lines = [line for line in captured.get().splitlines() if "note" in line]
    assert lines[0].endswith("Atoms read: 2 atoms from 1 document")
    assert lines[1].endswith("Papers (doc_1) (--keep-both-folders keeps a folder of its own)")
