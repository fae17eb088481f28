"""``vancetope memory``: add, upload, list, browse, read, tag, share, file, edit, trash and purge documents."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from textwrap import indent
from typing import Annotated

import typer
from rich.markup import escape

from ..core.documents import DocumentInfo, DocumentStatus, DocumentType
from ..core.errors import EditConflict, EmbeddingModelMissing, IndexUnavailable, InvalidInput, MergeConflicts
from ..core.memories import MEMORY_TYPE_GUIDANCE, MemoryType
from ..core.reading import ReadingStatus, reading_status_of
from ..core.relations import RELATION_GUIDE
from ..core.tags import split_tag_list
from ..core.undo import UserAction
from ..services import (
    atom_extraction,
    audit,
    bibliography,
    edit_merge,
    folders,
    imports,
    indexing,
    lifecycle,
    memory_guard,
    relations,
    scopes,
    sharing,
    undo,
)
from ..services import documents as doc_service
from ..services.library import Library
from ..services.memory_guard import OnDuplicate
from . import render
from .apps import memory
from .context import (
    JsonOption,
    LibraryOption,
    MemoryTypeOption,
    ScopeOption,
    WaitOption,
    emit,
    err,
    guarded,
    open_library,
    out,
    print_json,
    read_stdin,
    short_model_warnings,
)
from .filters import AnyTagsOption, NotTagsOption, StatusOption, TagsOption, TypeOption, WhereOption, tag_filter
from .progress import progress


@contextmanager
def _stored_anyway() -> Iterator[None]:
    """A vector store that cannot be used does not undo a write: say so, and that keywords find it."""
    try:
        yield
    except IndexUnavailable as error:
        # A missing model: one line, once per command (`index status` says what to install); a rebuild would
        # not help until it is there.
        missing = isinstance(error, EmbeddingModelMissing)
        fix = "" if missing else f" ({indexing.REBUILD_HINT})"
        for line in short_model_warnings([f"stored, found by its words only for now: {error}{fix}"],
                                         str(error) if missing else None):
            err.print(f"[yellow]warning:[/yellow] {escape(line)}")


def _index_now(lib: Library, document_ids: list[str], wait: bool, quiet: bool, *,
               done: indexing.DrainReport | None = None, started: float | None = None) -> None:
    """Embed ``document_ids`` (the command's own documents) here if no other process is the writer, else
    wait for that process to index them (or not, with ``--no-wait``). The rest of the queue is the
    writer's: the open app's indexing process, or ``vancetope index run``.

    ``done``: what a drain alongside the command's writing (``indexing.drain_alongside``) indexed already,
    since ``started`` (``time.monotonic()``): said with what is indexed here."""
    if not wait or not document_ids:
        return
    _, queued_chunks = indexing.pending_work(lib, document_ids)
    started, report = started or time.monotonic(), None
    with progress(err) as bar, _stored_anyway():
        task = bar.add_task("embedding chunks", total=queued_chunks or None)
        report = indexing.try_drain(
            lib, documents=document_ids,
            progress=lambda p: bar.update(task, completed=p.chunks_done, total=p.chunks_total,
                                          description=p.current if p.reconnecting else "embedding chunks"),
        )
        if report is None:
            bar.update(task, description=f"indexing by process {lib.writer_lock.holder_pid()}")
            indexing.wait_until_indexed(lib, document_ids,
                                        progress=lambda done, total: bar.update(task, completed=done, total=total))
        else:
            if done is not None:
                report = indexing.DrainReport(indexed=done.indexed + report.indexed, failed=done.failed + report.failed,
                                              chunks=done.chunks + report.chunks)
            for doc_id, reason in report.failed:
                err.print(f"[red]index failed[/red] {doc_id}: {reason}")
    if report is not None and not quiet:
        if report.chunks:
            err.print(f"indexed {len(report.indexed)} document(s), {report.chunks} chunks "
                      f"in {time.monotonic() - started:.1f} s")
        others, _ = indexing.pending_work(lib)
        if others:
            err.print(f"{others} other document(s) wait for indexing: `vancetope index run` (or the open app) "
                      "embeds them")


# -- memory -----------------------------------------------------------------------------------------
@memory.command("add")
def memory_add(
    content: Annotated[str, typer.Argument(help="The text: a fact, note or result. '-' reads standard input.")],
    doc_type: Annotated[
        DocumentType | None, typer.Option("--type", help="fact, note, result, reference… (default: fact; a note "
                                          "with --memory-type).", show_default=False)
    ] = None,
    memory_type: Annotated[MemoryType | None, typer.Option(
        "--memory-type", case_sensitive=False, show_default=False,
        help="Store an agent memory (a note) of this type. " + MEMORY_TYPE_GUIDANCE)] = None,
    title: Annotated[str | None, typer.Option(help="Title (default: the first line).")] = None,
    tags: TagsOption = None, folder: Annotated[str | None, typer.Option(help="Folder id.")] = None,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
    wait: WaitOption = True,
    on_duplicate: Annotated[OnDuplicate, typer.Option(
        help="A note or fact very close to an active one of the scope: store it anyway (no check), return "
        "the existing one instead, or update it (store, and archive the closest one).")] = OnDuplicate.STORE,
    relates_to: Annotated[str | None, typer.Option(help="Relate the new document to this one (doc_…): "
                                                   "give --relation too.")] = None,
    relation: Annotated[str | None, typer.Option(help=RELATION_GUIDE)] = None,
) -> None:
    """Add a fact (or note, result…) to a scope: `memory add "Deadline is June 15th"`.

    With `--type reference`, pasted BibTeX, RIS or CSL-JSON becomes one reference per entry
    (duplicates merged into the references already there), as when a bibliography file is uploaded.
    """
    if content == "-":
        content = read_stdin()
    doc_type = doc_type or (DocumentType.NOTE if memory_type else DocumentType.FACT)
    with open_library(library) as lib:
        if (relates_to is None) != (relation is None):
            raise InvalidInput("--relates-to and --relation go together: the document and the relation type")
        if doc_type is DocumentType.REFERENCE and memory_type is None:
            listing = bibliography.add_references(lib, content, scope=scope, folder_id=folder,
                                                  tags=split_tag_list(tags), title=title)
            if listing is not None:
                _index_now(lib, listing.document_ids, wait, as_json)
                emit(as_json, listing, lambda: render.references(listing))
                return
        kept = memory_guard.remember(lib, content, scope=scopes.resolve_scope(lib, scope), doc_type=doc_type,
                                     title=title, tags=split_tag_list(tags), folder_id=folder,
                                     on_duplicate=on_duplicate, created_by=audit.current_user(),
                                     relates_to=(relates_to, relation) if relates_to and relation else None,
                                     memory_type=memory_type)
        if not kept.stored:
            emit(as_json, kept, lambda: render.held_duplicate(kept))
            return
        _index_now(lib, [kept.document.id, *kept.atoms], wait, as_json)
        doc = doc_service.get_document(lib, kept.document.id)
        emit(as_json, doc, lambda: render.added(doc, kept))


@memory.command("upload")
def memory_upload(
    paths: Annotated[list[Path], typer.Argument(help="Files and folders (folders are mirrored as folders).")],
    tags: Annotated[str | None, typer.Option("--tags", "-t", help="Comma-separated tags for every file.")] = None,
    folder: Annotated[str | None, typer.Option(help="Folder id to import into.")] = None,
    password: Annotated[str | None, typer.Option(help="Password for encrypted PDFs.")] = None,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
    wait: WaitOption = True,
    keep_both_folders: Annotated[bool, typer.Option(
        "--keep-both-folders", help="A folder named like one already there up to case (papers beside Papers) "
        "becomes a folder of its own; by default it goes into the existing one.")] = False,
    bib_folder: Annotated[bool | None, typer.Option(
        "--bib-folder/--no-bib-folder", help="A .bib, .ris or CSL-JSON file named here goes, with its references, "
        "into a new folder named after it, as in Zotero (default: the library setting bibliography_folder, "
        "on).")] = None,
) -> None:
    """Upload files or folders: `memory upload paper.pdf --tags attention,2024`. Exit 1 if any file failed.

    A file already in the library is not imported again: its line says "already in your library" and names it.
    A bibliography's keywords become tags under keyword/ (keyword/sepsis).
    """
    with open_library(library) as lib:
        started = time.monotonic()
        with progress(err) as bar:
            task = bar.add_task("importing", total=None)
            embedding = bar.add_task("embedding chunks", total=None)
            # Each file's chunks are embedded while the next file is extracted (both cores busy), when no other
            # process is the writer; otherwise that process indexes them and _index_now waits below.
            # A team library's database away: the line says "reconnecting to the database at …" in full.
            alongside = indexing.drain_alongside(lib, progress=lambda p: bar.update(
                embedding, completed=p.chunks_done, total=p.chunks_total,
                description=p.current if p.reconnecting else "embedding chunks")) if wait else None
            with _stored_anyway(), alongside or nullcontext():
                report = imports.upload(
                    lib, paths, scope=scope, folder_id=folder, tags=split_tag_list(tags), password=password,
                    progress=lambda p: bar.update(task, completed=p.done, total=p.total,
                                                  description=p.current if p.reconnecting else p.current[:40]),
                    namesakes="keep_both" if keep_both_folders else "merge", bibliography_folder=bib_folder,
                    stored=alongside.add if alongside is not None else None,
                )
                reading = bar.add_task("reading atoms", total=None)
                read = atom_extraction.extract_after_upload(lib, report, progress=lambda p: bar.update(
                    reading, completed=p.done, total=p.total, description=p.current[:40]))
                # Every file given is its work, also one an interrupted run imported (now a duplicate) but did not
                # embed, and so are the references a bibliography became.
                own = [o.document_id for o in report.outcomes if o.document_id]
                wanted = list(dict.fromkeys([*own, *report.document_ids, *read.added]))
                if alongside is not None:
                    alongside.add(wanted)
        _index_now(lib, wanted, wait, as_json, done=alongside.report if alongside is not None else None,
                   started=started)
        if as_json:
            print_json(report.model_dump(mode="json") | {"failed": len(report.failed),
                                                         "atoms": read.model_dump(mode="json")})
            render.import_failures(report)
        else:
            render.import_report(report)
    if report.failed:
        raise typer.Exit(1)


def _document_json(doc: DocumentInfo, exclude: set[str] | None = None) -> dict:
    """``doc`` as JSON with what the app's columns show: its fields, its metadata (authors, year, journal,
    doi, pages, citation_key…) and its ``reading_status`` (derived: a file is unread until marked, a note has
    none, null), as the agent tools give it."""
    reading = reading_status_of(doc.type, doc.metadata)
    return doc.model_dump(mode="json", exclude=exclude) | {"reading_status": reading.value if reading else None}


def _visible(lib: Library, doc_id: str, scope: str | None) -> None:
    """Act only on documents the acting scope (``--scope``, else the current one) may see (seed §4.2)."""
    doc_service.get_document(lib, doc_id, acting_scope=scopes.resolve_scope(lib, scope))


@memory.command("list")
def memory_list(
    tags: TagsOption = None, any_tags: AnyTagsOption = None, not_tags: NotTagsOption = None,
    where: WhereOption = None, doc_type: TypeOption = None, status: StatusOption = None,
    memory_type: MemoryTypeOption = None,
    own: Annotated[bool, typer.Option("--own", help="Only the scope's own documents, not inherited ones.")] = False,
    limit: Annotated[int | None, typer.Option("--limit", "-n", min=1)] = None,
    reading: Annotated[list[ReadingStatus] | None, typer.Option(
        "--reading", help="Only documents with this reading status (unread, reading, read).")] = None,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """List documents: `memory list --tags attention,efficiency` (both tags), `--where`, `--type`…"""
    with open_library(library) as lib:
        acting = scopes.resolve_scope(lib, scope)
        docs = doc_service.list_documents(
            lib, scope=acting, tag_filter=tag_filter(tags, any_tags, not_tags, where), types=doc_type or (),
            statuses=status or (DocumentStatus.ACTIVE,), include_ancestors=not own, limit=limit,
            reading_statuses=reading or (), memory_types=memory_type or (),
        )
        # Listings stay small: the text of each document is for `memory read`.
        emit(as_json, [_document_json(d, exclude={"content"}) for d in docs], lambda: render.documents(docs, acting))


@memory.command("browse")
def memory_browse(scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False) -> None:
    """Show the folder tree of a scope's own documents."""
    with open_library(library) as lib:
        acting = scopes.resolve_scope(lib, scope)
        docs = doc_service.list_documents(lib, scope=acting, include_ancestors=False)
        emit(as_json, docs, lambda: render.browse(acting, docs))


