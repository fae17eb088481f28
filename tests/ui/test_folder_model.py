"""The folder tree model and view: smart entries, scope roots, folders, drops, renames, state across reloads."""

import unicodedata

import pytest
from PySide6.QtCore import QMimeData, QModelIndex, QPointF, Qt, QUrl
from PySide6.QtWidgets import QAbstractItemView, QLineEdit

from tests.ui.drops import drag_and_drop
from vancetope_desktop.core.scope_info import VisibleScope
from vancetope_desktop.services.folders import FolderNode
from vancetope_desktop.ui.dnd import add_source_scopes, decode_document_ids, decode_source_scopes, encode_document_ids
from vancetope_desktop.ui.folder_model import (
    COUNT_ROLE,
    NODE_ROLE,
    FolderTarget,
    FolderTreeModel,
    browsable_scopes,
)
from vancetope_desktop.ui.folder_tree import FolderTreeView

SESSION, PROJECT, GROUP = "session/monday", "project/attention", "group/nlp"
NAMES = {SESSION: "Monday session", PROJECT: "Attention project", GROUP: "NLP group"}
SCOPES = [VisibleScope(path=GROUP, distance=2, weight=0.5), VisibleScope(path=SESSION, distance=0, weight=1.0),
          VisibleScope(path=PROJECT, distance=1, weight=0.8)]
COUNTS = {"all": 42, "unfiled": 5, "recent": 3, "problems": 2, "archived": 4, "trash": 1}
PAPERS = FolderTarget("folder", "f_papers", SESSION)
TRANSFORMERS = FolderTarget("folder", "f_transformers", SESSION)
DATASETS = FolderTarget("folder", "f_datasets", PROJECT, inherited=True)
SESSION_ROOT = FolderTarget("scope", SESSION, SESSION)
ALL = FolderTarget("smart", "all", SESSION)
TRASH = FolderTarget("smart", "trash", SESSION)


def _folders(extra=()):
    return [
        FolderNode(id="f_transformers", scope=SESSION, title="Transformers", parent_id="f_papers",
                   own_count=9, total_count=9),
        FolderNode(id="f_papers", scope=SESSION, title="Papers", parent_id=None, own_count=3, total_count=12),
        FolderNode(id="f_sparse", scope=SESSION, title="Sparse", parent_id="f_transformers",
                   own_count=0, total_count=0),
        FolderNode(id="f_datasets", scope=PROJECT, title="Datasets", parent_id=None, own_count=4, total_count=4),
        FolderNode(id="f_uber", scope=GROUP, title="Über", parent_id=None, own_count=1, total_count=1),
        FolderNode(id="f_alpha", scope=SESSION, title="alpha", parent_id=None, own_count=0, total_count=0),
        FolderNode(id="f_elsewhere", scope="project/other", title="Not visible", parent_id=None,
                   own_count=7, total_count=7),
        *extra,
    ]


@pytest.fixture
def model(qapp):
    model = FolderTreeModel()
    model.set_smart_counts(COUNTS)
    model.set_folders(SCOPES, _folders(), scope_names=NAMES)
    return model


@pytest.fixture
def view(qtbot):
    view = FolderTreeView()
    qtbot.addWidget(view)
    view.resize(300, 500)
    view.folder_model.set_smart_counts(COUNTS)
    view.folder_model.set_folders(SCOPES, _folders(), scope_names=NAMES)
    view.show()
    qtbot.waitExposed(view)
    return view


def _labels(model, parent=None):
    parent = parent or QModelIndex()
    return [model.index(r, 0, parent).data() for r in range(model.rowCount(parent))]


def _file_mime(*paths):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    return mime


# -- the model --------------------------------------------------------------------------------------


