"""The window shows a damaged search index and offers its rebuild (issue 10): the same services as
`vancetope index status` / `index rebuild`, so the CLI is not the only face that can repair it."""

import pytest

from vancetope_desktop.services import documents, indexing
from vancetope_desktop.services.library import Library
from vancetope_desktop.ui import dialogs
from vancetope_desktop.ui.tasks import TaskState

WAIT_MS = 120_000


@pytest.fixture
def truncated(tmp_path):
    """A library with one indexed note whose ``chroma.sqlite3`` was then cut to a third."""
    root = tmp_path / "lib"
    with Library.open(root) as lib:
        doc = documents.add_text(lib, "Herons nest in colonies near lakes and rivers.", title="Herons")
        indexing.try_drain(lib)
    database = root / "chroma" / "chroma.sqlite3"
    with database.open("r+b") as handle:
        handle.truncate(database.stat().st_size // 3)
    lib = Library.open(root)
    yield lib, doc.id
    lib.close()


def _task(window, title):
    return next((t for t in window.tasks.tasks if t.title == title), None)


@pytest.mark.slow
def test_a_damaged_store_is_shown_searched_by_words_and_rebuilt_from_the_menu(qtbot, truncated, make_window,
                                                                              monkeypatch):
    library, doc_id = truncated
    window = make_window(library)
    window.workbench.indexer.start()  # the indexing process that embeds again after the rebuild
    window.index_health.check()  # what the window does at start-up and when indexing fails
    qtbot.waitUntil(lambda: _task(window, "Search index") is not None, timeout=WAIT_MS)
    problem = _task(window, "Search index")
    assert problem.state == TaskState.FAILED and "vector store cannot be opened" in problem.error
    assert problem.retry is not None  # the Tasks panel's Retry rebuilds
    assert "needs a rebuild" in window.statusBar().currentMessage()

    pane = window.search_pane
    pane.query_edit.setText("heron colonies")
    pane.search_now()
    qtbot.waitUntil(lambda: "keyword results only" in pane.status_label.text(), timeout=WAIT_MS)
    assert pane.model.rowCount() == 1

    monkeypatch.setattr(dialogs, "confirm", lambda *_args: True)
    window.rebuild_index_action.trigger()
    qtbot.waitUntil(lambda: problem.state == TaskState.DONE, timeout=WAIT_MS)
    assert problem.retry is None and "Rebuilt" in problem.messages[0]
    (kept,) = (library.paths.root / "backups").glob("chroma-damaged-*")
    assert (kept / "chroma.sqlite3").exists()
    assert "the damaged store is kept in" in window.statusBar().currentMessage()
    # The indexing process embeds the queued document again; the store then matches the library.
    qtbot.waitUntil(lambda: documents.get_document(library, doc_id).index_state.value == "indexed", timeout=WAIT_MS)
    assert indexing.check_vectors(library).problems == []



@pytest.fixture
def modelless(tmp_path):
    """A library with one note whose embedding model does not resolve (a wheel without the model's package; here a
    path that is gone)."""
    from vancetope_desktop.core.settings import Settings

    lib = Library.open(tmp_path / "lib", settings=Settings(embedding_model=str(tmp_path / "gone")))
    documents.add_text(lib, "Herons nest in colonies near lakes and rivers.", title="Herons")
    yield lib
    lib.close()


@pytest.mark.slow
def test_a_missing_model_is_one_failed_task_and_one_short_line_both_cleared_once_it_works(qtbot, modelless,
                                                                                          make_window):
    """The search pane's error state and the index check say what the service says (``Library.model_problem``),
    searching by words still works, Load the demo library refuses before writing anything, and every failure
    of that one cause is one failed task; choosing the bundled model in Settings clears them all."""
    from vancetope_desktop.index.models import BUNDLED_MODEL
    from vancetope_desktop.services import demo

    problem = modelless.model_problem()
    window = make_window(modelless)
    window.workbench.indexer.start()  # loads the query encoder: it fails at once
    pane = window.search_pane
    qtbot.waitUntil(lambda: pane.model_error() == problem, timeout=WAIT_MS)
    assert pane.status_label.text() == "Keyword search only: the embedding model cannot run here."
    qtbot.waitUntil(lambda: _task(window, "Search index") is not None, timeout=WAIT_MS)  # checked on the failure
    shown = _task(window, "Search index")
    assert shown.state == TaskState.FAILED and shown.error == problem
    assert len(window.statusBar().currentMessage()) < 120  # a line, not the paragraph
    pane.query_edit.setText("heron colonies")
    pane.search_now()
    qtbot.waitUntil(lambda: pane.status_label.text().startswith("1 result"), timeout=WAIT_MS)
    window.load_demo()
    qtbot.waitUntil(lambda: window.error_box is not None, timeout=WAIT_MS)
    assert "nothing was installed" in window.error_box.text() and problem in window.error_box.text()
    assert not demo.is_installed(modelless)
    assert not any(s.path == demo.DEMO_PROJECT for s in window.workbench.snapshot.scopes)

    def failed() -> list[str]:
        return [t.title for t in window.tasks.tasks if t.state == TaskState.FAILED]

    qtbot.waitUntil(lambda: failed() == ["Search index"], timeout=WAIT_MS)  # the load, the demo: folded into it
    assert "Loading the embedding model failed for this reason too." in shown.messages
    assert "Installing the demo library failed for this reason too." in shown.messages
    assert window.indicator.button.text() == "Tasks (1 failed)"

    window.workbench.save_settings(modelless.settings.model_copy(update={"embedding_model": BUNDLED_MODEL}))
    qtbot.waitUntil(lambda: modelless.settings.embedding_model == BUNDLED_MODEL, timeout=WAIT_MS)
    pane.search_now()  # a search by meaning answers: the model works again
    qtbot.waitUntil(lambda: pane.model_error() is None, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: shown.state == TaskState.DONE, timeout=WAIT_MS)
    assert failed() == [] and window.indicator.button.text() == "Tasks"
    assert pane.status_label.property("role") == "hint" and not pane.details_button.isVisibleTo(pane)
