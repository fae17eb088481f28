"""The UI stays easy to change (issue 11): every user action has one home, the :class:`Workbench`, and the
UI's modules import each other without cycles (a dock or flow the window builds never imports the window).

Both read the source, not a running window: no QApplication is needed.
"""

import ast
from pathlib import Path

import grimp
import pytest

import vancetope_desktop.ui as ui_package

UI = Path(ui_package.__file__).parent
HOME = "workbench.py"
MACHINERY = {"tasks.py", "indexer.py", "screenshots.py"}
"""The task manager itself (Retry submits a task again), the indexing process's driver (its model load and
change poll run on the index and read lanes) and the screenshot tour (a scripted driver that adds its own
example documents): machinery, not user actions."""


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    """The package's import graph, imports under ``TYPE_CHECKING`` and inside functions included."""
    return grimp.build_graph("vancetope_desktop", cache_dir=None)


def _submitting_calls(path: Path) -> list[str]:
    """``name.run(…)`` / ``name.submit(…)`` calls in one module, as ``"line: source"``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{node.lineno}: {ast.unparse(node)[:80]}" for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in {"run", "submit"}]


def test_only_the_workbench_submits_work():
    """A widget, dock or flow calls a workbench method; it never submits a task (a write that skipped the
    refresh and the index kick, or ran on another lane, was the bug this guards against)."""
    found = {str(path.relative_to(UI)): calls for path in sorted(UI.rglob("*.py"))
             if path.name not in {HOME, *MACHINERY} and (calls := _submitting_calls(path))}
    assert found == {}


def test_every_user_write_runs_on_the_write_or_import_lane():
    """No workbench action names a lane other than ``import`` (work that extracts files, which waits behind
    the user's writes): the others run on the write lane, then refresh and kick the indexer."""
    tree = ast.parse((UI / HOME).read_text(encoding="utf-8"))
    lanes = {kw.value.value for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Attribute) and node.func.attr == "run"
             for kw in node.keywords if kw.arg == "lane" and isinstance(kw.value, ast.Constant)}
    assert lanes <= {"import"}


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle among ``edges`` (module -> modules it imports), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for imported in sorted(edges.get(module, ())):
            if state.get(imported) == 1:
                return [*path[path.index(imported):], imported]
            if imported not in state and (found := visit(imported)):
                return found
        path.pop()
        state[module] = 2
        return None

    for module in sorted(edges):
        if module not in state and (found := visit(module)):
            return found
    return None


def test_the_ui_modules_import_each_other_without_cycles(graph):
    """What the ``acyclic_siblings`` contract of ``pyproject.toml`` checks, here too so that a test run shows
    it: ``ui.main_window`` <-> ``ui.review_dock`` (and ``citation_actions``, ``notes_flow``) and
    ``ui.workbench`` <-> ``ui.index_health`` were cycles. Imports under ``TYPE_CHECKING`` count."""

    def sibling(module: str) -> str:  # ui.viewer.pdf_viewer counts as ui.viewer
        return ".".join(module.split(".")[:3])

    edges: dict[str, set[str]] = {}
    for module in graph.find_descendants("vancetope_desktop.ui"):
        for imported in graph.find_modules_directly_imported_by(module):
            if imported.startswith("vancetope_desktop.ui.") and sibling(imported) != sibling(module):
                edges.setdefault(sibling(module), set()).add(sibling(imported))
    assert _cycle(edges) is None


def test_the_window_starts_the_index_worker_through_an_import(graph):
    """The indexing process is named by an imported module (``workers.index_worker``, under the UI and the CLI),
    not by a string the import linter cannot see (it was ``-m vancetope_desktop.cli.index_worker``: the UI
    depended on the CLI unseen)."""
    assert graph.direct_import_exists(importer="vancetope_desktop.ui.indexer",
                                      imported="vancetope_desktop.workers.index_worker")
    assert not graph.chain_exists("vancetope_desktop.ui", "vancetope_desktop.cli", as_packages=True)
    source = (UI / "indexer.py").read_text(encoding="utf-8")
    assert "vancetope_desktop.cli" not in source and "index_worker.__name__" in source
