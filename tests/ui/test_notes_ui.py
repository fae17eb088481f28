"""Note links, backlinks, saved searches and reading status in the app: the rendering of [[links]], the
Backlinks section, the folder tree's saved searches (qtmodeltester), and the window driving the services."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QUrl

from vancetope_desktop.core.documents import DocumentType
from vancetope_desktop.core.reading import ReadingStatus, reading_status_of
from vancetope_desktop.services import documents, relations, saved_searches
from vancetope_desktop.services.notelinks import Backlinks, Mention
from vancetope_desktop.services.relations import LinkedDocument
from vancetope_desktop.services.saved_searches import SavedSearch
from vancetope_desktop.ui import dialogs
from vancetope_desktop.ui.backlinks_view import BacklinksView
from vancetope_desktop.ui.folder_model import NODE_ROLE, SAVED_HEADER, FolderTarget, FolderTreeModel
from vancetope_desktop.ui.viewer import DocumentViewer, MarkdownViewer
from vancetope_desktop.ui.viewer.rendering import render_markdown, wikilink_href, wikilink_target

from .test_folder_model import COUNTS, NAMES, SCOPES, _folders

NOTE = DocumentType.NOTE
WAIT = 15_000


def test_links_render_as_links_to_their_inside_but_not_in_code():
    html = render_markdown("See [[Sparse Attention|the survey]], `[[code]]` and [[Methods#Setup]].").html
    assert f'href="{wikilink_href("Sparse Attention|the survey")}"' in html and ">the survey</a>" in html
    assert "<code>[[code]]</code>" in html and ">Methods › Setup</a>" in html
    assert wikilink_target(wikilink_href("A|b c")) == "A|b c" and wikilink_target("https://x.org") is None


def test_a_clicked_link_is_announced_with_its_note(qtbot):
    viewer = MarkdownViewer()
    qtbot.addWidget(viewer)
    viewer.show_markdown("Go to [[Plan]]", document_id="doc_1")
    with qtbot.waitSignal(viewer.wikilink_activated) as blocker:
        viewer.follow_link(QUrl(wikilink_href("Plan")))
    assert blocker.args == ["doc_1", "Plan"]


def test_the_backlinks_section_lists_both_kinds_and_links_them(qtbot):
    view = BacklinksView()
    qtbot.addWidget(view)
    mention = Mention(document=LinkedDocument(id="doc_b", title="B <note>", type="note"), scope="project/inbox",
                      snippet="… about A here …")
    view.set_backlinks(Backlinks(document_id="doc_a", title="A", linked=[mention.model_copy(
        update={"document": LinkedDocument(id="doc_c", title="C", type="note")})], unlinked=[mention]))
    assert view.mention_ids() == (["doc_c"], ["doc_b"])
    assert "B &lt;note&gt;" in view.unlinked_label.text() and "about A here" in view.unlinked_label.text()
    assert view.empty_label.isHidden()
    with qtbot.waitSignal(view.document_link_activated) as blocker:
        view.linked_label.linkActivated.emit("doc_c")
    assert blocker.args == ["doc_c"]
    view.set_backlinks(Backlinks(document_id="doc_a", title="A"))
    assert not view.empty_label.isHidden() and view.linked_label.isHidden()


def test_saved_searches_sit_under_their_header_and_pass_the_model_tester(qtmodeltester, qtbot, qapp):
    model = FolderTreeModel()
    model.set_smart_counts(COUNTS)
    model.set_folders(SCOPES, _folders(), scope_names=NAMES)
    qtmodeltester.check(model)
    model.set_saved_searches(["Bees", "To read"])
    qtmodeltester.check(model)
    header = model.index_for(FolderTarget("saved", "", ""))
    assert header.data() == SAVED_HEADER and model.rowCount(header) == 2
    bees = model.index_for(FolderTarget("saved", "Bees", ""))
    assert bees.data(NODE_ROLE).kind == "saved" and bees.parent() == header
    with qtbot.waitSignal(model.saved_search_rename_requested) as blocker:
        assert model.setData(bees, "Apiary")
    assert blocker.args == ["Bees", "Apiary"]
    model.set_saved_searches([])
    qtmodeltester.check(model)
    assert not model.index_for(FolderTarget("saved", "", "")).isValid()


@pytest.fixture
def snapshot_has(qtbot):
    def wait(window, check):
        qtbot.waitUntil(lambda: window.workbench.snapshot is not None and check(window.workbench.snapshot),
                        timeout=WAIT)
    return wait


def _open_viewer(qtbot, window, doc_id):
    window.open_document(doc_id)
    qtbot.waitUntil(lambda: window.current_viewer() is not None
                    and window.current_viewer().current_document_id() == doc_id, timeout=WAIT)
    return window.current_viewer()


def test_a_link_opens_its_note_and_a_missing_one_offers_to_create_it(qtbot, library, make_window, monkeypatch):
    target = documents.add_text(library, "The plan.", doc_type=NOTE, title="Plan")
    note = documents.add_text(library, "See [[plan|the plan]] and [[Ideas]].", doc_type=NOTE, title="Log")
    mention = documents.add_text(library, "The plan is due in June.", doc_type=NOTE, title="Mention")
    window = make_window(library)
    viewer = _open_viewer(qtbot, window, note.id)
    markdown = viewer.viewer(MarkdownViewer)
    markdown.follow_link(QUrl(wikilink_href("plan|the plan")))
    qtbot.waitUntil(lambda: window.current_viewer().current_document_id() == target.id, timeout=WAIT)
    # Details show the target's backlinks: the linking note, and the note naming it without a link.
    qtbot.waitUntil(lambda: window.details.backlinks.document_id() == target.id, timeout=WAIT)
    assert window.details.backlinks.mention_ids() == ([note.id], [mention.id])
    asked = []
    monkeypatch.setattr(dialogs, "confirm", lambda _parent, _title, text: asked.append(text) or True)
    _open_viewer(qtbot, window, note.id).viewer(MarkdownViewer).follow_link(QUrl(wikilink_href("Ideas")))
    qtbot.waitUntil(lambda: window.current_viewer().current_document_id() not in (note.id, target.id), timeout=WAIT)
    created = documents.get_document(library, window.current_viewer().current_document_id())
    assert created.title == "Ideas" and "Ideas" in asked[0]
    # The note that waited for it now links to it.
    assert relations.targets(library, note.id, relations.LINKS_TO) == [target.id, created.id]


def test_reading_status_from_the_row_menu_and_the_unread_view(qtbot, library, make_window, snapshot_has):
    ref = documents.add_text(library, "Lee A. Bees and mites. 2020.", doc_type=DocumentType.REFERENCE)
    window = make_window(library)
    snapshot_has(window, lambda s: s.smart_counts["unread"] == 1)
    window.table.select_ids([ref.id])
    menu = window.table.context_menu()
    reading_menu = next(a.menu() for a in menu.actions() if a.text() == "Reading Status")
    assert [a.text() for a in reading_menu.actions()] == ["Unread", "Reading", "Read"]
    assert reading_menu.actions()[0].isChecked()
    reading_menu.actions()[2].trigger()
    snapshot_has(window, lambda s: s.smart_counts["unread"] == 0)
    assert reading_status_of(ref.type, documents.get_document(library, ref.id).metadata) is ReadingStatus.READ
    row = window.table.document_model.row_for(ref.id)
    from vancetope_desktop.ui.document_model import Column
    assert window.table.document_model.index(row, Column.READING).data() == "read"
    # Opening an unread file marks it as being read (the viewer tells the window when a PDF opened).
    documents.update_document(library, ref.id, metadata={"reading_status": "unread"})
    window.notes.mark_opened(documents.get_document(library, ref.id))
    qtbot.waitUntil(lambda: documents.get_document(library, ref.id).metadata["reading_status"] == "reading",
                    timeout=WAIT)


def test_saved_searches_in_the_tree_stay_live_and_can_be_renamed_and_deleted(qtbot, library, make_window,
                                                                             snapshot_has):
    first = documents.add_text(library, "Varroa mites", doc_type=NOTE, tags=["bees"])
    documents.add_text(library, "Galaxies", doc_type=NOTE)
    window = make_window(library)
    pane = window.search_pane
    pane.add_tag_filter("bees")
    pane.type_combo.setCurrentIndex(pane.type_combo.findData(DocumentType.NOTE))
    window.notes.save_search("Bees")
    model = window.folder_tree.folder_model
    qtbot.waitUntil(lambda: model.saved_searches() == ("Bees",), timeout=WAIT)
    scope = window.current_scope
    assert window.folder_tree.isExpanded(model.index_for(FolderTarget("saved", "", scope)))  # open at first
    assert window.folder_tree.select_target(FolderTarget("saved", "Bees", scope))
    snapshot_has(window, lambda s: s.state.target.kind == "saved" and [d.id for d in s.documents] == [first.id])
    second = documents.add_text(library, "Hive health", doc_type=NOTE, tags=["bees"])
    window.workbench.refresh()  # as after any change of the library
    snapshot_has(window, lambda s: [d.id for d in s.documents] == [second.id, first.id])
    model.setData(model.index_for(FolderTarget("saved", "Bees", scope)), "Apiary")
    qtbot.waitUntil(lambda: model.saved_searches() == ("Apiary",), timeout=WAIT)
    assert [(s.name, s.tags, s.types) for s in saved_searches.list_saved(library)] == [
        ("Apiary", ["bees"], [DocumentType.NOTE])]
    window.folder_tree.saved_search_forget_requested.emit("Apiary")
    qtbot.waitUntil(lambda: model.saved_searches() == (), timeout=WAIT)
    assert saved_searches.list_saved(library) == [] and window.workbench.snapshot.state.target.kind != "saved"
    saved_searches.save_search(library, SavedSearch(name="Elsewhere", query="mites"))  # saved by the CLI
    window.workbench.refresh()
    qtbot.waitUntil(lambda: model.saved_searches() == ("Elsewhere",), timeout=WAIT)


def test_a_note_with_links_that_lead_nowhere_says_so_above_its_text(qtbot, library, make_window):
    documents.add_text(library, "One", doc_type=NOTE, title="Twin")
    documents.add_text(library, "Two", doc_type=NOTE, title="twin")
    note = documents.add_text(library, "[[Twin]] and [[Nowhere]]", doc_type=NOTE, title="Links")
    window = make_window(library)
    viewer = _open_viewer(qtbot, window, note.id)
    text = viewer.notice_label.text()
    assert "no document for [[Nowhere]]" in text and "several documents for [[Twin]] (2 documents)" in text


@pytest.mark.corpus
def test_the_viewer_tells_when_a_pdf_opened(qtbot, corpus):
    from .test_viewer import PAPER, make_doc

    viewer = DocumentViewer()
    qtbot.addWidget(viewer)
    doc = make_doc(corpus / PAPER, mime_type="application/pdf")
    with qtbot.waitSignal(viewer.pdf_opened) as blocker:
        viewer.show_document(doc)
    assert blocker.args == [doc]


def test_renaming_a_document_in_the_window_updates_the_links_to_it(qtbot, library, make_window):
    # Found by a new user: F2 on a paper broke their note's [[Old title]] (a click offered an empty note).
    target = documents.add_text(library, "Mites.", doc_type=NOTE, title="Varroa")
    note = documents.add_text(library, "See [[Varroa#Spring|the mites]].", doc_type=NOTE, title="Log")
    window = make_window(library)
    said = "Renamed “Varroa mites”: links updated in 1 note"
    with qtbot.waitSignal(window.workbench.notice, timeout=WAIT, check_params_cb=lambda text: text == said):
        window.workbench.rename_document(target.id, "Varroa mites")
    rewritten = "See [[Varroa mites#Spring|the mites]]."
    qtbot.waitUntil(lambda: documents.get_document(library, note.id).content == rewritten, timeout=WAIT)
    assert relations.targets(library, note.id, relations.LINKS_TO) == [target.id]