def test_model_passes_the_model_tester_empty_full_and_after_reload(qtmodeltester, qapp):
    model = FolderTreeModel()
    qtmodeltester.check(model)
    model.set_smart_counts(COUNTS)
    model.set_folders(SCOPES, _folders(), scope_names=NAMES)
    qtmodeltester.check(model)
    extra = FolderNode(id="f_new", scope=PROJECT, title="New", parent_id="f_datasets", own_count=1, total_count=1)
    model.set_folders(SCOPES[1:], _folders([extra]), scope_names=NAMES)
    model.show_subfolder_items(False)
    model.set_smart_counts({"all": 1})
    qtmodeltester.check(model)
    model.set_folders([], [])
    qtmodeltester.check(model)


def test_smart_entries_then_current_scope_then_ancestors(model):
    assert _labels(model) == [
        "All documents  42", "Unfiled  5", "Recently added  3", "Unread", "Needs OCR / Failed  2", "Stale results",
        "Archived  4", "Trash  1",
        "Monday session", "Attention project", "NLP group",
    ]
    roots = [model.index(r, 0).data(NODE_ROLE) for r in range(8, 11)]
    assert roots == [SESSION_ROOT, FolderTarget("scope", PROJECT, PROJECT, True),
                     FolderTarget("scope", GROUP, GROUP, True)]
    assert model.index(0, 0).data(NODE_ROLE) == ALL
    assert model.current_scope() == SESSION


def test_folders_nest_sorted_with_counts_and_unlisted_scopes_are_left_out(model):
    session = model.index_for(SESSION_ROOT)
    assert _labels(model, session) == ["alpha", "Papers  12"]
    papers = model.index_for(PAPERS)
    assert _labels(model, papers) == ["Transformers  9"]
    assert _labels(model, model.index_for(TRANSFORMERS)) == ["Sparse"]
    assert _labels(model, model.index_for(DATASETS)) == []
    assert "Not visible" not in [t.key for t in model.targets()]
    assert not model.index_for(FolderTarget("folder", "f_elsewhere", "project/other")).isValid()


def test_sibling_think_processes_seen_for_their_results_get_no_node(qtmodeltester, qapp):
    model = FolderTreeModel()
    sibling = "think-process/tp_13"
    seen = [*SCOPES, VisibleScope(path=sibling, distance=1, weight=0.8, results_only=True)]
    private = FolderNode(id="f_sibling_notes", scope=sibling, title="Notes", parent_id=None, own_count=2,
                         total_count=2)
    model.set_folders(seen, _folders([private]), scope_names={**NAMES, sibling: "Hypothesis Check"})
    qtmodeltester.check(model)
    assert "Hypothesis Check" not in _labels(model)
    assert all(t.scope != sibling for t in model.targets())
    assert browsable_scopes(seen) == SCOPES


def test_bad_parents_do_not_lose_folders_or_loop(qapp):
    model = FolderTreeModel()
    odd = [
        FolderNode(id="f_x", scope=SESSION, title="Cross", parent_id="f_datasets", own_count=0, total_count=0),
        FolderNode(id="f_a", scope=SESSION, title="A", parent_id="f_b", own_count=0, total_count=0),
        FolderNode(id="f_b", scope=SESSION, title="B", parent_id="f_a", own_count=0, total_count=0),
    ]
    model.set_folders(SCOPES, _folders(odd), scope_names=NAMES)
    # A parent in another scope: the folder hangs at its own scope's top level.
    assert model.parent(model.index_for(FolderTarget("folder", "f_x", SESSION))) == model.index_for(SESSION_ROOT)
    assert not model.index_for(FolderTarget("folder", "f_a", SESSION)).isValid()  # a cycle is left out


def test_subfolder_switch_chooses_own_or_total_counts(model, qtbot):
    papers = model.index_for(PAPERS)
    with qtbot.waitSignal(model.dataChanged):
        model.show_subfolder_items(False)
    assert papers.data() == "Papers  3"
    assert papers.data(COUNT_ROLE) == 3
    assert model.index(0, 0).data() == "All documents  42"  # smart counts do not depend on it
    model.show_subfolder_items(True)
    assert papers.data() == "Papers  12"


