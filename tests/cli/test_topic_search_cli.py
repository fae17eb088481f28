"""`vancetope topics search` and `memory search --mode` (issue 14): the mode each ran, the atoms with their topic
paths, and a bad mode refused with exit code 2."""

import json

from tests.topic_trees import small_tree
from vancetope_desktop.services.library import Library


def _tree(root):
    lib = Library.open(root)
    try:
        return small_tree(lib)
    finally:
        lib.close()


def test_topics_search_and_memory_search_by_mode(cli, tmp_path):
    cli("memory", "add", "Herons are wading birds of rivers and lakes.", "--type", "note")  # a note: not an atom
    ids = _tree(tmp_path / "lib")
    cli("index", "run")
    # The tree is not consolidated: auto searches flat (the cold start), over atoms only.
    flat = json.loads(cli("topics", "search", "heron chicks fledge", "--json").stdout)
    assert flat["mode"] == "flat" and "cold start" in flat["mode_reason"]
    assert flat["hits"][0]["document"]["id"] == ids["a1"] and flat["hits"][0]["breadcrumbs"] == ["Herons"]
    assert all(h["document"]["type"] == "fact" for h in flat["hits"])
    assert flat["atoms_scored"] == flat["atoms"] >= 5  # the note's own atoms too (read at import)
    # Asked for, the tree is walked: the path, the words that led there, fewer atoms scored.
    tree = json.loads(cli("topics", "search", "heron chicks fledge", "--mode", "tree", "--json").stdout)
    assert tree["mode"] == "tree" and tree["hits"][0]["document"]["id"] == ids["a1"]
    # a1 hangs on Herons, reached through its child Nesting: the path names the leaf, the breadcrumb the atom's topic
    assert tree["paths"][0]["labels"] == ["Herons", "Nesting"] and "heron" in tree["paths"][0]["words"]
    assert tree["hits"][0]["breadcrumbs"] == ["Herons"]
    assert tree["atoms_scored"] < tree["atoms"]
    shown = cli("topics", "search", "heron chicks fledge", "--mode", "tree", "--explain").stdout
    assert "tree search" in shown and "topic path Herons › Nesting" in shown
    # memory search keeps today's behaviour by default (notes too) and takes the same mode.
    everything = json.loads(cli("memory", "search", "wading birds of rivers", "--json").stdout)
    assert everything["mode"] == "flat" and "note" in {h["document"]["type"] for h in everything["hits"]}
    walked = json.loads(cli("memory", "search", "heron chicks fledge", "--mode", "tree", "--json").stdout)
    assert walked["mode"] == "tree" and walked["hits"][0]["breadcrumbs"] == ["Herons"]
    bad = cli("topics", "search", "heron", "--mode", "beam", ok=False)
    assert bad.exit_code == 2 and "auto, tree or flat" in bad.output


def test_the_search_header_says_the_mode_once(cli, tmp_path):
    cli("memory", "add", "Herons are wading birds of rivers and lakes.", "--type", "note")
    _tree(tmp_path / "lib")
    cli("index", "run")
    shown = cli("topics", "search", "heron chicks fledge", "--mode", "tree").stdout
    assert "tree search, as asked, through the tree of" in shown and shown.count("tree search") == 1
