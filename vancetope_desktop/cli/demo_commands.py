"""``vancetope demo``: install the demo library, as Help ▸ Load the demo library does in the app."""

from __future__ import annotations

from rich.markup import escape

from ..services import demo, indexing
from .apps import app
from .context import JsonOption, LibraryOption, WaitOption, emit, err, open_library, out


@app.command("demo")
def demo_command(library: LibraryOption = None, as_json: JsonOption = False, wait: WaitOption = True) -> None:
    """Install the demo library "Transformer Efficiency Review" (three papers rendered to PDF, notes, results,
    two think processes) into the library and make its project the current scope.

    Exit codes: 0 when installed (a document that could not be added is listed, the rest are there; a demo
    installed in part before is finished); 2 when the demo is installed already (nothing is changed); 69 when the
    library's embedding model cannot run here (nothing is changed; the message says what to install).
    --json prints the report: {project, think_processes, scopes, documents: {name: id}, failures, cancelled, kept}.
    """
    with open_library(library) as lib:
        report = demo.install_demo(lib, progress=None if as_json else lambda text: err.print(text, markup=False))
        if wait:  # the papers' and notes' vectors, so that a search by meaning finds them when this ends
            indexing.try_drain(lib, documents=report.document_ids)
    emit(as_json, report, lambda: _print(report))


def _print(report: demo.DemoReport) -> None:
    finished = f"; {len(report.kept)} of them from an earlier, unfinished install" if report.kept else ""
    out.print(f"Demo library installed: {escape(report.project)} ({len(report.documents)} documents{finished}, "
              f"{len(report.scopes)} scopes; now the current scope).")
    for failure in report.failures:
        out.print(f"  not added: {escape(failure)}")
