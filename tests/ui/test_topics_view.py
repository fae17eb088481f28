"""The Topics window (issue 14): the tree models pass the model tester, a topic's atoms and sources are listed when it
is selected, atoms dragged onto another topic move there (and Edit ▸ Undo takes them back), renaming and merging
through the window reach the store, ancestors' trees are shown read-only, an empty scope says what builds its tree,
and the topic map drills down by a click and back up by its breadcrumb."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, QModelIndex, QPoint, QPointF, Qt
from PySide6.QtGui import QDropEvent, QHelpEvent
from PySide6.QtWidgets import QApplication, QToolTip

from tests.library_copies import build_template
from tests.topic_trees import FACTS, small_tree, tree_copy
from vancetope_desktop.core.atoms import AtomDraft, SourceSpan
from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.services import atoms, documents, review, scopes, topics
from vancetope_desktop.services.library import DEFAULT_PROJECT
from vancetope_desktop.ui.dnd import ATOM_MIME, FROM_TOPIC_MIME, decode_document_ids, encode_document_ids
from vancetope_desktop.ui.request_dialog import RequestPromotionDialog
from vancetope_desktop.ui.topic_model import (
    TOPIC_ROLE,
    TopicAtomsModel,
    TopicFilterProxy,
    TopicSourcesModel,
    TopicTreeModel,
)

WAIT_MS = 20_000
P = DEFAULT_PROJECT
NOTE = "Egrets wade in shallow water. Herons stand still for minutes before they strike."
READ = "Herons stand still for minutes before they strike."


def _build(library, scope: str = P) -> dict[str, str]:
    """:func:`tests.topic_trees.small_tree` (root → Herons (a0, a1) → Nesting (a3); root → Alders (a2, a0); a4 in no
    topic), and an atom ``s0`` read from the note ``source`` (a span, no page) put in Herons: Herons holds 3 atoms
    of its own and 4 with Nesting's."""
    ids = small_tree(library, scope)
    source = documents.add_text(library, NOTE, doc_type=DocumentType.NOTE, title="Heron notes", scope=scope)
    read = atoms.store_atoms(library, [AtomDraft(type="fact", text=READ, span=SourceSpan(
        start=NOTE.index(READ), end=NOTE.index(READ) + len(READ)))], source.id, scope=scope)[0]
    topics.move_atom(library, read.id, ids["herons"])
    return {**ids, "s0": read.id, "source": source.id}


def _session_tree(library) -> tuple[str, dict[str, str]]:
    """A session "s1" under the project with its own small tree (:func:`_build`): its path and the tree's ids."""
    session = scopes.create_scope(library, "session", "s1", parent=P, name="Session one").path
    return session, _build(library, session)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_template(tmp_path_factory, _build)


@pytest.fixture
def tree(built, tmp_path):
    """(library, ids) of :func:`_build` in :data:`P`: a copy of the module's :func:`built`."""
    yield from tree_copy(built, tmp_path)


def _listed(dialog) -> list[str]:
    return [dialog.atoms_model.item_at(r).id for r in range(dialog.atoms_model.rowCount())]


def _label_of(lib, topic_id):
    return documents.get_document(lib, topic_id).title