def test_smart_counts_update_without_a_reset(model, qtbot):
    resets = []
    model.modelReset.connect(lambda: resets.append(1))
    with qtbot.waitSignal(model.dataChanged):
        model.set_smart_counts({"all": 7, "trash": 0})
    assert _labels(model)[:8] == ["All documents  7", "Unfiled", "Recently added", "Unread", "Needs OCR / Failed",
                                  "Stale results", "Archived", "Trash"]
    assert resets == []


def test_inherited_nodes_are_italic_muted_and_say_so(model):
    datasets = model.index_for(DATASETS)
    assert datasets.data(NODE_ROLE).inherited
    assert datasets.data(Qt.ItemDataRole.FontRole).italic()
    assert datasets.data(Qt.ItemDataRole.ForegroundRole) is not None
    assert "inherited" in datasets.data(Qt.ItemDataRole.ToolTipRole)
    papers = model.index_for(PAPERS)
    assert papers.data(Qt.ItemDataRole.FontRole) is None
    assert "inherited" not in papers.data(Qt.ItemDataRole.ToolTipRole)
    assert not papers.data(Qt.ItemDataRole.DecorationRole).isNull()


def test_flags_allow_drops_on_scopes_and_folders_drags_and_edits_only_in_the_current_scope(model):
    drop = Qt.ItemFlag.ItemIsDropEnabled
    drag = Qt.ItemFlag.ItemIsDragEnabled
    edit = Qt.ItemFlag.ItemIsEditable
    flags = {t: model.flags(model.index_for(t)) for t in (ALL, TRASH, SESSION_ROOT, PAPERS, DATASETS)}
    # Inherited nodes take drops too, but only documents changing scope (see the scope-move tests).
    assert [bool(f & drop) for f in flags.values()] == [True, False, True, True, True]
    assert [bool(f & drag) for f in flags.values()] == [False, False, False, True, False]
    assert [bool(f & edit) for f in flags.values()] == [False, False, False, True, False]
    assert model.flags(model.index_for(FolderTarget("scope", GROUP, GROUP, True))) & drop
    assert not model.flags(QModelIndex()) & drop


def test_rename_in_place_asks_and_waits_for_the_reload(model, qtbot):
    papers = model.index_for(PAPERS)
    assert papers.data(Qt.ItemDataRole.EditRole) == "Papers"
    with qtbot.waitSignal(model.rename_requested) as blocker:
        assert model.setData(papers, "  Papers 2026 ", Qt.ItemDataRole.EditRole)
    assert blocker.args == ["f_papers", "Papers 2026"]
    assert papers.data(Qt.ItemDataRole.EditRole) == "Papers"
    with qtbot.assertNotEmitted(model.rename_requested):
        assert not model.setData(papers, None, Qt.ItemDataRole.EditRole)  # what Qt's drag code sends
        assert not model.setData(papers, "Papers", Qt.ItemDataRole.EditRole)
        assert not model.setData(model.index_for(DATASETS), "Mine now", Qt.ItemDataRole.EditRole)


def test_index_for_finds_nodes_again_after_a_reload(model):
    model.set_folders(SCOPES, list(reversed(_folders())), scope_names=NAMES)
    index = model.index_for(PAPERS)
    assert index.isValid() and index.data(Qt.ItemDataRole.EditRole) == "Papers"
    assert model.index_for(FolderTarget("folder", "f_papers", "ignored", True)) == index  # by kind and key


def test_folders_drag_as_their_ids(model):
    mime = model.mimeData([model.index_for(PAPERS), model.index_for(DATASETS), model.index_for(ALL)])
    assert decode_document_ids(mime) == ["f_papers"]


