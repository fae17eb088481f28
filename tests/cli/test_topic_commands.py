"""`vancetope topics` (issue 14): the tree shown indented with counts, a topic's atoms and sources, each hand edit
undone by `vancetope undo`, and bad input one line with its exit code."""

import json

from tests.topic_trees import small_tree
from vancetope_desktop.services.library import Library


def _tree(root):
    """:func:`tests.topic_trees.small_tree` in the CLI's library (its root folder)."""
    lib = Library.open(root)
    try:
        return small_tree(lib)
    finally:
        lib.close()


def test_topics_show_edit_and_undo(cli, tmp_path):
    assert "has no topic tree yet" in cli("topics", "show").stdout
    ids = _tree(tmp_path / "lib")
    shown = cli("topics", "show").stdout
    lines = [line for line in shown.splitlines() if line.strip()]
    assert "4 atoms in topics, 1 not placed" in lines[0]
    assert [line[:len(line) - len(line.lstrip())] + line.split()[0] for line in lines[1:]] == [
        "Alders", "Herons", "  Nesting"]
    assert "2/3" in lines[2]
    assert "Nesting" not in cli("topics", "show", "--depth", "1").stdout
    tree = json.loads(cli("topics", "show", "--json").stdout)
    assert tree["root_id"] == ids["root"] and [t["label"] for t in tree["topics"]][1:] == ["Alders", "Herons",
                                                                                          "Nesting"]
    listed = json.loads(cli("topics", "atoms", ids["herons"], "--recursive", "--json").stdout)
    assert [a["id"] for a in listed["atoms"]] == [ids["a0"], ids["a1"], ids["a3"]]
    assert "[fact] Heron chicks fledge after seven weeks." in cli("topics", "atoms", ids["herons"]).stdout

    renamed = json.loads(cli("topics", "rename", ids["herons"], "Grey herons", "--json").stdout)
    assert renamed["label"] == "Grey herons" and renamed["pinned"] == ["label"]
    assert "Rename topic “Herons”" in cli("undo").stdout
    assert json.loads(cli("topics", "show", "--json").stdout)["topics"][2]["label"] == "Herons"
    cli("topics", "move", ids["nesting"], ids["alders"])
    cli("topics", "move-atom", ids["a2"], ids["nesting"])
    made = json.loads(cli("topics", "create", "Winter", "--parent", ids["alders"], "--json").stdout)
    cli("topics", "merge", ids["alders"], made["id"])
    split = json.loads(cli("topics", "split", ids["herons"], "-g", ids["a0"], "-g", ids["a1"], "-l", "Adults",
                           "-l", "Chicks", "--json").stdout)
    assert [t["label"] for t in split] == ["Adults", "Chicks"]
    cli("topics", "delete", split[0]["id"])
    for _ in range(6):  # delete, split, merge, create, move-atom, move: each one step
        cli("undo")
    tree = json.loads(cli("topics", "show", "--json").stdout)
    assert [(t["label"], t["own_atoms"]) for t in tree["topics"]] == [
        ("Default project", 0), ("Alders", 2), ("Herons", 2), ("Nesting", 1)]


def test_bad_topic_edits_are_one_line_with_their_exit_code(cli, tmp_path):
    cli("topics", "show")
    ids = _tree(tmp_path / "lib")
    for args, code, message in [
        (("topics", "rename", ids["root"], "Other"), 2, "is the root"),
        (("topics", "move", ids["herons"], ids["nesting"]), 2, "itself or below it"),
        (("topics", "delete", "doc_nothing"), 3, "no topic doc_nothing"),
        (("topics", "atoms", ids["a0"]), 3, "no topic"),
        (("topics", "split", ids["alders"], "-g", ids["a2"]), 2, "two or more groups"),
    ]:
        result = cli(*args, ok=False)
        assert result.exit_code == code and message in result.output, (args, result.output)


def test_move_atom_says_when_the_atom_is_already_there_and_a_wrong_from_is_a_refusal(cli, tmp_path):
    cli("topics", "show")
    ids = _tree(tmp_path / "lib")
    assert "Moved the atom to" in cli("topics", "move-atom", ids["a2"], ids["nesting"]).stdout
    again = cli("topics", "move-atom", ids["a2"], ids["nesting"]).stdout
    assert "already in" in again and "Moved" not in again
    # a1 is in Herons, not in Alders: a refused edit (2), not an unknown id (3).
    result = cli("topics", "move-atom", ids["a1"], ids["nesting"], "--from", ids["alders"], ok=False)
    assert result.exit_code == 2 and "is not in “Alders”" in result.output