def test_the_topic_models_pass_the_model_tester(qtmodeltester, tree):
    library, ids = tree
    session, child = _session_tree(library)
    topics.rename_topic(library, child["nesting"], "Egrets")
    model = TopicTreeModel()
    qtmodeltester.check(model)
    trees = [topics.get_tree(library, session), topics.get_tree(library, P)]
    model.set_trees(trees, session, {session: "Session one", P: "Inbox"})
    qtmodeltester.check(model)
    roots = [model.index(r, 0) for r in range(model.rowCount())]
    assert [r.data() for r in roots] == ["Session one", "Inbox"]  # the window's scope's tree first
    herons = model.index_for(ids["herons"])
    assert [model.index(herons.row(), c, herons.parent()).data() for c in range(3)] == ["Herons", "3", "4"]
    assert model.topic(herons).path == ["Herons"] and model.is_inherited(ids["herons"])
    assert not model.flags(herons) & Qt.ItemFlag.ItemIsEditable  # an ancestor's tree: read-only here
    own = model.index_for(child["herons"])
    assert model.flags(own) & Qt.ItemFlag.ItemIsEditable and model.flags(own) & Qt.ItemFlag.ItemIsDragEnabled
    assert not model.flags(roots[0]) & Qt.ItemFlag.ItemIsEditable  # the root is named after its scope
    assert "read-only" in model.data(herons, Qt.ItemDataRole.ToolTipRole)

    proxy = TopicFilterProxy(model)
    qtmodeltester.check(proxy)
    proxy.setFilterFixedString("egret")  # Egrets, with Herons and the root to reach it
    assert proxy.rowCount() == 1 and proxy.index(0, 0).data() == "Session one"
    assert proxy.index(0, 0, proxy.index(0, 0)).data(TOPIC_ROLE) == child["herons"]
    proxy.setFilterFixedString("NEST")  # a surface word of Herons, any case (and Nesting's label): both trees
    assert proxy.rowCount() == 2

    listed = TopicAtomsModel()
    qtmodeltester.check(listed)
    listed.set_topic(ids["herons"], topics.topic_atoms(library, ids["herons"], recursive=True),
                     {ids["a0"], ids["a1"], ids["s0"]}, draggable=True)
    qtmodeltester.check(listed)
    row = listed.row_of(ids["s0"])
    assert [listed.index(row, c).data() for c in range(4)] == ["Fact", READ, "Heron notes", ""]  # a note: no pages
    sources = TopicSourcesModel()
    sources.set_items(topics.topic_sources(library, ids["herons"]))
    qtmodeltester.check(sources)
    assert [sources.index(0, c).data() for c in range(2)] == ["Heron notes", "1"]  # the others have no source


def test_dragged_atoms_drop_on_another_topic_of_the_own_tree_only(tree):
    library, ids = tree
    session, child = _session_tree(library)
    model = TopicTreeModel()
    model.set_trees([topics.get_tree(library, session), topics.get_tree(library, P)], session)
    listed = TopicAtomsModel()
    listed.set_topic(child["herons"], topics.topic_atoms(library, child["herons"], recursive=True),
                     {child["a0"], child["a1"], child["s0"]}, draggable=True)
    mime = listed.mimeData([listed.index(listed.row_of(child["a1"]), 0)])
    assert decode_document_ids(mime, ATOM_MIME) == [child["a1"]]
    assert decode_document_ids(mime, FROM_TOPIC_MIME) == [child["herons"]]
    both = [listed.index(listed.row_of(child[a]), 0) for a in ("a1", "a3")]  # a3 is Nesting's: out of every topic
    nested = listed.mimeData(both)
    assert decode_document_ids(nested, ATOM_MIME) == [child["a1"], child["a3"]]
    assert decode_document_ids(nested, FROM_TOPIC_MIME) == []
    move = Qt.DropAction.MoveAction
    assert model.canDropMimeData(mime, move, -1, -1, model.index_for(child["alders"]))
    assert not model.canDropMimeData(mime, move, -1, -1, model.index_for(child["herons"]))  # where they are
    assert not model.canDropMimeData(mime, move, -1, -1, model.index_for(child["root"]))
    assert not model.canDropMimeData(mime, move, -1, -1, model.index_for(ids["alders"]))  # the ancestor's tree
    assert "ancestor scope" in model.drop_refusal(mime, model.index_for(ids["alders"]))
    topic_mime = model.mimeData([model.index_for(child["herons"])])
    assert not model.canDropMimeData(topic_mime, move, -1, -1, model.index_for(child["nesting"]))  # below itself
    assert model.canDropMimeData(topic_mime, move, -1, -1, model.index_for(child["alders"]))
    listed.set_topic(ids["herons"], [], set(), draggable=False)
    assert not listed.flags(listed.index(0, 0)) & Qt.ItemFlag.ItemIsDragEnabled