def test_documents_dropped_on_a_folder_or_all_documents(model, qtbot):
    mime = encode_document_ids(["doc_1", "doc_2"])
    papers = model.index_for(PAPERS)
    assert model.canDropMimeData(mime, Qt.DropAction.MoveAction, -1, -1, papers)
    with qtbot.waitSignal(model.documents_dropped) as blocker:
        assert model.dropMimeData(mime, Qt.DropAction.MoveAction, -1, -1, papers)
    assert blocker.args == [["doc_1", "doc_2"], PAPERS]
    with qtbot.waitSignal(model.documents_dropped) as blocker:
        assert model.dropMimeData(mime, Qt.DropAction.CopyAction, -1, -1, model.index_for(ALL))
    assert blocker.args == [["doc_1", "doc_2"], SESSION_ROOT]  # "All documents" is the top level
    # A drop between two folders lands in their parent.
    session = model.index_for(SESSION_ROOT)
    with qtbot.waitSignal(model.documents_dropped) as blocker:
        assert model.dropMimeData(mime, Qt.DropAction.MoveAction, 1, 0, session)
    assert blocker.args[1] == SESSION_ROOT


def test_inherited_and_smart_targets_refuse_drops(model, qtbot, corpus):
    ids = encode_document_ids(["doc_1"])
    files = _file_mime(next((corpus / "papers").glob("*.pdf")))
    refusing = [DATASETS, TRASH, FolderTarget("scope", PROJECT, PROJECT, True), FolderTarget("smart", "recent", "")]
    with qtbot.assertNotEmitted(model.documents_dropped), qtbot.assertNotEmitted(model.files_dropped):
        for target in refusing:
            index = model.index_for(target)
            for mime in (ids, files):
                assert not model.canDropMimeData(mime, Qt.DropAction.CopyAction, -1, -1, index)
                assert not model.dropMimeData(mime, Qt.DropAction.CopyAction, -1, -1, index)
        assert not model.canDropMimeData(ids, Qt.DropAction.MoveAction, -1, -1, QModelIndex())
        assert not model.canDropMimeData(ids, Qt.DropAction.LinkAction, -1, -1, model.index_for(PAPERS))
        qtbot.wait(20)  # signals are queued: give them a chance to (wrongly) arrive


def test_a_folder_cannot_drop_into_itself_or_below(model):
    mime = model.mimeData([model.index_for(PAPERS)])
    for target in (PAPERS, TRANSFORMERS, FolderTarget("folder", "f_sparse", SESSION)):
        assert not model.canDropMimeData(mime, Qt.DropAction.MoveAction, -1, -1, model.index_for(target))
    assert model.canDropMimeData(mime, Qt.DropAction.MoveAction, -1, -1, model.index_for(ALL))
    assert model.canDropMimeData(mime, Qt.DropAction.MoveAction, -1, -1, model.index_for(
        FolderTarget("folder", "f_alpha", SESSION)))


PARENTS = {GROUP: None, PROJECT: GROUP, SESSION: PROJECT, "project/other": GROUP, "session/elsewhere": "project/other"}


def _from(scopes, *ids):
    return add_source_scopes(encode_document_ids(ids or ["doc_1"]), scopes)


def test_documents_of_another_scope_of_the_branch_ask_for_a_scope_move(model, qtbot, qtmodeltester):
    model.set_scope_parents(PARENTS)
    qtmodeltester.check(model)
    project_root = FolderTarget("scope", PROJECT, PROJECT, True)
    cases = [
        (_from([SESSION]), project_root),  # promote onto an ancestor's root
        (_from([SESSION]), DATASETS),  # promote into an ancestor's folder
        (_from([PROJECT]), SESSION_ROOT),  # demote an inherited document into the current scope
        (_from([PROJECT]), PAPERS),
        (_from([SESSION, PROJECT], "doc_1", "doc_2"), FolderTarget("scope", GROUP, GROUP, True)),
    ]
    for mime, target in cases:
        index = model.index_for(target)
        assert model.drop_refusal(mime, index) is None
        with qtbot.waitSignal(model.scope_move_requested) as blocker, qtbot.assertNotEmitted(model.documents_dropped):
            assert model.dropMimeData(mime, Qt.DropAction.MoveAction, -1, -1, index)
        assert blocker.args == [decode_document_ids(mime), target]
    # "All documents" is the current scope's root.
    with qtbot.waitSignal(model.scope_move_requested) as blocker:
        assert model.dropMimeData(_from([PROJECT]), Qt.DropAction.MoveAction, -1, -1, model.index_for(ALL))
    assert blocker.args[1] == SESSION_ROOT


