"""The Topics window (View ▸ Topics… or Topic Map…, Scope ▸ Topics of the current scope…, the scope's menu in the
folder tree; issue 14): the window's scope's topic tree, its ancestors' trees below it (read-only here), and the
selected topic's atoms (its subtopics' too) and sources.

"Tree | Map" switches the left side between the tree (with counts and a filter) and the topic map
(:mod:`.topic_map`); either one picks the topic whose atoms and sources the right side lists. A double-click on an
atom opens its source at the passage (as the Atoms window does); atoms dragged onto another topic (its row or its
tile) move there. Rename (F2, or in place), New Topic, Merge (several selected), Split (the selected atoms and the
others, or cut in two by meaning), Delete and moving a topic by dragging it are the store's hand edits, called
through the :class:`~.workbench.Workbench` (each one undo step: Edit ▸ Undo works from here too); Move to Scope
promotes or demotes the selected topic with its subtree and atoms along the scope's branch, confirmed in the
documents' dialog (:mod:`.move_dialog`, :class:`~.scope_move_flow.ScopeMoveFlow`; a tree's root is refused with the
service's reason); Request Promotion… beside it asks for the topic (with its subtree and atoms) to go to a scope
above once reviewed: a request in the review queue (:mod:`.request_dialog`); Rebuild now / Place N New Atoms run
the upkeep (``topics rebuild``). The Tree | Map choice is remembered across openings
(:meth:`TopicsDialog.remember_view`). Reads go through :meth:`~.workbench.Workbench.read`, one at a time; the models
hold the services' immutable cards only.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from PySide6.QtCore import QItemSelectionModel, QMimeData, QModelIndex, QSettings, Qt, Signal
from PySide6.QtGui import QAction, QContextMenuEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..core.atoms import Atom
from ..core.topics import Topic, TopicTree
from ..services import topics
from .atoms_view import open_source
from .item_models import card_table_view
from .move_dialog import fill_move_menu
from .scope_move_flow import ScopeMoveFlow
from .topic_map import TopicMapPane
from .topic_model import TOPIC_ROLE, TopicAtomsModel, TopicFilterProxy, TopicSourcesModel, TopicTreeModel
from .topic_parts import AtomListView, SplitDialog, TopicTreeView, topic_heading
from .workbench import Workbench

TREE, MAP = 0, 1
"""The left side's pages (the "Tree | Map" switch)."""
VIEW_KEY = "topics/view"
"""Where :meth:`TopicsDialog.remember_view` keeps the switch: ``tree`` or ``map``."""