def _open(qtbot, window, ids, topic="herons"):
    dialog = window.show_topics()
    qtbot.waitUntil(lambda: dialog.tree_model.rowCount() > 0, timeout=WAIT_MS)
    with qtbot.waitSignal(dialog.topic_shown, timeout=WAIT_MS):
        assert dialog.select_topic(ids[topic])
    return dialog


def test_selecting_a_topic_lists_its_atoms_and_sources_and_opens_a_source(qtbot, tree, make_window):
    library, ids = tree
    window = make_window(library, scope=P)
    assert window.topics_action.text() == "Topics…"
    dialog = _open(qtbot, window, ids)
    assert set(_listed(dialog)) == {ids["a0"], ids["a1"], ids["s0"], ids["a3"]}  # with Nesting's, below it
    assert dialog.atoms_model.own_ids == {ids["a0"], ids["a1"], ids["s0"]}
    assert dialog.sources_model.rowCount() == 1 and "Herons" in dialog.heading.text()
    assert "4 atoms in it and its 1 subtopic (3 in the topic itself)" in dialog.heading.text()
    assert "heron, nest" in dialog.heading.text()
    assert dialog.update_button.isVisibleTo(dialog) and dialog.update_button.text() == "Place 1 New Atom"  # a4
    with qtbot.waitSignal(dialog.open_requested, timeout=WAIT_MS) as opened:
        dialog.open_atom(dialog.atoms_model.row_of(ids["s0"]))
    assert opened.args == [ids["source"], -1, READ]
    qtbot.waitUntil(lambda: window.current_viewer() is not None
                    and window.current_viewer().current_document_id() == ids["source"], timeout=WAIT_MS)


def test_an_atom_dropped_on_another_topic_moves_there_and_undo_takes_it_back(qtbot, tree, make_window):
    library, ids = tree
    window = make_window(library, scope=P)
    dialog = _open(qtbot, window, ids)
    row = dialog.atoms_model.row_of(ids["a1"])
    mime = dialog.atoms_model.mimeData([dialog.atoms_model.index(row, 0)])  # what a drag of its row carries
    target = dialog.proxy.mapFromSource(dialog.tree_model.index_for(ids["alders"]))
    assert dialog.proxy.dropMimeData(mime, Qt.DropAction.MoveAction, -1, -1, target)  # what the view's drop does

    def in_alders() -> bool:
        return ids["a1"] in [a.id for a in topics.topic_atoms(library, ids["alders"])]

    qtbot.waitUntil(in_alders, timeout=WAIT_MS)
    assert ids["a1"] not in [a.id for a in topics.topic_atoms(library, ids["herons"])]
    qtbot.waitUntil(lambda: dialog.atoms_model.rowCount() == 3, timeout=WAIT_MS)  # the list follows
    qtbot.waitUntil(lambda: window.undo_actions.undo_action.text() == "Undo Move atom to topic “Alders”",
                    timeout=WAIT_MS)
    window.undo_actions.undo_action.trigger()
    qtbot.waitUntil(lambda: not in_alders(), timeout=WAIT_MS)
    assert ids["a1"] in [a.id for a in topics.topic_atoms(library, ids["herons"])]
    qtbot.waitUntil(lambda: dialog.atoms_model.rowCount() == 4, timeout=WAIT_MS)