@memory.command("read")
def memory_read(
    doc_id: Annotated[str, typer.Argument(help="Document id (doc_…).")],
    version: Annotated[int | None, typer.Option(help="Read this earlier version.")] = None,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Print a document: its details and text (or an earlier version)."""
    with open_library(library) as lib:
        doc = doc_service.get_document(lib, doc_id, acting_scope=scopes.resolve_scope(lib, scope))
        if version is not None:
            old = doc_service.read_version(lib, doc_id, version)
            emit(as_json, old, lambda: out.print(f"{old.title} (version {old.number})\n\n{old.content or ''}",
                                                 markup=False))
            return
        emit(as_json, _document_json(doc), lambda: render.document(doc, doc.content,
                                                                  relations.document_links(lib, doc.id)))


@memory.command("tag")
def memory_tag(
    doc_id: Annotated[str, typer.Argument(help="Document id.")],
    # Repeatable: `--add a --add b` kept only b when these were single options (a tester, 3 Dec 2026).
    add: Annotated[list[str] | None, typer.Option(
        "--add", help="Tags to add: comma-separated, or the option repeated.")] = None,
    remove: Annotated[list[str] | None, typer.Option(
        "--remove", help="Tags to remove: comma-separated, or the option repeated.")] = None,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False, wait: WaitOption = True,
) -> None:
    """Add and remove tags: `memory tag DOC --add important --remove unread`."""
    with open_library(library) as lib:
        _visible(lib, doc_id, scope)
        doc = doc_service.tag_document(lib, doc_id, add=split_tag_list(",".join(add or [])),
                                       remove=split_tag_list(",".join(remove or [])),
                                       user_action=undo.user_action(lib, "Tag", [doc_id]))
        if wait:  # the new tags in its vectors' metadata; the rest is the writer's
            indexing.try_drain(lib, documents=[doc.id])
        emit(as_json, doc, lambda: out.print(f"{doc.id}: {render.tag_text(doc.tags) or '(no tags)'}"))


@memory.command("share")
def memory_share(
    doc_id: Annotated[str, typer.Argument(help="Document id (doc_…).")],
    with_scope: Annotated[str | None, typer.Option(
        "--with", "-w", help="The scope that may read it by id (and the scopes below it), e.g. think-process/tp_13. "
        "Without it: show whom the document is shared with."
    )] = None,
    remove: Annotated[bool, typer.Option("--remove", help="Take the share with --with back.")] = False,
    library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Let another branch read a document by id (not search, list or change it): `memory share DOC --with SCOPE`."""
    # No --scope check: sharing is the user's bridge across the visibility rule, not an act of one scope.
    if remove and with_scope is None:
        with guarded():
            raise InvalidInput("say which share to take back: --remove --with SCOPE")
    with open_library(library) as lib:
        if with_scope is None:
            shares = sharing.sharing_of(lib, doc_id)
        elif remove:
            shares = sharing.unshare_document(lib, doc_id, with_scope)
        else:
            shares = sharing.share_document(lib, doc_id, with_scope)
        emit(as_json, shares, lambda: out.print(
            f"{shares.document_id} (in {shares.scope}) is shared with "
            + (", ".join(shares.shared_with) if shares.shared_with else "no other scope"), markup=False))


@memory.command("mkdir")
def memory_mkdir(
    name: Annotated[str, typer.Argument(help="Folder name.")],
    parent: Annotated[str | None, typer.Option(help="Parent folder id.")] = None,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Create a folder."""
    with open_library(library) as lib:
        folder = folders.create_folder(lib, name, scope=scope, parent_id=parent)
        emit(as_json, folder, lambda: out.print(f"created folder {folder.id} {folder.title}"))


@memory.command("move")
def memory_move(
    doc_id: Annotated[str, typer.Argument(help="Document or folder id.")],
    folder: Annotated[str, typer.Option("--folder", help="Target folder id, or '/' for the top level.")],
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False,
) -> None:
    """Move a document or folder into another folder of its scope."""
    with open_library(library) as lib:
        _visible(lib, doc_id, scope)
        doc = folders.move_to_folder(lib, doc_id, None if folder == "/" else folder,
                                     user_action=undo.user_action(lib, "Move", [doc_id]))
        emit(as_json, doc, lambda: out.print(f"moved {doc.id} to {folder}"))


@memory.command("edit")
def memory_edit(
    doc_id: Annotated[str, typer.Argument(help="Document id.")],
    title: Annotated[str | None, typer.Option(help="New title.")] = None,
    content: Annotated[str | None, typer.Option(help="New text ('-' reads standard input).")] = None,
    reason: Annotated[str, typer.Option(help="Why, kept with the previous version.")] = "edited",
    update_links: Annotated[bool | None, typer.Option(
        "--update-links/--keep-links", help="Rewrite the notes' [[Old title]] links to the new title (default: the "
        "library setting update_links_on_rename, on unless changed).")] = None,
    if_version: Annotated[int | None, typer.Option(
        "--if-version", help="Only if the document is still at this version (the one you edited); else exit 6 "
        "and write nothing.")] = None,
    merge: Annotated[bool, typer.Option(
        "--merge", help="With --if-version and --content: when the document changed since, merge your text with "
        "the stored one (three-way, from version --if-version) and write the merge if it is clean; else exit 6, "
        "write nothing and show the conflicts.")] = False,
    scope: ScopeOption = None, library: LibraryOption = None, as_json: JsonOption = False, wait: WaitOption = True,
) -> None:
    """Change a note's, fact's or result's title or text; the previous version is kept. A new title also
    rewrites the [[Old title]] links of the notes that led to it, one undo step with the rename."""
    if content == "-":
        content = read_stdin()
    with open_library(library) as lib:
        if merge and (if_version is None or content is None or title is not None):
            raise InvalidInput("--merge merges a text: give it with --if-version N and --content (rename apart)")
        _visible(lib, doc_id, scope)
        verb = "Rename" if content is None else "Edit"
        action = undo.user_action(lib, verb, [doc_id])
        renamed = None
        if merge:
            doc = _merged_edit(lib, doc_id, if_version, content, action)  # type: ignore[arg-type]
        else:
            try:
                if title is not None:
                    renamed = doc_service.rename_document(lib, doc_id, title, content=content, reason=reason,
                                                          user_action=action, update_links=update_links,
                                                          expected_version=if_version)
                    doc = renamed.document
                else:
                    doc = doc_service.update_document(lib, doc_id, content=content, reason=reason,
                                                      user_action=action, expected_version=if_version)
            except EditConflict as error:
                raise _conflict_with_options(error, can_merge=content is not None and title is None) from None
        _index_now(lib, [doc.id, *(n.id for n in renamed.updated)] if renamed else [doc.id], wait, as_json)
        # The document as before, with the notes a rename rewrote (and those left linking to the old title).
        value = doc.model_dump(mode="json") | ({"links_updated": [n.model_dump() for n in renamed.updated],
                                                "links_not_updated": [n.model_dump() for n in renamed.not_updated]}
                                               if renamed else {})
        emit(as_json, value, lambda: render.edited(doc, renamed))


def _conflict_with_options(error: EditConflict, can_merge: bool) -> EditConflict:
    """The service's refusal of a stale edit, naming this command's ways on: ``--merge`` (a text edit only) or
    leaving out ``--if-version``, in place of the service's advice after its last ': '."""
    way = (f"add `--merge` to merge your text with it (three-way, from version {error.expected}), or "
           if can_merge else "read it again, or ")
    return EditConflict(f"{str(error).rsplit(': ', 1)[0]}: {way}leave out `--if-version` to save over it",
                        expected=error.expected, current=error.current)


def _merged_edit(lib: Library, doc_id: str, base: int, content: str, action: UserAction) -> DocumentInfo:
    """``memory edit --merge``: the text written, merged if need be; the conflicts shown on stderr when the merge
    is not clean (then the error goes up: exit 6, nothing written)."""
    try:
        return edit_merge.merge_edit(lib, doc_id, base, content, user_action=action)
    except MergeConflicts as conflicts:
        for hunk in conflicts.merge.conflicts if conflicts.merge is not None else ():
            err.print(f"conflict at line {hunk.line} of the merge:", markup=False)
            err.print(indent(f"yours:\n{indent(hunk.mine or '(removed)', '  ')}\n"
                             f"theirs:\n{indent(hunk.theirs or '(removed)', '  ')}", "  ").rstrip(), markup=False)
        raise


@memory.command("versions")
def memory_versions(doc_id: Annotated[str, typer.Argument()], scope: ScopeOption = None, library: LibraryOption = None,
                    as_json: JsonOption = False) -> None:
    """List a document's earlier versions."""
    with open_library(library) as lib:
        doc = doc_service.get_document(lib, doc_id, acting_scope=scopes.resolve_scope(lib, scope))
        items = doc_service.list_versions(lib, doc_id)
        emit(as_json, items, lambda: render.versions(items, doc))


def _set_status(doc_id: str, status: DocumentStatus, scope: str | None, library: Path | None, as_json: bool,
                verb: str) -> None:
    with open_library(library) as lib:
        _visible(lib, doc_id, scope)
        action = undo.user_action(lib, {"deleted": "Trash", "active": "Restore"}.get(status.value, "Archive"), [doc_id])
        changed = doc_service.set_status(lib, doc_id, status, user_action=action)
        emit(as_json, changed, lambda: out.print(f"{verb} {len(changed)} document(s)"))


@memory.command("delete")
def memory_delete(doc_id: Annotated[str, typer.Argument()], scope: ScopeOption = None, library: LibraryOption = None,
                  as_json: JsonOption = False) -> None:
    """Move a document (a folder: with its contents) to the trash."""
    _set_status(doc_id, DocumentStatus.DELETED, scope, library, as_json, "moved to the trash")


@memory.command("restore")
def memory_restore(doc_id: Annotated[str, typer.Argument()], scope: ScopeOption = None, library: LibraryOption = None,
                   as_json: JsonOption = False) -> None:
    """Bring a document back from the trash, or from archived (a superseded memory: the `updates` into it go) or
    stale."""
    with open_library(library) as lib:
        back = lifecycle.bring_back(lib, doc_id, scope=scope, user_action=undo.user_action(lib, "Restore", [doc_id]))
        emit(as_json, back, lambda: out.print(f"restored {len(back)} document(s)"))


@memory.command("archive")
def memory_archive(doc_id: Annotated[str, typer.Argument()], scope: ScopeOption = None, library: LibraryOption = None,
                   as_json: JsonOption = False) -> None:
    """Archive a document: kept, but left out of lists and search unless asked for."""
    _set_status(doc_id, DocumentStatus.ARCHIVED, scope, library, as_json, "archived")


YesOption = Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation (for scripts).")]


def _confirm(question: str, yes: bool) -> None:
    """Ask before a permanent deletion unless ``--yes``; no answer (or no terminal to ask on) cancels."""
    if not yes and not typer.confirm(question, default=False, err=True):
        err.print("nothing deleted")
        raise typer.Exit(1)


@memory.command("purge")
def memory_purge(doc_id: Annotated[str, typer.Argument()], scope: ScopeOption = None, library: LibraryOption = None,
                 yes: YesOption = False, as_json: JsonOption = False, wait: WaitOption = True) -> None:
    """Delete a trashed document for good; a trashed folder goes with everything inside it (all or none)."""
    with open_library(library) as lib:
        _visible(lib, doc_id, scope)
        doc = doc_service.get_document(lib, doc_id)
        inside = " and everything inside it" if doc.type is DocumentType.FOLDER else ""
        _confirm(f"Delete {doc.title!r}{inside} for good? This cannot be undone.", yes)
        purged = doc_service.purge_document(lib, doc_id)
        if wait:  # drop their vectors (else the writer does, and search skips purged ids meanwhile)
            indexing.try_drain(lib, documents=purged)
        emit(as_json, {"purged": doc_id, "deleted": purged},
             lambda: out.print(f"purged {doc_id}" + (f" ({len(purged)} documents)" if len(purged) > 1 else "")))


@memory.command("empty-trash")
def memory_empty_trash(scope: ScopeOption = None, library: LibraryOption = None, yes: YesOption = False,
                       as_json: JsonOption = False, wait: WaitOption = True) -> None:
    """Delete every trashed document of the scope (default: the current one) for good, all or none."""
    with open_library(library) as lib:
        path = scopes.resolve_scope(lib, scope)
        trashed = doc_service.list_documents(lib, scope=path, include_ancestors=False,
                                             statuses=[DocumentStatus.DELETED])
        if trashed:
            _confirm(f"Delete the {len(trashed)} document{'s' if len(trashed) != 1 else ''} in the trash of "
                     f"{path} for good? This cannot be undone.", yes)
        purged = doc_service.empty_trash(lib, path)
        if wait:
            indexing.try_drain(lib, documents=purged)
        emit(as_json, {"scope": path, "deleted": purged},
             lambda: out.print(f"deleted {len(purged)} document{'s' if len(purged) != 1 else ''} for good"))
