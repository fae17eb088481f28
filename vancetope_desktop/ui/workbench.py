"""The window's controller and the one home of the user's actions, run through the services on worker threads.

Every write the user can make is a method here: a thin call of a service function (the one the CLI command
and the agent tool call too) submitted by :meth:`Workbench.run` to the write lane (``import`` for work that
extracts files); when it ends the controller reloads the :class:`Snapshot` (the latest request wins),
announces it on ``snapshot_ready`` and kicks the indexing process. Reads go through :meth:`Workbench.read`.
Panes, docks and flows never submit work or call a writing service themselves: they call these methods,
or the main window wires their signals here (``tests/ui/test_action_home.py`` checks it).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from ..core.documents import DocumentStatus, DocumentType
from ..core.errors import EditConflict, ScopeNotFound
from ..core.reading import ReadingStatus
from ..core.settings import Settings
from ..core.undo import UserAction
from ..ingest.process_pool import ProcessExtractor
from ..services import (
    annotations,
    atom_extraction,
    atoms,
    audit,
    citation_keys,
    citations,
    conflicts,
    conversations,
    demo,
    digest,
    documents,
    duplicates,
    episodes,
    folders,
    generators,
    imports,
    indexing,
    library_settings,
    lifecycle,
    memories,
    moves,
    promotion_rules,
    reading,
    review,
    saved_searches,
    scopes,
    source_profile,
    tags,
    topic_upkeep,
    topics,
    undo,
)
from ..services.library import Library
from ..services.saved_searches import SavedSearch
from .folder_model import FolderTarget
from .indexer import Indexer
from .review_model import ReviewDetails, load_review_details
from .snapshot import Snapshot, ViewState, load_snapshot
from .task_text import TaskMessage, extraction_messages, import_messages
from .tasks import Task, TaskContext, TaskManager, TaskState
from .viewer.pdf_annotations import AnnotationRequest

OPENING_PROFILES = 200
"""Sources profiled when the app opens, newest first: with the built-in generator a few minutes of background
work at most (0.1-0.5 s a source on this machine); a large old library converges over a few openings, and
``vancetope memory profile --missing`` does all at once."""

_ANNOTATION_TITLES = {"highlight": "Highlight", "note": "Add note", "edit": "Edit annotation",
                      "delete": "Delete annotation"}


class Workbench(QObject):
    """Holds the view state, loads snapshots and runs user actions in the background.

    Signals:
        snapshot_ready(Snapshot): fresh data for every pane.
        failed(str): an action failed; the text says why (shown in the status bar or a dialog).
        notice(str): something finished that the user should hear about ("Imported 12 files").
        documents_imported(list): ids of documents an import created or updated.
        file_stored(list): ids of the documents one file of a running import just committed (emitted on the
            import's thread): the indexing process is woken to embed them while the next file is extracted.
    """

    snapshot_ready = Signal(object)
    failed = Signal(str)
    notice = Signal(str)
    documents_imported = Signal(list)
    file_stored = Signal(list)

    def __init__(self, lib: Library, tasks: TaskManager, parent: QObject | None = None, *,
                 scope: str | None = None) -> None:
        super().__init__(parent)
        self.lib = lib
        self.tasks = tasks
        self.indexer = Indexer(lib, tasks, self)
        self.extractor = ProcessExtractor(lambda: lib.settings.extraction_timeout_s)
        # The window's scope is its own (remembered by the window); the CLI's current scope stays put.
        self.state = ViewState(scope=scope or scopes.current_scope(lib))
        self.snapshot: Snapshot | None = None
        self._generation = itertools.count(1)
        self._latest = self._shown = 0  # the newest load asked for, the newest shown
        self._requested = self.state  # the view the newest load was asked for
        self.indexer.finished.connect(lambda _report: self.refresh())
        self.indexer.outside_change.connect(self._outside_change)
        # A method of this object, so the import thread's emission is queued to the UI thread (QProcess is not
        # thread-safe); without it the indexing process found each file's work only at its next poll.
        self.file_stored.connect(self._wake_indexer)
        # While a long drain runs, show documents turning "indexed" every few seconds, not per batch.
        self._progress_refresh = QTimer(self)
        self._progress_refresh.setSingleShot(True)
        self._progress_refresh.setInterval(3000)
        self._progress_refresh.timeout.connect(self.refresh)
        self.indexer.progressed.connect(lambda: self._progress_refresh.isActive() or self._progress_refresh.start())

    def announce_opening(self) -> None:
        """Tell what opening the library did (``Library.notices``: a copy made before a migration, and where it
        is) in the status bar and as a finished task in the Tasks panel."""
        if not self.lib.notices:
            return
        task = self.tasks.track("Library opened", lambda: None)
        task.messages = [TaskMessage(text, problem=False) for text in self.lib.notices]
        self.tasks.finish(task, TaskState.DONE)
        self.notice.emit(" ".join(f"{text[0].upper()}{text[1:]}." for text in self.lib.notices))

    def start_background(self) -> None:
        """Start the indexer (model load, indexing process, change poll) once the first snapshot is shown.

        Started together, the model's load and the indexing process's start held the GIL and both cores while
        the first snapshot waited: a new user saw an empty window for 5-21 s on a loaded machine.
        """
        if self.snapshot is not None:
            self.indexer.start()
            return

        def first(_snapshot: Snapshot) -> None:
            self.snapshot_ready.disconnect(first)
            self.indexer.start()

        self.snapshot_ready.connect(first)

    def close(self) -> None:
        """Stop the background work at once (the window is closing).

        The indexing process is told to stop and not waited for (its queue is durable); the file being
        extracted is abandoned (an import records nothing after it is cancelled, see :meth:`commit_gate`),
        so what is left to wait for is a step of a user edit, a load or the model's loading (seconds).
        """
        self.indexer.stop()
        self.tasks.stop()
        self.extractor.kill()
        self.tasks.wait_idle()
        self.extractor.close()

    def _outside_change(self) -> None:
        # While this window imports, its own writes move the counter every file: show them every few
        # seconds rather than reloading every pane each poll.
        if any(t.lane in ("write", "import") for t in self.tasks.active()):
            if not self._progress_refresh.isActive():
                self._progress_refresh.start()
        else:
            self.refresh()

    # --- loading ---------------------------------------------------------------------------------
    def refresh(self, state: ViewState | None = None) -> None:
        """Load a snapshot for ``state`` (default: the current one) on the ``snapshot`` lane.

        Loads run one at a time; a queued load that a newer one superseded ends at once without reading
        anything. A finished load is shown unless a newer one was shown already or the user asked for another
        view meanwhile: with loads slower than the refreshes asked for (every 3 s during an import, on a
        loaded machine), dropping every load but the latest showed nothing new for minutes.
        """
        if state is not None:
            self.state = state
        generation = self._latest = next(self._generation)
        lib, wanted = self.lib, self.state
        self._requested = wanted

        def load(_context: TaskContext) -> tuple[int, Snapshot] | None:
            if generation != self._latest:
                return None  # a newer load waits behind this one and reads everything this one would
            counter = lib.change_counter() + lib.index_generation()  # the sum the indexer's poll watches
            try:
                return counter, load_snapshot(lib, wanted)
            except ScopeNotFound:  # archived or renamed elsewhere: fall back to the library's current scope
                return counter, load_snapshot(lib, ViewState(scope=scopes.current_scope(lib)))

        self.tasks.submit("load", load, lane="snapshot",
                          on_result=lambda result: result is None or self._loaded(generation, wanted, *result),
                          on_error=lambda error: self._load_failed(generation, error))

    def _loaded(self, generation: int, wanted: ViewState, counter: int, snapshot: Snapshot) -> None:
        self.indexer.note_counter(counter)
        if generation < self._shown or (generation != self._latest and wanted != self._requested):
            return
        self._shown = generation
        self.state = self._requested = snapshot.state
        self.snapshot = snapshot
        self.snapshot_ready.emit(snapshot)

    def _load_failed(self, generation: int, error: BaseException) -> None:
        if generation != self._latest:
            return
        self.failed.emit(f"Could not load the library: {error}")

    def set_scope(self, path: str) -> None:
        """Show ``path``: its own documents and its ancestors' (the CLI's current scope is not changed)."""
        self.refresh(ViewState(scope=path, tags=self.state.tags, tag_mode=self.state.tag_mode,
                               subfolders=self.state.subfolders))

    def set_target(self, target: FolderTarget) -> None:
        """Show the documents of a smart entry, a scope or a folder (nothing is loaded when that is already shown or
        asked for)."""
        wanted = replace(self.state, target=target)
        if not _lists_alike(wanted, self.state):
            self.refresh(wanted)

    def set_tag_filter(self, selected: Sequence[str], mode: str) -> None:
        """Filter the document list by tags (``mode`` ``all`` or ``any``)."""
        self.refresh(replace(self.state, tags=tuple(selected), tag_mode=mode))

    def set_subfolders(self, on: bool) -> None:
        """Whether a folder shows the documents of its subfolders too."""
        self.refresh(replace(self.state, subfolders=on))

    # --- running actions -------------------------------------------------------------------------
    def run(self, title: str, fn: Callable[[TaskContext], Any], *, on_result: Callable[[Any], None] | None = None,
            on_error: Callable[[BaseException], None] | None = None, visible: bool = False, index: bool = True,
            lane: str = "write") -> Task:
        """Run a write ``fn``, then refresh (and index, when ``index``).

        Args:
            on_error: called with the exception before the failure is announced on ``failed``.
            lane: ``write`` for the user's own edits (serial, ahead of imports); ``import`` for work that
                extracts files, which must call :meth:`commit_gate` before each of its commits.
        """

        def done(result: Any) -> None:
            if on_result is not None:
                on_result(result)
            self.refresh()
            if index:
                self.indexer.kick()

        def failed(error: BaseException) -> None:
            if on_error is not None:
                on_error(error)
            self._action_failed(title, error)

        return self.tasks.submit(title, fn, lane=lane, visible=visible, on_result=done, on_error=failed)

    @Slot(list)
    def _wake_indexer(self, _document_ids: list[str]) -> None:
        self.indexer.kick()

    def commit_gate(self, context: TaskContext) -> Callable[[], None]:
        """What import work calls before each commit, on its thread: wait while the user's own edits are
        queued or running, then raise :class:`TaskCancelled` if the import was cancelled (or the window is
        closing: a file whose extraction was cut short must not be recorded as damaged)."""

        def gate() -> None:
            self.tasks.user_writes.wait_clear()
            context.check()

        return gate

    def read(self, fn: Callable[[TaskContext], Any], on_result: Callable[[Any], None], *, title: str = "Loading",
             on_error: Callable[[BaseException], None] | None = None) -> Task:
        """Run a read ``fn`` on the read lane (no refresh: nothing changed) and hand its result to ``on_result``.

        Every read of the window goes through here: a load for a pane, what an action needs before asking
        the user, a search. A failure goes to ``on_error`` when given (the search pane shows its own), else
        is announced on ``failed`` as "<title> failed: …".
        """
        failed = on_error or (lambda error: self._action_failed(title, error))
        return self.tasks.submit(title, fn, lane="read", on_result=on_result, on_error=failed)

    def _action_failed(self, title: str, error: BaseException) -> None:
        self.failed.emit(f"{title} failed: {error}")
        self.refresh()

    # --- imports ---------------------------------------------------------------------------------
    ask_namesakes: Callable[[list[imports.FolderNamesake]], imports.Namesakes | None] | None = None
    """Set by the window: asks whether folders named like existing ones up to case go into them
    (``merge``), sit beside them (``keep_both``) or are not imported (None). Unset: merge, as the CLI does."""

    def import_paths(self, paths: Sequence[Path], target: FolderTarget | None = None, *,
                     namesakes: imports.Namesakes | None = None) -> Task | None:
        """Import files and folders (folders become folders) into a folder or scope of the current scope.

        The task lists each failed file with its reason, and files already in the library; Retry imports
        only the failed ones again. A folder named like one already there up to case (``papers`` beside
        ``Papers``) is asked about first (:attr:`ask_namesakes`) unless ``namesakes`` says; None when the
        user cancels.
        """
        scope, folder_id = self._destination(target)
        lib, wanted = self.lib, list(paths)
        noun = _describe(wanted)
        if namesakes is None:
            found = imports.folder_namesakes(lib, wanted, scope=scope, folder_id=folder_id)
            namesakes = self.ask_namesakes(found) if found and self.ask_namesakes is not None else "merge"
            if namesakes is None:
                return None
        chosen: imports.Namesakes = namesakes

        def work(context: TaskContext) -> imports.ImportReport:
            report = imports.upload(
                lib, wanted, scope=scope, folder_id=folder_id,
                progress=lambda p: context.progress(p.done, p.total, p.current),
                cancel=context.cancelled, extractor=self.extractor, namesakes=chosen,
                before_commit=self.commit_gate(context), stored=self.file_stored.emit)
            if not context.cancelled():  # the notes' atoms, and the files' where the scope says (a notice)
                atom_extraction.extract_after_upload(
                    lib, report, progress=lambda p: context.progress(p.done, p.total, f"Reading atoms: {p.current}"),
                    cancel=context.cancelled, before_commit=self.commit_gate(context))
            return report

        task: Task | None = None

        def done(report: imports.ImportReport) -> None:
            failed = report.failed
            if task is not None:
                task.messages = list(import_messages(report))
                if failed:
                    retry_paths = [Path(o.path) for o in failed]
                    task.retry = lambda: self.import_paths(retry_paths, target)
            self.notice.emit(import_summary(report))
            self.documents_imported.emit(report.document_ids)

        task = self.run(f"Importing {noun}", work, on_result=done, visible=True, lane="import")
        # Reading the folders and hashing the files comes before the first progress report: say so at once.
        self.tasks.update(task, 0, 0, "Preparing…")
        self.notice.emit(f"Importing {noun}: preparing…")
        return task

    def extract_atoms(self, doc_ids: Sequence[str], *, at_import: bool = False,
                      on_done: Callable[[atom_extraction.ExtractionReport], None] | None = None) -> Task:
        """Read the atoms of ``doc_ids`` on the import lane (progress, cancel, a commit gate before each source's
        atoms are stored), as ``vancetope atoms extract`` does: the task lists what each source gave and the
        status bar says the summary. ``at_import``: only those the policy reads when written (a new note), quietly
        unless atoms came (``atom_extraction.extract_at_import``)."""
        lib, wanted = self.lib, list(doc_ids)
        read = atom_extraction.extract_at_import if at_import else atom_extraction.extract_atoms

        def work(context: TaskContext) -> atom_extraction.ExtractionReport:
            return read(lib, wanted, progress=lambda p: context.progress(p.done, p.total, p.current),
                        cancel=context.cancelled, before_commit=self.commit_gate(context))

        task: Task | None = None

        def done(report: atom_extraction.ExtractionReport) -> None:
            if task is not None:
                task.messages = extraction_messages(report)
            if report.added or not at_import:
                self.notice.emit(f"Extract atoms: {report.summary()}")
            if on_done is not None:
                on_done(report)

        noun = f"{len(wanted)} document{'s' if len(wanted) != 1 else ''}"
        task = self.run(f"Extracting atoms from {noun}", work, on_result=done, visible=not at_import, lane="import")
        return task

    def _destination(self, target: FolderTarget | None) -> tuple[str, str | None]:
        """Scope and folder id an import or new note goes to: the chosen folder, else the current scope."""
        target = target or self.state.target
        if target.kind == "folder" and target.scope == self.state.scope:
            return target.scope, target.key
        return self.state.scope, None

    # --- documents -------------------------------------------------------------------------------
    def new_note(self, title: str, content: str, on_created: Callable[[Any], None] | None = None, *,
                 memory_type: str | None = None) -> Task:
        """Create a note in the current folder (or the scope's top level); ``memory_type``: what it is for as
        an agent memory (``core.memories``; None: none), as ``memory add --memory-type``."""
        scope, folder_id = self._destination(None)
        lib = self.lib

        def created(doc: Any) -> None:
            self.extract_atoms([doc.id], at_import=True)  # its atoms, read after it is saved (not in the way)
            self.make_profiles([doc.id], only_missing=True, visible=False)  # on the import lane, not this one
            if on_created is not None:
                on_created(doc)

        return self.run("New note", lambda _c: documents.add_text(
            lib, content, doc_type=DocumentType.NOTE, title=title, scope=scope, folder_id=folder_id,
            memory_type=memory_type, profile=False), on_result=created)

    def rename_document(self, doc_id: str, title: str) -> Task:
        """Give a document (or folder) a new title; the notes linking to it by its old title follow it (the
        library setting "Update links when renaming")."""
        return self.run("Rename", lambda _c: documents.rename_document(
            self.lib, doc_id, title, user_action=undo.user_action(self.lib, "Rename", [doc_id])),
            on_result=self._renamed)

    def _renamed(self, renamed: documents.Renamed) -> None:
        """Say which notes followed a rename, and which keep the old title (their link is now missing)."""
        said = [f"links updated in {len(renamed.updated)} note{'s' if len(renamed.updated) != 1 else ''}"] \
            if renamed.updated else []
        said += [f"{', '.join(f'“{n.title}”' for n in renamed.not_updated)} still link to the old title (not "
                 "rewritten: annotations, or notes you may not write)"] if renamed.not_updated else []
        if said:
            self.notice.emit(f"Renamed “{renamed.document.title}”: {'; '.join(said)}")

    def save_content(self, doc_id: str, content: str, on_saved: Callable[[Any], None] | None = None, *,
                     expected_version: int | None = None,
                     on_conflict: Callable[[EditConflict], None] | None = None) -> Task:
        """Save an edited note's text as a new version.

        With ``expected_version`` (the version the draft was made on) a document changed since is not
        overwritten: ``on_conflict`` gets the :class:`EditConflict` instead of ``on_saved`` a document, and
        no failure is announced (the caller asks the user).
        """
        lib = self.lib

        def work(_context: TaskContext) -> Any:
            try:
                return documents.update_document(lib, doc_id, content=content, expected_version=expected_version,
                                                 user_action=undo.user_action(lib, "Edit", [doc_id]),
                                                 refresh_profile=False)  # remade on the import lane below
            except EditConflict as conflict:
                if on_conflict is None:
                    raise
                return conflict

        def done(result: Any) -> None:
            if isinstance(result, EditConflict):
                on_conflict(result)  # type: ignore[misc]
                return
            self.make_profiles([doc_id], only_missing=True, visible=False)
            if on_saved is not None:
                on_saved(result)

        return self.run("Save", work, on_result=done)

    def update_metadata(self, doc_id: str, metadata: dict[str, Any]) -> Task:
        """Change metadata fields (authors, year…) of a document."""
        return self.run("Edit metadata", lambda _c: documents.update_document(
            self.lib, doc_id, metadata=metadata, user_action=undo.user_action(self.lib, "Edit", [doc_id])))

    def add_tag(self, doc_ids: Sequence[str], tag: str) -> Task:
        """Add ``tag`` to every document of ``doc_ids``."""
        ids, lib = list(doc_ids), self.lib

        def work(_context: TaskContext) -> list:
            action = undo.user_action(lib, f"Add #{tag} to", ids)
            return [documents.tag_document(lib, i, add=[tag], user_action=action) for i in ids]

        return self.run("Add tag", work)

    def remove_tag(self, doc_ids: Sequence[str], tag: str) -> Task:
        """Remove ``tag`` (and the tags below it) from every document of ``doc_ids``."""
        ids, lib = list(doc_ids), self.lib

        def work(_context: TaskContext) -> list:
            action = undo.user_action(lib, f"Remove #{tag} from", ids)
            return [documents.tag_document(lib, i, remove=[tag], user_action=action) for i in ids]

        return self.run("Remove tag", work)

    def set_status(self, doc_ids: Sequence[str], status: DocumentStatus, title: str) -> Task:
        """Move documents to the trash (``deleted``) or back (``active``)."""
        ids, lib = list(doc_ids), self.lib

        def work(_context: TaskContext) -> list:
            action = undo.user_action(lib, "Trash" if status is DocumentStatus.DELETED else "Restore", ids)
            return [documents.set_status(lib, i, status, user_action=action) for i in ids]

        return self.run(title, work)

    def purge(self, doc_ids: Sequence[str]) -> Task:
        """Delete trashed documents for good, folders with their contents, all or none (``purge_documents``)."""
        ids, lib = list(doc_ids), self.lib
        return self.run("Delete permanently", lambda _c: documents.purge_documents(lib, ids))

    def empty_trash(self) -> Task:
        """Delete every trashed document of the current scope for good, all or none (``empty_trash``)."""
        lib, scope = self.lib, self.state.scope
        return self.run("Empty trash", lambda _c: documents.empty_trash(lib, scope),
                        on_result=lambda ids: self.notice.emit(f"Deleted {len(ids)} documents for good"))

    def restore_version(self, doc_id: str, number: int) -> Task:
        """Bring back version ``number`` of a document (kept as a new version)."""
        return self.run("Restore version", lambda _c: documents.restore_version(self.lib, doc_id, number,
                                                                                 refresh_profile=False),
                        on_result=lambda _doc: self.make_profiles([doc_id], only_missing=True, visible=False))

    def retry_document(self, doc_id: str, password: str | None = None) -> Task:
        """Extract a failed document's stored original again, in place (with the PDF's password if given)."""
        lib = self.lib

        def work(context: TaskContext) -> imports.ImportOutcome:
            return imports.retry_import(lib, doc_id, password=password, extractor=self.extractor,
                                        before_commit=self.commit_gate(context))

        def done(outcome: imports.ImportOutcome) -> None:
            if outcome.status == "failed":
                self.failed.emit(f"Still failing: {outcome.reason}")
            else:
                self.notice.emit(f"{outcome.title}: imported, indexing now")

        return self.run("Retry import", work, on_result=done, visible=True, lane="import")

    # --- folders ---------------------------------------------------------------------------------
    def create_folder(self, name: str, parent: FolderTarget | None = None) -> Task:
        """Create a folder under a folder of the current scope (or at its top level)."""
        scope, parent_id = self._destination(parent)
        return self.run("New folder", lambda _c: folders.create_folder(self.lib, name, scope=scope,
                                                                       parent_id=parent_id), index=False)

    def rename_folder(self, folder_id: str, name: str) -> Task:
        """Rename a folder."""
        return self.run("Rename folder", lambda _c: folders.rename_folder(
            self.lib, folder_id, name, user_action=undo.user_action(self.lib, "Rename", [folder_id])), index=False)

    def move_documents(self, doc_ids: Sequence[str], target: FolderTarget) -> Task:
        """Put documents (or folders) into a folder of their scope, or at the top level for a scope target."""
        ids, folder_id, lib = list(doc_ids), target.key if target.kind == "folder" else None, self.lib

        def work(_context: TaskContext) -> list:
            action = undo.user_action(lib, "Move", ids)
            return [folders.move_to_folder(lib, i, folder_id, user_action=action) for i in ids]

        return self.run("Move", work, index=False)

    # --- tags ------------------------------------------------------------------------------------
    def rename_tag(self, old: str, new: str) -> Task:
        """Rename a tag across the library; the tags below it follow."""
        action = UserAction(label=f"Rename #{old} to #{new}", actor=audit.current_user())
        return self.run("Rename tag", lambda _c: tags.rename_tag(self.lib, old, new, user_action=action))

    def merge_tags(self, sources: Sequence[str], target: str) -> Task:
        """Merge tags into one."""
        wanted = list(sources)
        action = UserAction(label=f"Merge tags into #{target}", actor=audit.current_user())
        return self.run("Merge tags", lambda _c: tags.merge_tags(self.lib, wanted, target, user_action=action))

    def delete_tags(self, doomed: Sequence[str]) -> Task:
        """Remove tags (and the tags below them) from every document."""
        wanted = list(doomed)
        action = UserAction(label="Delete " + ", ".join(f"#{t}" for t in wanted), actor=audit.current_user())
        return self.run("Delete tags", lambda _c: tags.delete_tags(self.lib, wanted, user_action=action))

    def set_tag_color(self, tag: str, color: str | None) -> Task:
        """Colour a tag (None: back to its automatic colour)."""
        return self.run("Tag colour", lambda _c: tags.set_tag_color(self.lib, tag, color), index=False)

    # --- scopes ----------------------------------------------------------------------------------
    def create_scope(self, kind: str, key: str, name: str, parent: str | None) -> Task:
        """Create a scope and switch to it."""
        lib = self.lib

        def work(_context: TaskContext) -> str:
            return scopes.create_scope(lib, kind, key, parent=parent, name=name).path

        return self.run("New scope", work, on_result=lambda path: setattr(self, "state", ViewState(scope=path)),
                        index=False)

    def rename_scope(self, path: str, name: str) -> Task:
        """Give a scope a new human name."""
        return self.run("Rename scope", lambda _c: scopes.rename_scope(self.lib, path, name), index=False)

    def archive_scope(self, path: str) -> Task:
        """Archive a scope and everything below it; the window moves up if it showed one of them."""
        lib, showing = self.lib, self.state.scope

        def work(_context: TaskContext) -> str:
            archived = scopes.archive_scope(lib, path)
            if path in scopes.ancestry(lib, showing):
                return archived.parent or scopes.current_scope(lib)
            return showing

        return self.run("Archive scope", work, on_result=lambda scope: setattr(
            self, "state", ViewState(scope=scope)), index=False)

    # --- library ---------------------------------------------------------------------------------
    def install_demo(self) -> Task:
        """Fill the library with the seed's "Transformer Efficiency Review" demo (or finish one installed in part)
        and switch to it; when it is all there already, only switch. A library whose embedding model cannot run
        gets the install's refusal, saying what to install, as the task's error."""
        lib = self.lib

        def work(context: TaskContext) -> demo.DemoReport | None:
            if demo.is_installed(lib):
                return None
            return demo.install_demo(lib, progress=lambda text: context.progress(0, 0, text),
                                     cancel=context.cancelled)

        def done(report: demo.DemoReport | None) -> None:
            self.state = ViewState(scope=demo.DEMO_PROJECT if report is None else report.project)
            self.notice.emit("The demo library is installed already: here it is." if report is None
                             else "The demo library is ready: Transformer Efficiency Review")

        return self.run("Installing the demo library", work, on_result=done, visible=True, lane="import")

    def set_endpoint_key(self, url: str, key: str) -> Task:
        """Keep the generator endpoint's API key in the system keyring (a failure, e.g. no keyring, is reported
        as the task's error: the key is then kept nowhere)."""
        return self.run("Keep the endpoint key", lambda _context: generators.set_endpoint_key(url, key))

    def save_settings(self, settings: Settings) -> Task:
        """Save the library's settings; a new embedding model or precision re-indexes the library
        (``library_settings.apply_settings``, as ``vancetope settings set``); settings that cannot run here are
        refused, as the task's error, and nothing is saved."""
        lib = self.lib
        return self.run("Save settings", lambda _context: library_settings.apply_settings(lib, settings))

    def rebuild_index(self, on_done: Callable[[indexing.RebuildReport], None] | None = None) -> Task:
        """Rebuild the search index from the library (``indexing.rebuild_index``, as ``vancetope index
        rebuild``); the indexing process then embeds every document again."""
        lib = self.lib
        return self.run("Rebuild search index", lambda _c: indexing.rebuild_index(lib), on_result=on_done,
                        visible=True)

    # --- the review queue (issue 4) ----------------------------------------------------------------
    def approve_requests(self, request_ids: Sequence[str], *, to: str | None = None, title: str | None = None,
                         add_tags: Sequence[str] = (), remove_tags: Sequence[str] = (),
                         on_error: Callable[[BaseException], None] | None = None) -> Task:
        """Approve promotion requests through ``review.approve`` (all or none), optionally to scope ``to``
        and with a new title (one request) or tag edits made first. ``on_error``: see :meth:`run`."""
        ids, lib, added, removed = list(request_ids), self.lib, list(add_tags), list(remove_tags)

        def work(_context: TaskContext) -> list:
            return review.approve(lib, ids, to=to, title=title, add_tags=added, remove_tags=removed)

        def done(decided: list) -> None:
            names = self.snapshot.scope_names if self.snapshot is not None else {}
            targets = sorted({names.get(r.final_scope, r.final_scope) for r in decided if r.final_scope})
            self.notice.emit(f"Approved {len(decided)} request{'s' if len(decided) != 1 else ''}"
                             + (f": now in {', '.join(targets)}" if targets else ""))

        return self.run("Approve", work, on_result=done, on_error=on_error)

    def reject_requests(self, request_ids: Sequence[str], reason: str,
                        on_error: Callable[[BaseException], None] | None = None) -> Task:
        """Reject promotion requests with ``reason`` (required) through ``review.reject``; the documents stay.
        ``on_error``: see :meth:`run`."""
        ids, lib = list(request_ids), self.lib

        def done(decided: list) -> None:
            self.notice.emit(f"Rejected {len(decided)} request{'s' if len(decided) != 1 else ''}")

        return self.run("Reject", lambda _c: review.reject(lib, ids, reason=reason), on_result=done,
                        on_error=on_error, index=False)

    def load_review_details(self, request: Any, on_loaded: Callable[[ReviewDetails], None]) -> Task:
        """Read what the Review pane shows of ``request`` (a ``PromotionRequest``) on the read lane."""
        return self.read(lambda _c: load_review_details(self.lib, request), on_loaded)

    def undo(self, *, redo: bool = False, label: str = "", on_done: Callable[[Any], None] | None = None,
             on_error: Callable[[BaseException], None] | None = None) -> Task:
        """Undo (or, with ``redo``, redo) the user's latest action in this library (``services.undo``);
        ``on_done`` gets the :class:`UndoStep` taken, ``on_error`` the failure (see :meth:`run`). Says
        "Undoing <label>…" at once: on a loaded machine the answer can take seconds."""
        lib, verb = self.lib, "Redo" if redo else "Undo"

        def done(step: Any) -> None:
            self.notice.emit(f"{verb} {step.label}")
            if on_done is not None:
                on_done(step)

        self.notice.emit(f"{'Redoing' if redo else 'Undoing'}{' ' + label if label else ''}…")
        return self.run(verb, lambda _c: undo.redo(lib) if redo else undo.undo(lib), on_result=done,
                        on_error=on_error)

    def load_document_history(self, doc_id: str, on_loaded: Callable[[tuple[list, list]], None]) -> Task:
        """Read a document's audit entries (oldest first) and all its promotion requests, on the read lane."""
        lib = self.lib
        return self.read(lambda _c: (audit.document_history(lib, doc_id),
                                     review.list_requests(lib, status=None, document_id=doc_id)), on_loaded)

    # --- moving between scopes, publishing, scope settings (issue 4) ------------------------------
    def move_to_scope(self, doc_ids: Sequence[str], target: str, *, reason: str = "", folder_id: str | None = None,
                      target_name: str | None = None, on_done: Callable[[str], None] | None = None,
                      on_error: Callable[[BaseException], None] | None = None) -> Task:
        """Promote or demote documents (folders with their contents) to scope ``target``, all or none.

        With ``folder_id`` (a folder of ``target``) the moved documents then go into that folder (a second
        step: if it fails, they stay at the target's top level). Their vectors follow without re-embedding
        when the indexer runs the queued move jobs. ``on_done`` gets what the status bar says, ``on_error`` the
        failure (see :meth:`run`).
        """
        known = self.snapshot.scope_names if self.snapshot is not None else {}
        ids, lib, name = list(doc_ids), self.lib, target_name or known.get(target) or target

        def work(_context: TaskContext) -> int:
            action = undo.user_action(lib, "Move", ids, suffix=f"to {name}")
            moved = moves.move_documents(lib, ids, target, reason=reason, user_action=action)
            if folder_id is not None:
                carried = set(ids) | {d.id for d in moved}
                for doc_id in ids:  # the tops only: a folder's contents stay inside it
                    if documents.get_document(lib, doc_id).folder_id not in carried:
                        folders.move_to_folder(lib, doc_id, folder_id, user_action=action)
            return len(moved)

        def done(count: int) -> None:
            said = f"Moved {count} item{'s' if count != 1 else ''} to {name}" if count else f"Already in {name}"
            self.notice.emit(said)
            if on_done is not None:
                on_done(said)

        return self.run(f"Move to {name}", work, on_result=done, on_error=on_error)

    def publish_think_process(self, path: str, *, name: str | None = None, target_name: str | None = None,
                              reason: str = "") -> Task:
        """Request promotion of every result of think process ``path`` to its project (the review queue),
        with ``reason`` on every request (blank: the service's default reason)."""
        lib = self.lib

        def done(requests: list) -> None:
            where = f" to {target_name}" if target_name else ""
            self.notice.emit(f"{len(requests)} promotion request{'s' if len(requests) != 1 else ''} for "
                             f"{name or path}{where} wait in the review queue")

        return self.run("Publish to project", lambda _c: review.publish_think_process(lib, path, reason=reason),
                        on_result=done, index=False)

    def request_promotion(self, doc_id: str, target: str, *, reason: str = "",
                          on_done: Callable[[Any, bool], None] | None = None,
                          on_error: Callable[[BaseException], None] | None = None) -> Task:
        """Ask for document ``doc_id`` (a topic: with its subtree and atoms) to be promoted to scope ``target``:
        a request in the review queue (``review.request_promotion``), nothing moves. ``on_done`` gets the
        ``PromotionRequest`` and whether it is new (False: one was waiting already, the service kept it);
        ``on_error`` the failure (see :meth:`run`)."""
        lib = self.lib

        def work(_context: TaskContext) -> tuple[Any, bool]:
            before = {r.id for r in review.list_requests(lib, document_id=doc_id)}
            request = review.request_promotion(lib, doc_id, target, reason=reason)
            return request, request.id not in before

        def done(result: tuple[Any, bool]) -> None:
            request, new = result
            names = self.snapshot.scope_names if self.snapshot is not None else {}
            where = names.get(request.target_scope, request.target_scope)
            self.notice.emit(f"Promotion of “{request.title}” to {where} requested: it waits in the review queue"
                             if new else f"“{request.title}” already waited for review to {where}")
            if on_done is not None:
                on_done(request, new)

        return self.run("Request promotion", work, on_result=done, on_error=on_error, index=False)

    def set_sibling_results_visible(self, path: str, visible: bool,
                                    on_done: Callable[[Any], None] | None = None) -> Task:
        """Let think process ``path`` see the results of its sibling think processes (or stop)."""
        return self.run("Scope settings", lambda _c: scopes.set_sibling_results_visible(self.lib, path, visible),
                        on_result=on_done, index=False)

    def set_atom_files_setting(self, path: str, enabled: bool | None,
                               on_done: Callable[[Any], None] | None = None) -> Task:
        """Whether files imported into scope ``path`` (and below, unless they say otherwise) get their atoms read
        (None: forget this scope's own value), as ``vancetope atoms files-setting``."""
        def said(setting: atom_extraction.FilesSetting) -> None:
            where = "set here" if setting.own is not None else f"from {setting.set_in}" if setting.set_in else "default"
            self.notice.emit(f"Atoms read from files imported into {path}: {'on' if setting.enabled else 'off'} "
                             f"({where})")
            if on_done is not None:
                on_done(setting)

        return self.run("Scope settings", lambda _c: atom_extraction.set_files_setting(self.lib, path, enabled),
                        on_result=said, index=False)

    def set_promotion_rule(self, scope: str, tag: str, *, target: str = "project", auto_approve: bool = False,
                           on_done: Callable[[Any], None] | None = None) -> Task:
        """Add or change the auto-promote rule for ``tag`` in ``scope`` (and below)."""
        return self.run("Auto-promote rule", lambda _c: promotion_rules.set_rule(
            self.lib, scope, tag, target=target, auto_approve=auto_approve), on_result=on_done, index=False)

    def remove_promotion_rule(self, scope: str, tag: str, on_done: Callable[[Any], None] | None = None) -> Task:
        """Switch off the auto-promote rule for ``tag`` in ``scope`` and below."""
        return self.run("Auto-promote rule", lambda _c: promotion_rules.remove_rule(self.lib, scope, tag),
                        on_result=on_done, index=False)

    def reset_promotion_rule(self, scope: str, tag: str, on_done: Callable[[Any], None] | None = None) -> Task:
        """Drop ``scope``'s own setting for ``tag``: the inherited or built-in rule applies again."""
        return self.run("Auto-promote rule", lambda _c: promotion_rules.reset_rule(self.lib, scope, tag),
                        on_result=on_done, index=False)

    # --- annotations, reading status, saved searches, citations, duplicates (issue 11) --------------
    def annotate(self, doc_id: str, request: AnnotationRequest, on_done: Callable[[Any], None] | None = None,
                 on_error: Callable[[BaseException], None] | None = None) -> Task:
        """Do what a PDF viewer asks on document ``doc_id``: add a highlight or a note, edit or delete an
        annotation (``services.annotations``); ``on_error`` gets the exception if it fails."""
        lib = self.lib

        def work(_context: TaskContext) -> object:
            if request.action == "highlight":
                return annotations.add_highlight(lib, doc_id, page=request.page, rects=request.rects,
                                                 quote=request.quote, comment=request.comment, color=request.color)
            if request.action == "note":
                return annotations.add_note(lib, doc_id, page=request.page, comment=request.comment,
                                            position=request.position, color=request.color)
            if request.action == "edit":
                return annotations.edit_annotation(lib, request.annotation_id or "", comment=request.comment)
            return annotations.delete_annotation(lib, request.annotation_id or "")

        return self.run(_ANNOTATION_TITLES[request.action], work, on_result=on_done, on_error=on_error)

    def mark_opened(self, doc_id: str) -> Task:
        """An unread document was opened: it becomes being read (``reading.mark_opened``; metadata only)."""
        lib = self.lib
        return self.run("Mark as reading", lambda _c: reading.mark_opened(lib, doc_id), index=False)

    def set_reading_status(self, doc_ids: Sequence[str], status: ReadingStatus) -> Task:
        """Give documents a reading status (unread, reading, read)."""
        lib, ids = self.lib, list(doc_ids)
        return self.run("Reading status", lambda _c: reading.set_reading_status(lib, ids, status), index=False)

    def save_search(self, saved: SavedSearch, on_saved: Callable[[SavedSearch], None] | None = None) -> Task:
        """Save a query and its filters under a name (shown in the folder tree)."""
        lib = self.lib
        return self.run("Save search", lambda _c: saved_searches.save_search(lib, saved), on_result=on_saved,
                        index=False)

    def rename_saved_search(self, name: str, new_name: str) -> Task:
        """Rename a saved search."""
        lib = self.lib
        return self.run("Rename saved search", lambda _c: saved_searches.rename_saved(lib, name, new_name),
                        index=False)

    def forget_saved_search(self, name: str) -> Task:
        """Delete a saved search (the documents it finds stay)."""
        lib = self.lib
        return self.run("Delete saved search", lambda _c: saved_searches.forget_saved(lib, name), index=False)

    def cite(self, doc_ids: Sequence[str], style: str,
             on_cited: Callable[[citations.FormattedCitation], None]) -> Task:
        """Format documents as bibliography entries in CSL ``style`` (a key of ``citations.STYLES``). A write:
        the first citation of a document stores its citation key."""
        lib, ids = self.lib, list(doc_ids)
        return self.run("Copy citation", lambda _c: citations.cite(lib, citations.select_documents(lib, ids=ids),
                                                                   style), on_result=on_cited, index=False)

    def export_citations(self, doc_ids: Sequence[str], path: Path, fmt: str,
                         on_exported: Callable[[citations.Export], None], *, found: bool = False) -> Task:
        """Write documents' references to ``path`` in ``fmt`` (a key of ``citations.FORMATS``), as
        ``vancetope export`` does; keys are stored as for :meth:`cite`. ``found``: the ids are a search's
        results (their notes and annotations are left out, as ``vancetope export --query`` does)."""
        lib, ids = self.lib, list(doc_ids)
        return self.run("Export", lambda _c: citations.save_export(
            lib, citations.select_documents(lib, ids=ids, ids_found=found), path, fmt),
            on_result=on_exported, index=False)

    def export_annotations(self, doc_id: str, path: Path) -> Task:
        """Write a PDF's annotations to ``path``: Markdown, or an annotated copy of the PDF for a ``.pdf``
        path (``annotations.export_to_file``, as ``vancetope memory export-annotations`` does)."""
        lib = self.lib

        def done(count: int) -> None:
            self.notice.emit(f"Exported {count} annotation{'s' if count != 1 else ''} to {path.name}")

        return self.run("Export annotations", lambda _c: annotations.export_to_file(lib, doc_id, path),
                        on_result=done, index=False)

    def ensure_citation_key(self, doc_id: str) -> Task:
        """Give a document a citation key if it has no valid one (``citation_keys.ensure_keys``)."""
        lib = self.lib
        return self.run("Citation key", lambda _c: citation_keys.ensure_keys(lib, [doc_id]), index=False)

    def merge_duplicates(self, choices: Sequence[tuple[str, Sequence[str]]],
                         on_merged: Callable[[duplicates.MergeReport], None]) -> Task:
        """Merge groups of duplicates, each ``(id kept, ids merged into it)``, each group on its own
        (``duplicates.merge_groups``: its report lists the failed ones)."""
        lib, wanted = self.lib, list(choices)
        return self.run("Merging duplicates", lambda _c: duplicates.merge_groups(lib, wanted), on_result=on_merged,
                        visible=True)


    # --- agent memory (issue 12) -------------------------------------------------------------------
    def edit_episode(self, episode_id: str, changes: dict[str, str],
                     on_edited: Callable[[Any], None] | None = None) -> Task:
        """Change fields of an episode (``changes``: field name → new text; ``severity`` too) as the CLI's
        ``memory episode edit`` does (``episodes.update_episode``); undoable like any edit."""
        lib, scope, wanted = self.lib, self.state.scope, dict(changes)
        return self.run("Edit episode", lambda _c: episodes.update_episode(
            lib, episode_id, **wanted, acting_scope=scope,
            user_action=undo.user_action(lib, "Edit episode", [episode_id])), on_result=on_edited)

    def set_plan_status(self, plan_id: str, status: str, on_done: Callable[[Any], None] | None = None) -> Task:
        """Set a plan's status (planned, missed, canceled) as ``atoms plan-update`` does (``atoms.plan_update``):
        marked as a person's edit, undoable like any edit."""
        lib, scope = self.lib, self.state.scope
        return self.run("Plan status", lambda _c: atoms.plan_update(
            lib, plan_id, status, acting_scope=scope, user_action=undo.user_action(lib, "Plan status", [plan_id])),
            on_result=on_done, index=False)

    def plan_happened(self, plan_id: str, when: str, on_done: Callable[[Any], None] | None = None) -> Task:
        """Record that a plan happened at ``when`` (ISO or a phrase) as ``atoms happened`` does
        (``atoms.plan_happened``): an event that updates the plan, which is archived."""
        lib, scope = self.lib, self.state.scope
        return self.run("Plan happened", lambda _c: atoms.plan_happened(lib, plan_id, when, acting_scope=scope),
                        on_result=on_done)

    def run_digest(self, day: date, on_done: Callable[[Any], None] | None = None) -> Task:
        """Digest the current scope's ``day`` as ``digest run`` does (``digest.run_digest``: one undo step)."""
        lib, scope = self.lib, self.state.scope
        return self.run("Digest", lambda _c: digest.run_digest(lib, scope, day), on_result=on_done)

    def undo_digest(self, day: date, on_done: Callable[[Any], None] | None = None) -> Task:
        """Take back the current scope's latest digest run of ``day`` in one step (``digest.undo_digest``)."""
        lib, scope = self.lib, self.state.scope
        return self.run("Undo digest", lambda _c: digest.undo_digest(lib, scope, day), on_result=on_done)

    # --- the topic tree (issue 14): a person's hand edits (``services.topics``), each pinned and one undo step ------
    def rename_topic(self, topic_id: str, label: str, *, on_done: Callable[[Any], None] | None = None) -> Task:
        """Give a topic a new label, pinned (``topics.rename_topic``, as ``topics rename``)."""
        return self._topic_edit("Rename topic", topic_id, lambda lib, scope, action: topics.rename_topic(
            lib, topic_id, label, acting_scope=scope, user_action=action), on_done)

    def move_topic(self, topic_id: str, parent_id: str, *, on_done: Callable[[Any], None] | None = None) -> Task:
        """Hang a topic (with its subtree) under ``parent_id`` of the same tree, pinned (``topics.move_topic``)."""
        return self._topic_edit("Move topic", topic_id, lambda lib, scope, action: topics.move_topic(
            lib, topic_id, parent_id, acting_scope=scope, user_action=action), on_done)

    def merge_topics(self, keep_id: str, other_ids: Sequence[str], *,
                     on_done: Callable[[Any], None] | None = None) -> Task:
        """Merge ``other_ids`` into ``keep_id``: their atoms and subtopics join it, they are retired
        (``topics.merge_topics``)."""
        others = list(other_ids)
        return self._topic_edit("Merge topics into", keep_id, lambda lib, scope, action: topics.merge_topics(
            lib, keep_id, others, acting_scope=scope, user_action=action), on_done)

    def split_topic(self, topic_id: str, groups: Sequence[Sequence[str]] | None = None, *, parts: int = 2,
                    labels: Sequence[str] | None = None, on_done: Callable[[Any], None] | None = None) -> Task:
        """Split a topic: each group of its own atoms becomes a new subtopic, labelled as given; ``groups`` None: its
        own atoms cut in ``parts`` by meaning (``topics.split_topic``)."""
        wanted = [list(g) for g in groups] if groups is not None else None
        names = list(labels) if labels is not None else None
        return self._topic_edit("Split topic", topic_id, lambda lib, scope, action: topics.split_topic(
            lib, topic_id, wanted, parts=parts, labels=names, acting_scope=scope, user_action=action), on_done)

    def create_topic(self, label: str, parent_id: str, *, on_done: Callable[[Any], None] | None = None) -> Task:
        """Make a topic ``label`` under ``parent_id``, label and place pinned (``topics.create_topic``)."""
        return self._topic_edit("New topic under", parent_id, lambda lib, scope, action: topics.create_topic(
            lib, label, parent_id, acting_scope=scope, user_action=action), on_done)

    def delete_topic(self, topic_id: str, *, on_done: Callable[[Any], None] | None = None) -> Task:
        """Retire a topic: its atoms and subtopics go to its parent (``topics.delete_topic``)."""
        return self._topic_edit("Delete topic", topic_id, lambda lib, scope, action: topics.delete_topic(
            lib, topic_id, acting_scope=scope, user_action=action), on_done)

    def move_atoms_to_topic(self, atom_ids: Sequence[str], to_topic: str, from_topic: str | None = None, *,
                            on_done: Callable[[Any], None] | None = None) -> Task:
        """Put atoms in ``to_topic``, pinned there, out of ``from_topic`` (None: out of every other topic of the tree):
        a drag from one topic to another (``topics.move_atom`` for each, one undo step)."""
        ids = list(atom_ids)
        verb = "Move atom to topic" if len(ids) == 1 else f"Move {len(ids)} atoms to topic"

        def edit(lib: Library, scope: str, action: UserAction) -> Any:
            return [topics.move_atom(lib, i, to_topic, from_topic, acting_scope=scope, user_action=action)
                    for i in ids][-1]

        return self._topic_edit(verb, to_topic, edit, on_done)

    def _topic_edit(self, verb: str, topic_id: str, edit: Callable[[Library, str, UserAction], Any],
                    on_done: Callable[[Any], None] | None) -> Task:
        """Run one hand edit from the window's scope on the write lane as the undo step ``<verb> “<topic>”``
        (``topics.user_action``, as the CLI names it; named on that thread: the name is read from the library).
        Topics are not indexed: nothing for the indexer."""
        lib, scope = self.lib, self.state.scope
        return self.run(verb, lambda _c: edit(lib, scope, topics.user_action(lib, verb, topic_id)),
                        on_result=on_done, index=False)

    def rebuild_topics(self, on_done: Callable[[Any], None] | None = None) -> Task:
        """Keep the current scope's topic tree now, as ``topics rebuild`` does (``topic_upkeep.update_topics``: a
        cold build when it has none, one undo step); says what it did. On the write lane, shown in Tasks: a person
        asked for it and waits for it (the clustering of a few hundred atoms takes seconds)."""
        lib, scope = self.lib, self.state.scope

        def done(report: Any) -> None:
            self.notice.emit(report.message[:1].upper() + report.message[1:])
            if on_done is not None:
                on_done(report)

        return self.run("Building the topic tree", lambda _c: topic_upkeep.update_topics(lib, scope),
                        on_result=done, visible=True, index=False)

    def run_pending_digests(self) -> Task:
        """Digest, in the background, every scope with undigested material on the days before today
        (``digest.run_pending``): what the app does when it opens; says what it wrote, if anything."""
        lib = self.lib

        def said(runs: list[Any]) -> None:
            if runs:
                self.notice.emit(f"Digested {len(runs)} day{'s' if len(runs) != 1 else ''} "
                                 f"({', '.join(f'{r.scope} {r.day.isoformat()}' for r in runs[:3])}"
                                 f"{', …' if len(runs) > 3 else ''}): View ▸ Digests to review or undo")

        def work(context: TaskContext) -> list[Any]:
            # On the import lane, through its gate: the slow part (embedding, drafting) never holds up the
            # person's own edits, which also go first at each write.
            return digest.run_pending(lib, before_write=self.commit_gate(context))

        return self.run("Daily digest", work, on_result=said, lane="import")

    def make_profiles(self, doc_ids: Sequence[str], *, only_missing: bool = False, visible: bool = True) -> Task:
        """Write the summary, keywords and suggested topics of the sources among ``doc_ids`` as ``memory profile``
        does (``source_profile.make_profiles``), on the import lane through its gate: the generator never holds up
        the person's edits, and cancelling stops before the next document. ``visible``: a task with progress in
        the Tasks panel (the selection's "Write Summaries"); a new note's or an edit's own is made quietly."""
        lib, ids = self.lib, list(doc_ids)

        def work(context: TaskContext) -> source_profile.ProfileReport:
            return source_profile.make_profiles(
                lib, ids, only_missing=only_missing, progress=context.progress, cancel=context.cancelled,
                before_write=self.commit_gate(context))

        def said(report: source_profile.ProfileReport) -> None:
            if visible:
                self.notice.emit(f"Summaries: {report.summary()}")

        noun = "summary" if len(ids) == 1 else f"{len(ids)} summaries"
        return self.run(f"Writing {noun}", work, on_result=said, visible=visible, index=False, lane="import")

    def fill_missing_profiles(self) -> Task:
        """Profile, in the background, the newest sources without a current profile (at most
        :data:`OPENING_PROFILES`; ``source_profile.missing_profiles``): what the app does when it opens, so that a
        library from before profiles, or a bibliography's references, get theirs without being asked."""
        lib = self.lib

        def found(ids: list[str]) -> None:
            if ids:
                self.make_profiles(ids, only_missing=True)

        return self.read(lambda _c: source_profile.missing_profiles(lib, limit=OPENING_PROFILES), found,
                         title="Finding sources without a summary")

    def set_memory_type(self, doc_id: str, memory_type: str | None) -> Task:
        """Say what a note is for as an agent memory (None or ``none``: nothing), as ``memory type`` does
        (``memories.set_memory_type``); undoable like a tag change."""
        lib, scope = self.lib, self.state.scope

        def work(_context: TaskContext) -> Any:
            action = undo.user_action(lib, "Set memory type of", [doc_id], suffix=f"to {memory_type or 'none'}")
            return memories.set_memory_type(lib, doc_id, memory_type, acting_scope=scope, user_action=action)

        return self.run("Memory type", work, index=False)

    def settle_conflict(self, keep_id: str, other_id: str, on_settled: Callable[[Any], None] | None = None) -> Task:
        """Keep ``keep_id`` of two contradicting memories: it ``updates`` the other, which is archived
        (``conflicts.settle``, as ``memory settle`` does)."""
        lib, scope = self.lib, self.state.scope
        return self.run("Settle conflict", lambda _c: conflicts.settle(lib, keep_id, other_id, scope=scope),
                        on_result=on_settled, index=False)

    def restore_documents(self, doc_ids: Sequence[str]) -> Task:
        """Bring documents back from the trash or from archived (``lifecycle.bring_back``, as ``memory restore``
        does: a superseded memory loses its ``superseded_by`` and the ``updates`` edges into it)."""
        lib, scope, ids = self.lib, self.state.scope, list(doc_ids)

        def work(_context: TaskContext) -> list:
            action = undo.user_action(lib, "Restore", ids)
            return [d for i in ids for d in lifecycle.bring_back(lib, i, scope=scope, user_action=action)]

        return self.run("Restore", work)

    # --- conversations (issue 15): the same ``services.conversations`` calls as ``vancetope chat …`` -------------
    def set_message_pinned(self, message_id: str, pinned: bool,
                           on_done: Callable[[Any], None] | None = None) -> Task:
        """Pin a conversation's message (kept verbatim through every compaction) or unpin it, as ``chat pin``
        does (``conversations.set_pinned``). Nothing to index: the text is unchanged."""
        lib = self.lib
        return self.run("Pin message" if pinned else "Unpin message",
                        lambda _c: conversations.set_pinned(lib, message_id, pinned), on_result=on_done, index=False)

    def compact_conversation(self, process: str, context_window: int, on_done: Callable[[Any], None] | None = None,
                             on_error: Callable[[BaseException], None] | None = None) -> Task:
        """Run the sliding window over ``process``'s conversation against ``context_window`` tokens, as ``chat
        compact`` does (``conversations.compact``). Shown in Tasks: the summary may come from a model and take a
        while; the summary note it writes is indexed."""
        lib = self.lib
        return self.run("Compacting the conversation", lambda _c: conversations.compact(
            lib, process, context_window=context_window), on_result=on_done, on_error=on_error, visible=True)

    def fold_conversation_range(self, process: str, first_seq: int, last_seq: int, topic: str,
                                on_done: Callable[[Any], None] | None = None,
                                on_error: Callable[[BaseException], None] | None = None) -> Task:
        """Fold messages ``first_seq``–``last_seq`` of ``process`` into a summary on ``topic`` with a topic stitch
        where they were, as ``chat compact-range`` does (``conversations.compact_range``); a refusal (a range
        overlapping folded messages, only pinned ones) reaches ``on_error`` with the service's reason."""
        lib = self.lib
        return self.run("Folding a range", lambda _c: conversations.compact_range(
            lib, process, first_seq, last_seq, topic=topic), on_result=on_done, on_error=on_error, visible=True)

    def import_conversation(self, process: str, path: Path, on_done: Callable[[Any], None] | None = None,
                            on_error: Callable[[BaseException], None] | None = None) -> Task:
        """Append the conversation exported to ``path`` to ``process``'s, in order and all or nothing, as ``chat
        import`` does (``conversations.read_export`` then ``append_many``): the file is read and decoded here, off
        the event loop. A refusal (not JSON, bad entries: each named) reaches ``on_error``; the messages are indexed.
        Titled so that it does not open the Tasks panel as a file import does."""
        lib = self.lib
        return self.run(f"Conversation import: {path.name}", lambda _c: conversations.append_many(
            lib, process, conversations.read_export(path)), on_result=on_done, on_error=on_error, visible=True)

    def set_conversation_parent(self, process: str, parent: str | None,
                                on_done: Callable[[Any], None] | None = None,
                                on_error: Callable[[BaseException], None] | None = None) -> Task:
        """Say which process ``process`` works for (None: none), as ``chat parent`` does (``conversations.
        set_parent``); a refusal (a cycle) reaches ``on_error`` with the service's reason. Nothing to index."""
        lib = self.lib
        return self.run("Setting the parent process", lambda _c: conversations.set_parent(lib, process, parent),
                        on_result=on_done, on_error=on_error, index=False)