def test_rename_in_place_and_merge_through_the_window(qtbot, tree, make_window, monkeypatch):
    library, ids = tree
    window = make_window(library, scope=P)
    dialog = _open(qtbot, window, ids)
    index = dialog.view.currentIndex()
    assert dialog.rename_action.isEnabled() and index.data(TOPIC_ROLE) == ids["herons"]
    assert dialog.proxy.setData(index, "Wading birds")  # what the editor opened by F2 commits
    qtbot.waitUntil(lambda: _label_of(library, ids["herons"]) == "Wading birds", timeout=WAIT_MS)
    assert "label" in topics.get_tree(library, P).get(ids["herons"]).pinned
    qtbot.waitUntil(lambda: dialog.tree_model.topic_by_id(ids["herons"]).label == "Wading birds", timeout=WAIT_MS)

    selection = dialog.view.selectionModel()
    for name in ("herons", "alders"):
        shown = dialog.proxy.mapFromSource(dialog.tree_model.index_for(ids[name]))
        selection.select(shown, selection.SelectionFlag.Select | selection.SelectionFlag.Rows)
    assert dialog.merge_action.isEnabled()
    monkeypatch.setattr("vancetope_desktop.ui.topics_view.QInputDialog.getItem",
                        lambda *args, **kwargs: ("Wading birds", True))
    dialog.merge_action.trigger()
    qtbot.waitUntil(lambda: topics.get_tree(library, P).get(ids["alders"]) is None, timeout=WAIT_MS)
    assert {a.id for a in topics.topic_atoms(library, ids["herons"])} == {ids[a] for a in ("a0", "a1", "a2", "s0")}
    qtbot.waitUntil(lambda: not dialog.tree_model.index_for(ids["alders"]).isValid(), timeout=WAIT_MS)

    with qtbot.waitSignal(dialog.topic_shown, timeout=WAIT_MS):
        dialog.select_topic(ids["nesting"])
    dialog.view.setFocus()
    qtbot.keyClick(dialog.view, Qt.Key.Key_Delete)  # its atom goes to its parent
    qtbot.waitUntil(lambda: topics.get_tree(library, P).get(ids["nesting"]) is None, timeout=WAIT_MS)
    assert ids["a3"] in {a.id for a in topics.topic_atoms(library, ids["herons"])}


def test_changes_coming_faster_than_the_tree_is_read_read_it_once_more_not_each_time(qtbot, tree, make_window,
                                                                                      monkeypatch):
    library, ids = tree
    window = make_window(library, scope=P)
    dialog = _open(qtbot, window, ids)
    window.workbench.snapshot_ready.disconnect(dialog._follow)  # only the reloads below ask
    qtbot.waitUntil(lambda: not dialog._reading, timeout=WAIT_MS)  # the opening's reads are over
    reads, read = [], topics.visible_trees
    monkeypatch.setattr(topics, "visible_trees", lambda *args, **kwargs: reads.append(1) or read(*args, **kwargs))
    for _ in range(4):  # an import's snapshots, every few seconds, while a big tree is counted
        dialog.reload()
    qtbot.waitUntil(lambda: not dialog._reading and len(reads) == 2, timeout=WAIT_MS)
    qtbot.wait(200)
    assert len(reads) == 2 and dialog.current_topic().id == ids["herons"]


def test_split_the_selected_atoms_from_the_others(qtbot, tree, make_window, monkeypatch):
    library, ids = tree
    window = make_window(library, scope=P)
    dialog = _open(qtbot, window, ids)
    assert dialog.split_action.isEnabled()  # nothing selected: cut in two by meaning
    dialog.atoms_view.selectRow(dialog.atoms_model.row_of(ids["a3"]))  # Nesting's: not Herons' own
    assert not dialog.split_action.isEnabled()
    dialog.atoms_view.selectRow(dialog.atoms_model.row_of(ids["a0"]))

    class Labels:  # the split dialog, answered
        def __init__(self, label, picked, rest, parent):
            assert (label, picked, rest) == ("Herons", 1, 2)

        def exec(self):
            return True

        def labels(self):
            return ["Nests", "Chicks"]

    monkeypatch.setattr("vancetope_desktop.ui.topics_view.SplitDialog", Labels)
    dialog.split_action.trigger()

    def made():
        found = topics.get_tree(library, P)
        return {t.label: t for t in found.topics if t.parent_id == ids["herons"]}

    qtbot.waitUntil(lambda: {"Nests", "Chicks"} <= set(made()), timeout=WAIT_MS)
    assert [a.id for a in topics.topic_atoms(library, made()["Nests"].id)] == [ids["a0"]]
    assert {a.id for a in topics.topic_atoms(library, made()["Chicks"].id)} == {ids["a1"], ids["s0"]}
    qtbot.waitUntil(lambda: window.undo_actions.undo_action.text() == "Undo Split topic “Herons”", timeout=WAIT_MS)


