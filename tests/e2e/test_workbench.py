"""The real main window on a temporary library, driven like a scientist would (pytest-qt, offscreen).

Files arrive by simulated drops of ``file://`` URLs from ``../shared/corpus/papers``, indexing runs in
the real indexing process with the bundled model, and every check reads what the window shows.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QMimeData, QPointF, QSettings, Qt, QUrl
from PySide6.QtTest import QTest

from tests.ui.drops import drag_and_drop
from tests.ui.probe import UiThreadProbe
from vancetope_desktop.core.documents import IndexState
from vancetope_desktop.index.locks import WriterLock
from vancetope_desktop.services import scopes
from vancetope_desktop.services.library import Library
from vancetope_desktop.services.preferences import Preferences
from vancetope_desktop.ui.document_model import Column
from vancetope_desktop.ui.folder_model import FolderTarget
from vancetope_desktop.ui.main_window import MainWindow
from vancetope_desktop.ui.tasks import TaskState
from vancetope_desktop.ui.viewer.pdf_viewer import PdfViewer

pytestmark = [pytest.mark.corpus, pytest.mark.slow]


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv("VANCETOPE_CONFIG_DIR", str(tmp_path / "config"))
    lib = Library.open(tmp_path / "library")
    settings = QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)
    win = MainWindow(lib, settings=settings, preferences=Preferences())
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.workbench.snapshot is not None, timeout=10_000)
    yield win
    win.close()
    lib.close()


def _file_mime(paths) -> QMimeData:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    return mime


def _tree_point(win, target: FolderTarget) -> QPointF:
    view = win.folder_tree
    return QPointF(view.visualRect(view.folder_model.index_for(target)).center())


def _drop_on_tree(win, target: FolderTarget, mime) -> None:
    moved, dropped = drag_and_drop(win.folder_tree.viewport(), mime, _tree_point(win, target))
    assert moved and dropped


def _import_task(win):
    return next(t for t in win.tasks.tasks if t.title.startswith("Importing"))


def _titles(win) -> set[str]:
    model = win.table.proxy
    return {model.index(row, 0).data() for row in range(model.rowCount())}


def _doc(win, needle: str):
    return next(d for d in win.workbench.snapshot.documents if needle in (d.metadata.get("original_name") or d.title))


def _all_indexed(win, count: int) -> bool:
    docs = win.workbench.snapshot.documents
    return len(docs) >= count and all(d.index_state == IndexState.INDEXED for d in docs)


@pytest.mark.timeout(1500)  # the deadlines below, on a loaded machine
def test_the_papers_import_while_the_indexing_process_embeds_and_cancels(window, qtbot, corpus):
    """How long the event loop waits meanwhile is a figure of ``tests/benchmarks/bench_responsiveness.py``
    (a timing assertion here failed on a loaded CI machine for reasons outside the product)."""
    # Eight papers (~500 passages to embed) keep the indexing process busy well past its first batch, when
    # it is cancelled; the slowest to read (a cipher font to decode) is left out to keep the suite short.
    copies = [p for p in sorted((corpus / "papers").glob("*.pdf")) if "technology-acceptance" not in p.name][:8]
    assert len(copies) == 8
    qtbot.waitUntil(lambda: window.workbench.indexer.ready, timeout=60_000)
    # The indexing process is kept waiting (the writer lock held here) until five papers are in (~300 passages,
    # three batches), then embeds them while the others are read. Without the wait, on a loaded machine reading
    # lagged behind embedding, and a drain could end with its last batch before the cancel reached it (CI, 3 Dec
    # 2026: Done, not Cancelled).
    hold = WriterLock(window.workbench.lib.writer_lock.path)
    assert hold.try_acquire()
    probe = UiThreadProbe()
    probe.start()
    _drop_on_tree(window, FolderTarget("smart", "all", window.current_scope), _file_mime(copies))
    qtbot.waitUntil(lambda: any(t.title.startswith("Importing") for t in window.tasks.tasks), timeout=5000)
    task = _import_task(window)
    qtbot.waitUntil(lambda: len(window.workbench.snapshot.documents) >= 5, timeout=600_000)
    hold.release()
    window.workbench.indexer.kick()
    # Cancelled from the Tasks panel once it has embedded a batch (a task found running is clicked before the
    # event loop runs again).
    qtbot.waitUntil(lambda: _running_indexing(window) is not None, timeout=300_000)
    indexing = _running_indexing(window)
    panel = window.tasks_panel
    row = next(r for r in range(panel.model.rowCount()) if panel.model.task(r) is indexing)
    panel.view.setCurrentIndex(panel.model.index(row, 0))
    panel.cancel_button.click()
    qtbot.waitUntil(lambda: indexing.state.finished, timeout=300_000)  # the batch in hand, on a loaded machine
    assert indexing.state == TaskState.CANCELLED
    # A deadline, not a speed target: on a loaded 2-core machine reading the papers takes minutes.
    qtbot.waitUntil(lambda: task.state.finished, timeout=900_000)
    assert task.state == TaskState.DONE, task.error
    probe.stop()
    # The UI thread's own CPU time between two returns to the event loop, load or not: reading,
    # committing and embedding the papers happen elsewhere (the aim for event-loop gaps is 100 ms).
    assert probe.ticks > 10 and probe.largest < 0.1, (probe.ticks, probe.largest)
    qtbot.waitUntil(lambda: len(window.workbench.snapshot.documents) == len(copies), timeout=10_000)


def _running_indexing(win):
    """The Indexing task that has embedded something and is still running, if any."""
    return next((t for t in win.tasks.tasks if t.title == "Indexing" and t.done > 0 and not t.state.finished), None)


def test_a_scientist_imports_tags_searches_and_files_papers(window, qtbot, corpus):
    win = window
    assert win.library_stack.currentWidget() is win.welcome  # first start: the demo and import offer
    # Three short papers (16 pages, 63 passages to embed; the Higgs, JIT and asteroid papers, 82 pages and 223
    # passages, cost some 9 CPU s more, the indexing process's included): the search's hit is on page 4 of 8, so
    # the viewer still has to scroll to it.
    papers = [corpus / "papers" / name for name in (
        "isolated-nuclear-recoils-neutron-capture-arxiv2110.02751.pdf",
        "phytochemical-investigations-phoenix-paludosa.pdf",
        "black-hole-singularities-collision-arxiv1805.05865.pdf",
    )]
    _drop_on_tree(win, FolderTarget("smart", "all", win.current_scope), _file_mime(papers))
    qtbot.waitUntil(lambda: _all_indexed(win, 3), timeout=300_000)
    assert win.library_stack.currentWidget() is not win.welcome
    recoils, plants, black_hole = (_doc(win, n) for n in ("nuclear-recoils", "phytochemical", "black-hole"))

    # Tag chips in the details panel: add with the editor, remove with the chip's ×.
    def add_tags(doc, *tags):
        win.table.select_ids([doc.id])
        qtbot.waitUntil(lambda: win.details.document_id() == doc.id, timeout=5000)
        for tag in tags:
            editor = win.details.tags_editor
            editor.line_edit.setText(tag)
            QTest.keyClick(editor.line_edit, Qt.Key.Key_Return)
            qtbot.waitUntil(lambda t=tag: t in _doc(win, doc.metadata.get("original_name", doc.title)).tags,
                            timeout=10_000)

    add_tags(recoils, "physics", "review")
    add_tags(plants, "review")
    add_tags(black_hole, "physics")
    win.table.select_ids([recoils.id])
    qtbot.waitUntil(lambda: win.details.document_id() == recoils.id, timeout=5000)
    chip = next(c for c in win.details.tags_editor.chips() if c.tag == "review")
    QTest.mouseClick(chip, Qt.MouseButton.LeftButton, pos=chip.close_button_rect().center())
    qtbot.waitUntil(lambda: "review" not in _doc(win, "nuclear-recoils").tags, timeout=10_000)
    add_tags(recoils, "review")

    # Two tags in the tag pane: AND, then OR.
    win.tag_pane.select_tag("physics")
    win.tag_pane.select_tag("review")
    qtbot.waitUntil(lambda: win.workbench.state.tags == ("physics", "review"), timeout=5000)
    qtbot.waitUntil(lambda: [d.id for d in win.workbench.snapshot.documents] == [recoils.id], timeout=10_000)
    win.tag_pane.set_match_mode("any")
    qtbot.waitUntil(lambda: len(win.workbench.snapshot.documents) == 3, timeout=10_000)
    win.tag_pane.clear_filter()

    # Search, then open the top result at its page.
    pane = win.search_pane
    win.focus_search()
    pane.query_edit.setText("gamma cascade after a silicon nucleus captures a neutron")
    pane.search_now()
    qtbot.waitUntil(lambda: pane.model.rowCount() > 0, timeout=60_000)
    top = pane.model.hit(0)
    assert top.document.id == recoils.id, [pane.model.hit(r).document.title for r in range(pane.model.rowCount())]
    pane.results_view.setCurrentIndex(pane.model.index(0, 0))
    QTest.keyClick(pane.results_view, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: win.current_viewer() is not None
                    and win.current_viewer().current_document_id() == recoils.id, timeout=10_000)
    pdf = win.current_viewer().viewer(PdfViewer)
    page = top.page
    assert page > 1  # the passage is to be scrolled to

    def passage_shown() -> bool:
        # The passage is highlighted on the hit's page, and that page is in view (scrolling to a match
        # near a page's top can leave the previous page's bottom at the top of the viewport).
        selected = pdf.view.currentSearchResultIndex()
        return (selected >= 0 and pdf.find_bar.model.resultAtIndex(selected).page() == page - 1
                and pdf.current_page() in (page - 1, page))

    try:
        qtbot.waitUntil(passage_shown, timeout=20_000)
    except Exception:
        selected = pdf.view.currentSearchResultIndex()
        on = pdf.find_bar.model.resultAtIndex(selected).page() + 1 if selected >= 0 else None
        raise AssertionError(f"viewer at page {pdf.current_page()}, hit on page {page}, selected result "
                             f"{selected} on page {on} of {pdf.find_bar.result_count()} for "
                             f"{pdf.find_bar.model.searchString()!r}") from None

    # Drag a document from the list onto a folder of the tree.
    win.tabs.setCurrentIndex(0)
    win.workbench.create_folder("Reading")
    qtbot.waitUntil(lambda: any(f.title == "Reading" for f in win.workbench.snapshot.folders), timeout=10_000)
    folder = next(f for f in win.workbench.snapshot.folders if f.title == "Reading")
    win.table.select_ids([plants.id])
    rows = win.table.selectionModel().selectedRows()
    mime = win.table.proxy.mimeData(rows)
    _drop_on_tree(win, FolderTarget("folder", folder.id, folder.scope), mime)
    qtbot.waitUntil(lambda: _doc(win, "phytochemical").folder_id == folder.id, timeout=10_000)

    # Switch scope: a session below sees the papers as inherited; a sibling project sees none of them.
    project = win.current_scope
    lib = win.library
    scopes.create_scope(lib, "session", "s1", parent=project, name="Session one")
    scopes.create_scope(lib, "project", "other", parent=scopes.get_scope(lib, project).parent, name="Other")
    win.workbench.set_scope("session/s1")
    qtbot.waitUntil(lambda: win.workbench.snapshot.state.scope == "session/s1", timeout=10_000)
    qtbot.waitUntil(lambda: len(win.workbench.snapshot.documents) == 3, timeout=10_000)
    scope_column = win.table.document_model.index(0, Column.SCOPE).data()
    assert scope_column.startswith("↑")
    win.workbench.set_scope("project/other")
    qtbot.waitUntil(lambda: win.workbench.snapshot.state.scope == "project/other", timeout=10_000)
    assert win.workbench.snapshot.documents == []
    assert "Other" in win.scope_switcher.breadcrumb_text()