def _lists_alike(a: ViewState, b: ViewState) -> bool:
    """Whether ``a`` and ``b`` load the same snapshot: a smart entry lists the state's scope, whatever scope its tree
    node carries. (After each scope change the folder tree makes "All documents" of the new scope current; taken as a
    new choice, it loaded the library a second time.)"""
    if a.target.kind == b.target.kind == "smart" and a.target.key == b.target.key:
        return replace(a, target=b.target) == b
    return a == b


def _describe(paths: Sequence[Path]) -> str:
    """"paper.pdf", "the folder Notes", "3 files", "2 folders and 5 files" for a task title."""
    folders_ = [p for p in paths if p.is_dir()]
    files = len(paths) - len(folders_)
    if len(paths) == 1:
        return f"the folder {paths[0].name}" if folders_ else paths[0].name
    parts = []
    if folders_:
        parts.append(f"{len(folders_)} folder{'s' if len(folders_) != 1 else ''}")
    if files:
        parts.append(f"{files} file{'s' if files != 1 else ''}")
    return " and ".join(parts)


def import_summary(report: imports.ImportReport) -> str:
    """One line for the status bar: every outcome counted once ("12 imported, 3 need OCR, 2 failed"), then
    each bibliography's entries ("506 references from x.bib (3 duplicates merged…)")."""
    if len(report.outcomes) == 1 and report.outcomes[0].status == "duplicate":
        return f"{report.outcomes[0].reason[:1].upper()}{report.outcomes[0].reason[1:]}"  # type: ignore[index]
    labels = {"imported": "imported", "updated": "updated", "duplicate": "already in your library",
              "needs_ocr": "need OCR", "failed": "failed", "skipped": "skipped (unsupported)"}
    counts = {status: sum(1 for o in report.outcomes if o.status == status) for status in labels}
    duplicates = [Path(o.path).name for o in report.outcomes if o.status == "duplicate"]
    named = {"duplicate": f" ({', '.join(duplicates)})"} if len(duplicates) <= 3 else {}  # which ones
    parts = [f"{n} {labels[status]}{named.get(status, '')}" for status, n in counts.items() if n]
    text = f"{len(report.outcomes)} file{'s' if len(report.outcomes) != 1 else ''}: " + ", ".join(parts or ["nothing"])
    # A bibliography is one file but many references: say what became of its entries.
    listings = [o.references.summary for o in report.outcomes if o.references is not None]
    if listings:
        text += "; " + "; ".join(listings)
    if report.notices:
        text += "; " + "; ".join(report.notices)
    if counts["failed"] or counts["needs_ocr"]:  # problems; what is already there is said here in full
        text += " (see Tasks)"
    return text