def test_a_scope_without_a_tree_says_what_builds_it(qtbot, library, make_window):
    atoms.store_atom(library, atoms.draft_atom("fact", FACTS[0]), scope=P)
    window = make_window(library, scope=P)
    dialog = window.show_topics()
    qtbot.waitUntil(lambda: dialog.pages.currentIndex() == 1, timeout=WAIT_MS)
    assert "no topic tree yet" in dialog.empty.text() and "daily digest" in dialog.empty.text()
    assert "1 atom wait" in dialog.empty.text() and dialog.rebuild_button.isEnabled()
    assert not dialog.update_button.isVisibleTo(dialog)
    assert not dialog.new_action.isEnabled()


def test_a_scope_seeing_an_ancestors_tree_offers_to_build_its_own(qtbot, tree, make_window):
    library, ids = tree
    session = scopes.create_scope(library, "session", "s1", parent=P, name="Session one").path
    atoms.store_atom(library, atoms.draft_atom("fact", "Egrets wade in shallow water."), scope=session)
    window = make_window(library, scope=session)
    dialog = _open(qtbot, window, ids, "alders")  # the project's tree, shown read-only
    assert dialog.tree_model.is_inherited(ids["alders"]) and not dialog.rename_action.isEnabled()
    assert not dialog.atoms_model.draggable and "read-only" in dialog.heading.text()
    assert dialog.update_button.isVisibleTo(dialog) and dialog.update_button.text() == "Build This Scope's Tree"


def test_the_topic_map_drills_down_by_a_click_and_goes_back_up(qtbot, tree, make_window):
    library, ids = tree
    window = make_window(library, scope=P)
    dialog = window.show_topics(map_=True)
    topic_map = dialog.map_pane.map
    qtbot.waitUntil(lambda: topic_map.tree is not None and dialog.left.currentWidget() is dialog.map_pane,
                    timeout=WAIT_MS)
    tiles = {t.key: t for t in topic_map.tiles()}
    assert set(tiles) == {ids["herons"], ids["alders"], ids["herons"] + "#own", ids["nesting"]}
    assert tiles[ids["herons"]].rect.area == pytest.approx(2 * tiles[ids["alders"]].rect.area)  # 4 atoms vs 2
    assert "Herons" not in dialog.map_pane.crumbs.text()
    band = QPoint(int(tiles[ids["herons"]].rect.x) + 6, int(tiles[ids["herons"]].rect.y) + 6)  # Herons' label
    QApplication.sendEvent(topic_map, QHelpEvent(QEvent.Type.ToolTip, band, topic_map.mapToGlobal(band)))
    assert QToolTip.text() == "Herons\n4 atoms (3 in this topic itself)\nWords: heron, nest"
    nesting = tiles[ids["nesting"]].rect
    with qtbot.waitSignal(dialog.topic_shown, timeout=WAIT_MS):
        qtbot.mouseClick(topic_map, Qt.MouseButton.LeftButton,
                         pos=QPoint(int(nesting.x + nesting.w / 2), int(nesting.y + nesting.h / 2)))
    assert topic_map.focus_id == ids["herons"]  # drilled into the outer tile's topic
    assert dialog.current_topic().id == ids["nesting"]  # the clicked one is listed
    assert _listed(dialog) == [ids["a3"]]
    assert {t.key for t in topic_map.tiles()} == {ids["nesting"], ids["herons"] + "#own"}
    assert "Herons" in dialog.map_pane.crumbs.text()
    dialog.map_pane.crumbs.linkActivated.emit(ids["root"])  # the breadcrumb's first link
    assert topic_map.focus_id == ids["root"] and not dialog.map_pane.up_button.isEnabled()
    topic_map.drill(ids["herons"])
    qtbot.mouseClick(topic_map, Qt.MouseButton.RightButton, pos=QPoint(5, 5))
    assert topic_map.focus_id == ids["root"]
    assert dialog.view.currentIndex() != QModelIndex()

    dragged = encode_document_ids([ids["a1"]], ATOM_MIME)  # a1 dragged from Herons' list onto Alders' tile
    dragged.setData(FROM_TOPIC_MIME, ids["herons"].encode())
    alders = {t.key: t for t in topic_map.tiles()}[ids["alders"]].rect
    at = QPointF(alders.x + alders.w / 2, alders.y + alders.h / 2)
    assert topic_map.droppable_at(dragged, at) == ids["alders"]
    assert topic_map.droppable_at(dragged, QPointF(tiles[ids["herons"]].rect.x + 6, tiles[ids["herons"]].rect.y + 6)) \
        is None  # where it is
    topic_map.dropEvent(QDropEvent(at, Qt.DropAction.MoveAction, dragged, Qt.MouseButton.LeftButton,
                                   Qt.KeyboardModifier.NoModifier))
    qtbot.waitUntil(lambda: ids["a1"] in {a.id for a in topics.topic_atoms(library, ids["alders"])}, timeout=WAIT_MS)


