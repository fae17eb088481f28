"""The Review pane: promotion requests to approve or reject, like a code review of agent results.

Pending requests are grouped by think process; the selected one shows its document rendered, where it
comes from (think process and node), its tags and inputs, who asked and why, and, when approving would
update a copy already in the target scope, a side-by-side diff. Approve, Approve to…, Edit & approve
and Reject work on a multi-selection (a group row stands for all its requests). A History page lists
decided requests.

A pure widget: it is fed by :meth:`ReviewPane.set_data` and :meth:`ReviewPane.show_details`, and asks
for everything by signals; the main window runs ``services.review`` on the write lane.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

from PySide6.QtCore import (
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPoint,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QAction, QKeySequence, QPalette, QResizeEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QDialog,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QToolBar,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from ..core.promotion import PromotionRequest
from .review_detail import RequestDetailView, hint, kind_label
from .review_dialogs import EditApproveDialog, RejectDialog, requested_label
from .review_model import (
    Approval,
    ReviewDetails,
    ReviewHistoryModel,
    ReviewQueueModel,
    ReviewRole,
    actor_label,
    local_time,
    requester_text,
    scope_name,
)
from .scope_text import name_scope_paths

WIDE = 1000
"""From this width (px) the list and the detail sit side by side; below, one above the other."""
TINY = 420
"""Below this list width the queue shows titles and ages only (the detail names the requester)."""
NARROW = 620
"""Below this list width the queue hides its From → To column too (the detail shows it)."""
MEDIUM = 900
"""Below this list width the queue hides its Reason column (the detail shows it), leaving room for titles."""

class ReviewPane(QWidget):
    """Pending requests (grouped) with a detail area and actions, and the history of decided requests.

    Signals:
        approve_requested(Approval): approve these requests (maybe elsewhere, with edits).
        reject_requested(list, str): request ids and the (non-blank) reason.
        details_requested(object): the single selected :class:`PromotionRequest` whose details to load.
        document_open_requested(str): open a document in a tab.
    """

    approve_requested = Signal(object)
    reject_requested = Signal(list, str)
    details_requested = Signal(object)
    document_open_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.queue_model = ReviewQueueModel(self)
        self.history_model = ReviewHistoryModel(self)
        self.history_proxy = QSortFilterProxyModel(self)
        self.history_proxy.setSourceModel(self.history_model)
        self.history_proxy.setSortRole(ReviewRole.SORT)
        self.history_proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.history_proxy.setFilterKeyColumn(-1)
        self._names: dict[str, str] = {}
        self._ancestry: dict[str, list[str]] = {}
        self._me = ""
        self._collapsed: set[str] = set()
        self._in_flight: set[str] = set()
        self._details_for: str | None = None  # the request whose details were asked for last
        self._on_screen = True  # see set_on_screen
        self._details_stale = False  # refreshed data came while out of sight: load the details again once seen
        self.dialog: QDialog | None = None
        self._build_actions()
        self._build_pending()
        self._build_history()
        self._build_layout()
        self._update_actions()

    # --- building ---

    def _build_actions(self) -> None:
        local = Qt.ShortcutContext.WidgetWithChildrenShortcut

        def action(text: str, slot, keys: str | None = None, tip: str = "") -> QAction:
            made = QAction(text, self)
            if keys:
                made.setShortcut(QKeySequence(keys))
                made.setShortcutContext(local)
            made.setToolTip(f"{tip} ({QKeySequence(keys).toString(QKeySequence.SequenceFormat.NativeText)})"
                            if keys else tip)
            made.triggered.connect(lambda _c=False: slot())
            self.addAction(made)
            return made

        self.approve_action = action("Approve", self.approve_selected, "Ctrl+Return",
                                     "Move the selected documents to the scope each request names")
        self.edit_action = action("Edit && approve…", self.edit_and_approve, "Ctrl+E",
                                  "Change the title or tags, or the target, then approve")
        self.reject_action = action("Reject…", self.reject_selected, "Ctrl+Backspace",
                                    "Leave the documents where they are, with a reason")
        self.open_action = action("Open document", self._open_current, None, "Open the document in a tab")
        self.approve_to_menu = QMenu("Approve to", self)
        self.approve_to_menu.aboutToShow.connect(self._fill_approve_to)

    def _build_pending(self) -> None:
        view = QTreeView()
        view.setModel(self.queue_model)
        view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        view.setAllColumnsShowFocus(True)
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        view.customContextMenuRequested.connect(self._context_menu)
        view.doubleClicked.connect(self._double_clicked)
        view.collapsed.connect(lambda index: self._collapsed.add(index.data(ReviewRole.GROUP_KEY)))
        view.expanded.connect(lambda index: self._collapsed.discard(index.data(ReviewRole.GROUP_KEY)))
        view.selectionModel().selectionChanged.connect(lambda *_: self._selection_changed())
        header = view.header()
        # The title column takes whatever width is left, so the rows always fill the list (no blank
        # gutter, whichever columns a narrow pane hides); the others keep readable widths.
        header.setStretchLastSection(False)
        header.setMinimumSectionSize(60)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 4):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        for column, width in ((2, 230), (3, 200)):
            header.resizeSection(column, width)
        self.queue_view = view
        view.installEventFilter(self)

        self.approve_button = QPushButton("Approve")
        self.approve_button.setProperty("role", "primary")
        self.approve_to_button = QToolButton()
        self.approve_to_button.setText("Approve to")
        self.approve_to_button.setMenu(self.approve_to_menu)
        self.approve_to_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.edit_button = QPushButton("Edit && approve…")
        self.reject_button = QPushButton("Reject…")
        self.reject_button.setProperty("role", "danger")
        for button, act in ((self.approve_button, self.approve_action), (self.edit_button, self.edit_action),
                            (self.reject_button, self.reject_action)):
            button.clicked.connect(act.trigger)
            button.setToolTip(act.toolTip())
        self.approve_to_button.setToolTip("Approve to another scope above the documents")
        self.selection_label = hint()
        # A toolbar, not a row of buttons: those that do not fit go to its » menu, so the buttons never
        # set the dock's minimum width (388 px as a row, which squeezed the document list at 1280x800).
        bar = QToolBar()
        bar.setMovable(False)
        bar.setContentsMargins(0, 0, 0, 0)
        for widget in (self.approve_button, self.approve_to_button, self.edit_button, self.reject_button,
                       self.selection_label):
            bar.addWidget(widget)
        self.button_bar = bar

        self.detail = RequestDetailView()
        self.detail.document_open_requested.connect(self.document_open_requested)
        self.multi_label = QLabel()
        self.multi_label.setWordWrap(True)
        self.multi_label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.multi_label.setContentsMargins(12, 12, 12, 12)
        self.no_selection_label = hint("Select a request to review it. Ctrl+Return approves, Ctrl+E edits "
                                        "and approves, Ctrl+Backspace rejects; select several (or a group) "
                                        "to decide them at once.")
        self.no_selection_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        # Scrolls only when the dock is short: the window must stay free to shrink (the detail's diff and
        # form have a tall minimum).
        self.detail_scroll = QScrollArea()
        self.detail_scroll.setWidgetResizable(True)
        self.detail_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.detail_scroll.setWidget(self.detail)
        self.detail_stack = QStackedWidget()
        for widget in (self.no_selection_label, self.detail_scroll, self.multi_label):
            self.detail_stack.addWidget(widget)

        top = QWidget()
        column = QVBoxLayout(top)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(bar)
        column.addWidget(view, 1)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(top)
        self.splitter.addWidget(self.detail_stack)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setSizes([170, 480])  # the list is a table of contents; the detail is what is reviewed
        view.setMinimumHeight(110)  # a header and four rows: a group and its requests stay in sight

        self.empty_label = QLabel(
            "<h3>Nothing to review</h3><p>Think process results arrive here when a think process asks for "
            "their promotion, when a result is tagged <b>#project-relevant</b> (or another auto-promote tag), "
            "or when a think process is published to its project.</p>")
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.empty_label.setContentsMargins(24, 24, 24, 24)
        self.pending_stack = QStackedWidget()
        self.pending_stack.addWidget(self.empty_label)
        self.pending_stack.addWidget(self.splitter)

    def _build_history(self) -> None:
        self.history_filter = QLineEdit()
        self.history_filter.setPlaceholderText("Filter the history…")
        self.history_filter.setClearButtonEnabled(True)
        self.history_filter.textChanged.connect(self.history_proxy.setFilterFixedString)
        view = QTreeView()
        view.setModel(self.history_proxy)
        view.setRootIsDecorated(False)
        view.setSortingEnabled(True)
        view.sortByColumn(3, Qt.SortOrder.DescendingOrder)
        view.setAllColumnsShowFocus(True)
        view.setUniformRowHeights(True)
        view.doubleClicked.connect(lambda index: self.document_open_requested.emit(
            self.history_model.request_at(self.history_proxy.mapToSource(index).row()).document_id))
        view.selectionModel().currentRowChanged.connect(lambda current, _previous: self._history_current(current))
        header = view.header()
        for column, width in ((0, 260), (1, 110), (2, 120), (3, 130), (4, 170)):
            header.resizeSection(column, width)
        self.history_view = view
        self.history_detail = QLabel()
        self.history_detail.setWordWrap(True)
        self.history_detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.history_detail.setContentsMargins(4, 4, 4, 4)
        self.history_page = QWidget()
        column = QVBoxLayout(self.history_page)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.history_filter)
        column.addWidget(view, 1)
        column.addWidget(self.history_detail)

    def _build_layout(self) -> None:
        self.pending_button, self.history_button = QToolButton(), QToolButton()
        self.pending_button.setText("Pending")
        self.history_button.setText("History")
        self.segments = QButtonGroup(self)
        for number, button in enumerate((self.pending_button, self.history_button)):
            button.setCheckable(True)
            button.setProperty("role", "segment")
            self.segments.addButton(button, number)
        self.pending_button.setChecked(True)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.pending_stack)
        self.pages.addWidget(self.history_page)
        self.segments.idClicked.connect(self.pages.setCurrentIndex)
        switch = QHBoxLayout()
        switch.setSpacing(0)
        switch.addWidget(self.pending_button)
        switch.addWidget(self.history_button)
        switch.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(switch)
        layout.addWidget(self.pages, 1)

    # --- data in ---

    def set_data(self, pending: Sequence[PromotionRequest], decided: Sequence[PromotionRequest],
                 scope_names: Mapping[str, str], ancestry: Mapping[str, list[str]], me: str = "") -> None:
        """Show pending and decided requests.

        Args:
            pending: pending requests, oldest first.
            decided: decided requests, most recently decided first.
            scope_names: ``{path: human name}`` of the scopes.
            ancestry: ``{source scope: [itself, parent, …]}`` for each pending request's source (for
                "Approve to").
            me: the current user's actor string (named "… (you)").
        """
        self._names, self._ancestry, self._me = dict(scope_names), dict(ancestry), me
        # A request sent stays locked until a snapshot no longer lists it (its answer was written) or it
        # failed (:meth:`request_failed`): a snapshot taken before the answer still shows it pending.
        self._in_flight.intersection_update(r.id for r in pending)
        self.detail.set_context(scope_names, me)
        selected = self.selected_request_ids()
        if self.queue_model.set_requests(pending, scope_names, me):
            self._after_reset(selected)
        self.history_model.set_requests(decided, scope_names, me)
        count = self.queue_model.request_count()
        self.pending_button.setText(f"Pending ({count})" if count else "Pending")
        self.pending_stack.setCurrentIndex(1 if count else 0)
        # The document may have changed too: load the details again, at once if the pane is in sight, else once it
        # is back (every refresh of the window comes here; most leave the details as they were).
        if self.isVisible() and self._on_screen:
            self._details_for = None
        else:
            self._details_stale = True
        self._selection_changed()

    def set_on_screen(self, on_screen: bool) -> None:
        """Whether the pane can be seen (a dock behind another's tab stays "visible" to Qt): out of sight, the details
        of the selected request wait until it is back (``QDockWidget.visibilityChanged``)."""
        self._on_screen = on_screen
        if on_screen:
            self._reload_stale_details()

    def showEvent(self, event: QShowEvent) -> None:
        """Load the details of the selected request if they were left for later while the pane was hidden."""
        super().showEvent(event)
        self._reload_stale_details()

    def _reload_stale_details(self) -> None:
        if self._details_stale:
            self._details_stale, self._details_for = False, None
            self._selection_changed()

    def request_failed(self, request_ids: Sequence[str]) -> None:
        """Approving or rejecting ``request_ids`` failed: their actions may be used again."""
        self._in_flight.difference_update(request_ids)
        self._update_actions()

    def show_details(self, details: ReviewDetails) -> None:
        """The loaded details of a request (ignored unless it is still the one selected alone)."""
        if self.selected_request_ids() == [details.request.id]:
            self.detail.show_details(details)

    def set_tag_colors(self, colors: Mapping[str, str]) -> None:
        """Configured tag colours for the chips."""
        self.detail.tags_editor.set_colors(colors)

    # --- queries ---

    def pending_count(self) -> int:
        """How many pending requests the pane lists."""
        return self.queue_model.request_count()

    def selected_request_ids(self) -> list[str]:
        """Ids of the selected requests (a selected group counts as all its requests), in list order."""
        rows = self.queue_view.selectionModel().selectedRows()
        wanted = set(self.queue_model.request_ids_of(rows))
        return [r.id for r in self.queue_model.requests() if r.id in wanted]

    def selected_requests(self) -> list[PromotionRequest]:
        """The selected requests (see :meth:`selected_request_ids`)."""
        return [r for i in self.selected_request_ids() if (r := self.queue_model.request(i)) is not None]

    def targets_for(self, requests: Sequence[PromotionRequest]) -> list[tuple[str, str]]:
        """``(path, label)`` of the scopes above every one of ``requests``' documents, nearest first."""
        if not requests:
            return []
        chains = [self._ancestry.get(r.source_scope, [r.source_scope, r.target_scope])[1:] for r in requests]
        common = [p for p in chains[0] if all(p in chain for chain in chains[1:])]
        return [(p, f"{scope_name(p, self._names)} ({kind_label(p)})") for p in common]

    # --- selection ---

    def select_requests(self, request_ids: Sequence[str]) -> None:
        """Select these requests (the first becomes current and is scrolled to); switches to Pending."""
        self.segments.button(0).click()
        self._select(request_ids)

    def _select(self, request_ids: Sequence[str]) -> None:
        model, selection = self.queue_model, self.queue_view.selectionModel()
        selection.clear()
        flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
        for number, request_id in enumerate(request_ids):
            index = model.index_of(request_id)
            if not index.isValid():
                continue
            if number == 0:
                selection.setCurrentIndex(index, flags)
                self.queue_view.scrollTo(index)
            else:
                selection.select(index, flags)

    def _after_reset(self, selected: list[str]) -> None:
        view, model = self.queue_view, self.queue_model
        for row in range(model.rowCount()):
            group = model.index(row, 0)
            view.setFirstColumnSpanned(row, QModelIndex(), True)
            view.setExpanded(group, group.data(ReviewRole.GROUP_KEY) not in self._collapsed)
        still = [i for i in selected if model.request(i) is not None]
        if still:
            self._select(still)  # a refresh must not switch the user away from the History page
        elif model.rowCount():
            first = model.index(0, 0)
            target = model.index(0, 0, first) if view.isExpanded(first) else first
            view.selectionModel().setCurrentIndex(target, QItemSelectionModel.SelectionFlag.ClearAndSelect
                                                  | QItemSelectionModel.SelectionFlag.Rows)

    def _selection_changed(self) -> None:
        requests = self.selected_requests()
        if len(requests) == 1:
            self.detail_stack.setCurrentWidget(self.detail_scroll)
            self.detail.show_request(requests[0])
            if requests[0].id != self._details_for:
                self._details_for = requests[0].id
                self.details_requested.emit(requests[0])
            self.selection_label.setText("")
        elif requests:
            self.detail_stack.setCurrentWidget(self.multi_label)
            items = "".join(f"<li>{html.escape(r.title)} → {html.escape(scope_name(r.target_scope, self._names))}"
                            "</li>" for r in requests[:30])
            more = f"<p>… and {len(requests) - 30} more</p>" if len(requests) > 30 else ""
            self.multi_label.setText(f"<h3>{len(requests)} requests selected</h3><ul>{items}</ul>{more}"
                                     "<p>Approve, Approve to, Edit &amp; approve (tags) and Reject act on all of "
                                     "them, all or none.</p>")
            self.selection_label.setText(f"{len(requests)} selected")
        else:
            self.detail_stack.setCurrentWidget(self.no_selection_label)
            self.selection_label.setText("")
        if len(requests) != 1:
            self._details_for = None
        self._update_actions()

    def _update_actions(self) -> None:
        requests = self.selected_requests()
        free = bool(requests) and not any(r.id in self._in_flight for r in requests)
        for act in (self.approve_action, self.edit_action, self.reject_action):
            act.setEnabled(free)
        self.open_action.setEnabled(len(requests) == 1)
        self.approve_button.setEnabled(free)
        self.edit_button.setEnabled(free)
        self.reject_button.setEnabled(free)
        self.approve_to_button.setEnabled(free and bool(self.targets_for(requests)))

    # --- actions ---

    def approve_selected(self, to: str | None = None) -> None:
        """Approve the selection (to ``to``, a scope path, instead of each request's target when given)."""
        requests = self.selected_requests()
        if requests and self.approve_action.isEnabled():
            self._emit_approval(Approval(tuple(r.id for r in requests), to=to))

    def edit_and_approve(self) -> None:
        """Open the Edit & approve dialog for the selection (window-modal; OK approves)."""
        requests = self.selected_requests()
        if not requests or not self.edit_action.isEnabled():
            return
        details = self.detail.details
        tags = list(details.document.tags) if (len(requests) == 1 and details is not None
                                                and details.request.id == requests[0].id
                                                and details.document is not None) else []
        dialog = EditApproveDialog(requests, tags, self.targets_for(requests), self)
        dialog.accepted.connect(lambda: self._emit_approval(dialog.approval()))
        self._open_dialog(dialog)

    def reject_selected(self) -> None:
        """Ask for a reason, then reject the selection (window-modal dialog)."""
        requests = self.selected_requests()
        if not requests or not self.reject_action.isEnabled():
            return
        ids = [r.id for r in requests]
        dialog = RejectDialog([r.title for r in requests], self)
        dialog.accepted.connect(lambda: self._reject(ids, dialog.reason()))
        self._open_dialog(dialog)

    def _reject(self, ids: list[str], reason: str) -> None:
        if reason.strip():
            self._in_flight.update(ids)
            self._update_actions()
            self.reject_requested.emit(ids, reason.strip())

    def _emit_approval(self, approval: Approval) -> None:
        self._in_flight.update(approval.request_ids)
        self._update_actions()
        self.approve_requested.emit(approval)

    def _open_dialog(self, dialog: QDialog) -> None:
        self.dialog = dialog
        dialog.finished.connect(lambda _result: (setattr(self, "dialog", None), dialog.deleteLater()))
        dialog.open()

    def _fill_approve_to(self) -> None:
        menu = self.approve_to_menu
        menu.clear()
        requests = self.selected_requests()
        requested = {r.target_scope for r in requests}
        for path, label in self.targets_for(requests):
            act = menu.addAction(requested_label(label, path in requested))
            act.setToolTip(path)
            act.triggered.connect(lambda _c=False, p=path: self.approve_selected(to=p))
        if menu.isEmpty():
            menu.addAction("No scope above the selected documents").setEnabled(False)

    def _context_menu(self, pos: QPoint) -> None:
        if not self.selected_requests():
            return
        menu = QMenu(self)
        menu.addAction(self.approve_action)
        self._fill_approve_to()
        menu.addMenu(self.approve_to_menu).setEnabled(self.approve_to_button.isEnabled())
        menu.addAction(self.edit_action)
        menu.addAction(self.reject_action)
        menu.addSeparator()
        menu.addAction(self.open_action)
        menu.popup(self.queue_view.viewport().mapToGlobal(pos))

    def _open_current(self) -> None:
        requests = self.selected_requests()
        if len(requests) == 1:
            self.document_open_requested.emit(requests[0].document_id)

    def _double_clicked(self, index: QModelIndex) -> None:
        request_id = index.data(ReviewRole.REQUEST_ID)
        request = self.queue_model.request(request_id) if request_id else None
        if request is not None:
            self.document_open_requested.emit(request.document_id)

    def _history_current(self, current: QModelIndex) -> None:
        request = self.history_model.request_at(self.history_proxy.mapToSource(current).row()) \
            if current.isValid() else None
        if request is None:
            self.history_detail.setText("")
            return
        names, me = self._names, self._me
        asked = requester_text(request, names, me)
        decided = actor_label(request.decided_by, names, me)
        lines = [f"<b>{html.escape(request.title)}</b>",
                 f"{request.status.value.capitalize()} by {html.escape(decided)} on {local_time(request.decided_at)}",
                 f"Requested by {html.escape(asked)} on {local_time(request.created_at)}: "
                 f"{html.escape(name_scope_paths(request.reason, names)) or '<i>no reason</i>'}",
                 f"{html.escape(scope_name(request.source_scope, names))} → "
                 f"{html.escape(scope_name(request.final_scope or request.target_scope, names))}"]
        if request.decision_reason:
            lines.append(f"Decision: {html.escape(name_scope_paths(request.decision_reason, names))}")
        self.history_detail.setText("<br>".join(lines))

    # --- layout ---

    def resizeEvent(self, event: QResizeEvent) -> None:
        """Side by side when wide, stacked when narrow (the list's columns follow its own width)."""
        super().resizeEvent(event)
        width = event.size().width()
        wanted = Qt.Orientation.Horizontal if width >= WIDE else Qt.Orientation.Vertical
        if self.splitter.orientation() != wanted:
            self.splitter.setOrientation(wanted)
            # Side by side the list gets two fifths, enough for titles; stacked, a table of contents.
            horizontal = wanted == Qt.Orientation.Horizontal
            self.splitter.setSizes([width * 2 // 5, width * 3 // 5] if horizontal else [170, 480])

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Narrow queues drop the columns the detail repeats, by the list's own width (not the pane's)."""
        if watched is self.queue_view and event.type() == QEvent.Type.Resize:
            self._fit_columns()
        return super().eventFilter(watched, event)

    def _fit_columns(self) -> None:
        width = self.queue_view.width()
        self.queue_view.setColumnHidden(1, width < TINY)
        self.queue_view.setColumnHidden(2, width < NARROW)
        self.queue_view.setColumnHidden(3, width < MEDIUM)
