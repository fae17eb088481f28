"""The archived notice of the details panel (issue 12): an archived document says so at the top of Details,
"Superseded by <the newer one>" (a link) when an ``updates`` archived it (metadata ``superseded_by``,
``services.lifecycle``), with a Restore button. Restore leaves as ``restore_requested``; the window sends it
to :meth:`~.workbench.Workbench.restore_documents` (``lifecycle.bring_back``, as ``memory restore`` does).

:class:`ArchivedFlow` reads the newer document's title on the read lane each time the panel shows an
archived document; one the current scope may not read is named "a newer document" (never its title).
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QWidget

from ..core.documents import DocumentInfo, DocumentStatus
from ..core.errors import DocumentNotFound, ScopeNotVisible
from ..services import documents
from ..services.lifecycle import SUPERSEDED_BY

if TYPE_CHECKING:
    from collections.abc import Callable

    from PySide6.QtCore import SignalInstance

    from .workbench import Workbench


class ArchivedNotice(QWidget):
    """"Archived · superseded by <link>" and Restore; hidden for a document that is not archived.

    Signals:
        document_link_activated(str): the newer document was clicked (its id).
        restore_requested(list): Restore was pressed (the shown document's id, in a list).
    """

    document_link_activated = Signal(str)
    restore_requested = Signal(list)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.label.linkActivated.connect(self.document_link_activated)
        self.restore_button = QPushButton("Restore", self)
        self.restore_button.setToolTip("Make it active again (a superseded memory stops being superseded)")
        self.restore_button.clicked.connect(lambda: self._doc and self.restore_requested.emit([self._doc.id]))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.restore_button)
        self._doc: DocumentInfo | None = None
        self.show_notice(None)

    def show_notice(self, doc: DocumentInfo | None, newer_title: str | None = None, *,
                    read_only: bool = False) -> None:
        """Show ``doc``'s notice (hidden unless it is archived). ``newer_title``: the title of the document
        that superseded it, when known and readable; ``read_only``: no Restore (another scope's document)."""
        archived = doc is not None and doc.status is DocumentStatus.ARCHIVED
        self._doc = doc if archived else None
        self.setVisible(archived)
        if not archived or doc is None:
            self.label.clear()
            return
        newer = doc.metadata.get(SUPERSEDED_BY)
        if isinstance(newer, str) and newer:
            name = (f'<a href="{html.escape(newer)}">{html.escape(newer_title)}</a>' if newer_title
                    else "a newer document")
            self.label.setText(f"<b>Archived</b> · superseded by {name}")
        else:
            self.label.setText("<b>Archived</b>: kept for the record, left out of lists and search")
        self.restore_button.setVisible(not read_only)

    def document_id(self) -> str | None:
        """The archived document whose notice is shown, or None."""
        return self._doc.id if self._doc else None


class ArchivedFlow:
    """Feeds the notice each time the details panel shows a document, as the current scope sees the newer one."""

    def __init__(self, workbench: Workbench, view: ArchivedNotice, shown: Callable[[], DocumentInfo | None],
                 read_only: Callable[[], bool], document_shown: SignalInstance) -> None:
        """Args:
            shown: the document the panel shows now; ``read_only`` whether the panel shows it read-only;
            ``document_shown`` the panel's signal (a document id) each time it shows one.
        """
        self.workbench, self.view, self.shown, self.read_only = workbench, view, shown, read_only
        document_shown.connect(self.load)

    def load(self, doc_id: str) -> None:
        """Show the notice of the shown document ``doc_id``, reading its newer document's title first."""
        doc = self.shown()
        if doc is None or doc.id != doc_id or doc.status is not DocumentStatus.ARCHIVED:
            self.view.show_notice(None)
            return
        newer = doc.metadata.get(SUPERSEDED_BY)
        read_only = self.read_only()
        if not isinstance(newer, str) or not newer:
            self.view.show_notice(doc, read_only=read_only)
            return
        lib, scope = self.workbench.lib, self.workbench.state.scope

        def read(_context: object) -> str | None:
            try:
                return documents.get_document(lib, newer, acting_scope=scope).title
            except (DocumentNotFound, ScopeNotVisible):  # purged, or not for this scope's eyes
                return None

        def loaded(title: str | None) -> None:
            now = self.shown()
            if now is not None and now.id == doc_id:
                self.view.show_notice(now, title, read_only=read_only)

        self.workbench.read(read, loaded, title="Loading archived notice")