def test_documents_of_their_own_scope_move_between_folders_only_in_the_current_scope(model, qtbot):
    model.set_scope_parents(PARENTS)
    with qtbot.waitSignal(model.documents_dropped) as blocker, qtbot.assertNotEmitted(model.scope_move_requested):
        assert model.dropMimeData(_from([SESSION]), Qt.DropAction.MoveAction, -1, -1, model.index_for(PAPERS))
    assert blocker.args == [["doc_1"], PAPERS]
    datasets = model.index_for(DATASETS)
    mime = _from([PROJECT])
    assert not model.canDropMimeData(mime, Qt.DropAction.MoveAction, -1, -1, datasets)
    assert model.drop_refusal(mime, datasets) == ("Attention project is an ancestor scope: its folders are "
                                                  "read-only here")


def test_documents_of_another_branch_are_refused_with_a_reason(model, qtbot):
    model.set_scope_parents(PARENTS, {"session/elsewhere": "Elsewhere", SESSION: "ignored: the tree's name wins"})
    mime = _from(["session/elsewhere"])
    with qtbot.assertNotEmitted(model.scope_move_requested), qtbot.assertNotEmitted(model.documents_dropped):
        for target in (SESSION_ROOT, PAPERS, DATASETS, ALL):
            index = model.index_for(target)
            assert not model.canDropMimeData(mime, Qt.DropAction.MoveAction, -1, -1, index)
            assert not model.dropMimeData(mime, Qt.DropAction.MoveAction, -1, -1, index)
        qtbot.wait(20)
    assert model.drop_refusal(mime, model.index_for(PAPERS)) == (
        "Monday session is on another branch than Elsewhere: documents move only up (promote) or down (demote) "
        "their branch")
    assert model.drop_refusal(mime, model.index_for(TRASH)) is None  # not a drop target at all
    assert model.drop_refusal(_file_mime("/tmp"), model.index_for(PAPERS)) is None  # files are not documents


def test_files_dropped_on_a_folder_and_web_links_refused(model, qtbot, corpus, tmp_path):
    nfd = tmp_path / unicodedata.normalize("NFD", "Études de cas.md")
    nfd.write_text("# cas", encoding="utf-8")
    paper = sorted((corpus / "papers").glob("*.pdf"))[0]
    mime = _file_mime(paper, nfd)
    mime.setUrls([*mime.urls(), QUrl("https://example.org/paper.pdf")])
    papers = model.index_for(PAPERS)
    with qtbot.waitSignal(model.files_dropped) as files, qtbot.waitSignal(model.drop_refused) as refused:
        assert model.dropMimeData(mime, Qt.DropAction.CopyAction, -1, -1, papers)
    assert files.args == [[paper, nfd], PAPERS]
    assert "web link" in refused.args[0]


def test_only_web_links_are_refused_but_reported(model, qtbot):
    mime = QMimeData()
    mime.setUrls([QUrl("https://example.org/a.pdf")])
    papers = model.index_for(PAPERS)
    assert model.canDropMimeData(mime, Qt.DropAction.CopyAction, -1, -1, papers)
    with qtbot.waitSignal(model.drop_refused) as blocker, qtbot.assertNotEmitted(model.files_dropped):
        assert not model.dropMimeData(mime, Qt.DropAction.CopyAction, -1, -1, papers)
    assert blocker.args == ["https://example.org/a.pdf is a web link, not a file: download it first"]


# -- the view ---------------------------------------------------------------------------------------


def _point(view, target):
    return QPointF(view.visualRect(view.folder_model.index_for(target)).center())


def _drag_and_drop(view, target, mime):
    return drag_and_drop(view.viewport(), mime, _point(view, target))


def test_view_is_headerless_selects_all_documents_and_expands_scopes(view):
    assert view.isHeaderHidden()
    assert view.current_target() == ALL
    assert view.isExpanded(view.folder_model.index_for(SESSION_ROOT))
    assert view.isExpanded(view.folder_model.index_for(FolderTarget("scope", PROJECT, PROJECT, True)))
    assert view.dragDropMode() == QAbstractItemView.DragDropMode.DragDrop