@pytest.mark.slow
def test_rebuild_now_builds_the_tree_of_an_empty_scope(qtbot, library, make_window):
    """The empty state's button runs the upkeep's cold build (``topics rebuild``): the atoms are embedded and
    clustered (the real model: seconds), and the window shows the tree it made."""
    for text in (*FACTS, "Egrets wade in shallow water.", "Alder cones feed siskins in winter."):
        atoms.store_atom(library, atoms.draft_atom("fact", text), scope=P)
    window = make_window(library, scope=P)
    dialog = window.show_topics()
    qtbot.waitUntil(lambda: dialog.pages.currentIndex() == 1, timeout=WAIT_MS)
    with qtbot.waitSignal(dialog.loaded, timeout=120_000, check_params_cb=lambda count: count > 1):
        qtbot.mouseClick(dialog.rebuild_button, Qt.MouseButton.LeftButton)
    tree = topics.get_tree(library, P)
    assert tree.root_id is not None and tree.atoms == 7 and tree.unplaced == 0
    assert dialog.pages.currentIndex() == 0 and dialog.tree_model.index_for(tree.root_id).isValid()
    # The undo menu follows the history read in the background after the rebuild: waited for, not raced.
    qtbot.waitUntil(window.undo_actions.undo_action.isEnabled, timeout=WAIT_MS)


def test_a_label_of_markup_reads_literally_in_the_tree_its_tooltip_and_the_split_dialog(qtbot, tree):
    from PySide6.QtGui import QTextDocument

    from vancetope_desktop.ui.topic_parts import SplitDialog

    library, ids = tree
    label = "<b>Herons</b> & <i>egrets</i>"
    topics.rename_topic(library, ids["herons"], label)
    model = TopicTreeModel()
    model.set_trees([topics.get_tree(library, P)], P, {P: "Inbox"})
    herons = model.index_for(ids["herons"])
    assert herons.data() == label  # an item's text is plain
    shown = QTextDocument()
    shown.setHtml(model.data(herons, Qt.ItemDataRole.ToolTipRole))  # how Qt reads a tooltip that looks like markup
    assert shown.toPlainText().splitlines()[0] == label
    dialog = SplitDialog(label, 1, 1)
    qtbot.addWidget(dialog)
    said = dialog.findChildren(type(dialog.layout().itemAt(0).widget()))[0]
    assert said.textFormat() == Qt.TextFormat.PlainText and label in said.text()


