"""The window's topic edits (issue 14): the Workbench methods the Topics pane calls run each hand edit on the write
lane as one undo step named after its topic, which Edit ▸ Undo takes back."""

from __future__ import annotations

from tests.topic_trees import small_tree
from vancetope_desktop.services import topics
from vancetope_desktop.services.library import DEFAULT_PROJECT

WAIT = 15_000


def test_topic_edits_from_the_window_are_undone_by_edit_undo(qtbot, library, make_window):
    ids = small_tree(library)
    window = make_window(library, DEFAULT_PROJECT)
    undo_action = window.undo_actions.undo_action

    def label(topic_id):
        found = topics.get_tree(library, DEFAULT_PROJECT).get(topic_id)
        return found.label if found else None

    window.workbench.rename_topic(ids["herons"], "Grey herons")
    qtbot.waitUntil(lambda: undo_action.text() == "Undo Rename topic “Herons”", timeout=WAIT)
    assert label(ids["herons"]) == "Grey herons"
    window.workbench.move_atoms_to_topic([ids["a2"]], ids["nesting"], ids["alders"])
    qtbot.waitUntil(lambda: undo_action.text() == "Undo Move atom to topic “Nesting”", timeout=WAIT)
    assert topics.atom_paths(library, [ids["a2"]])[ids["a2"]] == [["Grey herons", "Nesting"]]
    window.workbench.delete_topic(ids["alders"])
    qtbot.waitUntil(lambda: label(ids["alders"]) is None, timeout=WAIT)
    qtbot.waitUntil(lambda: undo_action.text() == "Undo Delete topic “Alders”", timeout=WAIT)
    for step in ("Move atom to topic “Nesting”", "Rename topic “Herons”", None):
        undo_action.trigger()
        qtbot.waitUntil(lambda s=step: undo_action.text() == (f"Undo {s}" if s else "Undo"), timeout=WAIT)
    qtbot.waitUntil(lambda: label(ids["herons"]) == "Herons", timeout=WAIT)
    assert label(ids["alders"]) == "Alders"
    assert topics.atom_paths(library, [ids["a2"]])[ids["a2"]] == [["Alders"]]
