"""Note links, saved searches and reading status in the window: the wiring between the panes and the
services (``services.notelinks``, ``services.saved_searches``, ``services.reading``).

One object, made by the main window, that

* follows a clicked ``[[link]]`` of a note: opens its document, lets the user pick among the candidates of
  an ambiguous one, and offers to create the note a missing one names;
* loads the Backlinks section of the details panel for each document it shows;
* marks a PDF as being read when the viewer opens it (if it was unread), and sets the reading status
  chosen in the document list's row menu;
* feeds the saved searches to the folder tree, renames and deletes them from there, and saves the search
  pane's query and tag filters under a name ("Save Search…", in the Edit menu).

Reads run on the read lane, writes are the workbench's (the write lane, then a refresh): the list, the
tree and a selected saved search follow through the next snapshot.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QInputDialog, QMainWindow

from ..core.documents import DocumentInfo
from ..core.reading import ReadingStatus, reading_status_of
from ..services import notelinks
from ..services.saved_searches import SavedSearch
from . import dialogs
from .details_panel import DetailsPanel
from .document_table import DocumentTableView
from .folder_tree import FolderTreeView
from .search_pane import SearchPane
from .snapshot import Snapshot
from .viewer.document_viewer import DocumentViewer
from .window_parts import make_action, menu_named
from .workbench import Workbench


class NotesFlow:
    """The window's note-link, saved-search and reading-status actions (see the module docstring).

    Args:
        window: parent of its dialogs, owner of the status bar and of the Edit menu "Save Search…" joins.
        workbench: runs the writes and the reads. details, table, folder_tree, search_pane: the panes it
            serves. open_document: opens a document (by id) in a viewer tab.
    """

    def __init__(self, window: QMainWindow, workbench: Workbench, *, details: DetailsPanel,
                 table: DocumentTableView, folder_tree: FolderTreeView, search_pane: SearchPane,
                 open_document: Callable[[str], None]) -> None:
        self.window, self.workbench, self.lib = window, workbench, workbench.lib
        self.details, self.folder_tree, self.search_pane = details, folder_tree, search_pane
        self.open_document = open_document
        details.document_shown.connect(self.load_backlinks)
        table.reading_status_requested.connect(
            lambda ids, status: workbench.set_reading_status(ids, ReadingStatus(status)))
        folder_tree.folder_model.saved_search_rename_requested.connect(workbench.rename_saved_search)
        folder_tree.saved_search_forget_requested.connect(workbench.forget_saved_search)
        self.workbench.snapshot_ready.connect(self._apply_snapshot)
        self.save_search_action = make_action(window, "Save Search…", self.save_search)
        edit_menu = menu_named(window, "&Edit")
        if edit_menu is not None:
            edit_menu.addAction(self.save_search_action)

    # -- viewers and links ---------------------------------------------------------------------------
    def attach_viewer(self, viewer: DocumentViewer) -> None:
        """Follow the ``[[links]]`` of a new viewer tab and mark the PDFs it opens as being read."""
        viewer.wikilink_activated.connect(self.follow_link)
        viewer.pdf_opened.connect(self.mark_opened)

    def follow_link(self, doc_id: str, inside: str) -> None:
        """Resolve the link ``[[inside]]`` of document ``doc_id`` and act on the answer (see the module)."""
        lib = self.lib
        self.workbench.read(lambda _c: notelinks.resolve_link(lib, doc_id, inside), self._link_resolved)

    def _link_resolved(self, link: notelinks.ResolvedLink) -> None:
        window = self.window
        if link.document is not None:
            self.open_document(link.document.id)
        elif link.state == "ambiguous":
            labels = [f"{c.title} ({c.type}, {c.id})" for c in link.candidates]
            choice, ok = QInputDialog.getItem(window, "Which document?",
                                              f"Several documents are titled “{link.target}”:", labels, 0, False)
            if ok and choice in labels:
                self.open_document(link.candidates[labels.index(choice)].id)
        elif dialogs.confirm(window, "Create note",
                             f"No document is titled “{link.target}” here. Create a note with that title?"):
            self.workbench.new_note(link.target, f"# {link.target}\n",
                                    on_created=lambda doc: self.open_document(doc.id))

    def load_backlinks(self, doc_id: str) -> None:
        """Load the Backlinks section of the details panel for the document it now shows."""
        lib, scope, panel = self.lib, self.workbench.state.scope, self.details

        def shown(found: notelinks.Backlinks) -> None:
            if panel.document_id() == doc_id:
                panel.backlinks.set_backlinks(found)

        self.workbench.read(lambda _c: notelinks.backlinks(lib, doc_id, scope=scope), shown)

    # -- reading status ------------------------------------------------------------------------------
    def mark_opened(self, doc: DocumentInfo) -> None:
        """A PDF was opened: an unread one becomes reading (metadata only: nothing to index). Opening one
        already being read or read writes nothing."""
        if reading_status_of(doc.type, doc.metadata) is not ReadingStatus.UNREAD:
            return
        self.workbench.mark_opened(doc.id)

    # -- saved searches ------------------------------------------------------------------------------
    def _apply_snapshot(self, snapshot: Snapshot) -> None:
        self.folder_tree.folder_model.set_saved_searches(snapshot.saved_searches)

    def save_search(self, name: str | None = None) -> None:
        """Save the search pane's query, tag filters, type and memory type under a name (asked for when not given)."""
        pane = self.search_pane
        query = pane.query().strip()
        tags = pane.tag_filters()
        if not query and not tags:
            self.window.statusBar().showMessage("Type a search (or pick tags) first, then save it", 8000)
            return
        name = name or dialogs.ask_text(self.window, "Save Search", "Name of the saved search:", query[:60])
        if not name:
            return
        any_mode = pane.match_button.isChecked()
        doc_type, memory_type = pane.type_combo.currentData(), pane.memory_type_combo.memory_type()
        saved = SavedSearch(name=name, query=query, tags=[] if any_mode else tags, any_tags=tags if any_mode else [],
                            types=[doc_type] if doc_type is not None else [],
                            memory_types=[memory_type] if memory_type else [])
        self.workbench.save_search(saved, on_saved=self._select_saved)

    def _select_saved(self, saved: SavedSearch) -> None:
        self.window.statusBar().showMessage(f"Saved search “{saved.name}”: in the folder tree", 8000)