# --- promotion and demotion from the window (issue 14: topics move with promotion like everything else) ----------


def _move_menu(dialog) -> dict[str, object]:
    """The Move to Scope menu as it opens: its entries by the scope path they move to."""
    dialog.move_menu.aboutToShow.emit()
    return {a.toolTip().rsplit("(", 1)[-1].rstrip(")"): a for a in dialog.move_menu.actions()
            if not a.isSeparator() and a.isEnabled()}


def test_a_topic_promoted_from_the_window_goes_to_the_project_with_its_subtree_and_atoms(qtbot, tree, make_window):
    library, _ = tree
    session, child = _session_tree(library)
    window = make_window(library, scope=session)
    dialog = _open(qtbot, window, child)
    assert dialog.move_action.isEnabled() and dialog.move_button.defaultAction() is dialog.move_action  # toolbar
    targets = _move_menu(dialog)
    assert list(targets) == ["group/default", P] and targets[P].text().startswith("↑ ")  # up the branch only
    targets[P].trigger()
    qtbot.waitUntil(lambda: dialog.scope_moves.dialog is not None, timeout=WAIT_MS)
    confirm = dialog.scope_moves.dialog
    assert confirm.move_button.text() == "Promote"
    assert "the topic “Herons” with 1 subtopic and 4 atoms" in confirm.heading.text()
    assert documents.get_document(library, child["herons"]).scope == session  # nothing moves before the click
    confirm.move_button.click()

    def in_project() -> bool:
        return topics.get_tree(library, P).get(child["herons"]) is not None

    qtbot.waitUntil(in_project, timeout=WAIT_MS)
    project = topics.get_tree(library, P)
    assert project.get(child["herons"]).parent_id == project.root_id  # under the project tree's root
    assert project.get(child["nesting"]).parent_id == child["herons"]  # its subtree came along
    carried = {child[a] for a in ("a0", "a1", "s0", "a3")}
    assert {a.id for a in topics.topic_atoms(library, child["herons"], recursive=True)} == carried
    assert {documents.get_document(library, a).scope for a in carried} == {P}
    left = topics.get_tree(library, session)
    assert left.get(child["herons"]) is None and left.get(child["alders"]) is not None
    # The window follows: Herons is now in the project's tree, shown read-only below the session's.
    qtbot.waitUntil(lambda: dialog.tree_model.is_inherited(child["herons"]), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: dialog.status.text() == "Promoted the topic “Herons” with 1 subtopic and 4 atoms to "
                    "Project: Inbox", timeout=WAIT_MS)
    assert dialog.select_topic(child["herons"]) and not dialog.move_action.isEnabled()

    qtbot.waitUntil(lambda: window.undo_actions.undo_action.text().startswith("Undo Move"), timeout=WAIT_MS)
    window.undo_actions.undo_action.trigger()  # Edit ▸ Undo, as the window's hand edits
    qtbot.waitUntil(lambda: not in_project(), timeout=WAIT_MS)
    back = topics.get_tree(library, session)
    assert back.get(child["herons"]).parent_id == child["root"]
    assert {documents.get_document(library, a).scope for a in carried} == {session}
    qtbot.waitUntil(lambda: not dialog.tree_model.is_inherited(child["herons"]), timeout=WAIT_MS)


def test_the_root_is_refused_with_the_services_reason_before_any_dialog(qtbot, tree, make_window):
    library, ids = tree
    session = scopes.create_scope(library, "session", "s1", parent=P, name="Session one").path
    window = make_window(library, scope=P)
    dialog = _open(qtbot, window, ids, "root")
    assert dialog.move_action.isEnabled()  # offered: the refusal says why and what to move instead
    targets = _move_menu(dialog)
    assert session in targets and targets[session].text().startswith("↓ ")
    targets[session].trigger()
    qtbot.waitUntil(lambda: "is the root of" in dialog.status.text(), timeout=WAIT_MS)
    assert "promote its topics instead" in dialog.status.text()
    assert dialog.scope_moves.dialog is None  # nothing asked
    assert documents.get_document(library, ids["root"]).scope == P
    assert topics.get_tree(library, session).root_id is None


