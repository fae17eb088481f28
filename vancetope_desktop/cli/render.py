"""Human-readable output for the CLI (rich tables and trees)."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table
from rich.tree import Tree

from ..core.documents import DocumentInfo, DocumentType, VersionInfo
from ..core.scope_info import ScopeInfo
from ..services.imports import ImportReport
from ..services.indexing import IndexStatus
from ..services.search import SearchResponse
from .context import err, out

_ICON = {"note": "📝", "file": "📄", "result": "🧪", "fact": "💡", "reference": "🔗", "structured": "📊",
         "folder": "📁"}


def tag_text(tags: list[str]) -> str:
    return " ".join(f"#{t}" for t in tags)


def documents(docs: list[DocumentInfo], acting_scope: str | None = None) -> None:
    if not docs:
        out.print("No documents.")
        return
    table = Table(show_edge=False, pad_edge=False)
    for column in ("id", "type", "title", "tags", "scope", "state"):
        table.add_column(column, overflow="fold")
    for doc in docs:
        scope = doc.scope if doc.scope == acting_scope else f"↑ {doc.scope}"
        table.add_row(doc.id, doc.type.value, escape(doc.title), escape(tag_text(doc.tags)), escape(scope),
                      doc.index_state.value if doc.status.value == "active" else doc.status.value)
    out.print(table)


def document(doc: DocumentInfo, body: str | None) -> None:
    out.print(f"[bold]{escape(doc.title)}[/bold]  ({doc.id}, {doc.type.value}, {doc.scope})")
    if doc.tags:
        out.print(escape(tag_text(doc.tags)))
    details = {k: v for k, v in doc.metadata.items() if k in ("authors", "year", "doi", "page_count", "original_name")}
    for key, value in details.items():
        shown = "; ".join(map(str, value)) if isinstance(value, list) else str(value)
        out.print(f"[dim]{key.replace('_', ' ')}:[/dim] {escape(shown)}")
    for warning in doc.metadata.get("import_warnings", []):
        out.print(f"[yellow]warning:[/yellow] {escape(str(warning))}")
    out.print(f"[dim]status:[/dim] {doc.status.value}, [dim]index:[/dim] {doc.index_state.value}"
              + (f" ({escape(doc.index_error)})" if doc.index_error else ""))
    if doc.file_path:
        out.print(f"[dim]file:[/dim] {escape(doc.file_path)}")
    if body:
        out.print()
        out.print(escape(body))


def search(response: SearchResponse) -> None:
    for warning in response.warnings:
        err.print(f"[yellow]warning:[/yellow] {escape(warning)}")
    if not response.hits:
        out.print("No results.")
        return
    for hit in response.hits:
        doc = hit.document
        where = f" p.{hit.page}" if hit.page else ""
        scope = "" if hit.distance == 0 else f" [magenta]↑{doc.scope}[/magenta]"
        out.print(f"[bold]{hit.rank}. {escape(doc.title)}[/bold]{where}{scope}  [dim]{doc.id}[/dim]")
        parts = [f"score {hit.score:.4f}"]
        if hit.vector is not None:
            parts.append(f"vector {hit.vector:.3f}")
        if hit.lexical is not None:
            parts.append(f"bm25 {hit.lexical:.2f}")
        parts.append(f"scope ×{hit.scope_weight}")
        out.print(f"   [dim]{' · '.join(parts)}[/dim]")
        if hit.snippet:
            out.print(f"   {escape(hit.snippet)}")


def browse(scope: str, docs: list[DocumentInfo]) -> None:
    by_folder: dict[str | None, list[DocumentInfo]] = {}
    ids = {d.id for d in docs}
    for doc in docs:
        parent = doc.folder_id if doc.folder_id in ids else None
        by_folder.setdefault(parent, []).append(doc)
    tree = Tree(f"[bold]{escape(scope)}[/bold]")

    def add(node: Tree, parent: str | None) -> None:
        entries = sorted(by_folder.get(parent, []), key=lambda d: (d.type != DocumentType.FOLDER, d.title.casefold()))
        for doc in entries:
            label = f"{_ICON.get(doc.type.value, '')} {escape(doc.title)} [dim]{doc.id}[/dim]"
            if doc.tags:
                label += f" [cyan]{escape(tag_text(doc.tags))}[/cyan]"
            child = node.add(label)
            if doc.type == DocumentType.FOLDER:
                add(child, doc.id)

    add(tree, None)
    out.print(tree)


def scopes(items: list[ScopeInfo], current: str) -> None:
    tree = Tree("[bold]Scopes[/bold]")
    nodes: dict[str, Tree] = {}
    for scope in items:
        parent = nodes.get(scope.parent or "", tree)
        marker = " [green]← current[/green]" if scope.path == current else ""
        nodes[scope.path] = parent.add(f"{escape(scope.name)} [dim]{escape(scope.path)}[/dim]{marker}")
    out.print(tree)


def versions(items: list[VersionInfo], current: DocumentInfo) -> None:
    table = Table(show_edge=False, pad_edge=False)
    # A version's reason is the change that replaced it, hence the column name.
    for column in ("version", "saved", "title", "tags", "then changed by"):
        table.add_column(column)
    for version in items:
        table.add_row(str(version.number), version.created_at.strftime("%Y-%m-%d %H:%M:%S"), escape(version.title),
                      escape(tag_text(version.tags)), escape(version.reason))
    table.add_row(f"{current.version} (current)", current.updated_at.strftime("%Y-%m-%d %H:%M:%S"),
                  escape(current.title), escape(tag_text(current.tags)), "")
    out.print(table)


def import_report(report: ImportReport) -> None:
    colours = {"imported": "green", "updated": "green", "duplicate": "yellow", "failed": "red",
               "needs_ocr": "yellow", "skipped": "dim"}
    for outcome in report.outcomes:
        colour = colours[outcome.status]
        line = f"[{colour}]{outcome.status:>9}[/{colour}] {escape(outcome.path)}"
        if outcome.document_id:
            line += f" → {outcome.document_id}"
        if outcome.chunks:
            line += f" ({outcome.chunks} chunks)"
        if outcome.reason:
            line += f": {escape(outcome.reason)}"
        (err if outcome.status == "failed" else out).print(line)
        for warning in outcome.warnings:
            out.print(f"          [yellow]warning:[/yellow] {escape(warning)}")
    counts: dict[str, int] = {}
    for outcome in report.outcomes:
        counts[outcome.status] = counts.get(outcome.status, 0) + 1
    out.print(", ".join(f"{n} {status}" for status, n in counts.items()) or "Nothing to import.")


def import_failures(report: ImportReport) -> None:
    """One line per failed file on stderr (also in JSON mode, where stdout holds only the JSON)."""
    for outcome in report.failed:
        err.print(f"failed {escape(outcome.path)}: {escape(outcome.reason or '')}")


def index_status(status: IndexStatus) -> None:
    out.print(f"index model: {status.index_model}")
    if status.reindex_needed:
        out.print(f"[yellow]settings ask for {status.settings_model}: run `vancetope index rebuild`[/yellow]")
    for state, count in sorted(status.states.items()):
        out.print(f"{state:>12}: {count}")
    out.print(f"queued jobs: {status.queued_jobs}")
    if status.writer_pid:
        out.print(f"indexing is done by process {status.writer_pid}")
    for doc_id, title, reason in status.failures:
        out.print(f"[red]{doc_id}[/red] {escape(title)}: {escape(reason)}")