def test_view_announces_the_current_target(view, qtbot):
    with qtbot.waitSignal(view.target_selected) as blocker:
        view.select_target(PAPERS)
    assert blocker.args == [PAPERS]


def test_reload_keeps_selection_and_expansion_without_reannouncing(view, qtbot):
    view.select_target(TRANSFORMERS)
    view.setExpanded(view.folder_model.index_for(PAPERS), True)
    view.setExpanded(view.folder_model.index_for(TRANSFORMERS), True)
    view.collapse(view.folder_model.index_for(FolderTarget("scope", GROUP, GROUP, True)))
    with qtbot.assertNotEmitted(view.target_selected):
        view.folder_model.set_folders(SCOPES, _folders(), scope_names=NAMES)
    model = view.folder_model
    assert view.current_target() == TRANSFORMERS
    assert view.isExpanded(model.index_for(PAPERS)) and view.isExpanded(model.index_for(TRANSFORMERS))
    assert not view.isExpanded(model.index_for(FolderTarget("scope", GROUP, GROUP, True)))


def test_a_deleted_folder_falls_back_to_its_scope_root(view, qtbot):
    view.select_target(TRANSFORMERS)
    remaining = [f for f in _folders() if f.id not in ("f_transformers", "f_sparse")]
    with qtbot.waitSignal(view.target_selected) as blocker:
        view.folder_model.set_folders(SCOPES, remaining, scope_names=NAMES)
    assert blocker.args == [SESSION_ROOT]


def test_real_drops_of_files_on_own_folders_and_refusals_on_inherited_ones(view, qtbot, corpus, tmp_path):
    odd = [tmp_path / "with spaces.pdf", tmp_path / unicodedata.normalize("NFC", "résumé.md"),
           tmp_path / unicodedata.normalize("NFD", "résumé 2.md"), tmp_path / "論文.txt"]
    for path in odd:
        path.write_text("x", encoding="utf-8")
    files = [*sorted((corpus / "papers").glob("*.pdf"))[:2], *odd]
    mime = _file_mime(*files)
    model = view.folder_model
    with qtbot.waitSignal(model.files_dropped) as blocker:
        assert _drag_and_drop(view, PAPERS, mime) == (True, True)
    assert blocker.args == [files, PAPERS]

    with qtbot.waitSignal(model.files_dropped) as blocker:
        assert _drag_and_drop(view, ALL, mime) == (True, True)
    assert blocker.args[1] == SESSION_ROOT

    with qtbot.assertNotEmitted(model.files_dropped):
        assert _drag_and_drop(view, DATASETS, mime) == (False, False)
        assert _drag_and_drop(view, TRASH, mime) == (False, False)
        assert _drag_and_drop(view, FolderTarget("scope", GROUP, GROUP, True), mime) == (False, False)
        qtbot.wait(20)


def test_real_drop_of_documents_and_of_a_web_link(view, qtbot):
    model = view.folder_model
    view.expand(model.index_for(PAPERS))
    with qtbot.waitSignal(model.documents_dropped) as blocker:
        assert _drag_and_drop(view, TRANSFORMERS, encode_document_ids(["doc_9"])) == (True, True)
    assert blocker.args == [["doc_9"], TRANSFORMERS]
    link = QMimeData()
    link.setUrls([QUrl("https://arxiv.org/abs/1706.03762")])
    with qtbot.waitSignal(model.drop_refused) as blocker:
        assert _drag_and_drop(view, PAPERS, link) == (True, False)
    assert "download it first" in blocker.args[0]