def test_the_tree_or_map_choice_is_remembered_across_openings(qtbot, tree, make_window):
    library, _ = tree
    window = make_window(library, scope=P)
    dialog = window.show_topics()
    assert dialog.left.currentWidget() is not dialog.map_pane  # the tree, the first time
    qtbot.mouseClick(dialog.switch.button(1), Qt.MouseButton.LeftButton)  # "Map"
    assert dialog.left.currentWidget() is dialog.map_pane
    dialog.close()
    window.close()  # the app quits; the next start opens the window as it was left
    again = make_window(library, scope=P)
    reopened = again.show_topics()
    assert reopened is not dialog and reopened.left.currentWidget() is reopened.map_pane
    assert reopened.switch.button(1).isChecked()
    assert again.show_topics(map_=False).left.currentWidget() is not reopened.map_pane  # View ▸ Topics… asked
    reopened.close()
    assert again.show_topics().left.currentWidget() is not reopened.map_pane  # …and remembered
    assert again.show_topics(map_=True).left.currentWidget() is reopened.map_pane  # View ▸ Topic Map…


# --- requesting a topic's promotion (the review queue): beside Move to Scope ----------------------------------------


def test_a_topic_promotion_requested_from_the_window_waits_in_the_review_queue(qtbot, tree, make_window):
    library, _ = tree
    session, child = _session_tree(library)
    window = make_window(library, scope=session)
    dialog = _open(qtbot, window, child)
    assert dialog.request_action.isEnabled() and dialog.request_button.defaultAction() is dialog.request_action
    dialog.request_action.trigger()
    qtbot.waitUntil(lambda: isinstance(dialog.scope_moves.dialog, RequestPromotionDialog), timeout=WAIT_MS)
    ask = dialog.scope_moves.dialog
    assert "the topic “Herons” with 1 subtopic and 4 atoms" in ask.heading.text()
    assert [ask.target_box.itemData(i) for i in range(ask.target_box.count())] == ["group/default", P]
    assert ask.target() == P
    ask.reason_edit.setText("the project reads about herons too")
    ask.request_button.click()

    qtbot.waitUntil(lambda: bool(review.list_requests(library, document_id=child["herons"])), timeout=WAIT_MS)
    [request] = review.list_requests(library, document_id=child["herons"])
    assert (request.target_scope, request.source_scope) == (P, session)
    assert request.reason == "the project reads about herons too"
    qtbot.waitUntil(lambda: dialog.status.text() == "Requested the promotion of the topic “Herons” with 1 subtopic "
                    "and 4 atoms to Project: Inbox: it waits in the review queue", timeout=WAIT_MS)
    assert topics.get_tree(library, session).get(child["herons"]) is not None  # nothing moved before review
    assert topics.get_tree(library, P).get(child["herons"]) is None
    qtbot.waitUntil(lambda: window.review.pane.queue_model.request(request.id) is not None, timeout=WAIT_MS)


def test_the_root_s_promotion_request_is_refused_with_the_services_reason(qtbot, tree, make_window):
    library, ids = tree
    scopes.create_scope(library, "session", "s1", parent=P, name="Session one")
    window = make_window(library, scope=P)
    dialog = _open(qtbot, window, ids, "root")
    assert dialog.request_action.isEnabled()  # offered: the refusal says why and what to ask for instead
    dialog.request_action.trigger()
    qtbot.waitUntil(lambda: "is the root of" in dialog.status.text(), timeout=WAIT_MS)
    assert "promote its topics instead" in dialog.status.text()
    assert dialog.scope_moves.dialog is None  # nothing asked
    assert review.list_requests(library, document_id=ids["root"]) == []
