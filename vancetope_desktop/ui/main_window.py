"""The main window: builds the panes, docks, menus and status bar, and wires them to the workbench.

Panes never talk to each other or to the services: they emit signals that this window routes to the
:class:`Workbench` (which runs the work in the background), and they are fed from its snapshots.
"""

from __future__ import annotations

import gc
import hashlib
import sys
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt, QTimer
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QDragEnterEvent,
    QDropEvent,
    QKeySequence,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QStackedWidget,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from ..core.documents import DocumentInfo, DocumentStatus
from ..core.errors import DocumentNotFound, EditConflict
from ..core.scopes import ScopeKind
from ..services import documents, edit_merge, identity, relations
from ..services.library import Library
from ..services.preferences import Preferences, load_preferences, preferences_path, save_preferences
from ..services.topic_search import topic_search
from . import dialogs, tab_memory, themes, window_parts
from .about import show_about
from .annotation_actions import AnnotationActions, annotation_target
from .archived_view import ArchivedFlow
from .atom_extraction_actions import AtomExtractionActions
from .atoms_view import AtomsDialog
from .citation_actions import CitationActions
from .conflicts_view import ConflictsDialog
from .conversation_flow import ConversationFlow
from .details_panel import DetailsPanel
from .digests_view import DigestsDialog
from .dnd import decode_document_ids, local_paths_from_mime
from .document_table import DocumentTableView
from .duplicates_view import DuplicatesDialog
from .edit_conflict_dialog import Choice, EditConflictDialog
from .episodes_view import EpisodesDialog
from .folder_model import FolderTarget
from .folder_tree import FolderTreeView
from .help_dialogs import open_shortcut_sheet, open_user_guide
from .index_health import IndexHealth
from .memory_type_picker import MemoryTypePicker
from .namesake_dialog import ask_namesakes
from .notes_flow import NotesFlow
from .organise_actions import OrganiseActions
from .relation_graph_flow import RelationGraphFlow
from .relations_view import RelationsFlow
from .review_dock import ReviewDock
from .review_model import actor_label
from .scope_move_flow import ScopeMoveFlow
from .scope_settings_dialog import ScopeSettingsFlow
from .scope_switcher import ScopeSwitcher
from .scope_text import (
    ScopeRelation,
    agent_paths,
    descendant_paths,
    refusal_text,
    scope_relation,
    sibling_paths,
)
from .search_pane import SearchPane, SearchRequest
from .settings_dialog import SettingsDialog
from .snapshot import Snapshot
from .source_atoms_view import SourceAtomsFlow
from .source_profile_view import ProfileActions
from .tab_bar import DocumentTabBar
from .tag_chips import TagChipsDelegate
from .tag_pane import TagPane
from .tasks import TaskContext, TaskManager
from .tasks_panel import StatusIndicator, TasksPanel
from .topics_view import TopicsDialog
from .undo_actions import UndoActions
from .viewer import DocumentViewer
from .welcome import WelcomePage
from .workbench import Workbench

LIBRARY_TAB = 0


