"""`vancetope topics rebuild` (issue 14): the digest's upkeep of a scope's tree on request, its change lines, one
undo step, and a rerun that changes nothing."""

import json

from vancetope_desktop.services import atoms
from vancetope_desktop.services.library import DEFAULT_PROJECT, Library


def test_topics_rebuild_builds_reruns_and_undoes(cli, tmp_path):
    cli("topics", "show")  # makes the library
    lib = Library.open(tmp_path / "lib")
    try:
        for text in ("Grey herons nest in alder carr.", "Heron chicks fledge late in June.",
                     "The GPU node has eight A100 cards."):
            atoms.store_atom(lib, atoms.draft_atom("fact", text), scope=DEFAULT_PROJECT)
    finally:
        lib.close()

    shown = cli("topics", "rebuild").stdout
    assert f"the topic tree of {DEFAULT_PROJECT} rebuilt" in shown and "3 atoms attached" in shown
    assert "3 atoms in topics, 0 not placed" in cli("topics", "show").stdout
    again = json.loads(cli("topics", "rebuild", "--json").stdout)
    assert again["changes"] == [] and again["message"].endswith("up to date")
    assert f"Undo Topics of {DEFAULT_PROJECT}" in cli("undo").stdout
    assert "has no topic tree yet" in cli("topics", "show").stdout
