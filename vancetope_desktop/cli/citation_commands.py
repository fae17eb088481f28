"""Citations from the terminal: ``vancetope export``, ``vancetope cite`` and ``vancetope memory citekey``."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from ..core.errors import InvalidInput
from ..services import citation_keys, citations, scopes
from ..services import documents as doc_service
from ..services.library import Library
from .apps import app, memory
from .context import JsonOption, LibraryOption, ScopeOption, emit, err, guarded, open_library, out

ExportFormat = StrEnum("ExportFormat", {name.replace("-", "_").upper(): name for name in citations.FORMATS})
Style = StrEnum("Style", {name.upper(): name for name in citations.STYLES})

IdsArgument = Annotated[list[str] | None, typer.Argument(help="Document ids (doc_…); a folder's id brings its "
                                                         "contents.", show_default=False)]
FolderOption = Annotated[str | None, typer.Option("--folder", help="A folder's documents, subfolders included.")]
QueryOption = Annotated[str | None, typer.Option("--query", "-q", help="The documents a search finds (best first).")]


def _selected(lib: Library, ids: list[str] | None, folder: str | None, query: str | None,
              scope: str | None) -> list:
    """The documents named, checked against the acting scope's visibility rule (as `memory read` does)."""
    acting = scopes.resolve_scope(lib, scope)
    for doc_id in [*(ids or []), *([folder] if folder else [])]:
        doc_service.get_document(lib, doc_id, acting_scope=acting)
    return citations.select_documents(lib, ids=ids or (), folder_id=folder, query=query, scope=acting)


@app.command("export")
def export_command(
    ids: IdsArgument = None,
    fmt: Annotated[ExportFormat | None, typer.Option(
        "--format", "-f", help="bibtex, ris or csl-json (default: from the output file's suffix, else bibtex).",
        show_default=False)] = None,
    folder: FolderOption = None, query: QueryOption = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file (default: standard "
                                                "output).", show_default=False)] = None,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Export references and PDFs as BibTeX, RIS or CSL-JSON: `export --folder FOLDER -o thesis.bib`.

    Without ids, --folder or --query: every live document the scope sees. Each document gets a stable
    citation key (first author + year + title word) the first time it is exported. One entry per work: a
    PDF and a reference with the same DOI (or citation key) are written once, from the reference. Notes,
    facts, results and annotations found by --query, --folder or the scope are left out (counted on
    standard error), as Zotero exports items and not their notes; one named by its id is exported.
    """
    with open_library(library) as lib, guarded():
        docs = _selected(lib, ids, folder, query, scope)
        if output is not None:
            result = citations.save_export(lib, docs, output, fmt.value if fmt is not None else None)
            err.print(f"exported as {citations.FORMATS[result.format][1]} to {output}: {result.summary()}",
                      markup=False)
        else:
            result = citations.export_documents(lib, docs, fmt.value if fmt is not None else "bibtex")
            if result.left_out or result.skipped or result.same_work:  # the entries go to stdout, the count aside
                err.print(result.summary(), markup=False)
        if as_json:
            emit(True, result.model_dump(mode="json", exclude={"text"} if output else set()), lambda: None)
        elif output is None:
            out.print(result.text, markup=False, end="")


@app.command("cite")
def cite_command(
    ids: IdsArgument = None,
    style: Annotated[Style, typer.Option("--style", help="The citation style.")] = Style.APA,  # type: ignore[attr-defined]
    html: Annotated[bool, typer.Option("--html", help="Print HTML (italics, bold) instead of plain text.")] = False,
    folder: FolderOption = None, query: QueryOption = None,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Format documents as bibliography entries in a citation style: `cite DOC --style nature`."""
    if not ids and folder is None and query is None:
        with guarded():
            raise InvalidInput("say what to cite: document ids, --folder or --query")
    with open_library(library) as lib, guarded():
        cited = citations.cite(lib, _selected(lib, ids, folder, query, scope), style.value)
        emit(as_json, cited, lambda: out.print(cited.html if html else cited.text, markup=False))


@memory.command("citekey")
def memory_citekey(
    doc_id: Annotated[str, typer.Argument(help="Document id.")],
    key: Annotated[str | None, typer.Argument(help="The new key (letters, digits, -_:./+). Without it: show the "
                                              "key, assigning one if the document has none yet.")] = None,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Show or set a document's citation key: `memory citekey DOC smith2020glacier`."""
    with open_library(library) as lib, guarded():
        doc_service.get_document(lib, doc_id, acting_scope=scopes.resolve_scope(lib, scope))
        if key is None:
            found = citation_keys.ensure_keys(lib, [doc_id])[doc_id]
        else:
            found = citation_keys.set_citation_key(lib, doc_id, key)
        emit(as_json, {"document_id": doc_id, "citation_key": found}, lambda: out.print(found, markup=False))