class MainWindow(QMainWindow):
    """Scope switcher, folder tree, tag pane, document list, viewer tabs, details, search and tasks.

    Args:
        library: the open library (the window does not close it).
        settings: where geometry, dock layout, the document table's columns and each library's open tabs
            are kept (default: ``window.ini`` beside the preferences file).
        preferences: per-user choices (theme); loaded from the user's config when None.
        start_background: start the indexer and the change poll (tests of pure layout turn it off).
    """

    def __init__(self, library: Library, *, settings: QSettings | None = None,
                 preferences: Preferences | None = None, start_background: bool = True) -> None:
        super().__init__()
        self.library = library
        # Window layout lives beside the preferences (and follows VANCETOPE_CONFIG_DIR in tests).
        self.qsettings = settings or QSettings(str(preferences_path().with_name("window.ini")),
                                               QSettings.Format.IniFormat)
        self.preferences = preferences or load_preferences()
        self.tasks = TaskManager(self)
        self.error_box: QMessageBox | None = None
        self._first_snapshot = True
        # The document the user opened in Details from search, a viewer tab or a link (None: Details
        # follows the list's selection). A refresh that empties the list's selection must not clear it.
        self._opened_elsewhere: str | None = None
        # The document, change counter and scope Details was last refreshed with after a snapshot: an indexing step
        # or a view change brings the same again, and reloading its versions, links and sections cost 3-5 reads.
        self._details_basis: tuple | None = None
        self._changes: int | None = None  # the library's change counter of the last snapshot shown
        self._tabs_scope: str | None = None  # the scope the viewer tabs were last checked against
        self._scope_key = "last_scope/" + hashlib.sha1(str(library.paths.root).encode()).hexdigest()[:16]
        remembered = self.qsettings.value(self._scope_key)
        self.workbench = Workbench(library, self.tasks, self, scope=remembered if isinstance(remembered, str) else None)
        self.workbench.ask_namesakes = lambda found: ask_namesakes(self, found)
        self.annotation_actions = AnnotationActions(self.workbench, self)
        self.index_health = IndexHealth(self.workbench)
        self.setWindowTitle(f"Vancetope Desktop — {library.paths.root}")
        self.setAcceptDrops(True)
        self.resize(1360, 860)
        self._build_panes()
        self._build_docks()
        self._build_toolbar()
        self._build_menus()
        self._build_status_bar()
        self._wire()
        self.workbench.announce_opening()
        self._build_scope_moves()
        self.citations = CitationActions(self, self.workbench, table=self.table, folder_tree=self.folder_tree,
                                         search_pane=self.search_pane, details=self.details,
                                         current_viewer=self.current_viewer, style=self.preferences.citation_style)
        self.citations.style_chosen.connect(self._remember_citation_style)
        self.conversations = ConversationFlow(self, self.workbench, folder_tree=self.folder_tree,
                                              scope_switcher=self.scope_switcher,
                                              context_window=self.preferences.context_window(library.paths.root))
        self.conversations.context_window_changed.connect(self._remember_context_window)
        self.atom_extraction = AtomExtractionActions(self, self.workbench, table=self.table,
                                                     folder_tree=self.folder_tree)
        self.organise = OrganiseActions(self, self.workbench, self.table)
        self.profile_actions = ProfileActions(self.workbench, self.table, self.details.profile)
        self.notes = NotesFlow(self, self.workbench, details=self.details, table=self.table,
                               folder_tree=self.folder_tree, search_pane=self.search_pane,
                               open_document=lambda doc_id: self.open_document(doc_id))
        self.relations_flow = RelationsFlow(self.workbench, self.details.relations, self.details.document_id,
                                            self.details.document_shown)
        self.atoms_flow = SourceAtomsFlow(self.workbench, self.details.atoms, self.details.document_id,
                                          self.details.document_shown)
        self.archived_flow = ArchivedFlow(self.workbench, self.details.archived, self.details.document,
                                          self.details.is_read_only, self.details.document_shown)
        self.relation_graph = RelationGraphFlow(self.workbench, self, table=self.table, details=self.details)
        self.relation_graph.document_open_requested.connect(lambda doc_id: self.open_document(doc_id))
        self.review = ReviewDock(self, self.workbench, self.details, search_dock=self.search_dock,
                                 details_dock=self.details_dock, toolbar=self.toolbar,
                                 open_document=lambda doc_id: self.open_document(doc_id))
        self.review_pane, self.review_dock = self.review.pane, self.review.dock
        self.review_badge, self.review_action = self.review.badge, self.review.action
        self._restore_layout()
        self.workbench.refresh()
        if start_background:
            self.workbench.start_background()
            self.index_health.check()

    # --- building ---------------------------------------------------------------------------------
    def _build_panes(self) -> None:
        self.scope_switcher = ScopeSwitcher()
        self.folder_tree = FolderTreeView()
        self.tag_pane = TagPane()
        self.table = DocumentTableView()
        self.chips_delegate = TagChipsDelegate(self.table)
        self.table.setItemDelegateForColumn(self.table.TAGS_COLUMN, self.chips_delegate)
        self.details = DetailsPanel()
        self.search_pane = SearchPane()
        self.search_pane.set_model_ready(False)
        self.tasks_panel = TasksPanel(self.tasks)
        self.welcome = WelcomePage()
        self.truncated_label = QLabel()
        self.truncated_label.hide()
        table_page = QWidget()
        box = QVBoxLayout(table_page)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.table)
        box.addWidget(self.truncated_label)
        self.library_stack = QStackedWidget()
        self.library_stack.addWidget(table_page)
        self.library_stack.addWidget(self.welcome)
        # Until the first snapshot: empty panes looked like a lost library for seconds on a loaded machine.
        self.opening_label = QLabel("Opening the library…")
        self.opening_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.library_stack.addWidget(self.opening_label)
        self.library_stack.setCurrentWidget(self.opening_label)
        self.tabs = QTabWidget()
        self.tabs.setTabBar(DocumentTabBar(fixed=LIBRARY_TAB + 1))
        self.tabs.setDocumentMode(True)
        self.tabs.setTabsClosable(True)
        self.tabs.setMovable(True)
        self.tabs.setElideMode(Qt.TextElideMode.ElideRight)  # tabs shrink before the bar scrolls
        self.tabs.addTab(self.library_stack, "Library")
        self.tabs.tabBar().setTabButton(LIBRARY_TAB, self.tabs.tabBar().ButtonPosition.RightSide, None)
        self.setCentralWidget(self.tabs)

    def add_dock(self, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        """A dock holding ``widget`` in ``area`` (see :func:`window_parts.add_dock`)."""
        return window_parts.add_dock(self, title, name, widget, area)

    def _build_docks(self) -> None:
        left, right = Qt.DockWidgetArea.LeftDockWidgetArea, Qt.DockWidgetArea.RightDockWidgetArea
        self.folders_dock = self.add_dock("Folders", "folders", self.folder_tree, left)
        self.tags_dock = self.add_dock("Tags", "tags", self.tag_pane, left)
        self.search_dock = self.add_dock("Search", "search", self.search_pane, right)
        self.details_dock = self.add_dock("Details", "details", self.details, right)
        self.tasks_dock = self.add_dock("Tasks", "tasks", self.tasks_panel, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.splitDockWidget(self.folders_dock, self.tags_dock, Qt.Orientation.Vertical)
        self.splitDockWidget(self.search_dock, self.details_dock, Qt.Orientation.Vertical)
        self.resizeDocks([self.folders_dock, self.search_dock], [260, 380], Qt.Orientation.Horizontal)
        self.tasks_dock.hide()

    def _build_toolbar(self) -> None:
        bar = QToolBar("Main")
        bar.setObjectName("main-toolbar")
        bar.setMovable(False)
        bar.addWidget(self.scope_switcher)
        spacer = QWidget()
        spacer.setSizePolicy(spacer.sizePolicy().Policy.Expanding, spacer.sizePolicy().Policy.Preferred)
        bar.addWidget(spacer)
        self.memory_type_filter = MemoryTypePicker("All memory types", "Every document, memory or not", episodes=True)
        bar.addWidget(self.memory_type_filter)
        self.quick_filter = QLineEdit()
        self.quick_filter.setPlaceholderText("Filter the list…")
        self.quick_filter.setClearButtonEnabled(True)
        self.quick_filter.setMaximumWidth(260)
        bar.addWidget(self.quick_filter)
        self.addToolBar(bar)
        self.toolbar = bar

    def make_action(self, text: str, slot, shortcut: QKeySequence | str | None = None, *,
                    context: Qt.ShortcutContext = Qt.ShortcutContext.ApplicationShortcut) -> QAction:
        """A window action running ``slot`` on ``shortcut`` (see :func:`window_parts.make_action`)."""
        return window_parts.make_action(self, text, slot, shortcut, context=context)

    def _build_menus(self) -> None:
        key = QKeySequence.StandardKey
        self.new_note_action = self.make_action("New note…", self.new_note, key.New)
        self.import_action = self.make_action("Import files…", self.import_files, key.Open)
        self.import_folder_action = self.make_action("Import folder…", self.import_folder, "Ctrl+Shift+O")
        self.demo_action = self.make_action("Load the demo library", self.load_demo)
        self.settings_action = self.make_action("Settings…", self.open_settings, "Ctrl+,")
        self.rebuild_index_action = self.make_action("Rebuild Search Index", self.rebuild_index)
        self.quit_action = self.make_action("Quit", self.close, key.Quit)
        self.find_action = self.make_action("Find…", self.focus_search, key.Find)
        local = Qt.ShortcutContext.WidgetWithChildrenShortcut
        self.rename_action = self.make_action("Rename", self.rename_selected, "F2", context=local)
        self.trash_action = self.make_action("Move to Trash", self.trash_selected, key.Delete, context=local)
        for widget in (self.table, self.folder_tree):
            widget.addAction(self.rename_action)
            widget.addAction(self.trash_action)
        self.about_action = self.make_action("About Vancetope Desktop",
                                             lambda: show_about(self, self.library.paths.root,
                                                                self.library.describe() if self.library.is_team
                                                                else None))

        menus = self.menuBar()
        file_menu = menus.addMenu("&File")
        for action in (self.new_note_action, self.import_action, self.import_folder_action, self.demo_action):
            file_menu.addAction(action)
        file_menu.addSeparator()
        file_menu.addAction(self.settings_action)
        file_menu.addAction(self.rebuild_index_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        edit_menu = menus.addMenu("&Edit")
        self.undo_actions = UndoActions(self.workbench, self)
        edit_menu.addActions([self.undo_actions.undo_action, self.undo_actions.redo_action])
        edit_menu.addSeparator()
        for action in (self.rename_action, self.trash_action, self.find_action):
            edit_menu.addAction(action)
        self.duplicates_action = edit_menu.addAction("Find Duplicates…", self.show_duplicates)
        view_menu = menus.addMenu("&View")
        for dock in (self.folders_dock, self.tags_dock, self.search_dock, self.details_dock, self.tasks_dock):
            view_menu.addAction(dock.toggleViewAction())
        view_menu.addSeparator()
        self.episodes_action = view_menu.addAction("Episodes…", self.show_episodes)
        self.conflicts_action = view_menu.addAction("Conflicts…", self.show_conflicts)
        self.atoms_action = view_menu.addAction("Atoms…", self.show_atoms)
        self.digests_action = view_menu.addAction("Digests…", self.show_digests)
        self.topics_action = view_menu.addAction("Topics…", self.show_topics)
        self.topic_map_action = view_menu.addAction("Topic Map…", lambda: self.show_topics(map_=True))
        view_menu.addSeparator()
        theme_menu = view_menu.addMenu("Theme")
        self.theme_actions: dict[str, QAction] = {}
        themes_group = QActionGroup(self)  # exclusive: shown as radio marks
        for name in ("system", "light", "dark"):
            action = theme_menu.addAction(name.title())
            action.setCheckable(True)
            themes_group.addAction(action)
            action.setChecked(self.preferences.theme == name)
            action.triggered.connect(lambda _c=False, n=name: self.set_theme(n))
            self.theme_actions[name] = action
        scope_menu = menus.addMenu("&Scope")
        scope_menu.addAction("New scope inside the current one…", lambda: self.create_scope(self.current_scope))
        scope_menu.addAction("Rename the current scope…", lambda: self.rename_scope(self.current_scope))
        scope_menu.addAction("Archive the current scope", lambda: self.archive_scope(self.current_scope))
        scope_menu.addAction("Topics of the current scope…", self.show_topics)
        help_menu = menus.addMenu("&Help")
        self.guide_action = self.make_action("User Guide", lambda: open_user_guide(self), key.HelpContents)
        self.shortcuts_action = self.make_action("Keyboard Shortcuts", lambda: open_shortcut_sheet(
            self, [("Document list", self.table.key_bindings())]))
        for action in (self.guide_action, self.shortcuts_action, self.about_action):
            help_menu.addAction(action)

    def _build_status_bar(self) -> None:
        self.indicator = StatusIndicator(self.tasks)
        self.statusBar().addPermanentWidget(self.indicator)
        self.scope_label = QLabel()
        self.statusBar().addWidget(self.scope_label)
        # A team library's lost database connection, said until it is back (Indexer.connection_changed).
        self.connection_label = QLabel()
        self.connection_label.setObjectName("connection_state")
        self.connection_label.setStyleSheet("color: #b35900; font-weight: bold;")
        self.connection_label.hide()
        self._lost_servers: dict[str, str] = {}
        self.statusBar().addPermanentWidget(self.connection_label)

    # --- wiring -----------------------------------------------------------------------------------
    def _wire(self) -> None:
        wb = self.workbench
        wb.snapshot_ready.connect(self._apply_snapshot)
        wb.failed.connect(self.show_error)
        wb.notice.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.index_health.problem_found.connect(lambda text: self.statusBar().showMessage(text, 30000))
        self.index_health.model_recovered.connect(lambda: self.search_pane.set_model_ready(True))
        wb.indexer.model_ready.connect(lambda: self.search_pane.set_model_ready(True))
        wb.indexer.model_ready.connect(settle_heap)
        wb.indexer.waiting_changed.connect(self.indicator.set_waiting)
        wb.indexer.connection_changed.connect(self._show_connection_state)
        wb.indexer.model_failed.connect(self.search_pane.set_model_error)  # an error state there, not a dialog
        self.indicator.open_requested.connect(self.show_tasks)
        self.table.file_problem.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.tasks.task_added.connect(lambda task: self.show_tasks() if task.title.startswith("Importing") else None)

        self.scope_switcher.scope_selected.connect(wb.set_scope)
        self.scope_switcher.create_requested.connect(self.create_scope)
        self.scope_switcher.rename_requested.connect(self.rename_scope)
        self.scope_switcher.archive_requested.connect(self.archive_scope)

        tree = self.folder_tree
        tree.target_selected.connect(lambda target: (wb.set_target(target), self.tabs.setCurrentIndex(LIBRARY_TAB)))
        tree.subfolders_toggled.connect(wb.set_subfolders)
        tree.new_folder_requested.connect(self.new_folder)
        tree.delete_requested.connect(self.delete_folder)
        tree.empty_trash_requested.connect(self.empty_trash)
        tree.menu_extension_requested.connect(self._extend_scope_menu)
        model = tree.folder_model
        model.rename_requested.connect(wb.rename_folder)
        model.files_dropped.connect(lambda paths, target: wb.import_paths(paths, target))
        model.documents_dropped.connect(lambda ids, target: wb.move_documents(ids, target))
        model.drop_refused.connect(self.show_error)

        self.tag_pane.filter_changed.connect(wb.set_tag_filter)
        self.tag_pane.filter_changed.connect(self._sync_search_tags)
        self.tag_pane.rename_requested.connect(wb.rename_tag)
        self.tag_pane.merge_requested.connect(wb.merge_tags)
        self.tag_pane.color_requested.connect(lambda tag, color: wb.set_tag_color(tag, color or None))
        self.tag_pane.delete_requested.connect(wb.delete_tags)

        table = self.table
        table.selection_changed.connect(self._selection_changed)
        table.open_requested.connect(lambda doc_id: self.open_document(doc_id))
        table.rename_requested.connect(lambda doc_id: self.rename_document(doc_id))
        table.trash_requested.connect(self.trash_documents)
        table.restore_requested.connect(wb.restore_documents)
        table.purge_requested.connect(self.purge)
        table.document_model.files_dropped.connect(lambda paths: wb.import_paths(paths))
        table.document_model.drop_refused.connect(self.show_error)
        self.quick_filter.textChanged.connect(table.set_quick_filter)
        self.quick_filter.textChanged.connect(lambda _text: self._update_count())
        self.memory_type_filter.currentIndexChanged.connect(
            lambda _i: (table.set_memory_type_filter(self.memory_type_filter.memory_type()), self._update_count()))

        details = self.details
        details.title_edited.connect(wb.rename_document)
        details.metadata_edited.connect(wb.update_metadata)
        details.tag_added.connect(lambda doc_id, tag: wb.add_tag([doc_id], tag))
        details.tag_removed.connect(lambda doc_id, tag: wb.remove_tag([doc_id], tag))
        details.tag_clicked.connect(self.tag_pane.select_tag)
        details.retry_requested.connect(self.retry_document)
        details.version_restore_requested.connect(wb.restore_version)
        details.version_open_requested.connect(self.open_version)
        details.archived.restore_requested.connect(wb.restore_documents)
        details.memory_type_edited.connect(wb.set_memory_type)
        details.document_link_activated.connect(lambda doc_id: self.open_document(doc_id))

        self.search_pane.search_requested.connect(self.run_search)
        self.search_pane.result_activated.connect(self.open_document)
        self.search_pane.result_selected.connect(self._search_selected)

        self.tabs.tabCloseRequested.connect(self._close_tab)
        self.tabs.currentChanged.connect(self._tab_changed)

        welcome = self.welcome
        welcome.demo_requested.connect(self.load_demo)
        welcome.import_files_requested.connect(self.import_files)
        welcome.import_folder_requested.connect(self.import_folder)
        welcome.new_note_requested.connect(self.new_note)

    # --- snapshot ---------------------------------------------------------------------------------
    def _apply_snapshot(self, snapshot: Snapshot) -> None:
        if self._first_snapshot:
            self._first_snapshot = False
            settle_heap()
            self._reopen_tabs()  # once the scope is known: a reopened note is read-only where it should be
        state = snapshot.state
        self.scope_switcher.set_scopes(snapshot.scopes, state.scope)
        self.folder_tree.set_snapshot(snapshot.visible, snapshot.scope_names, snapshot.folders,
                                      snapshot.smart_counts, state.scope)
        self.tag_pane.set_tags(snapshot.tags)
        self.chips_delegate.set_colors(snapshot.tag_colors)
        self.details.set_tag_colors(snapshot.tag_colors)
        self.details.set_tag_completions([t.tag for t in snapshot.tags])
        smart = state.target.key if state.target.kind == "smart" else None
        self.table.set_trash_mode(smart == "trash", archived=smart == "archived")
        self.table.set_documents(snapshot.documents, current_scope=state.scope, scope_names=snapshot.scope_names,
                                 sibling_scopes=sibling_paths(snapshot.visible), superseded=snapshot.superseded,
                                 agent_scopes=agent_paths(snapshot.visible))
        searched = self.search_pane.set_visible_scopes(snapshot.visible, state.scope, snapshot.scope_names)
        changed = self._changes is not None and snapshot.change_counter != self._changes
        if changed and not searched:
            self.search_pane.refresh_results()  # moved or trashed documents: no stale badges or hits
        if changed:
            self._follow_tabs()
        self._changes = snapshot.change_counter
        self.library_stack.setCurrentIndex(1 if snapshot.library_empty else 0)
        self.truncated_label.setVisible(snapshot.truncated)
        self.truncated_label.setText(f"Showing the newest {len(snapshot.documents)} documents; narrow the list "
                                     "with a folder, tags or search.")
        self._update_count()
        self._leave_unseen_documents(snapshot)
        self._retitle_tabs(snapshot)
        self._refresh_details()

    def _leave_unseen_documents(self, snapshot: Snapshot) -> None:
        """After a scope switch, close the tabs of documents the new scope does not see (a session's note
        stayed open in its project, which never sees a session's documents unless they are promoted),
        and empty Details if it showed one. A tab with unsaved changes stays, read-only from here."""
        if snapshot.state.scope == self._tabs_scope:
            return
        self._tabs_scope = snapshot.state.scope
        listed = {d.id for d in snapshot.documents}
        for index in reversed(range(1, self.tabs.count())):
            viewer = self.tabs.widget(index)
            doc = viewer.current_document() if isinstance(viewer, DocumentViewer) else None
            if doc is not None and not self._seen_here(doc, listed) and not viewer.has_unsaved_changes():
                self.tabs.removeTab(index)
                viewer.deleteLater()
        shown = self.details.document()
        if shown is not None and not self._seen_here(shown, listed):
            self.details.show_document(None)

    def _seen_here(self, doc: DocumentInfo, listed: set[str]) -> bool:
        return doc.id in listed or self.relation(doc) in (ScopeRelation.OWN, ScopeRelation.INHERITED,
                                                          ScopeRelation.AGENT)

    def _retitle_tabs(self, snapshot: Snapshot) -> None:
        """Viewer tabs follow renames (their documents' new titles arrive with each snapshot)."""
        titles = {d.id: d.title for d in snapshot.documents}
        for index in range(1, self.tabs.count()):
            widget = self.tabs.widget(index)
            title = titles.get(widget.current_document_id()) if isinstance(widget, DocumentViewer) else None
            if title is not None:
                self.tabs.setTabText(index, _short(title))
                self.tabs.setTabToolTip(index, title)

    def _follow_tabs(self) -> None:
        """Open tabs follow their documents (undo, redo, another process, a relink): each viewer reloads
        what changed, or asks when its note is being edited (``DocumentViewer.follow``)."""
        viewers = [self.tabs.widget(i) for i in range(1, self.tabs.count())]
        open_ = [tab_memory.OpenTab(v.current_document_id()) for v in viewers
                 if isinstance(v, DocumentViewer) and v.current_document_id()]
        if not open_:
            return
        lib = self.library

        def follow(found: list) -> None:
            for doc, _page in found:
                if (viewer := self._viewer_for(doc.id)) is not None:
                    viewer.follow(doc)

        self.workbench.read(lambda _c: tab_memory.reopenable(lib, open_), follow)

    def _update_count(self) -> None:
        snapshot = self.workbench.snapshot
        if snapshot is None:
            return
        total, shown = len(snapshot.documents), self.table.proxy.rowCount()
        # What waits to be indexed is the status indicator's (one figure, the indexing queue's).
        count = f"{shown} of {total} documents" if shown != total else _plural(total, "document")
        self.scope_label.setText(f"{self.scope_switcher.breadcrumb_text()} · {count}")

    @property
    def current_scope(self) -> str:
        """The scope the window shows."""
        return self.workbench.state.scope

    def _document(self, doc_id: str) -> DocumentInfo | None:
        snapshot = self.workbench.snapshot
        if snapshot is None:
            return None
        return next((d for d in snapshot.documents if d.id == doc_id), None)

    def relation(self, doc: DocumentInfo) -> ScopeRelation:
        """How ``doc`` relates to the window's scope: its own, inherited, a sibling think process's result, or
        from a scope inside it (a request under review) or elsewhere (a tab opened before a scope switch)."""
        snapshot = self.workbench.snapshot
        if snapshot is None:
            return scope_relation(doc.scope, self.current_scope)
        return scope_relation(doc.scope, self.current_scope, sibling_paths(snapshot.visible),
                              ancestors=[v.path for v in snapshot.visible if not v.results_only],
                              inside=descendant_paths(snapshot.scopes, self.current_scope),
                              agents=agent_paths(snapshot.visible))

    def _refuse_read_only(self, ids: list[str], doing: str) -> list[str]:
        """The ids of ``ids`` the window's scope may edit; for the others, the status bar says where they
        belong and to switch there to do ``doing`` (``"rename it"``)."""
        refused = [d for i in ids if (d := self._document(i)) is not None and self.relation(d).read_only]
        if refused:
            names = self.workbench.snapshot.scope_names if self.workbench.snapshot else {}
            first = refused[0]
            self.statusBar().showMessage(refusal_text(first.title, names.get(first.scope, first.scope),
                                                      self.relation(first), doing, len(refused) - 1), 10_000)
        return [i for i in ids if i not in {d.id for d in refused}]

    def _selection_changed(self, ids: list[str]) -> None:
        if not ids and self._opened_elsewhere is not None:
            return  # the list lost its selection (a refresh): what the user opened elsewhere stays
        self._opened_elsewhere = None
        doc = self._document(ids[0]) if len(ids) == 1 else None
        self._show_details(doc)

    def _refresh_details(self) -> None:
        """After a snapshot, the details panel shows fresh data of the document it showed, wherever it was
        chosen: in the list, in search or in a viewer tab. Snapshots come with every indexing step and
        every change made by another process, so emptying the panel on each one (the list has no
        selection when a search result was chosen) lost the user's place."""
        shown = self.details.document_id()
        if shown is None:
            if self._opened_elsewhere is None:  # else its load is on the way and fills the panel
                self._selection_changed(self.table.selected_ids())
            return
        doc = self._document(shown)
        if doc is not None:
            snapshot = self.workbench.snapshot
            basis = (doc, snapshot.change_counter, snapshot.state.scope)
            if basis != self._details_basis:  # else nothing it shows changed: its sections need no reload
                self._details_basis = basis
                self._show_details(doc)
            return
        lib = self.library

        def load(_context: TaskContext) -> DocumentInfo | None:
            try:
                found = documents.get_document(lib, shown)
            except DocumentNotFound:  # purged meanwhile: the panel empties, no error
                return None
            return None if found.status == DocumentStatus.DELETED else found  # trashed elsewhere

        self.workbench.read(load, lambda doc: self._show_details(doc) if self.details.document_id() == shown else None)

    def _show_details(self, doc: DocumentInfo | None) -> None:
        snapshot = self.workbench.snapshot
        if doc is None or snapshot is None:
            self.details.show_document(None)
            return
        names = snapshot.scope_names
        self.details.show_document(doc, scope_label=names.get(doc.scope, doc.scope), relation=self.relation(doc),
                                   folder_path=_folder_path(snapshot, doc.folder_id))
        lib = self.library
        self.workbench.read(lambda _c: documents.list_versions(lib, doc.id),
                            lambda versions: self._versions_loaded(doc.id, versions))
        self.workbench.read(lambda _c: relations.document_links(lib, doc.id),
                            lambda links: self._links_loaded(doc.id, links))

    def _links_loaded(self, doc_id: str, links: relations.DocumentLinks) -> None:
        if self.details.document_id() == doc_id:
            self.details.set_derived_from([(d.id, d.title) for d in links.derived_from])
            self.details.set_links(links)

    def _versions_loaded(self, doc_id: str, versions: list) -> None:
        snapshot = self.workbench.snapshot
        if self.details.document_id() == doc_id:
            self.details.set_versions(versions, snapshot.scope_names if snapshot else None,
                                      snapshot.review.me if snapshot else "")

    def _search_selected(self, doc_id: str) -> None:
        lib = self.library
        self._opened_elsewhere = doc_id
        self.workbench.read(lambda _c: documents.get_document(lib, doc_id),
                            lambda doc: self._show_details(doc) if self._opened_elsewhere == doc_id else None)

    # --- documents and viewer tabs -------------------------------------------------------------------
    def open_document(self, doc_id: str, page: int | None = None, highlight: str | None = None) -> None:
        """Open a document in a viewer tab (reusing its tab), at ``page`` with ``highlight`` found."""
        lib = self.library
        self.workbench.read(lambda _c: documents.get_document(lib, doc_id),
                            lambda doc: self._show_in_tab(doc, page, highlight))

    def _show_in_tab(self, doc: DocumentInfo, page: int | None, highlight: str | None) -> None:
        if (target := annotation_target(doc)) is not None:  # an annotation opens as its place in its PDF
            self.open_document(*target)
            return
        viewer = self._viewer_for(doc.id)
        if viewer is None:
            viewer = DocumentViewer()
            viewer.set_dark(themes.is_dark(QApplication.instance()))
            viewer.save_requested.connect(self._save_from_viewer)
            viewer.compare_requested.connect(self._compare)
            self.annotation_actions.attach(viewer)
            viewer.status_changed.connect(lambda text: self.statusBar().showMessage(text, 8000))
            self.notes.attach_viewer(viewer)
            self.tabs.addTab(viewer, _short(doc.title))
        index = self.tabs.indexOf(viewer)
        self.tabs.setTabToolTip(index, doc.title)
        self.tabs.setCurrentIndex(index)
        viewer.show_document(doc, page=page, highlight=highlight, read_only=self.relation(doc).read_only)
        self._opened_elsewhere = doc.id
        self._show_details(doc)

    def _viewer_for(self, doc_id: str) -> DocumentViewer | None:
        for index in range(1, self.tabs.count()):
            widget = self.tabs.widget(index)
            if isinstance(widget, DocumentViewer) and widget.current_document_id() == doc_id:
                return widget
        return None

    def current_viewer(self) -> DocumentViewer | None:
        """The viewer of the current tab, if a document tab is current."""
        widget = self.tabs.currentWidget()
        return widget if isinstance(widget, DocumentViewer) else None

    def export_annotations(self) -> None:
        """Export the annotations of the PDF in the current tab, else of the one document selected in the list."""
        viewer = self.current_viewer()
        doc = viewer.current_document() if viewer is not None else None
        if doc is not None:
            self.annotation_actions.export(doc)
            return
        ids, lib = self.table.selected_ids(), self.library
        if len(ids) != 1:
            self.statusBar().showMessage("Open or select one PDF to export its annotations.", 8000)
            return
        self.workbench.read(lambda _c: documents.get_document(lib, ids[0]), self.annotation_actions.export)

    def _save_from_viewer(self, doc_id: str, content: str) -> None:
        viewer = self._viewer_for(doc_id)
        shown = viewer.current_document() if viewer is not None else None
        # The draft was made on the version the tab shows: a change made since elsewhere (an agent, another
        # window, an undo) is not overwritten without asking.
        self.workbench.save_content(
            doc_id, content, on_saved=lambda doc: self._show_in_tab(doc, None, None),
            expected_version=shown.version if shown is not None else None,
            on_conflict=lambda conflict: self._save_conflict(doc_id, content, conflict))

    def _save_conflict(self, doc_id: str, content: str, conflict: EditConflict) -> None:
        """A stale save: settled in the conflict dialog (:meth:`_compare`)."""
        self._compare(doc_id, content, conflict.expected)

    def _compare(self, doc_id: str, content: str, base_version: int) -> None:
        """A draft ``content`` made on ``base_version`` of a document changed since (a stale save, or the
        editor's Compare…): both versions side by side (:class:`EditConflictDialog`), then the one kept or the
        merge saved against the stored version, so that yet another change made meanwhile is caught in turn."""
        lib, me = self.library, identity.current_user()
        names = dict(self.workbench.snapshot.scope_names) if self.workbench.snapshot else {}
        self.workbench.read(lambda _c: edit_merge.conflict_sides(lib, doc_id, base_version, content,
                                                                 name_actor=lambda a: actor_label(a, names, me)),
                            lambda sides: self._ask_conflict(sides, names))

    def _ask_conflict(self, sides: edit_merge.ConflictSides, scope_names: dict[str, str]) -> None:
        dialog = EditConflictDialog(sides, self, me=identity.current_user(), scope_names=scope_names)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

        def chosen() -> None:
            doc_id, stored = sides.theirs.id, sides.theirs
            if dialog.choice is Choice.THEIRS:
                self._show_in_tab(stored, None, None)
                return
            text = dialog.text()
            self.workbench.save_content(
                doc_id, text, on_saved=lambda doc: self._show_in_tab(doc, None, None), expected_version=stored.version,
                on_conflict=lambda again: self._save_conflict(doc_id, text, again))

        dialog.accepted.connect(chosen)
        dialog.open()

    def _close_tab(self, index: int) -> None:
        if index != LIBRARY_TAB:
            widget = self.tabs.widget(index)
            if isinstance(widget, DocumentViewer) and widget.has_unsaved_changes() and not dialogs.confirm(
                    self, "Unsaved changes", "This note has unsaved changes. Close it and lose them?"):
                return
            self.tabs.removeTab(index)
            widget.deleteLater()

    def _tab_changed(self, index: int) -> None:
        viewer = self.current_viewer()
        if viewer is not None and viewer.current_document_id():
            self._search_selected(viewer.current_document_id())

    def open_version(self, doc_id: str, number: int) -> None:
        """Show an earlier version's text in a read-only dialog."""
        lib = self.library

        def shown(version) -> None:
            box = QMessageBox(self)
            box.setWindowTitle(f"Version {version.number} of {version.title}")
            origin = self.details.version_origin(number) if self.details.document_id() == doc_id else ""
            box.setText(f"{origin or 'Version'} · {version.created_at:%Y-%m-%d %H:%M}, then {version.reason}\nTags: "
                        + " ".join(f"#{t}" for t in version.tags))
            box.setDetailedText(version.content or "(a file: its text is not versioned)")
            box.open()

        self.workbench.read(lambda _c: documents.read_version(lib, doc_id, number), shown)

    # --- search -------------------------------------------------------------------------------------
    def run_search(self, request: SearchRequest) -> None:
        """Run a search pane request in the background; the pane drops stale answers."""
        lib, scope = self.library, request.scope or self.current_scope

        def work(_context: TaskContext):
            return topic_search(lib, request.query, scope=scope, mode=request.mode, tag_filter=request.tag_filter(),
                                types=request.types or None, scopes=request.scopes, limit=request.limit,
                                memory_types=request.memory_types)

        pane = self.search_pane

        def answered(response) -> None:
            pane.show_response(request.request_id, response)
            if not response.warnings:  # searched by meaning: the model works (again)
                self.index_health.model_works()

        self.workbench.read(work, answered, title="Search",
                            on_error=lambda error: pane.show_error(request.request_id, str(error)))

    def _sync_search_tags(self, selected: list[str], mode: str) -> None:
        """The tag pane's selection also narrows the search (as Zotero's tag selector does)."""
        pane = self.search_pane
        for tag in pane.tag_filters():
            if tag not in selected:
                pane.remove_tag_filter(tag)
        for tag in selected:
            pane.add_tag_filter(tag)
        pane.match_button.setChecked(mode == "any")

    def focus_search(self) -> None:
        """Show the search pane and put the cursor in its query box (Ctrl+F)."""
        self.search_dock.show()
        self.search_dock.raise_()
        self.search_pane.focus_query()

    # --- user actions -------------------------------------------------------------------------------
    def new_note(self) -> None:
        """Ask for a note and create it in the current folder, then open it."""
        dialog = dialogs.NewNoteDialog(self)
        if dialog.exec():
            title, text = dialog.values()
            self.workbench.new_note(title, text, on_created=lambda doc: self._show_in_tab(doc, None, None),
                                    memory_type=dialog.memory_type.memory_type())

    def load_demo(self) -> None:
        """Install the demo library (finishing one installed in part), or go to it when it is there already."""
        self.workbench.install_demo()

    def import_files(self) -> None:
        """Pick files to import into the current folder."""
        names, _ = QFileDialog.getOpenFileNames(self, "Import files")
        if names:
            self.workbench.import_paths([Path(n) for n in names])

    def show_duplicates(self) -> DuplicatesDialog:
        """Open the Duplicates dialog over the current scope (Edit ▸ Find Duplicates…). One dialog, kept: a
        load or merge still running when it is closed reports to a live object, and reopening looks again."""
        dialog = getattr(self, "duplicates_dialog", None)
        if dialog is None:
            dialog = self.duplicates_dialog = DuplicatesDialog(self.workbench, self)
        else:
            dialog.reload(keep_outcome=False)
        dialog.show()
        dialog.raise_()
        return dialog

    def show_episodes(self) -> EpisodesDialog:
        """Open the Episodes window over the current scope (View ▸ Episodes…); kept, and listed again on reopening."""
        return self._show_kept("episodes_dialog", EpisodesDialog)

    def show_conflicts(self) -> ConflictsDialog:
        """Open the Conflicts window over the current scope (View ▸ Conflicts…); kept, and listed again on reopening."""
        return self._show_kept("conflicts_dialog", ConflictsDialog)

    def show_atoms(self) -> AtomsDialog:
        """Open the Atoms window over the current scope (View ▸ Atoms…); "Open Source" opens here, at the passage."""
        return self._show_kept("atoms_dialog", AtomsDialog)

    def show_digests(self) -> DigestsDialog:
        """Open the Digests window over the current scope (View ▸ Digests…): a writeup per day, its change set."""
        return self._show_kept("digests_dialog", DigestsDialog)

    def show_topics(self, map_: bool | None = None) -> TopicsDialog:
        """Open the Topics window over the current scope (View ▸ Topics…, Scope ▸ Topics of the current scope…): its
        topic tree with the selected topic's atoms and sources, or its map, as it was last left (the window's
        settings remember it); ``map_``: on the topic map (True, View ▸ Topic Map…) or the tree (False). Edit ▸ Undo
        and Redo work from it too."""
        dialog = self._show_kept("topics_dialog", TopicsDialog)
        if map_ is not None:
            dialog.show_map(map_)
        return dialog

    def _extend_scope_menu(self, menu: QMenu, target: FolderTarget | None) -> None:
        """The window's scope's root in the folder tree offers its Topics window (another scope's: switch first)."""
        if target is not None and target.kind == "scope" and target.key == self.current_scope:
            menu.addSeparator()
            menu.addAction("Topics of this Scope…", self.show_topics)

    def _show_kept(self, name: str, make: type[EpisodesDialog | ConflictsDialog | AtomsDialog | DigestsDialog
                                              | TopicsDialog]) -> Any:
        dialog = getattr(self, name, None)
        if dialog is None:
            dialog = make(self.workbench, self)
            setattr(self, name, dialog)
            if isinstance(dialog, AtomsDialog | TopicsDialog):
                dialog.open_requested.connect(lambda doc_id, page, passage: self.open_document(
                    doc_id, page if page > 0 else None, passage or None))
            if isinstance(dialog, TopicsDialog):  # its hand edits are undone from it as from the window
                dialog.addActions([self.undo_actions.undo_action, self.undo_actions.redo_action])
                dialog.remember_view(self.qsettings)
            if isinstance(dialog, DigestsDialog):
                dialog.open_requested.connect(lambda doc_id: self.open_document(doc_id))
        else:
            dialog.reload()
        dialog.show()
        dialog.raise_()
        return dialog

    def import_folder(self) -> None:
        """Pick a folder to import (it becomes a folder of the library)."""
        name = QFileDialog.getExistingDirectory(self, "Import a folder")
        if name:
            self.workbench.import_paths([Path(name)])

    def rename_selected(self) -> None:
        """F2: rename the selected document, or the folder when the tree has focus."""
        if self.folder_tree.hasFocus():
            self.folder_tree.edit(self.folder_tree.currentIndex())
            return
        ids = self.table.selected_ids()
        if len(ids) == 1:
            self.rename_document(ids[0])

    def rename_document(self, doc_id: str) -> None:
        """Ask for a new title; a document of another scope is read-only here and is not renamed (as in
        :meth:`trash_documents`)."""
        if not self._refuse_read_only([doc_id], "rename it"):
            return
        doc = self._document(doc_id)
        title = dialogs.ask_text(self, "Rename", "New title:", doc.title if doc else "")
        if title:
            self.workbench.rename_document(doc_id, title)

    def trash_selected(self) -> None:
        """Del: move the selected documents (or the selected folder) to the trash."""
        if self.folder_tree.hasFocus():
            target = self.folder_tree.current_target()
            if target is not None:
                self.delete_folder(target)
            return
        ids = self.table.selected_ids()
        if ids and self.table.trash_mode():
            self.purge(ids)
        elif ids:
            self.trash_documents(ids)

    def trash_documents(self, ids: list[str]) -> None:
        """Move documents of the window's scope to the trash; those of other scopes are read-only here and stay.

        A document of an ancestor scope is shared with every scope below it (a sibling think process's
        result, with its siblings): trashing it from one of them would take it from all, so it is
        refused with where to do it instead.
        """
        own = self._refuse_read_only(ids, "move it to the trash")
        if own:
            self.workbench.set_status(own, DocumentStatus.DELETED, "Move to Trash")

    def retry_document(self, doc_id: str) -> None:
        """Import a failed document again; an encrypted PDF first asks for its password."""
        doc = self._document(doc_id)
        password = None
        if doc is not None and "password" in (doc.index_error or "").lower():
            password = dialogs.ask_password(self, doc.metadata.get("original_name") or doc.title)
            if password is None:
                return
        self.workbench.retry_document(doc_id, password)

    def purge(self, ids: list[str]) -> None:
        """Delete trashed documents for good, after asking."""
        question = f"Delete {len(ids)} document(s) for good? This cannot be undone."
        if dialogs.confirm(self, "Delete permanently", question):
            self.workbench.purge(ids)

    def empty_trash(self) -> None:
        """Delete everything in the current scope's trash, after asking."""
        count = self.folder_tree.folder_model.smart_count("trash")
        items = f"the {count} items" if count != 1 else "the item"
        if dialogs.confirm(self, "Empty trash", f"Delete {items} in the trash for good? This cannot be undone."):
            self.workbench.empty_trash()

    def new_folder(self, target: FolderTarget) -> None:
        """Ask for a name and create a folder inside ``target``."""
        name = dialogs.ask_text(self, "New folder", "Folder name:")
        if name:
            self.workbench.create_folder(name, target)

    def delete_folder(self, target: FolderTarget) -> None:
        """Move a folder with its contents to the trash (without asking: Edit ▸ Undo brings it back)."""
        if target.kind == "folder":
            self.workbench.set_status([target.key], DocumentStatus.DELETED, "Delete folder")

    def create_scope(self, parent_path: str) -> None:
        """Ask for a new scope inside ``parent_path`` ("" for a new project group)."""
        snapshot = self.workbench.snapshot
        parent = next((s for s in snapshot.scopes if s.path == parent_path), None) if snapshot else None
        if parent is not None and parent.kind.child_kind is None:
            self.show_error(f"{parent.name} is a {parent.kind.label.lower()}: no scope goes inside it.")
            return
        dialog = dialogs.NewScopeDialog(parent.kind if parent else None, parent.name if parent else "", self)
        if dialog.exec():
            kind, key, name = dialog.values()
            self.workbench.create_scope(kind, key, name, parent.path if parent else None)

    def rename_scope(self, path: str) -> None:
        """Ask for a scope's new name."""
        snapshot = self.workbench.snapshot
        scope = next((s for s in snapshot.scopes if s.path == path), None) if snapshot else None
        name = dialogs.ask_text(self, "Rename scope", "Name:", scope.name if scope else "")
        if name:
            self.workbench.rename_scope(path, name)

    def archive_scope(self, path: str) -> None:
        """Archive a scope with everything below it, after asking."""
        if dialogs.confirm(self, "Archive scope", f"Archive {path} and every scope inside it? Their documents are "
                           "kept but hidden."):
            self.workbench.archive_scope(path)

    def open_settings(self) -> None:
        """The Settings dialog; saves library settings and preferences when accepted."""
        dialog = SettingsDialog(self.library.settings, self.preferences, self, open_library=self.library.paths.root)
        if dialog.exec():
            self.workbench.save_settings(dialog.result_settings())
            if dialog.endpoint_key() is not None:
                self.workbench.set_endpoint_key(dialog.result_settings().generator_endpoint_url, dialog.endpoint_key())
            self.preferences = dialog.result_preferences()
            save_preferences(self.preferences)
            self.set_theme(self.preferences.theme)

    def set_theme(self, name: str) -> None:
        """Switch the theme now and remember it."""
        dark = themes.apply_theme(QApplication.instance(), name)
        for theme, action in self.theme_actions.items():
            action.setChecked(theme == name)
        if self.preferences.theme != name:
            self.preferences = self.preferences.model_copy(update={"theme": name})
            save_preferences(self.preferences)
        for index in range(1, self.tabs.count()):
            widget = self.tabs.widget(index)
            if isinstance(widget, DocumentViewer):
                widget.set_dark(dark)

    def _remember_citation_style(self, name: str) -> None:
        self.preferences = self.preferences.model_copy(update={"citation_style": name})
        save_preferences(self.preferences)

    def _remember_context_window(self, tokens: int) -> None:
        self.preferences = self.preferences.with_context_window(self.library.paths.root, tokens)
        save_preferences(self.preferences)

    def show_tasks(self) -> None:
        """Show the Tasks panel (as a strip at the bottom when it was hidden)."""
        if not self.tasks_dock.isVisible():
            self.tasks_dock.show()
            window_parts.fit_bottom_dock(self, self.tasks_dock)
        self.tasks_dock.raise_()

    def rebuild_index(self) -> None:
        """File ▸ Rebuild Search Index: after a confirmation, make the vector index again from the library."""
        if dialogs.confirm(self, "Rebuild Search Index", "Embed every document again, from the library? A "
                           "damaged vector store is moved to the library's backups folder and kept. Keyword "
                           "search works meanwhile; search by meaning returns as documents are embedded."):
            self.index_health.rebuild()

    def _show_connection_state(self, part: str, state: str | None) -> None:
        """Show each lost server's sentence ("reconnecting to the database at …") in the status bar until it answers
        again (``part``: "database" or "vectors", ``state`` None), then say so briefly."""
        if state is None:
            if self._lost_servers.pop(part, None) is not None:
                self.statusBar().showMessage(f"The team's {'database' if part == 'database' else 'vector server'} "
                                             "answers again.", 8000)
        else:
            self._lost_servers[part] = state[:1].upper() + state[1:]
        self.connection_label.setText(" · ".join(self._lost_servers.values()))
        self.connection_label.setVisible(bool(self._lost_servers))

    def show_error(self, text: str) -> None:
        """Tell the user something went wrong in a window-modal box that does not block the event loop."""
        self.statusBar().showMessage(text, 12000)
        if self.error_box is None:
            self.error_box = QMessageBox(QMessageBox.Icon.Warning, "Vancetope Desktop", "", parent=self)
            self.error_box.finished.connect(lambda _result: setattr(self, "error_box", None))
            self.error_box.setText(text)
            self.error_box.open()
        else:  # several problems at once (a drop of many links): one box lists them all
            self.error_box.setText(self.error_box.text() + "\n" + text)

    # --- the review queue ---------------------------------------------------------------------------
    def show_review(self, request_ids: list[str] | None = None) -> None:
        """Show the Review pane, selecting ``request_ids`` when given (see :class:`ReviewDock`)."""
        self.review.show(request_ids)

    # --- moving between scopes, publishing, scope settings -----------------------------------------------
    def _build_scope_moves(self) -> None:
        """The Document menu, the Scope menu's publish / settings entries, and the wiring of scope moves."""
        self.scope_moves = ScopeMoveFlow(self.workbench, self)
        self.scope_settings = ScopeSettingsFlow(self.workbench, self)
        menus = self.menuBar()
        self.document_menu = menus.addMenu("&Document")
        view_menu = next((a for a in menus.actions() if a.text() == "&View"), None)
        if view_menu is not None:  # File, Edit, Document, View…
            menus.insertAction(view_menu, self.document_menu.menuAction())
        self.move_to_scope_menu = self.document_menu.addMenu("Move to Scope")
        self.move_to_scope_menu.aboutToShow.connect(lambda: self.table.fill_move_menu(self.move_to_scope_menu))
        self.request_promotion_action = self.table.request_promotion_action  # one document, after review
        self.document_menu.addAction(self.request_promotion_action)
        self.document_menu.addSeparator()
        for action in (self.rename_action, self.trash_action):
            self.document_menu.addAction(action)
        self.document_menu.addSeparator()
        self.export_annotations_action = self.document_menu.addAction("Export Annotations…",
                                                                      self.export_annotations)
        scope_menu = window_parts.menu_named(self, "&Scope") or menus.addMenu("&Scope")
        scope_menu.addSeparator()
        self.publish_action = scope_menu.addAction("Publish to Project…",
                                                   lambda: self.scope_moves.request_publish(self.current_scope))
        self.scope_settings_action = scope_menu.addAction("Scope Settings…",
                                                          lambda: self.scope_settings.open(self.current_scope))

        moves, settings, say = self.scope_moves, self.scope_settings, self._say_move_refused
        self.table.move_to_scope_requested.connect(moves.request_move)
        self.table.promotion_request_requested.connect(self.request_promotion)
        tree = self.folder_tree
        tree.folder_model.scope_move_requested.connect(moves.request_drop)
        tree.move_to_scope_requested.connect(moves.request_move)
        tree.publish_requested.connect(moves.request_publish)
        tree.scope_settings_requested.connect(settings.open)
        tree.move_refused.connect(say)
        switcher = self.scope_switcher
        switcher.documents_dropped.connect(moves.request_move)
        switcher.publish_requested.connect(moves.request_publish)
        switcher.settings_requested.connect(settings.open)
        switcher.move_refused.connect(say)
        self.workbench.snapshot_ready.connect(self._apply_scope_moves)

    def _apply_scope_moves(self, snapshot: Snapshot) -> None:
        """Feed every scope to the panes offering moves; publishing needs a think process."""
        self.table.set_scope_tree(snapshot.scopes)
        self.folder_tree.set_scope_tree(snapshot.scopes)
        self.publish_action.setEnabled(snapshot.state.scope.startswith(f"{ScopeKind.THINK_PROCESS.value}/"))

    def request_promotion(self, doc_id: str) -> None:
        """Request Promotion… of ``doc_id`` (the review queue): a document of this scope's branch (its own, an
        ancestor's, one below it), as ``memory request`` reaches; a sibling think process's result or another
        branch's is refused with where to go."""
        doc = self._document(doc_id)
        relation = self.relation(doc) if doc is not None else ScopeRelation.OWN
        if doc is not None and relation in (ScopeRelation.SIBLING, ScopeRelation.AGENT, ScopeRelation.OTHER):
            names = self.workbench.snapshot.scope_names if self.workbench.snapshot else {}
            self.statusBar().showMessage(refusal_text(doc.title, names.get(doc.scope, doc.scope), relation,
                                                      "request its promotion"), 10_000)
            return
        self.scope_moves.request_promotion(doc_id)

    def _say_move_refused(self, text: str) -> None:
        # A refusal while dragging is a hint, not an error: the status bar, no dialog.
        self.statusBar().showMessage(text, 8000)

    # --- drops on the window ------------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        # Documents dragged from the list carry their files' URLs for other programs: not an import here.
        if event.mimeData().hasUrls() and not decode_document_ids(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths, problems = local_paths_from_mime(event.mimeData())
        for problem in problems:
            self.show_error(problem)
        if paths:
            self.workbench.import_paths(paths)
            event.acceptProposedAction()

    # --- layout persistence ---------------------------------------------------------------------------
    def _restore_layout(self) -> None:
        geometry = self.qsettings.value("window/geometry")
        state = self.qsettings.value("window/state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)
            QTimer.singleShot(0, self, lambda: window_parts.fit_bottom_dock(self, self.tasks_dock))  # laid out
        self.table.restore_columns(self.qsettings)
        self._default_docks = state is None

    def _reopen_tabs(self) -> None:
        """Open again the viewer tabs of the last session on this library (missing or trashed ones skipped)."""
        tabs, current = tab_memory.load_tabs(self.qsettings, self._tabs_key)
        if not tabs:
            return

        def reopen(found: list[tuple[DocumentInfo, int | None]]) -> None:
            for doc, page in found:
                self._show_in_tab(doc, page, None)
            viewer = self._viewer_for(current) if current else None
            self.tabs.setCurrentIndex(self.tabs.indexOf(viewer) if viewer is not None else LIBRARY_TAB)

        lib = self.library
        self.workbench.read(lambda _c: tab_memory.reopenable(lib, tabs), reopen)

    @property
    def _tabs_key(self) -> str:
        return "open_tabs/" + self._scope_key.partition("/")[2]  # per library, as the remembered scope

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if getattr(self, "_default_docks", False):  # first start: size the docks to the window shown
            self._default_docks = False
            self.resizeDocks([self.folders_dock, self.search_dock], default_dock_widths(self.width()),
                             Qt.Orientation.Horizontal)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.qsettings.setValue("window/geometry", self.saveGeometry())
        self.qsettings.setValue("window/state", self.saveState())
        self.table.save_columns(self.qsettings)
        tab_memory.save_tabs(self.qsettings, self._tabs_key, *tab_memory.open_tabs(self.tabs))
        self.qsettings.setValue(self._scope_key, self.current_scope)
        self.qsettings.sync()
        self.hide()  # gone at once: what is left (a user edit's step, the model's loading) ends unseen
        self.workbench.close()
        super().closeEvent(event)


def default_dock_widths(window_width: int) -> list[int]:
    """The folder and the search/details docks' widths on first start, in pixels: 17 % and 24 % of the
    window (between 220–260 and 300–380; a dock's content may ask for more), so the list keeps the rest.
    Fixed widths of 260 and 380 gave the folders as much at 1280 pixels as at 1600."""
    return [min(max(round(window_width * 0.17), 220), 260), min(max(round(window_width * 0.24), 300), 380)]


def settle_heap() -> None:
    """Move everything loaded so far out of the garbage collector's reach (``gc.freeze``).

    A full collection walks every live object while holding the GIL: with Qt, SQLAlchemy and the
    model loaded that takes 100 ms or more and freezes the window, whichever thread triggers it.
    Start-up objects live as long as the app, so they never need collecting.
    """
    gc.freeze()
    # Hand the GIL to the UI thread within 1 ms (default 5 ms) when a worker thread holds it.
    sys.setswitchinterval(0.001)


def _folder_path(snapshot: Snapshot, folder_id: str | None) -> list[str]:
    by_id = {f.id: f for f in snapshot.folders}
    names: list[str] = []
    while folder_id and folder_id in by_id and len(names) < 64:
        names.append(by_id[folder_id].title)
        folder_id = by_id[folder_id].parent_id
    return names[::-1]


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _short(title: str, width: int = 28) -> str:
    return title if len(title) <= width else title[: width - 1] + "…"
