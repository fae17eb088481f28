"""Annotations from the terminal: ``memory annotate``, ``annotations``, ``edit-annotation`` and
``export-annotations`` (``services.annotations``). An annotation is a document: ``memory delete`` trashes
it, ``memory read`` shows it, ``memory search --type annotation`` searches only annotations."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from ..core.errors import InvalidInput
from ..core.tags import split_tag_list
from ..services import annotations, indexing, scopes
from ..services import documents as doc_service
from ..services.annotations import Annotation
from .apps import memory
from .context import JsonOption, LibraryOption, ScopeOption, WaitOption, emit, guarded, open_library, out

ColorOption = Annotated[str | None, typer.Option(
    "--color", help=f"{', '.join(annotations.COLORS)} or #rrggbb (default yellow).", show_default=False)]


class ExportFormat(StrEnum):
    """``export-annotations --format``."""

    MD = "md"
    PDF = "pdf"


def _line(item: Annotation) -> str:
    """One annotation for people: id, page, kind, where it stands, then its quote and comment."""
    flag = {"kept": "", "moved": f" (moved from p. {item.original_page})",
            "lost": " (text not found in this version)"}[item.anchor]
    head = f"{item.id}  p. {item.page}  {item.kind}{flag}"
    body = [f'  "{item.quote}"'] if item.quote else []
    return "\n".join([head, *body, *([f"  {item.comment}"] if item.comment else [])])


@memory.command("annotate")
def memory_annotate(
    doc_id: Annotated[str, typer.Argument(help="The PDF document's id.")],
    text: Annotated[str | None, typer.Option(
        "--text", help="Highlight these words (found on --page first, else anywhere).")] = None,
    page: Annotated[int | None, typer.Option("--page", "-p", min=1, help="1-based page.")] = None,
    note: Annotated[str | None, typer.Option("--note", help="The comment (a page note without --text).")] = None,
    color: ColorOption = None, tags: Annotated[str | None, typer.Option("--tags", "-t")] = None,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False, wait: WaitOption = True,
) -> None:
    """Annotate a PDF: `memory annotate DOC --text "sparse attention" --note "key idea"` highlights the words;
    `memory annotate DOC --page 3 --note "check eq. 4"` puts a note on a page. The PDF file is not changed."""
    if text is None and (page is None or not note):
        with guarded():
            raise InvalidInput('say what to annotate: --text "words" to highlight, or --page N --note "…"')
    with open_library(library) as lib:
        doc_service.get_document(lib, doc_id, acting_scope=scopes.resolve_scope(lib, scope))
        wanted = {"color": color or annotations.DEFAULT_COLOR, "tags": split_tag_list(tags)}
        if text is not None:
            made = annotations.highlight_text(lib, doc_id, text, page=page, comment=note or "", **wanted)
        else:
            made = annotations.add_note(lib, doc_id, page=page, comment=note, **wanted)  # type: ignore[arg-type]
        if wait:
            indexing.try_drain(lib, documents=[made.id])  # by meaning now, unless another process is the writer
        emit(as_json, made, lambda: out.print(f"annotated {doc_id}:\n{_line(made)}", markup=False))


@memory.command("annotations")
def memory_annotations(
    doc_id: Annotated[str, typer.Argument(help="The PDF document's id.")],
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """List a PDF's highlights and notes in reading order, placed on its current version (text no longer
    in the file is flagged, not dropped)."""
    with open_library(library) as lib:
        items = annotations.list_annotations(lib, doc_id, acting_scope=scopes.resolve_scope(lib, scope))
        emit(as_json, items, lambda: out.print("\n".join(_line(i) for i in items) or "no annotations",
                                               markup=False))


@memory.command("edit-annotation")
def memory_edit_annotation(
    annotation_id: Annotated[str, typer.Argument(help="The annotation's id.")],
    note: Annotated[str | None, typer.Option("--note", help="The new comment ('' clears a highlight's).")] = None,
    color: ColorOption = None,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False, wait: WaitOption = True,
) -> None:
    """Change an annotation's comment or colour (the previous state is kept as a version)."""
    if note is None and color is None:
        with guarded():
            raise InvalidInput("nothing to change: give --note or --color")
    with open_library(library) as lib:
        doc_service.get_document(lib, annotation_id, acting_scope=scopes.resolve_scope(lib, scope))
        item = annotations.edit_annotation(lib, annotation_id, comment=note, color=color)
        if wait:
            indexing.try_drain(lib, documents=[item.id])
        emit(as_json, item, lambda: out.print(_line(item), markup=False))


@memory.command("export-annotations")
def memory_export_annotations(
    doc_id: Annotated[str, typer.Argument(help="The PDF document's id.")],
    export_format: Annotated[ExportFormat | None, typer.Option(
        "--format", "-f", help="md: Markdown; pdf: a copy of the PDF with its annotations in the file (default: "
        "from the output file's suffix, else md).")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="The file to write (Markdown: default "
                                                "standard output).")] = None,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Export a PDF's annotations: `export-annotations DOC -o notes.md`, or `--format pdf -o annotated.pdf`
    for a copy other PDF readers show them in (the stored PDF is never changed)."""
    if export_format is None:  # as `vancetope export`: `-o annotated.pdf` is not a Markdown file
        pdf = output is not None and output.suffix.lower() == ".pdf"
        export_format = ExportFormat.PDF if pdf else ExportFormat.MD
    if export_format is ExportFormat.PDF and output is None:
        with guarded():
            raise InvalidInput("an annotated PDF needs a file to go to: -o FILE.pdf")
    with open_library(library) as lib:
        acting = scopes.resolve_scope(lib, scope)
        if output is None:
            out.print(annotations.export_markdown(lib, doc_id, acting_scope=acting), markup=False, end="")
            return
        count = annotations.export_to_file(lib, doc_id, output, as_pdf=export_format is ExportFormat.PDF,
                                           acting_scope=acting)
        emit(as_json, {"document_id": doc_id, "format": export_format.value, "output": str(output),
                       "annotations": count},
             lambda: out.print(f"wrote {output}" + (f" ({count} annotations)" if count is not None else ""),
                               markup=False))