def test_hovering_a_refusing_scope_says_why(view, qtbot):
    view.folder_model.set_scope_parents(PARENTS)
    mime = _from(["session/elsewhere"])
    with qtbot.waitSignal(view.move_refused) as blocker:
        assert _drag_and_drop(view, PAPERS, mime) == (False, False)
    assert "on another branch" in blocker.args[0]
    with qtbot.waitSignal(view.folder_model.scope_move_requested) as blocker:
        assert _drag_and_drop(view, FolderTarget("scope", PROJECT, PROJECT, True), _from([SESSION])) == (True, True)
    assert blocker.args == [["doc_1"], FolderTarget("scope", PROJECT, PROJECT, True)]


def test_folders_drag_with_their_scope(view):
    mime = view.drag_mime([view.folder_model.index_for(PAPERS)])
    assert decode_document_ids(mime) == ["f_papers"]
    assert decode_source_scopes(mime) == [SESSION]


def test_f2_renames_in_place(view, qtbot):
    view.select_target(PAPERS)
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_F2)
    assert view.state() == QAbstractItemView.State.EditingState
    editor = view.findChild(QLineEdit)
    editor.setText("Reading list")
    with qtbot.waitSignal(view.folder_model.rename_requested) as blocker:
        qtbot.keyClick(editor, Qt.Key.Key_Return)
    assert blocker.args == ["f_papers", "Reading list"]


def test_delete_key_asks_to_delete_own_folders_only(view, qtbot):
    view.select_target(PAPERS)
    view.setFocus()
    with qtbot.waitSignal(view.delete_requested) as blocker:
        qtbot.keyClick(view, Qt.Key.Key_Delete)
    assert blocker.args == [PAPERS]
    view.select_target(DATASETS)
    with qtbot.assertNotEmitted(view.delete_requested):
        qtbot.keyClick(view, Qt.Key.Key_Delete)


def test_set_snapshot_feeds_counts_and_an_explicit_current_scope(view):
    view.set_snapshot(SCOPES, NAMES, _folders(), {"all": 3}, PROJECT)
    model = view.folder_model
    assert model.current_scope() == PROJECT
    assert model.index(0, 0).data() == "All documents  3"
    assert model.index_for(DATASETS).data(NODE_ROLE) == FolderTarget("folder", "f_datasets", PROJECT, False)
    assert model.index_for(PAPERS).data(NODE_ROLE).inherited
    assert [model.index(r, 0).data() for r in range(8, 11)] == ["Attention project", "Monday session", "NLP group"]


def test_context_menu_offers_what_applies(view):
    def texts(target):
        return [a.text() for a in view.context_menu(target).actions() if not a.isSeparator()]

    assert texts(PAPERS) == ["New folder…", "Rename", "Delete folder", "Move to Scope", "Show items from subfolders"]
    # "New folder…" goes to the current scope; an ancestor's folder can still move along its branch.
    assert texts(DATASETS) == ["New folder…", "Move to Scope", "Show items from subfolders"]
    assert texts(TRASH) == ["New folder…", "Empty trash", "Show items from subfolders"]
    assert texts(SESSION_ROOT) == ["New folder…", "Scope Settings…", "Show items from subfolders"]


def test_actions_emit_requests(view, qtbot):
    view.select_target(PAPERS)
    with qtbot.waitSignal(view.new_folder_requested) as blocker:
        view.new_folder_action.trigger()
    assert blocker.args == [PAPERS]
    with qtbot.waitSignal(view.delete_requested) as blocker:
        view.delete_action.trigger()
    assert blocker.args == [PAPERS]
    view.select_target(DATASETS)
    with qtbot.waitSignal(view.new_folder_requested) as blocker:
        view.new_folder_action.trigger()
    assert blocker.args == [SESSION_ROOT]
    with qtbot.assertNotEmitted(view.delete_requested):
        view.delete_action.trigger()
    with qtbot.waitSignal(view.empty_trash_requested):
        view.empty_trash_action.trigger()


def test_subfolders_action_switches_counts(view, qtbot):
    assert view.subfolders_action.isCheckable() and view.subfolders_action.isChecked()
    with qtbot.waitSignal(view.subfolders_toggled) as blocker:
        view.subfolders_action.trigger()
    assert blocker.args == [False]
    assert view.folder_model.index_for(PAPERS).data() == "Papers  3"