class TopicsDialog(QDialog):
    """The window's scope's topics: the tree or the map on the left, the selected topic's atoms and sources on the
    right, the hand edits above.

    Signals:
        loaded(int): the trees arrived (how many topics the window's scope's tree has; 0: none yet).
        topic_shown(str): the atoms and sources of a topic arrived (its id).
        open_requested(str, int, str): open a document (id) at a page (-1: none) with a passage to find ("").
    """

    loaded = Signal(int)
    topic_shown = Signal(str)
    open_requested = Signal(str, int, str)

    def __init__(self, workbench: Workbench, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Topics")
        self.resize(1180, 680)
        self.workbench = workbench
        self.settings: QSettings | None = None
        self.scope_moves = ScopeMoveFlow(workbench, self, say=self.say)
        self.tree_model = TopicTreeModel(self)
        self.proxy = TopicFilterProxy(self.tree_model, self)
        self.view = TopicTreeView(self.tree_model, self.proxy, self)
        self.view.selectionModel().currentRowChanged.connect(lambda current, _p: self._current_changed(current))
        self.view.selectionModel().selectionChanged.connect(lambda _s, _d: self._update_actions())
        self.view.move_refused.connect(self.say)
        self.tree_model.rename_requested.connect(self.rename)
        self.tree_model.atoms_dropped.connect(self.move_atoms)
        self.tree_model.topic_move_requested.connect(self.move_topics)
        self.filter = QLineEdit(self)
        self.filter.setPlaceholderText("Filter topics by label or word")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._filter)
        self.map_pane = TopicMapPane(self)
        self.map_pane.map.topic_selected.connect(self.select_topic)
        # A drop on a tile goes as a drop on the topic's row: the tree model checks and reports it.
        self.map_pane.map.drop_refusal = self._map_drop_refusal
        self.map_pane.map.drop_requested.connect(lambda data, topic_id: self.tree_model.dropMimeData(
            data, Qt.DropAction.MoveAction, -1, -1, self.tree_model.index_for(topic_id)))
        self.left = QStackedWidget(self)
        tree_page = QWidget(self)
        tree_layout = QVBoxLayout(tree_page)
        tree_layout.setContentsMargins(0, 0, 0, 0)
        tree_layout.addWidget(self.filter)
        tree_layout.addWidget(self.view, 1)
        self.left.addWidget(tree_page)
        self.left.addWidget(self.map_pane)
        self.switch = QButtonGroup(self)
        switch_row = QHBoxLayout()
        switch_row.setSpacing(0)
        for page, title in ((TREE, "Tree"), (MAP, "Map")):
            button = QToolButton(self)
            button.setText(title)
            button.setCheckable(True)
            button.setChecked(page == TREE)
            self.switch.addButton(button, page)
            switch_row.addWidget(button)
        self.switch.idToggled.connect(lambda page, on: on and self._switched(page))

        self.heading = QLabel(self)
        self.heading.setWordWrap(True)
        self.heading.setTextFormat(Qt.TextFormat.RichText)
        self.atoms_model = TopicAtomsModel(self)
        self.atoms_view = card_table_view(self, self.atoms_model, (64, 420, 220), view=AtomListView(self))
        header = self.atoms_view.horizontalHeader()  # the statement takes the room, the page its digits
        header.setStretchLastSection(False)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(TopicAtomsModel.PAGE_COLUMN, QHeaderView.ResizeMode.ResizeToContents)
        self.atoms_view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.atoms_view.setDragEnabled(True)
        self.atoms_view.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.atoms_view.doubleClicked.connect(lambda index: self.open_atom(index.row()))
        self.atoms_view.selectionModel().selectionChanged.connect(lambda _s, _d: self._update_actions())
        self.sources_model = TopicSourcesModel(self)
        self.sources_view = card_table_view(self, self.sources_model, (520,))
        self.sources_view.doubleClicked.connect(self._open_source_row)
        right = QSplitter(Qt.Orientation.Vertical, self)
        right.addWidget(self.atoms_view)
        right.addWidget(self.sources_view)
        right.setSizes([420, 160])
        right_side = QWidget(self)
        right_layout = QVBoxLayout(right_side)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.heading)
        right_layout.addWidget(right, 1)
        self.body = QSplitter(Qt.Orientation.Horizontal, self)
        self.body.addWidget(self.left)
        self.body.addWidget(right_side)
        self.body.setSizes([460, 700])

        self.empty = QLabel(self)
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.rebuild_button = QPushButton("Rebuild now", self)
        self.rebuild_button.setToolTip("Build this scope's topic tree from its atoms now (as `vancetope topics "
                                       "rebuild` does), without waiting for the daily digest")
        self.rebuild_button.clicked.connect(self.rebuild)
        empty_page = QWidget(self)
        empty_layout = QVBoxLayout(empty_page)
        empty_layout.addStretch(1)
        empty_layout.addWidget(self.empty)
        empty_layout.addWidget(self.rebuild_button, 0, Qt.AlignmentFlag.AlignHCenter)
        empty_layout.addStretch(2)
        self.pages = QStackedWidget(self)
        self.pages.addWidget(self.body)
        self.pages.addWidget(empty_page)

        self._build_actions()
        self.scope_label = QLabel(self)
        top = QHBoxLayout()
        top.addWidget(self.scope_label)
        top.addLayout(switch_row)
        top.addStretch(1)
        for action in (self.update_action, self.new_action, self.rename_action, self.merge_action,
                       self.split_action, self.delete_action):
            button = QToolButton(self)
            button.setDefaultAction(action)
            top.addWidget(button)
            if action is self.update_action:  # a button follows its action's text and state, not its visibility
                self.update_button = button
            if action is self.split_action:
                self.move_button = QToolButton(self)
                self.move_button.setDefaultAction(self.move_action)  # its menu too (setMenu would drop the action)
                self.move_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
                top.addWidget(self.move_button)
                self.request_button = QToolButton(self)
                self.request_button.setDefaultAction(self.request_action)
                top.addWidget(self.request_button)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.status)
        layout.addWidget(buttons)
        self._reading = self._again = False
        self._topic_request = 0
        self._seen: tuple[str, int] | None = None
        self._current: str | None = None  # the topic whose atoms are listed
        workbench.snapshot_ready.connect(self._follow)
        self._update_actions()
        self.reload()

    def _build_actions(self) -> None:
        local = Qt.ShortcutContext.WidgetWithChildrenShortcut
        self.new_action = QAction("New Topic…", self)
        self.new_action.setToolTip("A new topic under the selected one (or at the top of the tree)")
        self.new_action.triggered.connect(self._ask_new)
        self.rename_action = QAction("Rename", self)
        self.rename_action.setShortcut(QKeySequence("F2"))
        self.rename_action.setShortcutContext(local)
        self.rename_action.triggered.connect(self._rename_current)
        self.merge_action = QAction("Merge", self)
        self.merge_action.setToolTip("Merge the selected topics into one (their atoms and subtopics go with it)")
        self.merge_action.triggered.connect(self._ask_merge)
        self.split_action = QAction("Split…", self)
        self.split_action.setToolTip("Split the topic in two subtopics: the atoms selected on the right and the "
                                     "others, or (none selected) its atoms cut in two by meaning")
        self.split_action.triggered.connect(self._ask_split)
        self.delete_action = QAction("Delete", self)
        self.delete_action.setToolTip("Delete the topic: its atoms and subtopics go to its parent (Edit ▸ Undo "
                                      "brings it back)")
        self.delete_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))
        self.delete_action.setShortcutContext(local)
        self.delete_action.triggered.connect(self._delete_current)
        self.move_menu = QMenu("Move to Scope", self)
        self.move_menu.aboutToShow.connect(self.fill_move_menu)
        self.move_menu.setToolTipsVisible(True)
        self.move_action = self.move_menu.menuAction()
        self.move_action.setToolTip("Promote or demote the topic to another scope of this branch, with its subtopics "
                                    "and their atoms (Edit ▸ Undo brings it back)")
        self.request_action = QAction("Request Promotion…", self)
        self.request_action.setToolTip("Ask for the topic, with its subtopics and their atoms, to go to a scope above "
                                       "once reviewed (the review queue): nothing moves until it is approved")
        self.request_action.triggered.connect(self.request_promotion)
        self.update_action = QAction("Update Now", self)
        self.update_action.triggered.connect(self.rebuild)
        self.view.addActions([self.rename_action, self.delete_action])

    # --- reading --------------------------------------------------------------------------------------
    def reload(self) -> None:
        """Read the window's scope's tree and its ancestors' again. One read at a time: asked again while one runs
        (changes come every few seconds during an import, and counting a tree of 100,000 atoms takes seconds), it
        reads once more when that one ends."""
        if self._reading:
            self._again = True
            return
        self._reading, self._again = True, False
        lib, scope = self.workbench.lib, self.workbench.state.scope
        names = self.workbench.snapshot.scope_names if self.workbench.snapshot is not None else {}
        self.scope_label.setText(f"Topics of <b>{escape(names.get(scope, scope))}</b>")

        def load(_context: Any) -> list[TopicTree]:
            # The trees it searches (its own first when it has one), its own even when empty: the empty state
            # counts the atoms waiting for it.
            seen = topics.visible_trees(lib, scope, counts=True)
            own = next((v.tree for v in seen if v.scope == scope), None) or topics.get_tree(lib, scope)
            return [own, *(v.tree for v in seen if v.scope != scope)]

        def failed(error: BaseException) -> None:
            self._read_ended()
            self.say(f"Could not read the topics: {error}")

        self.workbench.read(load, lambda trees: self._loaded(scope, trees), title="Topics", on_error=failed)

    def _read_ended(self) -> bool:
        """The tree's read ended; read again if asked meanwhile (True: the answer is already old)."""
        self._reading = False
        if self._again:
            self.reload()
            return True
        return False

    def _loaded(self, scope: str, trees: list[TopicTree]) -> None:
        if self._read_ended() and scope != self.workbench.state.scope:  # another scope's: the next read shows it
            return
        keep = self._current
        expanded = self._expanded_ids()
        names = self.workbench.snapshot.scope_names if self.workbench.snapshot is not None else {}
        self.tree_model.set_trees(trees, scope, names)
        own = next((t for t in trees if t.scope == scope), None)
        shown = self.tree_model.trees()
        if not shown:
            self._show_empty(scope, own, names)
            self.loaded.emit(0)
            return
        self.pages.setCurrentIndex(0)
        self._offer_update(own)
        self._restore_expanded(expanded)
        self._current = None
        if keep is None or not self.select_topic(keep):
            first = own.root_id if own is not None and own.root_id else shown[0].root_id
            self.select_topic(first or "")
        self._update_map()
        self.loaded.emit(len(own.topics) if own is not None else 0)

    def _offer_update(self, own: TopicTree | None) -> None:
        """Above a tree: build the window's scope's own (only an ancestor's is shown), or place the atoms that came
        since the digest last kept it; hidden when it is up to date."""
        waiting = own.unplaced if own is not None else 0
        if own is None or own.root_id is None:
            self.update_action.setText("Build This Scope's Tree")
            self.update_action.setToolTip(f"{waiting} atom{'s' if waiting != 1 else ''} of this scope wait for "
                                          "its own tree (the daily digest builds it; as `vancetope topics rebuild`)")
        else:
            self.update_action.setText(f"Place {waiting} New Atom{'s' if waiting != 1 else ''}")
            self.update_action.setToolTip("Put the atoms that came since the last digest in the tree now, as the "
                                          "digest would (`vancetope topics rebuild`)")
        self.update_button.setVisible(waiting > 0)

    def _show_empty(self, scope: str, own: TopicTree | None, names: dict[str, str]) -> None:
        """No tree in the scope nor its ancestors: say what builds one and offer to build it now."""
        name = escape(names.get(scope, scope))
        waiting = own.unplaced if own is not None else 0
        if waiting:
            said = (f"The daily digest builds it from the scope's atoms ({waiting} atom{'s' if waiting != 1 else ''} "
                    "wait for it): it groups them into topics, names each with its keywords, and keeps the tree up "
                    "to date as atoms come.</p><p>Build it now from the atoms there are:")
        else:
            said = ("It has no atoms yet to build one from: they are read from notes and results as they are "
                    "written, and from any source by Document ▸ Extract Atoms. The daily digest then builds the tree.")
        self.empty.setText(f"<p><b>{name} has no topic tree yet.</b></p><p>{said}</p>")
        self.empty.setTextFormat(Qt.TextFormat.RichText)
        self.rebuild_button.setEnabled(waiting > 0)
        self.update_button.setVisible(False)
        self.pages.setCurrentIndex(1)
        self.atoms_model.set_topic(None, [], set(), draggable=False)
        self.sources_model.set_items([])
        self.map_pane.map.set_tree(None)
        self._current = None
        self._update_actions()

    def select_topic(self, topic_id: str) -> bool:
        """Select ``topic_id`` in the tree (clearing the filter if it hides it) and list its atoms; False when the
        window shows no such topic."""
        index = self.tree_model.index_for(topic_id)
        if not index.isValid():
            return False
        shown = self.proxy.mapFromSource(index)
        if not shown.isValid():
            self.filter.clear()
            shown = self.proxy.mapFromSource(index)
        self.view.scrollTo(shown)
        self.view.selectionModel().setCurrentIndex(
            shown, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
        return True

    def current_topic(self) -> Topic | None:
        """The topic whose atoms are listed (the tree's current row), or None."""
        return self.tree_model.topic_by_id(self._current) if self._current else None

    def selected_topics(self) -> list[Topic]:
        """The topics selected in the tree, in the tree's order."""
        rows = self.view.selectionModel().selectedRows(0)
        found = [self.tree_model.topic(self.proxy.mapToSource(i)) for i in sorted(rows, key=_tree_order)]
        return [t for t in found if t is not None]

    def selected_atoms(self) -> list[Atom]:
        """The atoms selected in the list, in its order."""
        return [self.atoms_model.item_at(r) for r in sorted(i.row() for i in self.atoms_view.selectionModel()
                                                            .selectedRows())]

    def _current_changed(self, current: QModelIndex) -> None:
        topic_id = current.data(TOPIC_ROLE) if current.isValid() else None
        if topic_id == self._current:
            return
        self._current = topic_id
        self._update_map()
        self.map_pane.map.select(topic_id)
        self._update_actions()
        self.load_topic()

    def load_topic(self) -> None:
        """Read the current topic's atoms and sources (the latest request wins)."""
        topic = self.current_topic()
        self._topic_request += 1
        request, lib = self._topic_request, self.workbench.lib
        if topic is None:
            self.heading.setText("")
            self.atoms_model.set_topic(None, [], set(), draggable=False)
            self.sources_model.set_items([])
            return
        self.heading.setText(topic_heading(topic, self.tree_model))
        scope = self.workbench.state.scope

        def load(_context: Any) -> tuple[list[Atom], set[str], list[topics.TopicSource]]:
            # The whole subtree's atoms (a topic above others lists what is under it), and which are its own.
            found = topics.topic_atoms(lib, topic.id, recursive=bool(topic.children), acting_scope=scope)
            own = {a.id for a in topics.topic_atoms(lib, topic.id, acting_scope=scope)} if topic.children \
                else {a.id for a in found}
            return found, own, topics.topic_sources(lib, topic.id, acting_scope=scope)

        self.workbench.read(load, lambda found: self._topic_loaded(request, topic, *found), title="Topic")

    def _topic_loaded(self, request: int, topic: Topic, found: list[Atom], own: set[str],
                      sources: list[topics.TopicSource]) -> None:
        if request != self._topic_request:
            return
        keep = {a.id for a in self.selected_atoms()}
        self.atoms_model.set_topic(topic.id, found, own, draggable=not self.tree_model.is_inherited(topic.id))
        self.sources_model.set_items(sources)
        for row in range(self.atoms_model.rowCount()):
            if self.atoms_model.item_at(row).id in keep:
                self.atoms_view.selectionModel().select(self.atoms_model.index(row, 0), QItemSelectionModel
                                                        .SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)
        self._update_actions()
        self.topic_shown.emit(topic.id)

    def open_atom(self, row: int) -> None:
        """Open the source of the atom in ``row`` at its passage."""
        if 0 <= row < self.atoms_model.rowCount():
            open_source(self.workbench, self.atoms_model.item_at(row), self.open_requested.emit,
                        lambda error: self.say(str(error)))

    def _follow(self, snapshot: Any) -> None:
        # The library changed (a hand edit, an undo, a digest, an agent) or the window's scope did: read again (the
        # reload selects the listed topic again, which lists its atoms again).
        seen = (snapshot.state.scope, snapshot.change_counter)
        if self.isVisible() and seen != self._seen:
            if self._seen is not None and seen[0] != self._seen[0]:
                self._current = None
            self.reload()
        self._seen = seen

    # --- the map --------------------------------------------------------------------------------------
    def _update_map(self) -> None:
        """The map shows the tree of the current topic (the window's scope's tree when none is current)."""
        trees = self.tree_model.trees()
        topic = self.current_topic()
        tree = next((t for t in trees if topic is not None and t.scope == topic.scope), trees[0] if trees else None)
        map_ = self.map_pane.map
        if tree is not map_.tree:
            names = self.workbench.snapshot.scope_names if self.workbench.snapshot is not None else {}
            map_.set_tree(tree, names.get(tree.scope, tree.scope) if tree is not None else "")

    def _map_drop_refusal(self, data: QMimeData, topic_id: str) -> str | None:
        index = self.tree_model.index_for(topic_id)
        return self.tree_model.drop_refusal(data, index) if index.isValid() else "Drop on a topic"

    def show_map(self, on: bool = True) -> None:
        """Switch the left side to the map (or back to the tree)."""
        self.switch.button(MAP if on else TREE).setChecked(True)

    def remember_view(self, settings: QSettings) -> None:
        """Show the Tree or the Map as ``settings`` remember it (:data:`VIEW_KEY`), and remember each switch there."""
        self.settings = settings
        self.show_map(settings.value(VIEW_KEY) == "map")

    def _switched(self, page: int) -> None:
        self.left.setCurrentIndex(page)
        if self.settings is not None:
            self.settings.setValue(VIEW_KEY, "map" if page == MAP else "tree")

    # --- hand edits (through the workbench: each one undo step) ------------------------------------------
    def rename(self, topic_id: str, label: str) -> None:
        """Give ``topic_id`` the label ``label``."""
        self.say("Renaming…")
        self.workbench.rename_topic(topic_id, label, on_done=lambda _t: self.say(f"Renamed to “{label}”"))

    def move_atoms(self, atom_ids: list[str], from_topic: str | None, to_topic: str) -> None:
        """Move atoms (dropped on ``to_topic``) out of ``from_topic`` into ``to_topic``."""
        target = self.tree_model.topic_by_id(to_topic)
        self.say("Moving…")
        self.workbench.move_atoms_to_topic(atom_ids, to_topic, from_topic, on_done=lambda _r: self.say(
            f"Moved {len(atom_ids)} atom{'s' if len(atom_ids) != 1 else ''} to “{target.label if target else ''}”"))

    def move_topics(self, topic_ids: list[str], parent_id: str) -> None:
        """Put topics (dropped on ``parent_id``) under ``parent_id``, each one undo step."""
        self.say("Moving…")
        for topic_id in topic_ids:
            self.workbench.move_topic(topic_id, parent_id, on_done=lambda moved: self.say(f"Moved “{moved.label}”"))

    def merge(self, topic_ids: Sequence[str], into: str) -> None:
        """Merge ``topic_ids`` into ``into`` (one of them): its label stays, the others' atoms and subtopics join it."""
        others = [t for t in topic_ids if t != into]
        if others:
            self.say("Merging…")
            self.workbench.merge_topics(into, others, on_done=lambda _t: self.say(
                f"Merged {len(others)} topic{'s' if len(others) != 1 else ''}"))

    def split(self, topic_id: str, groups: Sequence[Sequence[str]] | None, labels: Sequence[str] | None) -> None:
        """Split ``topic_id``: each group of its own atoms becomes a new subtopic with the label of the same rank
        (``groups`` None: its own atoms cut in two by meaning, each part named by its best keyword)."""
        self.say("Splitting…")
        self.workbench.split_topic(topic_id, groups, labels=labels, on_done=lambda made: self.say(
            f"Split into {', '.join(f'“{t.label}”' for t in made)}"))

    def create(self, parent_id: str, label: str) -> None:
        """A new topic ``label`` under ``parent_id``."""
        self.say("Creating…")
        # Listed once the tree is read again (after the write): the reload selects what is current.
        self.workbench.create_topic(label, parent_id, on_done=lambda made: setattr(self, "_current", made.id))

    def delete(self, topic_id: str) -> None:
        """Delete ``topic_id`` (its atoms and subtopics go to its parent)."""
        self.say("Deleting…")
        self.workbench.delete_topic(topic_id, on_done=lambda _r: self.say("Deleted (Edit ▸ Undo brings it back)"))

    def fill_move_menu(self) -> bool:
        """Fill the Move to Scope menu with the scopes the current topic may go to (promotions first, as the
        documents' menu; :func:`.move_dialog.fill_move_menu`); returns whether there is one."""
        topic, snapshot = self.current_topic(), self.workbench.snapshot
        if topic is None or self.tree_model.is_inherited(topic.id) or snapshot is None:
            self.move_menu.clear()
            self.move_menu.addAction("Select a topic of this scope's tree").setEnabled(False)
            return False
        return fill_move_menu(self.move_menu, snapshot.scopes, [topic.scope],
                              lambda path: self.move_to_scope(topic.id, path))

    def move_to_scope(self, topic_id: str, target: str) -> None:
        """Promote or demote ``topic_id`` (with its subtree and its atoms) to scope ``target`` once the move's
        dialog is confirmed, as documents move (a tree's root: the service's refusal is shown)."""
        self.scope_moves.request_move([topic_id], target)

    def request_promotion(self) -> None:
        """Ask for the current topic (with its subtree and its atoms) to be promoted once reviewed: the dialog picks
        a scope above and takes a reason, the request goes to the review queue (a tree's root, or a topic already
        waiting: the refusal is shown in the status line)."""
        topic = self.current_topic()
        if topic is not None and not self.tree_model.is_inherited(topic.id):
            self.scope_moves.request_promotion(topic.id)

    def rebuild(self) -> None:
        """Build the window's scope's tree now from its atoms (the upkeep's cold build)."""
        self.say("Building the topic tree…")
        self.workbench.rebuild_topics(on_done=lambda report: self.say(report.message))

    def say(self, text: str) -> None:
        """Show ``text`` in the window's status line."""
        self.status.setText(text)

    def _open_source_row(self, index: QModelIndex) -> None:
        source_id = index.data(Qt.ItemDataRole.UserRole)
        if source_id:
            self.open_requested.emit(source_id, -1, "")

    def _rename_current(self) -> None:
        index = self.view.currentIndex()
        if index.isValid() and self.tree_model.editable(index.data(TOPIC_ROLE) or ""):
            self.view.edit(index.siblingAtColumn(0))

    def _ask_new(self) -> None:
        topic, own = self.current_topic(), self._own_tree()
        if own is None or own.root_id is None:
            return
        parent = topic if topic is not None and not self.tree_model.is_inherited(topic.id) else own.get(own.root_id)
        label, ok = QInputDialog.getText(self, "New topic", f"A new topic under “{_label(parent, self)}”:")
        if ok and label.strip() and parent is not None:
            self.create(parent.id, label.strip())

    def _ask_merge(self) -> None:
        chosen = [t for t in self.selected_topics() if self.tree_model.editable(t.id)]
        if len(chosen) < 2:
            return
        current = self.current_topic()
        labels = [t.label for t in chosen]
        start = next((n for n, t in enumerate(chosen) if current is not None and t.id == current.id), 0)
        label, ok = QInputDialog.getItem(self, "Merge topics", "Keep this topic (the others join it):", labels, start,
                                         False)
        if ok:
            self.merge([t.id for t in chosen], chosen[labels.index(label)].id)

    def _ask_split(self) -> None:
        topic, picked = self.current_topic(), {a.id for a in self.selected_atoms()}
        own = self.atoms_model.own_ids
        if topic is not None and not picked and len(own) >= 2:  # undoable: no question asked
            self.split(topic.id, None, None)
            return
        rest = [self.atoms_model.item_at(r).id for r in range(self.atoms_model.rowCount())
                if self.atoms_model.item_at(r).id in own - picked]
        if topic is None or not picked or not rest or not picked <= own:
            self.say("Select some of the topic's own atoms, not all (nor a subtopic's): they become one new "
                     "subtopic, the others another")
            return
        dialog = SplitDialog(topic.label, len(picked), len(rest), self)
        if dialog.exec():
            self.split(topic.id, [sorted(picked), rest], dialog.labels())

    def _delete_current(self) -> None:
        topic = self.current_topic()
        if topic is not None and self.tree_model.editable(topic.id):
            self.delete(topic.id)

    def _own_tree(self) -> TopicTree | None:
        return next((t for t in self.tree_model.trees() if t.scope == self.workbench.state.scope), None)

    def _update_actions(self) -> None:
        topic = self.current_topic()
        editable = topic is not None and self.tree_model.editable(topic.id)
        own = self._own_tree()
        self.new_action.setEnabled(own is not None)
        self.rename_action.setEnabled(editable)
        self.delete_action.setEnabled(editable)
        self.move_action.setEnabled(topic is not None and not self.tree_model.is_inherited(topic.id))
        self.request_action.setEnabled(self.move_action.isEnabled())
        self.merge_action.setEnabled(sum(self.tree_model.editable(t.id) for t in self.selected_topics()) >= 2)
        picked, own = {a.id for a in self.selected_atoms()}, self.atoms_model.own_ids
        self.split_action.setEnabled(editable and (picked < own if picked else len(own) >= 2))

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        if not self.view.isAncestorOf(self.childAt(event.pos())):
            super().contextMenuEvent(event)
            return
        menu = QMenu(self)
        menu.addActions([self.new_action, self.rename_action, self.merge_action, self.split_action,
                         self.delete_action])
        menu.addSeparator()
        menu.addMenu(self.move_menu)
        menu.addAction(self.request_action)
        menu.exec(event.globalPos())

    def _filter(self, text: str) -> None:
        self.proxy.setFilterFixedString(text.strip())
        if text.strip():
            self.view.expandAll()

    def _expanded_ids(self) -> set[str]:
        found, stack = set(), [QModelIndex()]
        while stack:
            parent = stack.pop()
            for row in range(self.proxy.rowCount(parent)):
                index = self.proxy.index(row, 0, parent)
                if self.view.isExpanded(index):
                    found.add(index.data(TOPIC_ROLE))
                    stack.append(index)
        return found

    def _restore_expanded(self, expanded: set[str]) -> None:
        """Expand the topics expanded before a reload; the first time, each tree's root and its children."""
        for row in range(self.proxy.rowCount()):
            root = self.proxy.index(row, 0)
            if not expanded:
                self.view.expand(root)
        for topic_id in expanded:
            index = self.proxy.mapFromSource(self.tree_model.index_for(topic_id))
            if index.isValid():
                self.view.expand(index)


def _label(topic: Topic | None, dialog: TopicsDialog) -> str:
    if topic is None:
        return ""
    if topic.is_root:
        names = dialog.workbench.snapshot.scope_names if dialog.workbench.snapshot is not None else {}
        return names.get(topic.scope, topic.scope)
    return topic.label


def _tree_order(index: QModelIndex) -> tuple[int, ...]:
    rows = []
    while index.isValid():
        rows.append(index.row())
        index = index.parent()
    return tuple(reversed(rows))
