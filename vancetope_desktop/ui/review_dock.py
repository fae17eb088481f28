"""The review queue in the main window: the Review dock (tabbed with Search), its badge and menu entries,
and the wiring of the Review pane and the Details panel's History to the workbench."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow, QToolBar, QToolButton

from .details_panel import DetailsPanel
from .review_model import Approval
from .review_pane import ReviewPane
from .snapshot import Snapshot
from .window_parts import add_dock, make_action, menu_named
from .workbench import Workbench


class ReviewDock(QObject):
    """Builds and runs the Review dock of ``window``.

    Args:
        window: the main window the dock, its menu entries and its toolbar badge are added to.
        workbench: runs the decisions (write lane) and loads what the pane shows (read lane).
        details: the Details panel whose History section this fills; ``details_dock`` holds it.
        search_dock: the dock the Review dock is tabbed with. toolbar: where the badge goes.
        open_document: opens a document (by id) in a viewer tab.

    Attributes:
        pane: the :class:`ReviewPane`. dock: its dock widget. badge: the toolbar button counting pending
        requests. action: "Review Queue" (Ctrl+Shift+R) in the View menu.
    """

    def __init__(self, window: QMainWindow, workbench: Workbench, details: DetailsPanel, *,
                 search_dock: QDockWidget, details_dock: QDockWidget, toolbar: QToolBar,
                 open_document: Callable[[str], None]) -> None:
        super().__init__(window)
        self.window, self.workbench, self.details, self.details_dock = window, workbench, details, details_dock
        self.pane = ReviewPane()
        self.dock = add_dock(window, "Review", "review", self.pane, Qt.DockWidgetArea.RightDockWidgetArea)
        window.tabifyDockWidget(search_dock, self.dock)
        search_dock.raise_()
        self.action = make_action(window, "Review Queue", self.show, "Ctrl+Shift+R")
        view_menu = menu_named(window, "&View")
        if view_menu is not None:  # after the dock toggles, before the Theme submenu
            separator = next((a for a in view_menu.actions() if a.isSeparator()), None)
            view_menu.insertAction(separator, self.dock.toggleViewAction())
            view_menu.insertAction(separator, self.action)
        self.badge = QToolButton()
        self.badge.setProperty("role", "review-badge")
        self.badge.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.badge.clicked.connect(lambda _checked=False: self.show())
        toolbar.addWidget(self.badge)
        self._show_count(0)

        pane, wb = self.pane, workbench
        wb.snapshot_ready.connect(self._apply)
        self.dock.visibilityChanged.connect(pane.set_on_screen)  # its tab raised or lowered, the dock shown or closed
        pane.details_requested.connect(lambda request: wb.load_review_details(request, pane.show_details))
        pane.approve_requested.connect(self._approve)
        pane.reject_requested.connect(lambda ids, reason: wb.reject_requests(
            ids, reason, on_error=lambda _e: pane.request_failed(ids)))
        pane.document_open_requested.connect(open_document)
        details.document_shown.connect(self._load_document_history)
        details.request_link_activated.connect(lambda request_id: self.show([request_id]))

    def show(self, request_ids: list[str] | None = None) -> None:
        """Show the Review pane (wide enough for its diff), selecting ``request_ids`` when given."""
        self.dock.show()
        self.dock.raise_()
        # Once the raised tab is laid out (a dock hidden behind a tab ignores resizes).
        QTimer.singleShot(50, self._size)
        if request_ids:
            self.pane.select_requests(request_ids)
        self.pane.queue_view.setFocus()

    def _apply(self, snapshot: Snapshot) -> None:
        queue = snapshot.review
        self.pane.set_data(queue.pending, queue.decided, snapshot.scope_names, queue.ancestry, queue.me)
        self.pane.set_tag_colors(snapshot.tag_colors)
        self._show_count(queue.pending_count)

    def _show_count(self, count: int) -> None:
        """The badge: the dock's title and the toolbar button say how many requests wait."""
        self.dock.setWindowTitle(f"Review ({count})" if count else "Review")
        self.badge.setText(f"Review  {count}" if count else "Review")
        self.badge.setToolTip(f"{count} promotion request{'s' if count != 1 else ''} wait for review "
                              "(Ctrl+Shift+R)" if count else "Nothing waits for review (Ctrl+Shift+R)")
        if self.badge.property("pending") != bool(count):
            self.badge.setProperty("pending", bool(count))
            self.badge.style().unpolish(self.badge)  # a dynamic property needs a re-polish
            self.badge.style().polish(self.badge)

    def _size(self) -> None:
        window, dock = self.window, self.dock
        if dock.isFloating() or not dock.isVisible():
            return
        height = window.centralWidget().height()
        if self.details_dock.isVisible() and dock.height() < height * 3 // 4:
            # Reviewing needs room for the list, the document and its diff: Details keeps a strip.
            window.resizeDocks([dock, self.details_dock], [height * 4 // 5, height // 5], Qt.Orientation.Vertical)
        if dock.width() < 600:
            # Wide enough for the diff, while the document list keeps room for its titles.
            window.resizeDocks([dock], [min(760, window.width() * 2 // 5)], Qt.Orientation.Horizontal)

    def _approve(self, approval: Approval) -> None:
        self.workbench.approve_requests(approval.request_ids, to=approval.to, title=approval.title,
                                        add_tags=approval.add_tags, remove_tags=approval.remove_tags,
                                        on_error=lambda _e: self.pane.request_failed(approval.request_ids))

    def _load_document_history(self, doc_id: str) -> None:
        """Load the Details panel's History section (audit trail and requests) off the UI thread."""
        details = self.details

        def loaded(result: tuple[list, list]) -> None:
            snapshot = self.workbench.snapshot
            if details.document_id() == doc_id and snapshot is not None:
                details.set_history(*result, snapshot.scope_names, snapshot.review.me)

        self.workbench.load_document_history(doc_id, loaded)
